"""The References entry a reader sees: §7.2's form in the renderings generators write (curly
quotes, any date, a Markdown link, emphasis), a B305 that says which part of an entry failed, a
B336 when the entry's URL is not its stored citation object's, names whose digits state no number
(B320), and a B311 that says what to do when there is no source registry."""

from __future__ import annotations

import pytest
from brief_examples import _QREGISTRY, _cite, _sidecar

from cpu_bounds import assert_cpu_under
from pytest_citations.engine import Engine
from pytest_citations.kinds.briefs import model as briefs
from pytest_citations.kinds.briefs.claims import numeric_parts

OPTIONS = {"claim-sections": briefs.CLAIM_SECTIONS, "references-heading": "References"}
FORM = '`[N] Publisher. "Title". Published <date>. <URL>`'


def entry_of(body: str) -> briefs.Entry:
    brief = briefs.read_brief("b.md", f"## References\n[1] {body}\n", OPTIONS)
    (entry,) = brief.entries
    return entry


# -- §7.2's form as generators render it (F-10) --------------------------------------------------------------


@pytest.mark.parametrize(("body", "url"), [
    ('Federal Reserve. "FOMC Statement". Published Feb 10, 2026. https://www.federalreserve.gov/a', "https://www.federalreserve.gov/a"),
    ('Federal Reserve. “FOMC Statement - February 2026”. Published Feb 10, 2026. https://x.example/1', "https://x.example/1"),
    ('Reuters. "Title". Published 10 Feb 2026. https://x.example/2', "https://x.example/2"),
    ('Reuters. "Title". Published 10 February, 2026. https://x.example/2', "https://x.example/2"),
    ('Reuters. "Title". Published 2026-02-10T14:00:00Z. https://x.example/3', "https://x.example/3"),
    ('Reuters. "Title". Published 2026-02-10. https://x.example/3', "https://x.example/3"),
    ('Reuters. "Title". Published February 10, 2026. https://x.example/4', "https://x.example/4"),
    ('Reuters. "Title". Published Feb. 10, 2026. https://x.example/4', "https://x.example/4"),
    ('Reuters. "Title". Published Feb 10 2026. https://x.example/4', "https://x.example/4"),
    ('Reuters. "Title". Feb 10, 2026. https://x.example/5', "https://x.example/5"),  # §10 writes no "Published"
    ('Reuters. "Title". Published Feb 10, 2026. <https://x.example/6>', "https://x.example/6"),
    ('Reuters. "Title". Published Feb 10, 2026. [https://x.example/7](https://x.example/7)', "https://x.example/7"),
    ('Reuters. "Title". Published Feb 10, 2026. [Read the article](https://x.example/7)', "https://x.example/7"),
    ('Reuters. *"Title"*. Published Feb 10, 2026. https://x.example/8', "https://x.example/8"),
    ('Reuters. "*Title*". Published Feb 10, 2026. https://x.example/8', "https://x.example/8"),
    ('**Reuters**. **"Title"**. Published Feb 10, 2026. https://x.example/8', "https://x.example/8"),
    ('Reuters. "Title with "inner" quotes". Published Feb 10, 2026. https://x.example/9', "https://x.example/9"),
    ('Reuters. "Fed holds rates steady." Published Feb 10, 2026. https://x.example/10', "https://x.example/10"),
    ('U.S. Bureau of Labor Statistics. "CPI Release Schedule". https://www.bls.gov/schedule/', "https://www.bls.gov/schedule/"),
    ('Financial Times. "Is the Fed over-tightening?". Feb 9, 2026. https://www.ft.com/... [Paywall]', "https://www.ft.com/..."),
])
def test_the_renderings_of_the_form_are_read(body, url):
    entry = entry_of(body)
    assert entry.problem is None and entry.url == url


@pytest.mark.parametrize(("body", "problem"), [
    ('Anonymous. "Insider Fed leak". <no URL>', "it ends in no http(s) URL"),
    ('Reuters. "Title". Published Feb 10, 2026. https://x.example/a (archived)',
     "text after the URL: '(archived)' (only [Paywall] and [Monitor-only source] may follow it)"),
    ("Reuters. Fed holds rates. Published Feb 10, 2026. https://x.example/a", "no title in double quotes"),
    ('Reuters. "Fed holds rates. Published Feb 10, 2026. https://x.example/a', "the title's opening quote is never closed"),
    ('"Fed holds rates". Published Feb 10, 2026. https://x.example/a', "no publisher before the title"),
    ('Reuters "Fed holds rates". Published Feb 10, 2026. https://x.example/a', "the publisher 'Reuters' does not end with a period"),
    ('Reuters. "Title". Published yesterday. https://x.example/a', "'Published yesterday' is not a date"),
    ('Reuters. "Title". Published Feb 30, 2026. https://x.example/a', "'Feb 30, 2026' is not a date of the calendar"),
    ('Reuters. "Title". Published 2026-02-10T25:00:00Z. https://x.example/a', "'2026-02-10T25:00:00Z' is not a date of the calendar"),
])
def test_a_malformed_entry_says_which_part_failed(body, problem):
    assert entry_of(body).problem == problem


def test_b305_names_the_failed_part(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.citations]\n")
    brief = "## Prevailing View\n- a [1]\n\n## Counterarguments\n- b [1]\n\n## References\n[1] Reuters. \"Title\". Published soon. https://x.example/a\n"
    (tmp_path / "b.md").write_text(brief)
    found = [(d.line, d.message) for d in Engine.load(tmp_path).check([tmp_path]).diagnostics if d.code == "B305"]
    assert found == [(8, f"References entry [1] does not follow {FORM}: 'Published soon' is not a date")]


# -- the References entry and its stored citation object (S-5) ----------------------------------------------------


def gap_repo(tmp_path, url: str, stored: str = "https://www.reuters.com/markets/a") -> object:
    """A brief whose entry [1] shows ``url``, its sidecar's citation 1 stored at ``stored``."""
    root = tmp_path / "repo"
    root.mkdir()
    (root / "pyproject.toml").write_text("[tool.citations]\n")
    (root / "source_registry.yaml").write_text(_QREGISTRY)
    (root / "b.md").write_text(
        "## Prevailing View\n- The Fed held rates steady. [1]\n\n## Counterarguments\n- [Conflicting reports; unable to confirm]\n\n"
        f'## References\n[1] Reuters. "Title 1". Published Feb 10, 2026. {url}\n'
    )
    (root / "b.citations.json").write_text(_sidecar([{**_cite(1, "reuters"), "url": stored}]))
    return root


def mismatches(root) -> list[tuple[int, int, str]]:
    return [(d.line, d.col, d.message) for d in Engine.load(root).check([root]).diagnostics if d.code == "B336"]


def test_an_entry_linking_another_site_than_its_citation_is_reported(tmp_path):
    assert mismatches(gap_repo(tmp_path, "https://www.bloomberg.com/other")) == [(8, 1, (
        "References entry [1] links to www.bloomberg.com (https://www.bloomberg.com/other), but its stored citation "
        "object's url is on www.reuters.com (https://www.reuters.com/markets/a)"
    ))]


def test_an_entry_linking_another_page_of_the_site_is_reported(tmp_path):
    assert mismatches(gap_repo(tmp_path, "https://www.reuters.com/markets/b")) == [(8, 1, (
        "References entry [1] links to https://www.reuters.com/markets/b, not to its stored citation object's url "
        "https://www.reuters.com/markets/a"
    ))]


@pytest.mark.parametrize("url", [
    "https://www.reuters.com/markets/a",
    "HTTPS://WWW.Reuters.com/markets/a/",  # the spec's normalization: case of scheme and host, a trailing slash
    "https://www.reuters.com/markets/a?utm_source=brief#top",  # tracking parameters and a fragment
    "<https://www.reuters.com/markets/a>",
    "[https://www.reuters.com/markets/a](https://www.reuters.com/markets/a)",
    "https://...",  # elided as spec §10 writes it
    "https://www.reuters.com/...",  # elided after the host, as spec §7.2 writes it
    "https://www.reuters.com/markets/…",
])
def test_an_entry_showing_its_citations_url_or_a_shortening_of_it_passes(tmp_path, url):
    assert mismatches(gap_repo(tmp_path, url)) == []


def test_a_shortened_url_on_another_site_is_reported(tmp_path):
    assert mismatches(gap_repo(tmp_path, "https://www.bloomberg.com/...")) == [(8, 1, (
        "References entry [1] links to www.bloomberg.com (https://www.bloomberg.com/...), but its stored citation "
        "object's url is on www.reuters.com (https://www.reuters.com/markets/a)"
    ))]


def test_a_shortened_url_that_does_not_begin_the_citations_url_is_reported(tmp_path):
    assert mismatches(gap_repo(tmp_path, "https://www.reuters.com/world/...")) == [(8, 1, (
        "References entry [1] links to https://www.reuters.com/world/..., which does not begin its stored citation "
        "object's url https://www.reuters.com/markets/a"
    ))]


def test_the_fixture_shows_a_mislinked_entry(tmp_path):
    import shutil

    from conftest import PROJECT

    root = tmp_path / "repo"
    shutil.copytree(PROJECT / "fixtures" / "brief-repo", root)
    assert [(d.path, d.line, d.code) for d in Engine.load(root).check([root]).diagnostics if d.code == "B336"] == [
        ("briefs/mislinked.md", 19, "B336"),
    ]


# -- names whose digits state no number (F-11) ------------------------------------------------------------------


@pytest.mark.parametrize("text", [
    "Section 230 reform debate continues.",
    "Sec. 230 and § 512 safe harbors were argued.",
    "Rule 10b-5 suits rose in volume.",
    "The Article 50 talks resumed.",
    "Chapter 11 filings are in focus.",
    "The firm filed its Form 10-K late.",
    "Regulation 2019/1150 and Title 42 apply.",
    "The 2nd Circuit ruling matters.",
    "The 9th Cir. panel heard the case.",
    "A 1st Amendment challenge is pending.",
    "The 10-year Treasury yield is in focus.",
    "The 2-year note and 30-year bond sold off.",
    "The 30-year fixed mortgage rate is in focus.",
    "The 2s10s curve steepened.",
])
def test_names_and_tenors_state_no_number(text):
    assert numeric_parts(text) == []


@pytest.mark.parametrize(("text", "expected"), [
    ("The 10-year Treasury yield rose to 4.5%.", [("percentage", "4.5%")]),
    ("Section 230 reform would cost $3bn.", [("number", "$3bn")]),
    ("The 2nd Circuit ruled on March 3.", [("date", "March 3")]),
    ("Stocks hit a 10-year high.", [("number", "10")]),  # a tenor of no instrument: how long, a number
    ("Yields rose for the 3rd week.", [("number", "3rd")]),
])
def test_real_numbers_beside_names_are_still_numeric(text, expected):
    assert numeric_parts(text) == expected


# -- B311 without a registry (M-6) -----------------------------------------------------------------------------------


def test_a_missing_registry_says_what_is_wrong_and_what_to_do(tmp_path):
    root = gap_repo(tmp_path, "https://www.reuters.com/markets/a")
    (root / "source_registry.yaml").unlink()
    found = [(d.line, d.message) for d in Engine.load(root).check([root]).diagnostics if d.code == "B311"]
    assert found == [(2, (
        "the source registry source_registry.yaml does not exist, so no citation's source_id, URL, tier or paywall "
        "policy can be checked: add it at the repository root, or set registry under [tool.citations.kinds.briefs] "
        "to the file that lists the sources"
    ))]



def test_a_shortened_url_is_compared_with_the_stored_url_as_written(tmp_path):
    """Normalization drops a trailing slash the shortened URL may keep."""
    root = gap_repo(tmp_path, "https://www.bls.gov/schedule/...", stored="https://www.bls.gov/schedule/")
    assert mismatches(root) == []


@pytest.mark.parametrize("body", [
    "X." + " " * 200_000 + "y",  # a long run of blanks before no tag
    '"' * 200_000,
    "[a](https://x" * 20_000,
    "[a](https://x)" * 20_000,
    " [a](https://x)" * 20_000,
    "X.\t\"T\".\thttps://x.example/a\t[Paywall]",  # tabs for blanks
    "<https://x" * 20_000,
    'Reuters. "T". ' + "Published " * 20_000 + "https://x.example/a",
    'Reuters. "T". Feb' + " " * 200_000 + "10, 2026. https://x.example/a",
    "X. \"T\". https://x.example/a" + " [Paywall]" * 200_000,
])
def test_a_hostile_entry_is_read_in_linear_time(body):
    import time

    start = time.process_time()
    entry = entry_of(body)
    assert (entry.reference is None) != (entry.problem is None)
    assert_cpu_under(time.process_time() - start, 2.0)


@pytest.mark.parametrize("heading", ["!" * 200_000 + "a", "*a" * 100_000, "1. " * 60_000 + "References", "_" * 200_000])
def test_a_hostile_heading_is_compared_in_linear_time(heading):
    import time

    start = time.process_time()
    briefs.heading_key(heading)
    briefs.heading_titles(f"## {heading}\n{heading}\n===\n")
    assert_cpu_under(time.process_time() - start, 2.0)

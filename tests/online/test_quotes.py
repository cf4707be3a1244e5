"""Quotes on pages (pytest_citations/online/quotes.py): found through typography, markup and
elisions; not found with the page's closest words when there are any; bounded on hostile input."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import same_code_environment
from cpu_bounds import assert_cpu_under
from pytest_citations.online.quotes import CLOSEST_CHARACTERS, QuoteMatch, find_quote, normalize, quote_parts

PAGE = (
    "Fed holds rates steady as inflation cools | Daily Ledger\n"
    "WASHINGTON \u2014 The Federal Reserve held interest rates steady on Wednesday, saying that \u201cinflation has eased"
    " over the past year\u201d but remains elevated, and signalled only one cut before the end of the year.\n"
    "Officials voted 11\u20130 to keep the benchmark rate in a range of 5.25% to 5.5%, the highest in more than two decades."
    " \u201cWe\u2019ll need to see more good data,\u201d the chair told reporters.\n"
    "Markets had priced in two cuts this year.\nTreasury yields rose after the statement."
)


def found(quote: str, page: str = PAGE) -> bool:
    return find_quote(quote, page).found


# -- found ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "quote",
    [
        pytest.param("The Federal Reserve held interest rates steady on Wednesday", id="as written"),
        pytest.param("the federal reserve HELD interest rates", id="case"),
        pytest.param('saying that "inflation has eased over the past year"', id="straight quotes for curly ones"),
        pytest.param("\u201cWe\u2019ll need to see more good data,\u201d the chair told reporters", id="curly as on the page"),
        pytest.param("\u201eWe\u2018ll need to see more good data\u201f", id="other typographic quotes"),
        pytest.param("We'll need to see more good data", id="straight apostrophe"),
        pytest.param("We\u00b4ll need to see more good data", id="acute accent used as an apostrophe"),
        pytest.param("WASHINGTON - The Federal Reserve", id="hyphen with spaces for an em dash"),
        pytest.param("WASHINGTON--The Federal Reserve", id="double hyphen for an em dash"),
        pytest.param("Officials voted 11-0", id="hyphen for an en dash"),
        pytest.param("Officials voted 11 \u2013 0", id="spaced en dash"),
        pytest.param("the end of the year. Officials voted", id="across a line break"),
        pytest.param("two cuts this year.   Treasury\n\tyields rose", id="whitespace"),
        pytest.param("Markets had priced in two cuts this year.", id="whole sentence"),
        pytest.param('"Markets had priced in two cuts this year"', id="surrounding quote marks"),
        pytest.param("\u201cMarkets had priced in two cuts\u201d", id="surrounding curly quote marks"),
        pytest.param("held interest rates steady on Wednesday.", id="a period the quoting sentence added"),
        pytest.param("\u2026held interest rates steady\u2026", id="leading and trailing ellipses"),
        pytest.param("...held interest rates steady...", id="leading and trailing dots"),
        pytest.param("ＷＡＳＨＩＮＧＴＯＮ", id="full-width letters"),
        pytest.param("", id="empty"),
        pytest.param(" \u2026 ", id="nothing but an ellipsis"),
    ],
)
def test_a_quote_on_the_page_is_found(quote):
    assert find_quote(quote, PAGE) == QuoteMatch(found=True, closest=None, similarity=1.0)


@pytest.mark.parametrize(
    ("quote", "page"),
    [
        pytest.param("inflation has eased", "infla\u00adtion has\u00a0eased", id="soft hyphen and no-break space on the page"),
        pytest.param("inflation has eased", "inflation\u200b has eased\u2060", id="zero-width characters on the page"),
        pytest.param("the financial office", "the \ufb01nancial o\ufb03ce", id="ligatures (PDF text)"),
        pytest.param("caf\u00e9 cr\u00e8me", "cafe\u0301 cre\u0300me", id="composed and decomposed accents"),
        pytest.param("STRASSE", "stra\u00dfe", id="case folding"),
        pytest.param("he said \u201cno\u201d", "HE SAID \u00abno\u00bb", id="guillemets"),
        pytest.param("prices rose\u2026 then fell", "prices rose... then fell", id="an ellipsis the page has too"),
        pytest.param("it's \u2018fine\u2019", "it\u2019s 'fine'", id="apostrophes both ways"),
        pytest.param("the `old' style", "the 'old' style", id="backtick as an opening quote"),
    ],
)
def test_typography_and_invisible_characters_do_not_count(quote, page):
    assert found(quote, page)


@pytest.mark.parametrize(
    "quote",
    [
        "The Federal Reserve held interest rates steady \u2026 signalled only one cut",
        "The Federal Reserve held interest rates steady ... signalled only one cut",
        "The Federal Reserve held interest rates steady . . . signalled only one cut",
        "The Federal Reserve held interest rates steady [\u2026] signalled only one cut",
        "The Federal Reserve held interest rates steady (...) signalled only one cut",
        "The Federal Reserve held interest rates steady, ... and signalled only one cut",
        "The Federal Reserve held interest rates steady.... Officials voted 11-0",
        "\u201cThe Federal Reserve held \u2026 rates steady \u2026 Treasury yields rose\u201d",
    ],
)
def test_an_elided_quote_is_found_when_its_parts_are_on_the_page_in_order(quote):
    assert found(quote)


@pytest.mark.parametrize(
    "quote",
    [
        pytest.param("Treasury yields rose ... The Federal Reserve held", id="parts out of order"),
        pytest.param("The Federal Reserve held ... rates fell sharply", id="a part missing"),
        pytest.param("The Federal Reserve held ... The Federal Reserve held", id="a part found once, needed twice"),
    ],
)
def test_an_elided_quote_whose_parts_are_not_all_there_in_order_is_not_found(quote):
    assert not found(quote)


def test_normalization_and_parts():
    assert normalize("  \u201cWe\u2019ll\u201d \u2014 SEE\u2026 \ufb01ne\u00ad  ") == "we'llsee... fine"  # (quote marks and dashes left out)
    assert quote_parts("\u201cA, \u2026 b [...] c.\u201d") == ["a", "b", "c"]
    assert quote_parts("\u2026") == []


def test_quotes_are_found_across_inline_markup_and_line_breaks_of_an_html_page():
    pytest.importorskip("selectolax")
    from pytest_citations.online.page_text import read_page

    page = read_page(
        b"<article><p>The Fed <b>held</b> rates st<i>ea</i>dy,<br>saying &ldquo;inflation has\n   eased&rdquo;.</p>"
        b"<p>Officials&nbsp;voted 11&ndash;0.</p></article>",
        "text/html",
        wants_text=True,
    ).text
    assert found('The Fed held rates steady, saying "inflation has eased".', page)
    assert found("saying \u201cinflation has eased\u201d. Officials voted 11-0", page)
    assert not found("The Fed held rates steadily", page)


# -- not found ------------------------------------------------------------------------------------


def test_a_quote_with_a_word_changed_shows_the_pages_words_closest_to_it():
    match = find_quote("The Federal Reserve kept interest rates steady on Wednesday", PAGE)
    assert not match.found
    assert match.closest == "The Federal Reserve held interest rates steady on Wednesday,"
    assert match.similarity == pytest.approx(8 / 9)
    message = f'quote not found on the page; closest ({match.similarity:.0%} similar): "{match.closest}"'
    assert message == 'quote not found on the page; closest (89% similar): "The Federal Reserve held interest rates steady on Wednesday,"'


def test_the_closest_words_start_where_the_quote_does_not_at_a_dash_before_it():
    match = find_quote("The Federal Reserve held interest rates steady on Thursday", PAGE)
    assert match.closest == "The Federal Reserve held interest rates steady on Wednesday," and match.similarity == pytest.approx(8 / 9)


def test_a_short_quote_with_its_middle_word_changed_still_has_a_closest_match():
    match = find_quote("the chair warned reporters", PAGE)
    assert not match.found and match.closest == "the chair told reporters." and match.similarity == pytest.approx(0.75)


def test_a_misquote_found_far_into_a_long_page():
    page = " ".join(f"Filler sentence number {n} about nothing in particular." for n in range(20_000))
    page += " The minister said the plan would cost four billion pounds over ten years. " + "More filler. " * 100
    match = find_quote("The minister said the plan would cost five billion pounds over ten years.", page)
    assert not match.found and match.closest == "The minister said the plan would cost four billion pounds over ten years."


def test_a_quote_unlike_anything_on_the_page_has_no_closest_match():
    match = find_quote("Penguins waddle across the frozen tundra at dusk", PAGE)
    assert match == QuoteMatch(found=False, closest=None, similarity=0.0)


def test_a_quote_that_shares_too_little_has_no_closest_match_but_a_similarity():
    match = find_quote("the benchmark rate doubled after officials panicked about sudden unemployment spikes nationwide", PAGE)
    assert not match.found and match.closest is None and 0.0 < match.similarity < 0.5


def test_the_closest_match_of_a_long_quote_is_cut_around_where_it_differs():
    sentences = [f"Sentence {n} of the report says the committee met on day {n} and agreed to item {n}." for n in range(60)]
    page = "Intro. " + " ".join(sentences) + " Outro."
    quote = " ".join(sentences).replace("agreed to item 30.", "rejected item 30.")
    match = find_quote(quote, page)
    assert not match.found and match.similarity > 0.95
    assert match.closest is not None and len(match.closest) <= CLOSEST_CHARACTERS + 2
    assert match.closest.startswith("…") and match.closest.endswith("…") and "agreed to item 30." in match.closest


def test_the_closest_match_of_a_very_long_quote_is_scored_by_shared_word_ngrams():
    words = [f"w{n}" for n in range(2000)]
    page = "start " + " ".join(words) + " end"
    quote = " ".join(words[:1000] + ["changed"] + words[1001:])
    match = find_quote(quote, page)
    assert not match.found and 0.99 < match.similarity < 1.0 and "w1000" in match.closest and len(match.closest) <= CLOSEST_CHARACTERS + 2


def test_an_elided_quote_not_found_is_compared_without_its_ellipses():
    match = find_quote("Treasury yields rose \u2026 Markets had priced in two cuts", PAGE)
    assert not match.found and match.closest is not None and "Markets had priced in two cuts" in match.closest


def test_a_similarity_of_one_means_only_punctuation_differs():
    match = find_quote("Markets had priced in two cuts; this year", PAGE)
    assert not match.found and match.similarity == 1.0 and match.closest == "Markets had priced in two cuts this year."


WORDS = st.lists(st.sampled_from(["the", "Fed", "held", "rates", "…", "...", "\u2014", "-", "\u201c", "\u00ad", "\u200b", "\u00a8",
                                  "\ufdfa", "\u00b4", "x" * 300, "\n", " "]) | st.text(max_size=6), max_size=40).map(" ".join)


@settings(max_examples=300, deadline=None)
@given(quote=WORDS, page=WORDS)
def test_any_quote_and_page_give_a_coherent_match(quote, page):
    match = find_quote(quote, page)
    assert 0.0 <= match.similarity <= 1.0
    if match.found:
        assert match == QuoteMatch(found=True, closest=None, similarity=1.0)
    elif match.closest is not None:
        assert match.similarity >= 0.5 and len(match.closest) <= CLOSEST_CHARACTERS + 2
    if not match.found and quote_parts(quote) and " ".join(quote_parts(quote)) in normalize(page):
        raise AssertionError("a quote whose one part is on the page was not found")


@settings(max_examples=200, deadline=None)
@given(page=WORDS, start=st.integers(0, 40), length=st.integers(1, 40))
def test_any_part_of_a_page_is_found_on_it(page, start, length):
    words = page.split()
    assert find_quote(" ".join(words[start : start + length]), page).found


# -- bounds ---------------------------------------------------------------------------------------

FIVE_MB = 5_000_000


def random_words(count: int, seed: int = 7) -> str:
    chooser = random.Random(seed)
    vocabulary = [f"w{n}" for n in range(5000)]
    return " ".join(chooser.choice(vocabulary) for _ in range(count))


def near_miss() -> tuple[str, str]:
    page = random_words(800_000)
    words = page.split()
    quote_words = words[400_000:415_000]
    quote_words[7000] = "changed"
    return " ".join(quote_words), page


HOSTILE = {
    "100 KB quote, 5 MB page, not there": lambda: (random_words(15_000, seed=1), random_words(800_000)),
    "100 KB quote, 5 MB page, one word changed": near_miss,
    "repeated word": lambda: ("the " * 25_000 + "end", "the " * (FIVE_MB // 4)),
    "repeated pair": lambda: ("a b " * 25_000 + "c", "a b " * (FIVE_MB // 4)),
    "a page of one 5 MB word": lambda: ("fed held rates", "x" * FIVE_MB),
    "many elisions": lambda: (" ... ".join(["w1"] * 20_000) + " ... nowhere", random_words(800_000)),
    "typographic page": lambda: ("\u201cthe fed held\u201d", "caf\u00e9 \u2014 \u201cquoted\u201d na\u00efve\u00ad " * (FIVE_MB // 24)),
    "invisible words": lambda: ("the fed held", "\u200b word\u00a8 " * (FIVE_MB // 10)),
    "a quote of one long word": lambda: ("y" * 100_000, "y" * 99_999 + " " + "w " * 2_000_000),
}


@pytest.mark.parametrize("name", list(HOSTILE))
def test_a_hostile_quote_and_page_are_compared_in_bounded_time(name):
    quote, page = HOSTILE[name]()
    started = time.process_time()
    match = find_quote(quote, page)
    assert_cpu_under(time.process_time() - started, 2.0)
    assert not match.found


_MEASURE = """
import json, resource, subprocess, sys
done = subprocess.run([sys.executable, "-c", sys.argv[1], *sys.argv[2:]], capture_output=True, text=True, timeout=60)
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / (1 << 20 if sys.platform == "darwin" else 1 << 10)
print(json.dumps({"status": done.returncode, "stderr": done.stderr[-2000:], "megabytes": peak}))
"""
_FIND = """
import json, pathlib, sys
from pytest_citations.online.quotes import find_quote
case = json.loads(pathlib.Path(sys.argv[1]).read_text())
find_quote(case["quote"], case["page"])
"""


@pytest.mark.parametrize("name", ["100 KB quote, 5 MB page, one word changed", "typographic page", "repeated pair"])
def test_a_hostile_quote_and_page_are_compared_in_bounded_memory(tmp_path, name):
    """Peak memory of a child process that compares them (the interpreter and the texts included),
    measured through a process of its own (Linux keeps a process's peak across exec)."""
    quote, page = HOSTILE[name]()
    case = tmp_path / "case.json"
    case.write_text(json.dumps({"quote": quote, "page": page}))
    done = subprocess.run([sys.executable, "-c", _MEASURE, _FIND, str(case)], capture_output=True, text=True,
                          env=same_code_environment(), timeout=90, check=True)
    measured = json.loads(done.stdout)
    assert measured["status"] == 0, measured["stderr"]
    assert measured["megabytes"] < 200


@pytest.mark.parametrize(("quote", "page"), [
    ("expectations remain anchored", "inflation expec-\ntations remain anchored over the horizon"),
    ("rose 3.1 percent over the year", "prices rose 3.1 percent<sup>[1]</sup> over the year".replace("<sup>", "").replace("</sup>", "")),
    ('the Committee said "pause", not stop', "the Committee said \u201cpause,\u201d not stop"),
    ("research &amp; development", "spending on research & development grew"),
])
def test_what_typesetting_moves_or_adds_is_not_a_difference(quote, page):
    assert find_quote(quote, page).found

"""More shortcuts of brief checking, each against the plain way of computing the same thing: the
heading scan (a newline-led pattern) against a line-by-line reading, on the fixtures, the
hostile corpus, real Markdown files and generated texts; and the quality rules' cheaper tests
(B331's sum, B333's first word, B334's label text) against what they replace; chunk texts held in
memory against the store's query for each."""

from __future__ import annotations

import contextlib
import re
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from conftest import PROJECT, TESTS
from pytest_citations.kinds.briefs import citation_rules as brief_rules
from pytest_citations.kinds.briefs import citations as brief_citations
from pytest_citations.kinds.briefs import claim_rules as brief_quality
from pytest_citations.kinds.briefs import model as briefs
from pytest_citations.kinds.briefs import pack_rules, resolution
from pytest_citations.kinds.briefs.headings import headings

ATX_LINE = re.compile(r" {0,3}#{1,6}[ \t]+(?P<text>.+?)[ \t#]*", re.S)
SETEXT_TEXT = re.compile(r" {0,3}(?![-+*][ \t]|[0-9]{1,9}[.)][ \t]|>)[^ \t].*", re.S)
UNDERLINE = re.compile(r" {0,3}(?:=+|-+)[ \t]*\r?")


def plain_headings(text: str) -> list[tuple[str, int]]:
    """(compared text, 1-based line) of every ATX and setext heading, line by line: an ATX line,
    or a line of text (no list item or quote) whose next line is an underline of ``=`` or ``-``."""
    lines = text.split("\n")
    found = []
    index = 0
    while index < len(lines):
        atx = ATX_LINE.fullmatch(lines[index])
        if atx:
            found.append((briefs.heading_key(atx.group("text")), index + 1))
        elif index + 1 < len(lines) and SETEXT_TEXT.fullmatch(lines[index]) and UNDERLINE.fullmatch(lines[index + 1]):
            found.append((briefs.heading_key(lines[index]), index + 1))
            index += 1
        index += 1
    return found


def assert_headings_read_the_same(text: str) -> None:
    expected = plain_headings(text)
    assert [(title, line) for title, line, _ in headings(text)] == expected
    assert briefs.heading_titles(text) == {title for title, _ in expected}


def markdown_files(realdata_root: Path | None = None) -> list[Path]:
    found = sorted(PROJECT.joinpath("fixtures").rglob("*.md")) + sorted((TESTS / "hostile").glob("*.md"))
    for folder in sorted(Path("/tmp/pytest-citations-bench").glob("briefs-scale0.01-*"))[:1]:
        found += sorted(folder.rglob("*.md"))[:100]
    return found


@pytest.mark.parametrize("path", markdown_files(), ids=lambda p: p.name)
def test_headings_of_fixture_hostile_and_bench_files_read_the_same(path):
    assert_headings_read_the_same(path.read_bytes().decode("utf-8", "replace"))


def test_headings_of_real_markdown_files_read_the_same(realdata):
    paths = sorted(realdata.rglob("*.md"))[:400]
    if not paths:
        pytest.skip(f"no Markdown file under {realdata}")
    for path in paths:
        assert_headings_read_the_same(path.read_bytes().decode("utf-8", "replace"))


HEADING_PIECES = [
    "#",
    "##",
    "#######",
    " ",
    "   ",
    "    ",
    "\t",
    "\n",
    "\r",
    "\r\n",
    "a",
    "Prevailing View",
    "# ",
    " #",
    "\x0b",
    "\u2028",
    "===",
    "---",
    "-",
    "- ",
    "> ",
    "1. ",
    "**",
    ":",
    "📈",
]


def test_ids_are_read_whole_only_after_many_briefs(tmp_path, monkeypatch):
    from pytest_citations.kinds.briefs import evidence_store

    store = store_with_chunks(tmp_path / "s.sqlite")
    reads = []
    read_keys = evidence_store.Store.read_keys
    monkeypatch.setattr(evidence_store.Store, "read_keys", lambda self: reads.append(1) or read_keys(self))
    assert [store.holds_every_id() for _ in range(evidence_store.IDS_READ_WHOLE_AFTER)] == [False] * evidence_store.IDS_READ_WHOLE_AFTER
    store.preload(["d1"], ["c1"])  # a few briefs' ids: looked up, never the store read whole
    assert reads == []
    assert store.holds_every_id() is True and reads == [1]


@settings(max_examples=800, deadline=None)
@given(st.lists(st.sampled_from(HEADING_PIECES), max_size=16).map("".join))
def test_headings_of_generated_texts_read_the_same(text):
    assert_headings_read_the_same(text)


@pytest.mark.parametrize(
    "text", ["# a", "\n# a", "# a\n", "a\n   # b #\n#\tc\n", "#a\n# \n#  #\n", "x # a\n## b ##  \n", "    # code\n",
             "a\n===\n", "a\n---\nb\n-\n", "- a\n---\n", "> a\n===\n", "1. a\n---\n", "    a\n---\n", "# a\n---\n",
             "a\n= =\n", "a\n---x\n", "\n===\n", "a\r\n---\r\n"]
)
def test_headings_of_tricky_texts_read_the_same(text):
    assert_headings_read_the_same(text)


def reference_expected_score(weights: list[float], parts: list[float]) -> float:
    """B331's formula as first written: the weighted parts added by ``sum`` over a generator."""
    return sum(w * p for w, p in zip(weights, parts, strict=True))


NUMBERS = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False), st.integers(-3, 3), st.sampled_from([0.0, -0.0, 0.1, 0.2, 0.3])
)


@settings(max_examples=500, deadline=None)
@given(st.lists(NUMBERS, min_size=3, max_size=3), st.lists(NUMBERS, min_size=3, max_size=3), NUMBERS)
@example([1, 1, 1], [-0.0, -0.0, -0.0], 1)  # added from 0, the sum is 0.0, not -0.0
def test_the_score_formula_is_added_as_before(weights, parts, score):
    chunk = {"chunk_id": "c1", "score": score, "similarity": parts[0], "recency": parts[1], "credibility": parts[2]}
    brief = briefs.Brief("b.md", {}, [], None, [], [], pack={"pack_id": "p", "chunks": [chunk]})
    context = SimpleNamespace(options={"weights": weights, "tolerance": 0.005})
    expected = reference_expected_score(weights, [float(p) for p in parts])
    found = list(pack_rules.pack_score_mismatch.check(brief, context))
    assert bool(found) == (abs(float(score) - expected) > 0.005)
    if found:
        assert f"the formula gives {expected:.4f} (" in found[0].message


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet="ase ouy", max_size=12), st.lists(st.text(alphabet="aso", max_size=3), max_size=3))
def test_a_phrase_may_be_held_as_every_word_is_in_the_text(text, words):
    assert brief_quality._may_hold(text, words) == all(word in text for word in words)


LABEL_PIECES = [
    "[HIGH CONFIDENCE]",
    "[LOW CONFIDENCE]",
    "[MEDIUM CONFIDENCE",
    "CONFIDENCE]",
    "[high confidence]",
    " ",
    "\t",
    "x",
    "[",
]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(LABEL_PIECES), max_size=5).map("".join))
def test_a_bullet_without_the_label_text_has_no_confidence_label(text):
    if brief_quality._patterns().confidence.match(text):
        assert brief_quality._may_have_label(text)


def store_with_chunks(path: Path, schema: str | None = None):
    """A store (the project's DDL unless ``schema``) whose chunks have texts, a NULL text, a number
    as text, a blob id and ids that differ only in case."""
    import sqlite3

    from pytest_citations.kinds.briefs import evidence_store

    path.parent.mkdir(parents=True, exist_ok=True)
    if schema is None:
        evidence_store.init(path)
    connection = sqlite3.connect(path)
    connection.executescript(
        (schema or "")
        + "CREATE TABLE IF NOT EXISTS documents (id TEXT PRIMARY KEY); CREATE TABLE IF NOT EXISTS citations (id TEXT);"
        "CREATE TABLE IF NOT EXISTS syntheses (id TEXT, brief_path TEXT);"
        "CREATE TABLE IF NOT EXISTS synthesis_markers (synthesis_id TEXT, marker INTEGER, citation_id TEXT);"
        "INSERT OR IGNORE INTO documents (id) VALUES ('d1');"
    )
    columns = {row[1] for row in connection.execute("PRAGMA table_info(chunks)")}
    rows = [(f"c{n}", f"text {n} \u00e9") for n in range(30)] + [
        ("C1", "upper"),
        ("n", None),
        ("i", 7),
        (b"b", "blob id"),
        ("\u00e9", "accent"),
    ]
    for chunk_id, text in rows:
        with contextlib.suppress(sqlite3.IntegrityError):
            if "text" in columns:
                connection.execute("INSERT INTO chunks (id, doc_id, text) VALUES (?, 'd1', ?)", (chunk_id, text))
            else:
                connection.execute("INSERT INTO chunks (id, doc_id) VALUES (?, 'd1')", (chunk_id,))
    connection.commit()
    connection.close()
    return evidence_store.open_readonly(path.parent, path.name)


CHUNK_KEYS = [["c1", "c2", "missing"], ["C1", "c1", "n", "i", "b", "\u00e9"], [], ["c3", 5], ["c29", "c1 "]]
STORE_SCHEMAS = {
    "the project's": None,
    "no keys": "CREATE TABLE chunks (id TEXT, doc_id TEXT, text TEXT);",
    "NOCASE ids": "CREATE TABLE chunks (id TEXT COLLATE NOCASE PRIMARY KEY, doc_id, text);",
    "no text column": "CREATE TABLE chunks (id TEXT PRIMARY KEY, doc_id TEXT);",
}


@pytest.mark.parametrize("schema", list(STORE_SCHEMAS))
def test_chunk_texts_held_in_memory_are_what_each_query_gives(tmp_path, schema, monkeypatch):
    from pytest_citations.kinds.briefs import evidence_store

    store = store_with_chunks(tmp_path / "s.sqlite", STORE_SCHEMAS[schema])
    alone = store_with_chunks(tmp_path / "again" / "s.sqlite", STORE_SCHEMAS[schema])
    monkeypatch.setattr(evidence_store, "TEXTS_READ_WHOLE_AFTER", 0)
    held = [store.chunk_texts(keys) for keys in CHUNK_KEYS]
    assert (held[0] is not None) == (schema == "the project's")
    for keys, found in zip(CHUNK_KEYS, held, strict=True):
        if found is not None:
            assert found == resolution._query_each(alone, resolution._CHUNK_TEXT, keys)
    assert held[3] is None  # a key that is no string is queried


def test_chunk_texts_are_read_whole_only_after_many_briefs_and_when_small(tmp_path, monkeypatch):
    from pytest_citations.kinds.briefs import evidence_store

    store = store_with_chunks(tmp_path / "s.sqlite")
    asked = [store.chunk_texts(["c1"]) for _ in range(evidence_store.TEXTS_READ_WHOLE_AFTER)]
    assert asked == [None] * evidence_store.TEXTS_READ_WHOLE_AFTER
    assert store.chunk_texts(["c1"]) == {"c1": [{"text": "text 1 \u00e9"}]}
    monkeypatch.setattr(evidence_store, "MAX_TEXT_READ_WHOLE", 10)
    small = store_with_chunks(tmp_path / "small" / "s.sqlite")
    assert [small.chunk_texts(["c1"]) for _ in range(evidence_store.TEXTS_READ_WHOLE_AFTER + 2)][-1] is None


@settings(max_examples=800, deadline=None)
@given(
    st.lists(
        st.sampled_from(["a", "b.md", ".", "..", "", ".md", "x.", "a.b.c", "é", " ", ".hidden.md"]),
        min_size=1,
        max_size=4,
    ).map("/".join)
)
def test_sidecar_names_are_pathlibs(rel):
    from pathlib import PurePosixPath

    try:
        stem = str(PurePosixPath(rel).with_suffix(".citations.json"))
    except ValueError as exc:
        with pytest.raises(ValueError, match=re.escape(str(exc))):
            resolution.sidecar_candidates(rel)
        return
    assert resolution.sidecar_candidates(rel) == [stem, f"{rel}.citations.json"]


def reference_is_file_inside(root: Path, rel: str) -> bool:
    """The sidecar's existence as first tested: resolved inside the root, then ``exists``."""
    from pytest_citations.core import sources

    try:
        path = sources.resolve_inside(root, rel)
    except sources.SourceError:
        return False
    return path.exists()


def test_a_sidecar_is_found_where_resolving_it_finds_it(tmp_path):
    root, outside = tmp_path / "repo", tmp_path / "outside"
    (root / "d").mkdir(parents=True)
    outside.mkdir()
    (root / "b.citations.json").write_text("{}")
    (root / "d" / "dir.citations.json").mkdir()
    (outside / "o.json").write_text("{}")
    links = {
        "in.json": root / "b.citations.json",
        "out.json": outside / "o.json",
        "broken.json": root / "nothing",
        "dirlink": root / "d",
    }
    for name, target in links.items():
        (root / name).symlink_to(target)
    (root / "loop.json").symlink_to(root / "loop.json")
    rels = [
        "b.citations.json",
        "d/dir.citations.json",
        "in.json",
        "out.json",
        "broken.json",
        "loop.json",
        "missing.json",
        "b.citations.json/x.json",
        "dirlink/dir.citations.json",
        "d/../b.citations.json",
        "./b.citations.json",
        "d//x",
        "a\0b",
    ]
    for rel in rels:
        assert resolution._is_file_inside(root, rel) == reference_is_file_inside(root, rel), rel


FIELD_VALUES = st.one_of(
    st.sampled_from(["x", "", " ", "\t\n", "\u00a0", "a b"]),
    st.none(),
    st.integers(),
    st.lists(st.just("x"), max_size=1),
)


@settings(max_examples=500, deadline=None)
@given(
    st.dictionaries(st.sampled_from([*briefs.REQUIRED_FIELDS, "other"]), FIELD_VALUES, max_size=3),
    st.sets(st.sampled_from(briefs.REQUIRED_FIELDS), max_size=2),
)
def test_a_citation_has_every_field_where_none_is_missing(changed, removed):
    citation = {**{field: "x" for field in briefs.REQUIRED_FIELDS}, **changed}
    for field in removed:
        citation.pop(field, None)
    missing = [f for f in briefs.REQUIRED_FIELDS if not (isinstance(value := citation.get(f), str) and value.strip())]
    assert brief_rules._has_every_field(citation) == (not missing)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from([1, 2, 3, 4, None, "1", True]), max_size=4), st.sampled_from([(1,), [1, 2], [], [4, 3]])
)
def test_a_bullet_cites_a_tier_as_any_of_its_citations_does(tiers, wanted):
    brief = briefs.Brief("b.md", {}, [], None, [], [])
    cited = [(n, {"credibility_tier": tier}) for n, tier in enumerate(tiers)]
    expected = any(brief_quality.tier_of(brief, c) in wanted for _, c in cited)
    assert brief_quality.cites_tier_in(brief, cited, wanted) == expected


@pytest.mark.parametrize(
    ("section", "tags", "reported"),
    [("watch", ("event_calendar",), False), ("watch", ("other",), True), ("prevailing", ("event_calendar",), True)],
)
def test_a_what_to_watch_bullet_citing_a_calendar_is_exempt(section, tags, reported):
    from pytest_citations.kinds.briefs import source_registry as registry

    sources = {"cal": registry.Source("cal", "Calendar", "https://cal.example/", tags, 3, "full")}
    marker = briefs.Marker(1, 3, 20, 0, 3)
    bullet = briefs.Bullet(section, 0, 3, 1, 0, 30, "Data due on March 5, 2026. [1]", [marker], False)
    brief = briefs.Brief(
        "b.md",
        {section: briefs.Section(section, section, 2, [bullet])},
        [],
        None,
        [],
        [],
        citations={"1": {"source_id": "cal", "publisher": "Cal"}},
        registry=registry.Registry("r", sources),
    )
    options = {
        "credible-tiers": [1, 2],
        "min-independent": 2,
        "calendar-tag": "event_calendar",
        "non-numeric-names": brief_quality.NAMES,
    }
    found = list(brief_quality.numeric_claim_uncorroborated.check(brief, SimpleNamespace(options=options)))
    assert bool(found) == reported


def reference_scheme_host(url: str) -> tuple[str, str] | None:
    """(scheme, host) of an http(s) URL as urlsplit reads it, for every URL."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url.strip())
        host = (parts.hostname or "").rstrip(".")
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not host:
        return None
    return parts.scheme.lower(), host.lower()


URL_PIECES = [
    "http",
    "https",
    "HTTPS",
    "ftp",
    "://",
    ":",
    "//",
    "/",
    "a",
    "B",
    ".",
    "@",
    "[",
    "]",
    "%",
    " ",
    "\t",
    "\n",
    "\u00e9",
    "\x01",
    "\x1c",
    "80",
    "?",
    "#",
    "-",
    "\\",
    "::1",
    "www.",
    "fed.gov",
]


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(URL_PIECES), max_size=9).map("".join))
def test_hosts_of_plain_urls_are_urlsplits(url):
    from pytest_citations.kinds.briefs import source_registry as registry

    assert registry._scheme_host.__wrapped__(url) == reference_scheme_host(url)
    assert registry._scheme_host.__wrapped__("https://" + url) == reference_scheme_host("https://" + url)


@pytest.mark.parametrize(
    "url",
    [
        "https://www.Fed.gov./a?b#c",
        " http://a.example:8080/x ",
        "https://u@a.example/",
        "https://[::1]/",
        "https://a%2e.example/",
        "https://a .example/",
        "https://a.example/\tb",
        "https://\u00e9.example/",
        "http:///x",
        "https://a.example:x:y/",
        "https://a\\b.example/",
        "HTTPS://A.example/",
    ],
)
def test_hosts_of_tricky_urls_are_urlsplits(url):
    from pytest_citations.kinds.briefs import source_registry as registry

    assert registry._scheme_host.__wrapped__(url) == reference_scheme_host(url)


def test_hosts_of_bench_citations_are_urlsplits():
    import json

    sidecars = sorted(Path("/tmp/pytest-citations-bench").glob("briefs-scale0.01-*/**/*.citations.json"))[:100]
    if not sidecars:
        pytest.skip("no bench corpus of briefs in /tmp/pytest-citations-bench (bench/corpora.py briefs --scale 0.01)")
    from pytest_citations.kinds.briefs import source_registry as registry

    for path in sidecars:
        for citation in json.loads(path.read_text(encoding="utf-8"))["citations"].values():
            assert registry._scheme_host.__wrapped__(citation["url"]) == reference_scheme_host(citation["url"])


def reference_tier_of(brief: briefs.Brief, item: dict):
    """The tier of a citation or chunk as first written: the registry source's, else the item's."""
    source_id = item.get("source_id")
    source = (
        brief.registry.sources.get(source_id) if brief.registry is not None and isinstance(source_id, str) else None
    )
    tier = brief_citations._int(source.credibility_tier) if source is not None else None
    return tier if tier is not None else brief_citations._int(item.get("credibility_tier"))


TIERS = st.one_of(st.integers(0, 5), st.booleans(), st.none(), st.sampled_from(["1", 1.0]))


@settings(max_examples=500, deadline=None)
@given(
    st.dictionaries(st.sampled_from(["a", "b", "c"]), TIERS),
    st.sampled_from(["a", "b", "z", 1, None]),
    TIERS,
    st.booleans(),
)
def test_tiers_read_through_the_registrys_map_are_the_plain_answers(registered, source_id, stated, with_registry):
    from pytest_citations.kinds.briefs import source_registry as registry

    sources = {
        sid: registry.Source(sid, sid, "https://x.example/", (), tier, "full") for sid, tier in registered.items()
    }
    brief = briefs.Brief(
        "b.md", {}, [], None, [], [], registry=registry.Registry("r", sources) if with_registry else None
    )
    item = {"source_id": source_id, "credibility_tier": stated}
    assert brief_quality.tier_of(brief, item) == reference_tier_of(brief, item)
    assert type(brief_quality.tier_of(brief, item)) is type(reference_tier_of(brief, item))

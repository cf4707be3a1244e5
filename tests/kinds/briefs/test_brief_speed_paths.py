"""The fast paths of brief checking give exactly what the plain ways of computing the same thing
give: the block-only Markdown parse with markers read without an inline parse where nothing can
make them links, against markdown-it's full parse, on every fixture brief, the hostile corpus,
hand-made bullets and generated ones."""

from __future__ import annotations

import contextlib
import functools
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import PROJECT, TESTS
from cpu_bounds import assert_cpu_under
from pytest_citations.kinds.briefs import claims as brief_quality
from pytest_citations.kinds.briefs import model as briefs
from pytest_citations.kinds.briefs import plain_reader, resolution

_MARKER_TEXT = re.compile(r"\[([0-9]{1,9})\]")
OPTIONS = {"claim-sections": briefs.CLAIM_SECTIONS, "references-heading": "References"}


def reference_token_markers(inline) -> list[int]:
    """Marker numbers of a fully parsed inline token: its text children outside links."""
    numbers: list[int] = []
    depth = 0
    for child in inline.children or ():
        if child.type == "link_open":
            depth += 1
        elif child.type == "link_close":
            depth -= 1
        elif child.type == "text" and depth == 0:
            numbers.extend(int(n) for n in _MARKER_TEXT.findall(child.content))
    return numbers


@functools.cache
def full_parser():
    """markdown-it's full CommonMark parse, escapes and entities kept as children of their own."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").disable("text_join")


def summary(brief: briefs.Brief) -> tuple:
    """Everything :func:`briefs.read_brief` found, in comparable form."""
    entries = [(e.number, e.line, e.col, e.text, e.reference, e.problem) for e in brief.entries]
    references = (brief.references.title, brief.references.line) if brief.references else None
    return brief.sections, brief.missing_sections, references, entries, brief.swallowed


INLINE_FLAGS = briefs._marker_flags


def reference_flags(token, source, source_start, candidates, env) -> list[bool]:
    """Whether each candidate is a marker, from markdown-it's full parse of the token's content: a
    candidate is when its number is among those of the text children outside links. Exact when no
    number is written twice in the content; otherwise the inline parse of every bullet is used."""
    numbers = _MARKER_TEXT.findall(token.content)
    if len(set(numbers)) < len(numbers):
        return INLINE_FLAGS(token, source, source_start, candidates, env)
    found = reference_token_markers(full_parser().parseInline(token.content, dict(env))[0])
    return [candidate.number in found for candidate in candidates]


def read_both(text: str, monkeypatch) -> tuple[tuple, tuple]:
    """(the fast reading, the reference reading: markdown-it's parse of every file, markers from
    the fully parsed children of every bullet or from its inline parse)."""
    fast = summary(briefs.read_brief("b.md", text, OPTIONS))
    with monkeypatch.context() as patch:
        patch.setattr(briefs, "_plain_blocks", lambda text: None)
        patch.setattr(briefs, "_INLINE_SYNTAX", re.compile(""))
        patch.setattr(briefs, "_marker_flags", reference_flags)
        reference = summary(briefs.read_brief("b.md", text, OPTIONS))
    return fast, reference


def brief_with(bullets: list[str], references: str = '[1] Fed. "T". https://a.example/x') -> str:
    claims = "\n".join(f"- {bullet}" for bullet in bullets)
    return (
        f"## Prevailing View\n{claims}\n\n## Counterarguments\n- Other. [2]\n\n## Minority View\n- x [3]\n\n"
        f"## What to Watch\n- y [1]\n\n## References\n{references}\n"
    )


def corpus_files() -> list[Path]:
    found = sorted(PROJECT.joinpath("fixtures").rglob("*.md")) + sorted((TESTS / "hostile").glob("*.md"))
    bench = Path("/tmp/pytest-citations-bench")
    for folder in sorted(bench.glob("briefs-scale0.01-*"))[:1]:
        found += sorted(folder.rglob("*.md"))[:200]
    return found


@pytest.mark.parametrize("path", corpus_files(), ids=lambda p: p.name)
def test_fixture_and_hostile_files_read_the_same(path, monkeypatch):
    text = path.read_bytes().decode("utf-8", "replace")
    fast, reference = read_both(text, monkeypatch)
    assert fast == reference


TRICKY_BULLETS = [
    "Plain claim. [1][2]",
    "Link [text](https://x.example) then [1]",
    "Marker as link text [1](https://x.example) and [2]",
    "Nested [a [1] b](https://x.example) [2]",
    "Reference link [text][1] and [2]",
    "Collapsed [1][] and [2]",
    "Autolink <https://x.example/[1]> [2]",
    "Inline HTML <span>[1]</span> [2]",
    "Comment <!-- [1] --> [2]",
    "Entity &#91;1] and &#x5B;2&#93; [3] &amp; S&P 500 [1]",
    "Escaped \\[1] then [2]",
    "Escaped backslash \\\\[1] then \\\\\\[2] [3]",
    "Escaped bracket [1\\] and [2]",
    "Image ![1](https://x.example/i.png) [2]",
    "Image ![alt [1]](u) [2]",
    "Code `[1]` and ``[2] ` `` [3]",
    "Code across lines `a\n  [1] b` [2]",
    "Unclosed `[1] code [2]",
    "Emphasis *[1]* and _[2]_ [3]",
    "Brackets [[1]] and [ [2] ]",
    "Long [1234567890] and [123456789]",
    "Paren after [1](not a link and [2]",
    "Broken link [1](x [2]",
    "Link over lines [a\n  [1]](u) [2]",
    "Fullwidth [３] and [1]",
    "Soft\n  break [1]\n  [2]",
    "Hard  \n  break [1]",
]


@pytest.mark.parametrize("bullet", TRICKY_BULLETS)
@pytest.mark.parametrize("definitions", ["", "\n\n[1]: https://x.example/one\n[zz]: https://x.example/z"])
def test_tricky_bullets_read_the_same(bullet, definitions, monkeypatch):
    fast, reference = read_both(brief_with([bullet, "Second [2]"]) + definitions, monkeypatch)
    assert fast == reference


ONE = "\n\n[1]: https://x.example/one\n"
# (bullet, definitions, its markers, its [N]s read as links): each [N] by (number, column); a
# bullet starts at column 3. An escaped, entity-made or code [N] is no candidate: it neither is a
# marker nor moves the others.
MARKED_BULLETS = [
    ("\\[2] [1]", "", [(1, 8)], []),
    ("\\\\[1] [2]", "", [(1, 5), (2, 9)], []),
    ("\\\\\\[1] [2]", "", [(2, 10)], []),
    ("a\\\\\\\\[1]", "", [(1, 8)], []),
    ("\\[1] [2] [1]", "", [(2, 8), (1, 12)], []),
    ("\\[1] and [1]", ONE, [], [(1, 12)]),
    ("&#91;1] [1]", "", [(1, 11)], []),
    ("&#91;1] [1]", ONE, [], [(1, 11)]),
    ("[2&#93; [1] [2]", "", [(1, 11), (2, 15)], []),
    ("`[1]` [1]", "", [(1, 9)], []),
    ("``[2] ` `` [2] [1]", "", [(2, 14), (1, 18)], []),
    ("[x [1]](u) [1]", "", [(1, 14)], [(1, 6)]),
    ("[1] [x](u) [1]", ONE, [], [(1, 3), (1, 14)]),
    ("<https://x.example/[1]> [1]", "", [(1, 27)], [(1, 22)]),
    ("![a [1]](u) [1] [2]", "", [(1, 15), (2, 19)], [(1, 7)]),
    ("[1][zz] [1]", "", [(1, 3), (1, 11)], []),
    ("<b title=\"[1]\">[2]</b> [1]", "", [(2, 18), (1, 26)], [(1, 13)]),
]


@pytest.mark.parametrize(("bullet", "definitions", "markers", "swallowed"), MARKED_BULLETS)
@pytest.mark.parametrize("path", ["fast", "inline parse of every bullet"])
def test_markers_are_matched_by_position(bullet, definitions, markers, swallowed, path, monkeypatch):
    if path != "fast":
        monkeypatch.setattr(briefs, "_plain_blocks", lambda text: None)
        monkeypatch.setattr(briefs, "_INLINE_SYNTAX", re.compile(""))
    brief = briefs.read_brief("b.md", brief_with([bullet]) + definitions, OPTIONS)
    first = brief.sections["prevailing"].bullets[0]
    assert [(m.number, m.col) for m in first.markers] == markers
    assert [(m.number, m.col) for m, _ in brief.swallowed if m.line == 2] == swallowed


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 40), st.integers(0, 40))), st.lists(st.integers(0, 45)))
def test_outside_spans_is_the_plain_test(spans, positions):
    positions = sorted(positions)
    assert briefs._outside(spans, positions) == [not any(a <= p < b for a, b in spans) for p in positions]


def test_a_bullet_of_thousands_of_links_and_markers_is_read_whole():
    bullet = "[1] [x](u) [2] " * 4000
    brief = briefs.read_brief("b.md", brief_with([bullet]) + ONE, OPTIONS)
    assert [m.number for m in brief.sections["prevailing"].bullets[0].markers] == [2] * 4000
    assert sum(1 for m, _ in brief.swallowed if m.line == 2) == 4000


FRAGMENTS = st.sampled_from([
    "[1]", "[2]", "[12]", "](", "](u)", "(", ")", "[", "]", "<", ">", "<b>", "<https://x.y>", "`", "``", "\\", "\\[",
    "&#91;", "&#93;", "&amp;", "&", "*", "_", "!", " ", "\n  ", "word", "<!--", "-->", "[1]: u", "[x][1]", "1", ":",
])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(FRAGMENTS, min_size=1, max_size=12).map("".join), min_size=1, max_size=3), st.booleans())
def test_generated_bullets_read_the_same(bullets, define):
    patch = pytest.MonkeyPatch()
    try:
        text = brief_with(bullets) + ("\n\n[1]: https://x.example/one\n" if define else "")
        fast, reference = read_both(text, patch)
    finally:
        patch.undo()
    assert fast == reference


# -- the keyword classifier and numeric detection: one alternation as a first test ----------------


def reference_numeric_parts(text: str, names: list[str]) -> list[tuple[str, str]]:
    patterns = brief_quality._patterns()
    text = brief_quality.claim_text(text)
    for name in names:
        try:
            text = patterns.regex.compile(name).sub(lambda m: " " * len(m.group(0)), text, timeout=brief_quality.REGEX_TIMEOUT)
        except TimeoutError:
            continue
    return [(m.lastgroup, " ".join(m.group(0).split())) for m in patterns.numeric.finditer(text)]


def reference_topics(text: str, policy: list[str], macro: list[str]) -> dict[str, str]:
    found: dict[str, str] = {}
    text = brief_quality.claim_text(text)
    for tag, patterns in (("policy_centralbank", policy), ("macro_data", macro)):
        for pattern in patterns:
            try:
                match = brief_quality._patterns().regex.compile(pattern).search(text, timeout=brief_quality.REGEX_TIMEOUT)
            except TimeoutError:
                match = None
            if match:
                found[tag] = match.group(0)
                break
    return found


PATTERN_SETS = [
    brief_quality.NAMES,
    brief_quality.POLICY_PATTERNS,
    brief_quality.MACRO_PATTERNS,
    [r"(a)\1", r"fed"],  # a group reference: not joined
    [r"(?i)s&p\s*500", r"x|y"],  # a leading flag, scoped; an alternation of its own
    [r"(?x) S & P", r"G7"],  # verbose: not joined
    [r"(?i:bank) of", r"(?<=the )Fed(?! up)"],
    [r"", r"Q&A"],  # the empty pattern matches everywhere
    [r"\d{3}", r"(?P<n>\d)(?P=n)"],
    [r"\bFed\b", r"(?i)FOMC", r"[)(]"],
]
CLAIMS = [
    "The Fed held rates at 4.25% in March 2026. [1]",
    "S&P 500 rose 2% while the FTSE 100 fell; G7 met. [2]",
    "Fed up investors sold bonds. [1]",
    "aa the Fed (and FOMC) said x; GDP grew, CPI 3.1 percent",
    "[HIGH CONFIDENCE] `code 12` Bank of Japan cut; Q&A 1234 1122",
    "",
    "ſ&p 500 KELVIN ＦＥＤ fomc",
]


@pytest.mark.parametrize("patterns", PATTERN_SETS)
@pytest.mark.parametrize("claim", CLAIMS)
def test_numeric_parts_and_topics_match_trying_each_pattern(patterns, claim):
    assert brief_quality.numeric_parts(claim, patterns) == reference_numeric_parts(claim, patterns)
    assert brief_quality.topics(claim, patterns, patterns[::-1]) == reference_topics(claim, patterns, patterns[::-1])


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(["Fed", "fed up", "FOMC", "S&P 500", "G7", "G-20", "GDP", "CPI", "2%", "March 3", "Q4", "1,200",
                              "Bank of Japan", "rate cuts", "the", "aa", " ", "[1]", "`x`", "(", ")", "\\", "ſ", "K"]),
             max_size=15).map(" ".join),
    st.sampled_from(PATTERN_SETS),
)
def test_generated_claims_match_trying_each_pattern(claim, patterns):
    assert brief_quality.numeric_parts(claim, patterns) == reference_numeric_parts(claim, patterns)
    assert brief_quality.topics(claim, patterns, brief_quality.MACRO_PATTERNS) == reference_topics(
        claim, patterns, brief_quality.MACRO_PATTERNS)


def test_patterns_that_cannot_be_joined_are_tried_one_by_one():
    assert brief_quality._any_of(tuple(brief_quality.NAMES)) is not None
    assert brief_quality._any_of(tuple(brief_quality.POLICY_PATTERNS)) is not None
    for unjoinable in ([r"(a)\1"], [r"(?x) a"], [r"(?P<n>a)(?P=n)"], [r"a(?i)b"], [r"(unclosed"]):
        assert brief_quality._any_of(tuple(unjoinable)) is None


def test_an_invalid_settings_regex_fails_the_rule_as_it_always_did():
    with pytest.raises(Exception) as raised:
        brief_quality.numeric_parts("x 1", [r"(unclosed"])
    assert not brief_quality.all_compile((r"(unclosed",))
    assert "missing )" in str(raised.value)


# -- the evidence store: a failing query is not run once per brief --------------------------------


def test_store_columns_as_sqlite_compares_them(tmp_path):
    import sqlite3

    from pytest_citations.kinds.briefs import evidence_store

    path = tmp_path / "s.sqlite"
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE synthesis_bullets (synthesis_id TEXT, section TEXT, bullet_index INTEGER, tags TEXT)")
        connection.execute("CREATE TABLE upper (ID TEXT, Näme TEXT)")
        connection.execute("CREATE TABLE syntheses (id TEXT, brief_path TEXT)")
        connection.execute("INSERT INTO syntheses VALUES ('s1', 'b.md')")
        connection.execute("INSERT INTO synthesis_bullets VALUES ('s1', 'prevailing', 0, '[\"macro_data\"]')")
    connection.close()
    store = evidence_store.Store("s.sqlite", sqlite3.connect(path))
    assert store.columns("synthesis_bullets") == {"synthesis_id", "section", "bullet_index", "tags"}
    assert store.columns("upper") == {"id", "näme"}  # SQLite folds ASCII letters only
    assert store.columns("no_such_table") == set()
    assert resolution.store_bullet_tags(store, "b.md") == {("prevailing", 0): ["macro_data"]}
    store.connection.execute("ALTER TABLE synthesis_bullets RENAME COLUMN tags TO labels")
    assert resolution.store_bullet_tags(evidence_store.Store("s.sqlite", store.connection), "b.md") is None


def test_cached_timestamps_and_hosts_are_the_plain_answers():
    from pytest_citations.core import timestamps
    from pytest_citations.kinds.briefs import source_registry as registry

    for value in ["2026-02-10T14:00:00Z", "2026-02-30T14:00:00Z", "2026-02-10", "2026-02-10T14:00+0530", "x", "", None, 5]:
        first, again = timestamps.parse_iso_8601(value), timestamps.parse_iso_8601(value)
        assert first == again
    assert timestamps.parse_iso_8601("2026-02-10T14:00:00+01:00").utcoffset().total_seconds() == 3600
    for url in ["https://WWW.Example.com./a", "ftp://x.y/", "http://[::1", "https://"]:
        assert registry._scheme_host(url) == registry._scheme_host.__wrapped__(url)


def _irregular_store(tmp_path, dump: bool = False, text_column: str = "TEXT"):
    """A store without keys: repeated ids, a NULL doc_id, an upper-case column name; as a SQLite
    file or as SQL text loaded through the read-only authorizer."""
    tmp_path.mkdir(exist_ok=True)
    import sqlite3

    from pytest_citations.kinds.briefs import evidence_store

    sql = (
        "CREATE TABLE documents (id TEXT, source_id TEXT);\n"
        f"CREATE TABLE chunks (id TEXT, doc_id TEXT, {text_column} TEXT);\n"
        "CREATE TABLE citations (id TEXT); CREATE TABLE syntheses (id TEXT, brief_path TEXT);\n"
        "CREATE TABLE synthesis_markers (synthesis_id TEXT, marker INTEGER, citation_id TEXT);\n"
        + "".join(f"INSERT INTO documents VALUES ('d{n % 70}', 's');\n" for n in range(140))
        + "".join(f"INSERT INTO chunks VALUES ('c{n % 90}', {'NULL' if n % 13 == 0 else repr(f'd{n}')}, 'text {n}');\n"
                  for n in range(250))
    )
    if dump:
        (tmp_path / "store.sql").write_text(sql)
        return evidence_store.open_readonly(tmp_path, "store.sql")
    connection = sqlite3.connect(tmp_path / "store.sqlite")
    connection.executescript(sql)
    connection.commit()
    connection.close()
    return evidence_store.open_readonly(tmp_path, "store.sqlite")


@pytest.mark.parametrize("dump", [False, True])
def test_batched_store_reads_are_the_single_reads(tmp_path, dump):
    from pytest_citations.kinds.briefs import evidence_store

    store = _irregular_store(tmp_path, dump)
    keys = [f"c{n}" for n in range(0, 240, 2)] + ["d3", "zz", "c4"]  # over a hundred, a repeat, missing ones
    for sql in ("SELECT doc_id FROM chunks WHERE id = ?", "SELECT text FROM chunks WHERE id = ?", "SELECT 1 FROM documents WHERE id = ?"):
        names, rows = store.rows_each(sql, keys)
        single = [store.connection.execute(sql, (key,)) for key in keys]
        assert names == evidence_store.column_keys(single[0])
        assert rows == [[tuple(row) for row in cursor.fetchall()] for cursor in single]
    fresh = _irregular_store(tmp_path / "again", dump)
    store.preload([f"d{n}" for n in range(80)], keys)
    assert {d: store.has_document(d) for d in store._docs} == {d: fresh.has_document(d) for d in store._docs}
    assert {c: store.chunk_document(c) for c in keys} == {c: fresh.chunk_document(c) for c in keys}


def outcome(function, *args):
    """What ``function(*args)`` gives: ("ok", the value) or (exception type, message)."""
    try:
        return "ok", function(*args)
    except Exception as exc:  # the comparison is the point
        return type(exc).__name__, str(exc)


@pytest.mark.parametrize("text_column", ["text", "TEXT", "Text"])
def test_chunk_text_read_at_once_is_read_alone(tmp_path, text_column):
    store = _irregular_store(tmp_path, text_column=text_column)
    citations = {str(n): {"chunk_id": f"c{n}", "doc_id": "d1", "quote_span": {"start": 0, "end": 1}} for n in range(0, 120, 3)}
    citations["999"] = {"chunk_id": 5, "quote_span": {}}
    brief = briefs.Brief("b.md", {}, [], None, [], [], citations=citations, store=store)
    alone = briefs.Brief("b.md", {}, [], None, [], [], citations={}, store=store)
    for chunk_id in [*(c["chunk_id"] for c in citations.values()), "c2", "missing"]:
        assert outcome(resolution.chunk_text, brief, chunk_id, "d1") == outcome(resolution.chunk_text, alone, chunk_id, "d1")
    assert len(brief.memo["quoted_chunk_rows"]) == 40


def test_a_store_without_the_column_fails_alone_as_it_did(tmp_path):
    import sqlite3

    from pytest_citations.kinds.briefs import evidence_store

    connection = sqlite3.connect(":memory:")
    connection.execute("CREATE TABLE chunks (id TEXT, body TEXT)")
    store = evidence_store.Store("s", connection)
    assert resolution._query_each(store, resolution._CHUNK_TEXT, ["a", "b"]) == {"a": None, "b": None}
    store.preload(["d"], ["a"])  # nothing cached: chunk_document raises as it always did
    with pytest.raises(sqlite3.OperationalError):
        store.chunk_document("a")


# -- References entries: the body cut after the start, not by a lazy match --------------------------

REFERENCE_ENTRY_START = re.compile(r"^[ \t]*(?:[-*+][ \t]+)?\[(?P<number>[0-9]{1,9})\][ \t]+(?P<body>.*?)[ \t]*$")


def entry_start(line: str):
    found = briefs._ENTRY_START.match(line)
    return (found.group("number"), found.start("number"), line[found.end() :].rstrip(" \t")) if found else None


def reference_entry_start(line: str):
    found = REFERENCE_ENTRY_START.match(line)
    return (found.group("number"), found.start("number"), found.group("body")) if found else None


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from([" ", "\t", "-", "*", "+", "[", "]", "1", "23", "a", "\r", "\x0b", "\u2028", "\x85", "."]),
                max_size=14).map("".join))
def test_reference_entry_starts_read_the_same(line):
    assert entry_start(line) == reference_entry_start(line)


@pytest.mark.parametrize("line", [
    '[1] Fed. "T". https://a.example/x', "  - [12]\t body \t ", "[1]   ", "[1]", "* [3] a\rb \t", "[1234567890] x",
    "[1] a\u2028b  ", "+\t[7] x\x0b", "-[1] x",
])
def test_reference_entry_starts_read_the_same_on_tricky_lines(line):
    assert entry_start(line) == reference_entry_start(line)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["`", "``", "<!--", "-->", "<", "!", "-", "a", "[1]", "\n", " "]), max_size=12).map("".join))
def test_blanking_without_code_or_comments_is_the_plain_blanking(text):
    from pytest_citations.core import markdown_text

    plain = markdown_text.CODE_SPAN.sub(lambda m: markdown_text.blank(m.group()),
                                        markdown_text.HTML_COMMENT.sub(lambda m: markdown_text.blank(m.group()), text))
    assert markdown_text.blank_inline_code_and_comments(text) == plain


# -- plain briefs read without markdown-it: its block tokens, and the same brief ---------------------

PLAIN_LINES = [
    "", "# Daily Brief", "## Prevailing View", "## Counterarguments", "### Minority View", "#### What to Watch", "## References",
    "- The Fed held rates. [1]", "- [Insufficient evidence to assess this claim]", "- GDP grew 2% in Q4 2025. [2][3]",
    "- S&P 500 rose & fell [1]  ", "- [HIGH CONFIDENCE] Rates [1](x) <b>", '[1] Fed. "FOMC". Feb 10, 2026. https://x.example/a',
    "[2] FT. \"Stocks\". https://ft.example/c [Paywall]", "Paragraph text [1]", "2019 was a year [2]", "# Heading  ",
    "# \u2003spaced\u2003 ", "- tail\u2002", "- [x] task", "text\u2028more", "- 1.5% higher [1]", "1.5% up", "[3 without close",
]
TRICKY_LINES = [
    "-", "- ", "-  x", "-\tx", "---", "===", "- - x", "- 1. x", "1. x", "10) y", "* x", "+ x", "  - x", "    code", "> q",
    "```", "~~~", "#", "# ", "#x", "####### x", "# a #", "<div>", "[1]: http://x", "- #x", " x", "\tx", "x\r", "a\0b",
    "- x\\", "\ufeffx",
]


HELD = ("inline", "html_block", "fence", "code_block")  # the types whose content read_brief reads
READ_TYPES = ("heading_open", "list_item_open", "list_item_close", *HELD)  # what read_brief reads


def block_view(tokens) -> list[tuple]:
    """Type, lines and content of each token of a type :func:`briefs.read_brief` reads, and a
    heading's tag (its level decides where its section ends)."""
    return [(t.type, t.map if not t.type.endswith("_close") else None, t.content if t.type in HELD else "",
             t.tag if t.type == "heading_open" else "")
            for t in tokens if t.type in READ_TYPES]


def check_plain(text: str) -> bool:
    """Whether :func:`briefs._plain_blocks` reads ``text``; when it does, its tokens are markdown-it's."""
    plain = briefs._plain_blocks(text)
    if plain is not None:
        assert block_view(plain) == block_view(briefs._markdown().parse(text, {}))
    return plain is not None


@settings(max_examples=600, deadline=None)
@given(
    st.lists(st.one_of(st.sampled_from(PLAIN_LINES), st.sampled_from(PLAIN_LINES), st.sampled_from(TRICKY_LINES)), max_size=14),
    st.sampled_from(["", "\n", "\n\n"]),
)
def test_generated_documents_read_the_same_without_markdown_it(lines, end):
    text = "\n".join(lines) + end
    check_plain(text)
    patch = pytest.MonkeyPatch()
    try:
        fast, reference = read_both(text, patch)
    finally:
        patch.undo()
    assert fast == reference


@pytest.mark.parametrize("text", [
    brief_with(["Plain claim [1]", "Second [2]"]),
    "# H\n- a\n- b\n\n- c\n\n## X\n- d\n## Y\npara\nline2\n\n[1] x\n- e",
    "- a\n- b\n\n\n", "- a\n\n- b\n# h", "p\n- a\n- b", "", "\n", "\n\n# h", "# h\n\n\npara  \n",
])
def test_plain_documents_are_read_without_markdown_it(text):
    assert check_plain(text)


@pytest.mark.parametrize("text", ["- a\npara", "- a\n  more", "p\n===", "[1]: u\n- a [1]", "- a\r\n", "* a", "- 1. a"])
def test_other_documents_go_to_markdown_it(text):
    assert briefs._plain_blocks(text) is None


def test_bench_briefs_read_the_same(monkeypatch):
    bench = sorted(Path("/tmp/pytest-citations-bench").glob("briefs-scale0.01-*"))
    if not bench:
        pytest.skip("no bench corpus of briefs in /tmp/pytest-citations-bench (bench/corpora.py briefs --scale 0.01)")
    for path in sorted(bench[0].rglob("*.md"))[:100]:
        text = path.read_text(encoding="utf-8")
        check_plain(text)
        fast, reference = read_both(text, monkeypatch)
        assert fast == reference, path


SCHEMAS = {
    "the project's": None,
    "no keys": "CREATE TABLE documents (id TEXT, source_id TEXT); CREATE TABLE chunks (id TEXT, doc_id TEXT, text TEXT);",
    "NOCASE ids": "CREATE TABLE documents (id TEXT COLLATE NOCASE PRIMARY KEY); CREATE TABLE chunks (id TEXT PRIMARY KEY, doc_id, text);",
    "integer ids": "CREATE TABLE documents (id TEXTINT PRIMARY KEY); CREATE TABLE chunks (id CHARINT PRIMARY KEY, doc_id, text);",
    "untyped ids": "CREATE TABLE documents (id PRIMARY KEY); CREATE TABLE chunks (id UNIQUE, doc_id, text);",
    "partial index": "CREATE TABLE documents (id TEXT PRIMARY KEY);"
                     "CREATE TABLE chunks (id TEXT, doc_id, text); CREATE UNIQUE INDEX c ON chunks (id) WHERE id > 'c5';",
    "covering index": "CREATE TABLE documents (id TEXT PRIMARY KEY);"
                      "CREATE TABLE chunks (id TEXT, doc_id, text); CREATE INDEX c ON chunks (id, doc_id);",
    "without rowid": "CREATE TABLE documents (id TEXT PRIMARY KEY) WITHOUT ROWID;"
                     "CREATE TABLE chunks (id VARCHAR(20) PRIMARY KEY, doc_id, text) WITHOUT ROWID;",
}


@pytest.mark.parametrize("schema", list(SCHEMAS))
@pytest.mark.parametrize("max_rows", [100, 10], ids=["read whole", "too large to read whole"])
def test_ids_read_whole_answer_as_their_queries(tmp_path, schema, max_rows, monkeypatch):
    import sqlite3

    from pytest_citations.kinds.briefs import evidence_store

    monkeypatch.setattr(evidence_store, "MAX_ROWS_READ_WHOLE", max_rows)

    path = tmp_path / "s.sqlite"
    if SCHEMAS[schema] is None:
        evidence_store.init(path)
    connection = sqlite3.connect(path)
    connection.executescript((SCHEMAS[schema] or "") + "CREATE TABLE IF NOT EXISTS citations (id TEXT);"
                             "CREATE TABLE IF NOT EXISTS syntheses (id TEXT, brief_path TEXT);"
                             "CREATE TABLE IF NOT EXISTS synthesis_markers (synthesis_id TEXT, marker INTEGER, citation_id TEXT);")
    extra = ", source_id, url" if "url" in {row[1] for row in connection.execute("PRAGMA table_info(documents)")} else ""
    for n in range(12):
        for value in (f"d{n}", n, f"D{n}") if schema != "integer ids" else (n,):
            with contextlib.suppress(sqlite3.IntegrityError):
                connection.execute(f"INSERT INTO documents (id{extra}) VALUES (?{', 1, 2' if extra else ''})", (value,))
        for turn, value in enumerate((f"c{n}", f"C{n}", n, f"c{n}")):  # c{n} twice, where nothing keeps it unique
            with contextlib.suppress(sqlite3.IntegrityError):
                connection.execute("INSERT INTO chunks (id, doc_id, text) VALUES (?, ?, 'x')", (value, f"d{(9 - n - turn) % 5}" if n % 4 else 7))
    connection.commit()
    connection.close()
    read = evidence_store.open_readonly(tmp_path, "s.sqlite")
    keys = [f"{p}{n}" for p in "dDcC" for n in range(14)] + ["5", "05", 5]
    read.read_keys()
    read.preload([k for k in keys if isinstance(k, str)], [k for k in keys if isinstance(k, str)])
    assert read._complete == (schema in ("the project's", "without rowid", "untyped ids") and max_rows == 100)
    alone = evidence_store.open_readonly(tmp_path, "s.sqlite")
    for key in keys:
        found = alone.connection.execute("SELECT 1 FROM documents WHERE id = ?", (key,)).fetchone()
        assert read.has_document(key) == (found is not None)
        row = alone.connection.execute("SELECT doc_id FROM chunks WHERE id = ?", (key,)).fetchone()
        assert read.chunk_document(key) == (row[0] if row else None)


def test_a_long_plain_brief_reads_in_linear_time_and_the_same():
    import time

    lines = ["## Prevailing View", *(f"- Claim {n} held at {n}% [{n % 9 + 1}]" for n in range(20000)), "", "## References",
             *(f'[{n}] P. "T". https://x.example/{n}' for n in range(1, 10)), "- " + "word [1] " * 20000]
    text = "\n".join(lines) + "\n"
    start = time.process_time()
    plain = briefs._plain_blocks(text)
    assert plain is not None
    assert_cpu_under(time.process_time() - start, 2.0)
    assert block_view(plain) == block_view(briefs._markdown().parse(text, {}))


def test_the_trimmed_characters_are_markdown_its():
    from markdown_it.common.utils import MD_TRIM_CHARS

    assert plain_reader.MARKDOWN_TRIM == MD_TRIM_CHARS


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.sampled_from(["[1]", "[22]", "\\[3]", "[4](", "x", " ", "\r"]), max_size=8).map("".join),
                min_size=1, max_size=6), st.data())
def test_a_one_line_bullets_columns_are_line_col_s(lines, data):
    text = "\n".join(lines) + "\n"
    line_starts = [0, *(m.end() for m in re.finditer("\n", text)), len(text) + 1]
    first = data.draw(st.integers(0, len(lines) - 1))
    start, end = line_starts[first], line_starts[first + 1]
    found = briefs._candidates(text[start:end], start, [first, first + 1], line_starts)
    expected = [(int(m.group(1)), *briefs._line_col(line_starts, start + m.start()), start + m.start(), start + m.end())
                for m in briefs._MARKER_TEXT.finditer(text[start:end])
                if text[start:end][m.end() : m.end() + 1] != "(" and not briefs._escaped(text[start:end], m.start())]
    assert [tuple(marker) for marker in found] == expected


PHRASE_PIECES = ["Some", "sources", "suggest", "SOME", "ſources", "ſuggeſt", " ", "\u00a0", "\t", "[1]", "`x`", "`", "[HIGH CONFIDENCE]",
                 "According to limited available reports", "ß", "ss", "İ", "i", "\u212a", "k", ",", "ﬆ", "st"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(PHRASE_PIECES), max_size=14).map("".join),
       st.sampled_from(["Some sources suggest", "According to limited available reports", "ſome ſtreet", "Kß", "İs", "a  b"]))
def test_an_uncertainty_phrase_is_looked_for_only_where_it_may_be(text, phrase):
    folded = phrase.casefold()
    if folded in " ".join(brief_quality.claim_text(text).split()).casefold():
        assert brief_quality._may_hold(text.casefold(), folded.split())


@pytest.mark.parametrize("text", ["ſome `x` ſources\u00a0[1] SUGGEST rates rise", "[HIGH CONFIDENCE] Some [2] sources `c` suggest"])
def test_a_phrase_behind_blanked_code_markers_and_long_s_is_still_looked_for(text):
    folded = "some sources suggest"
    assert folded in " ".join(brief_quality.claim_text(text).split()).casefold()
    assert brief_quality._may_hold(text.casefold(), folded.split())


@pytest.mark.parametrize("text", [
    "## Prevailing View\n- \r\r0 [1]\n\n## References\n[1] \r\r0\n",
    "## Prevailing View\n- a\r[x](u) [1]\r\n- b [2]\n\n## References\n[1] x\r[2] y\n",
    "## Prevailing View\r- a [1]\r\r## References\r[1] x\r",
])
def test_a_lone_carriage_return_ends_no_line_for_the_brief_reader(text):
    brief = briefs.read_brief("b.md", text, OPTIONS)
    line_starts = [0, *(m.end() for m in re.finditer("\n", text))]
    for bullet in brief.bullets:
        for marker in bullet.markers:
            assert text[line_starts[marker.line - 1] + marker.col - 1 :].startswith(f"[{marker.number}]")
    assert all(entry.line <= len(line_starts) for entry in brief.entries)

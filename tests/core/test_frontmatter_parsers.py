"""The C parser (ruamel.yaml.clib) and the pure-Python one build the same front matter."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import PROJECT
from cpu_bounds import assert_cpu_under
from pytest_citations.core import frontmatter

pytest.importorskip("_ruamel_yaml", reason="ruamel.yaml.clib is not installed on this interpreter")

TEXTS = [
    'id: "héllo wörld"\nsnippet: ünïcode — dash\nlist: [é, "ü", 3]\nx: 😀😀 emoji\ny: 1\n',
    "a: &x 1\nb: *x\nc: !!python/object foo\nd: !custom 3\na: 2\n",
    "k: 0x1F\nf: .inf\nt: 2026-01-01T10:00:00Z\nn: ~\nb: yes\nm:\n  - {a: 1, b: [1,2]}\n",
    "key: |\n  literal é\n  block\nother: >\n  folded\n",
    "---\na: 1\n---\nb: 2\n",
    "bad: [1, 2\n",
    "tab:\n\t- x\n",
    "nul: \x00\n",
    "surrogate: \ud800\n",
]
FIXTURE_MEMORIES = sorted((PROJECT / "fixtures").glob("**/.serena/memories/**/*.md"))


def both(text: str):
    frontmatter._import_ruamel()
    built = []
    for pure in (False, True):
        builder = frontmatter._Builder(1, pure=pure)
        try:
            built.append((repr(builder.build(text)), builder.problems))
        except Exception as exc:  # compared below: the C parser may refuse more
            built.append(exc)
    return built


@pytest.mark.parametrize("text", TEXTS)
def test_same_nodes_and_problems_or_the_c_parser_refuses(text):
    fast, pure = both(text)
    assert fast == pure or isinstance(fast, Exception)


@pytest.mark.parametrize("path", FIXTURE_MEMORIES, ids=lambda p: p.name)
def test_every_fixture_memory_reads_the_same(path):
    text = path.read_text(encoding="utf-8")
    bounds = frontmatter.split(text)
    if bounds is None or bounds[1] == -1:
        pytest.skip("no closed front matter")
    fast, pure = both(text[bounds[0]:bounds[1]])
    assert fast == pure or isinstance(fast, Exception)


def test_a_refused_text_gets_the_pure_parsers_message():
    root, problems = frontmatter.parse_yaml("bad: {a: 1: 2}\n")
    assert root is None and problems[-1].message == "YAML syntax error: while parsing a flow mapping; expected ',' or '}', but got ':'"


INDEX_TEXTS = [
    "---\nid: a\nid: b\nlinks:\n  - supersedes: x\n---\n",
    "---\nlinks: [{supersedes: y}, {related: z, extra: 1}]\nid: 123\n---\n",
    "---\nbig: {deep: [1, {x: [2, 3]}], more: &anc [4]}\nid: &i named\nlinks:\n  - supersedes: *anc\n---\n",
    "---\nid: !!str 5\nlinks:\n  - supersedes: !custom q\n  - supersedes: ok\n---\n",
    "---\n- a list\n- as root\n---\n",
    "---\nid: [unclosed\n---\n",
]


@pytest.mark.parametrize(
    "text", INDEX_TEXTS + [p.read_text(encoding="utf-8") for p in FIXTURE_MEMORIES], ids=lambda t: repr(t[:24])
)
def test_the_index_reads_id_and_links_as_the_full_read_does(text):
    from pytest_citations.kinds.memories.memory import read_memory
    from pytest_citations.kinds.memories.memory_index import INDEXED_FIELDS

    full, indexed = read_memory("notes/stem.md", text), read_memory("notes/stem.md", text, INDEXED_FIELDS)
    assert (indexed.id, indexed.links) == (full.id, full.links)


# -- the C parser driven directly gives the events YAML.parse gives ----------------------------------

_EVENT_FIELDS = ("anchor", "tag", "implicit", "value", "style", "flow_style", "explicit", "version", "tags")


def _event_rows(events) -> list[tuple]:
    rows = []
    for event in events:
        marks = tuple((mark.line, mark.column, mark.index) for mark in (event.start_mark, event.end_mark))
        rows.append((type(event).__name__, marks, tuple(repr(getattr(event, name, None)) for name in _EVENT_FIELDS)))
    return rows


def _events_both_ways(text: str):
    frontmatter._import_ruamel()
    results = []
    for events in (lambda: frontmatter._yaml(False).parse(text), lambda: frontmatter._Builder(1, pure=False)._events(text)):
        try:
            results.append(_event_rows(events()))
        except Exception as exc:  # both must refuse the same text the same way
            results.append((type(exc).__name__, str(exc)))
    return results


def _hostile_memories() -> list:
    return sorted((PROJECT / "tests" / "hostile").glob("*.md"))


DIRECT_TEXTS = [
    *TEXTS,
    "%YAML 1.1\n---\nb: yes\nc: 0o17\n",
    "%TAG !e! tag:example.com,2000:\n---\na: !e!x 1\n",
    "? complex\n: key\n'quoted': \"esc\\x41\\u00e9\"\nflow: {a: [b, {c: d}]}\n",
    "a: 1\n...\n",
    "",
    "# only a comment\n",
    "bad: {a: 1: 2}\n",
    "\ufeffa: 1\n",
    "a:\r\n  - b\r\n",
]


@pytest.mark.parametrize("text", DIRECT_TEXTS, ids=lambda t: repr(t[:20]))
def test_the_c_parser_driven_directly_gives_the_same_events(text):
    via_yaml, direct = _events_both_ways(text)
    assert direct == via_yaml


@pytest.mark.parametrize("path", FIXTURE_MEMORIES + _hostile_memories(), ids=lambda p: p.name)
def test_the_c_parser_driven_directly_gives_the_same_events_on_files(path):
    text = path.read_bytes().decode("utf-8", "replace")
    bounds = frontmatter.split(text)
    yaml = text[bounds[0] : bounds[1]] if bounds and bounds[1] != -1 else text
    via_yaml, direct = _events_both_ways(yaml)
    assert direct == via_yaml


def test_the_c_parser_driven_directly_gives_the_same_events_on_real_memories(realdata):
    paths = sorted(realdata.glob("**/*.md"))
    assert paths
    for path in paths:
        text = path.read_text(encoding="utf-8", errors="replace")
        bounds = frontmatter.split(text)
        if bounds and bounds[1] != -1:
            via_yaml, direct = _events_both_ways(text[bounds[0] : bounds[1]])
            assert direct == via_yaml, path


# -- the closing line found by a regex is the one the line-by-line reading finds ----------------------


def reference_split(text: str):
    """The front matter's bounds read line by line, as the spec describes them."""
    first_end = text.find("\n")
    first = text if first_end == -1 else text[:first_end]
    if first.rstrip("\r").rstrip() != "---":
        return None
    start = len(text) if first_end == -1 else first_end + 1
    position = start
    while position < len(text):
        line_end = text.find("\n", position)
        line = text[position:] if line_end == -1 else text[position:line_end]
        if line.rstrip("\r").rstrip() in ("---", "..."):
            return start, position, 2
        if line_end == -1:
            break
        position = line_end + 1
    return start, -1, 2


SPLIT_TEXTS = [
    "---\na: 1\n---\nbody", "---\r\na: 1\r\n...\r\n", "---\na: 1\n--- \t\x0b\x0c\x1c\x85\xa0\u2028\u3000\nb",
    "---\na: 1\n---x\n----\n -- -\n...\n", "---", "---\n", "---\n---", "---\na\n---", " ---\na\n---\n",
    "---\na\n \n---  \n  x\n", "---\na\r---\n", "---\na\u2028---\n", "--- \na: |\n  ---\n---\n", "",
    "---\n" + "--- x\n" * 50 + "...",
]
_SPLIT_PIECES = st.sampled_from(["---", "...", "-", ".", "\n", "\r", "\r\n", " ", "\t", "\x0b", "\x1c", "\x85", "\xa0",
                                 "\u2028", "\u3000", "a", "x: 1", "#"])


@pytest.mark.parametrize("text", SPLIT_TEXTS, ids=repr)
def test_split_finds_the_closing_line_the_line_by_line_reading_finds(text):
    assert frontmatter.split(text) == reference_split(text)


@settings(max_examples=3000, deadline=None)
@given(st.lists(_SPLIT_PIECES, max_size=30).map(lambda pieces: "---\n" + "".join(pieces)))
def test_split_on_generated_texts(text):
    assert frontmatter.split(text) == reference_split(text)


def test_split_on_every_project_and_real_file(realdata):
    paths = [*FIXTURE_MEMORIES, *_hostile_memories(), *sorted(realdata.glob("**/*.md"))]
    for path in paths:
        text = path.read_bytes().decode("utf-8", "replace")
        assert frontmatter.split(text) == reference_split(text), path


@pytest.mark.parametrize(
    "text",
    ["---\n" + ("--- " + " " * 1000 + "x\n") * 200, "---\n" + "---" + " \n" * 100_000 + "x", "---\n" + "a\n" * 200_000],
    ids=["closing-like-lines", "whitespace-run", "never-closed"],
)
def test_split_on_hostile_texts_takes_linear_time(text):
    import time

    started = time.process_time()
    bounds = frontmatter.split(text)
    assert_cpu_under(time.process_time() - started, 1.0)
    assert bounds == reference_split(text)

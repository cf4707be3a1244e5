"""The C parser (ruamel.yaml.clib) and the pure-Python one build the same front matter."""

from __future__ import annotations

import pytest

from conftest import PROJECT
from pytest_citations import frontmatter

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
    from pytest_citations.kinds.memories import INDEXED_FIELDS, read_memory

    full, indexed = read_memory("notes/stem.md", text), read_memory("notes/stem.md", text, INDEXED_FIELDS)
    assert (indexed.id, indexed.links) == (full.id, full.links)

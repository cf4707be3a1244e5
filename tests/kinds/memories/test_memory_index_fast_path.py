"""The memories index reads id and links without a YAML parse for a front matter in the plain
subset (``frontmatter.read_plain``); these tests hold it equal to the YAML path.

Two checks for every text: the index share read line by line, when the reader takes the text,
equals the share from the YAML parse; and the plain reader's kept fields equal what the YAML
parser builds, with no problem at all (the subset holds nothing YAML would refuse or flag).
"""

from __future__ import annotations

import random
import sys
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import PROJECT, REALDATA
from cpu_bounds import assert_cpu_under
from pytest_citations.core import frontmatter
from pytest_citations.kinds.memories.memory_index import INDEXED_FIELDS, plain_index_entry, yaml_index_entry

pytest.importorskip("_ruamel_yaml", reason="ruamel.yaml.clib is not installed on this interpreter")


def _kept_shape(node: frontmatter.Node | None):
    """A kept YAML value in the plain reader's shape: a scalar, or (key, value) pairs."""
    if node is None or not isinstance(node.value, list):
        return None if node is None else node.value
    pairs = []
    for item in node.value:
        if not (isinstance(item.value, dict) and len(item.value) == 1):
            return ("not pairs", node.plain())
        ((key, value),) = item.value.items()
        pairs.append((key, value.value))
    return pairs


def reads_the_same(text: str, rel: str = "notes/stem.md") -> bool:
    """Whether the plain path took the text; when it did, it agreed with the YAML path."""
    fast = plain_index_entry(rel, text)
    if fast is not None:
        assert fast == yaml_index_entry(rel, text), text
    return fast is not None


def subset_is_certain(yaml_text: str) -> bool:
    """Whether ``read_plain`` took the YAML text; when it did, its fields are the parser's and the
    parser found nothing wrong, with only the kept fields built and with every field built."""
    fields = frontmatter.read_plain(yaml_text, INDEXED_FIELDS)
    if fields is None:
        return False
    root, problems = frontmatter.parse_yaml(yaml_text, 1, INDEXED_FIELDS)
    assert problems == [], yaml_text
    expected = {key: _kept_shape(node) for key, node in root.value.items()} if root is not None else {}
    assert fields == expected, yaml_text
    full, full_problems = frontmatter.parse_yaml(yaml_text)
    assert (full is None) == (root is None), yaml_text
    assert all(problem.kind == "duplicate-key" for problem in full_problems), yaml_text  # of a key not kept
    return True


def front_matter(yaml_text: str) -> str:
    return f"---\n{yaml_text}---\n\n# Body\n"


# -- files: fixtures, real data, the hostile corpus, the bench generator ---------------------------


def _markdown_files(folder):
    return sorted(path for path in folder.glob("**/*.md") if path.is_file())


def _decoded(path) -> str:
    """The text as the index reads it (BOM removed); undecodable bytes kept as lone surrogates."""
    text = path.read_bytes().decode("utf-8", errors="surrogateescape")
    return text.removeprefix("\ufeff")


@pytest.mark.parametrize("path", _markdown_files(PROJECT / "fixtures"), ids=lambda p: str(p.relative_to(PROJECT)))
def test_fixture_files(path):
    reads_the_same(_decoded(path), path.name)


@pytest.mark.parametrize("path", _markdown_files(PROJECT / "tests" / "hostile"), ids=lambda p: p.name)
def test_hostile_files(path):
    reads_the_same(_decoded(path), path.name)


def test_fixture_memories_take_the_plain_path():
    memories = _markdown_files(PROJECT / "fixtures" / "memory-repo" / ".serena" / "memories")
    taken = [path.name for path in memories if reads_the_same(_decoded(path), path.name)]
    assert len(taken) >= len(memories) // 2, taken


def test_realdata_files(realdata):
    files = _markdown_files(realdata)
    assert files, f"no Markdown file under {REALDATA}"
    taken = [path for path in files if reads_the_same(_decoded(path), path.name)]
    memories = [path for path in files if ".serena" in path.parts]
    assert set(memories) <= set(taken), "the real memories are in the plain subset"


@pytest.fixture(scope="module")
def bench_memories(tmp_path_factory) -> list:
    # bench/corpora.py puts the project on sys.path when imported: leave sys.path as it was, or
    # later in-process pytest runs import the package from the checkout, not as installed.
    saved = list(sys.path)
    sys.path.insert(0, str(PROJECT / "bench"))
    try:
        import corpora
    finally:
        sys.path[:] = saved
    root = tmp_path_factory.mktemp("bench-memories")
    corpora.gen_memories(root, 0.01, random.Random(7))
    return _markdown_files(root / ".serena" / "memories")


def test_the_bench_generators_memories_all_take_the_plain_path(bench_memories):
    assert len(bench_memories) >= 100
    for path in bench_memories:
        assert reads_the_same(path.read_text(encoding="utf-8"), path.name), path


# -- hand-made front matters at the edge of the subset ------------------------------------------------

IN_SUBSET = [
    "",
    "# only a comment\n",
    "id: a\n",
    "id: a b  c #d\n",
    "id: a#b\n",
    "id: a:b\n",
    "id: http://x.org/a?b=c&d\n",
    "id: a ? b\nsubject: a - b | c > d\n",
    "id: trailing   \n",
    "id: café\n",
    "id: Ünïcødé-😀\n",
    "id: ×\n",
    "id: _x\n",
    "id: /x\n",
    "id: \\x\n",
    "id: x\\\n",
    "id: don't\n",
    'id: a "b" c\n',
    "id: truex\nlinks:\n  - supersedes: nullable\n",
    "id:\n",
    "id:   # a comment\n",
    "id:\nlinks:\n",
    "links: x\n",
    "links: # c\n  - supersedes: b\n",
    "links:\n  - supersedes:\n  - supersedes: b\n",
    "links:\n  - supersedes: a #c\n  - related: b\n  - supersedes: c d\n",
    "links:\n- supersedes: a\n- supersedes: b\nid: x\n",
    "links:\n\n  # c\n\n  - supersedes: a\n",
    "id: a\n  # indented comment\nlinks:\n# col0 comment\n- supersedes: b\n   # odd comment\n- related: c\ntags: [x, y]\n",
    "citations:\n  - path: a\n    # c\n    line: 3\n  - path: b\nid: x\n",
    'citations:\n  - path: src/a.py\n    line: 12\n    snippet: "def f(x): return {\'a\': [1]}  # \\"q\\""\n'
    "    verified: 2026-01-24T10:30:00Z\nid: m\n",
    "s: 'it''s'\nid: q\n",
    'k: "\\u0000\\b\\f\\/\\t\\n\\r\\"\\\\"\nid: x\n',
    'k: "\\uFFFE\\uffff\\uFEFF\\u2028\\u0085\\uD7FF\\uE000"\nid: x\n',
    "k: \"\"\nk2: ''\nk3: 'a\\'\nid: x\n",
    's: "a\\u00e9\\/\\"b\\\\" # c\nid: x\n',
    "s: \"a --- b\"\nt: a --- b\nid: x\n",
    "k: [a, b, c]\nk2: []\nk3: [ a1.b-c ,d ]\nid: x\n",
    "m:\n  a: 1\n  b: 2\nid: q\n",
    "k:\n  - a\n  - b: 1\n    c: 2\n  - \"q\"\n  - [a]\n  - 'x'\nid: z\n",
    "dup: 1\ndup: 2\nid: x\n",
    "citations:\n  - path: a\n    path: b\nid: x\n",
    "confidence: 1.0\nlast_verified: 2026-01-12T09:30:00Z\nnull: 1\ntrue: 2\nid: x\n",
    "id: " + "x" * 5000 + "\n",
    "s: " + "y " * 3000 + "y\nid: x\n",
    's: "' + "z" * 5000 + '"\nid: x\n',
    "k:\n  - " + "w" * 2000 + "\nid: x\n",
    "k" * 64 + ": 1\nid: x\n",
]

OUTSIDE_SUBSET = [
    "id: 'q'\n",
    'id: "q"\n',
    "id: [a]\n",
    "id: {a: b}\n",
    "id: &a x\n",
    "id: !!str x\n",
    "id: !custom x\n",
    "a: &x 1\nid: *x\n",
    "id: |\n  x\n",
    "id: >\n  x\n",
    "id: a\n  b\n",
    'id: "a\n  b"\n',
    "id: 123\n",
    "id: 1.5\n",
    "id: 0x1F\n",
    "id: -1\n",
    "id: .inf\n",
    "id: true\n",
    "id: True\n",
    "id: yes\n",
    "id: No\n",
    "id: on\n",
    "id: y\n",
    "id: null\n",
    "id: Null\n",
    "id: ~\n",
    "id: ~x\n",
    "id: 2024-01-01\n",
    "id: 2024-01-01T10:00:00Z\n",
    "id: =\n",
    "id: <<\n",
    "id: -a\n",
    "id: .x\n",
    "id: a: b\n",
    "id: a:\n",
    "id: a,b\n",
    "id: a]\n",
    "id: x\t\n",
    "id: a\tb\n",
    "id:\tx\n",
    "id: x\r\n",
    "id: x\nid: y\n",
    "links: []\n",
    "links: [{supersedes: y}]\n",
    "links:\n  - supersedes: a\n    extra: b\n",
    "links:\n  - supersedes: a\n  - supersedes: b\n    related: c\n",
    "links:\n  - true: a\n",
    "links:\n  - a\n",
    "links:\n  - supersedes: 'a'\n",
    "links:\n  - supersedes: 12\n",
    "links:\n  supersedes: a\n",
    "links:\n  - supersedes: a\n links2: b\n",
    "links:\n  -  supersedes: a\n",
    "links:\n  - supersedes: a\n   - supersedes: b\n",
    "links:\n  - supersedes: a\nlinks:\n  - supersedes: b\n",
    "id:\n  - a\n",
    "id:\n# c\n more: 1\n",
    "k:\n  -  a\n",
    "k:\n  - a\n - b\n",
    "k:\n- a\n- b\n  c\n",
    "k:\n  a: 1\n   b: 2\n",
    "k:\n  -\n    a: 1\n",
    "k:\n  - - a\n",
    "k:\n  - a: 1\n      b: 2\n",
    "k: a\n b\n",
    'k: "a"#x\n',
    'k: "a" "b"\n',
    'k: "\\x41"\n',
    'k: "\\q"\n',
    'k: "\\ud83d\\ude00"\n',
    "k: 'a''\n",
    "k: [a, [b]]\n",
    "k: [a, b,]\n",
    "k: [a: b]\n",
    "k: --- x\nid: y\n",
    "k:\n--- x\n",
    "k:\n  - --- x\n",
    "? k\n: v\n",
    "%YAML 1.1\n---\nid: yes\n",
    "- a\n- as root\n",
    "just a scalar\n",
    "  id: indented root\n",
    "id : spaced\n",
    "'id': quoted key\n",
    "\"id\": quoted key\n",
    "k" * 65 + ": 1\nid: x\n",
    "id:x\n",
    "id: x\ufeff\n",
    "id: x\u2028y\n",
    "id: x\x85y\n",
    "id: x\xa0y\n",
    "id: x\x00y\n",
    "id: x\x7fy\n",
    "id: x\ud800y\n",
    "k: a\x0cb\nid: x\n",
]


@pytest.mark.parametrize("yaml_text", IN_SUBSET, ids=lambda t: repr(t[:40]))
def test_in_the_subset(yaml_text):
    assert subset_is_certain(yaml_text)
    assert reads_the_same(front_matter(yaml_text))


@pytest.mark.parametrize("yaml_text", OUTSIDE_SUBSET, ids=lambda t: repr(t[:40]))
def test_outside_the_subset(yaml_text):
    assert not subset_is_certain(yaml_text)
    assert not reads_the_same(front_matter(yaml_text))


@pytest.mark.parametrize(
    "text",
    [
        "no front matter\n",
        "---\nid: never closed\n",
        "---\n---\n",
        "---\nid: a\n...\nbody\n",
        "---  \nid: a\n---\n",
        "---\nid: a\n---   \n",
        "---\nid: a\n--- body\n---\n",
        "---\r\nid: a\r\n---\r\n",
        "---\nid: a\r\n---\n",
        "\ufeff---\nid: a\n---\n",
        "---\nid: a\n\x0b---\n",
        "---\nid: a",
        "",
    ],
    ids=repr,
)
def test_the_front_matters_bounds_are_the_parsers(text):
    reads_the_same(text)


# -- generated front matters ----------------------------------------------------------------------

KEYS = ["id", "links", "citations", "tags", "subject", "k", "true", "null", "idx", "links2"]
VALUES = [
    "", " ", " x", " a b", " a#b", " a #c", " #c", " mem-001", " 123", " true", " yes", " null", " ~", " 2024-01-01",
    " 'q'", ' "q"', ' "a\\"b"', " [a, b]", " []", " {a: b}", " &a x", " *a", " !!str x", " a: b", " a:b", " -x",
    " |", " >", " x ", " é", " a,b", " 'it''s'", ' "\\u00e9"', ' "\\x41"', " ---", " ...", " a]", "\tx", " x\t",
    " " + "v" * 1200,
]
INDENTS = ["", " ", "  ", "   ", "    ", "      "]


def _generated_value(rng: random.Random) -> str:
    return rng.choice(VALUES) if rng.random() < 0.2 else rng.choice(["", " x", " mem-1", " a b", " a b #c", " \"q\""])


def _generated_block(rng: random.Random, key: str) -> list[str]:
    """The lines below an empty value: a sequence of one-line mappings or of scalars, or a mapping
    (under ``links``, mostly a sequence of one-line mappings)."""
    indent = rng.choice(["", "  ", "    "])
    shape = 0 if key == "links" and rng.random() < 0.8 else rng.randrange(3)
    if shape == 2 and indent:
        return [f"{indent}{rng.choice(KEYS)}:{_generated_value(rng)}" for _ in range(rng.randint(1, 3))]
    lines = []
    for _ in range(rng.randint(1, 3)):
        if shape == 0:
            lines.append(f"{indent}- {rng.choice(['supersedes', 'related', 'path'])}:{_generated_value(rng)}")
            lines += [f"{indent}  {rng.choice(KEYS)}:{_generated_value(rng)}" for _ in range(rng.random() < 0.2)]
        else:
            lines.append(f"{indent}-{_generated_value(rng)}")
    return lines


def _generated_noise(rng: random.Random) -> str:
    indent = rng.choice(INDENTS)
    return rng.choice(
        [f"{indent}# comment{rng.choice(VALUES)}", indent, f"{indent}{rng.choice(KEYS)}:{rng.choice(VALUES)}",
         f"{indent}- {rng.choice(KEYS)}:{rng.choice(VALUES)}", f"{indent}-{rng.choice(VALUES)}",
         "- a", "? k", ": v", "%YAML 1.1", "id: a\r", "id: x\ufeff", "k: |", "  text", "--- x"]
    )


def _generated_front_matter(rng: random.Random) -> str:
    """Entries of the subset's shapes, then, half the time, a line or two of noise put anywhere."""
    lines = []
    keys = rng.sample(KEYS, rng.randint(1, 6))
    if "links" not in keys and rng.random() < 0.6:
        keys.insert(rng.randint(0, len(keys)), "links")
    if rng.random() < 0.1:
        keys.append(rng.choice(keys))
    for key in keys:
        if rng.random() < (0.8 if key == "links" else 0.4):
            lines.append(f"{key}:" + rng.choice(["", " # c"]))
            lines += _generated_block(rng, key)
        else:
            lines.append(f"{key}:{_generated_value(rng)}")
    for _ in range(rng.choice([0, 0, 1, 2])):
        lines.insert(rng.randint(0, len(lines)), _generated_noise(rng))
    return "".join(line + "\n" for line in lines)


def test_generated_front_matters():
    rng = random.Random(20261122)
    taken = with_links = 0
    for _ in range(3000):
        yaml_text = _generated_front_matter(rng)
        if subset_is_certain(yaml_text):
            taken += 1
            with_links += isinstance(frontmatter.read_plain(yaml_text, INDEXED_FIELDS).get("links"), list)
        reads_the_same(front_matter(yaml_text))
    assert taken >= 400 and with_links >= 100  # enough are in the subset for the comparison to mean something


_REGULAR_LINES = [
    "id: mem-1", "id: mem 2 # c", "id:", "subject: \"A subject\"", "tags: [a, b]", "confidence: 0.8",
    "links:", "  - supersedes: mem-0", "  - related: mem-9", "- supersedes: m", "  - supersedes:", "citations:",
    "  - path: a.py", "    line: 3", "    snippet: \"x = {'a': 1}\"", "    verified: 2026-01-01T00:00:00Z", "",
    "  # comment", "# comment", "  - true: x", "  - supersedes: 'q'", "    extra: 1", "   - supersedes: odd",
]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_REGULAR_LINES), max_size=12))
def test_front_matters_of_regular_lines(lines):
    yaml_text = "".join(line + "\n" for line in lines)
    subset_is_certain(yaml_text)
    reads_the_same(front_matter(yaml_text))


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=40))
def test_any_id_value(value):
    yaml_text = f"id: {value}\nlinks:\n  - supersedes: {value}\n"
    subset_is_certain(yaml_text)
    reads_the_same(front_matter(yaml_text))


# -- hostile shapes are refused in linear time ------------------------------------------------------


@pytest.mark.parametrize(
    "yaml_text",
    [
        "k:\n" + "  - a: 1\n    # c\n" * 20000 + "  - b: [\n",
        "k:\n" + "  # c\n" * 40000 + "  x\n",
        "k: " + "a " * 50000 + ": b\n",
        'k: "' + "\\\\" * 50000 + "\n",
        "k: [" + "a, " * 30000 + "\n",
    ],
    ids=["items", "comments", "spaces", "escapes", "flow"],
)
def test_a_long_text_outside_the_subset_is_refused_quickly(yaml_text):
    started = time.process_time()
    assert frontmatter.read_plain(yaml_text, INDEXED_FIELDS) is None
    assert_cpu_under(time.process_time() - started, 1.0)


# -- the index uses it ----------------------------------------------------------------------------------


def test_a_yaml_error_gives_the_stem_and_no_links_either_way():
    text = front_matter("id: a: b\nlinks:\n  - supersedes: x\n")
    assert plain_index_entry("notes/stem.md", text) is None
    assert yaml_index_entry("notes/stem.md", text) == ["stem", [], False]


def test_the_index_parses_no_yaml_for_a_plain_memory_and_parses_the_others(tmp_path, monkeypatch):
    from types import SimpleNamespace

    from pytest_citations.kinds.memories import memory_index
    from pytest_citations.kinds.memories.memory import Memory

    (tmp_path / "plain.md").write_text(front_matter("id: p\nlinks:\n  - supersedes: old\n"), encoding="utf-8")
    (tmp_path / "quoted.md").write_text(front_matter("id: 'q'\n"), encoding="utf-8")
    engine = SimpleNamespace(config=SimpleNamespace(root=tmp_path, max_file_size=10_000))
    parsed = []
    monkeypatch.setattr(memory_index, "read_memory", lambda rel, *args: parsed.append(rel) or Memory(rel, "q", None, [], [], 0.5))
    assert memory_index._index_entry(engine, "plain.md") == ["p", ["old"], True]
    assert memory_index._index_entry(engine, "quoted.md") == ["q", [], False]  # (what the stand-in read_memory says)
    assert parsed == ["quoted.md"]

"""find_inline's quick test: a text it rules out holds no inline tuple by the full scan either.

The full scan (Markdown prose blanked, every bracket parsed) is the reference; the quick test only
decides whether to run it. Checked on every fixture, the hostile corpus, the real files, tricky
hand-made texts and generated ones built from the characters that matter to both."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import PROJECT, TESTS
from cpu_bounds import assert_cpu_under
from pytest_citations.kinds.code_tuples import inline


def reference(text: str) -> list:
    return list(inline._scan_inline(text))


def assert_same(text: str) -> None:
    assert list(inline.find_inline(text)) == reference(text)


TRICKY = [
    "See [src/a.py, L3].",
    "`x\\`[a.py]",  # a code span ending in a backslash: blanked, the bracket is no longer escaped
    "[a `[` b.py] and [x](y) [c.py][ref]",
    "\\[a.py] [a.py]: https://example.com",
    "[ a.py] [a .py] [a\u00a0.py] [a\u2028b.py] [a\x1cb.py]",
    "[src\\a.py] [C:/x.py] [/abs/x.py] [./x] [../x.py] [x/] [.env]",
    "[e.g.] [i.e.] [1.5] [v1.2, L3] [a.b@0123456789abcdef]",
    "---\ntitle: [a.py]\n---\n[b.py]\n",
    "```\n[a.py]\n```\n[b/c]\n<!-- [d.py] -->",
    "[\"a.py\"] ['a.py'] [(a.py)] [<a.py>] [a|b.py] [a*b.py] [a?b.py] [{a}.py]",
    "[@a.py] [,a.py] [a@b.py, L1] [a.py,L1] [a.py , L1-2]",
]


@pytest.mark.parametrize("text", TRICKY)
def test_tricky_texts(text):
    assert_same(text)


def _files(folder: Path, patterns: tuple[str, ...]) -> list[Path]:
    return sorted(path for pattern in patterns for path in folder.glob(pattern) if path.is_file())


PATTERNS = ("**/*.md", "**/*.markdown", "**/*.json", "**/*.jsonl")


@pytest.mark.parametrize("path", _files(PROJECT / "fixtures", PATTERNS) + _files(TESTS / "hostile", PATTERNS),
                         ids=lambda p: str(p.relative_to(PROJECT)))
def test_project_files(path):
    assert_same(path.read_bytes().decode("utf-8", "replace"))


def test_real_files(realdata):
    paths = _files(realdata, PATTERNS)
    assert paths
    for path in paths:
        text = path.read_bytes()[: 1 << 20].decode("utf-8", "replace")
        assert list(inline.find_inline(text)) == reference(text), path


_PIECES = st.sampled_from(
    ["[", "]", "(", ")", ".", "/", "\\", "`", "``", "@", ",", " ", "\t", "\n", "\r\n", "---", "```", "~~~", "<!--",
     "-->", ":", "L3", "-", "a", "py", "src", "0123456789abcdef", "\u00a0", "\u2028", "\x1c", "\"", "'", "*", "#", "^"]
)


@settings(max_examples=3000, deadline=None)
@given(st.lists(_PIECES, max_size=40).map("".join))
def test_generated_texts(text):
    assert_same(text)


@pytest.mark.parametrize(
    "text",
    ["[" + "a" * 200_000, "[a" * 100_000, ("[" + "a" * 500 + " ") * 400, "[" * 200_000, ("[" + "-" * 999 + "\n") * 200],
    ids=["one-long-id", "many-brackets", "long-ids", "only-brackets", "long-lines"],
)
def test_hostile_texts_take_linear_time(text):
    """Texts built to make the quick test backtrack: it stays linear (each character is looked at
    a bounded number of times), and agrees with the full scan."""
    import time

    started = time.process_time()
    found = inline._MAY_HOLD_INLINE.search(text)
    assert_cpu_under(time.process_time() - started, 1.0)
    assert found is None and not reference(text)

"""Suppression comments (docs/configuration.md, "Suppressing a finding") are read in time linear in
the text, whatever it holds: an artifact is the checkout's, and a text of unclosed comment heads
or long runs of spaces made the directive patterns backtrack (docs/security.md, rule 4)."""

from __future__ import annotations

import re
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bounded_run import check_bounded, repo_with, run_bounded
from cpu_bounds import assert_cpu_under
from pytest_citations.core.suppressions import markdown_directives

# What a directive is: the patterns that read them before, but for one thing, that an HTML comment
# ends at its first "-->" (they let a reason run on to a later one when the "--" before the reason
# began that "-->" or its "->": `<!-- citations: disable-file M --> text -->` had the reason "> text").
REFERENCE_MARKDOWN = re.compile(
    r"<!--\s*citations:\s*(?P<action>disable-next-line|disable-file)\s+"
    r"(?P<codes>[A-Za-z0-9,\s]+?)\s*(?:--(?!>|->)\s*(?P<reason>(?:(?!-->).)*?))?\s*-->"
)
REFERENCE_YAML = re.compile(
    r"#[ \t]*citations:[ \t]*(?P<action>disable-next-line|disable-file)[ \t]+"
    r"(?P<codes>[A-Za-z0-9, \t]+?)[ \t]*(?:--[ \t]*(?P<reason>[^\r\n]*?))?[ \t]*\r?$",
    re.M,
)


def reference(text: str, front_matter: tuple[int, int] | None = None) -> list[tuple]:
    """(line, col, action, codes, reason) of each directive, as the reference patterns read them."""
    found = []
    spans = [(REFERENCE_MARKDOWN, 0, len(text))] + ([(REFERENCE_YAML, *front_matter)] if front_matter else [])
    for pattern, start, end in spans:
        for match in pattern.finditer(text, start, end):
            codes = tuple(c for c in re.split(r"[\s,]+", match.group("codes").strip().upper()) if re.match(r"^[A-Z][0-9]{0,3}$", c))
            if codes:
                line = text.count("\n", 0, match.start()) + 1
                col = match.start() - (text.rfind("\n", 0, match.start()) + 1) + 1
                found.append((line, col, match.group("action"), codes, (match.group("reason") or "").strip()))
    return sorted(found, key=lambda d: (d[0], d[1]))


def read(text: str, front_matter: tuple[int, int] | None = None) -> list[tuple]:
    return [(d.line, d.col, d.action, d.codes, d.reason) for d in markdown_directives(text, front_matter)]


_PIECES = st.sampled_from([
    "<!--", "-->", "--", "-", ">", "<", " ", "  ", "\t", "\n", "\r", "\r\n", "#", "citations:", "citations: ",
    "disable-file", "disable-next-line", " disable-file ", "M207", "M", "B3", "x", "foo", ",", "a b", "reason",
    "<!-- citations: disable-file ", "<!-- citations: disable-next-line ", "# citations: disable-file ",
    "# citations: disable-next-line ", " -- ", " --> ", "--->",
])


@settings(max_examples=1500, deadline=None)
@given(pieces=st.lists(_PIECES, max_size=24), cut=st.integers(0, 400))
def test_directives_are_read_as_the_patterns_say(pieces, cut):
    """Read by scanning once, directives are what the patterns above say, in Markdown comments
    and in the front matter's YAML comments (here the text's first ``cut`` characters)."""
    text = "".join(pieces)
    front_matter = (0, min(cut, len(text)))
    assert read(text) == reference(text)
    assert read(text, front_matter) == reference(text, front_matter)


@pytest.mark.parametrize(("text", "expected"), [
    ("<!-- citations: disable-file M207 --> x -->", [(1, 1, "disable-file", ("M207",), "")]),
    ("<!-- citations: disable-file M207 -- why --> x -->", [(1, 1, "disable-file", ("M207",), "why")]),
    ("<!-- citations: disable-next-line B3,\n  M2 -- a reason\n -->", [(1, 1, "disable-next-line", ("B3", "M2"), "a reason")]),
    ("<!-- citations: disable-file M -- a\nb -->", []),  # a reason is one line
    ("<!-- <!-- citations: disable-file M -->", [(1, 6, "disable-file", ("M",), "")]),
])
def test_a_directive_ends_at_the_first_end_of_its_comment(text, expected):
    assert read(text) == expected


HOSTILE = {
    # each unclosed head was read to the end of its line (was 174 s for 8000 of them)
    "unclosed comment heads": ("<!-- citations: disable-file M -- " * 8000, None),
    "a head before a long run of spaces": ("<!-- citations: disable-file M" + " " * 100_000 + "x", None),  # was cubic
    "a reason before a long run of spaces": ("<!-- citations: disable-file M --" + " " * 100_000 + "x", None),
    "unclosed heads of a YAML comment on one line": ("# citations: disable-file M -- " * 8000 + "\rX", "front"),
    "a YAML head before a long run of spaces": ("# citations: disable-file M" + " " * 100_000 + "#", "front"),
}


@pytest.mark.parametrize("name", list(HOSTILE))
def test_hostile_comments_are_read_in_linear_time(tmp_path, name):
    text, where = HOSTILE[name]
    source = tmp_path / "text.txt"
    source.write_text(text)
    front = "(0, len(text))" if where else "None"
    script = ("import sys; from pytest_citations.core.suppressions import markdown_directives; "
              f"text = open(sys.argv[1], newline=\"\").read(); print(len(markdown_directives(text, {front})))")
    outcome = run_bounded(tmp_path, sys.executable, "-c", script, str(source))
    assert outcome.status is not None, "still running after 30 s"
    assert_cpu_under(outcome.seconds, 1.0)
    assert outcome.output.strip() == "0"


def test_a_memory_of_unclosed_comment_heads_is_checked_in_bounded_time(tmp_path):
    """The audit's case: a 272 KB memory body of unclosed heads (was 174 s)."""
    body = "<!-- citations: disable-file M -- " * 8000
    repo = repo_with(tmp_path / "repo", {".serena/memories/m.md": f"---\nid: m\n---\n{body}\n",
                                         ".serena/memories/plain.md": "---\nid: plain\n---\nBody.\n"})
    outcome = check_bounded(repo, "--format", "json")
    outcome.assert_bounded()
    by_file: dict[str, list[str]] = {}
    for diagnostic in outcome.diagnostics():
        by_file.setdefault(diagnostic["path"].rsplit("/", 1)[-1], []).append(diagnostic["code"])
    assert by_file.get("m.md", []) == by_file.get("plain.md", [])  # no directive read: nothing suppressed, no C007

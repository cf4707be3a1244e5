"""The hostile-input corpus (docs/security.md): one file per case in ``tests/hostile/``, or a tree
the test builds when it cannot be committed (FIFOs, huge files, symlinks, pathological Markdown).

Every case asserts the exact outcome: each bad file ends in a clear diagnostic (code, line,
column, message) and the run goes on, or the file is read correctly. Lines split on ``\\n`` only:
a lone ``\\r``, U+2028, U+0085 and form feed are characters inside a line.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import time
from pathlib import Path

import pytest

from conftest import TESTS
from cpu_bounds import assert_cpu_under
from pytest_citations.engine import Engine
from pytest_citations.frontends.reporters import github, text

HOSTILE = TESTS / "hostile"
JSONL = "runs/r/citations/citations.jsonl"  # claimed by url-citations
MEMORY = ".serena/memories/m.md"  # claimed by memories
BRIEF_PATH = "briefs/b.md"  # a brief when it is one (claimed by its headings)
REGISTRY = "source_registry.yaml"  # read for the briefs that name it
FAST = 5.0  # CPU seconds a pathological case may take, as written (a bound of cpu_bounds)


def place(name: str) -> str:
    """Where a corpus file goes in the scratch repository, by its kind."""
    if name.startswith("brief-"):
        return REGISTRY if name.endswith(".yaml") else BRIEF_PATH
    return JSONL if name.endswith(".jsonl") else MEMORY


def scratch(root: Path, files: dict[str, bytes]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text("[tool.citations]\nmax-file-size = 12000000\n")
    (root / "a.txt").write_bytes(b"one\ntwo\n")
    for rel, data in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return root


def rows(report) -> list[tuple]:
    return [(d.path, d.line, d.col, d.code, d.message) for d in report.diagnostics]


def check(root: Path) -> list[tuple]:
    return rows(Engine.load(root).check([root]))


def run_case(root: Path, name: str) -> list[tuple]:
    scratch(root, {place(name): (HOSTILE / name).read_bytes()})
    return [row[1:] for row in check(root)]


def timed(root: Path) -> tuple[list[tuple], float]:
    start = time.process_time()
    found = check(root)
    return found, time.process_time() - start


CORPUS = [
    ('brief-claim-syntax.md', [(1, 1, 'B317', "claim section 'Minority View' is missing"), (1, 1, 'B317', "claim section 'What to Watch' is missing"), (2, 90, 'B307', 'no stored citation objects: no sidecar briefs/b.citations.json and no synthesis for this brief in an evidence store'), (4, 69, 'B306', '[2026] is read as the link reference definition [2026]: on line 20, not as a citation marker'), (7, 32, 'B306', '[2026] is read as part of an autolink (a URL in angle brackets), not as a citation marker')]),
    ('brief-block-bullets.md', [(1, 1, 'B317', "claim section 'Minority View' is missing"), (1, 1, 'B317', "claim section 'What to Watch' is missing"), (2, 1, 'B301', 'claim bullet has no citation marker [N]'), (3, 49, 'B307', 'no stored citation objects: no sidecar briefs/b.citations.json and no synthesis for this brief in an evidence store'), (4, 1, 'B301', 'claim bullet has no citation marker [N]'), (4, 15, 'B306', '[7] is read as part of an HTML tag, not as a citation marker'), (5, 1, 'B301', 'claim bullet has no citation marker [N]'), (7, 1, 'B301', 'claim bullet has no citation marker [N]'), (11, 1, 'B301', 'claim bullet has no citation marker [N]'), (16, 2, 'B301', 'claim bullet has no citation marker [N]'), (18, 1, 'B301', 'claim bullet has no citation marker [N]'), (18, 22, 'B306', '[7] is read as part of an autolink (a URL in angle brackets), not as a citation marker')]),
    ('brief-deep-headings.md', [(1, 1, 'B317', "claim section 'Minority View' is missing"), (4, 23, 'B307', 'no stored citation objects: no sidecar briefs/b.citations.json and no synthesis for this brief in an evidence store'), (6, 1, 'B301', 'claim bullet has no citation marker [N]'), (33, 1, 'B303', 'References entry [2] is never cited')]),
    ('brief-formatted-headings.md', [(4, 29, 'B307', 'no stored citation objects: no sidecar briefs/b.citations.json and no synthesis for this brief in an evidence store'), (5, 1, 'B301', 'claim bullet has no citation marker [N]'), (10, 1, 'B301', 'claim bullet has no citation marker [N]'), (11, 1, 'B301', 'claim bullet has no citation marker [N]'), (24, 1, 'B305', 'References entry [2] does not follow `[N] Publisher. "Title". Published <date>. <URL>`: \'30 Feb 2026\' is not a date of the calendar'), (25, 1, 'B303', 'References entry [3] is never cited'), (25, 1, 'B305', 'References entry [3] does not follow `[N] Publisher. "Title". Published <date>. <URL>`: the title\'s opening quote is never closed'), (26, 1, 'B303', 'References entry [4] is never cited'), (26, 1, 'B305', 'References entry [4] does not follow `[N] Publisher. "Title". Published <date>. <URL>`: the publisher \'Reuters\' does not end with a period'), (27, 1, 'B303', 'References entry [5] is never cited'), (27, 1, 'B305', 'References entry [5] does not follow `[N] Publisher. "Title". Published <date>. <URL>`: text after the URL: \'(archived)\' (only [Paywall] and [Monitor-only source] may follow it)')]),
    ('brief-registry-article-hosts.yaml', []),  # alone, nothing reads it (tests/kinds/briefs/test_brief_verdicts.py reads it with a brief)
    ('jsonl-5000-digits.jsonl', [(1, 1, 'U101', 'invalid JSON: a number with 5000 digits is longer than 4300')]),
    ('jsonl-bad-line-7.jsonl', [(7, 35, 'U101', 'invalid JSON: expecting property name enclosed in double quotes')]),
    ('jsonl-bom.jsonl', []),
    ('jsonl-crlf.jsonl', []),
    ('jsonl-duplicate-key.jsonl', [(1, 318, 'U101', "invalid JSON: duplicate key 'notes'")]),
    ('jsonl-empty.jsonl', []),
    ('jsonl-form-feed.jsonl', [(1, 314, 'U101', 'invalid JSON: invalid control character at column 314')]),
    ('jsonl-invalid-utf8.jsonl', [(2, 316, 'C002', 'not valid UTF-8: byte 0xff at offset 632')]),
    ('jsonl-lone-cr.jsonl', [(1, 318, 'U101', 'invalid JSON: extra data')]),
    ('jsonl-lone-surrogate.jsonl', [(1, 1, 'U101', "invalid JSON: a lone UTF-16 surrogate escape in '\\\\ud800'")]),
    ('jsonl-nan-infinity.jsonl', [(1, 1, 'U101', 'invalid JSON: NaN is not valid JSON'), (2, 1, 'U101', 'invalid JSON: -Infinity is not valid JSON')]),
    ('jsonl-nul.jsonl', [(2, 1, 'U101', 'invalid JSON: expecting value')]),
    ('jsonl-overflow-float.jsonl', [(1, 1, 'U101', 'invalid JSON: 1e400 is out of range for a JSON number')]),
    ('jsonl-u2028-u0085.jsonl', []),
    ('jsonl-utf16.jsonl', [(1, 1, 'C002', 'not valid UTF-8: byte 0xff at offset 0')]),
    ('md-bom.md', []),
    ('md-crlf.md', []),
    ('md-empty.md', []),
    ('md-invalid-utf8.md', [(14, 4, 'C002', 'not valid UTF-8: byte 0xc3 at offset 137')]),
    ('md-lone-cr.md', []),
    ('md-nul-in-body.md', []),
    ('md-nul-in-front-matter.md', [(4, 5, 'M201', 'YAML does not allow the character U+0000 (special characters are not allowed)')]),
    ('md-u2028-u0085-ff.md', []),
    ('md-utf16.md', [(1, 1, 'C002', 'not valid UTF-8: byte 0xff at offset 0')]),
    ('yaml-billion-laughs.md', [(4, 4, 'M202', 'YAML anchor &a is not allowed in front matter'), (5, 4, 'M202', 'YAML anchor &b is not allowed in front matter'), (5, 8, 'M202', 'YAML alias *a is not allowed in front matter'), (5, 12, 'M202', 'YAML alias *a is not allowed in front matter'), (5, 16, 'M202', 'YAML alias *a is not allowed in front matter'), (5, 20, 'M202', 'YAML alias *a is not allowed in front matter'), (5, 24, 'M202', 'YAML alias *a is not allowed in front matter'), (5, 28, 'M202', 'YAML alias *a is not allowed in front matter'), (5, 32, 'M202', 'YAML alias *a is not allowed in front matter'), (5, 36, 'M202', 'YAML alias *a is not allowed in front matter'), (5, 40, 'M202', 'YAML alias *a is not allowed in front matter'), (6, 4, 'M202', 'YAML anchor &c is not allowed in front matter'), (6, 8, 'M202', 'YAML alias *b is not allowed in front matter'), (6, 12, 'M202', 'YAML alias *b is not allowed in front matter'), (6, 16, 'M202', 'YAML alias *b is not allowed in front matter'), (6, 20, 'M202', 'YAML alias *b is not allowed in front matter'), (6, 24, 'M202', 'YAML alias *b is not allowed in front matter'), (6, 28, 'M202', 'YAML alias *b is not allowed in front matter'), (6, 32, 'M202', 'YAML alias *b is not allowed in front matter'), (6, 36, 'M202', 'YAML alias *b is not allowed in front matter'), (6, 40, 'M202', 'YAML alias *b is not allowed in front matter')]),
    ('yaml-duplicate-key.md', [(4, 1, 'M204', "duplicate key 'subject' (first on line 3)")]),
    ('yaml-line-no.md', [(6, 11, 'M205', 'citations[0].line must be an integer, not a string')]),
    ('yaml-python-object.md', [(4, 4, 'M203', 'YAML tag !!python/object/apply:os.system is not allowed in front matter')]),
    ('yaml-recursive-alias.md', [(4, 4, 'M202', 'YAML anchor &r is not allowed in front matter'), (4, 8, 'M202', 'YAML alias *r is not allowed in front matter')]),
    ('yaml-tabs.md', [(5, 1, 'M201', "YAML syntax error: while scanning for the next token; found character '\\t' that cannot start any token")]),
]


@pytest.mark.parametrize(("name", "expected"), CORPUS, ids=[name for name, _ in CORPUS])
def test_corpus_file(tmp_path, name, expected):
    assert run_case(tmp_path, name) == expected


def test_every_corpus_file_has_a_case():
    assert sorted(p.name for p in HOSTILE.iterdir()) == sorted(name for name, _ in CORPUS)


def test_an_unsafe_yaml_tag_is_never_executed(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    calls = []
    monkeypatch.setattr(os, "system", lambda *args: calls.append(args))
    run_case(tmp_path, "yaml-python-object.md")
    assert calls == [] and not (tmp_path / "PWNED").exists()


# -- generated: huge, oversized ------------------------------------------------------------------


def test_a_10_mb_single_line(tmp_path):
    line = b'{"url": "https://example.com/a", "notes": "' + b"x" * 10_000_000 + b'"}\n'
    scratch(tmp_path, {JSONL: line, MEMORY: b"---\nid: m\n---\n" + b"y" * 10_000_000 + b"\n"})
    found, elapsed = timed(tmp_path)
    assert [row[3] for row in found] == ["U102"] and found[0][1:3] == (1, 1)
    assert_cpu_under(elapsed, FAST)


def test_a_file_over_the_size_cap(tmp_path):
    sniffed = b'---\nid: notes\ncitations:\n  - path: a.txt\n    line: 1\n    snippet: "one"\n---\n'
    # (a JSON Lines file is capped a line at a time: its one line is over the cap)
    scratch(tmp_path, {JSONL: b'{"url": "https://example.com/a", "notes": "' + b"y" * 12_000_000 + b'"}\n',
                       MEMORY: b"---\nid: m\n---\n" + b"y" * 12_000_001,
                       "docs/notes.md": sniffed + b"y" * 12_000_000})  # a memory by its head alone
    assert check(tmp_path) == [
        (MEMORY, 1, 1, "C003", "file is 12000015 bytes, over the 12000000-byte limit (max-file-size)"),
        ("docs/notes.md", 1, 1, "C003", f"file is {len(sniffed) + 12_000_000} bytes, over the 12000000-byte limit (max-file-size)"),
        (JSONL, 1, 1, "C003", "line is 12000046 bytes, over the 12000000-byte limit on one record (max-file-size): it is "
                              "skipped; the other lines are checked"),
    ]


# -- Markdown: commonmark pathological patterns, ~250 KB each ----------------------------------

BRIEF = (TESTS.parent / "fixtures" / "brief-repo" / "briefs" / "valid.md").read_text()
PATHOLOGICAL = {
    "nested-brackets": "[" * 250_000,
    "image-brackets": "![[]()" * 40_000,
    "unclosed-emphasis": "*a **a " * 35_000,
    "deep-block-quotes": "> " * 125_000 + "x",
    "link-reference-chain": "".join(f"[r{i}]: [r{i + 1}]\n" for i in range(20_000)),
}


@pytest.mark.parametrize("pattern", PATHOLOGICAL, ids=list(PATHOLOGICAL))
def test_pathological_markdown_is_fast(tmp_path, pattern):
    body = PATHOLOGICAL[pattern]
    brief = BRIEF.replace("## What to Watch", body + "\n\n## What to Watch")
    memory = "---\nid: m\ncitations:\n  - path: a.txt\n---\n" + body + "\n"
    scratch(tmp_path, {"briefs/b.md": brief.encode(), MEMORY: memory.encode(), "notes/n.md": ("[a.txt, L1]\n" + body + "\n").encode()})
    found, elapsed = timed(tmp_path)
    assert_cpu_under(elapsed, FAST)
    assert all(not row[3].startswith("C") for row in found), found


def test_fullwidth_digits_and_a_5000_digit_bracket_are_not_markers(tmp_path):
    brief = BRIEF.replace("[3]", "[\uff13]", 1).replace("[6]", "[" + "9" * 5000 + "]", 1)
    scratch(tmp_path, {"briefs/b.md": brief.encode()})
    assert [row[1:4] for row in check(tmp_path)] == [(2, 90, "B307"), (3, 1, "B301"), (12, 1, "B301"), (17, 1, "B303"), (20, 1, "B303")]


# -- paths ----------------------------------------------------------------------------------------

PATHS = {
    "dotdot": ("../sibling/secret.txt", "M206", "Path traversal blocked: ../sibling/secret.txt"),
    "absolute": ("/etc/passwd", "M206", "Path traversal blocked: /etc/passwd"),
    "tilde": ("~/x.txt", "M207", "File not found: ~/x.txt"),
    "nul": ('"a\\0b.txt"', "M207", "File not found: a\x00b.txt"),
    "long-name": ("a" * 5000 + ".txt", "M207", "File not found: " + "a" * 1304 + "\u2026" + "a" * 657 + ".txt (5020 characters)"),
    "symlink-passwd": ("passwd", "M206", "Path traversal blocked: passwd"),
    "symlink-sibling": ("sib/secret.txt", "M206", "Path traversal blocked: sib/secret.txt"),
    "symlink-loop": ("loop1", "M207", "File not found: loop1"),
    "directory": ("dir", "M208", "Cannot read file: cannot read dir: not a regular file"),
    "fifo": ("fifo", "M208", "Cannot read file: cannot read fifo: not a regular file"),
    "dev-zero": ("/dev/zero", "M206", "Path traversal blocked: /dev/zero"),
}


def test_cited_paths_are_confined(tmp_path):
    root = tmp_path / "repo"
    (tmp_path / "sibling").mkdir()
    (tmp_path / "sibling" / "secret.txt").write_text("root:TOPSECRET\n")
    files = {}
    for name, (path, _, _) in PATHS.items():
        files[f".serena/memories/{name}.md"] = (
            f"---\nid: {name}\ncitations:\n  - path: {path}\n    line: 1\n    snippet: \"root:x\"\n---\nBody.\n"
        ).encode()
    scratch(root, files)
    (root / "dir").mkdir()
    os.mkfifo(root / "fifo")
    os.symlink("/etc/passwd", root / "passwd")
    os.symlink("../sibling", root / "sib")
    os.symlink("loop2", root / "loop1")
    os.symlink("loop1", root / "loop2")
    report, elapsed = None, time.process_time()
    report = Engine.load(root).check([root])
    elapsed = time.process_time() - elapsed
    assert sorted(rows(report)) == sorted(
        (f".serena/memories/{name}.md", 4, 11, code, message) for name, (_, code, message) in PATHS.items()
    )
    assert_cpu_under(elapsed, FAST)
    out = text.render(report) + github.render(report)
    assert "TOPSECRET" not in out and "root:x:0" not in out
    assert "a\\x00b.txt" in out and "\x00" not in out


def test_a_nested_git_folder_is_never_run(tmp_path):
    """git_history runs git only at the root: a nested ``.git`` with a hostile config is not used."""
    nested = tmp_path / "vendor" / "evil"
    (nested / ".git").mkdir(parents=True)
    (nested / ".git" / "config").write_text(f"[core]\n\tfsmonitor = touch {tmp_path / 'PWNED'}\n")
    (nested / "x.py").write_text("print(1)\n")
    scratch(tmp_path, {"notes/n.md": b"See [vendor/evil/x.py@0123456789abcdef, L1].\n"})
    found = check(tmp_path)
    assert not (tmp_path / "PWNED").exists()
    assert all(not row[3].startswith("C") for row in found), found


# -- output ---------------------------------------------------------------------------------------


def test_hostile_text_in_diagnostics_is_escaped(tmp_path):
    hostile = r"\n::error file=x::pwned\e[31m red \u202e evil \u200b"  # YAML escapes: LF, ESC, RLO, ZWSP
    scratch(tmp_path, {MEMORY: f"---\nid: m\ncitations:\n  - path: \"{hostile}\"\n---\nBody.\n".encode()})
    report = Engine.load(tmp_path).check([tmp_path])
    assert [d.code for d in report.diagnostics] == ["M207"]
    shown = text.render(report)
    annotations = github.render(report)
    for out in (shown, annotations):
        assert "\x1b" not in out and "\u202e" not in out
        assert not any(line.startswith("::error file=x") for line in out.splitlines())
    assert annotations.count("\n") == 1 and "%0A::error file=x::pwned" in annotations


# -- fixes lose nothing ---------------------------------------------------------------------------


def test_a_fix_round_that_adds_a_finding_is_undone(tmp_path, monkeypatch):
    from pytest_citations.core.diagnostics import Diagnostic
    from pytest_citations.run import fix as fix_module

    def diag(code):
        return Diagnostic(code=code, name="n", severity="error", message="m", path="p", line=1, col=1)

    assert fix_module.introduces_findings([diag("U104")], [diag("U101")])
    assert not fix_module.introduces_findings([diag("U104"), diag("U105")], [diag("U105")])
    data = (HOSTILE / "jsonl-bad-line-7.jsonl").read_bytes().replace(b'"cid": "cid_', b'"cid": "cid_0', 1)
    scratch(tmp_path, {JSONL: data})
    engine = Engine.load(tmp_path)
    monkeypatch.setattr(fix_module, "introduces_findings", lambda before, after: True)
    result = fix_module.fix_file(engine, JSONL, engine.kinds_for(JSONL))
    assert result.applied == 0 and (tmp_path / JSONL).read_bytes() == data


def test_a_symlinked_artifact_is_never_written_through(tmp_path):
    outside = tmp_path / "outside.jsonl"
    data = (HOSTILE / "jsonl-bad-line-7.jsonl").read_bytes().replace(b'"cid": "cid_', b'"cid": "cid_0', 1)
    outside.write_bytes(data)
    root = scratch(tmp_path / "repo", {})
    (root / JSONL).parent.mkdir(parents=True)
    os.symlink(outside, root / JSONL)
    from pytest_citations.run.fix import fix_file

    engine = Engine.load(root)
    result = fix_file(engine, JSONL, engine.kinds_for(JSONL))
    assert [d.code for d in result.diagnostics] == ["C008"] and outside.read_bytes() == data


# -- never a traceback ------------------------------------------------------------------------------

hypothesis = pytest.importorskip("hypothesis")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from pytest_citations.core import frontmatter, jsonlines, markdown_text  # noqa: E402
from pytest_citations.kinds.briefs import source_registry as registry  # noqa: E402
from pytest_citations.kinds.code_tuples.inline import find_inline  # noqa: E402

FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@FUZZ
@given(st.text())
def test_string_entry_points_never_raise(value):
    with contextlib.suppress(ValueError, RecursionError):
        jsonlines.loads(value)
    frontmatter.parse(value)
    frontmatter.parse("---\n" + value + "\n---\n")
    assert len(markdown_text.prose(value)) == len(value)
    list(find_inline(value))
    registry.parse("source_registry.yaml", value)


@FUZZ
@given(st.binary(max_size=2000), st.sampled_from([JSONL, MEMORY, "briefs/b.md", "notes/n.md", "eval/x.jsonl"]))
def test_any_bytes_in_any_kind_is_diagnostics_never_a_crash(tmp_path, data, rel):
    root = tmp_path / "fuzz"
    shutil.rmtree(root, ignore_errors=True)
    scratch(root, {rel: data})
    assert not [row for row in check(root) if row[3] == "C006"]


def test_settings_regexes_are_bounded_in_time():
    from pytest_citations.kinds.briefs import claims as brief_quality

    start = time.process_time()
    claim = "a" * 40 + "!"
    assert brief_quality.topics(claim, ["(a+)+$"], []) == {}
    assert brief_quality.numeric_parts(claim + " 2026", ["(a+)+$"]) == [("year", "2026")]
    assert_cpu_under(time.process_time() - start, FAST)

"""Memory files (M2xx): the shipped memory repository, the moved-line fix, the front-matter reader's
edge cases, and the real ai-agents memory."""

from __future__ import annotations

import re
import shutil
import time

import pytest

from conftest import PROJECT
from cpu_bounds import assert_cpu_under
from pytest_citations.core import frontmatter, sources
from pytest_citations.core.config import parse_config
from pytest_citations.engine import Engine, load_plugins
from pytest_citations.frontends.cli import main
from pytest_citations.kinds.memories.model import Memories
from pytest_citations.run.fix import fix_file

MEMORY_REPO = PROJECT / "fixtures" / "memory-repo"
M = ".serena/memories"

FILES = [
    f"{M}/auth-session.md",
    f"{M}/branding.md",
    f"{M}/cached-objects.md",
    f"{M}/cookie-flags.md",
    f"{M}/csrf-protection.md",  # a typo'd citation field (`lines`) and a verified stamp of month 13
    f"{M}/deploy-checklist.md",
    f"{M}/deploy-pipeline.md",
    f"{M}/error-handling.md",
    f"{M}/feature-flags.md",
    f"{M}/platform-config.md",
    f"{M}/project-overview.md",  # no front matter: a plain Serena memory, nothing to verify
    f"{M}/rate-limits.md",
    f"{M}/roadmap.md",  # links to `summary`, the file name of two plain notes
    f"{M}/rollout-strategy.md",
    f"{M}/session-lifetime.md",
    f"{M}/session-validation.md",
    f"{M}/token-signing.md",
    f"{M}/windows-deploy.md",  # UTF-8 BOM and CRLF line ends, citing a CRLF file: valid
    f"{M}/2025/summary.md",  # two plain notes with one file name: not duplicates (no `id:` clashes)
    f"{M}/2026/summary.md",
    f"{M}/architecture/adr-042-python-first.md",  # found recursively
    f"{M}/archive/cookie-sessions.md",
    f"{M}/archive/rollout-strategy-v1.md",
    "docs/notes/cache.md",  # outside the memories folder, claimed by its `citations:` front matter
]

EXPECTED = [
    (f"{M}/archive/cookie-sessions.md", 2, 5, "M214",
     f"memory id 'auth-session' is also the id of {M}/auth-session.md"),
    (f"{M}/archive/cookie-sessions.md", 7, 5, "M212",
     "unknown link type 'supercedes' (known: related, supersedes, blocks, implements, extends); the link is skipped"),
    (f"{M}/archive/rollout-strategy-v1.md", 5, 5, "M215",
     "supersedes cycle: rollout-strategy-v1 -> rollout-strategy -> rollout-strategy-v1"),
    (f"{M}/auth-session.md", 2, 5, "M214",
     f"memory id 'auth-session' is also the id of {M}/archive/cookie-sessions.md"),
    (f"{M}/branding.md", 5, 11, "M208", "Cannot read file: not valid UTF-8: byte 0x89 at offset 0"),
    (f"{M}/cached-objects.md", 7, 8, "M203",
     "YAML tag !!python/object:auth.session.Session is not allowed in front matter"),
    (f"{M}/cookie-flags.md", 5, 11, "M211",
     "Snippet mismatch at line 32. Expected 'SameSite=Strict', got "
     "'return f\"{COOKIE_NAME}={sign(session.id)}; HttpOnly; Secure; SameSite=Lax\"'"),
    (f"{M}/csrf-protection.md", 5, 5, "M216",
     "unknown citation field 'lines' in citations[0] (did you mean 'line'? known: path, line, snippet, verified); "
     "the field is ignored"),
    (f"{M}/csrf-protection.md", 7, 15, "M205",
     "citations[0].verified 2026-13-02T09:30:00Z is not a valid date or time (month 13)"),
    (f"{M}/deploy-checklist.md", 5, 11, "M209", "Invalid line number: 0 (must be >= 1)"),
    (f"{M}/deploy-checklist.md", 8, 11, "M205", "citations[1].line must be an integer, not a string"),
    (f"{M}/deploy-checklist.md", 10, 5, "M213", "blocks link target 'release-checklist' matches no memory"),
    (f"{M}/error-handling.md", 6, 5, "M204", "duplicate key 'line' (first on line 5)"),
    (f"{M}/feature-flags.md", 3, 7, "M202", "YAML anchor &auth-tags is not allowed in front matter"),
    (f"{M}/feature-flags.md", 8, 15, "M202", "YAML alias *auth-tags is not allowed in front matter"),
    (f"{M}/platform-config.md", 4, 11, "M206", "Path traversal blocked: ../platform/config/base.toml"),
    (f"{M}/platform-config.md", 5, 11, "M206", "Path traversal blocked: config/platform.toml"),  # symlink out
    (f"{M}/platform-config.md", 7, 11, "M206", "Path traversal blocked: /etc/hostname"),
    (f"{M}/rate-limits.md", 4, 5, "M201",
     "YAML syntax error: while parsing a flow mapping; expected ',' or '}', but got ':'"),
    (f"{M}/roadmap.md", 4, 5, "M217",
     f"extends link target 'summary' is ambiguous: it is the id of {M}/2025/summary.md and {M}/2026/summary.md"),
    (f"{M}/rollout-strategy.md", 8, 5, "M215",
     "supersedes cycle: rollout-strategy -> rollout-strategy-v1 -> rollout-strategy"),
    (f"{M}/session-lifetime.md", 5, 11, "M211",
     "Snippet mismatch at line 11. Expected 'SESSION_TTL_SECONDS = ', got "
     "'# Sessions last one working day; the cache uses the same TTL.' (moved to line 12)"),
    (f"{M}/session-validation.md", 5, 11, "M211",
     "Snippet mismatch at line 37. Expected 'return None', got 'if session_id is None:' "
     "(found at lines 38, 41: update line by hand)"),
    (f"{M}/token-signing.md", 5, 11, "M210", "Line 24 exceeds file length (18)"),
    (f"{M}/token-signing.md", 7, 11, "M207", "File not found: src/auth/refresh.py"),
]


def _rows(report):
    return [(d.path, d.line, d.col, d.code, d.message) for d in report.diagnostics]


def _engine(root, **table):
    """An engine for a folder without [tool.citations], rooted exactly there."""
    kinds, registry = load_plugins()
    return Engine(parse_config(table, root, kinds, registry), kinds, registry)


# -- the shipped memory repository ----------------------------------------------------------------------


def test_every_finding_in_the_memory_repository():
    report = Engine.load(MEMORY_REPO).check([MEMORY_REPO])
    assert report.files == FILES
    assert _rows(report) == EXPECTED


def test_every_memory_rule_fires_on_the_memory_repository():
    report = Engine.load(MEMORY_REPO).check([MEMORY_REPO])
    assert {d.code for d in report.diagnostics} == {f"M{n}" for n in range(201, 218)}


def test_only_the_unique_move_is_fixable_and_only_the_unknown_link_type_and_field_are_warnings():
    report = Engine.load(MEMORY_REPO).check([MEMORY_REPO])
    assert [d.path for d in report.diagnostics if d.fix is not None] == [f"{M}/session-lifetime.md"]
    assert [d.code for d in report.diagnostics if d.severity == "warning"] == ["M212", "M216"]


def test_the_fixture_holds_what_it_claims_to_hold():
    """The properties the expectations rest on, so an editor or a checkout cannot lose them."""
    windows = (MEMORY_REPO / M / "windows-deploy.md").read_bytes()
    assert windows.startswith(b"\xef\xbb\xbf---\r\n") and b"\n" not in windows.replace(b"\r\n", b"")
    script = (MEMORY_REPO / "scripts" / "Deploy-Api.ps1").read_bytes()
    assert script.count(b"\r\n") == script.count(b"\n") == 7
    link = MEMORY_REPO / "config" / "platform.toml"
    assert link.is_symlink() and not link.resolve().is_relative_to(MEMORY_REPO.resolve())
    assert (MEMORY_REPO / "assets" / "logo.png").read_bytes().startswith(b"\x89PNG")


def test_a_file_without_citations_front_matter_is_not_claimed():
    engine = Engine.load(MEMORY_REPO)
    assert engine.kinds_for("docs/adr/adr-042.md") == ()
    assert [kind.name for kind in engine.kinds_for("docs/notes/cache.md")] == ["memories"]


def test_the_target_of_a_symlink_out_of_the_root_is_never_printed(capsys):
    main(["check", str(MEMORY_REPO)])
    out = capsys.readouterr().out
    assert "Path traversal blocked: config/platform.toml" in out
    assert "CI gate" not in out and "max-file-size" not in out  # the hostile repo's pyproject.toml


def test_pytest_plugin_reports_the_same_findings(pytester):
    shutil.copytree(MEMORY_REPO, pytester.path / "memory-repo", symlinks=True)
    result = pytester.runpytest("--citations", f"--rootdir={pytester.path}", "memory-repo")
    line = re.compile(r"^memory-repo/(\S+):(\d+):(\d+): (M\d{3}) (?:\[\*\] )?(.*)$")
    found = [(m[1], int(m[2]), int(m[3]), m[4], m[5]) for m in map(line.match, result.outlines) if m]
    assert sorted(found) == [row for row in EXPECTED if row[3] not in ("M212", "M216")]  # a warning fails no item
    result.assert_outcomes(passed=7, failed=17, warnings=2)


def test_two_runs_give_the_same_output():
    first = Engine.load(MEMORY_REPO).check([MEMORY_REPO])
    second = Engine.load(MEMORY_REPO).check([MEMORY_REPO])
    assert [str(d) for d in first.diagnostics] == [str(d) for d in second.diagnostics]


# -- the moved-line fix -----------------------------------------------------------------------------------


@pytest.fixture
def repo(tmp_path):
    target = tmp_path / "memory-repo"
    shutil.copytree(MEMORY_REPO, target, symlinks=True)
    return target


@pytest.fixture
def moved_line_fix_only(monkeypatch):
    """Leave out the verification stamps ``--fix`` also writes (tests/kinds/memories/test_memory_refresh.py covers
    them), so the moved-line fix is seen on its own."""
    monkeypatch.setattr(Memories, "refresh", None, raising=False)


def _fix(root, rel):
    engine = Engine.load(root)
    return fix_file(engine, rel, engine.kinds_for(rel))


def test_moved_line_fix_rewrites_the_line_value_and_nothing_else(repo, moved_line_fix_only):
    rel = f"{M}/session-lifetime.md"
    before = (repo / rel).read_bytes()
    result = _fix(repo, rel)
    assert result.applied == 1
    assert result.diagnostics == []
    after = (repo / rel).read_bytes()
    assert after == before.replace(b"    line: 11\n", b"    line: 12\n", 1)
    assert after != before

    again = _fix(repo, rel)
    assert again.applied == 0 and again.diagnostics == []
    assert (repo / rel).read_bytes() == after


def test_ambiguous_snippet_is_reported_and_left_alone(repo, moved_line_fix_only):
    rel = f"{M}/session-validation.md"
    before = (repo / rel).read_bytes()
    result = _fix(repo, rel)
    assert result.applied == 0
    assert [(d.code, d.fix) for d in result.diagnostics] == [("M211", None)]
    assert "(found at lines 38, 41: update line by hand)" in result.diagnostics[0].message
    assert (repo / rel).read_bytes() == before


def test_fix_of_the_whole_repository_then_a_second_run_changes_nothing(repo):
    """With everything ``--fix`` does (the moved line and any verification stamps)."""
    rel = f"{M}/session-lifetime.md"
    body = (repo / rel).read_bytes().split(b"\n---\n", 1)[1]
    _fix(repo, rel)
    once = (repo / rel).read_bytes()
    assert b"    line: 12\n" in once and b"line: 11" not in once
    assert once.split(b"\n---\n", 1)[1] == body
    assert Engine.load(repo).check([repo / rel]).diagnostics == []
    assert _fix(repo, rel).applied == 0
    assert (repo / rel).read_bytes() == once


def test_moved_line_fix_keeps_bom_and_crlf(tmp_path, moved_line_fix_only):
    (tmp_path / "pyproject.toml").write_text("[tool.citations]\n")
    (tmp_path / "deploy.ps1").write_bytes(b"param($Sha)\r\n$ErrorActionPreference = 'Stop'\r\ndocker push $Image\r\n")
    rel = f"{M}/windows.md"
    memory = tmp_path / rel
    memory.parent.mkdir(parents=True)
    before = (
        "\ufeff---\r\nsubject: Windows deploys\r\ncitations:\r\n  - path: deploy.ps1\r\n    line: 2\r\n"
        "    snippet: docker push\r\n---\r\n\r\n# Windows\r\n"
    ).encode()
    memory.write_bytes(before)
    result = _fix(tmp_path, rel)
    assert (result.applied, result.diagnostics) == (1, [])
    assert memory.read_bytes() == before.replace(b"line: 2\r\n", b"line: 3\r\n")


# -- verification details ---------------------------------------------------------------------------------


def _repo(root, memory: str, files: dict[str, bytes]):
    (root / "pyproject.toml").write_text("[tool.citations]\n")
    for rel, data in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    path = root / M / "note.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(memory)
    return Engine.load(root).check([root])


def test_lines_split_on_newline_only(tmp_path):
    """A form feed, a lone CR or U+2028 inside a line does not start a new line (str.splitlines would)."""
    source = "import os\x0c\n# a\rb\u2028c\nclass Store:\n".encode()
    memory = "---\ncitations:\n  - path: src/store.py\n    line: 3\n    snippet: class Store\n---\n"
    assert _rows(_repo(tmp_path, memory, {"src/store.py": source})) == []


def test_line_past_the_end_counts_lines_without_the_final_newline(tmp_path):
    memory = "---\ncitations:\n  - path: a.txt\n    line: 3\n---\n"
    report = _repo(tmp_path, memory, {"a.txt": b"one\r\ntwo\r\n"})
    assert [(d.code, d.message) for d in report.diagnostics] == [("M210", "Line 3 exceeds file length (2)")]


def test_a_latin_1_file_is_cannot_read(tmp_path):
    memory = "---\ncitations:\n  - path: legacy.txt\n    line: 1\n  - path: legacy.txt\n---\n"
    report = _repo(tmp_path, memory, {"legacy.txt": "caf\u00e9\n".encode("latin-1")})
    assert [(d.line, d.code, d.message) for d in report.diagnostics] == [
        (3, "M208", "Cannot read file: not valid UTF-8: byte 0xe9 at offset 3"),  # a path-only citation is fine
    ]


def test_a_snippet_on_its_line_is_a_substring_match(tmp_path):
    memory = "---\ncitations:\n  - path: a.py\n    line: 2\n    snippet: \"x = \"\n---\n"
    assert _rows(_repo(tmp_path, memory, {"a.py": b"import os\n    x = 1  # trailing\n"})) == []


# -- frontmatter.parse --------------------------------------------------------------------------------------


def test_no_front_matter():
    assert frontmatter.parse("# Notes\n\nplain text\n") is None
    assert frontmatter.parse("") is None
    assert frontmatter.parse("intro\n---\nid: a\n---\n") is None  # `---` must open the file


def test_unclosed_front_matter():
    parsed = frontmatter.parse("---\nid: auth\ncitations: []\n\n# Auth\n")
    assert parsed.root is None
    assert parsed.problems == [frontmatter.Problem("syntax", "front matter opened with '---' is never closed", 1, 1)]


def test_empty_front_matter():
    for text in ("---\n---\n# Notes\n", "---\n\n---\n", "---\n---"):
        parsed = frontmatter.parse(text)
        assert (parsed.root, parsed.problems) == (None, [])


def test_dots_close_the_front_matter():
    parsed = frontmatter.parse("---\nid: auth\n...\n# Body\n")
    assert parsed.root.plain() == {"id": "auth"} and parsed.problems == []


def test_bom_is_removed_by_the_reader_before_parsing(tmp_path):
    (tmp_path / "note.md").write_bytes("\ufeff---\nid: auth\nconfidence: 0.9\n---\n".encode())
    source = sources.read_source(tmp_path, "note.md")
    assert source.has_bom
    parsed = frontmatter.parse(source.text)
    assert parsed.root.plain() == {"id": "auth", "confidence": 0.9}
    assert (parsed.root.value["confidence"].line, parsed.root.value["confidence"].col) == (3, 13)


def test_crlf_front_matter_keeps_positions_and_spans():
    text = "---\r\nid: a\r\ncitations:\r\n  - path: src/app.py\r\n    line: 3\r\n---\r\n# Body\r\n"
    parsed = frontmatter.parse(text)
    assert parsed.root.plain() == {"id": "a", "citations": [{"path": "src/app.py", "line": 3}]}
    line = parsed.root.value["citations"].value[0].value["line"]
    assert (line.line, line.col) == (5, 11)
    assert text[parsed.start + line.start : parsed.start + line.end] == "3"  # what a fix replaces


def _billion_laughs() -> str:
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    previous = "a"
    for name in "bcdefghi":
        lines.append(f"{name}: &{name} [{', '.join([f'*{previous}'] * 9)}]")
        previous = name
    return "---\n" + "\n".join(lines) + "\n---\n"


def test_billion_laughs_aliases_are_reported_not_expanded():
    started = time.process_time()
    parsed = frontmatter.parse(_billion_laughs())
    assert_cpu_under(time.process_time() - started, 1.0)
    assert {problem.kind for problem in parsed.problems} == {"alias"}
    assert sum(problem.message.startswith("YAML anchor") for problem in parsed.problems) == 9
    assert sum(problem.message.startswith("YAML alias") for problem in parsed.problems) == 72
    plain = parsed.root.plain()
    assert plain["a"] == ["lol"] * 9 and plain["i"] == []  # aliases are left out, never resolved


def test_billion_laughs_is_m202_in_a_repository(tmp_path):
    started = time.process_time()
    report = _repo(tmp_path, _billion_laughs(), {})
    assert_cpu_under(time.process_time() - started, 5.0)
    assert {d.code for d in report.diagnostics} == {"M202"}
    assert len(report.diagnostics) == 81


DEEP = 1000  # past Python's default recursion limit


def test_deeply_nested_flow_sequences_end_in_a_diagnostic():
    text = "---\nx: " + "[" * DEEP + "]" * DEEP + "\n---\n"
    started = time.process_time()
    parsed = frontmatter.parse(text)
    assert parsed.root is None
    assert [problem.kind for problem in parsed.problems] == ["syntax"]
    assert_cpu_under(time.process_time() - started, 5.0)


def test_deeply_nested_flow_sequences_end_fast():
    text = "---\nx: " + "[" * DEEP + "]" * DEEP + "\n---\n"
    started = time.process_time()
    frontmatter.parse(text)
    assert_cpu_under(time.process_time() - started, 0.5)


@pytest.mark.parametrize("depth", [45, 99])
def test_mappings_as_keys_of_mappings_are_named_by_their_text(depth):
    """A key that is itself a mapping is named by its text: named by its value, each level's name
    held the escaped names of the level below, which doubled per level (45 levels took gigabytes)."""
    text = "---\n" + "{" * depth + "a: 1" + "}" * depth + ": x\n" + "{" * depth + "a: 1" + "}" * depth + ": y\n---\n"
    started = time.process_time()
    parsed = frontmatter.parse(text)
    assert_cpu_under(time.process_time() - started, 1.0)
    assert [problem.kind for problem in parsed.problems] == ["duplicate-key"]
    assert len(parsed.problems[0].message) < 4 * depth + 100


def test_ten_thousand_keys_are_fine():
    text = "---\n" + "".join(f"key{n}: {n}\n" for n in range(10_000)) + "---\n"
    parsed = frontmatter.parse(text)
    assert parsed.problems == []
    assert len(parsed.root.value) == 10_000
    assert parsed.root.value["key9999"].value == 9999 and parsed.root.value["key9999"].line == 10_001


def test_more_than_one_yaml_document():
    parsed = frontmatter.parse("---\nid: a\n--- !x\n---\n")
    assert parsed.problems == [frontmatter.Problem("syntax", "front matter holds more than one YAML document", 3, 1)]


@pytest.mark.parametrize("value", ["!!int abc", "!!float abc"])
def test_a_core_tag_on_a_value_it_cannot_hold_is_a_problem(value):
    parsed = frontmatter.parse(f"---\nline: {value}\n---\n")
    assert [problem.kind for problem in parsed.problems] == ["syntax"]


def test_one_unparseable_memory_does_not_break_the_others(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.citations]\n")
    memories = tmp_path / M
    memories.mkdir(parents=True)
    (memories / "good.md").write_text("---\nlinks:\n  - related: bad\n---\n")
    (memories / "bad.md").write_text("---\ncitations:\n  - path: pyproject.toml\n    line: !!int abc\n---\n")
    report = Engine.load(tmp_path).check([tmp_path])
    assert [d.path for d in report.diagnostics if d.code == "C006"] == []
    # The tag error, and the citation it leaves unverifiable (its line stays the text 'abc').
    assert [(d.path, d.code) for d in report.diagnostics] == [(f"{M}/bad.md", "M201"), (f"{M}/bad.md", "M205")]


def test_supersedes_cycle_through_a_duplicate_id(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.citations]\n")
    memories = tmp_path / M
    memories.mkdir(parents=True)
    (memories / "cache.md").write_text("---\nid: cache\nlinks:\n  - supersedes: cache-v1\n---\n")
    (memories / "cache-copy.md").write_text("---\nid: cache\n---\n")
    (memories / "cache-v1.md").write_text("---\nlinks:\n  - supersedes: cache\n---\n")
    report = Engine.load(tmp_path).check([tmp_path])
    assert "C006" not in {d.code for d in report.diagnostics}


@pytest.mark.parametrize(
    "path",
    [
        pytest.param('"src/a\\0b.py"', id="nul-byte"),
        pytest.param("src/" + "a/" * 3000 + "x.py", id="too-long"),
        pytest.param("src/loop", id="symlink-loop"),
    ],
)
def test_a_path_the_system_cannot_resolve_is_a_verification_failure(tmp_path, path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "loop").symlink_to("loop-back")
    (tmp_path / "src" / "loop-back").symlink_to("loop")
    memory = f"---\ncitations:\n  - path: {path}\n    line: 1\n---\n"
    report = _repo(tmp_path, memory, {})
    assert [(d.line, d.code) for d in report.diagnostics] == [(3, "M207")]  # it names no file


# -- real data: the rjmurillo/ai-agents memory ------------------------------------------------------------

AI_MEMORY = ".serena/memories/test-citation-verification.md"
AI_MODELS = ".claude/skills/memory-enhancement/src/memory_enhancement/models.py"
AI_PYPROJECT = '[project]\nname = "ai-agents"\nversion = "0.1.0"\nrequires-python = ">=3.12"\n'
AI_MODELS_PY = '''\
"""Data models for memory enhancement: memories, citations and typed links."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import Enum

__all__ = [
    "Citation",
    "LinkType",
    "Memory",
]


class LinkType(str, Enum):
    """Typed relationships between memories."""

    RELATED = "related"
    SUPERSEDES = "supersedes"
    BLOCKS = "blocks"
    IMPLEMENTS = "implements"
    EXTENDS = "extends"


@dataclass
class Citation:
    path: str
    line: int | None = None
    snippet: str | None = None
    verified: datetime | None = None
    valid: bool = field(default=True, compare=False)
'''


def _ai_agents(tmp_path, realdata):
    root = tmp_path / "ai-agents"
    (root / AI_MEMORY).parent.mkdir(parents=True)
    (root / AI_MEMORY).write_bytes((realdata / "ai-agents" / AI_MEMORY).read_bytes())
    (root / "pyproject.toml").write_text(AI_PYPROJECT)
    (root / AI_MODELS).parent.mkdir(parents=True)
    (root / AI_MODELS).write_text(AI_MODELS_PY)
    assert (root / AI_MODELS).read_text().splitlines()[15] == "class LinkType(str, Enum):"
    return root


def test_ai_agents_memory_is_valid_against_the_files_it_cites(tmp_path, realdata):
    root = _ai_agents(tmp_path, realdata)
    report = _engine(root).check([root])
    assert report.files == [AI_MEMORY]
    assert report.diagnostics == []


def test_ai_agents_memory_goes_stale_when_line_16_changes(tmp_path, realdata):
    root = _ai_agents(tmp_path, realdata)
    models = root / AI_MODELS
    models.write_text(models.read_text().replace("class LinkType(str, Enum):", "class RelationType(str, Enum):"))
    report = _engine(root).check([root])
    assert _rows(report) == [
        (AI_MEMORY, 9, 11, "M211",
         "Snippet mismatch at line 16. Expected 'class LinkType', got 'class RelationType(str, Enum):'"),
    ]


def test_ai_agents_memories_read_in_place(realdata):
    """Without the cited files beside them, both stored copies cite files that are not there."""
    root = realdata / "ai-agents" / "at-2aeb4fddd_parent"
    report = _engine(root).check([root])
    nested = ".serena/memories/testing/test-citation-verification.md"
    assert report.files == [nested]  # found in a subfolder of the memories folder
    assert _rows(report) == [
        (nested, 5, 11, "M207", "File not found: pyproject.toml"),
        (nested, 8, 11, "M207", f"File not found: {AI_MODELS}"),
    ]


def test_ai_agents_both_copies_share_one_id(realdata):
    root = realdata / "ai-agents"
    report = _engine(root).check([root])
    copy = "at-2aeb4fddd_parent/.serena/memories/testing/test-citation-verification.md"
    assert report.files == [AI_MEMORY, copy]  # the second is claimed by its front matter
    assert [(d.path, d.code) for d in report.diagnostics] == [
        (AI_MEMORY, "M214"), (AI_MEMORY, "M207"), (AI_MEMORY, "M207"),
        (copy, "M214"), (copy, "M207"), (copy, "M207"),
    ]


def test_suppressions_in_front_matter_comments_and_in_the_body(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.citations]\n")
    memories = tmp_path / M
    memories.mkdir(parents=True)
    (memories / "a.md").write_text(
        "---\n"
        "citations:\n"
        "  # citations: disable-next-line M207 -- the file lands with PR 88\n"
        "  - path: src/later.py\n"
        "  - path: src/gone.py\n"
        "  # citations: disable-next-line M206\n"
        "  - path: src/also-gone.py\n"
        "---\n"
        "<!-- citations: disable-file M213 -->\n"
        "Body.\n"
    )
    report = Engine.load(tmp_path).check([tmp_path])
    assert [(d.line, d.code, d.message) for d in report.diagnostics] == [
        (5, "M207", "File not found: src/gone.py"),
        (6, "C007", "suppression of M206 is unused: no M206 diagnostic on this line"),
        (7, "M207", "File not found: src/also-gone.py"),
        (9, "C007", "suppression of M213 is unused: no M213 diagnostic on this file"),
    ]


def test_agent_instructions_in_a_memories_folder_are_memories_only_if_they_cite(tmp_path):
    """A CLAUDE.md or AGENTS.md per folder is what coding agents read, not a memory: two of them
    once made a duplicate memory id (their stems) in a real repository."""
    memories = tmp_path / ".serena" / "memories"
    for folder in ("testing", "planning"):
        (memories / folder).mkdir(parents=True)
        (memories / folder / "CLAUDE.md").write_text("# Instructions\n\nRead AGENTS.md first.\n")
        (memories / folder / "AGENTS.md").write_text("---\nname: planner\n---\n\n# The planner agent\n")
        (memories / folder / "README.md").write_text("# What this folder holds\n")
    (memories / "testing" / "plan.md").write_text("# A plain memory\n")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("x = 1\n")
    (memories / "planning" / "GEMINI.md").write_text(
        "---\nid: gemini-notes\ncitations:\n  - path: src/a.py\n    line: 9\n---\n\n# Notes\n")
    report = Engine.load(tmp_path).check([tmp_path])
    assert report.files == [".serena/memories/planning/GEMINI.md", ".serena/memories/testing/plan.md"]
    assert [(d.path, d.code) for d in report.diagnostics] == [(".serena/memories/planning/GEMINI.md", "M210")]


@pytest.mark.parametrize("front_matter, claimed", [
    ("citations:\n  - path: src/a.py\n    line: 1\n    snippet: x = 1\n", True),
    ("citations:\n  - path: src/a.py\n", True),
    ("citations: [{path: src/a.py, line: 1}]\n", True),
    ("citations: true\n", False),  # Jekyll, Quarto, Pandoc pages: a switch, not a list
    ("citations: []\n", False),  # nothing to check
    ("citations:\n  - src/a.py\n", False),  # a list of strings: a bibliography
    ("citations:\n  - path: src/a.py\n    lines: 1-28\n    symbols: [A]\n", False),  # another tool's research notes
    ("citations:\n  - url: https://example.com/a\n", False),
])
def test_outside_the_memories_folder_a_file_is_a_memory_only_by_the_specs_citations(tmp_path, front_matter, claimed):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("x = 1\n")
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "n.md").write_text(f"---\ntitle: A note\nconfidence: high\n{front_matter}---\n\n# Note\n")
    assert bool(Engine.load(tmp_path).kinds_for("notes/n.md")) is claimed

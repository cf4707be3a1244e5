"""`citations memory verify|verify-all`: the reference tool's standard output and exit codes."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import PROJECT
from pytest_citations.frontends.cli import main

MEMORIES = ".serena/memories"

SOURCE = "def login(user):\n    check(user)\n    return token\n"


def make_repo(root: Path, memories: dict[str, str], files: dict[str, str | bytes] | None = None) -> Path:
    """A repository with memory files (by name under .serena/memories) and other files."""
    files = {"src/auth.py": SOURCE, **(files or {})}
    for name, text in memories.items():
        path = root / MEMORIES / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    return root


def memory(citations: str, head: str = "") -> str:
    return f"---\n{head}citations:\n{citations}---\n\n# Notes\n"


VALID = memory(
    "  - path: src/auth.py\n    line: 2\n    snippet: check(user)\n  - path: src/auth.py\n",
    head="id: auth-login\nsubject: Login\n",
)


def run(capsys, *argv: str | Path) -> tuple[int, str, str]:
    code = main(["memory", *map(str, argv)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# -- verify-all, human-readable ----------------------------------------------------------------------


def test_all_valid(tmp_path, capsys):
    root = make_repo(tmp_path, {"auth.md": VALID})
    code, out, err = run(capsys, "verify-all", "--repo-root", root)
    assert out == (
        "[PASS] auth-login: VALID\n"
        "  Citations: 2/2 valid\n"
        "  Confidence: 1.00\n"
        "\n"
        "Summary: 1/1 memories valid\n"
    )
    assert (code, err) == (0, "")


@pytest.mark.parametrize(
    ("citation", "location", "reason"),
    [
        ("  - path: ../outside.py\n", "../outside.py", "Path traversal blocked: ../outside.py"),
        ("  - path: src/gone.py\n    line: 3\n", "src/gone.py:3", "File not found: src/gone.py"),
        (
            "  - path: assets/logo.bin\n    line: 1\n",
            "assets/logo.bin:1",
            "Cannot read file: not valid UTF-8: byte 0x89 at offset 0",
        ),
        ("  - path: src/auth.py\n    line: 0\n", "src/auth.py:0", "Invalid line number: 0 (must be >= 1)"),
        ("  - path: src/auth.py\n    line: 4\n", "src/auth.py:4", "Line 4 exceeds file length (3)"),
        (
            "  - path: src/auth.py\n    line: 2\n    snippet: verify(user)\n",
            "src/auth.py:2",
            "Snippet mismatch at line 2. Expected 'verify(user)', got 'check(user)'",
        ),
    ],
    ids=["path-traversal", "file-not-found", "cannot-read", "line-zero", "line-past-end", "snippet-mismatch"],
)
def test_each_stale_reason(tmp_path, capsys, citation, location, reason):
    (tmp_path / "outside.py").write_text(SOURCE)  # exists, but outside the repository root
    root = make_repo(
        tmp_path / "repo",
        {"auth.md": VALID, "stale.md": memory("  - path: src/auth.py\n" + citation)},
        {"assets/logo.bin": b"\x89PNG\r\n\x1a\n\x00\x00"},
    )
    code, out, err = run(capsys, "verify-all", "--repo-root", root)
    assert out == (
        "[PASS] auth-login: VALID\n"
        "  Citations: 2/2 valid\n"
        "  Confidence: 1.00\n"
        "\n"
        "[FAIL] stale: STALE\n"
        "  Citations: 1/2 valid\n"
        "  Confidence: 0.50\n"
        f"  [STALE] {location}\n"
        f"    Reason: {reason}\n"
        "\n"
        "Summary: 1/2 memories valid\n"
        "  1 memory/memories have stale citations\n"
    )
    assert (code, err) == (1, "")


def test_no_citations(tmp_path, capsys):
    root = make_repo(tmp_path, {"plain.md": "# No front matter\n", "empty.md": "---\nid: empty\ncitations: []\n---\n"})
    assert run(capsys, "verify-all", "--repo-root", root) == (0, "No memories with citations found.\n", "")
    assert run(capsys, "verify-all", "--repo-root", root, "--json") == (0, "[]\n", "")
    assert run(capsys, "verify", "plain", "--repo-root", root) == (0, "[PASS] plain: No citations to verify\n", "")
    assert run(capsys, "verify", "empty", "--repo-root", root, "--json") == (
        0,
        '{"memory_id": "empty", "valid": true, "total_citations": 0}\n',
        "",
    )


def test_memory_in_a_subfolder_is_found_by_verify_all(tmp_path, capsys):
    stale = memory("  - path: src/auth.py\n    line: 9\n")
    root = make_repo(tmp_path, {"b.md": VALID, "a/deep/old.md": stale, "c.txt": stale})
    code, out, _ = run(capsys, "verify-all", "--repo-root", root)
    assert code == 1
    assert out.splitlines()[0] == "[FAIL] old: STALE"  # a/deep/old.md sorts before b.md
    assert out.splitlines()[-2:] == ["Summary: 1/2 memories valid", "  1 memory/memories have stale citations"]


def test_unparseable_memory_is_skipped_with_a_warning(tmp_path, capsys):
    root = make_repo(
        tmp_path,
        {"auth.md": VALID, "broken.md": "---\nid: [\n---\n", "listy.md": "---\ncitations: src/auth.py\n---\n"},
    )
    (root / MEMORIES / "latin1.md").write_bytes(b"---\nid: caf\xe9\n---\n")
    code, out, err = run(capsys, "verify-all", "--repo-root", root)
    assert code == 0
    assert out.endswith("Summary: 1/1 memories valid\n")
    warnings = err.splitlines()
    folder = root.resolve() / MEMORIES
    assert warnings == [
        f"Warning: Failed to parse {folder / 'broken.md'}: YAML syntax error: while parsing a flow node; "
        "expected the node content, but found '<stream end>' (line 3, column 1)",
        f"Warning: Failed to parse {folder / 'latin1.md'}: not valid UTF-8: byte 0xe9 at offset 11",
        f"Warning: Failed to parse {folder / 'listy.md'}: citations must be a list, not a string (line 2)",
    ]
    code, out, err = run(capsys, "verify", "broken", "--repo-root", root)
    assert (code, out) == (2, "")
    assert err.startswith(f"Error: Cannot parse {folder / 'broken.md'}: YAML syntax error: ")


# -- verify: finding the memory ------------------------------------------------------------------------

ONE_RESULT = "[PASS] auth-login: VALID\n  Citations: 2/2 valid\n  Confidence: 1.00\n"


def test_verify_by_id_file_name_and_literal_path(tmp_path, capsys, monkeypatch):
    root = make_repo(tmp_path, {"auth.md": VALID, "notes.txt": VALID.replace("auth-login", "notes")})
    assert run(capsys, "verify", "auth", "--repo-root", root) == (0, ONE_RESULT, "")
    assert run(capsys, "verify", "auth.md", "--repo-root", root) == (0, ONE_RESULT, "")
    notes = run(capsys, "verify", "notes.txt", "--repo-root", root)
    assert (notes[0], notes[1].splitlines()[0]) == (0, "[PASS] notes: VALID")
    assert run(capsys, "verify", root / MEMORIES / "auth.md", "--repo-root", root) == (0, ONE_RESULT, "")
    monkeypatch.chdir(root)  # a relative literal path is taken from the current folder, as the reference does
    assert run(capsys, "verify", f"{MEMORIES}/auth.md") == (0, ONE_RESULT, "")
    # a folder is never the memory meant: `verify src` finds src.md although ./src exists
    (root / MEMORIES / "src.md").write_text(VALID)
    assert run(capsys, "verify", "src") == (0, ONE_RESULT, "")


def test_verify_not_found(tmp_path, capsys):
    root = make_repo(tmp_path, {"auth.md": VALID})
    (tmp_path.parent / "elsewhere.md").write_text(VALID)
    expected = f"Error: Memory not found: login. Searched: login, {root.resolve() / MEMORIES / 'login.md'}\n"
    assert run(capsys, "verify", "login", "--repo-root", root) == (2, "", expected)
    # a literal path outside the root, or an id that climbs out of it, is never read
    outside = tmp_path.parent / "elsewhere.md"
    code, out, err = run(capsys, "verify", outside, "--repo-root", root)
    assert (code, out) == (2, "")
    assert err.startswith(f"Error: Memory not found: {outside}. Searched: ")
    code, out, _ = run(capsys, "verify", "../../../elsewhere", "--repo-root", root)
    assert (code, out) == (2, "")


def test_folder_errors(tmp_path, capsys):
    root = make_repo(tmp_path / "repo", {"auth.md": VALID})
    assert run(capsys, "verify-all", "--repo-root", root, "--dir", "..") == (
        2,
        "",
        "Error: Memories directory is outside the repository: ..\n",
    )
    assert run(capsys, "verify", "auth", "--repo-root", root, "--dir", tmp_path) == (
        2,
        "",
        f"Error: Memories directory is outside the repository: {tmp_path}\n",
    )
    assert run(capsys, "verify-all", "--repo-root", root, "--dir", "notes") == (
        2,
        "",
        f"Error: Memories directory not found: {root.resolve() / 'notes'}\n",
    )
    code, out, err = run(capsys, "verify-all", "--repo-root", tmp_path / "missing")
    assert (code, out) == (2, "")
    assert err.startswith("Error: Repository root not found: ")
    code, out, err = run(capsys, "verify-all", "--repo-root", root, "--dir", root / "absent")
    assert (code, out) == (2, "")
    assert err.startswith("Error: Memories directory not found: ")


def test_custom_dir_relative_to_root(tmp_path, capsys, monkeypatch):
    root = make_repo(tmp_path, {})
    (root / "notes").mkdir()
    (root / "notes" / "auth.md").write_text(VALID)
    monkeypatch.chdir(tmp_path.parent)
    assert run(capsys, "verify", "auth", "--repo-root", root, "--dir", "notes") == (0, ONE_RESULT, "")
    assert run(capsys, "verify-all", "--repo-root", root, "--dir", "notes")[0] == 0


# -- JSON ----------------------------------------------------------------------------------------------

STALE = memory(
    "  - path: src/auth.py\n    line: 2\n    snippet: check(user)\n"
    "  - path: src/auth.py\n    line: 3\n    snippet: return session\n"
    "  - path: docs/gone.md\n",
    head="id: pr-review-003\n",
)

STALE_OBJECT = {
    "memory_id": "pr-review-003",
    "valid": False,
    "total_citations": 3,
    "valid_count": 1,
    "confidence": 0.33,
    "stale_citations": [
        {
            "path": "src/auth.py",
            "line": 3,
            "snippet": "return session",
            "mismatch_reason": "Snippet mismatch at line 3. Expected 'return session', got 'return token'",
        },
        {"path": "docs/gone.md", "line": None, "snippet": None, "mismatch_reason": "File not found: docs/gone.md"},
    ],
}

VALID_OBJECT = {
    "memory_id": "auth-login",
    "valid": True,
    "total_citations": 2,
    "valid_count": 2,
    "confidence": 1.0,
    "stale_citations": [],
}


def test_verify_json(tmp_path, capsys):
    root = make_repo(tmp_path, {"pr-review-003.md": STALE})
    code, out, err = run(capsys, "verify", "pr-review-003", "--repo-root", root, "--json")
    assert (code, err) == (1, "")
    assert json.loads(out) == STALE_OBJECT
    assert out == json.dumps(STALE_OBJECT, indent=2) + "\n"
    assert out.startswith('{\n  "memory_id": "pr-review-003",\n  "valid": false,\n  "total_citations": 3,\n')
    assert '      "line": null,\n      "snippet": null,\n' in out


def test_verify_all_json(tmp_path, capsys):
    root = make_repo(tmp_path, {"auth.md": VALID, "pr-review-003.md": STALE, "plain.md": "# none\n"})
    code, out, err = run(capsys, "verify-all", "--repo-root", root, "--json")
    assert (code, err) == (1, "")
    assert json.loads(out) == [VALID_OBJECT, STALE_OBJECT]
    assert out == json.dumps([VALID_OBJECT, STALE_OBJECT], indent=2) + "\n"
    assert run(capsys, "verify-all", "--repo-root", root, "--json", "--dir", "src") == (0, "[]\n", "")


def test_stale_text_matches_the_spec_layout(tmp_path, capsys):
    root = make_repo(tmp_path, {"pr-review-003.md": STALE})
    assert run(capsys, "verify", "pr-review-003", "--repo-root", root) == (
        1,
        "[FAIL] pr-review-003: STALE\n"
        "  Citations: 1/3 valid\n"
        "  Confidence: 0.33\n"
        "  [STALE] src/auth.py:3\n"
        "    Reason: Snippet mismatch at line 3. Expected 'return session', got 'return token'\n"
        "  [STALE] docs/gone.md\n"
        "    Reason: File not found: docs/gone.md\n",
        "",
    )


# -- what the reference got wrong ----------------------------------------------------------------------


def test_wrong_field_types_are_stale_not_a_crash(tmp_path, capsys):
    root = make_repo(
        tmp_path,
        {
            "typed.md": memory(
                '  - path: src/auth.py\n    line: "2"\n'
                "  - path: 42\n"
                "  - path: src/auth.py\n    line: 1\n    snippet: 7\n"
                "  - just-a-string\n"
                "  - line: 1\n"
                "  - path: src/auth.py\n"
            )
        },
    )
    code, out, err = run(capsys, "verify", "typed", "--repo-root", root)
    assert (code, err) == (1, "")
    assert out == (
        "[FAIL] typed: STALE\n"
        "  Citations: 1/6 valid\n"
        "  Confidence: 0.17\n"
        "  [STALE] src/auth.py:2\n"
        "    Reason: Invalid citation: line must be an integer, not a string\n"
        "  [STALE] 42\n"
        "    Reason: Invalid citation: path must be a string, not an integer\n"
        "  [STALE] src/auth.py:1\n"
        "    Reason: Invalid citation: snippet must be a string, not an integer\n"
        "  [STALE] \n"
        "    Reason: Invalid citation: a citation must be a mapping, not a string\n"
        "  [STALE] :1\n"
        "    Reason: Invalid citation: path is missing\n"
    )
    code, out, _ = run(capsys, "verify", "typed", "--repo-root", root, "--json")
    stale = json.loads(out)["stale_citations"]
    assert stale[0] == {
        "path": "src/auth.py",
        "line": "2",
        "snippet": None,
        "mismatch_reason": "Invalid citation: line must be an integer, not a string",
    }
    assert [item["path"] for item in stale] == ["src/auth.py", 42, "src/auth.py", None, None]


def test_bom_and_crlf_memory_file(tmp_path, capsys):
    root = make_repo(tmp_path, {})
    text = VALID.replace("\n", "\r\n")
    (root / MEMORIES).mkdir(parents=True)
    (root / MEMORIES / "auth.md").write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    assert run(capsys, "verify", "auth", "--repo-root", root) == (0, ONE_RESULT, "")
    assert run(capsys, "verify-all", "--repo-root", root)[0] == 0


def test_crlf_cited_file_still_matches(tmp_path, capsys):
    cited = {"src/auth.py": SOURCE.replace("\n", "\r\n")}
    mem = memory("  - path: src/auth.py\n    line: 3\n    snippet: return token\n", head="id: crlf\n")
    root = make_repo(tmp_path, {"crlf.md": mem}, cited)
    assert run(capsys, "verify", "crlf", "--repo-root", root) == (
        0,
        "[PASS] crlf: VALID\n  Citations: 1/1 valid\n  Confidence: 1.00\n",
        "",
    )
    # the length counts lines, not line ends: line 4 of a three-line CRLF file is past its end
    root = make_repo(tmp_path / "two", {"crlf.md": mem.replace("line: 3", "line: 4")}, cited)
    code, out, _ = run(capsys, "verify", "crlf", "--repo-root", root)
    assert code == 1
    assert "    Reason: Line 4 exceeds file length (3)\n" in out


@pytest.mark.skipif(not hasattr(os, "symlink") or sys.platform == "win32", reason="needs symlinks")
def test_unusual_paths_do_not_crash(tmp_path, capsys):
    root = make_repo(
        tmp_path,
        {"odd.md": memory('  - path: loop\n  - path: "a\\0b"\n  - path: ' + "x" * 300 + "\n  - path: link/secret.txt\n")},
    )
    os.symlink("loop", root / "loop")
    (tmp_path.parent / f"{tmp_path.name}-secret").mkdir()
    (tmp_path.parent / f"{tmp_path.name}-secret" / "secret.txt").write_text("x\n")
    os.symlink(tmp_path.parent / f"{tmp_path.name}-secret", root / "link")
    code, out, err = run(capsys, "verify-all", "--repo-root", root)
    assert (code, err) == (1, "")
    reasons = [line.strip() for line in out.splitlines() if "Reason:" in line]
    assert reasons == [
        "Reason: File not found: loop",
        "Reason: File not found: a\0b",
        f"Reason: File not found: {'x' * 300}",
        "Reason: Path traversal blocked: link/secret.txt",
    ]


def test_confidence_without_citations_is_the_memory_own():
    from pytest_citations.kinds.memories.cli import result_of
    from pytest_citations.kinds.memories.memory import read_memory

    own = result_of(read_memory("a.md", "---\nconfidence: 0.8\n---\n"), [])
    assert (own.valid, own.total_citations, own.confidence) == (True, 0, 0.8)
    assert result_of(read_memory("a.md", "# none\n"), []).confidence == 0.5


def test_usage_errors_exit_2(capsys):
    assert main(["memory"]) == 2
    assert "verify-all" in capsys.readouterr().out
    with pytest.raises(SystemExit) as usage:
        main(["memory", "verify"])
    assert usage.value.code == 2


def test_module_entry_point(tmp_path):
    root = make_repo(tmp_path, {"auth.md": VALID, "pr-review-003.md": STALE})
    env = {**os.environ, "PYTHONPATH": str(PROJECT)}
    done = subprocess.run(
        [sys.executable, "-m", "pytest_citations", "memory", "verify-all", "--repo-root", str(root)],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    assert done.returncode == 1, done.stderr
    assert done.stderr == ""
    assert done.stdout.startswith(ONE_RESULT + "\n[FAIL] pr-review-003: STALE\n")
    assert done.stdout.endswith("Summary: 1/2 memories valid\n  1 memory/memories have stale citations\n")


def test_real_memory_file_from_the_reference_project(realdata, capsys):
    """The reference project's own memory parses; its cited files are not in the stored copy."""
    code, out, err = run(capsys, "verify-all", "--repo-root", realdata / "ai-agents", "--json")
    assert (code, err) == (1, "")
    (result,) = json.loads(out)
    assert (result["memory_id"], result["total_citations"], result["valid_count"]) == ("test-citation-verification", 2, 0)
    assert [item["mismatch_reason"] for item in result["stale_citations"]] == [
        "File not found: pyproject.toml",
        "File not found: .claude/skills/memory-enhancement/src/memory_enhancement/models.py",
    ]


def _moved_memory(root: Path) -> Path:
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("import os\n\ndef login():\n    pass\n")
    memories = root / ".serena" / "memories"
    memories.mkdir(parents=True)
    path = memories / "auth.md"
    path.write_text("---\nid: auth\ncitations:\n  - path: src/app.py\n    line: 1\n    snippet: def login\n---\n# Auth\n")
    return path


PASSED_AUTH = "[PASS] auth: VALID\n  Citations: 1/1 valid\n  Confidence: 1.00\n\nSummary: 1/1 memories valid\n"


def test_verify_all_fix_moves_lines_and_stamps_nothing(tmp_path, capsys):
    memory = _moved_memory(tmp_path)
    code, out, err = run(capsys, "verify-all", "--repo-root", tmp_path, "--fix")
    assert (code, out) == (0, PASSED_AUTH)
    assert err == "citations: applied 1 fix in 1 file\n  .serena/memories/auth.md: 1 fix\n"
    assert memory.read_text() == (
        "---\nid: auth\ncitations:\n  - path: src/app.py\n    line: 3\n    snippet: def login\n---\n# Auth\n"
    )


def test_verify_all_fix_refresh_verified_moves_lines_and_records_verification(tmp_path, capsys, monkeypatch):
    from pytest_citations.kinds.memories import refresh as memory_refresh

    monkeypatch.setattr(memory_refresh, "utc_now", lambda: "2026-11-22T10:00:00Z")
    memory = _moved_memory(tmp_path)
    code, out, err = run(capsys, "verify-all", "--repo-root", tmp_path, "--fix", "--refresh-verified")
    assert (code, out) == (0, PASSED_AUTH)
    assert err == (
        "citations: applied 1 fix in 1 file, refreshed verification stamps in 1 file\n"
        "  .serena/memories/auth.md: 1 fix, verification stamps refreshed\n"
    )
    assert memory.read_text() == (
        "---\nid: auth\ncitations:\n  - path: src/app.py\n    line: 3\n    snippet: def login\n"
        "    verified: 2026-11-22T10:00:00Z\nconfidence: 1.0\nlast_verified: 2026-11-22T10:00:00Z\n---\n# Auth\n"
    )


def test_refresh_verified_without_fix_is_an_error(tmp_path, capsys):
    memory = _moved_memory(tmp_path)
    before = memory.read_bytes()
    code, out, err = run(capsys, "verify-all", "--repo-root", tmp_path, "--refresh-verified")
    assert (code, out) == (2, "")
    assert err == "Error: --refresh-verified records verification while fixing: add --fix\n"
    assert memory.read_bytes() == before


# -- one verdict with `citations check`, and a crash contained -------------------------------------------------------

VERIFICATION = ("M206", "M207", "M208", "M209", "M210", "M211")
CHECK_SUFFIX = re.compile(r" \((moved to line \d+|found at lines [\d, ]+: update line by hand)\)$")


def test_verify_all_and_check_agree_on_which_citations_are_stale(tmp_path, capsys):
    (tmp_path / "outside.py").write_text(SOURCE)
    stale = {
        "traversal.md": "  - path: ../outside.py\n",
        "gone.md": "  - path: src/gone.py\n    line: 3\n",
        "binary.md": "  - path: assets/logo.bin\n    line: 1\n",
        "zero.md": "  - path: src/auth.py\n    line: 0\n",
        "past-end.md": "  - path: src/auth.py\n    line: 4\n",
        "moved.md": "  - path: src/auth.py\n    line: 1\n    snippet: return token\n",
        "twice.md": "  - path: src/twice.py\n    line: 1\n    snippet: pass\n",
        "typed.md": '  - path: src/auth.py\n    line: "2"\n',
    }
    root = make_repo(
        tmp_path / "repo",
        {"auth.md": VALID, **{name: memory("  - path: src/auth.py\n    line: 2\n" + cited) for name, cited in stale.items()}},
        {"assets/logo.bin": b"\x89PNG\r\n\x1a\n", "src/twice.py": "x = 1\npass\npass\n",
         "pyproject.toml": "[tool.citations]\n"},
    )
    assert main(["check", str(root), "--no-cache", "--format", "json"]) == 1
    found = json.loads(capsys.readouterr().out)["diagnostics"]
    from_check = sorted(
        (Path(d["path"]).stem, CHECK_SUFFIX.sub("", d["message"])) for d in found if d["code"] in VERIFICATION
    )
    assert main(["memory", "verify-all", "--repo-root", str(root), "--json"]) == 1
    from_verify_all = sorted(
        (result["memory_id"], item["mismatch_reason"])
        for result in json.loads(capsys.readouterr().out)
        for item in result["stale_citations"]
        if not item["mismatch_reason"].startswith("Invalid citation")  # the schema rule's (M205), not a verdict
    )
    assert from_verify_all == from_check
    assert {stem for stem, _ in from_check} == {Path(name).stem for name in stale} - {"typed"}


@pytest.fixture
def crashing_rule(monkeypatch):
    """Verification that raises on a citation of ``src/crash.py``, as a bug in a rule would."""
    import importlib

    # the module as the engine imports it (an in-process pytest run may have left a stale copy)
    verification = importlib.import_module("pytest_citations.kinds.memories.verification")
    real = verification.verify_citation

    def verify(root, citation, *args, **kwargs):
        if citation.path == "src/crash.py":
            raise TypeError("boom")
        return real(root, citation, *args, **kwargs)

    monkeypatch.setattr(verification, "verify_citation", verify)


CRASH = "internal error in rule M206 (citation-path-traversal): TypeError: boom"


@pytest.mark.parametrize("flags", [[], ["--json"]], ids=["text", "json"])
def test_a_rule_that_raises_during_verify_all_is_contained(tmp_path, capsys, crashing_rule, flags):
    root = make_repo(tmp_path, {"auth.md": VALID, "crash.md": memory("  - path: src/crash.py\n")})
    code, out, err = run(capsys, "verify-all", "--repo-root", root, *flags)
    assert code == 2  # an error: a memory was not verified
    assert err == f"Warning: Failed to verify {root.resolve() / MEMORIES / 'crash.md'}: {CRASH}\n"
    if flags:
        assert json.loads(out) == [VALID_OBJECT]
    else:
        assert out == ONE_RESULT + "\nSummary: 1/1 memories valid\n"


def test_a_rule_that_raises_during_verify_is_an_error(tmp_path, capsys, crashing_rule):
    root = make_repo(tmp_path, {"crash.md": memory("  - path: src/crash.py\n")})
    assert run(capsys, "verify", "crash", "--repo-root", root) == (
        2, "", f"Error: Cannot verify {root.resolve() / MEMORIES / 'crash.md'}: {CRASH}\n"
    )


def test_a_front_matter_reader_that_raises_is_a_parse_warning(tmp_path, capsys, monkeypatch):
    import importlib

    frontmatter = importlib.import_module("pytest_citations.core.frontmatter")
    real = frontmatter.parse

    def parse(text, *args, **kwargs):
        if "explode" in text:
            raise ValueError("cannot\n  read this")
        return real(text, *args, **kwargs)

    monkeypatch.setattr(frontmatter, "parse", parse)
    root = make_repo(tmp_path, {"auth.md": VALID, "odd.md": "---\nid: explode\n---\n"})
    code, out, err = run(capsys, "verify-all", "--repo-root", root)
    assert (code, out) == (0, ONE_RESULT + "\nSummary: 1/1 memories valid\n")
    assert err == f"Warning: Failed to parse {root.resolve() / MEMORIES / 'odd.md'}: ValueError: cannot read this\n"

"""The pre-commit hook, run from .pre-commit-hooks.yaml the way pre-commit runs it, in temporary git
repositories whose staged changes rename, delete and add cited files and memories."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from test_changed_only import MEMORIES, WARM_OR_NOT, git, write_memory

from conftest import PROJECT, TEST_FOLDERS

# What pre-commit hands a hook, as it lists them: the staged files, deletions left out (pre-commit's
# own filter), or with --all-files every tracked file.
STAGED_FILES = ["diff", "--staged", "--name-only", "--diff-filter=ACMRTUXB", "-z"]
ALL_FILES = ["ls-files", "-z"]
DIAGNOSTIC = re.compile(r"^(?P<path>[^ ].*?):[0-9]+:[0-9]+: (?P<code>[A-Z][0-9]{3}) ")


def declared_hook() -> dict:
    from ruamel.yaml import YAML

    (hook,) = YAML(typ="safe").load((PROJECT / ".pre-commit-hooks.yaml").read_text())
    return hook


def files_pre_commit_passes(root: Path, hook: dict, listing: list[str]) -> list[str]:
    """The file names pre-commit appends to the hook's command: those git lists (run with the
    environment git gave the hook, such as the index of a `git commit -a`), that are regular files
    and match the hook's `files` and `exclude` patterns; none when the hook takes no file names."""
    if not hook.get("pass_filenames", True):
        return []
    out = subprocess.run(["git", *listing], cwd=root, capture_output=True, check=True).stdout
    names = [name for name in out.decode().split("\0") if name]
    assert hook.get("types", ["file"]) == ["file"]  # the one type filter this helper knows
    files, exclude = re.compile(hook.get("files", "")), re.compile(hook.get("exclude", "^$"))
    return [name for name in names if files.search(name) and not exclude.search(name)
            and (root / name).is_file() and not (root / name).is_symlink()]


def run_hook(root: Path, listing: list[str] = STAGED_FILES) -> subprocess.CompletedProcess | None:
    """Run the hook as pre-commit does, from the top of the work tree; None when pre-commit would
    skip it ("no files to check": no file names for it, and it does not always run)."""
    hook = declared_hook()
    names = files_pre_commit_passes(root, hook, listing)
    if not names and not hook.get("always_run", False):
        return None
    program, *arguments = shlex.split(hook["entry"])
    assert program == "citations"  # the console script; `python -m pytest_citations` is the same program
    command = [sys.executable, "-m", "pytest_citations", *arguments, *hook.get("args", []), *names]
    return subprocess.run(command, cwd=root, capture_output=True, text=True)


def findings(result: subprocess.CompletedProcess | None) -> list[tuple[str, str]]:
    """(code, path) of each diagnostic the hook printed (``path:line:col: CODE message``), sorted;
    none when it was skipped."""
    if result is None:
        return []
    lines = result.stdout.splitlines()
    return sorted((found["code"], found["path"]) for found in map(DIAGNOSTIC.match, lines) if found)


def exit_status(result: subprocess.CompletedProcess | None) -> int:
    return 0 if result is None else result.returncode


def commit_all(root: Path) -> None:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "work")


ODD = "src/a b \"ü\" é.py"  # spaces, quotes and letters git quotes unless asked for NUL-separated names


@pytest.fixture
def repo(tmp_path):
    """A committed repository: src/b.py cited by the memory m_b and by a code tuple, an odd name
    cited by m_odd, vendor/lib.py (excluded from checks) cited by m_vendor, and the memory `target`
    (no id field: its file name is its id) linked to by `linker`."""
    root = tmp_path / "repo"
    (root / MEMORIES).mkdir(parents=True)
    (root / "src").mkdir()
    (root / "vendor").mkdir()
    (root / "archive").mkdir()
    (root / "pyproject.toml").write_text('[tool.citations]\nexclude = ["vendor/**", "archive/**"]\n')
    (root / ".gitignore").write_text(".citations_cache/\n")
    (root / "README.md").write_text("# A project\n")
    for rel in ("src/a.py", "src/b.py", ODD, "vendor/lib.py"):
        (root / rel).write_text("def f():\n    pass\n")
    for name, cited in (("m_a", "src/a.py"), ("m_b", "src/b.py"), ("m_odd", ODD), ("m_vendor", "vendor/lib.py")):
        citation = f'  - path: {json.dumps(cited)}\n    line: 1\n    snippet: "def f"\n'
        (root / MEMORIES / f"{name}.md").write_text(f"---\nid: {name}\ncitations:\n{citation}---\n\n# {name}\n")
    (root / MEMORIES / "target.md").write_text("---\ncitations: []\n---\n\n# The target\n")
    (root / MEMORIES / "linker.md").write_text("---\nid: linker\nlinks:\n  - related: target\n---\n\n# linker\n")
    (root / "archive" / "old.md").write_text("---\nid: old\ncitations: []\n---\n\n# Archived\n")
    from pytest_citations.core.git_history import content_hash

    hash_of_b = content_hash((root / "src" / "b.py").read_bytes())
    tuple_of_b = {"artifact_id": "src/b.py", "content_hash": hash_of_b, "lines": "L1"}
    (root / "findings.jsonl").write_text(json.dumps({"finding": "b exists", "citations": [tuple_of_b]}) + "\n")
    git(root, "init", "-q", "-b", "main")
    commit_all(root)
    return root


def warm_up(root: Path, warm: bool) -> None:
    """With ``warm``, a full check first, so that the hook chooses from what the cache recorded."""
    if warm:
        command = [sys.executable, "-m", "pytest_citations", "check"]
        result = subprocess.run(command, cwd=root, capture_output=True, text=True)
        assert result.returncode == 0, result.stdout + result.stderr


def test_the_hook_is_declared_to_run_on_deletions_alone():
    hook = declared_hook()
    assert hook["always_run"] is True  # pre-commit would skip it when a commit only deletes files
    assert "--staged" in shlex.split(hook["entry"])
    assert hook["require_serial"] is True  # one run sees every change (pre-commit splits long lists)


@WARM_OR_NOT
def test_a_renamed_cited_file_fails_the_hook(repo, warm):
    warm_up(repo, warm)
    git(repo, "mv", "src/b.py", "src/c.py")
    result = run_hook(repo)
    assert exit_status(result) == 1
    assert findings(result) == [("M207", f"{MEMORIES}/m_b.md"), ("R406", "findings.jsonl")]
    assert "M207 File not found: src/b.py" in result.stdout


@WARM_OR_NOT
def test_a_deleted_cited_file_fails_the_hook(repo, warm):
    warm_up(repo, warm)
    git(repo, "rm", "-q", "src/b.py")
    result = run_hook(repo)
    assert exit_status(result) == 1
    assert findings(result) == [("M207", f"{MEMORIES}/m_b.md"), ("R406", "findings.jsonl")]


def test_a_staged_change_that_affects_nothing_passes_and_says_so(repo):
    (repo / "README.md").write_text("# A project, renamed\n")
    (repo / "src" / "b.py").write_text("def f():\n    return 2\n")  # changed, but not staged
    git(repo, "add", "README.md")
    result = run_hook(repo)
    assert exit_status(result) == 0
    assert findings(result) == []
    assert "no artifact file is affected by the changes" in result.stderr


def test_nothing_staged_passes_and_says_so(repo):
    result = run_hook(repo)
    assert exit_status(result) == 0
    assert result is not None and "no artifact file is affected by the changes" in result.stderr


@WARM_OR_NOT
def test_a_renamed_memory_breaks_the_links_to_it(repo, warm):
    """`target` has no id field: renamed, its id changes, and `linker` links to nothing."""
    warm_up(repo, warm)
    git(repo, "mv", f"{MEMORIES}/target.md", f"{MEMORIES}/renamed.md")
    result = run_hook(repo)
    assert exit_status(result) == 1
    assert findings(result) == [("M213", f"{MEMORIES}/linker.md")]


@WARM_OR_NOT
def test_a_deleted_cited_file_inside_an_excluded_folder_fails_the_hook(repo, warm):
    """Excludes say which files are checked, not which may be cited: m_vendor cites a file of the
    excluded vendor/ folder, and its deletion must still reach the hook's check."""
    warm_up(repo, warm)
    git(repo, "rm", "-q", "vendor/lib.py")
    result = run_hook(repo)
    assert exit_status(result) == 1
    assert findings(result) == [("M207", f"{MEMORIES}/m_vendor.md")]


def test_a_deleted_memory_inside_an_excluded_folder_is_not_checked(repo):
    git(repo, "rm", "-q", "archive/old.md")
    result = run_hook(repo)
    assert exit_status(result) == 0
    assert findings(result) == []


@WARM_OR_NOT
def test_a_deleted_file_with_an_odd_name(repo, warm):
    warm_up(repo, warm)
    git(repo, "rm", "-q", ODD)
    result = run_hook(repo)
    assert exit_status(result) == 1
    assert findings(result) == [("M207", f"{MEMORIES}/m_odd.md")]


def test_a_renamed_file_with_an_odd_name_checks_the_memory_citing_its_new_name(repo):
    """A memory added with the rename cites the new name: it is checked (and passes), and the
    memory citing the old name fails."""
    git(repo, "mv", ODD, "src/ü nouveau.py")
    write_memory(repo, "m_new", "src/ü nouveau.py")  # its snippet is nowhere: M211 shows it was checked
    git(repo, "add", MEMORIES)
    result = run_hook(repo)
    assert exit_status(result) == 1
    assert findings(result) == [("M207", f"{MEMORIES}/m_odd.md"), ("M211", f"{MEMORIES}/m_new.md")]


def test_the_hook_run_with_all_files_checks_every_artifact(repo):
    """`pre-commit run --all-files` hands every tracked file to the hook: a problem no staged
    change caused is found too."""
    (repo / "vendor" / "lib.py").unlink()  # deleted, and nothing staged
    assert findings(run_hook(repo)) == []
    result = run_hook(repo, ALL_FILES)
    assert exit_status(result) == 1
    assert findings(result) == [("M207", f"{MEMORIES}/m_vendor.md")]


def test_git_commit_with_the_hook_installed_refuses_a_commit_that_deletes_a_cited_file(repo):
    """The hook as a git pre-commit hook, run by `git commit -a`: the deletion is in the index that
    git names for the commit (GIT_INDEX_FILE), not yet in the repository's index."""
    script = repo.parent / "run_hook.py"
    script.write_text(
        "import sys\n"
        f"sys.path[:0] = {[str(folder) for folder in TEST_FOLDERS]!r}\n"
        "from pathlib import Path\n"
        "from test_precommit_hook import exit_status, run_hook\n"
        "result = run_hook(Path.cwd())\n"
        "sys.stdout.write(result.stdout if result else '')\n"
        "sys.exit(exit_status(result))\n"
    )
    hook = repo / ".git" / "hooks" / "pre-commit"
    hook.write_text(f"#!/bin/sh\nexec {shlex.quote(sys.executable)} {shlex.quote(str(script))}\n")
    hook.chmod(0o755)
    head = git(repo, "rev-parse", "HEAD")
    (repo / "src" / "b.py").unlink()
    with pytest.raises(subprocess.CalledProcessError) as refused:
        git(repo, "commit", "-q", "-a", "-m", "drop b")
    assert "M207 File not found: src/b.py" in refused.value.stdout + refused.value.stderr
    assert git(repo, "rev-parse", "HEAD") == head
    (repo / "src" / "b.py").write_text("def f():\n    pass\n")
    (repo / "README.md").write_text("# Another title\n")
    git(repo, "commit", "-q", "-a", "-m", "retitle")  # the hook passes: nothing cited changed
    assert git(repo, "rev-parse", "HEAD") != head


def test_affected_by_named_files_still_works_by_hand(repo, capsys, monkeypatch):
    """--affected-by, for people who call it by hand, checks what the named files affect, a
    deleted one included."""
    from pytest_citations.frontends.cli import main

    monkeypatch.chdir(repo)
    (repo / "src" / "b.py").unlink()
    assert main(["check", "--affected-by", "src/b.py", "--format", "json", "--no-cache"]) == 1
    diagnostics = json.loads(capsys.readouterr().out)["diagnostics"]
    assert [(d["code"], d["path"]) for d in diagnostics] == [("M207", f"{MEMORIES}/m_b.md"), ("R406", "findings.jsonl")]


def test_the_entry_names_the_console_script_the_package_declares():
    """pre-commit runs `entry` in the environment it installs the package into; the tests run
    `python -m pytest_citations` instead, which is the same program."""
    from pytest_citations.core.config import tomllib

    scripts = tomllib.loads((PROJECT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts[shlex.split(declared_hook()["entry"])[0]] == "pytest_citations.frontends.cli:main"


def test_the_documented_pin_is_one_pre_commit_can_fetch():
    """docs/usage.md pins either a full commit id or a tag the repository has: a tag that does not
    exist fails pre-commit with "pathspec ... did not match"."""
    usage = (PROJECT / "docs" / "usage.md").read_text(encoding="utf-8")
    pins = re.findall(r"^\s+rev:\s*(\S+)", usage, re.M)
    assert pins
    tags = set(subprocess.run(["git", "tag"], cwd=PROJECT, capture_output=True, text=True).stdout.split())
    assert [pin for pin in pins if not re.fullmatch(r"[0-9a-f]{40}", pin) and pin not in tags] == []

"""The documented ways to run the checker run no code from the checkout (issue 18, N11).

``python -m MODULE`` puts the current folder first on sys.path, and a CI gate runs in the checkout:
a committed ``pytest_citations/__main__.py`` ran instead of the checker and printed a pass. Every
``python -m`` the documentation and the action give to run on a checkout carries ``-I``
(isolated mode, from Python 3.4 on: the current folder is never on sys.path; ``-P`` and
``PYTHONSAFEPATH`` exist from 3.11 only), and the console scripts (``citations``, the pre-commit
hook's entry) have their own folder first, never the current one.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from conftest import PROJECT

# `python -m MODULE` for the modules a user runs on a checkout (not the project's own tools, such
# as `python -m pytest_citations.builtins`, run in this repository)
PYTHON_M = re.compile(r"\bpython3?((?:\s+-[A-Za-z]+)*)\s+-m\s+(pytest_citations|pip|pytest)\b(?![.\w])")
DOCUMENTS = ["README.md", "action.yml", ".pre-commit-hooks.yaml", *sorted(p.relative_to(PROJECT).as_posix() for p in (PROJECT / "docs").glob("*.md"))]


def documented_python_m() -> list[tuple[str, int, str, str]]:
    """(document, line, flags, module) of each ``python -m`` the documents give."""
    found = []
    for name in DOCUMENTS:
        path = PROJECT / name
        if not path.is_file():
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            found.extend((name, number, match[1].strip(), match[2]) for match in PYTHON_M.finditer(line))
    return found


def test_every_documented_python_m_is_isolated():
    found = documented_python_m()
    assert {module for *_, module in found} >= {"pytest_citations", "pip"}  # README and the action give them
    assert [(name, line) for name, line, flags, _ in found if "-I" not in flags.split()] == []


def a_checker_committed_in(repo: Path, marker: Path) -> None:
    """A ``pytest_citations`` package in the checkout that records that it ran and prints a pass,
    and a ``json`` module (one the checker imports) that records that it ran."""
    package = repo / "pytest_citations"
    package.mkdir()
    record = f"open({str(marker)!r}, 'a').write(__name__ + '\\n')\n"
    (package / "__init__.py").write_text(record)
    (package / "__main__.py").write_text(record + "print('All checks passed!')\n")
    (repo / "json.py").write_text(record)


def documented_commands() -> list[list[str]]:
    """Each documented way to run ``citations check``: the ``python -m pytest_citations`` forms
    (with their flags), and the console script, which the pre-commit hook and the action run."""
    hook = YAML(typ="safe").load((PROJECT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))[0]
    assert hook["language"] == "python" and shlex.split(hook["entry"])[0] == "citations"
    forms = {flags for _, _, flags, module in documented_python_m() if module == "pytest_citations"}
    return [[sys.executable, *flags.split(), "-m", "pytest_citations"] for flags in sorted(forms)] + [["citations"]]


@pytest.mark.parametrize("command", documented_commands(), ids=lambda command: " ".join([Path(command[0]).name, *command[1:]]))
def test_a_documented_command_runs_no_checker_committed_in_the_checkout(tmp_path, command):
    repo, marker = tmp_path / "repo", tmp_path / "ran"
    shutil.copytree(PROJECT / "fixtures" / "example-repo", repo)
    a_checker_committed_in(repo, marker)
    if command == ["citations"]:
        script = shutil.which("citations", path=str(Path(sys.executable).parent))
        if script is None:
            pytest.skip("the console script is not installed next to this Python")
        command = [script]
    done = subprocess.run([*command, "check", "--no-cache"], cwd=repo, capture_output=True, text=True)
    assert not marker.exists(), marker.read_text()
    assert done.returncode == 1 and "All checks passed" not in done.stdout, done.stdout + done.stderr
    assert "research-runs/" in done.stdout  # the example repository's findings

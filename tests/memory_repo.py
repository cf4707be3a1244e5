"""A small repository of memories citing two source files, for tests of the result cache, and
``citations check`` run on it."""

from __future__ import annotations

import json
import os
import time

MEMORIES = 24
CITING_A = range(0, MEMORIES, 6)  # the memories that cite src/a.py (the others cite src/b.py)


def memory(number: int, memory_id: str | None = None) -> str:
    path, snippet = ("src/a.py", "def alpha():") if number in CITING_A else ("src/b.py", "def beta():")
    return (f'---\nid: {memory_id or f"m{number}"}\ncitations:\n  - path: {path}\n    line: 1\n'
            f'    snippet: "{snippet}"\n---\n\n# m{number}\n')


def make_repo(tmp_path):
    root = tmp_path / "repo"
    (root / ".serena" / "memories").mkdir(parents=True)
    (root / "src").mkdir()
    (root / "pyproject.toml").write_text("[tool.citations]\n")
    (root / "src" / "a.py").write_text("def alpha():\n    return 1\n")
    (root / "src" / "b.py").write_text("def beta():\n    return 2\n")
    for number in range(MEMORIES):
        (root / ".serena" / "memories" / f"m{number}.md").write_text(memory(number))
    for path in root.rglob("*"):  # out of the racy window, as files checked out a while ago
        os.utime(path, (time.time() - 10, time.time() - 10))
    return root


def check(capsys, root):
    """(diagnostics as (path, code), files served from the cache) of ``citations check root``."""
    from pytest_citations.frontends.cli import main

    main(["check", str(root), "--format", "json", "-v"])
    captured = capsys.readouterr()
    hits = int(captured.err.split(" checked, ")[1].split(" from the cache")[0])
    return sorted((d["path"], d["code"]) for d in json.loads(captured.out)["diagnostics"]), hits

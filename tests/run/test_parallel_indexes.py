"""``-j``: the shares of a run-wide index computed by workers give the index, and the answer, a
serial run gives; with a result cache, what the workers wrote serves the next run."""

from __future__ import annotations

import json
import shutil

import pytest

from conftest import PROJECT
from pytest_citations.frontends.cli import main
from pytest_citations.run import parallel

MEMORIES = ".serena/memories"


def memory(root, name: str, front: str, body: str = "") -> None:
    (root / MEMORIES / f"{name}.md").write_text(f"---\n{front}---\n\n# {name}\n{body}")


@pytest.fixture
def repo(tmp_path):
    """Memories whose index matters: duplicate ids, supersedes cycles, links to ids that exist and
    to ids that do not, memories that cannot be read or parsed, and enough plain ones to share out."""
    root = tmp_path / "repo"
    (root / MEMORIES / "deep").mkdir(parents=True)
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("def login():\n    return True\n")
    for number in range(40):
        links = f"links:\n  - related: m{number + 1}\n" if number % 3 else "links:\n  - supersedes: gone\n"
        memory(root, f"m{number}", f"id: m{number}\n{links}citations:\n  - path: src/app.py\n    line: 1\n"
                                   f"    snippet: \"{'def login' if number % 7 else 'def logout'}\"\n")
    memory(root, "a", "id: a\nlinks:\n  - supersedes: b\n")
    memory(root, "b", "id: b\nlinks:\n  - supersedes: c\n")
    memory(root, "c", "links:\n  - supersedes: a\n")  # its id is its file name
    memory(root, "twin", "id: m5\n")
    (root / MEMORIES / "deep" / "m6.md").write_text("---\nsubject: the id comes from the name\n---\n")
    memory(root, "broken", "id: [unclosed\nlinks:\n  - related: m1\n")
    (root / MEMORIES / "latin1.md").write_bytes(b"---\nid: caf\xe9\n---\n")
    memory(root, "aliased", "id: &x named\nlinks:\n  - supersedes: *x\n  - related: named\n")
    return root


def run(capsys, *args) -> tuple[int, str, str]:
    code = main(["check", *map(str, args), "--format", "json"])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture(params=[1, 10**9], ids=["first-task-in-parent", "every-task-in-workers"])
def shares_in_workers(monkeypatch, request):
    """Every claim and every index share computed by a worker, however few there are; the first
    task checked by the parent before forking, or not."""
    monkeypatch.setattr(parallel, "MIN_FILES_TO_CLAIM_IN_WORKERS", 1)
    monkeypatch.setattr(parallel, "MIN_SHARES_IN_WORKERS", 1)
    monkeypatch.setattr(parallel, "MIN_TASKS_TO_CHECK_ONE_FIRST", request.param)


@pytest.mark.skipif(not parallel.available(), reason="no fork on this platform")
@pytest.mark.usefixtures("shares_in_workers")
def test_index_shares_from_workers_give_the_serial_answer(repo, capsys):
    serial = run(capsys, repo, "--no-cache")
    codes = {d["code"] for d in json.loads(serial[1])["diagnostics"]}
    assert {"M211", "M213", "M214", "M215"} <= codes  # the index is what these rules read
    assert run(capsys, repo, "--no-cache", "-j", "2")[:2] == serial[:2]
    assert run(capsys, repo, "--no-cache", "-j", "3")[:2] == serial[:2]


@pytest.mark.skipif(not parallel.available(), reason="no fork on this platform")
@pytest.mark.usefixtures("shares_in_workers")
def test_index_shares_and_results_from_workers_fill_the_cache(repo, capsys):
    serial = run(capsys, repo, "--no-cache")
    files = json.loads(serial[1])["files_checked"]
    first = run(capsys, repo, "-j", "2", "-v")
    assert first[:2] == serial[:2] and f"{files} files checked, 0 from the cache" in first[2]
    again = run(capsys, repo, "-j", "2", "-v")
    assert again[:2] == serial[:2] and f"{files} files checked, {files} from the cache" in again[2]
    # a memory's id changes: the index changes, and every memory that consulted it is checked again
    memory(repo, "twin", "id: twin\n")
    changed_serial = run(capsys, repo, "--no-cache")
    assert changed_serial[1] != serial[1]
    assert run(capsys, repo, "-j", "2")[:2] == changed_serial[:2]


@pytest.mark.skipif(not parallel.available(), reason="no fork on this platform")
@pytest.mark.usefixtures("shares_in_workers")
@pytest.mark.parametrize("fixture", ["memory-repo", "example-repo"])
def test_fixtures_give_the_serial_answer_with_shares_from_workers(fixture, tmp_path, capsys):
    root = tmp_path / fixture
    shutil.copytree(PROJECT / "fixtures" / fixture, root)
    assert run(capsys, root, "--no-cache", "-j", "2")[:2] == run(capsys, root, "--no-cache")[:2]


@pytest.mark.skipif(not parallel.available(), reason="no fork on this platform")
@pytest.mark.usefixtures("shares_in_workers")
def test_a_nested_root_has_its_own_index_from_workers(repo, capsys):
    """A folder with settings of its own is another root, whose memories make another index: an
    id declared in both roots is a duplicate in neither, and a link resolves within its root."""
    nested = repo / "sub"
    (nested / MEMORIES).mkdir(parents=True)
    (nested / "pyproject.toml").write_text("[tool.citations]\n")
    memory(nested, "m5", "id: m5\nlinks:\n  - related: m1\n")
    memory(nested, "local", "id: local\nlinks:\n  - related: m5\n")
    serial = run(capsys, repo, "--no-cache")
    shown = {(d["path"], d["code"]) for d in json.loads(serial[1])["diagnostics"]}
    assert ("sub/.serena/memories/m5.md", "M213") in shown and ("sub/.serena/memories/m5.md", "M214") not in shown
    assert run(capsys, repo, "--no-cache", "-j", "2")[:2] == serial[:2]


@pytest.mark.skipif(not parallel.available(), reason="no fork on this platform")
@pytest.mark.usefixtures("shares_in_workers")
@pytest.mark.parametrize("fixture", sorted(path.name for path in (PROJECT / "fixtures").iterdir() if path.is_dir()))
def test_claims_from_workers_plan_what_a_serial_walk_plans(fixture):
    """Which kinds claim each file (by path or by its head), worked out by workers, as the parent
    works it out, for every kind's example repository."""
    from pytest_citations.engine import Engine

    def planned(jobs):
        engine = Engine.load(PROJECT / "fixtures" / fixture)
        parallel.claim_in_workers(engine, jobs)
        return [(task.rel, [kind.name for kind in task.kinds]) for task in engine.plan([engine.config.root])]

    assert planned(2) == planned(1)


@pytest.mark.skipif(not parallel.available(), reason="no fork on this platform")
def test_more_chunks_than_a_pipe_holds_are_all_done():
    """Thousands of chunks (a walk of 20k files claimed in workers) once filled the queue's pipe
    before any worker was started, and the run hung: in a child process, so that a hang fails."""
    import subprocess
    import sys

    program = (
        "import functools, multiprocessing\n"
        "from pytest_citations.run import parallel\n"
        "def work(numbers):\n"
        "    return [n * 2 for n in numbers], []\n"
        "chunks = [[n] for n in range(20000)]\n"
        "found = parallel._in_workers(multiprocessing.get_context('fork'), 2, chunks, work, {})\n"
        "print(sum(sum(result) for result in found))\n"
    )
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) == 2 * sum(range(20000))

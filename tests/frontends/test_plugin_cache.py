"""The result cache in ``pytest --citations`` (pytest_citations/frontends/plugin.py, pytest_citations/run/cache.py).

In pytest mode the cache lives in pytest's cache folder (``.pytest_cache/d/citations/results-*.json``),
is absent under ``-p no:cacheprovider`` and emptied by ``--cache-clear``; under xdist the workers
send their new entries to the controller, which alone writes the file.

Each test builds a small repository in ``pytester.path``: three Serena memories that cite source
files (``alpha`` and ``beta`` pass, ``broken`` fails with M211) and one ``citations.jsonl`` whose
second record has a wrong cid (U105). Whether a run used the cache is proven by tampering with a
stored result: a tampered message can only reach the output through the cache.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
from pathlib import Path

# Hypothesis's pytest plugin imports ``hypothesis`` at the end of every session, and pytester
# unloads what an in-process run imported: imported here once, it is not paid for per run.
import hypothesis  # noqa: F401
import pytest
from test_plugin import needs_xdist, record

from pytest_citations.engine import Engine
from pytest_citations.kinds.url_citations.urls import cid_for
from pytest_citations.run import cache as cache_module

# These tests prove the cache answered by damaging it: the record of the last run, which answers
# before the cache is opened, stays out (tests/frontends/test_plugin_record.py tests it).
pytestmark = pytest.mark.usefixtures("without_replay")

ALPHA = ".serena/memories/alpha.md"
BETA = ".serena/memories/beta.md"
BROKEN = ".serena/memories/broken.md"
URLS = "research/citations/citations.jsonl"
ARTIFACTS = {ALPHA, BETA, BROKEN, URLS}
SOURCES = {"src/a.py": "import os\nALPHA = 1\n", "src/b.py": "BETA = 2\n", "src/c.py": "import os\n"}
CACHE_FOLDER = Path(".pytest_cache", "d", "citations")
DIAGNOSTIC_LINE = re.compile(r"^\S+:\d+:\d+: [A-Z]\d{3} ")
SUMMARY_LINE = re.compile(r"^(PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS) (\S+)")

# What the plugin prints for the two failing files (shown paths are relative to pytester.path).
BROKEN_M211 = f"{BROKEN}:5:11: M211 Snippet mismatch at line 1. Expected 'import sys', got 'import os'"
ALPHA_M211 = f"{ALPHA}:5:11: M211 Snippet mismatch at line 2. Expected 'ALPHA = 1', got 'ALPHA: int = 2'"
U105 = f"{URLS}:2:*: U105 *cid is not the SHA-256 of normalized_url*"


def memory(subject: str, path: str, line: int, snippet: str) -> str:
    return (
        f"---\nsubject: {subject}\ncitations:\n  - path: {path}\n    line: {line}\n"
        f'    snippet: "{snippet}"\n---\n\n# {subject}\n\nA note about {path}.\n'
    )


def write(base: Path, rel: str, text: str) -> None:
    path = base / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def make_repo(base: Path) -> None:
    """The repository described in the module docstring, with its settings at ``base``."""
    write(base, "pyproject.toml", "[tool.citations]\n")
    for rel, text in SOURCES.items():
        write(base, rel, text)
    write(base, ALPHA, memory("Alpha", "src/a.py", 2, "ALPHA = 1"))
    write(base, BETA, memory("Beta", "src/b.py", 1, "BETA = 2"))
    write(base, BROKEN, memory("Broken", "src/c.py", 1, "import sys"))
    good = record("https://example.com/good")
    bad = record("https://example.com/bad", cid=cid_for("https://example.com/other"))
    write(base, URLS, good + "\n" + bad + "\n")


@pytest.fixture
def repo(pytester: pytest.Pytester) -> Path:
    make_repo(pytester.path)
    return pytester.path


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_inprocess("--citations", "-rA", *args)


def run_xdist(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    # Hypothesis's plugin would be imported by the controller and by each worker (seconds each).
    return pytester.runpytest_subprocess("--citations", "-rA", "-n", "2", "-p", "no:hypothesispytest", *args)


def output(result: pytest.RunResult) -> str:
    return result.stdout.str() + result.stderr.str()


def diagnostics(result: pytest.RunResult) -> list[str]:
    """The diagnostic lines printed for failing items, in a stable order (xdist reorders them)."""
    return sorted(line for line in result.outlines if DIAGNOSTIC_LINE.match(line))


def summary(result: pytest.RunResult) -> dict[str, str]:
    """The short test summary of ``-rA``: node id -> PASSED/FAILED/..."""
    found = {}
    for line in result.outlines:
        match = SUMMARY_LINE.match(line)
        if match:
            found[match[2]] = match[1]
    return found


EXPECTED_SUMMARY = {
    f"{ALPHA}::citations": "PASSED",
    f"{BETA}::citations": "PASSED",
    f"{BROKEN}::citations": "FAILED",
    f"{URLS}::citations": "FAILED",
}


def assert_expected(result: pytest.RunResult) -> None:
    """The untampered outcomes of the repository: alpha and beta pass, broken and the urls fail."""
    result.assert_outcomes(passed=2, failed=2)
    assert summary(result) == EXPECTED_SUMMARY
    result.stdout.fnmatch_lines([BROKEN_M211])
    result.stdout.fnmatch_lines([U105])
    assert "TAMPERED" not in output(result)


def cache_files(base: Path) -> list[Path]:
    return sorted((base / CACHE_FOLDER).glob("results-*.json"))


def load_cache(base: Path) -> tuple[Path, dict]:
    files = cache_files(base)
    assert len(files) == 1, files
    return files[0], cache_module.read_document(files[0])


def tampered_row(rel: str, message: str) -> list:
    return ["M211", "citation-snippet-mismatch", "error", message, rel, 1, 1, None, None]


def tamper(base: Path, rel: str, message: str) -> None:
    """Replace the stored diagnostics of ``rel`` (its files unchanged, so the entry stays fresh)
    with one error carrying ``message``."""
    path, data = load_cache(base)
    data["results"][rel]["diagnostics"] = [tampered_row(rel, message)]
    cache_module.write_document(path, data)  # (as this user's run would: authenticated)


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# -- reuse ------------------------------------------------------------------------------------------


def test_second_run_reuses_cached_results(pytester: pytest.Pytester, repo: Path) -> None:
    first = run(pytester)
    assert_expected(first)
    path, data = load_cache(repo)
    assert path.parent == repo / CACHE_FOLDER
    assert data["format"] == cache_module.FORMAT
    assert set(data["results"]) == ARTIFACTS
    # What each memory read is recorded, each file's hash once: the memory itself and the file it cites.
    assert data["results"][ALPHA]["paths"] == [ALPHA, "src/a.py"]
    assert {rel: data["files"][rel]["sha"] for rel in (ALPHA, "src/a.py")} == {
        ALPHA: sha256(repo / ALPHA), "src/a.py": sha256(repo / "src/a.py")
    }

    # Nothing changed: the same outcomes, the same failure text, and cached passes are PASSED.
    second = run(pytester)
    assert_expected(second)
    assert diagnostics(second) == diagnostics(first)

    # The cache is what the second run read: a tampered failure message, and a pass turned into a
    # failure, reach the output although no file changed.
    tamper(repo, BROKEN, "TAMPERED broken")
    tamper(repo, BETA, "TAMPERED beta")
    third = run(pytester)
    third.assert_outcomes(passed=1, failed=3)
    third.stdout.fnmatch_lines([f"{BROKEN}:1:1: M211 TAMPERED broken"])
    third.stdout.fnmatch_lines([f"{BETA}:1:1: M211 TAMPERED beta"])
    assert "Snippet mismatch at line 1" not in third.stdout.str()

    # New bytes in the artifact: its real result comes back; the other tampered entry stays.
    with open(repo / BROKEN, "a", encoding="utf-8") as stream:
        stream.write("One more line.\n")
    fourth = run(pytester)
    fourth.assert_outcomes(passed=1, failed=3)
    fourth.stdout.fnmatch_lines([BROKEN_M211])
    assert "TAMPERED broken" not in fourth.stdout.str()
    assert "TAMPERED beta" in fourth.stdout.str()
    # ... and the entry stored in its place is the real one.
    _, data = load_cache(repo)
    assert "Snippet mismatch" in data["results"][BROKEN]["diagnostics"][0][3]
    assert BROKEN in data["results"][BROKEN]["paths"] and data["files"][BROKEN]["sha"] == sha256(repo / BROKEN)


def test_editing_a_cited_file_rechecks_only_the_memories_citing_it(pytester: pytest.Pytester, repo: Path) -> None:
    assert_expected(run(pytester))
    tamper(repo, ALPHA, "TAMPERED alpha")
    tamper(repo, BETA, "TAMPERED beta")

    # src/a.py is cited by alpha alone: alpha is checked again (and now fails), beta is not.
    write(repo, "src/a.py", "import os\nALPHA: int = 2\n")
    result = run(pytester)
    result.assert_outcomes(failed=4)
    result.stdout.fnmatch_lines([ALPHA_M211])
    result.stdout.fnmatch_lines([f"{BETA}:1:1: M211 TAMPERED beta"])
    result.stdout.fnmatch_lines([BROKEN_M211])
    assert "TAMPERED alpha" not in output(result)
    _, data = load_cache(repo)
    assert data["files"]["src/a.py"]["sha"] == sha256(repo / "src/a.py")
    assert "ALPHA: int = 2" in data["results"][ALPHA]["diagnostics"][0][3]

    # The cited line restored: alpha passes again, from a fresh check; beta is still the cached one.
    write(repo, "src/a.py", SOURCES["src/a.py"])
    result = run(pytester)
    result.assert_outcomes(passed=1, failed=3)
    assert summary(result)[f"{ALPHA}::citations"] == "PASSED"
    assert summary(result)[f"{BETA}::citations"] == "FAILED"
    assert "Snippet mismatch at line 2" not in output(result)


def test_a_cited_file_that_disappears_is_noticed(pytester: pytest.Pytester, repo: Path) -> None:
    assert_expected(run(pytester))
    (repo / "src/b.py").unlink()
    result = run(pytester)
    result.assert_outcomes(passed=1, failed=3)
    result.stdout.fnmatch_lines([f"{BETA}:4:11: M207 File not found: src/b.py"])
    # ... and its return is noticed too.
    write(repo, "src/b.py", SOURCES["src/b.py"])
    assert_expected(run(pytester))


# -- pytest's cache options ---------------------------------------------------------------------------


def test_without_cacheprovider_nothing_is_cached(pytester: pytest.Pytester, repo: Path) -> None:
    before = sorted(Path(os.environ["CITATIONS_CACHE_DIR"]).rglob("*"))
    for _ in range(2):
        assert_expected(run(pytester, "-p", "no:cacheprovider"))
    assert not (repo / ".pytest_cache").exists()
    assert not (repo / cache_module.DEFAULT_FOLDER).exists()  # nor the CLI's cache folder
    assert sorted(Path(os.environ["CITATIONS_CACHE_DIR"]).rglob("*")) == before  # nor the CLI's $CITATIONS_CACHE_DIR

    # A cache written by an earlier run is neither read nor written.
    assert_expected(run(pytester))
    tamper(repo, BROKEN, "TAMPERED broken")
    path, _ = load_cache(repo)
    stored = path.read_bytes()
    assert_expected(run(pytester, "-p", "no:cacheprovider"))
    assert path.read_bytes() == stored


def test_cache_clear_discards_cached_results(pytester: pytest.Pytester, repo: Path) -> None:
    assert_expected(run(pytester))
    tamper(repo, BROKEN, "TAMPERED broken")
    tamper(repo, BETA, "TAMPERED beta")
    assert_expected(run(pytester, "--cache-clear"))
    # The cache written by that run holds the real results, which the next run reuses.
    _, data = load_cache(repo)
    assert set(data["results"]) == ARTIFACTS
    assert data["results"][BETA]["diagnostics"] == []
    assert "Snippet mismatch" in data["results"][BROKEN]["diagnostics"][0][3]
    assert_expected(run(pytester))


# -- xdist ------------------------------------------------------------------------------------------


@needs_xdist
def test_xdist_writes_the_cache_through_the_controller(pytester: pytest.Pytester, repo: Path) -> None:
    serial = run(pytester, "-p", "no:cacheprovider")
    assert_expected(serial)

    parallel = run_xdist(pytester)
    assert parallel.parseoutcomes() == serial.parseoutcomes() == {"passed": 2, "failed": 2}
    assert summary(parallel) == summary(serial)
    assert diagnostics(parallel) == diagnostics(serial)
    _, data = load_cache(repo)
    assert set(data["results"]) == ARTIFACTS
    assert set(SOURCES) <= set(data["files"])  # the cited files' hashes came back from the workers too
    assert data["results"][ALPHA]["paths"] == [ALPHA, "src/a.py"]
    assert data["files"]["src/a.py"]["sha"] == sha256(repo / "src/a.py")

    # A serial run after it: the same outcomes, from the cache the controller wrote.
    again = run(pytester)
    assert_expected(again)
    assert diagnostics(again) == diagnostics(serial)
    tamper(repo, BROKEN, "TAMPERED broken")
    result = run(pytester)
    result.stdout.fnmatch_lines([f"{BROKEN}:1:1: M211 TAMPERED broken"])

    # The workers read the cache too.
    parallel = run_xdist(pytester)
    assert parallel.parseoutcomes() == {"passed": 2, "failed": 2}
    parallel.stdout.fnmatch_lines([f"{BROKEN}:1:1: M211 TAMPERED broken"])


def age_entries(base: Path, days: int) -> None:
    path, data = load_cache(base)
    old = int(time.time() // 86400) - days
    for table in ("results", "files"):
        for entry in data[table].values():
            entry["seen"] = old
    cache_module.write_document(path, data)


def test_entries_used_in_a_run_are_not_pruned(pytester: pytest.Pytester, repo: Path) -> None:
    """Entries unseen for PRUNE_DAYS are dropped when the cache is written; one used today is kept."""
    assert_expected(run(pytester))
    age_entries(repo, cache_module.PRUNE_DAYS + 1)
    tamper(repo, BETA, "TAMPERED beta")  # proves the run below reused the aged entries
    days = {cache_module._today()}
    result = run(pytester)
    days.add(cache_module._today())  # (the run may have crossed midnight)
    result.stdout.fnmatch_lines([f"{BETA}:1:1: M211 TAMPERED beta"])
    _, data = load_cache(repo)
    assert set(data["results"]) == ARTIFACTS
    assert all(entry["seen"] in days for entry in data["results"].values())


@needs_xdist
def test_entries_used_by_xdist_workers_are_not_pruned(pytester: pytest.Pytester, repo: Path) -> None:
    assert_expected(run(pytester))
    age_entries(repo, cache_module.PRUNE_DAYS + 1)
    parallel = run_xdist(pytester)
    assert parallel.parseoutcomes() == {"passed": 2, "failed": 2}
    _, data = load_cache(repo)
    assert set(data["results"]) == ARTIFACTS


# -- a cache that cannot be trusted ---------------------------------------------------------------------


def planted_cache(base: Path) -> tuple[Path, dict]:
    """Where the plugin keeps the cache of ``base``, and a valid cache document whose one entry
    (beta's, keyed by beta's real hash) holds a tampered failure: used only if the document is."""
    engine = Engine.load(base)
    engine.state.enable_cache(base / CACHE_FOLDER)  # as the plugin does, with pytest's folder
    path, key = engine.state.cache.path, engine.state.cache.key
    entry = {
        "kinds": ["memories"],
        "paths": [BETA],
        "digest": engine.state.cache.paths_digest([BETA]),  # of beta's real hash
        "indexes": {},
        "diagnostics": [tampered_row(BETA, "TAMPERED beta")],
        "seen": int(time.time() // 86400),
    }
    return path, {"format": cache_module.FORMAT, "key": key, "files": {}, "results": {BETA: entry}}


def _with_beta(document: dict, **changes) -> dict:
    return {**document, "results": {BETA: {**document["results"][BETA], **changes}}}


# Ways a cache file can be unfit, each from the planted document (which would be used intact): the
# bytes of the file, or a document of another shape, which is written authenticated (so that its
# shape, not its lack of a code, is what the run meets).
CORRUPTIONS = {
    "garbage": lambda doc: b"\x00\x9f\xff\xfe not json {",
    "empty": lambda doc: b"",
    "truncated": lambda doc: json.dumps(doc).encode()[: len(json.dumps(doc)) // 2],
    "a-list": lambda doc: json.dumps([doc]).encode(),
    "not-authenticated": lambda doc: json.dumps(doc).encode(),  # (a committed cache, or another user's)
    "another-format": lambda doc: {**doc, "format": cache_module.FORMAT + 1},
    "no-format": lambda doc: {k: v for k, v in doc.items() if k != "format"},
    "another-key": lambda doc: {**doc, "key": "0" * 64},
    "results-a-list": lambda doc: {**doc, "results": list(doc["results"].values())},
    "paths-an-object": lambda doc: _with_beta(doc, paths={BETA: "0" * 64}),
    "not-a-diagnostic": lambda doc: _with_beta(doc, diagnostics=[["M211", "x"]]),
}


def assert_rewritten(base: Path, path: Path, key: str) -> None:
    assert cache_files(base) == [path]
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["format"] == cache_module.FORMAT and data["key"] == key
    assert set(data["results"]) == ARTIFACTS
    assert data["results"][BETA]["diagnostics"] == []


def test_a_valid_planted_cache_is_used(pytester: pytest.Pytester, repo: Path) -> None:
    """The control for the test below: the planted document, intact, is read (so its path and
    key are the plugin's, and its entry would be trusted)."""
    path, document = planted_cache(repo)
    path.parent.mkdir(parents=True)
    cache_module.write_document(path, document)
    result = run(pytester)
    result.assert_outcomes(passed=1, failed=3)
    result.stdout.fnmatch_lines([f"{BETA}:1:1: M211 TAMPERED beta"])
    assert cache_files(repo) == [path]


@pytest.mark.parametrize("how", list(CORRUPTIONS))
def test_a_corrupt_cache_is_ignored_and_replaced(pytester: pytest.Pytester, repo: Path, how: str) -> None:
    path, document = planted_cache(repo)
    path.parent.mkdir(parents=True)
    damaged = CORRUPTIONS[how](document)
    path.write_bytes(damaged if isinstance(damaged, bytes) else cache_module.sealed(path.name, damaged))
    assert_expected(run(pytester))
    assert_rewritten(repo, path, document["key"])


@pytest.mark.parametrize("damage", ["result-not-an-object", "file-not-an-object", "seen-not-a-number"])
def test_an_entry_of_the_wrong_shape_is_ignored(pytester: pytest.Pytester, repo: Path, damage: str) -> None:
    path, document = planted_cache(repo)
    if damage == "result-not-an-object":
        document["results"][BETA] = 5
    elif damage == "file-not-an-object":  # the damaged entry alone: beta's planted one is valid
        document["results"], document["files"]["src/b.py"] = {}, 5
    else:  # an entry of a file no longer there, which nothing in the run refreshes
        document["results"] = {"gone.md": {**document["results"][BETA], "seen": "yesterday"}}
    path.parent.mkdir(parents=True)
    cache_module.write_document(path, document)
    assert_expected(run(pytester))
    assert_rewritten(repo, path, document["key"])


# -- several settings roots in one session -----------------------------------------------------------------


def test_each_settings_root_keeps_its_cached_results(pytester: pytest.Pytester) -> None:
    """Two roots with equal settings share pytest's cache folder: neither overwrites the other's
    results (keyed by root-relative paths, they would collide in one file)."""
    pytester.makepyprojecttoml("[tool.pytest.ini_options]\n")
    for name in ("one", "two"):
        make_repo(pytester.path / name)
    for rel in ARTIFACTS:  # the roots differ: no result of one is fresh in the other
        with open(pytester.path / "two" / rel, "a", encoding="utf-8") as stream:
            stream.write("\n" if rel == URLS else "Root two.\n")
    result = run(pytester)
    result.assert_outcomes(passed=4, failed=4)
    # Every stored result, in whatever file, is tampered: a root whose results were kept shows it.
    for path in cache_files(pytester.path):
        data = cache_module.read_document(path)
        for rel, entry in data["results"].items():
            entry["diagnostics"] = [tampered_row(rel, "TAMPERED")]
        cache_module.write_document(path, data)
    result = run(pytester)
    result.assert_outcomes(failed=8)
    assert diagnostics(result) == sorted(
        f"{root}/{rel}:1:1: M211 TAMPERED" for root in ("one", "two") for rel in ARTIFACTS
    )

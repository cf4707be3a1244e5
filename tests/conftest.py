import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
PROJECT = TESTS.parent
REALDATA = PROJECT.parent / "shared" / "realdata"
# Tests live in folders that mirror the package; their shared helpers (url_records, memory_repo...)
# and the test modules whose helpers others import are found from any of them.
TEST_FOLDERS = [TESTS, *sorted({path.parent for path in TESTS.rglob("test_*.py")} - {TESTS})]
sys.path[:0] = [str(folder) for folder in TEST_FOLDERS]


def _import_the_whole_package() -> None:
    """Import every module of the package once, before any test runs pytest in-process: such a
    run restores ``sys.modules`` afterwards and drops the modules first imported during it, while
    other modules keep references to them, so a later test in the same process could patch or
    compare against a second copy of a module (its classes are not the engine's)."""
    import importlib
    import pkgutil

    import pytest_citations

    for info in pkgutil.walk_packages(pytest_citations.__path__, "pytest_citations."):
        if not info.name.endswith(".__main__"):  # (that one runs the command)
            importlib.import_module(info.name)


_import_the_whole_package()


def same_code_environment(**extra: str) -> dict[str, str]:
    """The environment of a child process that must run the code this process tests, the copy
    the tests imported (an installed one in CI), not the source tree a child started in the project
    would find first: caches are keyed by the code, so two copies never share results."""
    import os

    import pytest_citations

    where = str(Path(pytest_citations.__file__).resolve().parent.parent)
    return {**os.environ, "PYTHONPATH": where, "PYTHONSAFEPATH": "1", **extra}


@pytest.fixture
def realdata() -> Path:
    """The shared folder of real files from public projects, read in place."""
    if not REALDATA.is_dir():
        pytest.skip(f"real-data folder {REALDATA} is absent (it sits beside the project in the shared workspace)")
    return REALDATA


@pytest.fixture(autouse=True)
def no_network(monkeypatch):
    """The checker is offline by design: any attempt to reach the network fails the test."""
    import socket

    def refuse(*args, **kwargs):
        raise AssertionError(f"a test tried to use the network: {args!r}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)


@pytest.fixture(autouse=True)
def own_result_cache(monkeypatch, tmp_path_factory) -> Path:
    """Each test caches results in a folder of its own, never inside the shipped fixtures."""
    folder = tmp_path_factory.mktemp("citations-cache")
    monkeypatch.setenv("CITATIONS_CACHE_DIR", str(folder))
    return folder


@pytest.fixture(autouse=True)
def own_cache_key(monkeypatch, tmp_path_factory) -> Path:
    """Each test authenticates cache documents with a key of its own (made on first use), never
    with the key of the user who runs the tests."""
    path = tmp_path_factory.mktemp("citations-key") / "key"
    monkeypatch.setenv("CITATIONS_CACHE_KEY_FILE", str(path))
    return path


@pytest.fixture(autouse=True)
def own_run_budget() -> None:
    """Each test is a run of its own: what a run may spend in all (the time of evidence stores, the
    git history read: pytest_citations/run/budget.py) is whole again, whatever tests before spent,
    also a test that calls a store or git history without making an engine."""
    from pytest_citations.run import budget

    budget.begin()


@pytest.fixture
def without_replay(monkeypatch) -> None:
    """``citations check`` and in-process ``pytest --citations`` go through the result cache on
    every run, without the record of the last run (pytest_citations.run.replay) answering first: for
    tests of the cache itself. Whether a record answers depends on how long ago the repository's
    files were written (its racy window), so a test that damages the cache and expects to see it
    would otherwise depend on the speed of the machine."""
    from pytest_citations.run import replay

    monkeypatch.setattr(replay.Request, "read", lambda self: None)


@pytest.fixture
def cache_folder(own_result_cache) -> Path:
    """The folder where ``citations check`` caches results in this test."""
    return own_result_cache


@pytest.fixture
def memory_repo(tmp_path) -> Path:
    """A small repository of memories citing two source files (tests/memory_repo.py)."""
    from memory_repo import make_repo

    return make_repo(tmp_path)

"""What a re-run with nothing changed takes from the cache besides results: the digest of a run-wide
index built from one share per file (kept with its files' hashes), and each file's claiming kinds;
and the cache's entries kept out of the garbage collector's way."""

from __future__ import annotations

import gc
import json

import pytest

from memory_repo import MEMORIES, check, memory
from pytest_citations.kinds.memories import model as memories
from pytest_citations.run import cache as cache_module
from pytest_citations.run import dependencies

# The result cache underneath the record of the last run, which would answer these re-runs first.
pytestmark = pytest.mark.usefixtures("without_replay")


@pytest.fixture
def index_builds(monkeypatch):
    """The number of shares each time the memory index's value was built."""
    builds = []
    build = dependencies.Shares.build

    def counted(shares, engine):
        value = build(shares, engine)
        if shares is memories.index_for.shares:
            builds.append(sum(len(rels) for rels in value.by_id.values()))
        return value

    monkeypatch.setattr(dependencies.Shares, "build", counted)
    return builds


def base_document(cache_folder):
    (base,) = cache_folder.glob("results-*.json")
    return base, cache_module.read_document(base)


def test_a_rerun_with_nothing_changed_does_not_build_the_memory_index(memory_repo, capsys, cache_folder, index_builds):
    check(capsys, memory_repo)
    assert index_builds == [MEMORIES]
    _, data = base_document(cache_folder)
    assert set(data["indexes"]) == {"memories.index"}
    assert check(capsys, memory_repo) == ([], MEMORIES)
    assert index_builds == [MEMORIES]


def test_a_memory_edited_below_its_front_matter_rebuilds_the_index_and_rechecks_itself_only(memory_repo, capsys, index_builds):
    check(capsys, memory_repo)
    path = memory_repo / ".serena" / "memories" / "m3.md"
    path.write_text(memory(3) + "\nMore notes.\n")
    assert check(capsys, memory_repo) == ([], MEMORIES - 1)  # the index's value is the same
    assert len(index_builds) == 2


def test_a_new_memory_id_rechecks_every_memory(memory_repo, capsys, index_builds):
    check(capsys, memory_repo)
    (memory_repo / ".serena" / "memories" / "m3.md").write_text(memory(3, memory_id="m4"))
    found, hits = check(capsys, memory_repo)
    assert hits == 0
    assert sorted(path for path, code in found if code == "M214") == [".serena/memories/m3.md", ".serena/memories/m4.md"]


def test_a_new_memory_file_rebuilds_the_index(memory_repo, capsys, index_builds):
    check(capsys, memory_repo)
    (memory_repo / ".serena" / "memories" / "m99.md").write_text(memory(99, memory_id="m1"))
    found, _ = check(capsys, memory_repo)
    assert ("./.serena/memories/m1.md", "M214") in {(f"./{path}", code) for path, code in found}
    assert index_builds == [MEMORIES, MEMORIES + 1]


@pytest.mark.parametrize(
    "entry",
    [{"files": 5, "digest": "x"}, {"digest": "x"}, "a string", {"files": "KEY", "digest": 7}, {"files": "KEY"}],
    ids=["files not text", "no files", "not an object", "digest not text", "no digest"],
)
def test_a_damaged_index_entry_is_built_again_not_trusted(memory_repo, capsys, cache_folder, index_builds, entry):
    check(capsys, memory_repo)
    base, data = base_document(cache_folder)
    key = data["indexes"]["memories.index"]["files"]
    data["indexes"]["memories.index"] = {k: key if v == "KEY" else v for k, v in entry.items()} if isinstance(entry, dict) else entry
    cache_module.write_document(base, data)
    assert check(capsys, memory_repo) == ([], MEMORIES)
    assert index_builds == [MEMORIES, MEMORIES]


def test_an_index_digest_of_other_files_is_not_reused(memory_repo, capsys, cache_folder, index_builds):
    """The digest is kept with the digest of its files' paths and hashes: a planted digest under
    another files key is not taken for this run's index."""
    check(capsys, memory_repo)
    base, data = base_document(cache_folder)
    data["indexes"]["memories.index"] = {"files": "0" * 64, "digest": "planted"}
    cache_module.write_document(base, data)
    check(capsys, memory_repo)
    assert len(index_builds) == 2
    assert kept_indexes(cache_folder)["memories.index"]["digest"] != "planted"


def kept_indexes(cache_folder):
    """The index entries of the base and its deltas, later ones winning."""
    indexes = {}
    for path in sorted(cache_folder.glob("results-*.json")) + sorted(cache_folder.glob("delta-*.json")):
        indexes.update(json.loads(path.read_text()).get("indexes", {}))
    return indexes


def test_a_base_without_indexes_is_read(memory_repo, capsys, cache_folder, index_builds):
    """A base written before indexes were kept is still this cache's."""
    check(capsys, memory_repo)
    base, data = base_document(cache_folder)
    del data["indexes"]
    cache_module.write_document(base, data)
    assert check(capsys, memory_repo) == ([], MEMORIES)
    assert len(index_builds) == 2


def test_the_digest_of_paths_is_one_sha256_of_their_names_and_fingerprints(memory_repo):
    cache = cache_module.ResultCache(None, memory_repo, "key")
    paths = ["src/a.py", "src/b.py", "no/such/file"]
    cache.paths_digest(paths[:1])  # pieces computed before must give the same digest
    text = "".join(f"{path}\0{cache.fingerprint(path)}\0" for path in paths)
    expected = __import__("hashlib").sha256(text.encode()).hexdigest()
    assert cache.paths_digest(paths) == expected
    assert cache.fingerprint("no/such/file") == cache_module.ABSENT


def test_the_cache_entries_are_kept_out_of_the_collectors_generations(memory_repo, capsys, cache_folder):
    check(capsys, memory_repo)
    key = base_document(cache_folder)[1]["key"]
    gc.unfreeze()
    try:
        cache = cache_module.ResultCache(cache_folder, memory_repo, key)
        assert gc.isenabled()
        assert gc.get_freeze_count() > 0
        assert len(cache.results) == MEMORIES
    finally:
        gc.unfreeze()


def test_a_damaged_claim_memo_is_worked_out_again(memory_repo, capsys, cache_folder):
    check(capsys, memory_repo)
    base, data = base_document(cache_folder)
    files = data["files"]
    files[".serena/memories/m1.md"]["memo"]["claim"] = {"memories": 1}  # not a list
    files[".serena/memories/m2.md"]["memo"]["claim"] = [["memories"]]  # unhashable names
    cache_module.write_document(base, data)
    assert check(capsys, memory_repo) == ([], MEMORIES)  # both still checked as memories, from the cache

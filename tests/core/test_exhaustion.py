"""Exhaustion (issue 18; docs/security.md, "every input is bounded"): committed files that made a
check run for minutes or take gigabytes. Each case runs ``citations check`` in a child process,
measured (:mod:`bounded_run`), and asserts the findings and that the child stayed in its bounds.

The evidence store (``evidence_store.py``), EAR ids (``ear_ids.py``, ``kinds/ear_ids.py``,
``rules/ear_ids.py``), memories (``rules/memories.py`` and the memory index) and the streaming
read of ``sources.iter_lines``.
"""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from bounded_run import Outcome, run_bounded
from conftest import PROJECT
from cpu_bounds import assert_cpu_under, cpu_time_under, stopped_after
from pytest_citations import engine
from pytest_citations.engine import Engine
from pytest_citations.kinds.briefs import evidence_store
from pytest_citations.kinds.ear_ids import corpus_rules
from pytest_citations.kinds.ear_ids.corpus import AnchorIndex, CorpusIndex
from pytest_citations.kinds.ear_ids.records import CorpusRecord, IdRef
from pytest_citations.kinds.memories import graph_rules
from pytest_citations.kinds.memories.memory_index import MemoryIndex, supersedes_loops
from url_records import valid_record


def check_bounded(tmp_path: Path, root: Path) -> Outcome:
    """``citations check`` of ``root`` from ``tmp_path``, as JSON, without the result cache."""
    return run_bounded(tmp_path, sys.executable, "-m", "pytest_citations", "check", "--format", "json", "--no-cache", str(root))


def tree(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` and its bytes."""
    return {path.relative_to(root).as_posix(): path.read_bytes() for path in sorted(root.rglob("*")) if path.is_file()}


# -- the evidence store -------------------------------------------------------------------------------

BRIEF_REPO = PROJECT / "fixtures" / "brief-repo"
VALID = "briefs/valid.md"


def brief_repo(tmp_path: Path, store: str = "evidence/store.sqlite") -> Path:
    """The valid brief of fixtures/brief-repo without its sidecar: its citations come from the
    evidence store named ``store`` (the fixture's store file is copied in; a test writes others)."""
    root = tmp_path / "repo"
    (root / "briefs").mkdir(parents=True)
    (root / "evidence").mkdir()
    shutil.copy(BRIEF_REPO / VALID, root / "briefs")
    shutil.copy(BRIEF_REPO / "source_registry.yaml", root)
    shutil.copy(BRIEF_REPO / "evidence" / "store.sqlite", root / "evidence")
    settings = (BRIEF_REPO / "pyproject.toml").read_text().replace('"evidence/store.sqlite"', f'"{store}"')
    (root / "pyproject.toml").write_text(settings)
    return root


def fixture_dump() -> list[str]:
    """The fixture store as SQL text, statement by statement (``BEGIN TRANSACTION;`` first,
    ``COMMIT;`` last), as Python's ``iterdump`` writes it."""
    connection = sqlite3.connect(BRIEF_REPO / "evidence" / "store.sqlite")
    try:
        return list(connection.iterdump())
    finally:
        connection.close()


def dump_repo(tmp_path: Path, *statements: str, before: tuple[str, ...] = (), indexes: bool = False) -> Path:
    """A brief repository whose store is ``evidence/store.sql``: the fixture store's dump with
    ``statements`` added before its COMMIT (and ``before`` ahead of everything). Its indexes are
    left out unless asked for: a dump that created an index was refused before (``not authorized``),
    and an attack's dump is one that was loaded."""
    root = brief_repo(tmp_path, "evidence/store.sql")
    (root / "evidence" / "store.sqlite").unlink()
    lines = [line for line in fixture_dump() if indexes or not line.startswith("CREATE INDEX")]
    (root / "evidence" / "store.sql").write_text("\n".join([*before, *lines[:-1], *statements, lines[-1]]) + "\n")
    return root


def store_finding(outcome: Outcome) -> tuple[str, str]:
    """(code, message) of the brief's first finding, on its first line: the store's. (Its markers
    are then unresolved, B307: a store that cannot be read never lets a brief pass.)"""
    found = [(line, code, message) for path, line, code, message in outcome.findings() if path == VALID]
    assert found[0][0] == 1
    assert {code for _, code, _ in found[1:]} == {"B307"}
    return found[0][1:]


def test_the_fixture_brief_resolves_through_a_store_file_or_its_dump_and_leaves_the_repository_as_it_was(tmp_path):
    for root in (brief_repo(tmp_path / "file"), dump_repo(tmp_path / "dump", indexes=True)):
        before = tree(root)
        outcome = check_bounded(tmp_path, root)
        outcome.assert_bounded()
        assert outcome.findings() == []
        assert tree(root) == before


def test_a_dump_as_the_sqlite3_shell_writes_it_loads(tmp_path):
    """The shell's ``.dump`` starts with ``PRAGMA foreign_keys=OFF;`` (a PRAGMA other than
    user_version was refused) and spells a line end in a text with ``replace(..., '\\n', char(10))``."""
    line_ends = "INSERT INTO chunks VALUES('chunk_9','doc_1',9,replace(replace('a\\r\\nb','\\r',char(13)),'\\n',char(10)));"
    root = dump_repo(tmp_path, line_ends, before=("PRAGMA foreign_keys=OFF;",), indexes=True)
    store = evidence_store.open_readonly(root, "evidence/store.sql")
    assert store.connection.execute("SELECT text FROM chunks WHERE id = 'chunk_9'").fetchone() == ("a\r\nb",)
    assert Engine.load(root).check([root]).diagnostics == []


NOT_A_DUMP = "a store kept as SQL text may only create tables and indexes and insert the rows it spells out"
SQL_DUMP = "evidence/store.sql"


@pytest.mark.parametrize(
    ("statements", "refused"),
    [
        pytest.param([f"INSERT INTO chunks VALUES('zero_{n}','doc_1',1,zeroblob(900000000));" for n in range(4)],
                     "calls zeroblob()", id="zeroblob-3.6GB"),
        pytest.param(["INSERT INTO chunks VALUES('grown','doc_1',1," + "replace(" * 9 + "'x'" + ",'x','xxxxxxxxxx')" * 9 + ");"],
                     "calls replace() to make a text longer", id="nested-replace-1GB"),
        pytest.param(["INSERT INTO chunks SELECT " + "||".join(f"t{n}.id" for n in range(10)) + ", 'doc_1', 1, NULL FROM "
                      + ", ".join(f"chunks t{n}" for n in range(10)) + ";"],
                     "reads rows of 'chunks'", id="cross-join-insert-select"),
        pytest.param(["CREATE TABLE copies AS SELECT * FROM chunks;"], "reads rows of 'chunks'", id="create-as-select"),
        pytest.param(["CREATE TABLE numbers AS SELECT 1 FROM (VALUES (1), (2)) AS a, (VALUES (1), (2)) AS b;"],
                     "creates a table from a SELECT", id="create-as-select-values"),
        pytest.param(["CREATE VIEW big AS SELECT zeroblob(1000000000) FROM chunks;"], "does what a dump never does: create view 'big'",
                     id="view"),
        pytest.param(["ATTACH DATABASE 'other.sqlite' AS other;"], "does what a dump never does: attach 'other.sqlite'", id="attach"),
        pytest.param(["PRAGMA max_page_count = 2147483647;"], "sets PRAGMA max_page_count", id="pragma"),
    ],
)
def test_a_dump_that_computes_or_reads_rows_is_refused_at_once(tmp_path, statements, refused):
    """Was: 4 GB from an 8 KB dump (zeroblob), gigabytes from nested replace(), past 60 s for the
    cross join (one INSERT ... SELECT from ten copies of a 6-row table: 60 million rows)."""
    outcome = check_bounded(tmp_path, dump_repo(tmp_path, *statements))
    outcome.assert_bounded()
    assert store_finding(outcome) == ("B318", f"evidence store {SQL_DUMP} is not a dump of a store: it {refused}, and {NOT_A_DUMP}")


# A cross join of literal rows reads no table (a multi-row VALUES is allowed): a billion rows, each
# ignored as a duplicate, so it takes no memory, only time.
_VALUES = "(VALUES " + ",".join(f"({n})" for n in range(10)) + ")"
ENDLESS_INSERT = ("INSERT OR IGNORE INTO syntheses SELECT 'syn_valid', 'briefs/valid.md', NULL, NULL FROM "
                  + ", ".join(f"{_VALUES} AS v{n}" for n in range(9)) + ";")


def load_budget(root: Path) -> float:
    """The time the dump of the brief repository at ``root`` may take to load."""
    return evidence_store.LOAD_SECONDS + evidence_store.LOAD_SECONDS_PER_MIB * (root / SQL_DUMP).stat().st_size / (1 << 20)


def test_a_dump_that_runs_past_its_time_budget_is_stopped(tmp_path):
    """Was: a run without end."""
    root = dump_repo(tmp_path, ENDLESS_INSERT)
    outcome = check_bounded(tmp_path, root)
    outcome.assert_bounded()
    assert store_finding(outcome) == ("B318", f"evidence store {SQL_DUMP}: loading it took longer than {round(load_budget(root), 2):g} s")


def nested_dump_roots(tmp_path: Path, count: int) -> Path:
    """A checkout of ``count`` nested roots, each the brief repository of :func:`dump_repo` whose
    dump runs until it is stopped (``root<n>/repo``)."""
    top = tmp_path / "checkout"
    top.mkdir()
    (top / "pyproject.toml").write_text("[tool.citations]\n")
    for n in range(count):
        dump_repo(top / f"root{n}", ENDLESS_INSERT)
    return top


@pytest.mark.parametrize("front_end", ["citations check", "pytest --citations"])
def test_the_stores_of_a_run_share_one_time_budget_nested_roots_included(tmp_path, front_end):
    """Ten nested roots, each with a dump that runs until stopped: the stores of the run take at
    most :data:`evidence_store.RUN_SECONDS` (plus their share per MiB) in all, and each store that
    got no time, or no more, says so. Was: each its own 2 s, 20 s in all."""
    top = nested_dump_roots(tmp_path, 10)
    if front_end == "citations check":
        outcome = check_bounded(tmp_path, top)
        outcome.assert_bounded()
        messages = {path.split("/")[0]: message for path, line, code, message in outcome.findings()
                    if path.endswith(VALID) and line == 1 and code == "B318"}
    else:
        outcome = run_bounded(tmp_path, sys.executable, "-m", "pytest", "--citations", "-p", "no:cacheprovider",
                              "-p", "no:randomly", "-q", str(top))
        outcome.assert_bounded()
        messages = dict(re.findall(r"^(?:checkout/)?(root\d+)/repo/briefs/valid\.md:1:1: B318 (.*)$", outcome.output, re.MULTILINE))
    assert sorted(messages) == [f"root{n}" for n in range(10)]
    own = f"evidence store {SQL_DUMP}: loading it took longer than {round(load_budget(top / 'root0' / 'repo'), 2):g} s"
    shared = (f"evidence store {SQL_DUMP}: the evidence stores of this run took longer than it allows them (2 s, 1 s "
              "more per MiB of SQL text loaded and 0.2 ms per query; every root's stores share that time); the store is "
              "read no further")
    assert set(messages.values()) <= {own, shared} and list(messages.values()).count(shared) >= 8


@pytest.mark.skipif(not hasattr(sqlite3.Connection, "setlimit"), reason="Connection.setlimit is Python 3.11's")
def test_a_default_value_that_makes_data_is_stopped_by_the_length_limit(tmp_path):
    """A column's DEFAULT is worked out when a row leaves it out, and no authorizer sees the
    function in it: eight rows of 400 MB each from a few hundred bytes."""
    root = dump_repo(tmp_path, *(f"INSERT INTO big (id) VALUES ({n});" for n in range(8)),
                     before=("CREATE TABLE big (id INTEGER, text TEXT DEFAULT (zeroblob(400000000)));",))
    outcome = check_bounded(tmp_path, root)
    outcome.assert_bounded()
    assert store_finding(outcome) == ("B318", f"evidence store {SQL_DUMP}: it makes a value longer than {1 << 20} bytes")


def test_a_dump_that_would_grow_past_four_times_its_size_in_memory_is_stopped(tmp_path):
    """A dump may create indexes (it was refused one before, ``not authorized``), and each index on
    a column copies it: 300 indexes on one 600 KB text would make 180 MB of a 620 KB file."""
    text = "INSERT INTO chunks VALUES('wide','doc_1',1,'" + "x" * 600_000 + "');"
    indexes = [f"CREATE INDEX copy_{n} ON chunks (text, ordinal, {n});" for n in range(300)]
    outcome = check_bounded(tmp_path, dump_repo(tmp_path, text, *indexes))
    outcome.assert_bounded()
    assert store_finding(outcome) == (
        "B318", f"evidence store {SQL_DUMP}: loading it would take more than 4 times its size (plus 1 MiB) of memory")


def _rebuilt_store(path: Path, table: str, definition: str) -> None:
    """Replace ``table`` of the store at ``path`` by one made as ``definition`` says, keeping its rows
    (an attacker's store: our tables, one of them changed)."""
    connection = sqlite3.connect(path)
    with connection:
        columns = [row[1] for row in connection.execute(f"PRAGMA table_info({table})")]
        connection.execute(f"ALTER TABLE {table} RENAME TO old_{table}")
        connection.execute(definition)
        stored = [row[1] for row in connection.execute(f"PRAGMA table_info({table})") if row[1] in columns]
        names = ", ".join(stored)
        connection.execute(f"INSERT INTO {table} ({names}) SELECT {names} FROM old_{table}")
        connection.execute(f"DROP TABLE old_{table}")
    connection.close()


def test_a_store_file_with_a_generated_column_is_refused_before_it_is_read(tmp_path):
    """Each read of a citation made a 600 MB title from a 100 KB store (was: gigabytes)."""
    root = brief_repo(tmp_path)
    connection = sqlite3.connect(root / "evidence" / "store.sqlite")
    connection.execute("ALTER TABLE citations DROP COLUMN title")
    connection.execute("ALTER TABLE citations ADD COLUMN title TEXT AS (printf('%.*c', 600000000, 'x')) VIRTUAL")
    connection.commit()
    connection.close()
    outcome = check_bounded(tmp_path, root)
    outcome.assert_bounded()
    assert store_finding(outcome) == (
        "B318", "evidence store evidence/store.sqlite is not a store built by `citations store init`: it computes the "
        "column citations.title when it is read (a generated column)")


def test_a_store_in_wal_mode_is_read_without_writing_a_byte_beside_it(tmp_path):
    """Was: the read-only open of a store in WAL mode made ``store.sqlite-shm`` in the repository."""
    root = brief_repo(tmp_path)
    connection = sqlite3.connect(root / "evidence" / "store.sqlite")
    assert connection.execute("PRAGMA journal_mode = WAL").fetchone() == ("wal",)
    connection.close()  # (the last connection merges the log and removes it)
    before = tree(root)
    assert sorted(before) == ["briefs/valid.md", "evidence/store.sqlite", "pyproject.toml", "source_registry.yaml"]
    outcome = check_bounded(tmp_path, root)
    outcome.assert_bounded()
    assert outcome.findings() == []
    assert tree(root) == before


def test_a_store_with_a_write_ahead_log_beside_it_is_refused(tmp_path):
    """The rows of a -wal file are not in the store file, and reading them means writing a -shm."""
    root = brief_repo(tmp_path)
    writer = sqlite3.connect(tmp_path / "writer.sqlite")
    writer.executescript(evidence_store.ddl())
    writer.execute("PRAGMA journal_mode = WAL")
    writer.execute("PRAGMA wal_autocheckpoint = 0")
    writer.execute("INSERT INTO syntheses VALUES ('late', 'briefs/late.md', NULL, NULL)")
    writer.commit()
    shutil.copy(tmp_path / "writer.sqlite", root / "evidence" / "store.sqlite")
    shutil.copy(tmp_path / "writer.sqlite-wal", root / "evidence" / "store.sqlite-wal")
    writer.close()
    before = tree(root)
    outcome = check_bounded(tmp_path, root)
    outcome.assert_bounded()
    assert store_finding(outcome) == (
        "B318", "evidence store evidence/store.sqlite has a write-ahead log evidence/store.sqlite-wal that is not merged "
        "into it, and a check reads the store file alone: merge it (`sqlite3 evidence/store.sqlite 'PRAGMA journal_mode "
        "= DELETE'`) and commit the store without it")
    assert tree(root) == before


STORE_SCHEMAS = {
    "view": ("CREATE VIEW chunk_texts AS SELECT text FROM chunks", "holds the view 'chunk_texts', which computes what is read"),
    "trigger": ("CREATE TRIGGER t AFTER INSERT ON chunks BEGIN DELETE FROM chunks; END",
                "holds the trigger 't', which computes what is read"),
    "virtual table": ("CREATE VIRTUAL TABLE search USING fts5(text)", "holds the virtual table 'search', whose rows are computed"),
    "another table": ("CREATE TABLE notes (id TEXT)", "holds the table 'notes', which is none of its tables (sources, documents, "
                      "chunks, citations, evidence_packs, evidence_pack_chunks, syntheses, synthesis_markers, "
                      "synthesis_bullets, synthesis_bullet_citations)"),
    "another column": ("ALTER TABLE chunks ADD COLUMN extra TEXT",
                       "gives chunks the column 'extra', which is none of its columns (id, doc_id, ordinal, text)"),
    "generated column": ("ALTER TABLE chunks ADD COLUMN ordinal2 AS (ordinal * 2)",
                         "computes the column chunks.ordinal2 when it is read (a generated column)"),
}


@pytest.mark.parametrize("schema", list(STORE_SCHEMAS))
def test_a_store_whose_schema_is_not_ours_is_refused(tmp_path, schema):
    statement, problem = STORE_SCHEMAS[schema]
    path = tmp_path / "store.sqlite"
    shutil.copy(BRIEF_REPO / "evidence" / "store.sqlite", path)
    connection = sqlite3.connect(path)
    connection.execute(statement)
    connection.commit()
    connection.close()
    with pytest.raises(evidence_store.StoreError) as raised:
        evidence_store.open_readonly(tmp_path, "store.sqlite")
    assert str(raised.value) == f"evidence store store.sqlite is not a store built by `citations store init`: it {problem}"


def test_a_tags_column_of_the_bullets_is_ours_and_indexes_are_allowed(tmp_path):
    path = tmp_path / "store.sqlite"
    shutil.copy(BRIEF_REPO / "evidence" / "store.sqlite", path)
    connection = sqlite3.connect(path)
    connection.execute("ALTER TABLE synthesis_bullets ADD COLUMN Tags TEXT")
    connection.execute("CREATE INDEX chunk_texts ON chunks (lower(text)) WHERE ordinal > 0")
    connection.commit()
    connection.close()
    store = evidence_store.open_readonly(tmp_path, "store.sqlite")
    assert "tags" in store.columns("synthesis_bullets")


def _slow_store(tmp_path: Path) -> Path:
    """A store of ours without keys (as the rule examples write them) and 300k syntheses: finding a
    brief's synthesis reads them all."""
    root = brief_repo(tmp_path)
    path = root / "evidence" / "store.sqlite"
    _rebuilt_store(path, "syntheses", "CREATE TABLE syntheses (id TEXT, brief_path TEXT, pack_id TEXT, generated_at TEXT)")
    connection = sqlite3.connect(path)
    with connection:
        connection.executemany("INSERT INTO syntheses (id, brief_path) VALUES (?, ?)", ((f"s{n}", f"b{n}.md") for n in range(300_000)))
    connection.close()
    return root


def test_a_query_past_its_time_budget_ends_and_the_store_is_read_no_further(tmp_path, monkeypatch):
    root = _slow_store(tmp_path)
    store = evidence_store.open_readonly(root, "evidence/store.sqlite")
    assert store.markers(VALID) is not None  # within the budget: read as usual
    monkeypatch.setattr(evidence_store, "STATEMENT_SECONDS", 0.0)
    expected = "evidence store evidence/store.sqlite: a query ran longer than 0 s; the store is read no further"
    with pytest.raises(evidence_store.StoreError, match="^" + expected.replace(".", r"\.") + "$"):
        store.markers("briefs/other.md")
    monkeypatch.setattr(evidence_store, "STATEMENT_SECONDS", 2.0)
    with cpu_time_under(0.1), pytest.raises(evidence_store.StoreError, match="read no further"):
        store.has_document("doc_1")  # a cheap query, refused at once: the store is spent


def test_a_query_past_its_time_budget_gives_the_brief_a_diagnostic_not_a_pass(tmp_path, monkeypatch):
    root = _slow_store(tmp_path)
    monkeypatch.setattr(evidence_store, "STATEMENT_SECONDS", 0.0)
    found = [(d.path, d.line, d.code, d.message) for d in Engine.load(root).check([root]).diagnostics]
    assert len(found) == 1
    assert found[0][:3] == (VALID, 1, "B318")
    assert found[0][3].endswith("evidence store evidence/store.sqlite: a query ran longer than 0 s; the store is read no further")


def test_a_store_that_is_no_database_is_a_diagnostic(tmp_path):
    root = brief_repo(tmp_path)
    (root / "evidence" / "store.sqlite").write_bytes(b"SQLite format 3\x00" + b"\xff" * 200)
    with pytest.raises(evidence_store.StoreError, match="^evidence store evidence/store.sqlite cannot be read: "):
        evidence_store.open_readonly(root, "evidence/store.sqlite")


# -- git history ------------------------------------------------------------------------------------

BIG_FILE = "src/big.txt"
NOT_IN_HISTORY = "0000000000000000"


def commit_versions(root: Path, versions: int, size: int) -> None:
    """A git repository at ``root`` whose ``BIG_FILE`` has ``versions`` committed versions of
    ``size`` bytes, one byte apart (git stores them as deltas: a few hundred KB in all), the last
    one checked out."""
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    lines = b"".join(b"%07d the same line of a large file, again and again\n" % n for n in range(size // 50))[:size]
    importing = subprocess.Popen(["git", "-C", str(root), "fast-import", "--quiet"], stdin=subprocess.PIPE)
    assert importing.stdin is not None
    importing.stdin.write(b"blob\nmark :1\ndata 17\n[tool.citations]\n\n")
    for n in range(versions):
        content = lines[:n] + b"#" + lines[n + 1:]
        importing.stdin.write(b"commit refs/heads/main\ncommitter A <a@example.com> %d +0000\ndata 4\nv%03d\n"
                              b"M 100644 :1 pyproject.toml\nM 100644 inline %s\ndata %d\n"
                              % (1_700_000_000 + n, n, BIG_FILE.encode(), len(content)) + content + b"\n")
    importing.stdin.close()
    assert importing.wait() == 0
    subprocess.run(["git", "-C", str(root), "symbolic-ref", "HEAD", "refs/heads/main"], check=True)
    subprocess.run(["git", "-C", str(root), "reset", "-q", "--hard"], check=True)


@pytest.fixture(scope="module")
def long_history(tmp_path_factory) -> Path:
    """60 versions of an 8 MB file (480 MB of history from a .git under 1 MB), settings that let git
    keep 2 GB of them in memory, and a note citing the file with a hash none of them has."""
    root = tmp_path_factory.mktemp("history") / "repo"
    commit_versions(root, 60, 8_000_000)
    subprocess.run(["git", "-C", str(root), "config", "core.deltaBaseCacheLimit", "2g"], check=True)
    (root / "notes").mkdir()
    (root / "notes" / "t.md").write_text(f"A claim [{BIG_FILE}@{NOT_IN_HISTORY}, L1].\n")
    return root


def stale_message(outcome: Outcome, front_end: str) -> str:
    """The one R408 message of a run of either front end."""
    if front_end == "citations check":
        found = [message for path, line, code, message in outcome.findings() if code == "R408"]
    else:
        found = re.findall(r"^(?:\S*/)?notes/t\.md:1:\d+: R408 (.*)$", outcome.output, re.MULTILINE)
    assert len(found) == 1, outcome.output[-2000:]
    return found[0]


WITHOUT_THE_RUNS_BOUND = """
import sys
from pytest_citations.core import git_history
git_history.RUN_HISTORY_BYTES = 1 << 40  # (out of the way: what is measured is the memory of the stream)
from pytest_citations.frontends.cli import main
sys.exit(main(["check", "--format", "json", "--no-cache", sys.argv[1]]))
"""


def test_a_files_history_is_hashed_as_it_streams_from_git(tmp_path, long_history):
    """Every one of the 60 versions is hashed, one at a time, in chunks. Was: all of them held at
    once (1.02 GB at the peak)."""
    outcome = run_bounded(tmp_path, sys.executable, "-c", WITHOUT_THE_RUNS_BOUND, str(long_history))
    outcome.assert_bounded()
    assert stale_message(outcome, "citations check").endswith(
        "; no version of the file in its git history has this hash; not fixed")


@pytest.mark.parametrize("front_end", ["citations check", "pytest --citations"])
def test_the_git_history_a_run_reads_is_bounded(tmp_path, long_history, front_end):
    """The run reads at most ``RUN_HISTORY_BYTES`` of history (its versions newest first), and the
    message says where it stopped and why. Was: 1.02 GB at the peak (1.04 GB for pytest)."""
    if front_end == "citations check":
        outcome = check_bounded(tmp_path, long_history)
    else:
        outcome = run_bounded(tmp_path, sys.executable, "-m", "pytest", "--citations", "-p", "no:cacheprovider",
                              "-p", "no:randomly", "-q", str(long_history))
    outcome.assert_bounded()
    read = (256 << 20) // 8_000_000
    assert stale_message(outcome, front_end).endswith(
        f"; no version of the file in the last {read} commits has this hash (this run read the 256 MiB of git history "
        "it allows); not fixed")


# -- EAR ids ------------------------------------------------------------------------------------------

EAR_SWEEP = r"""
import json, time
from pytest_citations.kinds.ear_ids.ids import is_anchored_id, is_part_id, is_section_id, normalize_ear_doc_id, normalize_ear_section_id
N = 100_000
NBSP = "\u00a0"
values = [
    "EAR-777." + "1" * N + "(", "EAR-" + "1" * N, "777." + "1" * N + "a" * N + "(", "(" * N, "EAR-777.1" + "(a" * N,
    "EAR-777.1" + "(1)" * N + "(", "EAR-777.1" + "(11111)" * (N // 5) + "(", "EAR-777" + ".1" * N + "(",
    "EAR-777" + ".1a" * N + "#", "§" * N + "736.2", "736.2" + "§" * N, NBSP * N + "736.2" + NBSP * N,
    "736.2" + NBSP * N + "x", "736.2" + " " * N + "x", "15 " + " " * N + "CFR 736.2", "15" + " c." * N, "EAR" + " " * N + "x",
    "EAR-777.1#" + "p" * N, "EAR-777.1#p" + "1" * N, "#" * N, "a " * N, "part" * N,
]
slowest = 0.0
for value in values:
    for check in (normalize_ear_section_id, normalize_ear_doc_id, is_section_id, is_anchored_id, is_part_id):
        started = time.process_time()
        check(value)
        slowest = max(slowest, time.process_time() - started)
print(json.dumps(slowest))
"""


def test_every_ear_id_check_is_linear_on_hostile_text(tmp_path):
    """Long digit runs, many ``(``, ``§§§``, no-break spaces, 100k characters each: the slowest check
    takes milliseconds (was: quadratic, ``EAR-777.`` + 3000 digits + ``(`` alone 0.4 s a call)."""
    outcome = run_bounded(tmp_path, sys.executable, "-c", EAR_SWEEP)
    outcome.assert_bounded()
    assert_cpu_under(json.loads(outcome.output), 0.25)


EAR_LONG_IDS = r"""
from pytest_citations.kinds.ear_ids.ids import is_anchored_id, is_section_id, normalize_ear_doc_id, normalize_ear_section_id
for value in ("EAR-777" + ".1" * 2_000_000, "EAR-777.1" + "(a)" * 1_300_000):
    assert is_section_id(value) and normalize_ear_section_id(value) == value
    assert is_anchored_id(value + "#p0001") and normalize_ear_doc_id(value + "#p0001") == value + "#p0001"
"""


def test_a_long_section_id_is_checked_in_memory_of_its_size(tmp_path):
    """A regex that repeats a group keeps a record of each repetition: 4 MB ids took 270 MB."""
    outcome = run_bounded(tmp_path, sys.executable, "-c", EAR_LONG_IDS)
    outcome.assert_bounded()
    assert outcome.status == 0


def _ear_repo(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "repo"
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    (root / "pyproject.toml").write_text("[tool.citations]\n")
    return root


def test_long_hostile_ids_in_a_dataset_are_checked_in_linear_time(tmp_path):
    """Was: 7.7 s for the first id (quadratic: 4000 digits 16.5 s)."""
    ids = ["EAR-777." + "7" * 3000 + "(", "777." + "1" * 3000 + "b" * 3000 + "("]
    items = "".join(json.dumps({"id": f"q{n}", "ear_sections": [value]}) + "\n" for n, value in enumerate(ids))
    outcome = check_bounded(tmp_path, _ear_repo(tmp_path, {"eval/items.jsonl": items}))
    outcome.assert_bounded()
    found = outcome.findings()
    assert [(path, line, code) for path, line, code, _ in found] == [("eval/items.jsonl", 1, "E503"), ("eval/items.jsonl", 2, "E503")]
    assert found[0][3].startswith("ear_sections[0] 'EAR-777.777")


KG_BASE = "https://ear.example.org/resource/ear/section/"


def test_kg_files_are_scanned_in_linear_time(tmp_path):
    """A long word with no colon, an open quote before each of many escaped quotes, a prefixed name
    followed by many periods: each rescanned from every position (a 20 KB word took 4.5 s), and a
    regex repeating a group kept a record of each repetition (100 bytes a character)."""
    n = 500_000
    words = (f"@prefix s: <{KG_BASE}> .\n" + "a" * n + "\n" + '"' + '\\"' * (n // 2) + "\n" + "'" + "\\'" * (n // 2) + "\n"
             + "<" + "b" * n + "\n" + "s:a" + "." * n + "\n")
    long_strings = f"@prefix s: <{KG_BASE}> .\n" + '"""' + '\\"' * (n // 2) + "\n" + "'''" * (n // 3)
    jsonld = '{"@id": "' + KG_BASE + 'EAR-736.2", "label": "' + '\\"' * (n // 2) + "\n"
    root = _ear_repo(tmp_path, {"kg/words.ttl": words, "kg/long.ttl": long_strings, "kg/quotes.jsonld": jsonld})
    outcome = check_bounded(tmp_path, root)
    outcome.assert_bounded()
    assert outcome.findings() == [("kg/words.ttl", 6, "E513", f"section IRI <{KG_BASE}a> does not name an EAR section ('a')")]


def test_a_deep_governed_path_is_walked_once(tmp_path):
    """An ``extra-paths`` entry 400 keys deep, reaching 50000 ids: each level decoded everything
    below it again, and each id carried its whole path spelled out (quadratic time and memory)."""
    depth, count = 400, 50_000
    nested: object = ["EAR-736.2"] * count + ["EAR-736"]
    for _ in range(depth - 1):  # (and the record's own "a")
        nested = {"a": nested}
    root = _ear_repo(tmp_path, {"eval/items.jsonl": json.dumps({"id": "q1", "ear_sections": ["EAR-740.1"], "a": nested}) + "\n"})
    path = ".".join(["a"] * depth) + "[]"
    (root / "pyproject.toml").write_text(f'[tool.citations.kinds.ear-ids]\nextra-paths = ["{path}"]\n')
    outcome = check_bounded(tmp_path, root)
    outcome.assert_bounded()
    (found,) = outcome.findings()
    assert found[:3] == ("eval/items.jsonl", 1, "E503")
    assert found[3].startswith("a.a.a.a")
    assert "[50000] 'EAR-736' is a part-level id" in found[3]


def _corpus(doc_id: str, section_id: str, kind: str = "section") -> str:
    return json.dumps({"schema_version": "retrieval-corpus.v1", "doc_id": doc_id, "section_id": section_id, "chunk_kind": kind,
                       "text": "..."}) + "\n"


def test_a_corpus_of_repeated_ids_and_anchors_gives_short_messages(tmp_path):
    """E505 named every record of the id it resolves to."""
    copies, anchors = 3000, 3000
    corpus = (_corpus("EAR-736.2", "EAR-736.2") * copies
              + "".join(_corpus(f"EAR-740.1#p{n % anchors + 1:04d}", "EAR-740.1", "paragraph") for n in range(2 * anchors)))
    items = json.dumps({"id": "q1", "ear_sections": ["EAR-736.2"]}) + "\n"
    outcome = check_bounded(tmp_path, _ear_repo(tmp_path, {"data/corpus.jsonl": corpus, "eval/items.jsonl": items}))
    outcome.assert_bounded()
    found = outcome.findings()
    assert ("eval/items.jsonl", 1, "E505", "ear_sections[0] 'EAR-736.2' resolves to 3000 corpus records (data/corpus.jsonl:1, "
            "data/corpus.jsonl:2, data/corpus.jsonl:3 and 2997 more); it must resolve to exactly one") in found
    kept = engine.KEPT_PER_CODE  # (the others of a code are counted by one C009)
    duplicates = [(line, message) for path, line, code, message in found if code == "E506"]
    assert duplicates[0] == (2, "doc_id 'EAR-736.2' is already the doc_id of the record at line 1")
    assert [line for line, _ in duplicates] == list(range(2, kept + 2))
    repeats = [(line, message) for path, line, code, message in found if code == "E508"]
    assert repeats[0] == (copies + anchors + 1, f"anchor #p0001 of 'EAR-740.1' already appears on line {copies + 1}")
    assert len(repeats) == kept


CORPUS_REL = "data/corpus.jsonl"


def _corpus_unit(line: int, doc_id: str) -> CorpusRecord:
    text = _corpus(doc_id, doc_id.split("#")[0]).strip()
    ref = IdRef("doc_id", doc_id, "doc", line, 1, 0, 0)
    return CorpusRecord(line, 0, text, json.loads(text), [ref])


def _rule_context() -> SimpleNamespace:
    return SimpleNamespace(rel=CORPUS_REL, file=SimpleNamespace(engine=None), state={})


def test_duplicate_doc_ids_are_found_in_linear_time(monkeypatch):
    """E506 looked each of 50000 records up in the list of its id's records (minutes)."""
    units = [_corpus_unit(line, "EAR-736.2") for line in range(1, 50_001)]
    index = CorpusIndex({"EAR-736.2": [(CORPUS_REL, unit.line) for unit in units]}, {(CORPUS_REL, unit.line) for unit in units})
    monkeypatch.setattr(corpus_rules, "corpus_index", lambda engine: index)
    ctx = _rule_context()
    with stopped_after(5):
        found = [finding for unit in units for finding in corpus_rules.ear_duplicate_doc_id.check(unit, ctx)]
    assert len(found) == 49_999
    assert found[0].message == "doc_id 'EAR-736.2' is already the doc_id of the record at line 1"


def test_anchor_sequences_are_checked_in_linear_time(monkeypatch):
    """E508 took the largest anchor seen so far from all of them, for each of 50000 records (here
    in a file outside the run-wide index, whose records are sequenced as the rule meets them)."""
    units = [_corpus_unit(line, f"EAR-740.1#p{(line - 1) % 9999 + 1:04d}") for line in range(1, 50_001)]
    monkeypatch.setattr(corpus_rules, "anchor_index", lambda engine: AnchorIndex({}, ()))
    ctx = _rule_context()
    with stopped_after(5):
        found = [finding for unit in units for finding in corpus_rules.ear_anchor_sequence.check(unit, ctx)]
    assert len(found) == 50_000 - 9999
    assert found[0].message == "anchor #p0001 of 'EAR-740.1' already appears on line 1"


def test_a_manifest_that_lists_one_large_dataset_many_times_reads_it_once(tmp_path):
    """Each entry read and counted the whole file, twice (E510, E511): 2000 entries of an 8 MB dataset."""
    record = json.dumps({"id": "q", "ear_sections": ["EAR-736.2"], "question": "x" * 800}) + "\n"
    count = 8_000_000 // len(record)
    entries = [{"id": f"items.v{n}", "file": "eval/items.jsonl", "num_items": count} for n in range(2000)]
    root = _ear_repo(tmp_path, {"eval/items.jsonl": record * count, "eval/manifest.json": json.dumps({"datasets": entries})})
    outcome = check_bounded(tmp_path, root)
    outcome.assert_bounded()
    assert outcome.findings() == []


# -- memories -----------------------------------------------------------------------------------------


def _memories(tmp_path: Path, texts: list[str]) -> Path:
    root = tmp_path / "repo"
    folder = root / ".serena" / "memories"
    folder.mkdir(parents=True)
    (root / "pyproject.toml").write_text("[tool.citations]\n")
    for number, text in enumerate(texts):
        (folder / f"m{number}.md").write_text(text)
    return root


def test_three_thousand_memories_with_one_id_give_short_messages(tmp_path):
    """Was: each of the 3000 named the 2999 others: 240 MB of output and 1 GB of memory."""
    root = _memories(tmp_path, ["---\nid: same\n---\n"] * 3000)
    outcome = check_bounded(tmp_path, root)
    outcome.assert_bounded()
    found = outcome.findings()
    assert len(found) == 3000
    assert len(outcome.output) < 2_000_000
    path, line, code, message = found[0]
    assert (line, code) == (2, "M214")
    others = sorted(f".serena/memories/m{n}.md" for n in range(3000) if f".serena/memories/m{n}.md" != path)
    assert message == f"memory id 'same' is also the id of {', '.join(others[:3])} and 2996 other files"


def test_a_two_thousand_memory_supersedes_cycle_is_found_in_linear_time(tmp_path):
    """Was: 21.6 s for 2000 memories, past 120 s for 5000 (a search from each memory, copying paths)."""
    size = 2000
    root = _memories(tmp_path, [f"---\nid: m{n}\nlinks:\n  - supersedes: m{(n + 1) % size}\n---\n" for n in range(size)])
    outcome = check_bounded(tmp_path, root)
    outcome.assert_bounded()
    found = outcome.findings()
    assert len(found) == size
    assert (".serena/memories/m5.md", 4, "M215", f"supersedes cycle: m5 -> m6 -> ... -> m5 ({size} memories supersede one another)") in found


def test_a_loop_too_long_to_search_is_reported_on_the_link_into_it(tmp_path):
    """Past the search's 64 links, M215 names the memory's first link into its loop (a link whose
    target is no id, a list, and one out of the loop are passed over) and the loop's size."""
    size = 100
    texts = [f"---\nid: m{n}\nlinks:\n  - supersedes: m{(n + 1) % size}\n---\n" for n in range(size)]
    texts[0] = "---\nid: m0\nlinks:\n  - supersedes: [m1]\n  - supersedes: elsewhere\n  - supersedes: m1\n---\n"
    root = _memories(tmp_path, texts)
    found = [(d.line, d.code, d.message) for d in Engine.load(root).check([root]).diagnostics if d.path == ".serena/memories/m0.md"]
    assert found == [
        (4, "M205", "links[0].supersedes must be a memory id (string), not a list"),
        (5, "M213", "supersedes link target 'elsewhere' matches no memory"),
        (6, "M215", "supersedes cycle: m0 -> m1 -> ... -> m0 (100 memories supersede one another)"),
    ]


def test_supersedes_loops_of_twenty_thousand_memories_take_linear_time():
    size = 20_000
    edges = {f"m{n}": [f"m{(n + 1) % size}"] for n in range(size)}  # one loop of them all
    edges.update({f"c{n}": [f"c{n + 1}"] for n in range(size)})  # a chain: no loop
    edges["self"] = ["self", "m0"]
    with cpu_time_under(2):
        index = MemoryIndex({}, edges)
        cycles = [graph_rules._supersedes_cycle(start, edges, loop) for start in edges if (loop := index.loop_of(start))]
    loops = supersedes_loops(edges)
    assert sorted(loops) == sorted([*(f"m{n}" for n in range(size)), "self"])
    assert loops["self"] == {"self"}
    assert loops["m0"] == set(f"m{n}" for n in range(size))
    assert all(loops[f"m{n}"] is loops["m0"] for n in range(size))  # one loop, shared
    assert len(cycles) == size + 1
    assert cycles[-1] == ["self", "self"]
    assert cycles[:-1] == [None] * size  # longer than the search follows: M215 then says so without the path


def test_a_cycle_longer_than_eight_memories_is_shown_by_its_ends():
    edges = {f"m{n}": [f"m{(n + 1) % 10}"] for n in range(10)}
    cycle = graph_rules._supersedes_cycle("m0", edges, frozenset(edges))
    assert graph_rules._shown_cycle(cycle) == "m0 -> m1 -> m2 -> m3 -> m4 -> ... (4 more) -> m9 -> m0"


def test_a_snippet_found_on_many_other_lines_is_named_by_the_first_few(tmp_path):
    """Was: each of 100 citations listed all 20000 lines that hold the snippet (14 MB of output)."""
    root = _memories(tmp_path, ["---\ncitations:\n" + "  - path: notes.txt\n    line: 1\n    snippet: note\n" * 100 + "---\n"])
    (root / "notes.txt").write_text("first\n" + "note\n" * 20_000)
    outcome = check_bounded(tmp_path, root)
    outcome.assert_bounded()
    found = outcome.findings()
    assert len(found) == 100
    assert found[0][2:] == ("M211", "Snippet mismatch at line 1. Expected 'note', got 'first' "
                                    "(found at lines 2, 3, 4 and 19997 more: update line by hand)")


# -- a file that grows while it is streamed -----------------------------------------------------------

GROWING = r"""
import os, sys
from pytest_citations.core import sources

checked = sources._regular_file

def then_grows(path, shown, max_size):
    # Once its size has been checked, the file grows to 4 GB: a line that never ends (sparse: no
    # disk is used), as a file appended to by another process while the check streams it.
    info = checked(path, shown, max_size)
    os.truncate(path, 4 << 30)
    return info

sources._regular_file = then_grows
from pytest_citations.frontends.cli import main
sys.exit(main(["check", "--format", "json", "--no-cache", sys.argv[1]]))
"""


def test_a_citations_file_growing_while_it_is_streamed_is_read_no_further_than_the_size_limit(tmp_path):
    """Was: the size limit was compared after a whole line was read: 4 GB. The limit caps a line
    of a JSON Lines file (issue 19): the line over it is read on, in blocks, only while the file
    has not grown past the size it had when opened."""
    root = tmp_path / "repo"
    (root / "runs" / "r" / "citations").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[tool.citations]\n")
    (root / "runs" / "r" / "citations" / "citations.jsonl").write_text('{"schema_version": "citation.v1"')
    outcome = run_bounded(tmp_path, sys.executable, "-c", GROWING, str(root))
    outcome.assert_bounded()
    assert outcome.findings() == [
        ("runs/r/citations/citations.jsonl", 1, "C001", "cannot read runs/r/citations/citations.jsonl: it grew past the "
         "32 bytes it had when its reading began, and is read no further: check it again once it is written")]


def test_many_findings_on_one_record_s_array_are_placed_in_linear_time(tmp_path):
    """10,000 ``found_by`` entries whose ``artifact_path`` names no file, on one 770 KB line: each finding's
    column rescanned the array from its start (69 s); the starts are found once per record."""
    record = valid_record("https://example.com/a")
    record["found_by"] = [{"wave": 1, "perspective_id": "p", "agent_type": "a", "artifact_path": "wave-1/gone.md"}] * 10_000
    root = tmp_path / "repo"
    (root / "run" / "citations").mkdir(parents=True)
    (root / "run" / "citations" / "citations.jsonl").write_text(json.dumps(record) + "\n", encoding="utf-8")
    outcome = check_bounded(tmp_path, root)
    outcome.assert_bounded()
    assert {code for _, _, code, _ in outcome.findings()} >= {"U111", "C009"}

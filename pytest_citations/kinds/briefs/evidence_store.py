"""The SQLite evidence store of brief-citation-contract.md §8: build it (``citations store init``,
``citations store import``) and read it, read-only, while checking briefs.

The DDL is ``evidence_store.sql`` in this package (documented in ``docs/evidence-store.md``). An
import file is JSON (an object of table name -> list of row objects) or JSON Lines (one object per
line with a ``"table"`` key and the row's columns). A citation row may be a §1 citation object:
its ``quote_span`` and ``snippet_span`` are flattened into the ``quote_*``/``snippet_text`` columns.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast, overload
from urllib.parse import quote

from pytest_citations.core import jsonlines, sources
from pytest_citations.run import budget, dependencies

if TYPE_CHECKING:
    from collections.abc import Callable

_CursorT = TypeVar("_CursorT", bound=sqlite3.Cursor)

TABLES = {
    "sources": ("id", "name", "url", "credibility_tier", "paywall_policy", "tags"),
    "documents": ("id", "source_id", "url", "title", "published_at", "fetched_at"),
    "chunks": ("id", "doc_id", "ordinal", "text"),
    "citations": (
        "id", "source_id", "publisher", "doc_id", "chunk_id", "url", "title", "published_at", "fetched_at",
        "quote_start", "quote_end", "quote_text", "snippet_text",
    ),
    "evidence_packs": (
        "pack_id", "query", "generated_at", "unique_publishers",
        "tier_1_pct", "tier_2_pct", "tier_3_pct", "tier_4_pct", "max_publisher_pct",
    ),
    "evidence_pack_chunks": ("pack_id", "chunk_id", "source_id", "score", "credibility_tier"),
    "syntheses": ("id", "brief_path", "pack_id", "generated_at"),
    "synthesis_markers": ("synthesis_id", "marker", "citation_id"),
    "synthesis_bullets": ("synthesis_id", "section", "bullet_index", "text"),
    "synthesis_bullet_citations": ("synthesis_id", "section", "bullet_index", "position", "citation_id"),
}


# A store whose documents or chunks table is larger is looked up per brief, never read whole.
MAX_ROWS_READ_WHOLE = 100_000
# Chunk texts are read whole (see Store.chunk_texts) once a run has asked for this many briefs' texts,
# and only when they hold at most this many characters in all.
TEXTS_READ_WHOLE_AFTER = 32
# Likewise every id (see Store.read_keys), once a run has asked about this many briefs' ids.
IDS_READ_WHOLE_AFTER = 32
MAX_TEXT_READ_WHOLE = 64 * 1024 * 1024
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def column_key(name: str) -> str:
    """A column name as SQLite compares it: ASCII letters folded, any other character kept, so a
    column declared ``TAGS`` or ``Text`` is read under the name the checks ask for."""
    return name.translate(_ASCII_LOWER)


def column_keys(cursor: sqlite3.Cursor) -> list[str]:
    """The column names of ``cursor``'s result, each as ``column_key`` gives it."""
    return [column_key(d[0]) for d in cursor.description]


class StoreError(Exception):
    """A store that cannot be built, imported into or read; the message says why."""


def ddl() -> str:
    from importlib import resources  # here: it imports tempfile, which checking a brief never needs

    return resources.files(__package__).joinpath("evidence_store.sql").read_text(encoding="utf-8")


def init(path: Path) -> None:
    """Create the store's tables in ``path`` (a new or existing SQLite file); idempotent."""
    try:
        with sqlite3.connect(path) as connection:
            connection.executescript(ddl())
        connection.close()
    except sqlite3.Error as exc:
        raise StoreError(f"cannot initialise {path}: {exc}") from None


def _flatten(table: str, row: dict[str, Any]) -> dict[str, Any]:
    row = dict(row)
    if table == "citations":
        quote_span = row.pop("quote_span", None)
        if isinstance(quote_span, dict):
            row.setdefault("quote_start", quote_span.get("start"))
            row.setdefault("quote_end", quote_span.get("end"))
            row.setdefault("quote_text", quote_span.get("text"))
        snippet = row.pop("snippet_span", None)
        if isinstance(snippet, dict):
            row.setdefault("snippet_text", snippet.get("text"))
    if table == "sources" and isinstance(row.get("tags"), list):
        row["tags"] = json.dumps(row["tags"])
    return row


def _rows(path: Path) -> list[tuple[str, dict[str, Any]]]:
    resolved = path.resolve()
    try:
        text = sources.read_source(resolved.parent, resolved.name).text
    except sources.SourceError as exc:
        raise StoreError(f"{path}: {exc.message}") from None
    found: list[tuple[str, dict[str, Any]]] = []
    if path.suffix == ".jsonl":
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                data = jsonlines.loads(line)
            except (ValueError, RecursionError) as exc:
                raise StoreError(f"{path}:{number}: {jsonlines.error_message(exc)[0]}") from None
            if not isinstance(data, dict) or not isinstance(data.get("table"), str):
                raise StoreError(f"{path}:{number}: expected an object with a \"table\" key")
            table = data.pop("table")
            found.append((table, data))
        return found
    try:
        data = jsonlines.loads(text)
    except (ValueError, RecursionError) as exc:
        raise StoreError(f"{path}: {jsonlines.error_message(exc, document=True)[0]}") from None
    if not isinstance(data, dict):
        raise StoreError(f"{path}: expected a JSON object of table name -> list of rows")
    for table, rows in data.items():
        if not isinstance(rows, list) or not all(isinstance(row, dict) for row in rows):
            raise StoreError(f"{path}: {table}: expected a list of row objects")
        found.extend((table, row) for row in rows)
    return found


def import_files(store: Path, paths: list[Path]) -> dict[str, int]:
    """Insert (or replace) the rows of ``paths`` into ``store`` in one transaction; rows per table."""
    rows = [item for path in paths for item in _rows(path)]
    counts: dict[str, int] = {}
    for table, row in rows:
        if table not in TABLES:
            raise StoreError(f"unknown table {table!r}; known: {', '.join(TABLES)}")
        extra = sorted(set(_flatten(table, row)) - set(TABLES[table]))
        if extra:
            raise StoreError(f"{table}: unknown column {extra[0]!r}; known: {', '.join(TABLES[table])}")
    if not store.is_file():
        raise StoreError(f"{store}: no such store; create it with `citations store init {store}`")
    try:
        connection = sqlite3.connect(store)
        with connection:
            for table, row in rows:
                row = _flatten(table, row)
                columns = ", ".join(row)
                marks = ", ".join("?" for _ in row)
                values = [json.dumps(v) if isinstance(v, (dict, list)) else v for v in row.values()]
                connection.execute(f"INSERT OR REPLACE INTO {table} ({columns}) VALUES ({marks})", values)
                counts[table] = counts.get(table, 0) + 1
        connection.close()
    except sqlite3.Error as exc:
        raise StoreError(f"cannot import into {store}: {exc}") from None
    return counts


# -- reading, read-only ---------------------------------------------------------------------------------


@dataclass
class Store:
    """An open store: ``doc_ids``/``chunks`` are loaded lazily, once per run."""

    rel: str
    connection: sqlite3.Connection
    _docs: dict[str, bool] = field(default_factory=dict)
    _chunks: dict[str, str | None] = field(default_factory=dict)
    _columns: dict[str, set[str]] = field(default_factory=dict)
    _keys_read: bool = False  # whether read_keys ran
    _complete: bool = False  # whether _docs and _chunks hold every id (see read_keys)
    _texts: dict[str, Any] | None = None  # every chunk's text by id, once read whole (see chunk_texts)
    _texts_asked: int = 0  # chunk_texts calls so far
    _ids_asked: int = 0  # holds_every_id calls so far

    def _plain_unique_id(self, table: str) -> bool:
        """Whether ``table``'s ``id`` is compared as plain text (TEXT or no affinity, no COLLATE in
        the table's definition) and unique (a one-column primary key or unique index), so that
        ``WHERE id = ?`` with a text key finds the one row whose id is that very string."""
        row = self.connection.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)).fetchone()
        if row is None:
            return False
        sql = row[0]
        declared = {row[1].lower(): row[2].upper() for row in self.connection.execute(f"PRAGMA table_info({table})")}
        if "id" not in declared or "COLLATE" in (sql or "").upper():
            return False
        kind = declared["id"]
        if "INT" in kind or not (kind == "" or "BLOB" in kind or any(t in kind for t in ("CHAR", "CLOB", "TEXT"))):
            return False  # a numeric affinity: '5' would find the row of 5
        for index in self.connection.execute(f"PRAGMA index_list({table})"):
            unique, partial = index[2], len(index) > 4 and index[4]
            columns = [(row[2] or "").lower() for row in self.connection.execute(f"PRAGMA index_info({index[1]!r})")]
            if unique and not partial and columns == ["id"]:
                return True
        return False

    def _at_most(self, table: str, rows: int) -> bool:
        """Whether ``table`` holds at most ``rows`` rows (counting no further than one past them)."""
        (count,) = self.connection.execute(f"SELECT count(*) FROM (SELECT 1 FROM {table} LIMIT ?)", (rows + 1,)).fetchone()
        return count <= rows

    def read_keys(self) -> None:
        """Read every document id and chunk's document once, when ids are plain unique text (as the
        project's DDL makes them) and the tables are not larger than :data:`MAX_ROWS_READ_WHOLE`:
        each lookup then answers from memory exactly as its query would. A larger store is looked
        up per brief, so that checking one brief never reads a whole large store."""
        if self._keys_read:
            return
        self._keys_read = True
        try:
            if not all(self._plain_unique_id(table) and self._at_most(table, MAX_ROWS_READ_WHOLE) for table in ("documents", "chunks")):
                return
            docs = {row[0]: True for row in self.connection.execute("SELECT id FROM documents") if isinstance(row[0], str)}
            chunks = {row[0]: row[1] for row in self.connection.execute("SELECT id, doc_id FROM chunks") if isinstance(row[0], str)}
        except sqlite3.Error:
            return
        self._docs, self._chunks, self._complete = docs, chunks, True

    def columns(self, table: str) -> set[str]:
        """The column names of ``table``, ASCII-lowercased as SQLite compares them (none when there
        is no such table or view); read once per table."""
        if table not in self._columns:
            try:
                cursor = self.connection.execute(f"SELECT * FROM {table} LIMIT 0")
                self._columns[table] = set(column_keys(cursor))
            except sqlite3.Error:
                self._columns[table] = set()
        return self._columns[table]

    def rows_each(self, sql: str, keys: list[Any]) -> tuple[list[str], list[list[tuple]]]:
        """(column names, for each key the rows ``execute(sql, (key,))`` gives), in one statement per
        hundred keys: ``sql`` (``SELECT ...`` with one ``?``) repeated in a UNION ALL, each arm's rows
        tagged with its key's position. A brief asks for a dozen documents and chunks at a time."""
        names: list[str] = []
        found: list[list[tuple]] = []
        for start in range(0, len(keys), 100):
            batch = keys[start : start + 100]
            arms = " UNION ALL ".join(sql.replace("SELECT ", f"SELECT {tag}, ", 1) for tag in range(len(batch)))
            cursor = self.connection.execute(arms, batch)
            names = column_keys(cursor)[1:]
            rows: list[list[tuple]] = [[] for _ in batch]
            for tag, *values in cursor.fetchall():
                rows[tag].append(tuple(values))
            found.extend(rows)
        return names, found

    def chunk_texts(self, chunk_ids: list[Any]) -> dict[Any, list[dict[str, Any]]] | None:
        """``{id: rows}`` as ``SELECT text FROM chunks WHERE id = ?`` gives them for each id (one
        ``{"text": ...}`` row, or none), from every chunk's text held in memory; None when the texts
        are not held (the caller then queries). They are read whole, in one statement, once a run
        has asked for the texts of :data:`TEXTS_READ_WHOLE_AFTER` briefs (a dozen chunks each, read
        in a query that costs a tenth of a millisecond), and only when :meth:`read_keys` read every id whole
        (plain unique text ids: a string key finds the row whose id is that string) and the texts
        hold at most :data:`MAX_TEXT_READ_WHOLE` characters. So checking a few briefs never reads
        a store whole."""
        self._texts_asked += 1
        if self._texts is None and self._texts_asked == TEXTS_READ_WHOLE_AFTER + 1:
            self._texts = self._read_texts()
        if self._texts is None or not all(isinstance(chunk_id, str) for chunk_id in chunk_ids):
            return None
        texts = self._texts
        return {chunk_id: [{"text": texts[chunk_id]}] if chunk_id in texts else [] for chunk_id in chunk_ids}

    def _read_texts(self) -> dict[str, Any] | None:
        """Every chunk's text by its (string) id, or None when :meth:`chunk_texts` may not hold them."""
        self.read_keys()
        if not self._complete:
            return None
        try:
            (size,) = self.connection.execute("SELECT total(length(text)) FROM chunks").fetchone()
            if size > MAX_TEXT_READ_WHOLE:
                return None
            rows = self.connection.execute("SELECT id, text FROM chunks")
            return {chunk_id: text for chunk_id, text in rows if isinstance(chunk_id, str)}
        except sqlite3.Error:  # no text column, say: each brief's query fails as it always did
            return None

    def holds_every_id(self) -> bool:
        """Whether every document id and chunk's document is held in memory, so that
        :meth:`preload` has nothing to do; asked once per brief. They are read whole (see
        :meth:`read_keys`) once a run has asked about :data:`IDS_READ_WHOLE_AFTER` briefs, so
        that checking a few briefs never reads a large store whole."""
        self._ids_asked += 1
        if self._ids_asked > IDS_READ_WHOLE_AFTER:
            self.read_keys()
        return self._complete

    def preload(self, doc_ids: list[str], chunk_ids: list[str]) -> None:
        """Look up at once the documents and chunks not looked up yet, so that ``has_document`` and
        ``chunk_document`` answer from memory; on a store error each is looked up alone, as before."""
        if self._complete:
            return
        docs = [doc_id for doc_id in dict.fromkeys(doc_ids) if doc_id not in self._docs]
        chunks = [chunk_id for chunk_id in dict.fromkeys(chunk_ids) if chunk_id not in self._chunks]
        try:
            _, rows = self.rows_each("SELECT 1 FROM documents WHERE id = ?", docs)
            self._docs.update((doc_id, bool(found)) for doc_id, found in zip(docs, rows, strict=True))
            _, rows = self.rows_each("SELECT doc_id FROM chunks WHERE id = ?", chunks)
            self._chunks.update((chunk_id, found[0][0] if found else None) for chunk_id, found in zip(chunks, rows, strict=True))
        except sqlite3.Error:
            return

    def has_document(self, doc_id: str) -> bool:
        if self._complete and isinstance(doc_id, str):
            return doc_id in self._docs
        if doc_id not in self._docs:
            row = self.connection.execute("SELECT 1 FROM documents WHERE id = ?", (doc_id,)).fetchone()
            self._docs[doc_id] = row is not None
        return self._docs[doc_id]

    def chunk_document(self, chunk_id: str) -> str | None:
        """The doc_id of a chunk, or None when there is no such chunk."""
        if self._complete and isinstance(chunk_id, str):
            return self._chunks.get(chunk_id)
        if chunk_id not in self._chunks:
            row = self.connection.execute("SELECT doc_id FROM chunks WHERE id = ?", (chunk_id,)).fetchone()
            self._chunks[chunk_id] = row[0] if row else None
        return self._chunks[chunk_id]

    def markers(self, brief_rel: str) -> dict[str, dict[str, Any]] | None:
        """The citation objects of the synthesis stored for ``brief_rel``, by marker; None if none is."""
        row = self.connection.execute("SELECT id FROM syntheses WHERE brief_path = ?", (brief_rel,)).fetchone()
        if row is None:
            return None
        found: dict[str, dict[str, Any]] = {}
        query = (
            "SELECT m.marker, c.* FROM synthesis_markers m LEFT JOIN citations c ON c.id = m.citation_id "
            "WHERE m.synthesis_id = ? ORDER BY m.marker"
        )
        cursor = self.connection.execute(query, (row[0],))
        names = column_keys(cursor)
        for values in cursor.fetchall():
            record = dict(zip(names, values, strict=True))
            marker = str(record.pop("marker"))
            if record.get("id") is None:
                continue  # the marker names a citation the store does not hold
            citation = {k: v for k, v in record.items() if v is not None and not k.startswith(("quote_", "snippet_"))}
            if record.get("quote_text") is not None or record.get("quote_start") is not None:
                citation["quote_span"] = {"start": record.get("quote_start"), "end": record.get("quote_end"), "text": record.get("quote_text")}
            if record.get("snippet_text") is not None:
                citation["snippet_span"] = {"text": record["snippet_text"]}
            found[marker] = citation
        return found


# -- opening a store from the checkout ------------------------------------------------------------------
#
# The store is a file of the checkout, so whoever wrote the pull request wrote it (docs/security.md).
# It is opened so that it cannot write, compute or run away: the file read-only and immutable (no
# -wal or -shm is ever created beside it), SQLite's limits set from its size, every statement under
# a time budget of its own and within what is left of the run's (every store of a run, nested
# roots' included, shares RUN_SECONDS), schema objects that compute when read (views, triggers,
# virtual tables, generated columns) refused, and a store kept as SQL text loaded through an
# authorizer that lets it only create our tables and insert the rows it spells out.

STATEMENT_SECONDS = 2.0  # the time one statement on a store may take; past it the store is read no further
LOAD_SECONDS = 2.0  # the time loading a store kept as SQL text may take, plus LOAD_SECONDS_PER_MIB per MiB
LOAD_SECONDS_PER_MIB = 1.0
# The time every store of a run may take in all, loading and queries, nested roots' stores included
# (their budgets must not add up): what one store may take to load, plus LOAD_SECONDS_PER_MIB for
# each MiB of SQL text loaded and STATEMENT_ALLOWANCE for each statement run (a statement on a store
# of ours takes microseconds: a large run's many statements never use up the time it brings).
RUN_SECONDS = LOAD_SECONDS
STATEMENT_ALLOWANCE = 0.0002
PROGRESS_STEPS = 1000  # SQLite virtual-machine steps between two looks at the clock
MEMORY_PER_DUMP_BYTE = 4  # bytes of memory a store loaded from SQL text may take per byte of text (plus 1 MiB)
MIN_LIMIT = 1 << 20  # the least SQLite's length limits are set to, however small the store
REQUIRED_TABLES = ("documents", "chunks", "citations", "syntheses", "synthesis_markers")
# Columns a store may add to ours: topic tags of the bullets (docs/brief-quality.md).
EXTRA_COLUMNS = {"synthesis_bullets": ("tags",)}
# What `sqlite3 store.sqlite .dump` writes besides CREATE and INSERT: the pragmas, and the functions
# that spell text holding line ends or escapes.
DUMP_PRAGMAS = frozenset({"user_version", "foreign_keys"})
DUMP_FUNCTIONS = frozenset({"replace", "char", "unistr"})


def _run_time() -> budget.Allowance:
    """The time the stores of this run may still take (see :data:`RUN_SECONDS`)."""
    return budget.allowance("evidence-store seconds", RUN_SECONDS)


def _run_time_spent(rel: str) -> StoreError:
    dependencies.note_run_limit()
    return StoreError(
        f"evidence store {rel}: the evidence stores of this run took longer than it allows them ({RUN_SECONDS:g} s, "
        f"{LOAD_SECONDS_PER_MIB:g} s more per MiB of SQL text loaded and {STATEMENT_ALLOWANCE * 1000:g} ms per query; "
        "every root's stores share that time); the store is read no further")


class BoundedConnection(sqlite3.Connection):
    """A connection to a store whose every statement runs under a time budget, and within the time
    the run's stores may still take: a progress handler ends a statement that runs past it, and from
    then on the store is read no further. Any failure of a statement other than a missing table or
    column raises :class:`StoreError`, which is no ``sqlite3.Error``, so that no caller takes a
    store that cannot be read for one without that table, or an unfinished query for an empty
    answer."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.rel = ""
        self.budget = STATEMENT_SECONDS
        self.deadline = 0.0
        self.overran = False
        self.cut_short = False  # whether the statement's deadline is the run's, sooner than its own
        self.set_progress_handler(self._past_deadline, PROGRESS_STEPS)

    def _past_deadline(self) -> bool:
        self.overran = self.overran or time.monotonic() > self.deadline
        return self.overran

    @overload
    def cursor(self, factory: None = None) -> _BoundedCursor: ...
    @overload
    def cursor(self, factory: Callable[[sqlite3.Connection], _CursorT]) -> _CursorT: ...
    def cursor(self, factory: Any = None) -> sqlite3.Cursor:
        return super().cursor(factory or _BoundedCursor)

    def execute(self, sql: str, parameters: Any = ()) -> sqlite3.Cursor:
        return self.cursor().execute(sql, parameters)  # (Connection.execute makes a plain cursor)

    def start(self, seconds: float) -> None:
        """Begin a statement that may run for ``seconds``, or for what is left of the run's time."""
        if self.overran:
            raise self.failure(None)
        run_time = _run_time()
        run_time.grant(STATEMENT_ALLOWANCE)
        left = run_time.left
        self.budget, self.cut_short = seconds, left < seconds
        if left <= 0:
            self.overran = True
            raise self.failure(None)
        self.deadline = time.monotonic() + min(seconds, left)

    def failure(self, exc: sqlite3.Error | None) -> StoreError:
        if self.overran and self.cut_short:
            return _run_time_spent(self.rel)
        if self.overran or exc is None:
            dependencies.note_run_limit()  # (the machine's load may have decided it)
            return StoreError(f"evidence store {self.rel}: a query ran longer than {round(self.budget, 2):g} s; the store is read no further")
        return StoreError(f"evidence store {self.rel} cannot be read: {exc}")

    def timed(self, call: Any, *args: Any) -> Any:
        """``call(*args)``, the time it takes spent from the run's (see :data:`RUN_SECONDS`)."""
        started = time.monotonic()
        try:
            return call(*args)
        finally:
            _run_time().spend(time.monotonic() - started)

    def guarded(self, call: Any, *args: Any) -> Any:
        """``call(*args)``, timed, a statement's failure raised as :meth:`failure` says, except a table
        or column the store does not have (stores may leave out the tables and columns they do not use)."""
        try:
            return self.timed(call, *args)
        except sqlite3.Error as exc:
            if not self.overran and str(exc).startswith(("no such table", "no such column")):
                raise
            raise self.failure(exc) from None


class _BoundedCursor(sqlite3.Cursor):
    """A cursor of a :class:`BoundedConnection`: each statement starts its time budget."""

    connection: BoundedConnection  # (only BoundedConnection.cursor makes one)

    def execute(self, sql: str, parameters: Any = ()) -> _BoundedCursor:
        self.connection.start(STATEMENT_SECONDS)
        return self.connection.guarded(super().execute, sql, parameters)

    def fetchone(self) -> Any:
        return self.connection.guarded(super().fetchone)

    def fetchmany(self, size: int | None = None) -> list:
        return self.connection.guarded(super().fetchmany, self.arraysize if size is None else size)

    def fetchall(self) -> list:
        return self.connection.guarded(super().fetchall)

    def __next__(self) -> Any:
        return self.connection.guarded(super().__next__)


def _bounded(database: str, rel: str, size: int, uri: bool = False) -> BoundedConnection:
    """A :class:`BoundedConnection` to ``database``, with SQLite's limits set for a store of ``size``
    bytes (no value or statement longer than the store itself, no ATTACH; ``Connection.setlimit``
    is Python 3.11's, and Python 3.10 keeps SQLite's own limits) and the settings SQLite advises for
    a database file from elsewhere: functions in the schema limited to harmless ones, every page
    checked as it is read, no memory mapping."""
    connection = sqlite3.connect(database, uri=uri, factory=BoundedConnection)
    connection.rel = rel
    if hasattr(connection, "setlimit"):
        length = max(size, MIN_LIMIT)
        # (the SQLITE_LIMIT_ constants are Python 3.11's, as setlimit is; mypy checks against 3.10)
        for limit, value in (
            (sqlite3.SQLITE_LIMIT_LENGTH, length),  # type: ignore[attr-defined]
            (sqlite3.SQLITE_LIMIT_SQL_LENGTH, length),  # type: ignore[attr-defined]
            (sqlite3.SQLITE_LIMIT_ATTACHED, 0),  # type: ignore[attr-defined]
        ):
            connection.setlimit(limit, value)
    for setting in ("trusted_schema = OFF", "cell_size_check = ON", "mmap_size = 0"):
        connection.execute(f"PRAGMA {setting}")
    return connection


_READ_ACTIONS = {sqlite3.SQLITE_READ, sqlite3.SQLITE_SELECT, sqlite3.SQLITE_FUNCTION, sqlite3.SQLITE_PRAGMA}
if hasattr(sqlite3, "SQLITE_RECURSIVE"):
    _READ_ACTIONS.add(sqlite3.SQLITE_RECURSIVE)


def _read_authorizer(action, arg1, arg2, database, trigger):
    return sqlite3.SQLITE_OK if action in _READ_ACTIONS else sqlite3.SQLITE_DENY


def _schema_problem(connection: sqlite3.Connection) -> str | None:
    """What makes the store's schema other than ours, or None: a view or trigger, a virtual table,
    a table that is not one of :data:`TABLES` (SQLite's own tables aside), or a table with a column
    that is generated or not one of its columns. Indexes are allowed; they compute nothing that a
    read returns."""
    for kind, name, sql in connection.execute("SELECT type, name, sql FROM sqlite_master ORDER BY rowid").fetchall():
        if kind in ("view", "trigger"):
            return f"holds the {kind} {name!r}, which computes what is read"
        if kind != "table" or name.startswith("sqlite_"):
            continue
        if (sql or "").lstrip()[:14].upper() == "CREATE VIRTUAL":
            return f"holds the virtual table {name!r}, whose rows are computed"
        table = column_key(name)
        if table not in TABLES:
            return f"holds the table {name!r}, which is none of its tables ({', '.join(TABLES)})"
        problem = _columns_problem(connection, table)
        if problem:
            return problem
    return None


def _columns_problem(connection: sqlite3.Connection, table: str) -> str | None:
    """What is wrong with the columns of one of our tables: a generated column (computed when read),
    or a column that is not one of the table's; None when nothing is."""
    allowed = {*TABLES[table], *EXTRA_COLUMNS.get(table, ())}
    for row in connection.execute(f"PRAGMA table_xinfo({table})").fetchall():
        column, hidden = row[1], row[6]
        if hidden:
            return f"computes the column {table}.{column} when it is read (a generated column)"
        if column_key(column) not in allowed:
            return f"gives {table} the column {column!r}, which is none of its columns ({', '.join(TABLES[table])})"
    return None


def _verify(connection: sqlite3.Connection, rel: str) -> None:
    """Refuse a store whose schema is not ours (see :func:`_schema_problem`) or lacks a table the
    checks read."""
    problem = _schema_problem(connection)
    if problem:
        raise StoreError(f"evidence store {rel} is not a store built by `citations store init`: it {problem}")
    tables = {column_key(name) for (name,) in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()}
    missing = [table for table in REQUIRED_TABLES if table not in tables]
    if missing:
        raise StoreError(f"evidence store {rel} lacks the table {missing[0]!r}; build it with `citations store init`")


def _unmerged_log(path: Path) -> bool:
    """Whether a write-ahead log with content lies beside the store: its rows are not in the store
    file, and reading them would mean writing beside it."""
    try:
        return os.lstat(f"{path}-wal").st_size > 0
    except OSError:
        return False


def _from_file(root: Path, rel: str, path: Path) -> BoundedConnection:
    """A store file, opened read-only and immutable: SQLite then writes nothing beside it (a store
    in WAL mode opened only read-only makes a -shm file) and takes no lock."""
    dependencies.note_path(root, f"{rel}-wal")
    if _unmerged_log(path):
        raise StoreError(
            f"evidence store {rel} has a write-ahead log {rel}-wal that is not merged into it, and a check reads "
            f"the store file alone: merge it (`sqlite3 {rel} 'PRAGMA journal_mode = DELETE'`) and commit the store without it"
        )
    connection = _bounded(f"file:{quote(path.as_posix())}?mode=ro&immutable=1", rel, path.stat().st_size, uri=True)
    connection.set_authorizer(_read_authorizer)
    return connection


_ACTION_WORDS = {
    getattr(sqlite3, f"SQLITE_{name}"): name.lower().replace("_", " ")
    for name in ("ALTER_TABLE", "ANALYZE", "ATTACH", "CREATE_TEMP_INDEX", "CREATE_TEMP_TABLE", "CREATE_TEMP_TRIGGER",
                 "CREATE_TEMP_VIEW", "CREATE_TRIGGER", "CREATE_VIEW", "CREATE_VTABLE", "DELETE", "DETACH", "DROP_INDEX",
                 "DROP_TABLE", "DROP_TRIGGER", "DROP_VIEW", "DROP_VTABLE", "RECURSIVE", "REINDEX", "SAVEPOINT")
    if hasattr(sqlite3, f"SQLITE_{name}")
}


def _is_schema_table(name: str | None) -> bool:
    """SQLite's own tables, which creating a table or index writes and reads."""
    return name is not None and name.startswith("sqlite_")


class _DumpGuard:
    """The authorizer of a store kept as SQL text while it loads: what ``sqlite3 .dump`` writes
    (CREATE TABLE and INDEX, INSERT of rows it spells out, BEGIN and COMMIT, the pragmas
    :data:`DUMP_PRAGMAS` and the functions :data:`DUMP_FUNCTIONS`) and nothing else. In particular
    no statement reads rows (``INSERT ... SELECT`` from a table, a cross join of them) and no
    function makes data (``zeroblob``, ``printf``). It remembers the first thing it refused, for
    the message."""

    def __init__(self) -> None:
        self.refused: str | None = None
        self.creating: str | None = None  # the table a CREATE statement being read is about
        self.indexing: str | None = None  # the index a CREATE INDEX statement being read makes

    def __call__(self, action, arg1, arg2, database, trigger) -> int:
        reason = self._refusal(action, arg1, arg2)
        if reason is None:
            return sqlite3.SQLITE_OK
        self.refused = self.refused or reason
        return sqlite3.SQLITE_DENY

    def _refusal(self, action: int, arg1: str | None, arg2: str | None) -> str | None:
        if action == sqlite3.SQLITE_INSERT:  # (creating a table or index inserts into sqlite_master first)
            self.creating = self.creating if _is_schema_table(arg1) else None
            return None
        if action in (sqlite3.SQLITE_CREATE_TABLE, sqlite3.SQLITE_CREATE_INDEX):
            # (SQLite always names the table of a CREATE TABLE in arg1)
            self.creating = column_key(cast(str, arg1) if action == sqlite3.SQLITE_CREATE_TABLE else arg2 or "")
            self.indexing = arg1 if action == sqlite3.SQLITE_CREATE_INDEX else None
            return None
        if action == sqlite3.SQLITE_REINDEX and arg1 == self.indexing:  # (a new index is filled so)
            return None
        if action == sqlite3.SQLITE_TRANSACTION:
            return None
        if action == sqlite3.SQLITE_PRAGMA:
            return None if arg1 in DUMP_PRAGMAS else f"sets PRAGMA {arg1}"
        if action == sqlite3.SQLITE_FUNCTION:
            return None if (arg2 or "").lower() in DUMP_FUNCTIONS else f"calls {arg2}()"
        if action == sqlite3.SQLITE_UPDATE:
            return None if _is_schema_table(arg1) else f"updates rows of {arg1!r}"
        if action == sqlite3.SQLITE_READ:  # a CHECK or an index reads its own table's columns
            return None if _is_schema_table(arg1) or column_key(arg1 or "") == self.creating else f"reads rows of {arg1!r}"
        if action == sqlite3.SQLITE_SELECT:  # the rows of a multi-row INSERT ... VALUES
            return None if self.creating is None else "creates a table from a SELECT"
        return f"does what a dump never does: {_ACTION_WORDS.get(action, f'SQLite action {action}')} {arg1!r}"

    def replace(self, text: Any, old: Any, new: Any) -> Any:
        """SQLite's ``replace()`` as a dump uses it, to turn escapes into the characters they stand
        for: never making a text longer (nested, it would grow a few bytes into gigabytes)."""
        if text is None or old is None or new is None:
            return None
        if not (isinstance(text, str) and isinstance(old, str) and isinstance(new, str)):
            self.refused = self.refused or "calls replace() on a value that is not text"
            raise ValueError(self.refused)
        if old and len(new) > len(old) and old in text:
            self.refused = self.refused or "calls replace() to make a text longer"
            raise ValueError(self.refused)
        return text.replace(old, new) if old else text


def _load_failure(rel: str, connection: BoundedConnection, guard: _DumpGuard, exc: sqlite3.Error, size: int) -> str:
    """Why a store kept as SQL text could not be loaded."""
    if connection.overran and connection.cut_short:
        return str(_run_time_spent(rel))
    if connection.overran:
        return f"evidence store {rel}: loading it took longer than {round(connection.budget, 2):g} s"
    if guard.refused:
        return (f"evidence store {rel} is not a dump of a store: it {guard.refused}, and a store kept as SQL text "
                "may only create tables and indexes and insert the rows it spells out")
    if str(exc).startswith("database or disk is full"):
        return (f"evidence store {rel}: loading it would take more than {MEMORY_PER_DUMP_BYTE} times its size "
                f"(plus 1 MiB) of memory")
    if str(exc).startswith("string or blob too big"):
        return f"evidence store {rel}: it makes a value longer than {max(size, MIN_LIMIT)} bytes"
    return f"evidence store {rel} cannot be read: {exc}"


def _from_dump(root: Path, rel: str) -> BoundedConnection:
    """A store kept as SQL text (``sqlite3 store.sqlite .dump``), loaded into memory: through
    :class:`_DumpGuard`, in at most ``LOAD_SECONDS`` plus ``LOAD_SECONDS_PER_MIB`` per MiB (which
    the run's time grows by) and within the run's time, and in at most ``MEMORY_PER_DUMP_BYTE``
    bytes per byte of text (plus 1 MiB). Then it is only read."""
    try:
        source = sources.read_source(root, rel)
    except sources.SourceError as exc:
        raise StoreError(f"evidence store {rel}: {exc.message}") from None
    size = len(source.raw)
    per_size = LOAD_SECONDS_PER_MIB * size / (1 << 20)
    _run_time().grant(per_size)
    connection = _bounded(":memory:", rel, size)
    (page_size,) = connection.execute("PRAGMA page_size").fetchone()
    connection.execute(f"PRAGMA max_page_count = {(MEMORY_PER_DUMP_BYTE * size + MIN_LIMIT) // page_size + 1}")
    guard = _DumpGuard()
    connection.create_function("replace", 3, guard.replace, deterministic=True)
    connection.set_authorizer(guard)
    connection.start(LOAD_SECONDS + per_size)
    try:
        connection.timed(connection.executescript, source.text)
    except sqlite3.Error as exc:
        connection.close()
        raise StoreError(_load_failure(rel, connection, guard, exc, size)) from None
    # From here on the store is only read. (An authorizer is replaced, not removed: Python 3.10
    # cannot remove one.)
    connection.set_authorizer(_read_authorizer)
    return connection


def open_readonly(root: Path, rel: str) -> Store:
    """The store at ``rel`` inside ``root``, never written by a check, and read only as far as its
    schema is ours. A ``.sql`` file is a store kept as SQL text, loaded into memory."""
    try:
        path = sources.resolve_inside(root, rel)
    except sources.SourceError as exc:
        raise StoreError(exc.message) from None
    if not path.is_file():
        raise StoreError(f"evidence store {rel} does not exist")
    if _run_time().spent:
        raise _run_time_spent(rel)
    try:
        connection = _from_dump(root, rel) if path.suffix == ".sql" else _from_file(root, rel, path)
    except sqlite3.Error as exc:  # (a failure of a statement is a StoreError already)
        raise StoreError(f"evidence store {rel} cannot be read: {exc}") from None
    try:
        connection.execute("PRAGMA query_only = ON")
        _verify(connection, rel)
    except StoreError:
        connection.close()
        raise
    except sqlite3.Error as exc:  # a table _verify reads is missing: the store is no SQLite store of ours
        connection.close()
        raise StoreError(f"evidence store {rel} cannot be read: {exc}") from None
    return Store(rel, connection)

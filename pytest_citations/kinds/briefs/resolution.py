"""What a brief's markers resolve to, read with the brief (:meth:`model.Briefs.units`): the
stored citation objects, from its sidecar ``<stem>.citations.json`` (or ``<name>.citations.json``)
or from the SQLite evidence store named by ``evidence-store``; the §4.4 evidence pack and §8's
bullet tags, from either; the source registry; and the stored text of a cited chunk. What cannot
be read is reported as B318 (the citation objects) or B319 (the registry)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any

from pytest_citations.core import jsonlines, sources
from pytest_citations.kinds import Reported
from pytest_citations.kinds.briefs.parse_rules import citation_objects_unreadable, source_registry_invalid
from pytest_citations.rules import Finding

if TYPE_CHECKING:
    from pytest_citations.kinds.briefs.model import Brief


def sidecar_candidates(rel: str) -> list[str]:
    """``<stem>.citations.json`` and ``<name>.citations.json`` of a brief; a plain path (no empty,
    ``.`` or ``..`` part) is cut as ``PurePosixPath.with_suffix`` would, without building one."""
    if not sources._is_plain(rel):
        return [str(PurePosixPath(rel).with_suffix(".citations.json")), f"{rel}.citations.json"]
    name = rel.rpartition("/")[2]
    dot = name.rfind(".")
    stem = rel[: len(rel) - len(name) + dot] if 0 < dot < len(name) - 1 else rel
    return [f"{stem}.citations.json", f"{rel}.citations.json"]


def _is_file_inside(root, rel: str) -> bool:
    """Whether ``rel`` resolves inside ``root`` (``sources.resolve_inside``) to something that
    exists, found by ``sources.stat_inside``: one ``lstat`` for a regular file, else the path
    resolved and ``os.stat``, as ``exists`` does. An error ``exists`` may raise takes its way."""
    try:
        sources.stat_inside(root, rel)
    except (sources.SourceError, FileNotFoundError):
        return False
    except (OSError, ValueError):
        return sources.resolve_inside(root, rel).exists()
    return True


def _load_sidecar(ctx, brief: Brief) -> Iterator[Reported]:
    root, max_size = ctx.root, ctx.max_file_size
    for candidate in sidecar_candidates(brief.rel):
        if not _is_file_inside(root, candidate):
            continue
        try:
            text = sources.read_source(root, candidate, max_size).text
            data = jsonlines.loads(text)
        except sources.SourceError as exc:
            brief.citation_source = candidate  # unreadable: B318 says so, B307 stays quiet
            yield citation_objects_unreadable.report(Finding(f"sidecar {candidate}: {exc.message}"))
            return
        except (ValueError, RecursionError) as exc:
            # the place in the sidecar goes into the message, as B319 places a registry's problems
            message, line, col = jsonlines.error_message(exc, text=text)
            message = message.removesuffix(f" at column {col}")  # said once, in front
            brief.citation_source = candidate
            yield citation_objects_unreadable.report(Finding(f"sidecar {candidate}:{line}:{col}: {message}"))
            return
        citations = data.get("citations") if isinstance(data, dict) else None
        if not isinstance(citations, dict):
            shown = jsonlines.describe(data) if not isinstance(data, dict) else "an object without a \"citations\" object"
            brief.citation_source = candidate
            yield citation_objects_unreadable.report(Finding(f"sidecar {candidate}: expected {{\"citations\": {{\"1\": {{...}}}}}}, got {shown}"))
            return
        bad = [key for key, value in citations.items() if not key.isdigit() or not key.isascii() or not isinstance(value, dict)]
        if bad:
            yield citation_objects_unreadable.report(Finding(f"sidecar {candidate}: citations[{bad[0]!r}] must map a marker number to a citation object"))
        brief.citations = {str(int(k)): v for k, v in citations.items() if k.isdigit() and k.isascii() and len(k) <= 9 and isinstance(v, dict)}
        brief.citation_source = candidate
        brief.sidecar = data
        if isinstance(data.get("evidence_pack"), dict):
            brief.pack, brief.pack_source = data["evidence_pack"], candidate
        brief.bullet_tags = _sidecar_bullet_tags(data.get("bullets"))
        return


def _sidecar_bullet_tags(bullets: Any) -> dict[tuple[str, int], list[str]] | None:
    """Topic tags of §8's bullet mapping: ``{"prevailing": [{"citations": [...], "tags": [...]}]}``."""
    if not isinstance(bullets, dict):
        return None
    found: dict[tuple[str, int], list[str]] = {}
    for section, items in bullets.items():
        if not isinstance(items, list):
            continue
        for index, item in enumerate(items):
            if isinstance(item, dict) and isinstance(item.get("tags"), list):
                found[(section, index)] = [t for t in item["tags"] if isinstance(t, str)]
    return found or None


def _load_store(ctx, brief: Brief) -> Iterator[Reported]:
    from pytest_citations.kinds.briefs import evidence_store

    rel = ctx.kind_options.get("evidence-store", "")
    if not rel:
        return
    def open_store():
        try:
            return evidence_store.open_readonly(ctx.root, rel)
        except evidence_store.StoreError as exc:
            return exc

    store = ctx.engine.memo(("briefs.store", rel), open_store)
    if isinstance(store, evidence_store.StoreError):
        yield citation_objects_unreadable.report(Finding(str(store)))
        return
    try:
        if brief.citations is None and brief.citation_source is None:
            stored = store.markers(brief.rel)
            if stored is not None:
                brief.citations = stored
                brief.citation_source = f"evidence store {rel}"
        if brief.pack is None:
            pack = store_pack(store, brief.rel)
            if pack is not None:
                brief.pack, brief.pack_source = pack, f"evidence store {rel}"
        if brief.bullet_tags is None:
            brief.bullet_tags = store_bullet_tags(store, brief.rel)
    except evidence_store.StoreError as exc:  # a query past its time budget, a damaged page
        if brief.citations is None:
            brief.citation_source = f"evidence store {rel}"  # unreadable: B318's, not B307's
        yield citation_objects_unreadable.report(Finding(str(exc)))
        return
    brief.store = store


def _query(store, sql: str, params: tuple) -> list[dict[str, Any]] | None:
    import sqlite3

    from pytest_citations.kinds.briefs.evidence_store import column_keys

    try:
        cursor = store.connection.execute(sql, params)
    except sqlite3.Error:  # a table or column this store does not have
        return None
    names = column_keys(cursor)
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def store_pack(store, brief_rel: str) -> dict[str, Any] | None:
    """The §4.4 pack of the synthesis stored for ``brief_rel`` (chunks dated by their document)."""
    rows = _query(
        store,
        "SELECT p.* FROM syntheses s JOIN evidence_packs p ON p.pack_id = s.pack_id WHERE s.brief_path = ?",
        (brief_rel,),
    )
    if not rows:
        return None
    head = rows[0]
    chunks = _query(
        store,
        "SELECT e.chunk_id, e.source_id, e.score, e.credibility_tier, d.published_at FROM evidence_pack_chunks e "
        "LEFT JOIN chunks c ON c.id = e.chunk_id LEFT JOIN documents d ON d.id = c.doc_id "
        "WHERE e.pack_id = ? ORDER BY e.rowid",
        (head["pack_id"],),
    ) or []
    stats = {k: head[k] for k in ("unique_publishers", "tier_1_pct", "tier_2_pct", "tier_3_pct", "tier_4_pct", "max_publisher_pct")
             if head.get(k) is not None}
    pack = {"pack_id": head["pack_id"], "query": head.get("query"), "generated_at": head.get("generated_at"),
            "chunks": [{k: v for k, v in c.items() if v is not None} for c in chunks]}
    if stats:
        pack["diversity_stats"] = stats
    return pack


def store_bullet_tags(store, brief_rel: str) -> dict[tuple[str, int], list[str]] | None:
    """Topic tags from a ``tags`` column (a JSON array) of ``synthesis_bullets``, when the store has one."""
    import json

    if "tags" not in store.columns("synthesis_bullets"):
        return None  # the query below would fail, once per brief
    rows = _query(
        store,
        "SELECT b.section, b.bullet_index, b.tags FROM synthesis_bullets b JOIN syntheses s ON s.id = b.synthesis_id "
        "WHERE s.brief_path = ?",
        (brief_rel,),
    )
    found: dict[tuple[str, int], list[str]] = {}
    for row in rows or ():
        try:
            tags = json.loads(row["tags"]) if isinstance(row["tags"], str) else None
        except ValueError:
            tags = None
        if isinstance(tags, list):
            found[(row["section"], row["bullet_index"])] = [t for t in tags if isinstance(t, str)]
    return found or None


_CHUNK_TEXT = "SELECT text FROM chunks WHERE id = ?"


def _query_each(store, sql: str, keys: list[Any]) -> dict[Any, list[dict[str, Any]] | None]:
    """``{key: _query(store, sql, (key,))}``, read in as few statements as the store allows."""
    import sqlite3

    try:
        names, rows = store.rows_each(sql, keys)
    except sqlite3.Error:
        return {key: _query(store, sql, (key,)) for key in keys}
    return {key: [dict(zip(names, row, strict=True)) for row in found] for key, found in zip(keys, rows, strict=True)}


def _quoted_chunk_rows(brief: Brief) -> dict[Any, list[dict[str, Any]] | None]:
    """The stored text rows of every chunk a citation of the brief quotes, read at once."""
    if "quoted_chunk_rows" not in brief.memo:
        quoting = [c for c in (brief.citations or {}).values() if isinstance(c, dict) and isinstance(c.get("quote_span"), dict)]
        chunk_ids = list(dict.fromkeys(c["chunk_id"] for c in quoting if isinstance(c.get("chunk_id"), str)))
        held = brief.store.chunk_texts(chunk_ids)
        brief.memo["quoted_chunk_rows"] = held if held is not None else _query_each(brief.store, _CHUNK_TEXT, chunk_ids)
    return brief.memo["quoted_chunk_rows"]


def chunk_text(brief: Brief, chunk_id: Any, doc_id: Any) -> tuple[str, str] | None:
    """(text, what it is) of the stored chunk, else of the stored document: the store first, then
    the sidecar's ``chunks`` / ``documents`` maps (``{"chunk_1": {"text": "..."}}``)."""
    if brief.store is not None and isinstance(chunk_id, str):
        read = _quoted_chunk_rows(brief)
        rows = read[chunk_id] if chunk_id in read else _query(brief.store, _CHUNK_TEXT, (chunk_id,))
        if rows and isinstance(rows[0]["text"], str):
            return rows[0]["text"], f"chunk {chunk_id}"
    sidecar = brief.sidecar or {}
    for table, key in (("chunks", chunk_id), ("documents", doc_id)):
        mapping = sidecar.get(table)
        item = mapping.get(key) if isinstance(mapping, dict) and isinstance(key, str) else None
        text = item.get("text") if isinstance(item, dict) else item
        if isinstance(text, str):
            return text, f"{table[:-1]} {key}"
    return None


def _load_registry(ctx, brief: Brief) -> Iterator[Reported]:
    from pytest_citations.kinds.briefs import source_registry as registry

    rel = ctx.kind_options.get("registry", "source_registry.yaml")
    brief.registry_rel = rel
    def read_registry():
        """The parsed registry, None when there is none, or the SourceError that stops reading it."""
        try:
            if not sources.resolve_inside(ctx.root, rel).exists():
                return None
            return registry.parse(rel, sources.read_source(ctx.root, rel, ctx.max_file_size).text)
        except sources.SourceError as exc:
            return exc

    found = ctx.engine.memo(("briefs.registry", rel), read_registry)
    if isinstance(found, sources.SourceError):
        yield source_registry_invalid.report(Finding(f"source registry {rel}: {found.message}"))
        return
    if found is not None:
        for problem in found.problems:
            yield source_registry_invalid.report(Finding(f"source registry {rel}:{problem}"))
    brief.registry = found
    items = tuple(ctx.kind_options.get("source-hosts", ()))
    if items:
        hosts, problems = ctx.engine.memo(
            ("briefs.source-hosts", rel, items), lambda: registry.source_hosts_setting(list(items), found)
        )
        for problem in problems:
            yield source_registry_invalid.report(Finding(f"setting source-hosts: {problem}"))
        brief.source_hosts = hosts

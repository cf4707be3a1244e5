"""The response cache of the online check: the answers for cited URLs, and sites' robots.txt,
kept between runs, so that a re-run within ``max_age`` makes no request at all.

The documents live in ``online/`` inside the cache folder the caller gives (already confined to
where the user's settings put it); an ``online`` that is anything but a real folder (a symlink the
checkout planted) turns the cache off. They are sharded by the first :data:`SHARD_DIGITS` hex
digits of the sha256 of the URL (``answers-XX.json``) or of the site (``robots-XX.json``), so that
a run reads only the shards of the URLs it checks and no document grows past
:data:`MAX_DOCUMENT` (well under the cache's own ``MAX_DOCUMENT_SIZE``): the oldest entries of a
shard give way first. Every document is written and read with
:func:`pytest_citations.run.cache.write_document` / ``read_document``: one that this user's key
does not authenticate (forged, committed with the checkout, made by another user) is ignored, and
so is every entry whose fields are not of the expected types. A shard's name follows from a URL,
so a pull request can commit one: one larger than its writer makes is not read at all. Entries older than
:data:`PRUNE_SECONDS` are dropped when their shard is written.

Entries are plain JSON objects; which answers are kept, and how they become answers again, is
:mod:`pytest_citations.online.fetch`'s business.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
from collections import defaultdict
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from pytest_citations import __version__
from pytest_citations.run.cache import MAX_DOCUMENT_SIZE, read_document, write_document

FORMAT = 1
SHARD_DIGITS = 2
MAX_TEXT = 1 << 20  # characters of a page's text kept with its answer; a longer one is not kept
MAX_DOCUMENT = min(64 << 20, MAX_DOCUMENT_SIZE // 4)  # bytes of one shard's document
# Bytes a shard's document holds besides its entries (its code, format and version), which its
# writer does not count in MAX_DOCUMENT: a larger document is none of ours, and is never read.
OWN_MEMBERS = 1024
PRUNE_SECONDS = 30 * 86400
FOLDER = "online"

_OPTIONAL_TEXT = (str, type(None))
_ANSWER_FIELDS: dict[str, tuple[type, ...]] = {
    "outcome": (str,), "status": (int, type(None)), "redirects": (list,), "final_url": (str,), "detail": (str,),
    "content_type": _OPTIONAL_TEXT, "text": _OPTIONAL_TEXT, "wall": _OPTIONAL_TEXT, "truncated": (bool,),
    "fetched_at": (float, int), "etag": _OPTIONAL_TEXT, "last_modified": _OPTIONAL_TEXT, "wanted_text": (bool,),
}
_ROBOTS_FIELDS: dict[str, tuple[type, ...]] = {"fetched_at": (float, int), "text": _OPTIONAL_TEXT}


def shard(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8", "surrogateescape")).hexdigest()[:SHARD_DIGITS]


def is_answer_entry(entry: Any) -> bool:
    """Whether ``entry`` has every field of a kept answer, each of its type (a redirect is a
    ``[status, location]`` pair)."""
    return (_has_fields(entry, _ANSWER_FIELDS)
            and all(isinstance(hop, list) and len(hop) == 2 and _is_int(hop[0]) and isinstance(hop[1], str)
                    for hop in entry["redirects"]))


def is_robots_entry(entry: Any) -> bool:
    return _has_fields(entry, _ROBOTS_FIELDS)


def _has_fields(entry: Any, fields: dict[str, tuple[type, ...]]) -> bool:
    return isinstance(entry, dict) and all(
        name in entry and isinstance(entry[name], kinds) and not (isinstance(entry[name], bool) and bool not in kinds)
        for name, kinds in fields.items())


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class ResponseCache:
    """The answers and robots.txt entries read and to be written by one run. Without a usable
    folder it holds nothing and writes nothing."""

    def __init__(self, cache_folder: Path | None) -> None:
        self.folder = None if cache_folder is None else Path(cache_folder) / FOLDER
        self._answers: dict[str, dict[str, dict[str, Any]]] = defaultdict(dict)  # shard -> url -> new entry
        self._robots: dict[str, dict[str, dict[str, Any]]] = defaultdict(dict)  # shard -> site -> new entry
        self._robots_read: dict[str, dict[str, Any]] = {}  # shard -> its sites' entries, as read

    def answers(self, urls: Iterable[str]) -> Iterator[tuple[str, dict[str, Any]]]:
        """The kept entries of ``urls``, reading each shard they fall in once."""
        by_shard: dict[str, set[str]] = defaultdict(set)
        for url in urls:
            by_shard[shard(url)].add(url)
        for name, wanted in sorted(by_shard.items()):
            entries = self._read("answers", name)
            for url in wanted & entries.keys():
                if is_answer_entry(entries[url]):
                    yield url, entries[url]

    def robots(self, site: str) -> dict[str, Any] | None:
        """The kept robots.txt entry of ``site`` (``scheme://host:port``)."""
        name = shard(site)
        if name not in self._robots_read:
            self._robots_read[name] = self._read("robots", name)
        entry = self._robots_read[name].get(site)
        return entry if is_robots_entry(entry) else None

    def keep_answer(self, url: str, entry: dict[str, Any]) -> None:
        if entry["text"] is not None and len(entry["text"]) > MAX_TEXT:
            entry = {**entry, "text": None, "wanted_text": False}
        self._answers[shard(url)][url] = entry

    def keep_robots(self, site: str, entry: dict[str, Any]) -> None:
        self._robots[shard(site)][site] = entry

    def save(self, now: float) -> None:
        """Write every shard that has new entries, merged into what it holds now (another run may
        have written it meanwhile). A cache that cannot be written is no error: the next run
        only fetches again."""
        if self.folder is None or not (self._answers or self._robots) or not self._prepared():
            return
        for table, shards in (("answers", self._answers), ("robots", self._robots)):
            for name, new in shards.items():
                self._write(table, name, new, now)
        self._answers.clear()
        self._robots.clear()

    def _prepared(self) -> bool:
        folder = self.folder
        assert folder is not None
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError:
            return False
        return self._real_folder()

    def _real_folder(self) -> bool:
        """Whether the cache's folder is a folder (not a symlink to one, which the checkout may
        have planted to have the run write elsewhere)."""
        try:
            return self.folder is not None and stat.S_ISDIR(os.lstat(self.folder).st_mode)
        except OSError:
            return False

    def _path(self, table: str, name: str) -> Path:
        assert self.folder is not None
        return self.folder / f"{table}-{name}.json"

    def _read(self, table: str, name: str) -> dict[str, Any]:
        if self.folder is None or not self._real_folder():
            return {}
        data = read_document(self._path(table, name), MAX_DOCUMENT + OWN_MEMBERS)
        if not (isinstance(data, dict) and data.get("format") == FORMAT and data.get("version") == __version__):
            return {}
        entries = data.get(table)
        return entries if isinstance(entries, dict) else {}

    def _write(self, table: str, name: str, new: dict[str, dict[str, Any]], now: float) -> None:
        entries = {**self._read(table, name), **new}
        check = is_answer_entry if table == "answers" else is_robots_entry
        kept = _newest_within(
            {key: entry for key, entry in entries.items() if check(entry) and now - entry["fetched_at"] < PRUNE_SECONDS},
            MAX_DOCUMENT)
        with contextlib.suppress(OSError):
            write_document(self._path(table, name), {"format": FORMAT, "version": __version__, table: kept})


def _newest_within(entries: dict[str, dict[str, Any]], budget: int) -> dict[str, dict[str, Any]]:
    """The newest entries whose JSON text fits in ``budget`` bytes together."""
    kept = {}
    for key, entry in sorted(entries.items(), key=lambda item: -item[1]["fetched_at"]):
        size = len(json.dumps([key, entry]).encode("utf-8", "surrogateescape"))
        if size > budget:
            continue
        budget -= size
        kept[key] = entry
    return kept

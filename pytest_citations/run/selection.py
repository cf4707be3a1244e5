"""Which of the planned files a run checks: one shard of them, or those a change affects.

A shard is chosen by a hash of the file's shown path, so every file lands in exactly one of the
N shards whatever the machine, and adding a file never moves the others.

A file is affected by a set of changed paths when it is one of them, when its root's settings file
is, when its last check read one of them (the dependencies the result cache recorded), or when its
last check consulted a run-wide index that one of them may have changed: a path the index's kind
claims by its globs, which may be, or have been, one of the files it is built from (a memory whose
id other memories link to, a corpus file whose sections eval records cite). A file whose
dependencies are not known yet, or changed since, must be checked to learn them; :func:`affected`
says so, and the caller reports it only if what it read turns out to be affected.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, cast

from pytest_citations.engine import Engine, Task

if TYPE_CHECKING:
    from pytest_citations.run.cache import ResultCache

_SHARD = re.compile(r"^([1-9][0-9]*)/([1-9][0-9]*)\Z")


def parse_shard(text: str) -> tuple[int, int]:
    """``K/N`` (1 <= K <= N) as (K, N); ValueError otherwise."""
    match = _SHARD.match(text)
    if not match or not 1 <= int(match[1]) <= int(match[2]):
        raise ValueError(f"{text!r} is not K/N with 1 <= K <= N (such as 1/4)")
    return int(match[1]), int(match[2])


def in_shard(shown: str, shard: tuple[int, int]) -> bool:
    k, n = shard
    bucket = int.from_bytes(hashlib.sha256(shown.encode("utf-8", "surrogateescape")).digest()[:8], "big") % n
    return bucket == k - 1


def shard_of(tasks: list[Task], shard: tuple[int, int]) -> list[Task]:
    return [task for task in tasks if in_shard(task.shown, shard)]


class Changes:
    """The changed paths of each root (``changed_for(engine)``, relative to that engine's root),
    and which run-wide indexes they may have changed, each worked out once.

    ``earlier(engine, rels)``, when given (``--since``: the merge base's versions; ``--staged``:
    HEAD's), is
    ``{rel: the text it had before the change, None when there was no such file}``, without the
    paths it cannot tell of: with it, an index built from one share per file counts as changed only
    when a changed file's share did. Without it, any changed path the index's kind may claim counts."""

    def __init__(self, changed_for: Callable[[Engine], set[str]],
                 earlier: Callable[[Engine, list[str]], dict[str, str | None]] | None = None) -> None:
        self._changed_for = changed_for
        self._earlier = earlier
        self._paths: dict[int, set[str]] = {}
        self._touched: dict[tuple[int, str], bool] = {}

    def paths(self, engine: Engine) -> set[str]:
        """The changed paths of ``engine``'s root, worked out once: they are asked for each file,
        and pre-commit names every file of the repository with ``--all-files``."""
        key = id(engine)
        if key not in self._paths:
            self._paths[key] = self._changed_for(engine)
        return self._paths[key]

    def index_touched(self, engine: Engine, name: str, sources: list[str] | None = None) -> bool:
        """Whether the changes may have changed the index ``name`` of ``engine`` (``sources``:
        the files it is built from, when known already)."""
        key = (id(engine), name)
        if key not in self._touched:
            earlier = None if self._earlier is None else functools.partial(self._earlier, engine)
            self._touched[key] = index_touched(engine, name, self.paths(engine), sources, earlier)
        return self._touched[key]

    def read_by(self, task: Task) -> bool | None:
        """Whether the last check of the task read a changed path or consulted a changed index;
        None if that is not known."""
        engine = task.engine
        cache = cast("ResultCache", engine.state.cache)  # a run that selects by changes has one (CheckRun)
        return cache.depends_on(task.rel, self.paths(engine), lambda name: self.index_touched(engine, name))


def index_touched(engine: Engine, name: str, changed: set[str], sources: list[str] | None = None,
                  earlier: Callable[[list[str]], dict[str, str | None]] | None = None) -> bool:
    """Whether the ``changed`` paths may have changed the run-wide index ``name``: one of them
    is one of the files it is built from now (``sources``, when known already), or a path its
    kind claims by its include or sniff globs (it may have been one: deleted, or its head no
    longer claimed).

    ``earlier(rels)`` (``{rel: the text it had before, None when there was no such file}``,
    without the paths it cannot tell of) makes an index built from one share per file exact:
    it counts as changed only when a changed path's share then and now differ (an edit below a
    memory's front matter changes no id and no link)."""
    declared = engine.state.indexes.get(name)
    if declared is None or declared.sources is None or not changed:
        return False
    kind = declared.kind
    files = set(declared.sources(engine) if sources is None else sources)
    candidates = [rel for rel in changed if rel in files or engine.discovery.path_claimed_by(kind, rel)]
    shares = declared.shares
    if not candidates or earlier is None or shares is None or shares.share_of_text is None:
        return bool(candidates)
    texts = earlier(candidates)
    for rel in candidates:
        if rel not in texts:
            return True  # what it held before cannot be told
        before = texts[rel]
        then = None if before is None or not engine.discovery.claims_text(kind, rel, before) else shares.share_of_text(rel, before)
        now = shares.share(engine, rel) if any(claimed.name == kind for claimed in engine.kinds_for(rel)) else None
        if then != now:
            return True
    return False


def affected(tasks: list[Task], changes: Changes) -> tuple[list[Task], list[Task]]:
    """(tasks affected by the changes, tasks whose dependencies are unknown). Every file of a
    root whose settings file changed is affected."""
    certain, unknown = [], []
    for task in tasks:
        if not task.kinds:
            continue
        paths = changes.paths(task.engine)
        if task.rel in paths or task.engine.discovery.settings_rel() in paths:
            certain.append(task)
            continue
        depends = changes.read_by(task)
        if depends is None:
            unknown.append(task)
        elif depends:
            certain.append(task)
    return certain, unknown


def learned_affected(task: Task, changes: Changes) -> bool:
    """After checking a task whose dependencies were unknown: whether it is affected after all."""
    return bool(changes.read_by(task))

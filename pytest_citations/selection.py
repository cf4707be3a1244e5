"""Which of the planned files a run checks: one shard of them, or those a change affects.

A shard is chosen by a hash of the file's shown path, so every file lands in exactly one of the
N shards whatever the machine, and adding a file never moves the others.

A file is affected by a set of changed paths when it is one of them or when its last check read
one of them (the dependencies the result cache recorded). A file whose dependencies are not
known yet must be checked to learn them; :func:`affected` says so, and the caller reports it
only if what it read turns out to be among the changes.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable

from pytest_citations.engine import Engine, Task

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


def affected(tasks: list[Task], changed_for: Callable[[Engine], set[str]]) -> tuple[list[Task], list[Task]]:
    """(tasks affected by the changes, tasks whose dependencies are unknown). ``changed_for``
    gives the changed paths relative to an engine's root."""
    certain, unknown = [], []
    for task in tasks:
        if not task.kinds:
            continue
        changed = changed_for(task.engine)
        if task.rel in changed:
            certain.append(task)
            continue
        depends = task.engine.cache.depends_on(task.rel, changed)
        if depends is None:
            unknown.append(task)
        elif depends:
            certain.append(task)
    return certain, unknown


def learned_affected(task: Task, changed_for: Callable[[Engine], set[str]]) -> bool:
    """After checking a task whose dependencies were unknown: whether it read a changed path."""
    return bool(task.engine.cache.depends_on(task.rel, changed_for(task.engine)))

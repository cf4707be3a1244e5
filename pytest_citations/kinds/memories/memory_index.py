"""The parts of the run-wide memory index (declared in :mod:`model` as ``index_for``): each memory
file's share, [id, ids it supersedes, whether the id is declared], read without YAML when the front
matter is in the plain subset (:func:`plain_index_entry`); the index the shares make
(:class:`MemoryIndex`); and the loops of ``supersedes`` links in it (:func:`supersedes_loops`)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

from pytest_citations.core import sources
from pytest_citations.kinds.memories.memory import read_memory

INDEXED_FIELDS = frozenset({"id", "links"})


@dataclass
class MemoryIndex:
    by_id: dict[str, list[str]]  # memory id -> files whose memory has it (declared or by file name)
    supersedes: dict[str, list[str]]  # memory id -> ids it supersedes
    id_of: dict[str, str] = field(default_factory=dict, repr=False)  # file -> its id (by_id, turned round)
    declared: dict[str, list[str]] = field(default_factory=dict, repr=False)  # id -> files with it as `id:`
    _loops: dict[str, frozenset[str]] | None = field(default=None, repr=False, compare=False)

    def loop_of(self, memory_id: str) -> frozenset[str] | None:
        """The ids of the loop of ``supersedes`` links that ``memory_id`` is in (see
        :func:`supersedes_loops`), or None when it supersedes itself through no chain of links;
        the loops of every memory are found once per run, in time linear in the links."""
        if self._loops is None:
            self._loops = supersedes_loops(self.supersedes)
        return self._loops.get(memory_id)


def supersedes_loops(edges: dict[str, list[str]]) -> dict[str, frozenset[str]]:
    """For each id on a cycle of ``edges``, the ids of its loop: every id it reaches through links
    that reaches it back (a strongly connected component, found by Tarjan's algorithm without
    recursion, so a chain of any length is fine). An id alone is a loop when it supersedes itself."""
    order: dict[str, int] = {}  # the order in which the walk first came to each id
    low: dict[str, int] = {}  # the earliest id still on the stack that each one leads back to
    stack: list[str] = []
    on_stack: set[str] = set()
    loops: dict[str, frozenset[str]] = {}

    def enter(node: str) -> tuple[str, Iterator[str]]:
        order[node] = low[node] = len(order)
        stack.append(node)
        on_stack.add(node)
        return node, iter(edges.get(node, ()))

    for root in edges:
        if root in order:
            continue
        walk = [enter(root)]
        while walk:
            node, targets = walk[-1]
            for target in targets:
                if target not in order:
                    walk.append(enter(target))
                    break
                if target in on_stack:
                    low[node] = min(low[node], order[target])
            else:
                walk.pop()
                if walk:
                    parent = walk[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == order[node]:
                    _close_loop(node, stack, on_stack, edges, loops)
    return loops


def _close_loop(head: str, stack: list[str], on_stack: set[str], edges: dict[str, list[str]],
                loops: dict[str, frozenset[str]]) -> None:
    """Take the component whose first id is ``head`` off the stack; note it when it is a loop."""
    members = []
    while True:
        member = stack.pop()
        on_stack.discard(member)
        members.append(member)
        if member == head:
            break
    if len(members) > 1 or head in edges.get(head, ()):
        loop = frozenset(members)
        for member in members:
            loops[member] = loop


def _index_entry(engine, rel: str) -> list | None:
    """[id, ids it supersedes, whether the id is declared] of one memory file, or None if it
    cannot be read."""
    try:
        text = sources.read_source(engine.config.root, rel, engine.config.max_file_size).text
    except Exception:
        return None
    return index_entry_of_text(rel, text)


def index_entry_of_text(rel: str, text: str) -> list | None:
    """[id, ids it supersedes, whether the id is declared] of a memory file holding ``text`` (a
    BOM before it dropped, as a read drops it), or None if it cannot be read."""
    text = text.removeprefix(sources.BOM)
    try:
        return plain_index_entry(rel, text) or yaml_index_entry(rel, text)
    except Exception:
        return None


def yaml_index_entry(rel: str, text: str) -> list:
    """[id, ids it supersedes, whether the id is declared] of a memory's text, from its front
    matter parsed as YAML."""
    memory = read_memory(rel, text, INDEXED_FIELDS)
    return [memory.id, _superseded((link.type, link.target) for link in memory.links), memory.declares_id]


def _superseded(links: Iterable[tuple[Any, Any]]) -> list[str]:
    """The ids that a memory's (type, target) links supersede, whichever reader found them."""
    return [target for link_type, target in links if link_type == "supersedes" and isinstance(target, str)]


def plain_index_entry(rel: str, text: str) -> list | None:
    """:func:`yaml_index_entry` without a YAML parse, for a front matter in the plain subset that
    ``frontmatter.read_plain`` reads; None for any other (the YAML parse decides)."""
    from pytest_citations.core import frontmatter

    bounds = frontmatter.split(text)
    fields: dict[str, Any] | None = {}
    if bounds is not None and bounds[1] != -1:  # a front matter that is closed
        fields = frontmatter.read_plain(text[bounds[0] : bounds[1]], INDEXED_FIELDS)
    if fields is None:
        return None
    links, memory_id = fields.get("links"), fields.get("id")
    declares_id = isinstance(memory_id, str) and memory_id != ""  # else the id is the stem, as read_memory takes it
    superseded = _superseded(links if isinstance(links, list) else [])  # a scalar holds no link
    return [memory_id if declares_id else PurePosixPath(rel).stem, superseded, declares_id]

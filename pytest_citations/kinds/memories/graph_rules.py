'''Rules on the memory graph (M212-M215, M217), read from the run-wide index of every memory's id
and links (:func:`model.index_for`): link types that are known, link targets that exist and name
one memory, ids that name one memory, and no memory that supersedes itself through its links.'''

from __future__ import annotations

from typing import TYPE_CHECKING

from pytest_citations.core.diagnostics import Severity, quoted
from pytest_citations.kinds.memories.memory import LINK_TYPES, Memory
from pytest_citations.kinds.memories.model import index_for
from pytest_citations.rules import Finding, rule

if TYPE_CHECKING:
    from pytest_citations.contexts import RuleContext

KIND = "memories"


@rule("M212", "unknown-link-type", kind=KIND, severity=Severity.WARNING)
def unknown_link_type(memory: Memory, ctx: RuleContext):
    """
    ## What it does
    Warns about a link whose type is not one of `related`, `supersedes`, `blocks`, `implements`,
    `extends`. As the spec says, such a link is skipped.

    ## Why is this bad?
    A typo (`supercedes`) silently drops the relationship.

    ## Example

    Bad:

    ```markdown title=".serena/memories/auth.md"
    ---
    links:
      - supercedes: auth-v1
    ---
    ```

    ```markdown title=".serena/memories/auth-v1.md"
    ---
    id: auth-v1
    ---
    ```

    Good:

    ```markdown title=".serena/memories/auth.md"
    ---
    links:
      - supersedes: auth-v1
    ---
    ```

    ```markdown title=".serena/memories/auth-v1.md"
    ---
    id: auth-v1
    ---
    ```

    ## Fix
    Use one of the five link types.
    """
    for link in memory.links:
        if link.type not in LINK_TYPES:
            yield Finding(f"unknown link type {quoted(link.type)} (known: {', '.join(LINK_TYPES)}); the link is skipped", link.line, link.col)


@rule("M213", "link-target-missing", kind=KIND)
def link_target_missing(memory: Memory, ctx: RuleContext):
    """
    ## What it does
    Reports a link whose target id matches no memory in the repository (a memory's id is its `id`
    field, or its file name without `.md`).

    ## Why is this bad?
    The relationship points at nothing: the target was renamed or deleted.

    ## Example

    Bad:

    ```markdown title=".serena/memories/auth.md"
    ---
    links:
      - implements: adr-042
    ---
    ```

    Good:

    ```markdown title=".serena/memories/auth.md"
    ---
    links:
      - implements: adr-042
    ---
    ```

    ```markdown title=".serena/memories/adr-042.md"
    ---
    subject: Python first
    ---
    ```

    ## Fix
    Point the link at an existing memory id, or remove it.
    """
    known = index_for(ctx.file.engine).by_id
    for link in memory.links:
        if link.type in LINK_TYPES and isinstance(link.target, str) and link.target not in known:
            yield Finding(f"{link.type} link target {quoted(link.target)} matches no memory", link.line, link.col)


@rule("M214", "duplicate-memory-id", kind=KIND)
def duplicate_memory_id(memory: Memory, ctx: RuleContext):
    """
    ## What it does
    Reports a memory whose id is also the id of another memory file in the repository, when one
    of the two declares it with `id:`. A memory without `id:` has its file name (without `.md`)
    as its id; two such notes in different subfolders (`2024/summary.md`, `2025/summary.md`)
    are not reported, since the memories folder is searched recursively and plain notes there
    often share a name: a link to that name is reported instead, as ambiguous (M217).

    ## Why is this bad?
    An `id:` is declared to name one memory; links and `citations memory verify ID` resolve ids to
    one file, and with two, which one is meant depends on the tool.

    ## Example

    Bad:

    ```markdown title=".serena/memories/auth.md"
    ---
    id: auth
    ---
    ```

    ```markdown title=".serena/memories/archive/auth.md"
    ---
    subject: old notes
    ---
    ```

    Good:

    ```markdown title=".serena/memories/auth.md"
    ---
    id: auth
    ---
    ```

    ```markdown title=".serena/memories/archive/auth-2025.md"
    ---
    subject: old notes
    ---
    ```

    ## Fix
    Give one of them another id (or file name).
    """
    index = index_for(ctx.file.engine)
    if memory.declares_id:  # it clashes with every other memory of its id
        files, origin = index.by_id.get(memory.id, []), ""
        others = len(files) - (index.id_of.get(memory.rel) == memory.id)  # the memory's own file aside
    else:  # its id is its file name: it clashes only with the memories that declare that id
        files, origin = index.declared.get(memory.id, []), " (its file name)"
        others = len(files)
    if others > 0:
        node = memory.field("id")
        line, col = (node.line, node.col) if node else (1, 1)
        shown = _other_files(memory.rel, files, others)
        yield Finding(f"memory id {quoted(memory.id)}{origin} is also the id of {shown}", line, col)


NAMED_FILES = 3  # M214 and M217 name this many other files at most, and count the rest


def _other_files(own: str, files: list[str], others: int) -> str:
    """The first :data:`NAMED_FILES` of ``files`` other than ``own``, and how many more there are
    (a message stays short however many files share an id, and is made without reading them all)."""
    named = [rel for rel in files[: NAMED_FILES + 1] if rel != own][:NAMED_FILES]
    more = others - len(named)
    if more <= 0:
        return ", ".join(named)
    return f"{', '.join(named)} and {more} other file{'s' if more > 1 else ''}"


def _files(files: list[str]) -> str:
    """``a and b``, ``a, b and c``; past :data:`NAMED_FILES` files, the first ones and how many more."""
    if len(files) <= NAMED_FILES:
        return " and ".join([", ".join(files[:-1]), files[-1]]) if len(files) > 1 else files[0]
    more = len(files) - NAMED_FILES
    return f"{', '.join(files[:NAMED_FILES])} and {more} other file{'s' if more > 1 else ''}"


CYCLE_SEARCH_LINKS = 64  # links followed at most when looking for the shortest cycle through a memory
SHOWN_CYCLE_IDS = 8  # a longer cycle is shown by its first and last ids


def _supersedes_cycle(start: str, edges: dict[str, list[str]], loop: frozenset[str]) -> list[str] | None:
    """The shortest cycle of supersedes links through ``start``, as ids from start back to start,
    searched within its ``loop`` (no other id is on a cycle through it); None when it is not found
    within :data:`CYCLE_SEARCH_LINKS` links, so that each memory costs a bounded search."""
    came_from: dict[str, str | None] = {start: None}
    frontier = [start]
    followed = 0
    while frontier:
        following = []
        for node in frontier:
            for target in edges.get(node, ()):
                followed += 1
                if followed > CYCLE_SEARCH_LINKS:
                    return None
                if target == start:
                    return [*_path_to(node, came_from), start]
                if target in loop and target not in came_from:
                    came_from[target] = node
                    following.append(target)
        frontier = following
    return None


def _path_to(node: str, came_from: dict[str, str | None]) -> list[str]:
    """The ids from the search's start to ``node``."""
    path = [node]
    while (step := came_from[path[-1]]) is not None:
        path.append(step)
    return path[::-1]


def _shown_cycle(cycle: list[str]) -> str:
    """``a -> b -> a``; a cycle of more than :data:`SHOWN_CYCLE_IDS` ids by its first five and last
    two, with the count of those left out."""
    if len(cycle) <= SHOWN_CYCLE_IDS:
        return " -> ".join(cycle)
    return " -> ".join([*cycle[:5], f"... ({len(cycle) - 7} more)", *cycle[-2:]])


@rule("M215", "supersedes-cycle", kind=KIND)
def supersedes_cycle(memory: Memory, ctx: RuleContext):
    """
    ## What it does
    Reports a memory that, following `supersedes` links, supersedes itself (a -> b -> a).

    ## Why is this bad?
    In a cycle every memory is obsolete and none is current.

    ## Example

    Bad:

    ```markdown title=".serena/memories/a.md"
    ---
    links:
      - supersedes: b
    ---
    ```

    ```markdown title=".serena/memories/b.md"
    ---
    links:
      - supersedes: a
    ---
    ```

    Good:

    ```markdown title=".serena/memories/a.md"
    ---
    links:
      - supersedes: b
    ---
    ```

    ```markdown title=".serena/memories/b.md"
    ---
    subject: the older note
    ---
    ```

    ## Fix
    Decide which memory is current and remove the `supersedes` link that points back.
    """
    index = index_for(ctx.file.engine)
    loop = index.loop_of(memory.id)
    if loop is None:
        return
    cycle = _supersedes_cycle(memory.id, index.supersedes, loop)
    if cycle is not None:
        link = next((x for x in memory.links if x.type == "supersedes" and x.target == cycle[1]), None)
        shown = _shown_cycle(cycle)
    else:  # a loop too large to search: this memory's link into it, and the loop's size
        link = next((x for x in memory.links if x.type == "supersedes" and isinstance(x.target, str) and x.target in loop), None)
        shown = f"{memory.id} -> {link.target} -> ... -> {memory.id} ({len(loop)} memories supersede one another)" if link else ""
    if link:  # (a file that shares the id of a memory in the cycle, without the link, is M214's)
        yield Finding(f"supersedes cycle: {shown}", link.line, link.col)


@rule("M217", "ambiguous-link-target", kind=KIND)
def ambiguous_link_target(memory: Memory, ctx: RuleContext):
    """
    ## What it does
    Reports a link whose target id is the id of more than one memory, none of which declares it
    with `id:`: notes whose files share a name in different subfolders of the memories folder
    (`2024/summary.md`, `2025/summary.md`). When one of them declares the id, the memories
    themselves are reported instead (M214), so each clash is reported in one place.

    ## Why is this bad?
    The link cannot say which memory it means: a tool follows one of them, and another tool the
    other.

    ## Example

    Bad:

    ```markdown title=".serena/memories/roadmap.md"
    ---
    links:
      - extends: summary
    ---
    ```

    ```markdown title=".serena/memories/2024/summary.md"
    # 2024 summary
    ```

    ```markdown title=".serena/memories/2025/summary.md"
    # 2025 summary
    ```

    Good:

    ```markdown title=".serena/memories/roadmap.md"
    ---
    links:
      - extends: summary-2025
    ---
    ```

    ```markdown title=".serena/memories/2024/summary.md"
    # 2024 summary
    ```

    ```markdown title=".serena/memories/2025/summary.md"
    ---
    id: summary-2025
    ---
    # 2025 summary
    ```

    ## Fix
    Give the memory the link means an `id:` of its own, and link to that.
    """
    index = index_for(ctx.file.engine)
    for link in memory.links:
        target = link.target if link.type in LINK_TYPES and isinstance(link.target, str) else None
        files = index.by_id.get(target, []) if target is not None and target not in index.declared else []
        if len(files) > 1:
            message = f"{link.type} link target {quoted(link.target)} is ambiguous: it is the id of {_files(files)}"
            yield Finding(message, link.line, link.col)

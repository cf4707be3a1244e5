'''Rules for memory files (M2xx): front matter that parses safely, follows the schema, and cites
repository lines that still say what the memory claims.'''

from __future__ import annotations

import calendar
import re
from typing import TYPE_CHECKING

from pytest_citations.core.diagnostics import Edit, Fix, Severity, quoted
from pytest_citations.core.jsonlines import type_name
from pytest_citations.kinds.memories.model import (
    CITATION_FIELDS,
    CITATION_KEYS,
    LINK_TYPES,
    Memory,
    index_for,
    verdicts,
)
from pytest_citations.rules import Finding, rule

if TYPE_CHECKING:
    from pytest_citations.contexts import RuleContext
    from pytest_citations.core.frontmatter import Node

KIND = "memories"


@rule("M201", "front-matter-syntax", kind=KIND, scope="engine")
def front_matter_syntax():
    """
    ## What it does
    Reports front matter that is not readable YAML: a syntax error (with the line and column the
    parser stopped at), a `---` block that is never closed, or more than one YAML document.

    ## Why is this bad?
    A memory whose front matter cannot be read has no citations anyone can verify, and tools that
    load it fail or, worse, skip it silently.

    ## Example

    Bad:

    ```markdown title=".serena/memories/auth.md"
    ---
    id: auth
    citations: [{path: src/app.py, line: 1
    ---
    # Auth flow
    ```

    Good:

    ```markdown title=".serena/memories/auth.md"
    ---
    id: auth
    citations: [{path: src/app.py, line: 1}]
    ---
    # Auth flow
    ```

    ```python title="src/app.py"
    def login(): ...
    ```

    ## Fix
    Correct the YAML at the position given.
    """


@rule("M202", "yaml-anchor-alias", kind=KIND, scope="engine")
def yaml_anchor_alias():
    """
    ## What it does
    Reports YAML anchors (`&name`) and aliases (`*name`) in front matter. Aliases are not resolved:
    the value that uses one is left out.

    ## Why is this bad?
    Aliases let a few bytes expand into enormous documents ("billion laughs"), and they make a
    citation's real content invisible where it is read. Front matter has no need for them.

    ## Example

    Bad:

    ```markdown title=".serena/memories/auth.md"
    ---
    tags: &common [auth]
    subject: *common
    ---
    ```

    Good:

    ```markdown title=".serena/memories/auth.md"
    ---
    tags: [auth]
    subject: Auth flow
    ---
    ```

    ## Fix
    Write the value out where it is used.
    """


@rule("M203", "yaml-unsafe-tag", kind=KIND, scope="engine")
def yaml_unsafe_tag():
    """
    ## What it does
    Reports YAML tags outside the core schema (such as `!!python/object` or custom `!tags`) in
    front matter. Nothing is ever constructed from a tag; the tagged value is left out.

    ## Why is this bad?
    Loaders that honour such tags can be made to run code. A memory file is data and must load the
    same everywhere.

    ## Example

    Bad:

    ```markdown title=".serena/memories/auth.md"
    ---
    subject: !!python/object/apply:os.system ["echo hi"]
    ---
    ```

    Good:

    ```markdown title=".serena/memories/auth.md"
    ---
    subject: Auth flow
    ---
    ```

    ## Fix
    Remove the tag.
    """


@rule("M204", "yaml-duplicate-key", kind=KIND, scope="engine")
def yaml_duplicate_key():
    """
    ## What it does
    Reports a key that appears twice in the same front-matter mapping; the second value is
    ignored.

    ## Why is this bad?
    YAML loaders disagree on duplicate keys (first wins, last wins, or error), so the memory means
    different things to different tools.

    ## Example

    Bad:

    ```markdown title=".serena/memories/auth.md"
    ---
    id: auth
    id: auth-flow
    ---
    ```

    Good:

    ```markdown title=".serena/memories/auth.md"
    ---
    id: auth-flow
    ---
    ```

    ## Fix
    Keep one of the keys.
    """


def _type_name(value) -> str:
    """Type names for YAML messages: JSON's, with YAML's words for collections and timestamps."""
    from pytest_citations.core.frontmatter import Timestamp

    if value == "":
        return "an empty string"
    if isinstance(value, float):
        return f"a number ({value})"
    if isinstance(value, Timestamp):
        return "a timestamp"
    name = type_name(value)
    return {"an array": "a list", "an object": "a mapping"}.get(name, name)


def _expect(node: Node, where: str, check, expected: str):
    if not check(node.value):
        yield Finding(f"{where} must be {expected}, not {_type_name(node.value)}", node.line, node.col)


# A date-time's shape, as YAML reads a timestamp: the parts whose values must be real.
_DATE_TIME = re.compile(
    r"(\d{4})-(\d\d?)-(\d\d?)(?:[Tt ]+(\d\d?):(\d\d):(\d\d)(?:\.\d+)?[ \t]*(?:Z|[+-]\d\d?(?::?\d\d)?)?)?"
)
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December")  # not calendar.month_name, which follows the locale


def _out_of_range(text: str) -> list[str]:
    """The parts of a value shaped like a date-time that name no real moment (``month 13``); none
    when it is not so shaped."""
    match = _DATE_TIME.fullmatch(text.strip())
    if match is None:
        return []
    year, month, day, hour, minute, second = (int(part) if part else 0 for part in match.groups())
    problems = [f"year {year}"] if year < 1 else []
    if not 1 <= month <= 12:
        problems.append(f"month {month}")
        if not 1 <= day <= 31:
            problems.append(f"day {day}")
    elif year >= 1 and not 1 <= day <= (days := calendar.monthrange(year, month)[1]):
        problems.append(f"day {day}: {_MONTHS[month - 1]} {year} has {days} days" if day > days else f"day {day}")
    problems += [f"{name} {value}" for name, value, top in (("hour", hour, 23), ("minute", minute, 59),
                                                            ("second", second, 59)) if value > top]
    return problems


def _expect_datetime(node: Node, where: str):
    """An ISO 8601 date-time; one that is shaped as one but names no real moment is told apart
    (``2026-13-45T99:00:00Z`` is a timestamp to YAML, and no date to anyone)."""
    from pytest_citations.core.frontmatter import Timestamp, is_datetime

    if is_datetime(node.value):
        return
    text = node.value.text if isinstance(node.value, Timestamp) else node.value
    problems = _out_of_range(text) if isinstance(text, str) else []
    if problems:
        shown = quoted(text.strip(), plain=True)
        yield Finding(f"{where} {shown} is not a valid date or time ({', '.join(problems)})", node.line, node.col)
    else:
        yield from _expect(node, where, is_datetime, "an ISO 8601 date-time")


def _is_str(value) -> bool:
    return isinstance(value, str)


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _schema_findings(root: Node):
    if not isinstance(root.value, dict):
        yield Finding(f"front matter must be a mapping, not {_type_name(root.value)}", root.line, root.col)
        return
    fields = root.value
    if "id" in fields:
        yield from _expect(fields["id"], "id", lambda v: isinstance(v, str) and v != "", "a non-empty string")
    if "subject" in fields:
        yield from _expect(fields["subject"], "subject", _is_str, "a string")
    if "last_verified" in fields:
        yield from _expect_datetime(fields["last_verified"], "last_verified")
    if "confidence" in fields:
        node = fields["confidence"]
        if not isinstance(node.value, (int, float)) or isinstance(node.value, bool):
            yield Finding(f"confidence must be a number from 0.0 to 1.0, not {_type_name(node.value)}", node.line, node.col)
        elif not 0.0 <= node.value <= 1.0:
            yield Finding(f"confidence must be from 0.0 to 1.0, not {quoted(node.value, plain=True)}", node.line, node.col)
    if "tags" in fields:
        node = fields["tags"]
        if not isinstance(node.value, list):
            yield Finding(f"tags must be a list of strings, not {_type_name(node.value)}", node.line, node.col)
        else:
            for index, item in enumerate(node.value):
                yield from _expect(item, f"tags[{index}]", _is_str, "a string")
    if "citations" in fields:
        yield from _citation_findings(fields["citations"])
    if "links" in fields:
        yield from _link_findings(fields["links"])


def _citation_findings(node: Node):
    if not isinstance(node.value, list):
        yield Finding(f"citations must be a list, not {_type_name(node.value)}", node.line, node.col)
        return
    for index, item in enumerate(node.value):
        where = f"citations[{index}]"
        if not isinstance(item.value, dict):
            yield Finding(f"{where} must be a mapping with a path, not {_type_name(item.value)}", item.line, item.col)
            continue
        fields = item.value
        if "path" not in fields:
            yield Finding(f"{where} has no path", item.line, item.col)
        else:
            yield from _expect(fields["path"], f"{where}.path", lambda v: isinstance(v, str) and v != "", "a non-empty string")
        if "line" in fields and fields["line"].value is not None:
            yield from _expect(fields["line"], f"{where}.line", _is_int, "an integer")
        if "snippet" in fields and fields["snippet"].value is not None:
            yield from _expect(fields["snippet"], f"{where}.snippet", _is_str, "a string")
        if "verified" in fields and fields["verified"].value is not None:
            yield from _expect_datetime(fields["verified"], f"{where}.verified")


def _link_findings(node: Node):
    if not isinstance(node.value, list):
        yield Finding(f"links must be a list, not {_type_name(node.value)}", node.line, node.col)
        return
    for index, item in enumerate(node.value):
        if not isinstance(item.value, dict) or len(item.value) != 1:
            yield Finding(f"links[{index}] must be a mapping of one link type to a memory id", item.line, item.col)
            continue
        ((link_type, target),) = item.value.items()
        yield from _expect(target, f"links[{index}].{link_type}", _is_str, "a memory id (string)")


@rule("M205", "memory-schema", kind=KIND)
def memory_schema(memory: Memory, ctx: RuleContext):
    """
    ## What it does
    Checks the front matter against the memory schema: `id` and `subject` strings; `citations` a
    list of mappings with a non-empty `path`, an integer `line` (not `"2"`, not `true`), a string
    `snippet` and an ISO 8601 `verified`; `links` a list of single-key mappings; `tags` a list of
    strings; `confidence` a number from 0.0 to 1.0; `last_verified` an ISO 8601 date-time. Each
    message names the field and its line.

    ## Why is this bad?
    A citation with `line: "2"` cannot be verified, and tools that expect an integer crash on it or
    compare it wrongly; a confidence of 7 is meaningless.

    ## Example

    Bad:

    ```markdown title=".serena/memories/auth.md"
    ---
    citations:
      - path: src/app.py
        line: "1"
    confidence: 7
    ---
    ```

    ```python title="src/app.py"
    def login(): ...
    ```

    Good:

    ```markdown title=".serena/memories/auth.md"
    ---
    citations:
      - path: src/app.py
        line: 1
    confidence: 0.7
    ---
    ```

    ```python title="src/app.py"
    def login(): ...
    ```

    ## Fix
    Give each field the type the schema names.
    """
    if memory.front_matter is None or memory.front_matter.root is None:
        return
    yield from _schema_findings(memory.front_matter.root)


def _verification(code: str, memory: Memory, ctx: RuleContext):
    for citation, verdict in zip(memory.citations, verdicts(memory, ctx), strict=True):
        if verdict is not None and verdict.code == code:
            node = citation.field_node("line" if code in ("M209", "M210", "M211") else "path")
            yield citation, verdict, node


@rule("M206", "citation-path-traversal", kind=KIND)
def citation_path_traversal(memory: Memory, ctx: RuleContext):
    """
    ## What it does
    Reports a citation whose `path` is absolute or resolves, through `..` or a symlink, outside the
    repository root: `Path traversal blocked: {path}`. The file is never opened.

    ## Why is this bad?
    A memory must cite the repository it lives in; a path out of it could make the checker read
    (and print) files it has no business reading.

    ## Example

    Bad:

    ```markdown title=".serena/memories/auth.md"
    ---
    citations:
      - path: ../../etc/passwd
    ---
    ```

    Good:

    ```markdown title=".serena/memories/auth.md"
    ---
    citations:
      - path: src/app.py
    ---
    ```

    ```python title="src/app.py"
    def login(): ...
    ```

    ## Fix
    Use a path relative to the repository root, without `../` escapes.
    """
    for _, verdict, node in _verification("M206", memory, ctx):
        yield Finding(verdict.reason, node.line, node.col)


@rule("M207", "citation-file-not-found", kind=KIND)
def citation_file_not_found(memory: Memory, ctx: RuleContext):
    """
    ## What it does
    Reports a citation whose `path` names nothing in the repository: `File not found: {path}`.

    ## Why is this bad?
    The file was deleted or moved; the memory now describes code that does not exist.

    ## Example

    Bad:

    ```markdown title=".serena/memories/auth.md"
    ---
    citations:
      - path: src/old_app.py
    ---
    ```

    Good:

    ```markdown title=".serena/memories/auth.md"
    ---
    citations:
      - path: src/app.py
    ---
    ```

    ```python title="src/app.py"
    def login(): ...
    ```

    ## Fix
    Update `path`, or remove the citation.
    """
    for _, verdict, node in _verification("M207", memory, ctx):
        yield Finding(verdict.reason, node.line, node.col)


@rule("M208", "citation-file-unreadable", kind=KIND)
def citation_file_unreadable(memory: Memory, ctx: RuleContext):
    r"""
    ## What it does
    Reports a cited file that cannot be read as UTF-8 text when a line is cited (a binary file, a
    Latin-1 file, a folder, a file over `max-file-size`): `Cannot read file: {error}`.

    ## Why is this bad?
    A line of a file that cannot be read cannot be verified.

    ## Example

    Bad:

    ```markdown title=".serena/memories/logo.md"
    ---
    citations:
      - path: assets/logo.png
        line: 1
    ---
    ```

    ```text title="assets/logo.png" escapes
    \x89PNG\r\n\x1a\n\xff\xfe
    ```

    Good (a path-only citation of a binary file):

    ```markdown title=".serena/memories/logo.md"
    ---
    citations:
      - path: assets/logo.png
    ---
    ```

    ```text title="assets/logo.png" escapes
    \x89PNG\r\n\x1a\n\xff\xfe
    ```

    ## Fix
    Cite a text file, or cite the file without a line.
    """
    for _, verdict, node in _verification("M208", memory, ctx):
        yield Finding(verdict.reason, node.line, node.col)


@rule("M209", "citation-line-invalid", kind=KIND)
def citation_line_invalid(memory: Memory, ctx: RuleContext):
    """
    ## What it does
    Reports a citation `line` below 1: `Invalid line number: {line} (must be >= 1)`.

    ## Why is this bad?
    Lines are numbered from 1; line 0 is usually an off-by-one from a 0-based tool.

    ## Example

    Bad:

    ```markdown title=".serena/memories/auth.md"
    ---
    citations:
      - path: src/app.py
        line: 0
    ---
    ```

    ```python title="src/app.py"
    def login(): ...
    ```

    Good:

    ```markdown title=".serena/memories/auth.md"
    ---
    citations:
      - path: src/app.py
        line: 1
    ---
    ```

    ```python title="src/app.py"
    def login(): ...
    ```

    ## Fix
    Use 1-based line numbers.
    """
    for _, verdict, node in _verification("M209", memory, ctx):
        yield Finding(verdict.reason, node.line, node.col)


@rule("M210", "citation-line-out-of-range", kind=KIND)
def citation_line_out_of_range(memory: Memory, ctx: RuleContext):
    """
    ## What it does
    Reports a citation `line` past the end of the cited file:
    `Line {line} exceeds file length ({length})`. The length counts lines split on `\\n` (a final
    line end does not start another line; a `\\r` before it is ignored).

    ## Why is this bad?
    The file was shortened; whatever the memory cited is gone or moved.

    ## Example

    Bad:

    ```markdown title=".serena/memories/auth.md"
    ---
    citations:
      - path: src/app.py
        line: 40
    ---
    ```

    ```python title="src/app.py"
    def login(): ...
    ```

    Good:

    ```markdown title=".serena/memories/auth.md"
    ---
    citations:
      - path: src/app.py
        line: 1
    ---
    ```

    ```python title="src/app.py"
    def login(): ...
    ```

    ## Fix
    Update or remove `line`.
    """
    for _, verdict, node in _verification("M210", memory, ctx):
        yield Finding(verdict.reason, node.line, node.col)


@rule("M211", "citation-snippet-mismatch", kind=KIND, fixable=True)
def citation_snippet_mismatch(memory: Memory, ctx: RuleContext):
    """
    ## What it does
    Reports a citation whose `snippet` is not on its `line`:
    `Snippet mismatch at line {line}. Expected '{snippet}', got '{actual}'`. When the snippet now
    appears on exactly one other line, the message adds `(moved to line N)` and `--fix` updates
    `line`; when it appears on several, they are listed (the first three, and how many more) and
    nothing is changed.

    ## Why is this bad?
    The code changed under the memory: it may still be right about a line that moved, or it may
    now describe code that no longer exists.

    ## Example

    Bad (two lines were added above the function):

    ```markdown title=".serena/memories/auth.md"
    ---
    citations:
      - path: src/app.py
        line: 1
        snippet: "def login"
    ---
    ```

    ```python title="src/app.py"
    import os

    def login(): ...
    ```

    Good:

    ```markdown title=".serena/memories/auth.md"
    ---
    citations:
      - path: src/app.py
        line: 3
        snippet: "def login"
    ---
    ```

    ```python title="src/app.py"
    import os

    def login(): ...
    ```

    ## Fix
    `citations check --fix` moves `line` when the snippet is found on exactly one line; otherwise
    update `line` and `snippet` by hand.
    """
    offset = memory.front_matter.start if memory.front_matter else 0
    for citation, verdict, node in _verification("M211", memory, ctx):
        message, fix = verdict.reason, None
        if len(verdict.moved_to) == 1:
            (target,) = verdict.moved_to
            message += f" (moved to line {target})"
            line_node = citation.field_node("line")
            fix = Fix(f"move the citation to line {target}", (Edit(offset + line_node.start, offset + line_node.end, str(target)),))
        elif verdict.moved_to:
            message += f" (found at lines {_some_lines(verdict.moved_to)}: update line by hand)"
        yield Finding(message, node.line, node.col, fix=fix)


NAMED_LINES = 3  # M211 names this many of the lines that hold a snippet, and counts the rest


def _some_lines(numbers: tuple[int, ...]) -> str:
    """``38, 41``; past :data:`NAMED_LINES` lines, the first ones and how many more."""
    named = ", ".join(map(str, numbers[:NAMED_LINES]))
    more = len(numbers) - NAMED_LINES
    return f"{named} and {more} more" if more > 0 else named


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


# Names other tools and habits give the spec's citation fields, for the fields difflib cannot
# match by spelling (``file`` is closer to ``line`` than to ``path``).
_FIELD_ALIASES = {"file": "path", "filename": "path", "file_path": "path", "filepath": "path", "lineno": "line",
                  "line_number": "line", "text": "snippet", "quote": "snippet", "verified_at": "verified"}
_SUGGESTED_UP_TO = 64  # characters of a field name that a suggestion is looked for; a longer name is no typo


def _closest_field(name: str) -> str | None:
    """The spec's citation field that ``name`` most likely means: its usual alias, or the field
    spelled closest to it (``lines`` for ``line``); None when none is close."""
    if len(name) > _SUGGESTED_UP_TO:
        return None
    lowered = name.lower()
    if lowered in _FIELD_ALIASES:
        return _FIELD_ALIASES[lowered]
    import difflib  # only for a field to warn about: a check imports it no other time

    close = difflib.get_close_matches(lowered, CITATION_KEYS, n=1, cutoff=0.75)
    return close[0] if close else None


@rule("M216", "unknown-citation-field", kind=KIND, severity=Severity.WARNING)
def unknown_citation_field(memory: Memory, ctx: RuleContext):
    """
    ## What it does
    Warns about a field of a citation that is not one of the spec's four, `path`, `line`,
    `snippet` and `verified`, and names the one it most likely means (`lines` is `line`, `file`
    is `path`). The field is ignored, as the spec's reader ignores it.

    ## Why is this bad?
    A typo silently changes what is verified: with `lines: 3` the citation has no line, so it is a
    path-only citation that holds as long as the file exists, whatever line 3 now says.

    ## Example

    Bad:

    ```markdown title=".serena/memories/auth.md"
    ---
    citations:
      - path: src/app.py
        lines: 1
        snippet: "def login"
    ---
    ```

    ```python title="src/app.py"
    def login(): ...
    ```

    Good:

    ```markdown title=".serena/memories/auth.md"
    ---
    citations:
      - path: src/app.py
        line: 1
        snippet: "def login"
    ---
    ```

    ```python title="src/app.py"
    def login(): ...
    ```

    ## Fix
    Rename the field to the one the warning names, or remove it.
    """
    known = ", ".join(CITATION_KEYS)
    for citation in memory.citations:
        for name, key in citation.node.key_nodes.items():
            if name in CITATION_FIELDS:
                continue
            closest = _closest_field(name)
            hint = f"did you mean {quoted(closest)}? " if closest else ""
            where = f"citations[{citation.index}]"
            message = f"unknown citation field {quoted(name)} in {where} ({hint}known: {known}); the field is ignored"
            yield Finding(message, key.line, key.col)


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

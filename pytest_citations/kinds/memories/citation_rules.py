'''Rules on a memory's citations checked against the repository (M206-M211), one rule per step of
the spec's verification algorithm (:mod:`verification`) that can fail: a path outside the root, a
file not found or unreadable, a line below 1 or past the end, a snippet that is not on its line
(moved by ``--fix`` when it is on exactly one other).'''

from __future__ import annotations

from typing import TYPE_CHECKING

from pytest_citations.core.diagnostics import Edit, Fix
from pytest_citations.kinds.memories.memory import Memory
from pytest_citations.kinds.memories.verification import verdicts
from pytest_citations.rules import Finding, rule

if TYPE_CHECKING:
    from pytest_citations.contexts import RuleContext

KIND = "memories"


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

'''Rules on a tuple's ``lines`` (R411, R412): a range that cannot be right whatever the file
holds, and a range past the end of the cited file as it is now.'''

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from pytest_citations.core.diagnostics import quoted
from pytest_citations.kinds.code_tuples.model import Part, Tuple
from pytest_citations.kinds.code_tuples.verdicts import MISSING, OUTSIDE, UNREADABLE, _cited_name, verdict
from pytest_citations.rules import rule

if TYPE_CHECKING:
    from pytest_citations.contexts import RuleContext

KIND = "code-tuples"


@rule("R411", "line-range-invalid", kind=KIND)
def line_range_invalid(item: Tuple, ctx: RuleContext):
    """
    ## What it does
    Reports a `lines` range that cannot be right whatever the file holds: a start below 1 (`L0`)
    or an end before the start (`L9-3`). These match the schema's pattern, so only this rule
    catches them.

    ## Why is this bad?
    Lines are numbered from 1; `L0` is usually an off-by-one from a 0-based tool and `L9-3` a
    swapped range. Either way the citation points at nothing.

    ## Example

    Bad:

    ```markdown title="notes/review.md"
    Inactive users are refused [src/app.py@9a83c4749b73681e, L2-1].
    ```

    ```python title="src/app.py"
    def login(user):
        return user.active
    ```

    Good:

    ```markdown title="notes/review.md"
    Inactive users are refused [src/app.py@9a83c4749b73681e, L1-2].
    ```

    ```python title="src/app.py"
    def login(user):
        return user.active
    ```

    ## Fix
    Use 1-based line numbers, start before end.
    """
    line_range = item.line_range()
    if line_range is None:
        return
    start, end = line_range
    lines = cast(Part, item.lines)  # (line_range() is None without lines)
    if start < 1:
        yield item.finding(f"lines {quoted(lines.value, plain=True)}: line numbers start at 1", lines)
    elif end < start:
        yield item.finding(f"lines {quoted(lines.value, plain=True)}: the range ends before it starts", lines)


@rule("R412", "line-range-out-of-range", kind=KIND)
def line_range_out_of_range(item: Tuple, ctx: RuleContext):
    """
    ## What it does
    Reports a `lines` range that ends past the last line of the cited file as it is now (lines
    split on `\\n`; a final line end does not start another line).

    ## Why is this bad?
    The file was shortened, or the range was wrong from the start; the cited lines are gone.

    ## Example

    Bad:

    ```markdown title="notes/review.md"
    Inactive users are refused [src/app.py, L1-40].
    ```

    ```python title="src/app.py"
    def login(user):
        return user.active
    ```

    Good:

    ```markdown title="notes/review.md"
    Inactive users are refused [src/app.py, L1-2].
    ```

    ```python title="src/app.py"
    def login(user):
        return user.active
    ```

    ## Fix
    Re-read the file and correct `lines` (and the hash).
    """
    line_range = item.line_range()
    found = verdict(item, ctx)
    if line_range is None or found is None or found[0] in (MISSING, OUTSIDE, UNREADABLE):
        return
    start, end = line_range
    if start < 1 or end < start:
        return
    length = len(found[1].lines)
    if end > length:
        noun = "line" if length == 1 else "lines"
        lines = cast(Part, item.lines)  # (line_range() is None without lines)
        yield item.finding(
            f"lines {quoted(lines.value, plain=True)} ends past the end of {_cited_name(item, found[1])} "
            f"({length} {noun})",
            item.lines,
        )

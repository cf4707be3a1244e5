'''The rule on a STALE tuple (R408): the cited file's hash is no longer the tuple's. Its message
tells, from the file's git history (:mod:`history`), when the file last had the cited hash and how
the cited lines changed since; ``--fix`` refreshes the hash only when they did not.'''

from __future__ import annotations

import json
from typing import TYPE_CHECKING, cast

from pytest_citations.core.diagnostics import Edit, Fix, quoted
from pytest_citations.kinds.code_tuples.history import history_for
from pytest_citations.kinds.code_tuples.model import Part, Tuple
from pytest_citations.kinds.code_tuples.verdicts import STALE, _cited_name, _verdict_is, split_lines
from pytest_citations.rules import rule

if TYPE_CHECKING:
    from pytest_citations.contexts import RuleContext

KIND = "code-tuples"
_SHOWN = 60  # characters of a changed line shown in a STALE message
_SHOWN_CHANGES = 3


def _shown(line: bytes) -> str:
    text = line.decode("utf-8", "replace").strip()
    return repr(text if len(text) <= _SHOWN else text[: _SHOWN - 3] + "...")


def _changes(old: list[bytes], new: list[bytes], start: int, end: int) -> tuple[list[str], tuple[int, int] | None]:
    """What happened to old lines ``start..end`` (1-based) in ``new``: the changes, or the range
    they moved to when they are unchanged but elsewhere."""
    import difflib

    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    changes: list[str] = []
    moved_to = None
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if i2 < start - 1 + (0 if tag == "insert" else 1) or i1 > end - 1 + (1 if tag == "insert" else 0):
            continue
        if tag == "equal":
            lo, hi = max(i1, start - 1), min(i2, end)
            if lo == start - 1 and hi == end:
                moved_to = (j1 + lo - i1 + 1, j1 + hi - i1)
            continue
        if tag == "insert":
            if start - 1 < i1 <= end - 1:
                changes.extend(f"+ {_shown(line)}" for line in new[j1:j2])
            continue
        lo, hi = max(i1, start - 1), min(i2, end)
        removed = [f"L{i1 + n + 1} {_shown(line)}" for n, line in enumerate(old[i1:i2]) if lo <= i1 + n < hi]
        added = [f"+ {_shown(line)}" for line in new[j1:j2]] if tag == "replace" else []
        changes.extend(f"- {text}" for text in removed)
        changes.extend(added[: max(len(removed), 1)])
    return changes, (moved_to if not changes else None)


def _history_note(version, newer, history) -> str:
    found = f'commit {version.short} ({version.date}, "{version.subject}")'
    if newer is None:
        return f"it had this hash at {found}, the last commit of the file; the change is not committed"
    return f'it had this hash at {found}, until commit {newer.short} ({newer.date}, "{newer.subject}")'


@rule(
    "R408",
    "content-hash-stale",
    kind=KIND,
    fixable=True,
)
def content_hash_stale(item: Tuple, ctx: RuleContext):
    """
    ## What it does
    Reports the verdict STALE: the cited file's `content_hash` (the first 16 hex digits of the
    SHA-256 of its raw bytes) is no longer the one in the tuple. When the repository is a git
    checkout, the message names the most recent commit at which the file had the cited hash
    (searching at most `git-max-commits` commits of the file's history within `git-timeout`
    seconds, never in a nested repository) and shows how the cited lines changed since then.
    Without git, or without a match, it says so plainly.

    ## Why is this bad?
    The code changed after the finding was written; the claim may no longer be true.

    ## Example

    Bad (the function changed after it was cited):

    ```markdown title="notes/review.md"
    Inactive users are refused [src/app.py@b5f008fee5951c65, L1-2].
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
    `citations check --fix` writes the current hash only when git history holds the hashed
    version and the cited lines' text is the same in it as now (so a fix never blesses a changed
    claim). Otherwise the tuple is left alone and the message says why: re-read the cited lines,
    correct the claim, then update `content_hash` (and `lines`) by hand.
    """
    cited = _verdict_is(item, ctx, STALE)
    if cited is None:
        return
    wanted, now = item.hash_value(), cited.hash
    message = f"STALE: {_cited_name(item, cited)} changed since it was cited (content_hash {wanted}, now {now})"
    history = history_for(ctx.file.engine, cited.rel, ctx.kind_options)
    fix = None
    if history.versions is None:
        message += f"; no git history to compare: {history.reason}; not fixed"
    elif (match := history.find(cast(str, wanted))) is None:  # (a STALE tuple has a valid hash)
        searched = f"the last {len(history.versions)} commits" if history.truncated else "its git history"
        why = f" ({history.reason})" if history.reason else ""  # (where the run's bound on history read stopped it)
        message += f"; no version of the file in {searched} has this hash{why}; not fixed"
    else:
        version, newer = match
        message += "; " + _history_note(version, newer, history)
        line_range = item.line_range()
        if line_range is None:
            what = "the whole file is cited" if item.lines is None else "the cited lines are malformed"
            message += f"; {what}: re-check the claim and update the hash by hand"
        else:
            start, end = line_range
            data, unread = history.data(version)  # (the history keeps hashes alone: the bytes are read again)
            old, new = split_lines(data or b""), cited.lines
            label = cast(Part, item.lines).value  # (line_range() is None without lines)
            if data is None:
                message += f"; {label} cannot be compared: that version cannot be read from git again ({unread}); not fixed"
            elif end > len(old) or start < 1 or end < start:
                message += f"; {label} was not in that version: not fixed"
            elif end <= len(new) and old[start - 1 : end] == new[start - 1 : end]:
                message += f"; {label} unchanged since then: --fix refreshes the hash"
                text = json.dumps(now) if item.form == "json" else now
                part = cast(Part, item.content_hash)  # (a STALE tuple has a hash, and is checkable)
                fix = Fix(f"refresh content_hash of {quoted(cast(Part, item.artifact_id).value, plain=True)}",
                          (Edit(part.start, part.end, text),))
            else:
                changes, moved = _changes(old, new, start, end)
                if moved is not None:
                    where = f"L{moved[0]}" if moved[0] == moved[1] else f"L{moved[0]}-{moved[1]}"
                    message += f"; {label} unchanged but now at {where}: update lines and hash by hand"
                else:
                    shown = "; ".join(changes[:_SHOWN_CHANGES])
                    more = len(changes) - _SHOWN_CHANGES
                    if more > 0:
                        shown += f"; {more} more"
                    message += f"; {label} changed since then: {shown or 'lines were removed'}; not fixed"
    yield item.finding(message, item.content_hash, fix)

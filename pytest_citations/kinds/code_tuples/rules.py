'''Rules for code citation tuples (R4xx): ``{artifact_id, content_hash, lines}`` in JSON, JSONL and
inline Markdown, checked against the files they cite.'''

from __future__ import annotations

import json
import posixpath
from functools import lru_cache
from typing import TYPE_CHECKING, cast

from pytest_citations.core.diagnostics import Edit, Fix, Severity, quoted
from pytest_citations.core.jsonlines import type_name
from pytest_citations.kinds.code_tuples.model import (
    ANY_CASE_HASH,
    HASH,
    LINES,
    MISSING,
    OUTSIDE,
    STALE,
    UNREADABLE,
    UNVERSIONED,
    Cited,
    Part,
    Tuple,
    history_for,
    split_lines,
    verdict,
)
from pytest_citations.rules import BUNDLED_SCHEMAS, bundled_validator, rule

if TYPE_CHECKING:
    from pytest_citations.contexts import RuleContext

KIND = "code-tuples"
_SCHEMA_FILE = BUNDLED_SCHEMAS / "rlm-citation-tuple.schema.json"
_KEYS = ("artifact_id", "content_hash", "lines")
_SHOWN = 60  # characters of a changed line shown in a STALE message
_SHOWN_CHANGES = 3


@lru_cache(maxsize=1)
def _validator():
    return bundled_validator(_SCHEMA_FILE)


def _fast_valid(data) -> bool:
    """The schema's verdict for the common case, without importing jsonschema."""
    if not isinstance(data, dict) or not set(data) <= set(_KEYS):
        return False
    artifact_id = data.get("artifact_id")
    if not isinstance(artifact_id, str) or not artifact_id:
        return False
    if "content_hash" in data and not (isinstance(data["content_hash"], str) and HASH.match(data["content_hash"])):
        return False
    return "lines" not in data or (isinstance(data["lines"], str) and LINES.match(data["lines"]) is not None)


def schema_problems(data) -> list[tuple[str, str]]:
    """(field or "", message) for every schema violation of a tuple, in a stable order. An
    uppercase 16-digit hash is left to R404."""
    problems = []
    errors = sorted(_validator().iter_errors(data), key=lambda e: (list(map(str, e.absolute_path)), e.validator))
    for error in errors:
        path = list(error.absolute_path)
        key = str(path[0]) if path else ""
        if error.validator == "type":
            problems.append((key, f"{key or 'tuple'} must be {error.validator_value}, not {type_name(error.instance)}"))
        elif error.validator == "required":
            problems.append(("", "missing required field artifact_id"))
        elif error.validator == "additionalProperties":
            extra = sorted(set(error.instance) - set(_KEYS))
            noun = "field" if len(extra) == 1 else "fields"
            problems.append(("", f"unknown {noun} {', '.join(map(repr, extra))} (a tuple has only {', '.join(_KEYS)})"))
        elif error.validator == "minLength":
            problems.append((key, f"{key} must not be empty"))
        elif error.validator == "pattern":
            if key == "content_hash" and ANY_CASE_HASH.match(error.instance):
                continue
            what = "16 lowercase hex digits" if key == "content_hash" else "L<start> or L<start>-<end>"
            problems.append((key, f"{key} {quoted(error.instance)} is not {what}"))
        else:
            problems.append((key, f"{'.'.join(map(str, path)) or 'tuple'}: {error.message}"))
    return problems


@rule("R401", "invalid-json", kind=KIND, scope="engine")
def invalid_json():
    """
    ## What it does
    Reports a JSON file, or a line of a JSONL file, that holds tuples but is not valid JSON:
    broken syntax (with the line and column the parser stopped at), a duplicate key, `NaN` or
    `Infinity`, or nesting deeper than 500 levels. In JSONL every other line is still checked.

    ## Why is this bad?
    A file that does not parse cites nothing anyone can verify, and JSON libraries disagree about
    duplicate keys: the same file names different artifacts in different tools.

    ## Example

    Bad (a trailing comma):

    ```json title="out/findings.json"
    {"citations": [{"artifact_id": "src/app.py",}]}
    ```

    ```python title="src/app.py"
    def login(user):
        return user.active
    ```

    Good:

    ```json title="out/findings.json"
    {"citations": [{"artifact_id": "src/app.py", "content_hash": "9a83c4749b73681e"}]}
    ```

    ```python title="src/app.py"
    def login(user):
        return user.active
    ```

    ## Fix
    Have the producer serialize with a JSON library; in JSONL, one document per line.
    """


@rule("R402", "tuple-schema-violation", kind=KIND)
def tuple_schema_violation(item: Tuple, ctx: RuleContext):
    """
    ## What it does
    Checks each tuple in JSON and JSONL against the bundled `rlm-citation-tuple` JSON Schema
    (draft 2020-12, `additionalProperties: false`): `artifact_id` a non-empty string,
    `content_hash` 16 lowercase hex digits, `lines` `L<n>` or `L<start>-<end>`, no other fields.
    The message names the tuple by its JSON path. A tuple is every object with an `artifact_id`
    and every value under a `tuple-keys` key (default `citations`), at any depth.

    ## Why is this bad?
    Verifiers read exactly these three fields; a tuple with `path` instead of `artifact_id`, a
    hash of the wrong length or a `lines` of `42-58` cannot be verified, and an extra field is a
    sign the producer writes a different shape.

    ## Example

    Bad (`lines` without its `L`, and an unknown field):

    ```json title="out/findings.json"
    {"citations": [{"artifact_id": "src/app.py", "lines": "1-2", "note": "login check"}]}
    ```

    ```python title="src/app.py"
    def login(user):
        return user.active
    ```

    Good:

    ```json title="out/findings.json"
    {"citations": [{"artifact_id": "src/app.py", "content_hash": "9a83c4749b73681e", "lines": "L1-2"}]}
    ```

    ```python title="src/app.py"
    def login(user):
        return user.active
    ```

    ## Fix
    Have the producer write the schema's shape. The schema ships with the package as
    `pytest_citations/schemas/rlm-citation-tuple.schema.json`.
    """
    if item.form != "json" or _fast_valid(item.data):
        return
    if not isinstance(item.data, dict):
        yield item.finding(f"{item.where} must be a citation tuple object, not {type_name(item.data)}")
        return
    parts = {"artifact_id": item.artifact_id, "content_hash": item.content_hash, "lines": item.lines}
    for key, message in schema_problems(item.data):
        yield item.finding(f"{item.where}: {message}", parts.get(key))


@rule("R403", "malformed-inline-tuple", kind=KIND)
def malformed_inline_tuple(item: Tuple, ctx: RuleContext):
    """
    ## What it does
    Reports an inline Markdown tuple that is clearly meant as one (a path-like artifact id with
    an `@hash` or a line part) but does not follow the grammar
    `[artifact_id@content_hash, L<start>-<end>]`: a hash that is not 16 hex digits (such as a
    15-digit one), or a line part such as `L3-L5`, `lines 3-5` or `l42`.

    ## Why is this bad?
    A malformed tuple is silently skipped by verifiers that match the strict form, so a claim
    looks cited but is never checked.

    ## Example

    Bad (a 15-digit hash):

    ```markdown title="notes/review.md"
    Inactive users are refused [src/app.py@9a83c4749b73681, L1-2].
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
    Write the hash as 16 hex digits and the lines as `L<n>` or `L<start>-<end>`.
    """
    if item.form != "inline":
        return
    if item.content_hash is not None and not ANY_CASE_HASH.match(item.content_hash.value):
        value = item.content_hash.value
        detail = "is empty" if not value else (
            f"has {len(value)} characters" if all(c in "0123456789abcdefABCDEF" for c in value) else "is not hex"
        )
        yield item.finding(f"content_hash {quoted(value)} {detail}: expected 16 lowercase hex digits", item.content_hash)
    if item.lines is not None and not LINES.match(item.lines.value):
        yield item.finding(f"lines {quoted(item.lines.value)} is not L<start> or L<start>-<end>", item.lines)


@rule("R404", "content-hash-uppercase", kind=KIND, fixable=True)
def content_hash_uppercase(item: Tuple, ctx: RuleContext):
    """
    ## What it does
    Reports a `content_hash` written with uppercase hex digits. The schema allows only lowercase
    (`^[0-9a-f]{16}$`), and its inline regex skips such a tuple silently; here the tuple is still
    verified, with the hash lowercased.

    ## Why is this bad?
    Strict verifiers reject or skip the tuple, so the citation is never checked there.

    ## Example

    Bad:

    ```markdown title="notes/review.md"
    Inactive users are refused [src/app.py@9A83C4749B73681E, L1-2].
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
    `citations check --fix` lowercases the hash.
    """
    part = item.content_hash
    if part is None or not isinstance(part.value, str) or not ANY_CASE_HASH.match(part.value) or HASH.match(part.value):
        return
    lowered = part.value.lower()
    text = json.dumps(lowered) if item.form == "json" else lowered
    fix = Fix("lowercase content_hash", (Edit(part.start, part.end, text),))
    yield item.finding(f"content_hash {quoted(part.value)} must be lowercase: {quoted(lowered)}", part, fix)


def _cited_name(item: Tuple, cited: Cited) -> str:
    """The path as the tuple cites it, and the file it leads to when a symlink leads elsewhere
    (``src/m.py (a symlink to src/m2.py)``): a message names what the user wrote."""
    written = cast(Part, item.artifact_id).value  # (a tuple with a cited file is checkable)
    shown = quoted(written, plain=True)
    return shown if posixpath.normpath(written) == cited.rel else f"{shown} (a symlink to {cited.rel})"


def _verdict_is(item: Tuple, ctx: RuleContext, wanted: str) -> Cited | None:
    found = verdict(item, ctx)
    return found[1] if found is not None and found[0] == wanted else None


@rule("R405", "artifact-outside-root", kind=KIND)
def artifact_outside_root(item: Tuple, ctx: RuleContext):
    """
    ## What it does
    Reports a tuple whose `artifact_id` is not a project-relative path inside the repository
    root: an absolute path (`/etc/passwd`, `C:/x`), a `..` escape, or a symlink whose target lies
    outside the root. The target is never opened, hashed or printed.

    ## Why is this bad?
    A tuple cites an artifact of the project; a path out of it could make the checker read files it
    has no business reading, and the citation means nothing on another machine.

    ## Example

    Bad:

    ```markdown title="notes/review.md"
    Hosts are listed in [../../etc/hosts, L1].
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
    Cite the file by its path relative to the repository root, or copy what is cited into the
    repository.
    """
    cited = _verdict_is(item, ctx, OUTSIDE)
    if cited is not None:
        yield item.finding(f"artifact_id {cited.reason}; it is not checked", item.artifact_id)


@rule("R406", "artifact-missing", kind=KIND)
def artifact_missing(item: Tuple, ctx: RuleContext):
    """
    ## What it does
    Reports the verdict MISSING: the `artifact_id` names no file in the repository.

    ## Why is this bad?
    The cited file was deleted or moved; the finding that cites it now rests on nothing.

    ## Example

    Bad:

    ```markdown title="notes/review.md"
    Inactive users are refused [src/auth.py@9a83c4749b73681e, L1-2].
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
    Point `artifact_id` at the file's new path (and check the hash and lines still hold), or drop
    the claim.
    """
    cited = _verdict_is(item, ctx, MISSING)
    if cited is not None:
        yield item.finding(f"MISSING: {cited.reason}", item.artifact_id)


@rule("R407", "artifact-unreadable", kind=KIND)
def artifact_unreadable(item: Tuple, ctx: RuleContext):
    """
    ## What it does
    Reports a cited artifact that exists but cannot be hashed: a folder, a device or FIFO, or a
    file over `max-file-size`. (A binary or non-UTF-8 file is fine: the hash is over raw bytes.)

    ## Why is this bad?
    A content hash needs the file's bytes; without them the citation cannot be verified.

    ## Example

    Bad (a folder):

    ```markdown title="notes/review.md"
    The login code lives in [src/auth/, L1].
    ```

    ```python title="src/auth/app.py"
    def login(user):
        return user.active
    ```

    Good:

    ```markdown title="notes/review.md"
    The login code lives in [src/auth/app.py, L1].
    ```

    ```python title="src/auth/app.py"
    def login(user):
        return user.active
    ```

    ## Fix
    Cite a regular file, or raise `max-file-size`.
    """
    cited = _verdict_is(item, ctx, UNREADABLE)
    if cited is not None:
        path = cast(Part, item.artifact_id).value  # (a tuple with a verdict is checkable)
        yield item.finding(f"cannot hash {quoted(path, plain=True)}: {cited.reason}", item.artifact_id)


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
        message += f"; no version of the file in {searched} has this hash; not fixed"
    else:
        version, newer = match
        message += "; " + _history_note(version, newer, history)
        line_range = item.line_range()
        if line_range is None:
            what = "the whole file is cited" if item.lines is None else "the cited lines are malformed"
            message += f"; {what}: re-check the claim and update the hash by hand"
        else:
            start, end = line_range
            old, new = split_lines(version.data), cited.lines
            label = cast(Part, item.lines).value  # (line_range() is None without lines)
            if end > len(old) or start < 1 or end < start:
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


def _unversioned(item: Tuple, ctx: RuleContext):
    cited = _verdict_is(item, ctx, UNVERSIONED)
    if cited is None:
        return None
    return item.finding(
        f"UN-VERSIONED: {_cited_name(item, cited)} is cited without a content_hash, so a change to it goes unnoticed"
        f" (its hash now is {cited.hash})",
        item.artifact_id,
    )


@rule("R409", "citation-unversioned", kind=KIND, severity=Severity.WARNING)
def citation_unversioned(item: Tuple, ctx: RuleContext):
    """
    ## What it does
    Warns about the verdict UN-VERSIONED: a tuple without `content_hash` (the schema's path-only
    fallback). The message gives the file's current hash. With `require-content-hash = true`
    under `[tool.citations.kinds.code-tuples]`, R410 reports it as an error instead.

    ## Why is this bad?
    Without a hash nothing notices when the cited code changes; the citation only proves the file
    exists.

    ## Example

    Bad:

    ```markdown title="notes/review.md"
    Inactive users are refused [src/app.py, L1-2].
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
    Re-read the cited lines and, if the claim holds, add the file's current `content_hash`. There
    is no automatic fix: a hash added by a tool would bless whatever the file says today.
    """
    if not ctx.kind_options["require-content-hash"]:
        finding = _unversioned(item, ctx)
        if finding is not None:
            yield finding


@rule("R410", "content-hash-required", kind=KIND)
def content_hash_required(item: Tuple, ctx: RuleContext):
    """
    ## What it does
    Reports the verdict UN-VERSIONED as an error when `require-content-hash = true` is set under
    `[tool.citations.kinds.code-tuples]` (then R409 stays quiet). Off by default.

    ## Why is this bad?
    A project that wants every claim pinned to a version of the code cannot accept path-only
    citations.

    ## Example

    Bad:

    ```toml title="pyproject.toml"
    [tool.citations.kinds.code-tuples]
    require-content-hash = true
    ```

    ```markdown title="notes/review.md"
    Inactive users are refused [src/app.py, L1-2].
    ```

    ```python title="src/app.py"
    def login(user):
        return user.active
    ```

    Good:

    ```toml title="pyproject.toml"
    [tool.citations.kinds.code-tuples]
    require-content-hash = true
    ```

    ```markdown title="notes/review.md"
    Inactive users are refused [src/app.py@9a83c4749b73681e, L1-2].
    ```

    ```python title="src/app.py"
    def login(user):
        return user.active
    ```

    ## Fix
    Add the `content_hash` of the version the claim was checked against.
    """
    if ctx.kind_options["require-content-hash"]:
        finding = _unversioned(item, ctx)
        if finding is not None:
            yield finding


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

'''Rules on the verdict about a tuple's cited file (R405-R407, R409, R410): a path outside the
root, a file that is missing or cannot be hashed, and a tuple without a ``content_hash``
(UN-VERSIONED: a warning, or an error under ``require-content-hash``).'''

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from pytest_citations.core.diagnostics import Severity, quoted
from pytest_citations.kinds.code_tuples.model import Part, Tuple
from pytest_citations.kinds.code_tuples.verdicts import (
    MISSING,
    OUTSIDE,
    UNREADABLE,
    UNVERSIONED,
    _cited_name,
    _verdict_is,
)
from pytest_citations.rules import rule

if TYPE_CHECKING:
    from pytest_citations.contexts import RuleContext

KIND = "code-tuples"


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

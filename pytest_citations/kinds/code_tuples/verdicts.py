"""A tuple's verdict: FRESH, STALE, UN-VERSIONED, MISSING, a path outside the root or a file that
cannot be read, computed once per tuple (:func:`verdict`) from the cited file's raw bytes, read
once per run through ``sources`` (:func:`read_cited`); and the helpers the rules on verdicts
share."""

from __future__ import annotations

import functools
import posixpath
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, cast

from pytest_citations.core import git_history, sources
from pytest_citations.core.diagnostics import quoted
from pytest_citations.kinds.code_tuples.model import Part, Tuple

if TYPE_CHECKING:
    from pytest_citations.contexts import RuleContext

FRESH, STALE, UNVERSIONED, MISSING = "FRESH", "STALE", "UN-VERSIONED", "MISSING"
OUTSIDE, UNREADABLE = "OUTSIDE", "UNREADABLE"
_WINDOWS_DRIVE = re.compile(r"[A-Za-z]:[/\\]")


@dataclass(frozen=True)
class Cited:
    """A cited file as read once per run: its repo-relative path and bytes, or why not."""

    status: str  # FRESH-able ("FILE"), MISSING, OUTSIDE, UNREADABLE
    rel: str = ""
    data: bytes = b""
    reason: str = ""

    @functools.cached_property
    def hash(self) -> str:
        """Computed once: every tuple that cites the file compares its hash with it."""
        return git_history.content_hash(self.data)

    @functools.cached_property
    def lines(self) -> list[bytes]:
        """The file's lines, split once (one list shared by every caller: not to be changed)."""
        return split_lines(self.data)


def split_lines(data: bytes) -> list[bytes]:
    """Lines split on ``\\n``, a trailing ``\\r`` dropped; a final line end starts no new line."""
    if not data:
        return []
    lines = data.split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    return [line[:-1] if line.endswith(b"\r") else line for line in lines]


def is_absolute(artifact_id: str) -> bool:
    return artifact_id.startswith(("/", "\\")) or _WINDOWS_DRIVE.match(artifact_id) is not None or Path(
        artifact_id
    ).is_absolute()


def read_cited(engine, artifact_id: str) -> Cited:
    """The cited file, confined to the root and read once per run (its target is never opened
    when it lies outside the root)."""
    root, max_size = engine.config.root, engine.config.max_file_size
    return engine.memo(("code-tuples.file", artifact_id), lambda: _read(root, artifact_id, max_size))


def _read(root: Path, artifact_id: str, max_size: int) -> Cited:
    if is_absolute(artifact_id):
        return Cited(OUTSIDE, reason=f"{artifact_id} is an absolute path, not a project-relative one")
    if "\0" in artifact_id:
        return Cited(MISSING, reason=f"{artifact_id!r} names no file")
    try:
        resolved = sources.resolve_inside(root, artifact_id)
    except sources.SourceError as error:
        if error.code == "C008":
            how = "escapes the repository root through .." if ".." in PurePosixPath(artifact_id).parts else (
                "resolves outside the repository root (through a symlink)"
            )
            return Cited(OUTSIDE, reason=f"{artifact_id} {how}")
        return Cited(MISSING, reason=f"{artifact_id} cannot be resolved" + (": a symlink loop" if error.symlink_loop else ""))
    rel = resolved.relative_to(root.resolve()).as_posix()
    try:
        exists = resolved.exists()
    except OSError:
        exists = False
    if not exists:
        return Cited(MISSING, rel, reason=f"{artifact_id} does not exist")
    try:
        data = sources.read_bytes(root, rel, max_size)
    except sources.SourceError as error:
        return Cited(UNREADABLE, rel, reason=error.message)
    return Cited("FILE", rel, data)


def verdict(item: Tuple, ctx: RuleContext) -> tuple[str, Cited] | None:
    """(verdict, cited file) for a checkable tuple; None when its artifact id is not usable."""
    if not item.checkable:
        return None
    if "verdict" not in item.memo:
        cited = read_cited(ctx.file.engine, cast(Part, item.artifact_id).value)  # (checkable: it has one)
        result: str | None
        if cited.status != "FILE":
            result = cited.status
        elif item.content_hash is None:
            result = UNVERSIONED
        else:
            wanted = item.hash_value()
            result = None if wanted is None else (FRESH if wanted == cited.hash else STALE)
        item.memo["verdict"] = (result, cited)
    result, cited = item.memo["verdict"]
    return (result, cited) if result is not None else None


def _cited_name(item: Tuple, cited: Cited) -> str:
    """The path as the tuple cites it, and the file it leads to when a symlink leads elsewhere
    (``src/m.py (a symlink to src/m2.py)``): a message names what the user wrote."""
    written = cast(Part, item.artifact_id).value  # (a tuple with a cited file is checkable)
    shown = quoted(written, plain=True)
    return shown if posixpath.normpath(written) == cited.rel else f"{shown} (a symlink to {cited.rel})"


def _verdict_is(item: Tuple, ctx: RuleContext, wanted: str) -> Cited | None:
    found = verdict(item, ctx)
    return found[1] if found is not None and found[0] == wanted else None

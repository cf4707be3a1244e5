"""Where a record's provenance points (U110-U112 and their predicates): its ``found_by``
entries, the run directory of a citations file, and whether an ``artifact_path`` names a file of
the run, resolved once per file."""

from __future__ import annotations

from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from pytest_citations.core import sources
from pytest_citations.kinds.url_citations.record import Record
from pytest_citations.run import dependencies

if TYPE_CHECKING:
    from pytest_citations.contexts import RuleContext


def _found_by(record: Record) -> list:
    """The ``found_by`` array (empty when it is not one); its entries may be of any type."""
    entries = record.data.get("found_by")
    return entries if isinstance(entries, list) else []


def run_directory(rel: str) -> PurePosixPath:
    """The run folder of a citations file: the parent of its ``citations/`` folder, else its folder."""
    folder = PurePosixPath(rel).parent
    return folder.parent if folder.name == "citations" else folder


_MAX_CACHED_ARTIFACTS = 4096  # verdicts kept per file; a file naming more paths resolves some again


def _artifact_verdict(ctx: RuleContext, artifact_path: str) -> str:
    """``ok``, ``missing``, ``loop`` (a symlink loop) or ``escapes`` for an artifact path, cached per
    file. The check depends on the path (a wave output deleted, renamed or restored changes the
    verdict: the result cache, --since and --staged must know it was looked at)."""
    cache = ctx.state.get("artifacts")
    if cache is None:
        cache = ctx.state["artifacts"] = {}
    verdict = cache.get(artifact_path)
    if verdict is None:
        if len(cache) >= _MAX_CACHED_ARTIFACTS:
            cache.clear()
        run_dir = run_directory(ctx.rel)
        verdict = cache[artifact_path] = _resolve_artifact(ctx.root, run_dir, artifact_path)
        if verdict != "escapes":  # (a path out of the run is never looked at)
            dependencies.note_path(ctx.root, run_dir / artifact_path)
    return verdict


def _resolve_artifact(root: Path, run_dir: PurePosixPath, artifact_path: str) -> str:
    if not artifact_path or PurePosixPath(artifact_path).is_absolute() or "\\" in artifact_path or "\0" in artifact_path:
        return "escapes"
    try:
        base = (root / run_dir).resolve()
        target = sources.resolve(base / artifact_path)
    except (OSError, RuntimeError, ValueError) as exc:  # a symlink loop, a name too long
        return "loop" if sources.is_symlink_loop(exc) else "missing"
    if not target.is_relative_to(base) or not target.is_relative_to(root):
        return "escapes"
    return "ok" if target.is_file() else "missing"

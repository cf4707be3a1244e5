"""``--fix``: apply fixes in rounds until none is left, then write the file atomically.

A fix never loses anything it did not mean to change: edits are applied to the decoded text, so
the BOM, line endings and final newline stay as they were; the file is written through a
temporary file in the same folder (fsync, original mode, ``os.replace``), and only if its bytes
on disk are still the ones that were read. A round of fixes that would leave a diagnostic of
some code more than before it is undone, and fixing stops there.

A kind may also record, after the fixes, what checking established (a kind's ``refresh``: the
memories' ``verified`` stamps, ``confidence`` and ``last_verified``). Those records hold the time
of the run, so they are written only when asked (``refresh``; ``--refresh-verified``): a plain
``--fix`` writes nothing that depends on the clock, and a file without a finding stays as it is.
Every written file is reported with what was done to it (:func:`summary`).
"""

from __future__ import annotations

import os
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from typing import Any

from pytest_citations import sources
from pytest_citations.diagnostics import Diagnostic, Fix

MAX_ROUNDS = 25


class FileChangedError(Exception):
    """The file changed on disk between reading and writing; nothing was written."""


@dataclass
class FixResult:
    diagnostics: list[Diagnostic]  # what is left after fixing, re-checked on the written text
    applied: int
    refreshed: bool = False  # a kind's refresh rewrote the file too (only when asked)

    @property
    def written(self) -> bool:
        return bool(self.applied) or self.refreshed


def _overlaps(a: tuple[int, int, str], b: tuple[int, int, str]) -> bool:
    return (a[0] < b[1] and b[0] < a[1]) or a[0] == b[0]


def apply_fixes(text: str, fixes: list[Fix]) -> tuple[str, int]:
    """Apply every fix whose edits overlap no edit of a fix taken before it; return the count."""
    taken: list[tuple[int, int, str]] = []
    count = 0
    for fix in sorted(fixes, key=lambda f: min((e.start for e in f.edits), default=0)):
        spans = [(e.start, e.end, e.text) for e in fix.edits]
        if not spans:
            continue
        if any(_overlaps(span, other) for span in spans for other in taken):
            continue
        taken.extend(spans)
        count += 1
    for start, end, replacement in sorted(taken, key=lambda span: span[0], reverse=True):
        text = text[:start] + replacement + text[end:]
    return text, count


def introduces_findings(before: list[Diagnostic], after: list[Diagnostic]) -> bool:
    """Whether ``after`` holds more diagnostics of some code than ``before`` (lines move when a
    fix merges or drops lines, so codes are counted, not positions)."""
    counts = Counter(d.code for d in before)
    counts.subtract(d.code for d in after)
    return any(value < 0 for value in counts.values())


def fix_file(engine: Any, rel: str, kinds: tuple, refresh: bool = False) -> FixResult:
    """Fix one artifact file in place; returns what is left, how many fixes were applied and
    whether, with ``refresh``, a kind's refresh recorded what checking established."""
    try:
        source = sources.read_source(engine.config.root, rel, engine.config.max_file_size)
    except sources.SourceError:
        return FixResult(engine.check_file(rel, kinds), 0)
    current = source
    applied = 0
    diagnostics = engine.check_file(rel, kinds, source=current)
    for _ in range(MAX_ROUNDS):
        fixes = [d.fix for d in diagnostics if d.fix is not None]
        if not fixes:
            break
        text, count = apply_fixes(current.text, fixes)
        if count == 0:
            break
        candidate = sources.with_text(current, text)
        after = engine.check_file(rel, kinds, source=candidate)
        if introduces_findings(diagnostics, after):
            break  # the round is undone: a fix must never leave a finding that was not there
        applied += count
        current, diagnostics = candidate, after
    refreshed = False
    if refresh:
        fixed_text = current.text
        current, diagnostics = _refreshed(engine, rel, kinds, source.text, current, diagnostics)
        refreshed = current.text != fixed_text
    if current.raw != source.raw:
        write_atomic(source, current.raw)
    return FixResult(diagnostics, applied, refreshed)


def _refreshed(engine: Any, rel: str, kinds: tuple, original_text: str, current: sources.Source,
               diagnostics: list[Diagnostic]) -> tuple[sources.Source, list[Diagnostic]]:
    """The fixed text with each kind's refresh applied (one that would add a finding is left out),
    and its diagnostics."""
    for kind in kinds:
        refresh = getattr(kind, "refresh", None)
        refreshed = refresh(engine, rel, original_text, current.text) if refresh else None
        if refreshed is not None and refreshed != current.text:
            candidate = sources.with_text(current, refreshed)
            after = engine.check_file(rel, kinds, source=candidate)
            if not introduces_findings(diagnostics, after):
                current, diagnostics = candidate, after
    return current, diagnostics


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 'es' if word.endswith('x') else 's'}"


def summary(written: dict[str, FixResult], refresh: bool) -> str:
    """What a ``--fix`` run wrote: counts on the first line (refreshed stamps only when they were
    asked for), then each written file, sorted, with its fixes and whether its stamps were refreshed."""
    fixes = sum(result.applied for result in written.values())
    fixed_files = sum(1 for result in written.values() if result.applied)
    head = f"applied {_plural(fixes, 'fix')} in {_plural(fixed_files, 'file')}"
    if refresh:
        stamped = sum(1 for result in written.values() if result.refreshed)
        head += f", refreshed verification stamps in {_plural(stamped, 'file')}"
    lines = [f"citations: {head}"]
    for path, result in sorted(written.items()):
        changes = [_plural(result.applied, "fix")] if result.applied else []
        if result.refreshed:
            changes.append("verification stamps refreshed")
        lines.append(f"  {path}: {', '.join(changes)}")
    return "\n".join(lines) + "\n"


def write_atomic(original: sources.Source, data: bytes) -> None:
    """Replace ``original``'s file with ``data`` if it still holds the bytes that were read."""
    target = sources.resolve_inside(original.root, original.rel)
    try:
        on_disk = sources.read_bytes(original.root, original.rel, len(original.raw) + 1)
    except sources.SourceError:
        on_disk = None
    if on_disk != original.raw:
        raise FileChangedError(f"{original.rel} changed while it was being fixed; nothing was written")
    replace_atomically(target, data, os.stat(target).st_mode & 0o7777)


def create_atomic(root, rel: str, data: bytes) -> None:
    """Create a new file inside ``root`` the same way a fix writes one."""
    replace_atomically(sources.resolve_inside(root, rel), data, 0o644)


STALE_TEMPORARY_SECONDS = 600


def _remove_stale_temporaries(target) -> None:
    """Delete temporary files an earlier fix of ``target`` left when its process died mid-write
    (only regular files of our naming pattern, older than :data:`STALE_TEMPORARY_SECONDS`)."""
    prefix, now = f".{target.name}.", time.time()
    with os.scandir(target.parent) as entries:
        for entry in entries:
            if not (entry.name.startswith(prefix) and entry.name.endswith(".tmp")):
                continue
            try:
                if entry.is_file(follow_symlinks=False) and now - entry.stat(follow_symlinks=False).st_mtime > STALE_TEMPORARY_SECONDS:
                    os.unlink(entry.path)
            except OSError:
                continue


def replace_atomically(target, data: bytes, mode: int, durable: bool = True) -> None:
    """Write through a temporary file in the target's folder: fsync (unless not ``durable``: a
    cache may lose its last write to a power cut, a fixed file may not), ``mode``, ``os.replace``."""
    _remove_stale_temporaries(target)
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            if durable:
                stream.flush()
                os.fsync(stream.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, target)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise

"""``--fix``: apply fixes in rounds until none is left, then write the file atomically.

A fix never loses anything it did not mean to change: edits are applied to the decoded text, so
the BOM, line endings and final newline stay as they were; the file is written through a
temporary file in the same folder (fsync, original mode, ``os.replace``), and only if its bytes
on disk are still the ones that were read and nothing changed it while the new ones were written. A round of fixes that would leave a diagnostic of
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
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from pytest_citations.core import sources
from pytest_citations.core.diagnostics import Diagnostic, Fix

MAX_ROUNDS = 25


class FileChangedError(Exception):
    """The file changed on disk between reading and writing; nothing was written."""


@dataclass
class FixResult:
    diagnostics: list[Diagnostic]  # what is left after fixing, re-checked on the written text
    applied: int
    refreshed: bool = False  # a kind's refresh rewrote the file too (only when asked)
    before: str = ""  # without writing (``--diff``): the file's text, and its text fixed
    after: str = ""
    codes: Counter = field(default_factory=Counter)  # the fixes applied, by the code of their diagnostic

    @property
    def written(self) -> bool:
        return bool(self.applied) or self.refreshed


def _overlaps(a: tuple[int, int, str], b: tuple[int, int, str]) -> bool:
    return (a[0] < b[1] and b[0] < a[1]) or a[0] == b[0]


def apply_fixes(text: str, fixes: list[Fix], applied: list[Fix] | None = None) -> tuple[str, int]:
    """Apply every fix whose edits overlap no edit of a fix taken before it; return the count (and
    add each fix applied to ``applied``, when given)."""
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
        if applied is not None:
            applied.append(fix)
    for start, end, replacement in sorted(taken, key=lambda span: span[0], reverse=True):
        text = text[:start] + replacement + text[end:]
    return text, count


def introduces_findings(before: list[Diagnostic], after: list[Diagnostic]) -> bool:
    """Whether ``after`` holds more diagnostics of some code than ``before`` (lines move when a
    fix merges or drops lines, so codes are counted, not positions)."""
    counts = Counter(d.code for d in before)
    counts.subtract(d.code for d in after)
    return any(value < 0 for value in counts.values())


def fix_file(engine: Any, rel: str, kinds: tuple, refresh: bool = False, write: bool = True,
             given: sources.Source | None = None) -> FixResult:
    """Fix one artifact file in place (``write`` false: only work out its fixed text); returns what
    is left, how many fixes were applied, whether, with ``refresh``, a kind's refresh recorded what
    checking established, and the text before and after. ``given``: the file's text in memory
    (standard input), fixed instead of the file on disk (only with ``write`` false)."""
    try:
        source = given or sources.read_source(engine.config.root, rel, engine.config.max_file_size)
    except sources.SourceError:
        return FixResult(engine.check_file(rel, kinds), 0)
    current = source
    applied = 0
    codes: Counter = Counter()
    diagnostics = engine.check_file(rel, kinds, source=current)
    for _ in range(MAX_ROUNDS):
        code_of = {id(d.fix): d.code for d in diagnostics if d.fix is not None}
        if not code_of:
            break
        taken: list[Fix] = []
        text, count = apply_fixes(current.text, [d.fix for d in diagnostics if d.fix is not None], taken)
        if count == 0:
            break
        candidate = sources.with_text(current, text)
        after = engine.check_file(rel, kinds, source=candidate)
        if introduces_findings(diagnostics, after):
            break  # the round is undone: a fix must never leave a finding that was not there
        applied += count
        codes.update(code_of[id(fix)] for fix in taken)
        current, diagnostics = candidate, after
    refreshed = False
    if refresh:
        fixed_text = current.text
        current, diagnostics = _refreshed(engine, rel, kinds, source.text, current, diagnostics)
        refreshed = current.text != fixed_text
    if write and current.raw != source.raw:
        write_atomic(source, current.raw)
    if write:  # (a fixed file's texts are kept only to be shown: not for every file --fix writes)
        return FixResult(diagnostics, applied, refreshed, codes=codes)
    return FixResult(diagnostics, applied, refreshed, source.text, current.text, codes)


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
    """Replace ``original``'s file with ``data`` if it still holds the bytes that were read, and
    nothing changed it while the new bytes were written (its signature is taken when its bytes are
    compared, and again right before the new file is moved into place)."""
    target = sources.resolve_inside(original.root, original.rel)
    before = _signature(target)
    try:
        on_disk = sources.read_bytes(original.root, original.rel, len(original.raw) + 1)
    except sources.SourceError:
        on_disk = None
    changed = FileChangedError(f"{original.rel} changed while it was being fixed; nothing was written")
    if before is None or on_disk != original.raw or _signature(target) != before:
        raise changed
    try:
        replace_atomically(target, data, before.mode & 0o7777, expected=before)
    except FileChangedError:
        raise changed from None


def create_atomic(root, rel: str, data: bytes) -> None:
    """Create a new file inside ``root`` the same way a fix writes one; FileChangedError, and
    nothing written, if a file of that name appears meanwhile."""
    target = sources.resolve_inside(root, rel)
    try:
        replace_atomically(target, data, 0o644, expected=None)
    except FileChangedError:
        raise FileChangedError(f"{rel} was created by someone else while it was being written; nothing was written") from None


class Signature(NamedTuple):
    """What tells that a file was changed or replaced: its identity, size, times and mode."""

    device: int
    inode: int
    size: int
    modified: int
    changed: int
    mode: int


def _signature(path) -> Signature | None:
    """The signature of the file at ``path``; None when there is none."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return Signature(info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_mode)


ANY_FILE = object()  # replace_atomically(expected=ANY_FILE): whatever is there is replaced


def replace_atomically(target, data: bytes, mode: int, durable: bool = True, expected=ANY_FILE) -> None:
    """Write through a temporary file in the target's folder: fsync (unless not ``durable``: a
    cache may lose its last write to a power cut, a fixed file may not), ``mode``, ``os.replace``.

    With ``expected`` (a :class:`Signature`, or None for no file), the target's signature is
    compared right before the replace: if it changed while the temporary file was written,
    FileChangedError and nothing is written. The only file ever removed is the temporary file this
    call created, when it fails: a file of a temporary's name that this call did not make (one a
    killed run left, or one committed with the checkout) is never deleted.
    """
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    made = os.fstat(handle)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            if durable:
                stream.flush()
                os.fsync(stream.fileno())
        os.chmod(temporary, mode)
        if expected is not ANY_FILE and _signature(target) != expected:
            raise FileChangedError(f"{target} changed while it was being written")
        os.replace(temporary, target)
    except BaseException:
        _remove_if_made(temporary, made)
        raise


def _remove_if_made(path: str, made: os.stat_result) -> None:
    """Delete the temporary file at ``path`` if it is still the one created (same device and inode)."""
    try:
        info = os.lstat(path)
        if (info.st_dev, info.st_ino) == (made.st_dev, made.st_ino):
            os.unlink(path)
    except OSError:
        pass

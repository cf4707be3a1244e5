"""``--fix``: apply fixes in passes until none is left, then write the file atomically.

A pass applies every fix that overlaps no other at once, past the cap of diagnostics a file keeps
of each code (up to :data:`FIXES_PER_PASS` more), and the text is checked again; fixes that overlap
wait for the next pass. Each pass checks the whole file, so there are at most :data:`MAX_PASSES`
of them: a file whose fixes wait for each other longer is written as far as it got, and the
summary says that fixes are left (``--fix`` runs on pull requests, by pre-commit.ci or a bot).

A fix never loses anything it did not mean to change: edits are applied to the decoded text, so
the BOM, line endings and final newline stay as they were; the file is written through a
temporary file in the same folder (fsync, original mode, ``os.replace``), and only if its bytes
on disk are still the ones that were read and nothing changed it while the new ones were written.
A pass that would leave more diagnostics of some code than before it is undone and tried again
with the first half of its fixes (by position); a single fix that would is left out, and fixing
stops there.

A kind may also record, after the fixes, what checking established (a kind's ``refresh``: the
memories' ``verified`` stamps, ``confidence`` and ``last_verified``). Those records hold the time
of the run, so they are written only when asked (``refresh``; ``--refresh-verified``): a plain
``--fix`` writes nothing that depends on the clock, and a file without a finding stays as it is.
Every written file is reported with what was done to it (:func:`summary`).
"""

from __future__ import annotations

import bisect
import os
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from pytest_citations.core import sources
from pytest_citations.core.diagnostics import Diagnostic, Fix
from pytest_citations.engine import KEPT_PER_CODE

MAX_PASSES = 10  # passes, each a check of the whole fixed text (an undone pass counts too)
# What a check of the fixer keeps past the cap of each code, for their fixes: so many diagnostics,
# whose replacement texts hold so many characters in all
FIXES_PER_PASS = 20_000
FIX_TEXT_PER_PASS = 16 * 1024 * 1024


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
    stopped: bool = False  # MAX_PASSES passes were made and fixes are left

    @property
    def written(self) -> bool:
        return bool(self.applied) or self.refreshed


def _overlaps(a: tuple[int, int, str], b: tuple[int, int, str]) -> bool:
    return (a[0] < b[1] and b[0] < a[1]) or a[0] == b[0]


def apply_fixes(text: str, fixes: list[Fix], applied: list[Fix] | None = None) -> tuple[str, int]:
    """Apply every fix whose edits overlap no edit of a fix taken before it; return the count (and
    add each fix applied to ``applied``, when given). Linear in the text and the fixes (but for
    sorting them): the edits taken are kept by position, so each is compared with its neighbours
    only, and the new text is joined once."""
    taken: list[tuple[int, int, str]] = []  # sorted by start; no two overlap
    starts: list[int] = []
    count = 0
    for fix in sorted(fixes, key=lambda f: min((e.start for e in f.edits), default=0)):
        spans = [(e.start, e.end, e.text) for e in fix.edits]
        if not spans or any(_overlaps_taken(span, taken, starts) for span in spans):
            continue
        for span in spans:
            at = bisect.bisect_left(starts, span[0])
            starts.insert(at, span[0])
            taken.insert(at, span)
        count += 1
        if applied is not None:
            applied.append(fix)
    return _edited(text, taken), count


def _overlaps_taken(span: tuple[int, int, str], taken: list[tuple[int, int, str]], starts: list[int]) -> bool:
    """Whether ``span`` overlaps an edit of ``taken`` (sorted, none overlapping another): only the
    last edit starting before it and the first starting at or after it can."""
    at = bisect.bisect_left(starts, span[0])
    return (at > 0 and _overlaps(span, taken[at - 1])) or (at < len(taken) and _overlaps(span, taken[at]))


def _edited(text: str, taken: list[tuple[int, int, str]]) -> str:
    """``text`` with each edit of ``taken`` (sorted by start, none overlapping another) made."""
    pieces, done = [], 0
    for start, end, replacement in taken:
        pieces += [text[done:start], replacement]
        done = end
    pieces.append(text[done:])
    return "".join(pieces)


def introduces_findings(before: list[Diagnostic], after: list[Diagnostic]) -> bool:
    """Whether ``after`` holds more diagnostics of some code than ``before`` (lines move when a
    fix merges or drops lines, so codes are counted, not positions), up to the number a plain check
    keeps: past it, which diagnostics the fixer's checks keep for their fixes depends on the others."""
    counts = _kept_counts(before)
    counts.subtract(_kept_counts(after))
    return any(value < 0 for value in counts.values())


def _kept_counts(diagnostics: list[Diagnostic]) -> Counter:
    """How many diagnostics of each code there are, up to the number a plain check keeps."""
    return Counter({code: min(count, KEPT_PER_CODE) for code, count in Counter(d.code for d in diagnostics).items()})


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
    current, applied, codes, stopped, diagnostics = _fixed(engine, rel, kinds, source)
    refreshed = False
    if refresh:
        fixed_text = current.text
        current, diagnostics = _refreshed(engine, rel, kinds, source.text, current, diagnostics)
        refreshed = current.text != fixed_text
    if write and current.raw != source.raw:
        write_atomic(source, current.raw)
    if write:  # (a fixed file's texts are kept only to be shown: not for every file --fix writes)
        return FixResult(diagnostics, applied, refreshed, codes=codes, stopped=stopped)
    return FixResult(diagnostics, applied, refreshed, source.text, current.text, codes, stopped)


def _fixed(engine: Any, rel: str, kinds: tuple, source: sources.Source
           ) -> tuple[sources.Source, int, Counter, bool, list[Diagnostic]]:
    """The text with the fixes applied in passes (at most :data:`MAX_PASSES`), how many, by code,
    whether fixes are left when the passes ran out, and its diagnostics as a check reports them."""
    current, applied, passes = source, 0, 0
    codes: Counter = Counter()
    diagnostics = engine.check_file(rel, kinds, source=current, keep_past_cap=_PassBudget())
    fixes = _fixes_of(diagnostics)
    while fixes and passes < MAX_PASSES:
        taken: list[Fix] = []
        text, count = apply_fixes(current.text, list(fixes), taken)
        if count == 0:
            break
        candidate = sources.with_text(current, text)
        after = engine.check_file(rel, kinds, source=candidate, keep_past_cap=_PassBudget())
        passes += 1
        if introduces_findings(diagnostics, after):  # the pass is undone: a fix must never add a finding
            if count == 1:
                fixes = {}
                break
            fixes = {fix: fixes[fix] for fix in taken[: count // 2]}
            continue
        applied += count
        codes.update(fixes[fix] for fix in taken)
        current, diagnostics = candidate, after
        fixes = _fixes_of(diagnostics)
    stopped = bool(fixes) and passes == MAX_PASSES
    return current, applied, codes, stopped, _as_reported(engine, rel, kinds, current, diagnostics)


class _PassBudget:
    """Which diagnostics past the cap of their code one check keeps for their fixes: the first
    :data:`FIXES_PER_PASS`, as long as their replacement texts stay within :data:`FIX_TEXT_PER_PASS`
    characters (what the fixer holds stays bounded whatever the fixes are)."""

    def __init__(self) -> None:
        self.count = 0
        self.characters = 0

    def __call__(self, diagnostic: Diagnostic) -> bool:
        size = sum(len(edit.text) for edit in diagnostic.fix.edits) if diagnostic.fix else 0
        if self.count >= FIXES_PER_PASS or self.characters + size > FIX_TEXT_PER_PASS:
            return False
        self.count += 1
        self.characters += size
        return True


def _fixes_of(diagnostics: list[Diagnostic]) -> dict[Fix, str]:
    """Each fix of ``diagnostics``, with the code of its diagnostic."""
    return {d.fix: d.code for d in diagnostics if d.fix is not None}


def _as_reported(engine: Any, rel: str, kinds: tuple, current: sources.Source,
                 diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """``diagnostics`` (what the fixer's last check found) as a plain check reports them: checked
    again only when they hold more of some code than a plain check keeps."""
    if max(Counter(d.code for d in diagnostics).values(), default=0) <= KEPT_PER_CODE:
        return diagnostics
    return engine.check_file(rel, kinds, source=current)


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
    asked for), then each written file, sorted, with its fixes, whether its stamps were refreshed,
    and whether fixing stopped with fixes left."""
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
        stopped = f"; fixing stopped after {MAX_PASSES} passes, fixes are left (run --fix again)" if result.stopped else ""
        lines.append(f"  {path}: {', '.join(changes)}{stopped}")
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

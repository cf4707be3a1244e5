"""The only place that opens files.

Every path is resolved inside the repository root (symlinks included) before anything is read,
the size is capped before the bytes are loaded, and text is decoded as strict UTF-8 so an error
can name the byte offset. A UTF-8 BOM is accepted and remembered; CRLF counts as one line end.
"""

from __future__ import annotations

import bisect
import codecs
import errno
import functools
import os
import stat
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, NamedTuple

from pytest_citations.run import dependencies

DEFAULT_MAX_FILE_SIZE = 16 * 1024 * 1024
READ_BLOCK = 1 << 20  # what a line over its cap is read by, and how often a stream tells how far it is
BOM = "\ufeff"
_BOM_BYTES = BOM.encode("utf-8")


class SourceError(Exception):
    """A file that cannot be read as text; ``code`` is the C0xx rule that reports it."""

    def __init__(self, code: str, message: str, line: int = 1, col: int = 1, symlink_loop: bool = False) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.line = line
        self.col = col
        self.symlink_loop = symlink_loop  # the path cannot be resolved because its symlinks loop


def is_symlink_loop(exc: BaseException) -> bool:
    """Whether resolving a path failed on a symlink loop (Python 3.11 raises RuntimeError, later
    versions OSError ELOOP)."""
    if isinstance(exc, OSError):
        return exc.errno == errno.ELOOP
    return isinstance(exc, RuntimeError) and str(exc).startswith("Symlink loop")


def display_path(root: Path, path: Path) -> str:
    """The repo-relative POSIX path of ``path`` when it lies under ``root``, else as given."""
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


def resolve(path: Path) -> Path:
    """``path.resolve()`` that fails on a symlink loop on every Python (3.11 raises RuntimeError;
    3.13 returns the looping path, whose ``stat`` then raises ELOOP)."""
    resolved = path.resolve()
    if resolved.is_symlink():
        resolved.stat()
    return resolved


@functools.lru_cache(maxsize=64)
def resolved_root(root: Path) -> Path:
    """``root.resolve()``, once per root: a repository root does not move during a run, and every
    read resolves it."""
    return root.resolve()


@functools.lru_cache(maxsize=4096)
def _resolved_folder(folder: str) -> Path:
    return resolve(Path(folder))


def _resolve_file(candidate: str) -> Path:
    """:func:`resolve` of a file path, with its folder's resolution remembered for the run: only
    the last component is looked at on disk, and a symlink (or anything unusual) there takes the
    full way. Resolving walks every folder of the path, for every citation of every file."""
    folder, name = os.path.split(candidate)
    if name in ("", ".", ".."):
        return resolve(Path(candidate))
    try:
        is_link = stat.S_ISLNK(os.lstat(candidate).st_mode)
    except FileNotFoundError:
        is_link = False
    except (OSError, ValueError):  # too long, not a folder, a loop, a NUL: the full way raises the usual error
        return resolve(Path(candidate))
    return resolve(Path(candidate)) if is_link else _resolved_folder(folder) / name


def forget_folders() -> None:
    """Forget resolved roots and folders (a new run may see a rearranged tree)."""
    resolved_root.cache_clear()
    _root_prefix.cache_clear()
    _real_folder_inside.cache_clear()
    _resolved_folder.cache_clear()


def _is_plain(path: str) -> bool:
    """Whether ``path`` is relative, names a file and holds no empty, ``.`` or ``..`` part."""
    wrapped = f"/{path}/"
    return os.sep == "/" and not ("//" in wrapped or "/./" in wrapped or "/../" in wrapped)


def stat_inside(root: Path, path: str) -> tuple[str, os.stat_result]:
    """:func:`resolve_inside` and ``os.stat`` of what it resolves to, as (path, stat), in one
    ``lstat`` for a regular file that is no symlink (the result cache stats every file a result
    read, on every run). Anything else takes :func:`resolve_inside` and ``os.stat``, and raises
    what they raise."""
    real_root, prefix = _root_prefix(root)
    if _is_plain(path):  # what os.path.join and os.path.split would make of it, without their cost
        head, _, name = path.rpartition("/")
        candidate, folder = prefix + path, prefix + head  # the root's own files: its prefix, "/" at least
    else:
        candidate = os.path.join(prefix, path)
        folder, name = os.path.split(candidate)
    try:
        info = os.lstat(candidate) if name not in ("", ".", "..") else None
    except (OSError, ValueError):
        info = None
    if info is not None and stat.S_ISREG(info.st_mode):
        real_folder = _real_folder_inside(folder, prefix)
        if real_folder is not None:
            dependencies.note_path(real_root, path)
            return real_folder + name, info
    resolved = resolve_inside(root, path)
    return str(resolved), os.stat(resolved)


@functools.lru_cache(maxsize=64)
def _root_prefix(root: Path) -> tuple[Path, str]:
    """The resolved root, and its text ending in a separator."""
    real_root = resolved_root(root)
    base = str(real_root)
    return real_root, base if base.endswith(os.sep) else base + os.sep


@functools.lru_cache(maxsize=4096)
def _real_folder_inside(folder: str, root_prefix: str) -> str | None:
    """The resolved ``folder`` ending in a separator, when it is the root or lies below it;
    None when it resolves elsewhere."""
    real_folder = str(_resolved_folder(folder))
    real_folder = real_folder if real_folder.endswith(os.sep) else real_folder + os.sep
    return real_folder if real_folder.startswith(root_prefix) else None


def resolve_inside(root: Path, path: Path | str) -> Path:
    """Resolve ``path`` (relative to ``root`` unless absolute) and refuse anything outside ``root``.

    The check runs on the fully resolved path, so a symlink that leaves the root is refused even
    when its own name lies inside it. The target of such a link is never opened.
    """
    root = resolved_root(root)
    dependencies.note_path(root, path)
    try:
        resolved = _resolve_file(os.path.join(root, path))
    except (OSError, RuntimeError, ValueError) as exc:  # too long, a symlink loop, a NUL byte
        shown = str(path).replace("\0", "\\0")
        if is_symlink_loop(exc):  # named as what it is, without the absolute path the error carries
            raise SourceError("C001", f"cannot resolve path {shown!r}: a symlink loop", symlink_loop=True) from None
        raise SourceError("C001", f"cannot resolve path {shown!r}: {getattr(exc, 'strerror', None) or exc}") from None
    inside, base = str(resolved), str(root)
    if not (inside == base or inside.startswith(base if base.endswith(os.sep) else base + os.sep)):
        raise SourceError("C008", f"path resolves outside the repository root: {Path(path).as_posix()}")
    return resolved


def _regular_file(path: Path, shown: str, max_size: int) -> os.stat_result:
    try:
        info = path.stat()
    except FileNotFoundError:
        raise SourceError("C001", f"cannot read {shown}: no such file") from None
    except OSError as exc:
        raise SourceError("C001", f"cannot read {shown}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(info.st_mode):
        raise SourceError("C001", f"cannot read {shown}: not a regular file")
    if info.st_nlink > 1:  # its other names may lie outside the root: never read, never quoted
        raise SourceError("C001", f"cannot read {shown}: the file has {info.st_nlink} hard links, and one may lie outside "
                                  "the repository, so it is not read")
    if info.st_size > max_size:
        raise SourceError(
            "C003", f"file is {info.st_size} bytes, over the {max_size}-byte limit (max-file-size)"
        )
    dependencies.note_read(str(path), info)  # (the stat before the read: see dependencies.Recorder)
    return info


def read_bytes(root: Path, path: Path | str, max_size: int = DEFAULT_MAX_FILE_SIZE) -> bytes:
    """The raw bytes of a file inside ``root``, size-capped."""
    return _read(root, path, max_size)[0]


def _read(root: Path, path: Path | str, max_size: int) -> tuple[bytes, Path, str]:
    """(bytes, resolved path, repo-relative path shown in messages) of a file inside ``root``.

    A plain regular file within the limit is found with one ``lstat`` (:func:`stat_inside`) and
    opened without following a symlink put there since; anything else, and every failure, takes
    the full way and its message."""
    if isinstance(path, str):
        found = _plain_read(root, path, max_size)
        if found is not None:
            return found
    resolved = resolve_inside(root, path)
    shown = display_path(resolved_root(root), resolved)
    info = _regular_file(resolved, shown, max_size)
    try:
        with open(resolved, "rb") as handle:
            data = handle.read(info.st_size + 1)  # not max_size + 1: a read allocates what it asks for
            if len(data) > info.st_size:  # grew since the stat: the rest, up to the limit
                data += handle.read(max_size + 1 - len(data))
    except OSError as exc:
        raise SourceError("C001", f"cannot read {shown}: {exc.strerror or exc}") from None
    if len(data) > max_size:  # grew between stat and read
        raise SourceError("C003", f"file is over the {max_size}-byte limit (max-file-size)")
    return data, resolved, shown


def read_named_file(path: Path, max_size: int) -> bytes:
    """The bytes of a file named on the command line or found beside the checkout (a baseline, a
    settings file), whose content may come with the checkout: a regular file of at most
    ``max_size`` bytes. A symlink is followed (the user named the path), but what it leads to is
    read only when it is a regular file: ``/dev/zero``, a FIFO or a terminal is refused, never read.

    Raises OSError when the file cannot be opened, SourceError when it is not a regular file or is
    too large (its ``message`` says which, without the path)."""
    handle = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    with open(handle, "rb") as stream:
        info = os.fstat(handle)
        if not stat.S_ISREG(info.st_mode):
            raise SourceError("C001", "not a regular file")
        if info.st_size > max_size:
            raise SourceError("C003", f"the file is {info.st_size} bytes, over the {max_size}-byte limit")
        data = stream.read(info.st_size + 1)
        if len(data) > info.st_size:  # grew since the stat: the rest, up to the limit
            data += stream.read(max_size + 1 - len(data))
    if len(data) > max_size:
        raise SourceError("C003", f"the file is over the {max_size}-byte limit")
    return data


def read_head(root: Path, path: Path | str, size: int, max_size: int = DEFAULT_MAX_FILE_SIZE) -> bytes:
    """The first ``size`` bytes of a file inside ``root`` (for sniffing its kind), size-capped.

    Planning reads the head of every file a kind may claim by content: a plain regular file within
    the limit is found with one ``lstat`` (:func:`stat_inside`) and opened without following a
    symlink put there since; anything else, and every failure, takes the full way and its message.
    """
    if isinstance(path, str):
        head = _plain_head(root, path, size, max_size)
        if head is not None:
            return head
    resolved = resolve_inside(root, path)
    shown = display_path(resolved_root(root), resolved)
    _regular_file(resolved, shown, max_size)
    try:
        with open(resolved, "rb") as handle:
            return handle.read(size)
    except OSError as exc:
        raise SourceError("C001", f"cannot read {shown}: {exc.strerror or exc}") from None


def _plain_head(root: Path, path: str, size: int, max_size: int) -> bytes | None:
    """The first ``size`` bytes of a regular file within ``max_size`` found by :func:`stat_inside`;
    None when the file is anything else or cannot be read so (the caller then says why)."""
    found = _plain_bytes(root, path, size, max_size)
    return None if found is None else found[0]


def _plain_read(root: Path, path: str, max_size: int) -> tuple[bytes, Path, str] | None:
    """What :func:`_read` returns, for a regular file within ``max_size`` found by
    :func:`stat_inside`; None otherwise (the caller then takes the full way)."""
    found = _plain_bytes(root, path, max_size + 1, max_size)
    if found is None:
        return None
    data, real = found
    shown = real[len(_root_prefix(root)[1]) :].replace(os.sep, "/")  # stat_inside's path begins so
    return data, Path(real), shown


def _plain_bytes(root: Path, path: str, size: int, max_size: int) -> tuple[bytes, str] | None:
    """(up to ``size`` bytes, real path) of a regular file no larger than ``max_size``, after one
    ``lstat`` and an open that follows no symlink; None for anything else."""
    try:
        real, info = stat_inside(root, path)
    except (SourceError, OSError):
        return None
    if not stat.S_ISREG(info.st_mode) or info.st_size > max_size or info.st_nlink > 1:
        return None
    try:
        with open(os.open(real, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)), "rb") as handle:
            # At most one byte past the size the lstat saw: a read allocates what it asks for
            # first, and ``size`` may be the whole max-file-size.
            data = handle.read(min(size, info.st_size + 1))
    except OSError:
        return None
    if len(data) > info.st_size:  # grown since the lstat: the full way
        return None
    dependencies.note_read(real, info)  # (the stat before the read: see dependencies.Recorder)
    return data, real


def _decode_error(data: bytes, exc: UnicodeDecodeError, base_offset: int = 0) -> SourceError:
    offset = base_offset + exc.start
    line = data.count(b"\n", 0, exc.start) + 1
    line_start = data.rfind(b"\n", 0, exc.start) + 1
    col = len(data[line_start : exc.start].decode("utf-8", "replace")) + 1
    return SourceError(
        "C002",
        f"not valid UTF-8: byte 0x{data[exc.start]:02x} at offset {offset}",
        line=line,
        col=col,
    )


@dataclass
class Source:
    """A decoded text file with a line index for offset -> (line, col)."""

    root: Path
    path: Path
    rel: str
    raw: bytes
    text: str
    has_bom: bool
    _line_starts: list[int] | None = field(default=None, repr=False)

    @property
    def newline(self) -> str:
        """The file's line ending style, judged by its first line end."""
        first = self.text.find("\n")
        return "\r\n" if first > 0 and self.text[first - 1] == "\r" else "\n"

    @property
    def line_starts(self) -> list[int]:
        if self._line_starts is None:
            starts = [0]
            find = self.text.find
            pos = find("\n")
            while pos != -1:
                starts.append(pos + 1)
                pos = find("\n", pos + 1)
            self._line_starts = starts
        return self._line_starts

    def line_col(self, offset: int) -> tuple[int, int]:
        """1-based line and column (in characters) of a character offset into ``text``."""
        index = bisect.bisect_right(self.line_starts, offset) - 1
        return index + 1, offset - self.line_starts[index] + 1

    def lines(self) -> Iterator[Line]:
        """The lines of ``text``, as :func:`iter_lines` yields them from disk."""
        starts = self.line_starts
        text = self.text
        last = len(starts) - 1
        for index, start in enumerate(starts):
            end = starts[index + 1] if index < last else len(text)
            if index == last and start == end:
                return
            body = text[start:end]
            if body.endswith("\n"):
                body = body[:-2] if body.endswith("\r\n") else body[:-1]
            yield Line(index + 1, start, body)

    def line_text(self, line: int) -> str:
        """Line ``line`` (1-based) without its line end."""
        starts = self.line_starts
        if not 1 <= line <= len(starts):
            return ""
        end = starts[line] if line < len(starts) else len(self.text)
        return self.text[starts[line - 1] : end].rstrip("\r\n")


def with_text(source: Source, text: str) -> Source:
    """The same file with new text (BOM kept), as a fix would leave it."""
    raw = ((BOM if source.has_bom else "") + text).encode("utf-8")
    return Source(source.root, source.path, source.rel, raw, text, source.has_bom)


def read_source(root: Path, path: Path | str, max_size: int = DEFAULT_MAX_FILE_SIZE) -> Source:
    """Read a whole text file inside ``root`` as strict UTF-8."""
    root = resolved_root(root)
    data, resolved, shown = _read(root, path, max_size)
    text = decode_text(data)
    return Source(root, resolved, shown, data, text.removeprefix(BOM), text.startswith(BOM))


def read_stream(stream: BinaryIO, max_size: int = DEFAULT_MAX_FILE_SIZE) -> bytes:
    """What ``stream`` (standard input) holds, but never more than ``max_size + 1`` bytes: an
    untrusted stream is read as a file is, within the limit (:func:`source_of_bytes` tells it)."""
    return stream.read(max_size + 1)


def source_of_bytes(root: Path, rel: str, data: bytes, max_size: int = DEFAULT_MAX_FILE_SIZE) -> Source:
    """``data`` (read by :func:`read_stream`) as the text of a file ``rel`` inside ``root`` that is
    not read from disk: size-capped (C003) and strict UTF-8 (C002) as :func:`read_source` reads one."""
    if len(data) > max_size:
        raise SourceError("C003", f"file is over the {max_size}-byte limit (max-file-size)")
    root = resolved_root(root)
    text = decode_text(data)
    return Source(root, root / rel, rel, data, text.removeprefix(BOM), text.startswith(BOM))


def decode_text(data: bytes) -> str:
    """``data`` as strict UTF-8, a BOM included; a C002 SourceError naming the first bad byte."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _decode_error(data, exc) from None


class Line(NamedTuple):
    """One line of a text: 1-based number, character offset of its start, text without line end.
    A named tuple: one is made per line of files with millions of lines."""

    number: int
    offset: int
    text: str


def iter_lines(root: Path, path: Path | str, max_size: int = DEFAULT_MAX_FILE_SIZE) -> Iterator[Line]:
    """Stream a text file line by line, with the same checks as :func:`read_source`.

    Memory stays bounded by the longest line. A decoding error is raised when its line is reached,
    after the lines before it were yielded. The size limit holds while a line is read, not only
    after: no line is read further than one byte past it, so a file that grows once its size was
    checked (a line that never ends) takes no more memory than the limit.
    """
    root = resolved_root(root)
    resolved = resolve_inside(root, path)
    shown = display_path(root, resolved)
    _regular_file(resolved, shown, max_size)
    try:
        handle = open(resolved, "rb")
    except OSError as exc:
        raise SourceError("C001", f"cannot read {shown}: {exc.strerror or exc}") from None
    with handle:
        offset = 0  # bytes read so far
        char_offset = 0  # characters decoded so far, BOM excluded
        lines = iter(functools.partial(handle.readline, max_size + 1), b"")  # as fast as iterating the file
        for number, chunk in enumerate(lines, start=1):
            if offset + len(chunk) > max_size:
                raise SourceError("C003", f"file is over the {max_size}-byte limit (max-file-size)")
            body = chunk[3:] if number == 1 and chunk.startswith(_BOM_BYTES) else chunk
            try:
                text = body.decode("utf-8")
            except UnicodeDecodeError as exc:
                error = _decode_error(body, exc, offset + len(chunk) - len(body))
                error.line = number
                raise error from None
            decoded_length = len(text)
            if text.endswith("\n"):
                text = text[:-2] if text.endswith("\r\n") else text[:-1]
            yield Line(number, char_offset, text)
            offset += len(chunk)
            char_offset += decoded_length


class LongLine(NamedTuple):
    """A line of :func:`stream_lines` longer than its cap: 1-based number, character offset of its
    start, and its size in bytes (line end included). Its bytes were checked as UTF-8, never held."""

    number: int
    offset: int
    size: int


ReadListener = Callable[[str, int, int], None]
_read_listener: ReadListener | None = None


def listen_to_reads(listener: ReadListener | None) -> ReadListener | None:
    """Have :func:`stream_lines` tell ``listener(shown path, bytes read, file size)`` how far it has
    read a file, after each megabyte (a smaller file says nothing); returns the listener it replaces.
    None stops the telling."""
    global _read_listener
    previous, _read_listener = _read_listener, listener
    return previous


def _open_uncapped(root: Path, path: Path | str) -> tuple[BinaryIO, str, int]:
    """(the open file, its shown path, its size when opened) of a regular file inside the root, of
    any size: for the readers that read it in bounded pieces and stop if it grows."""
    root = resolved_root(root)
    resolved = resolve_inside(root, path)
    shown = display_path(root, resolved)
    info = _regular_file(resolved, shown, sys.maxsize)
    try:
        return open(resolved, "rb"), shown, info.st_size
    except OSError as exc:
        raise SourceError("C001", f"cannot read {shown}: {exc.strerror or exc}") from None


def read_blocks(root: Path, path: Path | str) -> Iterator[bytes]:
    """The bytes of a file in blocks, with the checks of :func:`read_source` but for the size and
    the decoding: a file of any size is read in memory bounded by a block (for a count over a
    whole file). A file found to have grown past the size it had when opened is read no further
    (C001)."""
    handle, shown, size = _open_uncapped(root, path)
    growth = _GrowthCheck(shown, size)
    with handle:
        read = 0
        while block := handle.read(READ_BLOCK):
            read += len(block)
            growth(read)
            yield block


def stream_lines(root: Path, path: Path | str, max_line_size: int = DEFAULT_MAX_FILE_SIZE) -> Iterator[Line | LongLine]:
    """Stream a text file line by line, with the checks of :func:`read_source` but for the size:
    the cap belongs to each line (line end included), not to the file, so a file of any size is
    read in memory bounded by the cap.

    A line over the cap comes as a :class:`LongLine`, read on in blocks to its end without being
    held (its bytes are still checked as UTF-8), and the lines after it follow. A file within the
    cap gives what :func:`iter_lines` gives. A decoding error is raised when its line is reached,
    after the lines before it were yielded. A file found, at a megabyte's end or within a long line,
    to have grown past the size it had when opened is read no further (C001): it would otherwise be
    read for as long as it grows (a line that never ends).
    """
    handle, shown, size = _open_uncapped(root, path)
    listener = _read_listener
    next_note = READ_BLOCK  # bytes read when the growth is next checked and the listener told
    with handle:
        offset = 0  # bytes read so far
        char_offset = 0  # characters decoded so far, BOM excluded
        lines = iter(functools.partial(handle.readline, max_line_size + 1), b"")
        for number, chunk in enumerate(lines, start=1):
            if len(chunk) > max_line_size:
                length, characters = _read_past(handle, chunk, number, offset, _GrowthCheck(shown, size))
                yield LongLine(number, char_offset, length)
                offset += length
                char_offset += characters
            else:
                body = chunk[3:] if number == 1 and chunk.startswith(_BOM_BYTES) else chunk
                try:
                    text = body.decode("utf-8")
                except UnicodeDecodeError as exc:
                    error = _decode_error(body, exc, offset + len(chunk) - len(body))
                    error.line = number
                    raise error from None
                decoded_length = len(text)
                if text.endswith("\n"):
                    text = text[:-2] if text.endswith("\r\n") else text[:-1]
                yield Line(number, char_offset, text)
                offset += len(chunk)
                char_offset += decoded_length
            if offset >= next_note:
                _GrowthCheck(shown, size)(offset)
                if listener is not None:
                    listener(shown, offset, size)
                next_note = offset + READ_BLOCK


class _GrowthCheck(NamedTuple):
    """Raises C001 when more than ``size`` bytes of the file ``shown`` have been read."""

    shown: str
    size: int

    def __call__(self, read: int) -> None:
        if read > self.size:
            raise SourceError("C001", f"cannot read {self.shown}: it grew past the {self.size} bytes it had when its "
                                      "reading began, and is read no further: check it again once it is written")


def _read_past(handle: BinaryIO, start: bytes, number: int, offset: int, growth: _GrowthCheck) -> tuple[int, int]:
    """(bytes, characters) of line ``number``, which begins with ``start`` at byte ``offset``, read
    on to its end a block at a time and checked as UTF-8 (a C002 names where it fails), and for
    growth (``growth``) before each block."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    size = characters = 0
    block = start[3:] if number == 1 and start.startswith(_BOM_BYTES) else start
    skipped = len(start) - len(block)
    while True:
        ended = not block or block.endswith(b"\n")
        for at in range(0, max(len(block), 1), READ_BLOCK):
            piece = block[at : at + READ_BLOCK]
            pending = len(decoder.getstate()[0])
            try:
                characters += len(decoder.decode(piece, final=ended and at + READ_BLOCK >= len(block)))
            except UnicodeDecodeError as exc:
                bad = offset + skipped + size + at - pending + exc.start
                col = characters + len(exc.object[: exc.start].decode("utf-8", "replace")) + 1
                raise SourceError("C002", f"not valid UTF-8: byte 0x{exc.object[exc.start]:02x} at offset {bad}",
                                  line=number, col=col) from None
        size += len(block)
        if ended:
            return skipped + size, characters
        growth(offset + skipped + size)
        block = handle.readline(READ_BLOCK)

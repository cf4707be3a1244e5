"""Which files of a repository root are artifacts, and of which kinds: the walk (which does not
enter a folder with settings of its own: that is a nested root), the paths relative to the root,
and the claims, by a kind's globs or by the head of the file (sniffing)."""

from __future__ import annotations

import codecs
import functools
import os
import re
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from pytest_citations.core import globs, sources
from pytest_citations.core.config import Config, ConfigError, has_settings
from pytest_citations.core.diagnostics import quoted

SNIFF_BYTES = 64 * 1024
# A kind's claims(rel): its include globs claim rel; its head decides; its include globs name rel
# but its head decides (by_content_only), and a head that cannot be read or is not UTF-8 is
# claimed, for the read to say why.
_INCLUDED, _SNIFFED, _CONTENT_DECIDES = 0, 1, 2



def head_fills_window(head: str) -> bool:
    """Whether ``head`` may be only the start of its file: it fills the sniff window
    (``SNIFF_BYTES`` of UTF-8, its last character perhaps cut and replaced by U+FFFD). A character
    takes at most four bytes, so a head of under a quarter of the window is never encoded. A kind
    whose format may show only past the head asks it before looking further."""
    if len(head) >= SNIFF_BYTES:
        return True
    return len(head) * 4 >= SNIFF_BYTES - 3 and len(head.encode("utf-8", "surrogatepass")) >= SNIFF_BYTES - 3


# A run of blanks a file's head may be padded with to push its content past the sniff window.
_LONG_BLANK = re.compile(r"[ \t\r\n\f\v]{256,}")


def padded(head: str) -> bool:
    """Whether ``head`` fills the sniff window and holds a long run of blanks, so that what decides
    the file's kind may lie past it."""
    return head_fills_window(head) and _LONG_BLANK.search(head) is not None


def window_without_padding(pieces: Iterable[str]) -> str:
    """The first :data:`SNIFF_BYTES` characters of a file's text (given in ``pieces`` from its
    start) with each run of 256 blanks or more cut short (to a blank line, a line end or a space,
    as it holds): what decides the kind of a padded file. A checkout may pad a file's start (``{`` and
    64 KiB of spaces: valid JSON) so that its head shows nothing and no kind claims it, never
    checked; blanks that long say nothing of a format."""
    kept: list[str] = []
    size, held = 0, ""
    for piece in pieces:
        text = _LONG_BLANK.sub(_one_blank, held + piece)
        content = text.rstrip(" \t\r\n\f\v")
        held = text[len(content):]  # (a run at a piece's end may go on in the next)
        kept.append(content)
        size += len(content)
        if size >= SNIFF_BYTES:
            break
    return ("".join(kept) + held)[:SNIFF_BYTES]


def _one_blank(run: re.Match[str]) -> str:
    """A run of blanks cut short: a paragraph break stays one, a line end one, else a space."""
    ends = run.group().count("\n")
    return "\n\n" if ends > 1 else "\n" if ends else " "


class Discovery:
    """The files of one root and the kinds that claim them, each worked out once per run.

    ``file_memo(name, rel, compute)`` keeps a value derived from one file with the file's hash (the
    result cache, when the run has one): a claim depends only on the file's path and bytes.
    ``claim_ahead(rels)``, when set, claims the files of a walk before they are asked for (in
    worker processes: ``citations check -j``)."""

    def __init__(self, config: Config, kinds: list, file_memo: Callable[[str, str, Callable[[], Any]], Any]) -> None:
        self.config = config
        self.kinds = kinds
        self._file_memo = file_memo
        self.claim_ahead: Callable[[list[str]], None] | None = None
        self._kinds: dict[str, tuple] = {}  # rel -> kinds_for(rel), once per run
        self._kinds_named: dict[tuple, tuple] = {}  # claimed kinds' names -> those kinds
        # (folder, excludes) -> (artifacts with their kinds, nested roots, every file found), once per run
        self._walks: dict[tuple, tuple[list, list[str], list[str]]] = {}
        self._kind_matchers: tuple | None = None
        self._folders: dict[str, str | None] = {}  # folder -> its root-relative prefix, None outside

    def forget(self) -> None:
        """Drop the claims and walks of this run (after a fix rewrote files)."""
        self._kinds.clear()
        self._walks.clear()

    def relative(self, path: Path) -> str | None:
        """The repo-relative path of ``path``, or None outside the root.

        The folders leading to the file are resolved (the root is a resolved path, and a repository
        may be reached through a symlinked folder); the file itself is not, so that a symlinked
        artifact is judged, and refused if it leaves the root, when it is read.
        """
        folder, name = os.path.split(os.path.abspath(path))
        prefix = self.folder_prefix(folder)
        return None if prefix is None else prefix + name

    def folder_prefix(self, folder: str) -> str | None:
        """What :meth:`relative` puts before the names of the files in ``folder`` (an absolute
        path): ``sub/folder/``, ``""`` for the root, None outside it; once per folder."""
        if folder not in self._folders:
            self._folders[folder] = self._folder_prefix(os.path.realpath(folder))
        return self._folders[folder]

    def _folder_prefix(self, real: str) -> str | None:
        """``sub/folder/`` for a real folder below the root, ``""`` for the root, None outside."""
        root = str(self.config.root)
        if real == root:
            return ""
        if not real.startswith(root.rstrip(os.sep) + os.sep):
            return None
        return Path(real[len(root.rstrip(os.sep)) + 1 :]).as_posix() + "/"

    def is_excluded(self, rel: str) -> bool:
        return globs.matches(rel, self.config.exclude)

    def includes_folder(self, rel: str) -> bool:
        """Whether a kind's include globs can claim files in folder ``rel`` or below it."""
        for kind in self.kinds:
            for pattern in self.config.kinds[kind.name].include:
                literal = globs.literal_prefix(pattern)
                if literal and (literal.startswith(rel + "/") or (rel + "/").startswith(literal)):
                    return True
        return False

    def kinds_for(self, rel: str) -> tuple:
        """The kinds that claim ``rel``: by path, or by content; empty when none does.

        One file may be several kinds' artifact (a memory whose body holds inline code citations);
        each kind reads it and runs its rules, and the file's diagnostics are merged.
        """
        found = self._kinds.get(rel)
        if found is None:
            found = self._kinds[rel] = self._claim(rel)
        return found

    def _claim(self, rel: str) -> tuple:
        """The kinds that claim ``rel``; kept with the file's hash, since they depend only on its
        path and bytes (and the settings, which key the whole cache)."""
        claimable, matchers = self._matchers()
        if not claimable(rel):
            return ()
        names = self._file_memo("claim", rel, lambda: self._claim_names(rel, matchers))
        if type(names) is list:
            try:
                return self._kinds_named[tuple(names)]  # only lists of names found valid are keys
            except (KeyError, TypeError):  # TypeError: an unhashable part of a damaged memo
                pass
        if not (isinstance(names, list) and all(isinstance(name, str) for name in names)):  # a damaged memo
            names = self._claim_names(rel, matchers)
        return self._kinds_of(names)

    def kinds_named(self, names: list[str]) -> tuple:
        """The kinds of these names, in the order of ``self.kinds``."""
        found = self._kinds_named.get(tuple(names))
        return found if found is not None else self._kinds_of(names)

    def _kinds_of(self, names: list[str]) -> tuple:
        """The kinds of these names, in the order of ``self.kinds`` (remembered by the names)."""
        found = self._kinds_named[tuple(names)] = tuple(kind for kind in self.kinds if kind.name in names)
        return found

    def claims_text(self, kind_name: str | None, rel: str, text: str) -> bool:
        """Whether the kind ``kind_name`` would claim a file at ``rel`` holding ``text``."""
        if not self.path_claimed_by(kind_name, rel):
            return False
        for kind, claims, _ in self._matchers()[1]:
            if kind.name == kind_name:
                head = window_without_padding((text,)) if padded(text[:SNIFF_BYTES]) else text[:SNIFF_BYTES]
                return claims(rel) == _INCLUDED or _sniffs(kind, rel, head, lambda: iter((text,)))
        return False

    def path_claimed_by(self, kind_name: str | None, rel: str) -> bool:
        """Whether the kind ``kind_name`` would claim a file at ``rel`` by its include or sniff
        globs (by its path alone: whether its head says so is not asked)."""
        if self.is_excluded(rel):
            return False
        for kind, claims, excluded in self._matchers()[1]:
            if kind.name == kind_name:
                return claims(rel) is not None and not excluded(rel)
        return False

    def settings_rel(self) -> str | None:
        """The root-relative path of the settings file of this root, None when it has none there."""
        return None if self.config.source is None else self.relative(self.config.source)

    def claimable(self, rel: str) -> bool:
        """Whether any kind's include or sniff globs match ``rel`` (else no kind claims it)."""
        return self._matchers()[0](rel)

    def remember_claim(self, rel: str, names: list[str]) -> None:
        """Take the names of the kinds that claim ``rel`` as worked out elsewhere (a worker)."""
        self._kinds[rel] = self._kinds_of(names)

    def kinds_of_text(self, rel: str, head: str, data: bytes | None = None) -> tuple:
        """The kinds that claim a file named ``rel`` whose first bytes are ``head`` and whose
        bytes are ``data`` (standard input checked as that file): as for a file named on the
        command line, the settings' excludes are not asked (``--force-exclude`` is)."""
        claimable, matchers = self._matchers()
        return self._kinds_of(self._claim_names(rel, matchers, head, data)) if claimable(rel) else ()

    def _claim_names(self, rel: str, matchers: list[tuple], head: str | None = None, data: bytes | None = None) -> list[str]:
        """The names of the kinds that claim ``rel``, sniffing ``head`` (and ``data``, the whole
        file's bytes) when given, else the file's."""
        claimed = []
        to_sniff = []
        for kind, claims, excluded in matchers:
            how = claims(rel)
            if how is None or excluded(rel):
                continue
            if how == _INCLUDED:
                claimed.append(kind)
            else:
                to_sniff.append((kind, how))
        if to_sniff:
            if head is None:
                head, text = self._head(rel), functools.partial(self._text, rel)
                whole = True
            else:
                text, whole = functools.partial(_given_text, data), data is not None
            if head is not None and whole and padded(head):
                head = window_without_padding(text())
            claimed.extend(kind for kind, how in to_sniff if (how == _CONTENT_DECIDES and _unreadable(head))
                           or (head is not None and _sniffs(kind, rel, head, text)))
        return [kind.name for kind in claimed]

    def _matchers(self) -> tuple:
        """(claimable(rel), [(kind, claims(rel), excluded(rel)), ...]): whether any kind's include
        or sniff globs match, and per kind how its globs take a path (:func:`_claims`) and whether
        its excludes match; compiled once, since every file of a walk goes through them."""
        if self._kind_matchers is None:
            settings = [self.config.kinds[kind.name] for kind in self.kinds]
            every = tuple(p for kind, own in zip(self.kinds, settings, strict=True) for p in (*own.include, *kind.sniff_include))
            self._kind_matchers = (globs.matcher(every), [
                (kind, _claims(kind, own.include), globs.matcher(own.exclude))
                for kind, own in zip(self.kinds, settings, strict=True)
            ])
        return self._kind_matchers

    def _head(self, rel: str) -> str | None:
        """The first :data:`SNIFF_BYTES` of ``rel``, whatever its size (a file over max-file-size
        that its head claims is an artifact, reported as too large (C003) when it is read, not
        passed over); None when it cannot be read (a dangling symlink, one out of the root)."""
        try:
            data = sources.read_head(self.config.root, rel, SNIFF_BYTES, max_size=sys.maxsize)
        except sources.SourceError:
            return None
        return data.decode("utf-8", "replace")

    def _text(self, rel: str) -> Iterator[str]:
        """The text of ``rel`` from its start, for a kind that looks past the head
        (``sniff_long``): in pieces that end at a line's end (the last at the file's), read a block
        at a time and no further than max-file-size, so that the look is bounded in time and memory
        (a file over the size that the look claims is reported as too large when it is read).
        Bytes that are not UTF-8 are U+FFFD, as in the head; a file that cannot be read gives what
        was read of it."""
        decoder = codecs.getincrementaldecoder("utf-8")("replace")
        held, read = "", 0
        try:
            for block in sources.read_blocks(self.config.root, rel):
                block = block[: self.config.max_file_size - read]
                read += len(block)
                text = held + decoder.decode(block)
                end = text.rfind("\n") + 1
                held = text[end:]
                if end:
                    yield text[:end]
                if read >= self.config.max_file_size:
                    return
        except sources.SourceError:
            return
        yield held + decoder.decode(b"", True)

    def discover(
        self, paths: Iterable[Path], force_exclude: bool = False, nested: list[str] | None = None
    ) -> Iterator[tuple[str, tuple]]:
        """(rel, kinds) for every artifact under ``paths``; (shown path, ()) for one outside.

        Folders with settings of their own are not entered; their paths go into ``nested``.
        """
        for path in paths:
            if Path(path).is_dir():
                folder = Path(os.path.realpath(path))
                if not folder.is_relative_to(self.config.root):
                    yield Path(path).as_posix(), ()
                    continue
                yield from self._walk(folder, nested if nested is not None else [], self.walk_excludes(folder, force_exclude))
                continue
            rel = self.relative(path)
            if rel is None:
                yield Path(path).as_posix(), ()
            elif not (force_exclude and self.is_excluded(rel)):
                kinds = self.kinds_for(rel)
                if kinds:
                    yield rel, kinds

    def unclaimed(self, paths: Iterable[Path], force_exclude: bool = False) -> list[str]:
        """The files among ``paths`` (named one by one, not found in a folder) that are inside the
        root and that no kind claims: named to be checked, they are not, and the user is told. The
        claim is worked out afresh from each file's head, without the result cache."""
        found = []
        for path in paths:
            if Path(path).is_dir() or (rel := self.relative(path)) is None or not os.path.lexists(path):
                continue
            if force_exclude and self.is_excluded(rel):
                continue
            claimable, matchers = self._matchers()
            if not (claimable(rel) and self._claim_names(rel, matchers)):
                found.append(Path(path).as_posix())
        return found

    def walk_excludes(self, folder: Path, force_exclude: bool = False) -> tuple[str, ...]:
        """The excludes of a walk of ``folder`` (a real folder below the root) named on the command
        line: it is entered even if an exclude covers it (as a named file is checked), unless
        excludes are forced; excludes below it still apply."""
        start = folder.relative_to(self.config.root).as_posix()
        if force_exclude or start == ".":
            return self.config.exclude
        return tuple(p for p in self.config.exclude if not globs.matches(start, [p]))

    def _walk(self, folder: Path, nested: list[str], excludes: tuple[str, ...]) -> Iterator[tuple[str, tuple]]:
        """The artifacts below ``folder``, walked once per run (a run-wide index walks the root
        again to find every file of its kind)."""
        key = (str(folder), excludes)
        walked = self._walks.get(key)
        if walked is None:
            walked = self._walks[key] = self._walk_tree(folder, excludes)
        found, nested_here, _ = walked
        nested.extend(nested_here)
        yield from found

    def _walk_tree(self, folder: Path, excludes: tuple[str, ...]) -> tuple[list[tuple[str, tuple]], list[str], list[str]]:
        """(artifacts with their kinds, nested roots, every file the walk found)."""
        candidates, nested = walk_files(self.config.root, folder, excludes)
        if self.claim_ahead is not None:
            self.claim_ahead(candidates)
        kinds_for = self.kinds_for
        return [(rel, kinds) for rel in candidates if (kinds := kinds_for(rel))], nested, candidates

    def walks(self) -> list[tuple[str, tuple[str, ...], list[str], list[str]]]:
        """(folder, excludes, files found, nested roots) of every walk of this run, in order."""
        return [(folder, excludes, candidates, nested) for (folder, excludes), (_, nested, candidates) in self._walks.items()]


def _given_text(data: bytes | None) -> Iterator[str]:
    """The text of ``data`` (a file's bytes, read already: standard input) as the one piece a
    ``sniff_long`` reads; none when they are not given."""
    if data is not None:
        yield data.decode("utf-8", "replace")


def _unreadable(head: str | None) -> bool:
    """Whether a head cannot be read, or is not UTF-8 text (decoded, its bad bytes are U+FFFD): a
    file whose content decides is then claimed, so that reading it reports why (C001, C002)."""
    return head is None or "\ufffd" in head


def _sniffs(kind: Any, rel: str, head: str, text: Callable[[], Iterator[str]] | None = None) -> bool:
    """Whether ``kind`` claims the file ``rel`` by its ``head``: its ``sniff_file(rel, head)``,
    for a kind that weighs a file's content by where it is, else its ``sniff(head)``; when they
    say no, the ``sniff_long(head, text())`` of a kind whose format may show only past the head
    (``text()`` gives the whole file's text in pieces, read only as far as the kind reads them)."""
    sniff_file = getattr(kind, "sniff_file", None)
    if sniff_file(rel, head) if sniff_file is not None else kind.sniff(head):
        return True
    sniff_long = getattr(kind, "sniff_long", None)
    return sniff_long is not None and text is not None and bool(sniff_long(head, text()))


def _claims(kind: Any, include: tuple[str, ...]) -> Callable[[str], int | None]:
    """``claims(rel)`` of a kind: _INCLUDED where its include globs match, _SNIFFED where its
    sniff globs do, None elsewhere. A path matching the kind's ``by_content_only`` globs is
    _CONTENT_DECIDES wherever its include globs would claim it (an agent's CLAUDE.md in a memories
    folder is a memory only if its front matter cites files)."""
    first = globs.first_match((include, kind.sniff_include))
    by_content_only = tuple(getattr(kind, "by_content_only", ()))
    if not by_content_only:
        return first
    content_only = globs.matcher(by_content_only)
    return lambda rel: _CONTENT_DECIDES if (found := first(rel)) == _INCLUDED and content_only(rel) else found


def walk_files(root: Path, folder: Path, excludes: tuple[str, ...]) -> tuple[list[str], list[str]]:
    """(root-relative paths of the files below ``folder`` that ``excludes`` leave, folders below
    it with settings of their own), in a stable order; those folders are not entered."""
    excluded = globs.matcher(excludes)
    found: list[str] = []
    nested: list[str] = []
    for current, dirnames, filenames in _walk(str(folder)):
        base = Path(current).relative_to(root).as_posix()
        prefix = "" if base == "." else base + "/"
        kept = []
        for name in sorted(dirnames):
            if excluded(prefix + name) or os.path.islink(os.path.join(current, name)):
                continue  # (a symlinked folder is never walked, nor a root: it may lead out of the checkout)
            if _has_settings(Path(current) / name, prefix + name, root):
                nested.append(prefix + name)
            else:
                kept.append(name)
        dirnames[:] = kept
        found.extend(rel for rel in (prefix + name for name in sorted(filenames)) if not excluded(rel))
    return found, nested


def _has_settings(folder: Path, rel: str, root: Path) -> bool:
    """Whether ``folder`` (``rel`` from the root) holds settings of its own; a ``pyproject.toml``
    that cannot even be looked at (a symlink whose target's name is too long, a path longer than
    the system allows) is a settings error, as one that cannot be read is: which settings govern
    the files below cannot be told, so they are not checked with the wrong ones."""
    try:
        return has_settings(folder, root)
    except OSError as exc:
        raise ConfigError(f"{quoted(rel + '/pyproject.toml', plain=True)}: cannot read settings: {exc.strerror or exc}") from None


def _walk(top: str) -> Iterator[tuple[str, list[str], list[str]]]:
    """``os.walk(top)``, top down, without following symlinked folders, in a loop rather than by
    recursion (which Python 3.11's ``os.walk`` uses): a checkout may nest folders a thousand deep.
    The caller may prune the folder names it is given, as with ``os.walk``."""
    pending = [top]
    while pending:
        current = pending.pop()
        try:
            with os.scandir(current) as entries:
                listed = list(entries)
        except OSError:
            continue
        dirnames: list[str] = []
        filenames: list[str] = []
        for entry in listed:
            try:
                is_dir = entry.is_dir()
            except OSError:
                is_dir = False
            (dirnames if is_dir else filenames).append(entry.name)
        yield current, dirnames, filenames
        pending.extend(path for name in reversed(dirnames) if not os.path.islink(path := os.path.join(current, name)))

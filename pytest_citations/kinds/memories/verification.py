"""Citation verification, as the spec orders it: the steps of :func:`verify_citation`, which stop at
the first failure and give the spec's messages, shared by the M206-M211 rules (:func:`verdicts`) and
``citations memory verify``; and what ``--fix --refresh-verified`` records of it
(:func:`verification_stamps`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from pytest_citations.core import sources
from pytest_citations.kinds.memories.memory import Citation, Memory, read_memory

if TYPE_CHECKING:
    from pytest_citations.contexts import RuleContext


@dataclass(frozen=True)
class Verdict:
    """The outcome of verifying one citation: ``code`` names the rule of the first failed step."""

    valid: bool
    reason: str | None = None
    code: str | None = None
    moved_to: tuple[int, ...] = ()  # for a snippet mismatch: the lines that hold the snippet now


VALID = Verdict(True)

CitedLines = Callable[[str], "list[str] | sources.SourceError"]


def read_cited_lines(root: Path, rel: str, max_size: int):
    """Lines of a cited file: split on ``\\n``, a trailing ``\\r`` dropped, and no empty last line
    for a final line end (so a file's length is its number of lines); the SourceError if unreadable."""
    try:
        text = sources.read_source(root, rel, max_size).text
    except sources.SourceError as error:
        return error
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def cited_lines_reader(root: Path, max_size: int, cache: dict) -> CitedLines:
    """:func:`read_cited_lines`, once per file for as long as ``cache`` lives."""

    def read(rel: str):
        if rel not in cache:
            cache[rel] = read_cited_lines(root, rel, max_size)
        return cache[rel]

    return read


def engine_reader(engine) -> CitedLines:
    """:func:`read_cited_lines`, once per file per run, each use noted as a dependency."""
    root, max_size = engine.config.root, engine.config.max_file_size
    return lambda rel: engine.memo(("memories.cited-lines", rel), lambda: read_cited_lines(root, rel, max_size))


Located = Callable[[Path, str], "Verdict | str"]


def locate_cited(root: Path, path: str) -> Verdict | str:
    """The first steps of verification, which depend on the path alone: the cited file's
    root-relative path, or the verdict that ends verification there (M206, M207)."""
    if PurePosixPath(path).is_absolute() or Path(path).is_absolute():
        return Verdict(False, f"Path traversal blocked: {path}", "M206")
    try:
        resolved = sources.resolve_inside(root, path)
        exists = resolved.exists()
    except sources.SourceError as error:
        if error.code == "C008":
            return Verdict(False, f"Path traversal blocked: {path}", "M206")
        exists = False  # a path the system cannot resolve (a loop, a NUL byte, too long) names no file
    except OSError:
        exists = False
    if not exists:
        return Verdict(False, f"File not found: {path}", "M207")
    return resolved.relative_to(sources.resolved_root(root)).as_posix()


def engine_locator(engine) -> Located:
    """:func:`locate_cited`, once per cited path per run (memories cite the same files over and
    over), each use noted as a dependency."""
    return lambda root, path: engine.memo(("memories.located", path), lambda: locate_cited(root, path))


def verify_citation(root: Path, citation: Citation, read_lines: CitedLines, locate: Located = locate_cited) -> Verdict:
    """The spec's verification algorithm; stops at the first failure."""
    located = locate(root, citation.path)
    if isinstance(located, Verdict):
        return located
    if citation.line is None:
        return VALID
    lines = read_lines(located)
    if isinstance(lines, sources.SourceError):
        return Verdict(False, f"Cannot read file: {lines.message}", "M208")
    line = citation.line
    if line < 1:
        return Verdict(False, f"Invalid line number: {line} (must be >= 1)", "M209")
    if line > len(lines):
        return Verdict(False, f"Line {line} exceeds file length ({len(lines)})", "M210")
    actual = lines[line - 1]
    snippet = citation.snippet
    if snippet and snippet not in actual:
        moved = tuple(number for number, text in enumerate(lines, start=1) if snippet in text)
        reason = f"Snippet mismatch at line {line}. Expected '{snippet}', got '{actual.strip()}'"
        return Verdict(False, reason, "M211", moved)
    return VALID


def verdicts(memory: Memory, ctx: RuleContext) -> list[Verdict | None]:
    """One verdict per citation (None where its fields have the wrong types), computed once."""
    if "verdicts" not in memory.memo:
        engine = ctx.file.engine
        read, locate = engine_reader(engine), engine_locator(engine)
        memory.memo["verdicts"] = [
            verify_citation(ctx.root, citation, read, locate) if citation.checkable else None
            for citation in memory.citations
        ]
    return memory.memo["verdicts"]


@dataclass(frozen=True)
class Stamps:
    """What ``--fix --refresh-verified`` writes into a memory's front matter, ``text[start:end]``."""

    start: int
    end: int
    citations: tuple[int, ...]  # indexes of the citations to stamp ``verified``
    confidence: float | None  # the new confidence, None when the stored one is right


def verification_stamps(engine, rel: str, original_text: str, text: str) -> Stamps | None:
    """What verification established in the memory ``text`` (``original_text`` before the text
    fixes), to be recorded: each citation that verifies and has no ``verified`` stamp, or whose
    ``line`` the fix moved, and the confidence (valid / total) when it changed. None when nothing
    changes, or when the memory cannot take stamps (no front matter, a parse problem, no
    citations, a citation whose fields have the wrong types)."""
    memory = read_memory(rel, text)
    front = memory.front_matter
    if front is None or front.root is None or front.problems or not memory.citations:
        return None
    if not all(citation.checkable for citation in memory.citations):
        return None
    before = {c.index: c.line for c in read_memory(rel, original_text).citations}
    read, locate = engine_reader(engine), engine_locator(engine)
    verdicts = [verify_citation(engine.config.root, citation, read, locate) for citation in memory.citations]
    to_stamp = tuple(
        citation.index
        for citation, verdict in zip(memory.citations, verdicts, strict=True)
        if verdict.valid and (citation.verified is None or before.get(citation.index) != citation.line)
    )
    confidence = round(sum(v.valid for v in verdicts) / len(verdicts), 2)
    stored = memory.confidence
    confidence_changes = not isinstance(stored, (int, float)) or isinstance(stored, bool) or abs(stored - confidence) > 1e-9
    if not to_stamp and not confidence_changes:
        return None
    return Stamps(front.start, front.end, to_stamp, confidence if confidence_changes else None)

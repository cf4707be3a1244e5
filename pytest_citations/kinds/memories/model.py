"""memories: Markdown files whose YAML front matter cites repository files (memory-citation-schema.md).

A memory is every ``*.md`` under the memories folders (by default ``.serena/memories``, searched
recursively) and any other Markdown file whose front matter has a top-level ``citations`` key.
Each file is one :class:`Memory` unit. Citation verification follows the spec's algorithm, in its
order and with its messages, and is shared by the rules and ``citations memory verify``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from pytest_citations.core import sources
from pytest_citations.core.suppressions import markdown_directives
from pytest_citations.kinds import Reported
from pytest_citations.rules import Finding
from pytest_citations.run import dependencies

if TYPE_CHECKING:
    from pytest_citations.contexts import RuleContext
    from pytest_citations.core.frontmatter import FrontMatter, Node

LINK_TYPES = ("related", "supersedes", "blocks", "implements", "extends")
DEFAULT_CONFIDENCE = 0.5
_PROBLEM_CODES = {"syntax": "M201", "alias": "M202", "tag": "M203", "duplicate-key": "M204"}
_CITATIONS_IN_FRONT_MATTER = re.compile(r"\A\ufeff?---[ \t]*\r?\n(?:(?!---[ \t]*\r?\n).*\n)*?citations[ \t]*:", re.M)
CITATION_KEYS = ("path", "line", "snippet", "verified")  # the spec's fields of a citation, in its order
CITATION_FIELDS = frozenset(CITATION_KEYS)


@dataclass
class Citation:
    index: int
    node: Node
    path: Any = None
    line: Any = None
    snippet: Any = None
    verified: Any = None

    @property
    def checkable(self) -> bool:
        """Whether its fields have the types verification needs (the schema rule reports the rest)."""
        return (
            isinstance(self.path, str)
            and bool(self.path)
            and (self.line is None or (isinstance(self.line, int) and not isinstance(self.line, bool)))
            and (self.snippet is None or isinstance(self.snippet, str))
        )

    def field_node(self, key: str) -> Node:
        return self.node.value.get(key, self.node) if isinstance(self.node.value, dict) else self.node


@dataclass(frozen=True)
class Link:
    type: str
    target: Any
    line: int
    col: int


@dataclass
class Memory:
    rel: str
    id: str
    front_matter: FrontMatter | None
    citations: list[Citation]
    links: list[Link]
    confidence: Any
    line: int = 1
    declares_id: bool = False  # whether the front matter names the id (else it is the file's stem)
    memo: dict[Any, Any] = field(default_factory=dict, repr=False)

    def field(self, key: str) -> Node | None:
        root = self.front_matter.root if self.front_matter else None
        return root.value.get(key) if root is not None and isinstance(root.value, dict) else None


INDEXED_FIELDS = frozenset({"id", "links"})


def read_memory(rel: str, text: str, keep: frozenset[str] | None = None) -> Memory:
    """A memory from its text (BOM removed); front-matter problems are in ``front_matter.problems``.
    With ``keep``, only those front-matter fields are read (see ``frontmatter.parse``)."""
    from pytest_citations.core import frontmatter

    parsed = frontmatter.parse(text, keep)
    root = parsed.root if parsed else None
    values = root.value if root is not None and isinstance(root.value, dict) else {}
    declares_id = "id" in values and isinstance(values["id"].value, str) and values["id"].value != ""
    memory_id = values["id"].value if declares_id else PurePosixPath(rel).stem
    citations = []
    node = values.get("citations")
    if node is not None and isinstance(node.value, list):
        for index, item in enumerate(node.value):
            fields = item.value if isinstance(item.value, dict) else {}
            citations.append(
                Citation(
                    index,
                    item,
                    *(fields[key].value if key in fields else None for key in CITATION_KEYS),
                )
            )
    links = []
    node = values.get("links")
    if node is not None and isinstance(node.value, list):
        for item in node.value:
            if isinstance(item.value, dict) and len(item.value) == 1:
                ((link_type, target),) = item.value.items()
                links.append(Link(link_type, target.value, item.line, item.col))
    confidence = values["confidence"].value if "confidence" in values else DEFAULT_CONFIDENCE
    return Memory(rel, memory_id, parsed, citations, links, confidence, declares_id=declares_id)


# -- verification, as the spec orders it ------------------------------------------------------------


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


# -- the run-wide index: ids and links of every memory ------------------------------------------------


@dataclass
class MemoryIndex:
    by_id: dict[str, list[str]]  # memory id -> files whose memory has it (declared or by file name)
    supersedes: dict[str, list[str]]  # memory id -> ids it supersedes
    id_of: dict[str, str] = field(default_factory=dict, repr=False)  # file -> its id (by_id, turned round)
    declared: dict[str, list[str]] = field(default_factory=dict, repr=False)  # id -> files with it as `id:`
    _loops: dict[str, frozenset[str]] | None = field(default=None, repr=False, compare=False)

    def loop_of(self, memory_id: str) -> frozenset[str] | None:
        """The ids of the loop of ``supersedes`` links that ``memory_id`` is in (see
        :func:`supersedes_loops`), or None when it supersedes itself through no chain of links;
        the loops of every memory are found once per run, in time linear in the links."""
        if self._loops is None:
            self._loops = supersedes_loops(self.supersedes)
        return self._loops.get(memory_id)


def supersedes_loops(edges: dict[str, list[str]]) -> dict[str, frozenset[str]]:
    """For each id on a cycle of ``edges``, the ids of its loop: every id it reaches through links
    that reaches it back (a strongly connected component, found by Tarjan's algorithm without
    recursion, so a chain of any length is fine). An id alone is a loop when it supersedes itself."""
    order: dict[str, int] = {}  # the order in which the walk first came to each id
    low: dict[str, int] = {}  # the earliest id still on the stack that each one leads back to
    stack: list[str] = []
    on_stack: set[str] = set()
    loops: dict[str, frozenset[str]] = {}

    def enter(node: str) -> tuple[str, Iterator[str]]:
        order[node] = low[node] = len(order)
        stack.append(node)
        on_stack.add(node)
        return node, iter(edges.get(node, ()))

    for root in edges:
        if root in order:
            continue
        walk = [enter(root)]
        while walk:
            node, targets = walk[-1]
            for target in targets:
                if target not in order:
                    walk.append(enter(target))
                    break
                if target in on_stack:
                    low[node] = min(low[node], order[target])
            else:
                walk.pop()
                if walk:
                    parent = walk[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == order[node]:
                    _close_loop(node, stack, on_stack, edges, loops)
    return loops


def _close_loop(head: str, stack: list[str], on_stack: set[str], edges: dict[str, list[str]],
                loops: dict[str, frozenset[str]]) -> None:
    """Take the component whose first id is ``head`` off the stack; note it when it is a loop."""
    members = []
    while True:
        member = stack.pop()
        on_stack.discard(member)
        members.append(member)
        if member == head:
            break
    if len(members) > 1 or head in edges.get(head, ()):
        loop = frozenset(members)
        for member in members:
            loops[member] = loop


def memory_files(engine) -> list[str]:
    """Every memory under the repository root, in the order of a walk."""
    return [rel for rel, kinds in engine.discover([engine.config.root]) if KIND in kinds]


def _index_entry(engine, rel: str) -> list | None:
    """[id, ids it supersedes, whether the id is declared] of one memory file, or None if it
    cannot be read."""
    try:
        text = sources.read_source(engine.config.root, rel, engine.config.max_file_size).text
    except Exception:
        return None
    return index_entry_of_text(rel, text)


def index_entry_of_text(rel: str, text: str) -> list | None:
    """[id, ids it supersedes, whether the id is declared] of a memory file holding ``text`` (a
    BOM before it dropped, as a read drops it), or None if it cannot be read."""
    text = text.removeprefix(sources.BOM)
    try:
        return plain_index_entry(rel, text) or yaml_index_entry(rel, text)
    except Exception:
        return None


def _index_share(engine, rel: str) -> list | None:
    """:func:`_index_entry`, cached with the file's hash."""
    return engine.file_memo("memories.index", rel, lambda: _index_entry(engine, rel))


@dependencies.run_index_of_shares("memories.index", kind="memories", files=memory_files, share=_index_share,
                                  share_of_text=index_entry_of_text)
def index_for(engine, shares: dict[str, list | None]) -> MemoryIndex:
    """Every memory under the repository root: its id, whether its front matter declares it, and
    the ids it supersedes."""
    by_id: dict[str, list[str]] = {}
    supersedes: dict[str, list[str]] = {}
    id_of: dict[str, str] = {}
    declared: dict[str, list[str]] = {}
    for rel, entry in shares.items():
        if entry is None:  # an unreadable memory reports its own diagnostic; the index goes on
            continue
        memory_id, targets, is_declared = entry
        by_id.setdefault(memory_id, []).append(rel)
        supersedes.setdefault(memory_id, []).extend(targets)
        id_of[rel] = memory_id
        if is_declared:
            declared.setdefault(memory_id, []).append(rel)
    return MemoryIndex(by_id, supersedes, id_of, declared)


def yaml_index_entry(rel: str, text: str) -> list:
    """[id, ids it supersedes, whether the id is declared] of a memory's text, from its front
    matter parsed as YAML."""
    memory = read_memory(rel, text, INDEXED_FIELDS)
    return [memory.id, _superseded((link.type, link.target) for link in memory.links), memory.declares_id]


def _superseded(links: Iterable[tuple[Any, Any]]) -> list[str]:
    """The ids that a memory's (type, target) links supersede, whichever reader found them."""
    return [target for link_type, target in links if link_type == "supersedes" and isinstance(target, str)]


def plain_index_entry(rel: str, text: str) -> list | None:
    """:func:`yaml_index_entry` without a YAML parse, for a front matter in the plain subset that
    ``frontmatter.read_plain`` reads; None for any other (the YAML parse decides)."""
    from pytest_citations.core import frontmatter

    bounds = frontmatter.split(text)
    fields: dict[str, Any] | None = {}
    if bounds is not None and bounds[1] != -1:  # a front matter that is closed
        fields = frontmatter.read_plain(text[bounds[0] : bounds[1]], INDEXED_FIELDS)
    if fields is None:
        return None
    links, memory_id = fields.get("links"), fields.get("id")
    declares_id = isinstance(memory_id, str) and memory_id != ""  # else the id is the stem, as read_memory takes it
    superseded = _superseded(links if isinstance(links, list) else [])  # a scalar holds no link
    return [memory_id if declares_id else PurePosixPath(rel).stem, superseded, declares_id]


class Memories:
    name = "memories"
    description = "Markdown memory files with YAML front-matter citations"
    include = (".serena/memories/**/*.md",)
    sniff_include = ("**/*.md",)
    # Instructions for coding agents and folder read-mes, which may sit in a memories folder: a
    # memory only when their front matter cites files, as any other Markdown file.
    by_content_only = ("CLAUDE.md", "AGENTS.md", "GEMINI.md", "README.md", "CONVENTIONS.md", ".cursorrules",
                       "copilot-instructions.md", "*.instructions.md", "*.prompt.md")
    options: dict = {}

    def sniff(self, head: str) -> bool:
        """Whether a Markdown file outside the memories folder is a memory: its front matter's
        ``citations`` is a list of the spec's citations (each a mapping with a ``path``, and no
        field the spec does not define). Other tools put other things under that key (Jekyll's
        and Quarto's ``citations: true``, research notes citing ``lines`` and ``symbols``)."""
        if _CITATIONS_IN_FRONT_MATTER.search(head) is None:
            return False
        from pytest_citations.core import frontmatter

        parsed = frontmatter.parse(head.removeprefix("\ufeff"), frozenset({"citations"}))
        root = parsed.root if parsed is not None else None
        node = root.value.get("citations") if root is not None and isinstance(root.value, dict) else None
        if node is None or not isinstance(node.value, list) or not node.value:
            return False
        return all(isinstance(item.value, dict) and "path" in item.value and item.value.keys() <= CITATION_FIELDS
                   for item in node.value)

    def refresh(self, engine, rel: str, original_text: str, text: str) -> str | None:
        """After ``--fix --refresh-verified`` (never a plain ``--fix``): stamp what verification
        established (:func:`verification_stamps`), as :mod:`~pytest_citations.kinds.memories.refresh`
        writes it (imported only then: it needs ruamel.yaml)."""
        stamps = verification_stamps(engine, rel, original_text, text)
        if stamps is None:
            return None
        from pytest_citations.kinds.memories.refresh import stamp_front_matter

        return stamp_front_matter(text, stamps.start, stamps.end, stamps.citations, stamps.confidence)

    def units(self, ctx) -> Iterator[Memory | Reported]:
        text = ctx.full_text()
        memory = read_memory(ctx.rel, text)
        front = memory.front_matter
        ctx.directives = markdown_directives(text, (front.start, front.end) if front else None)
        if memory.front_matter is not None:
            for problem in memory.front_matter.problems:
                yield Reported(_PROBLEM_CODES[problem.kind], Finding(problem.message, problem.line, problem.col))
        yield memory


KIND = Memories()

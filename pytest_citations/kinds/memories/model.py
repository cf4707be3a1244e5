"""memories: Markdown files whose YAML front matter cites repository files (memory-citation-schema.md).

A memory is every ``*.md`` under the memories folders (by default ``.serena/memories``, searched
recursively) and any other Markdown file whose front matter has a top-level ``citations`` key.
Each file is one :class:`~pytest_citations.kinds.memories.memory.Memory` unit
(:mod:`~pytest_citations.kinds.memories.memory`). Citation verification follows the spec's
algorithm, in its order and with its messages, and is shared by the rules and ``citations memory
verify`` (:mod:`~pytest_citations.kinds.memories.verification`).

This module holds the kind, :data:`KIND`, and the run-wide index of every memory's id and links
(:func:`index_for`, built from the shares that :mod:`~pytest_citations.kinds.memories.memory_index`
reads).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from pytest_citations.core.suppressions import markdown_directives
from pytest_citations.kinds import Reported
from pytest_citations.kinds.memories.memory import CITATION_FIELDS, Memory, read_memory
from pytest_citations.kinds.memories.memory_index import MemoryIndex, _index_entry, index_entry_of_text
from pytest_citations.kinds.memories.parse_rules import (
    front_matter_syntax,
    yaml_anchor_alias,
    yaml_duplicate_key,
    yaml_unsafe_tag,
)
from pytest_citations.kinds.memories.verification import verification_stamps
from pytest_citations.rules import Finding
from pytest_citations.run import dependencies

# the rule under which each sort of front matter problem is reported
_PROBLEM_RULES = {"syntax": front_matter_syntax, "alias": yaml_anchor_alias, "tag": yaml_unsafe_tag,
                  "duplicate-key": yaml_duplicate_key}
_CITATIONS_IN_FRONT_MATTER = re.compile(r"\A\ufeff?---[ \t]*\r?\n(?:(?!---[ \t]*\r?\n).*\n)*?citations[ \t]*:", re.M)


# -- the run-wide index: ids and links of every memory ------------------------------------------------


def memory_files(engine) -> list[str]:
    """Every memory under the repository root, in the order of a walk."""
    return [rel for rel, kinds in engine.discover([engine.config.root]) if any(kind.name == KIND.name for kind in kinds)]


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


# -- the kind ---------------------------------------------------------------------------------------


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
                yield _PROBLEM_RULES[problem.kind].report(Finding(problem.message, problem.line, problem.col))
        yield memory


KIND = Memories()

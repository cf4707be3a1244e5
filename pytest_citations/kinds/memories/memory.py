"""The memory unit: a memory file's front matter read into its citations and links
(:func:`read_memory`), as the rules, the run-wide index and ``citations memory verify`` see it."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pytest_citations.core.frontmatter import FrontMatter, Node

LINK_TYPES = ("related", "supersedes", "blocks", "implements", "extends")
DEFAULT_CONFIDENCE = 0.5
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

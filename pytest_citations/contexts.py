"""What a kind and a rule see of the file being checked."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_citations.core import sources, suppressions

if TYPE_CHECKING:
    from pytest_citations.engine import Engine
    from pytest_citations.kinds import Kind


class FileContext:
    """One artifact file being checked: where it is, its kind's settings, and its text."""

    def __init__(self, engine: Engine, rel: str, kind: Kind, source: sources.Source | None = None):
        self.engine = engine
        self.root = engine.config.root
        self.rel = rel
        self.kind = kind
        self.kind_options = engine.config.kinds[kind.name].options
        self.max_file_size = engine.config.max_file_size
        self.source = source
        self.directives: list[suppressions.Directive] = []

    def lines(self) -> Iterator[sources.Line]:
        if self.source is not None:
            return self.source.lines()
        return sources.iter_lines(self.root, self.rel, self.max_file_size)

    def stream(self) -> Iterator[sources.Line | sources.LongLine]:
        """The file's lines as :meth:`lines` gives them, but with ``max-file-size`` capping each
        line rather than the file when it is read from disk (:func:`sources.stream_lines`): what a
        line-oriented kind reads, so that a file of any size is checked line by line."""
        if self.source is not None:
            return self.source.lines()
        return sources.stream_lines(self.root, self.rel, self.max_file_size)

    def full_text(self) -> str:
        if self.source is None:
            self.source = sources.read_source(self.root, self.rel, self.max_file_size)
        return self.source.text


@dataclass
class RuleContext:
    """What a check sees: its file, its options, and scratch state kept across the file's units."""

    file: FileContext
    options: dict[str, Any]
    state: dict[str, Any] = field(default_factory=dict)

    @property
    def root(self) -> Path:
        return self.file.root

    @property
    def rel(self) -> str:
        return self.file.rel

    @property
    def kind_options(self) -> dict[str, Any]:
        return self.file.kind_options

"""The one value every check produces: a diagnostic at a file position."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field


class Severity(str, enum.Enum):
    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True)
class Edit:
    """Replace ``source[start:end]`` (character offsets into the decoded text) with ``text``."""

    start: int
    end: int
    text: str


@dataclass(frozen=True)
class Fix:
    """What ``--fix`` would do: a description and non-overlapping edits in one file."""

    description: str
    edits: tuple[Edit, ...]


@dataclass(frozen=True, order=False)
class Diagnostic:
    code: str
    name: str
    severity: Severity
    message: str
    path: str
    line: int = 1
    col: int = 1
    fix: Fix | None = field(default=None, compare=False)
    context: str | None = field(default=None, compare=False)  # the offending source line

    @property
    def sort_key(self) -> tuple:
        return (self.path, self.line, self.col, self.code, self.message)

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.col}: {self.code} {self.message}"


def sorted_diagnostics(diagnostics) -> list[Diagnostic]:
    """Deterministic order: path, line, column, code, then message; exact repeats dropped."""
    unique = {(d.sort_key, d.severity, d.name): d for d in diagnostics}
    return sorted(unique.values(), key=lambda d: d.sort_key)

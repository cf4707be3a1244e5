"""Inline suppressions: in Markdown ``<!-- citations: disable-next-line CODE [CODE...] -- reason -->``
and ``<!-- citations: disable-file CODE ... -->``; in YAML front matter the same words in a comment,
``# citations: disable-next-line CODE -- reason``.

Kinds collect directives with :func:`markdown_directives` (which also reads front-matter comments
when given the front matter's span); the engine applies them and reports every directive (or code
within one) that suppressed nothing as C007.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_DIRECTIVE = re.compile(
    r"<!--\s*citations:\s*(?P<action>disable-next-line|disable-file)\s+"
    r"(?P<codes>[A-Za-z0-9,\s]+?)\s*(?:--\s*(?P<reason>.*?))?\s*-->"
)
_YAML_DIRECTIVE = re.compile(
    r"#[ \t]*citations:[ \t]*(?P<action>disable-next-line|disable-file)[ \t]+"
    r"(?P<codes>[A-Za-z0-9, \t]+?)[ \t]*(?:--[ \t]*(?P<reason>[^\r\n]*?))?[ \t]*\r?$",
    re.M,
)
_CODE = re.compile(r"^[A-Z][0-9]{0,3}$")

# An internal error: a file was not fully checked. Nothing that comes with the checkout silences it
# (a suppression comment, ``per-file-ignores`` or ``ignore`` in its settings, a baseline); only
# ``--ignore C006`` on the command line does (docs/configuration.md, "What can never be silenced").
INTERNAL_ERROR = "C006"


@dataclass
class Directive:
    line: int
    col: int
    action: str
    codes: tuple[str, ...]
    reason: str
    used: set[str] = field(default_factory=set)

    def covers(self, code: str, line: int) -> str | None:
        """The prefix in this directive that suppresses ``code`` on ``line``, if any (never for an
        internal error)."""
        if code == INTERNAL_ERROR or (self.action == "disable-next-line" and line != self.line + 1):
            return None
        for prefix in self.codes:
            if code.startswith(prefix):
                return prefix
        return None


def _directives(text: str, pattern: re.Pattern[str], start: int = 0, end: int | None = None) -> list[Directive]:
    directives = []
    # the line and where it starts, counted on from the last directive (not from the top for each:
    # a file may hold thousands)
    line, line_start, counted = 1, 0, 0
    for match in pattern.finditer(text, start, len(text) if end is None else end):
        codes = tuple(c for c in re.split(r"[\s,]+", match.group("codes").strip().upper()) if _CODE.match(c))
        if not codes:
            continue
        line += text.count("\n", counted, match.start())
        line_start = text.rfind("\n", counted, match.start()) + 1 or line_start
        counted = match.start()
        col = match.start() - line_start + 1
        directives.append(Directive(line, col, match.group("action"), codes, (match.group("reason") or "").strip()))
    return directives


def markdown_directives(text: str, front_matter: tuple[int, int] | None = None) -> list[Directive]:
    """Directives in HTML comments, and in YAML comments within ``front_matter`` (a text span)."""
    found = _directives(text, _DIRECTIVE)
    if front_matter is not None:
        found += _directives(text, _YAML_DIRECTIVE, *front_matter)
    return sorted(found, key=lambda d: (d.line, d.col))


def apply(diagnostics, directives: list[Directive]):
    """Split diagnostics into (kept, suppressed), marking which directive codes were used."""
    kept, suppressed = [], []
    for diagnostic in diagnostics:
        for directive in directives:
            prefix = directive.covers(diagnostic.code, diagnostic.line)
            if prefix:
                directive.used.add(prefix)
                suppressed.append(diagnostic)
                break
        else:
            kept.append(diagnostic)
    return kept, suppressed


def unused(directives: list[Directive]):
    """(directive, code) for every code in a directive that suppressed nothing."""
    for directive in directives:
        for code in directive.codes:
            if code not in directive.used:
                yield directive, code

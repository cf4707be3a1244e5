"""Helpers the reporters share: counting, plural words, safe text, colours and the text-format line."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from pytest_citations.core.diagnostics import Diagnostic, Severity

CONTEXT_WIDTH = 200  # characters of a source line shown around the column
ELLIPSIS = "\u2026"
TAB_SIZE = 4
INDENT = "    "

# C0 controls but tab, DEL, C1 controls, the bidirectional marks, overrides and isolates
# ("Trojan Source"), zero-width characters, the line and paragraph separators and the BOM: shown
# as escapes so a hostile file can neither drive the terminal nor hide or reorder what the reader
# sees. Lone surrogates too (a file name that is not UTF-8, a YAML "\ud800"): no stream can print them.
_UNSAFE = re.compile(
    "[\x00-\x08\x0a-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ud800-\udfff\ufeff]"
)

# The colours of the text format (``--color``): SGR sequences put around text that is already safe
# (its ESC shown as ``\x1b``), so that nothing from the checkout can start, end or add one.
BOLD, ERROR_STYLE, WARNING_STYLE, MARKER_STYLE, RESET = "\x1b[1m", "\x1b[1;31m", "\x1b[1;33m", "\x1b[36m", "\x1b[0m"


def severity_name(diagnostic: Diagnostic) -> str:
    """``"error"`` or ``"warning"`` (never ``Severity.ERROR``, whatever the Python version)."""
    return Severity(diagnostic.severity).value


def is_error(diagnostic: Diagnostic) -> bool:
    return severity_name(diagnostic) == Severity.ERROR.value


def counts(diagnostics: Iterable[Diagnostic]) -> tuple[int, int, int]:
    """(errors, warnings, fixable)."""
    errors = warnings = fixable = 0
    for d in diagnostics:
        if is_error(d):
            errors += 1
        else:
            warnings += 1
        if d.fix is not None:
            fixable += 1
    return errors, warnings, fixable


def plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def escape_char(char: str) -> str:
    code = ord(char)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def safe(text: str) -> str:
    """``text`` with control and bidi characters shown as ``\\xNN`` / ``\\uNNNN`` escapes."""
    return _UNSAFE.sub(lambda m: escape_char(m.group()), text)


def paint(text: str, style: str, color: bool) -> str:
    """``text`` in ``style`` when ``color``; as it is otherwise. ``text`` must be safe already."""
    return f"{style}{text}{RESET}" if color else text


def severity_style(diagnostic: Diagnostic) -> str:
    return ERROR_STYLE if is_error(diagnostic) else WARNING_STYLE


def message_lines(message: str) -> list[str]:
    """A message split on newlines (``\\r\\n``, ``\\r`` or ``\\n``), each line made safe."""
    return [safe(line) for line in re.split(r"\r\n|\r|\n", message)]


def diagnostic_line(d: Diagnostic, color: bool = False) -> list[str]:
    """``path:line:col: CODE [*] message``; further lines of a multi-line message are indented.
    With ``color``, the path is bold, the code in the colour of its severity and ``[*]`` cyan."""
    first, *rest = message_lines(d.message)
    marker = f"{paint('[*]', MARKER_STYLE, color)} " if d.fix is not None else ""
    path, code = paint(safe(d.path), BOLD, color), paint(safe(d.code), severity_style(d), color)
    lines = [f"{path}:{d.line}:{d.col}: {code} {marker}{first}"]
    lines.extend(INDENT + line for line in rest)
    return lines


def _cells(char: str) -> int:
    """Terminal cells a character takes: 0 for combining marks, 2 for wide East Asian ones."""
    if unicodedata.combining(char):
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def source_lines(context: str, col: int, context_start: int = 0, caret: str = "^") -> list[str]:
    """The offending line (cut to ``CONTEXT_WIDTH`` characters around ``col``) and a caret line.

    ``context`` is the line, or the window of it a diagnostic keeps, ``context_start``
    characters into the line. ``col`` is 1-based and counts characters of the line. Tabs are
    expanded, unsafe characters escaped and wide characters counted as two cells, so the caret
    stands under the column on a terminal. ``caret`` is what marks it (``^``, maybe coloured).
    """
    context = context.rstrip("\r\n")
    context = re.split(r"\r\n|\r|\n", context, maxsplit=1)[0]
    index = max(col - 1 - context_start, 0)
    start, end = 0, len(context)
    if len(context) > CONTEXT_WIDTH:
        start = max(0, min(index - CONTEXT_WIDTH // 2, len(context) - CONTEXT_WIDTH))
        end = start + CONTEXT_WIDTH
    shown = context[start:end]
    prefix = ELLIPSIS if start > 0 or context_start > 0 else ""
    suffix = ELLIPSIS if end < len(context) else ""

    display: list[str] = [prefix]
    width = len(prefix)
    caret_at = None
    for position, char in enumerate(shown, start):
        if position == index:
            caret_at = width
        if char == "\t":
            piece = " " * (TAB_SIZE - width % TAB_SIZE)
            cells = len(piece)
        elif _UNSAFE.match(char):
            piece = escape_char(char)
            cells = len(piece)
        else:
            piece, cells = char, _cells(char)
        display.append(piece)
        width += cells
    if caret_at is None:  # the column is at or past the end of the line
        caret_at = width
    display.append(suffix)
    return [INDENT + "".join(display).rstrip(), INDENT + " " * caret_at + caret]


def format_diagnostic(d: Diagnostic, show_source: bool = True, color: bool = False) -> list[str]:
    """The text-format lines of one diagnostic: its line and, when asked, its source and caret
    (with ``color``, the caret in the colour of its severity)."""
    lines = diagnostic_line(d, color)
    if show_source and d.context:
        lines.extend(source_lines(d.context, d.col, d.context_start, paint("^", severity_style(d), color)))
    return lines

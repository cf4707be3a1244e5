"""What a CI runner would take for a command in the log, defused in everything the checker prints.

The GitHub Actions runner reads each line a step prints (a line ends at LF, CR or CRLF). A line
that starts with ``::`` once its leading whitespace is stripped is a workflow command
(``::error::``, ``::add-mask::``, ``::stop-commands::``), and ``##[`` anywhere in a line starts a
legacy one (``##[error]``); Azure Pipelines reads ``##vso[`` and TeamCity ``##teamcity[`` the same
way. Artifacts and file names come from the checkout, so every output the checker prints shows
the first character of such a mark as an escape in the output's own syntax:

- text (the text format, ``--statistics``, messages on standard error, ``pytest --citations``):
  ``\\x3a:error::`` and ``\\x23#[``, as control characters are shown (``\\x0a``);
- JSON (``--format json``/``sarif``, ``--json``): ``\\u003a`` and ``\\u0023``, which parse back to
  the same string;
- XML (``--format junit``): ``&#58;`` and ``&#35;``, which parse back to the same text.

``--format github`` is the one output left as it is: its annotations are the commands the user
asked for, and what they carry is escaped by the runner's own rules (``reporters/github.py``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TextIO

Escape = Callable[[str], str]

# What the runner strips from the start of a line (and more: Python's whitespace, a BOM, and the
# colour sequences pytest writes before some lines), then ``:`` followed by ``:``.
_LEAD = r"(?:[^\S\r\n]|\ufeff|\x1b\[[0-?]*[ -/]*[@-~])*"
_LINE_COMMAND = re.compile(rf"(?:^|(?<=[\r\n]))({_LEAD}):(?=:)")
_LEGACY_COMMAND = re.compile(r"#(?=#(?:\[|(?i:vso)\[|(?i:teamcity)\[))")
_LEGACY_MARKS = ("##[", "##vso[", "##teamcity[")
_ONLY_LEAD = re.compile(rf"{_LEAD}:?")
_SURROGATE = re.compile("[\ud800-\udfff]")


def text_escape(char: str) -> str:
    return f"\\x{ord(char):02x}"


def json_escape(char: str) -> str:
    return f"\\u{ord(char):04x}"


def xml_escape(char: str) -> str:
    return f"&#{ord(char)};"


def defuse(text: str, escape: Escape = text_escape) -> str:
    """``text`` with the first character of every workflow-command mark shown as ``escape``
    makes it: ``::`` at the start of a line (after whitespace), ``##[`` (and ``##vso[``,
    ``##teamcity[``) anywhere."""
    if ":" in text:
        text = _LINE_COMMAND.sub(lambda m: m.group(1) + escape(":"), text)
    if "##" in text:
        text = _LEGACY_COMMAND.sub(lambda m: escape("#"), text)
    return text


def defuse_text(text: str) -> str:
    """Human text made safe to print: lone surrogates (a file name that is not UTF-8, a YAML
    ``"\\ud800"``) shown as ``\\udXXX`` escapes, so that printing cannot fail, and commands defused."""
    return defuse(_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text))


def defuse_json(text: str) -> str:
    """JSON text made safe to print, with the same data once parsed: lone surrogates (which
    ``json.dumps(..., ensure_ascii=False)`` leaves as they are) and the first character of every
    command mark written as ``\\uXXXX`` escapes. A command mark can only be inside a string: JSON's
    own syntax never starts a line with ``:`` nor holds ``#``."""
    return defuse(_SURROGATE.sub(lambda m: json_escape(m.group()), text), json_escape)


class DefusedStream:
    """A text stream that defuses every line written to it before the stream it wraps sees it,
    and shows what that stream cannot encode as backslash escapes (a lone surrogate as ``\\udXXX``).

    Text comes in pieces (``print`` writes a line, then its end), so the few characters that could
    still become a mark with the next piece are held back: a ``#`` or ``##`` (or ``##vs``...) at
    the end, and a ``:`` with nothing but whitespace before it on its line. :meth:`drain` writes
    what is held; :meth:`flush` flushes the wrapped stream and holds it still, so that a mark
    split across two writes is still defused.
    """

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self._held = ""
        self._line_start = True  # nothing but leading whitespace since the last line end
        self._encoding = getattr(stream, "encoding", None) or "utf-8"

    def write(self, piece: str) -> int:
        text = self._held + piece
        keep = _held_back(text, self._line_start)
        self._held = text[len(text) - keep :]
        self._emit(text[: len(text) - keep])
        return len(piece)

    def _emit(self, text: str) -> None:
        if not text:
            return
        # a line end before the text where a line starts, any other character where one does not
        shown = defuse(("\n" if self._line_start else ".") + text)[1:]
        self.stream.write(shown.encode(self._encoding, "backslashreplace").decode(self._encoding))
        self._line_start = _ends_in_lead(text, self._line_start)

    def flush(self) -> None:
        self.stream.flush()

    def drain(self) -> None:
        """Write what is held back (a stream's last characters) and flush."""
        held, self._held = self._held, ""
        self._emit(held)
        self.stream.flush()

    def isatty(self) -> bool:
        return self.stream.isatty()

    def __getattr__(self, name: str):
        return getattr(self.stream, name)


def _held_back(text: str, line_start: bool) -> int:
    """How many characters at the end of ``text`` may still become a mark with what comes next."""
    last_line = max(text.rfind("\n"), text.rfind("\r")) + 1
    if (line_start or last_line) and text.endswith(":") and _ONLY_LEAD.fullmatch(text, last_line):
        return 1
    for size in range(min(len(text), max(map(len, _LEGACY_MARKS)) - 1), 0, -1):
        tail = text[-size:].lower()
        if any(mark.startswith(tail) for mark in _LEGACY_MARKS):
            return size
    return 0


def _ends_in_lead(text: str, line_start: bool) -> bool:
    """Whether, after ``text``, the line so far holds nothing but what the runner strips."""
    last_line = max(text.rfind("\n"), text.rfind("\r")) + 1
    if not last_line and not line_start:
        return False
    return re.fullmatch(_LEAD, text[last_line:]) is not None

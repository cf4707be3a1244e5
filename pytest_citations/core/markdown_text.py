"""Markdown text with what is not prose blanked out, so that scanners find citations only in prose.

Blanking keeps every offset and line: each character of a code span, fenced block (in a list item
or a block quote too), HTML comment, preformatted HTML block, display-math block or front matter
becomes a space, and newlines stay.
"""

from __future__ import annotations

import re

CODE_SPAN = re.compile(r"(?<!`)(?P<ticks>`+)(?!`).*?(?<!`)(?P=ticks)(?!`)")
HTML_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.S)
# Raw HTML whose content is code or preformatted text, and display math opened at a line's start.
# Each ends where it closes or at the end of the text, so every character is looked at once.
VERBATIM = re.compile(r"<(?P<tag>pre|code|script|style|math)\b[^<>]*>.*?(?:</(?P=tag)\s*>|\Z)|^[ \t]*\$\$.*?(?:\$\$|\Z)",
                      re.S | re.I | re.M)
# A fence may be indented (inside a list item) and quoted (inside a block quote).
FENCE = re.compile(r"^[ \t]*(?:>[ \t]*)*(?P<fence>`{3,}|~{3,})")  # (one way to match: no backtracking blow-up)


def blank(text: str) -> str:
    """Every character but a newline made a space."""
    if "\n" not in text:
        return " " * len(text)
    return "\n".join(" " * len(part) for part in text.split("\n"))


def prose(text: str) -> str:
    """``text`` with front matter, fenced code, code spans, HTML comments, preformatted HTML and
    display math blanked out (same length, newlines kept), so offsets into it are offsets into
    ``text``."""
    out = HTML_COMMENT.sub(lambda m: blank(m.group()), text)
    if "<" in out or "$$" in out:
        out = VERBATIM.sub(lambda m: blank(m.group()), out)
    lines = out.split("\n")
    start = 0
    if lines and lines[0].rstrip("\r") == "---":
        for index in range(1, len(lines)):
            if lines[index].rstrip("\r") in ("---", "..."):
                for blanked in range(index + 1):
                    lines[blanked] = blank(lines[blanked])
                start = index + 1
                break
    fence: str | None = None
    for index in range(start, len(lines)):
        line = lines[index]
        found = FENCE.match(line)
        if fence is not None:
            if found and found.group("fence")[0] == fence[0] and len(found.group("fence")) >= len(fence) and not line[
                found.end() :
            ].strip():
                fence = None
            lines[index] = blank(line)
        elif found and not (found.group("fence")[0] == "`" and "`" in line[found.end() :]):
            fence = found.group("fence")
            lines[index] = blank(line)
        elif "`" in line:
            lines[index] = CODE_SPAN.sub(lambda m: blank(m.group()), line)
    return "\n".join(lines)


def blank_inline_code_and_comments(text: str) -> str:
    """``text`` with code spans and HTML comments blanked (fenced blocks left to the caller)."""
    if "`" not in text and "<!--" not in text:
        return text  # neither can match
    text = HTML_COMMENT.sub(lambda m: blank(m.group()), text)
    return CODE_SPAN.sub(lambda m: blank(m.group()), text)

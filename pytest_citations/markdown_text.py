"""Markdown text with what is not prose blanked out, so that scanners find citations only in prose.

Blanking keeps every offset and line: each character of a code span, fenced block, HTML comment or
front matter becomes a space, and newlines stay.
"""

from __future__ import annotations

import re

CODE_SPAN = re.compile(r"(?<!`)(?P<ticks>`+)(?!`).*?(?<!`)(?P=ticks)(?!`)")
HTML_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.S)
FENCE = re.compile(r"^ {0,3}(?P<fence>`{3,}|~{3,})")


def blank(text: str) -> str:
    """Every character but a newline made a space."""
    if "\n" not in text:
        return " " * len(text)
    return "\n".join(" " * len(part) for part in text.split("\n"))


def prose(text: str) -> str:
    """``text`` with front matter, fenced code, code spans and HTML comments blanked out (same
    length, newlines kept), so offsets into it are offsets into ``text``."""
    out = HTML_COMMENT.sub(lambda m: blank(m.group()), text)
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

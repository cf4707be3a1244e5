"""Read the runnable examples out of a rule's documentation and build them as repositories.

An example is a fenced block whose info string names a file: ```` ```jsonl title="run/x.jsonl" ````.
Blocks after a paragraph starting "Bad" form the bad case, after "Good" the good case. Two extra
info words: ``symlink`` as the language makes the file a link to the block's text, and
``escapes`` decodes backslash escapes so an example can hold bytes that are not UTF-8.

An ``http`` block titled with a URL is no file: it is the whole response a server gives for that
URL (an online rule's example), which :func:`pages` reads and the test serves.
"""

from __future__ import annotations

import codecs
import os
import re
from dataclasses import dataclass
from pathlib import Path

_SECTION = re.compile(r"^## Example\n(?P<body>.*?)(?=^## |\Z)", re.M | re.S)
_FENCE = re.compile(r'^```(?P<lang>[\w-]+)[ \t]+title="(?P<title>[^"]+)"(?P<flags>[^\n]*)\n(?P<body>.*?)^```', re.M | re.S)
_CASE = re.compile(r"^(?P<label>Bad|Good)\b", re.M)


@dataclass(frozen=True)
class ExampleFile:
    title: str
    language: str
    body: str
    escapes: bool


def examples(doc: str) -> dict[str, list[ExampleFile]]:
    """``{"bad": [...], "good": [...]}``; empty when the rule has no runnable example."""
    section = _SECTION.search(doc)
    if not section:
        return {}
    text = section.group("body")
    cases: dict[str, list[ExampleFile]] = {}
    labels = list(_CASE.finditer(text))
    for index, label in enumerate(labels):
        end = labels[index + 1].start() if index + 1 < len(labels) else len(text)
        files = [
            ExampleFile(m.group("title"), m.group("lang"), m.group("body"), "escapes" in m.group("flags").split())
            for m in _FENCE.finditer(text, label.end(), end)
        ]
        cases.setdefault(label.group("label").lower(), []).extend(files)
    return {name: files for name, files in cases.items() if files}


@dataclass(frozen=True)
class Page:
    """A response an example's web gives: status, headers and body."""

    status: int
    headers: list[tuple[str, str]]
    body: bytes


def pages(files: list[ExampleFile]) -> dict[str, Page]:
    """The example's web: URL -> the response written out in its ``http`` block."""
    found = {}
    for item in files:
        if item.language != "http":
            continue
        head, _, body = item.body.partition("\n\n")
        status_line, *header_lines = head.splitlines()
        headers = [(name.strip(), value.strip()) for name, _, value in (line.partition(":") for line in header_lines)]
        found[item.title] = Page(int(status_line.split()[1]), headers, body.encode("utf-8"))
    return found


def build(files: list[ExampleFile], repo: Path) -> None:
    """Write the example's files under ``repo`` (which may be left by ``../`` titles); its web
    pages are not files (see :func:`pages`)."""
    repo.mkdir(parents=True, exist_ok=True)
    for item in files:
        if item.language == "http":
            continue
        target = repo / item.title
        target.parent.mkdir(parents=True, exist_ok=True)
        if item.language == "symlink":
            os.symlink(item.body.strip(), target)
        elif item.escapes:
            target.write_bytes(codecs.decode(item.body, "unicode_escape").encode("latin-1"))
        else:
            target.write_text(item.body, encoding="utf-8")

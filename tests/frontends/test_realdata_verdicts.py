"""Every folder of the shared real data, checked as a repository of its own: exactly the findings
docs/real-data.md lists, and no other (the table there is what this test reads)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import PROJECT, REALDATA
from pytest_citations.core.config import parse_config
from pytest_citations.engine import Engine, load_plugins

DOC = PROJECT / "docs" / "real-data.md"
OTHER_COMMIT = "at-*"  # a folder of files from another commit of the same repository


def _section(text: str, heading: str) -> list[list[str]]:
    """The cells of the body rows of the table under ``## heading``."""
    body = text.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in body.splitlines() if line.startswith("|")]
    return [[cell.strip() for cell in row.strip("|").split(" | ")] for row in rows[2:]]


def expected_findings() -> dict[str, set[tuple[str, int, str]]]:
    """root -> {(file, line, code)} of docs/real-data.md, a root without findings mapped to none."""
    text = DOC.read_text(encoding="utf-8")
    expected: dict[str, set[tuple[str, int, str]]] = {}
    for root, file, lines, codes, why in _section(text, "Expected findings"):
        assert why, f"docs/real-data.md: the finding of {root}/{file} says nothing of why it is true"
        for line in lines.split(", "):
            for code in codes.split(", "):
                expected.setdefault(root, set()).add((file, int(line), code))
    for root, held, why in _section(text, "Folders without findings"):
        assert root not in expected and held and why, f"docs/real-data.md: {root}"
        expected[root] = set()
    return expected


def roots(realdata: Path) -> list[str]:
    """Every repository folder and every other-commit folder in it, as root names."""
    found = []
    for folder in sorted(path for path in realdata.iterdir() if path.is_dir()):
        found.append(folder.name)
        found.extend(f"{folder.name}/{other.name}" for other in sorted(folder.glob(OTHER_COMMIT)) if other.is_dir())
    return found


def findings(realdata: Path, root: str) -> set[tuple[str, int, str]]:
    kinds, registry = load_plugins()
    folder = realdata / root
    table = {"exclude": [OTHER_COMMIT]}  # another commit's files are another root
    engine = Engine(parse_config(table, folder, kinds, registry), kinds, registry)
    return {(d.path, d.line, d.code) for d in engine.check([folder]).diagnostics}


def test_the_table_lists_every_folder(realdata):
    """A folder without a verdict fails; a row whose folder is absent is skipped below."""
    assert sorted(set(roots(realdata)) - set(expected_findings())) == []


@pytest.mark.parametrize("root", sorted(expected_findings()))
def test_exactly_the_listed_findings(realdata, root):
    if not (realdata / root).is_dir():
        pytest.skip(f"{root} is not in {REALDATA}")
    assert findings(realdata, root) == expected_findings()[root]


def test_the_doc_table_is_read_as_written():
    """A row the parser would misread (a stray pipe, a line that is not a number) fails here."""
    for found in expected_findings().values():
        for file, line, code in found:
            assert re.fullmatch(r"[A-Z]\d{3}", code) and line > 0 and not file.startswith("/")

"""SARIF 2.1.0 (for GitHub code scanning and other SARIF viewers): one run, one result per diagnostic.

Decisions:

- ``tool.driver.rules`` lists only the rules that have a result, sorted by code, so the log stays
  small; ``ruleIndex`` points into that list.
- Columns and fix offsets count Unicode code points (``run.columnKind = "unicodeCodePoints"``),
  which is what ``Diagnostic.col`` and ``Edit.start``/``Edit.end`` are.
- A repo-relative path becomes a percent-encoded URI relative to ``%SRCROOT%``; an absolute path
  (only a path-outside-root diagnostic has one) becomes a ``file://`` URI without a base id.
- A fix is one ``artifactChange`` whose replacements delete ``charOffset``/``charLength`` and
  insert the edit's text.
"""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import quote

import pytest_citations
from pytest_citations.frontends.reporters._common import severity_name

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://github.com/pytest-citations/pytest-citations"
SRCROOT = "%SRCROOT%"

_WINDOWS_ABSOLUTE = re.compile(r"^[A-Za-z]:[\\/]")


def artifact_location(path: str) -> dict[str, str]:
    if path.startswith("/"):
        return {"uri": "file://" + _percent_encoded(path, "/")}
    if _WINDOWS_ABSOLUTE.match(path):
        return {"uri": "file:///" + _percent_encoded(path.replace("\\", "/"), "/:")}
    return {"uri": _percent_encoded(path, "/"), "uriBaseId": SRCROOT}


def _percent_encoded(path: str, safe: str) -> str:
    """``path`` percent-encoded as UTF-8; a file name that is not UTF-8 by its bytes on disk (Python
    reads byte 0xff of a name as ``\\udcff``: ``%FF``), any other lone surrogate by its escape."""
    try:
        return quote(path, safe=safe, errors="surrogateescape")
    except UnicodeEncodeError:
        return quote(path, safe=safe, errors="backslashreplace")


def _section(doc: str, title: str) -> str:
    """The body of ``## title`` with each paragraph joined onto one line."""
    match = re.search(rf"^## {re.escape(title)}[ \t]*\n(.*?)(?=^## |\Z)", doc, re.S | re.M)
    if not match:
        return ""
    paragraphs = re.split(r"\n\s*\n", match.group(1).strip())
    return "\n\n".join(" ".join(p.split()) for p in paragraphs if p.strip())


def rule_descriptor(code: str, rule, fallback_name: str, level: str) -> dict[str, Any]:
    if rule is None:  # a diagnostic whose rule is not in the registry: say what we know
        return {
            "id": code,
            "name": fallback_name,
            "shortDescription": {"text": fallback_name},
            "defaultConfiguration": {"level": level},
        }
    summary = rule.summary or rule.name
    descriptor: dict[str, Any] = {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": summary},
        "fullDescription": {"text": _section(rule.doc, "What it does") or summary},
        "defaultConfiguration": {"level": severity_name(rule)},
        "properties": {"fixable": bool(rule.fixable)},
    }
    if rule.doc:
        descriptor["help"] = {"text": rule.doc, "markdown": rule.doc}
    return descriptor


def fix_to_sarif(d) -> dict[str, Any] | None:
    """The SARIF fix of ``d``, or None when it has no edit (SARIF needs at least one replacement)."""
    if d.fix is None or not d.fix.edits:
        return None
    replacements = []
    for edit in d.fix.edits:
        replacement: dict[str, Any] = {
            "deletedRegion": {"charOffset": edit.start, "charLength": edit.end - edit.start},
        }
        if edit.text:
            replacement["insertedContent"] = {"text": edit.text}
        replacements.append(replacement)
    return {
        "description": {"text": d.fix.description},
        "artifactChanges": [{"artifactLocation": artifact_location(d.path), "replacements": replacements}],
    }


def to_sarif(report, registry) -> dict[str, Any]:
    codes = sorted({d.code for d in report.diagnostics})
    first: dict[str, Any] = {}
    for d in report.diagnostics:
        first.setdefault(d.code, d)
    rules = [
        rule_descriptor(
            code,
            registry.get(code) if registry is not None else None,
            first[code].name,
            severity_name(first[code]),
        )
        for code in codes
    ]
    index = {code: position for position, code in enumerate(codes)}
    results = []
    for d in report.diagnostics:
        result: dict[str, Any] = {
            "ruleId": d.code,
            "ruleIndex": index[d.code],
            "level": severity_name(d),
            "message": {"text": d.message},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": artifact_location(d.path),
                        "region": {"startLine": max(d.line, 1), "startColumn": max(d.col, 1)},
                    }
                }
            ],
        }
        fix = fix_to_sarif(d)
        if fix is not None:
            result["fixes"] = [fix]
        results.append(result)
    return {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "pytest-citations",
                        "version": pytest_citations.__version__,
                        "informationUri": INFORMATION_URI,
                        "rules": rules,
                    }
                },
                "columnKind": "unicodeCodePoints",
                "results": results,
            }
        ],
    }


def render(report, registry=None, **_: object) -> str:
    return json.dumps(to_sarif(report, registry), indent=2, ensure_ascii=False) + "\n"

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
- A built-in rule's ``helpUri`` is its section of ``docs/rules.md`` in the project's repository
  (the anchor ``citations rules --format markdown`` writes: ``#u104-normalized-url-mismatch``); a
  plugin's rule has none.
- Each result has ``partialFingerprints[FINGERPRINT]``: a hash of the rule code, the path, the
  text of the flagged line and the message (its stable part, ``Diagnostic.known_as``) with the
  numbers of lines it names masked, then ``:N`` for the N-th result of the same hash. Inserting or
  removing lines elsewhere in the file changes neither, so code scanning follows the finding from
  commit to commit.
- ``--statistics`` is a run without ``results`` (the log does not list them; an empty list would
  say there are none, and would close every open alert if uploaded to code scanning): its rules
  are those that reported anything, each with its number of results in ``properties.count``.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from typing import Any
from urllib.parse import quote

import pytest_citations
from pytest_citations.frontends.reporters._common import severity_name

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://github.com/pytest-citations/pytest-citations"
SRCROOT = "%SRCROOT%"
RULES_DOC = INFORMATION_URI + "/blob/main/docs/rules.md"
FINGERPRINT = "citationsFinding/v1"
BUILT_IN = "pytest_citations."  # the modules of the rules docs/rules.md documents

# "line 12", "lines 3-4", "on line 5, 9": where in the file, which inserting lines above changes
_LINE_NUMBERS = re.compile(r"\b(lines?) \d+(?:(?:-|, | and )\d+)*", re.IGNORECASE)

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
    if rule.module.startswith(BUILT_IN):
        descriptor["helpUri"] = help_uri(rule.code, rule.name)
    return descriptor


def help_uri(code: str, name: str) -> str:
    """The rule's section of ``docs/rules.md``: its heading ``## CODE name`` as GitHub anchors it."""
    return f"{RULES_DOC}#{code.lower()}-{name}"


def fingerprint_base(d) -> str:
    """What identifies ``d`` in its file whatever lines come before it: a hash of its code, its
    path, the text of its line (when it keeps one) and its message with line numbers masked."""
    line = d.context.splitlines()[0].strip() if d.context else ""
    message = _LINE_NUMBERS.sub(lambda m: m.group(1) + " N", d.known_as)
    text = "\0".join((d.code, d.path, line, message))
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def fingerprints(diagnostics) -> list[str]:
    """``fingerprint_base:N`` per diagnostic, N counting the diagnostics of the same base (from 1)."""
    seen: dict[str, int] = {}
    shown = []
    for d in diagnostics:
        base = fingerprint_base(d)
        seen[base] = seen.get(base, 0) + 1
        shown.append(f"{base}:{seen[base]}")
    return shown


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


def rule_descriptors(diagnostics, registry) -> list[dict[str, Any]]:
    """The descriptor of every rule that has a diagnostic, sorted by code."""
    first: dict[str, Any] = {}
    for d in diagnostics:
        first.setdefault(d.code, d)
    return [
        rule_descriptor(
            code,
            registry.get(code) if registry is not None else None,
            first[code].name,
            severity_name(first[code]),
        )
        for code in sorted(first)
    ]


def result(d, rule_index: int, fingerprint: str) -> dict[str, Any]:
    shown: dict[str, Any] = {
        "ruleId": d.code,
        "ruleIndex": rule_index,
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
        "partialFingerprints": {FINGERPRINT: fingerprint},
    }
    fix = fix_to_sarif(d)
    if fix is not None:
        shown["fixes"] = [fix]
    return shown


def log(run: dict[str, Any], rules: list[dict[str, Any]]) -> dict[str, Any]:
    """The SARIF log of one run of the tool (``run`` holds what follows its ``tool``)."""
    driver = {
        "name": "pytest-citations",
        "version": pytest_citations.__version__,
        "informationUri": INFORMATION_URI,
        "rules": rules,
    }
    return {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [{"tool": {"driver": driver}, **run}]}


def to_sarif(report, registry) -> dict[str, Any]:
    rules = rule_descriptors(report.diagnostics, registry)
    index = {rule["id"]: position for position, rule in enumerate(rules)}
    results = [
        result(d, index[d.code], fingerprint)
        for d, fingerprint in zip(report.diagnostics, fingerprints(report.diagnostics), strict=True)
    ]
    return log({"columnKind": "unicodeCodePoints", "results": results}, rules)


def statistics_to_sarif(report, registry) -> dict[str, Any]:
    """The rules that reported anything, each with ``properties.count``, and no ``results``."""
    rules = rule_descriptors(report.diagnostics, registry)
    counts = Counter(d.code for d in report.diagnostics)
    for rule in rules:
        rule["properties"] = {**rule.get("properties", {}), "count": counts[rule["id"]]}
    return log({}, rules)


def render(report, registry=None, **_: object) -> str:
    return json.dumps(to_sarif(report, registry), indent=2, ensure_ascii=False) + "\n"


def render_statistics(report, registry=None) -> str:
    return json.dumps(statistics_to_sarif(report, registry), indent=2, ensure_ascii=False) + "\n"

"""Machine-readable JSON: the summary and every diagnostic with its fix (``--output-format json``).

Both documents it prints, the report and ``--statistics``, follow the JSON Schema
``pytest_citations/schemas/check-output.schema.json``.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest_citations
from pytest_citations.frontends.reporters._common import counts, severity_name


def fix_to_json(fix) -> dict[str, Any] | None:
    if fix is None:
        return None
    return {
        "description": fix.description,
        "edits": [{"start": e.start, "end": e.end, "text": e.text} for e in fix.edits],
    }


def diagnostic_to_json(d) -> dict[str, Any]:
    return {
        "code": d.code,
        "name": d.name,
        "severity": severity_name(d),
        "message": d.message,
        "path": d.path,
        "line": d.line,
        "col": d.col,
        "fix": fix_to_json(d.fix),
    }


def to_json(report, hidden_by_baseline: int | None = None) -> dict[str, Any]:
    """The report; its summary has ``hidden_by_baseline`` only when a baseline was given."""
    errors, warnings, fixable = counts(report.diagnostics)
    summary = {"errors": errors, "warnings": warnings, "fixable": fixable}
    if hidden_by_baseline is not None:
        summary["hidden_by_baseline"] = hidden_by_baseline
    return {
        "tool": "pytest-citations",
        "version": pytest_citations.__version__,
        "files_checked": len(report.files),
        "summary": summary,
        "diagnostics": [diagnostic_to_json(d) for d in report.diagnostics],
    }


def render(report, registry=None, *, hidden_by_baseline: int | None = None, **_: object) -> str:
    return json.dumps(to_json(report, hidden_by_baseline), indent=2, ensure_ascii=False) + "\n"


def render_statistics(report, registry=None) -> str:
    """``{"statistics": [{"code", "name", "count", "fixable"}, ...]}``, most frequent rule first."""
    from pytest_citations.frontends.reporters import per_rule

    rows = [dataclasses.asdict(row) for row in per_rule(report)]
    return json.dumps({"statistics": rows}, indent=2, ensure_ascii=False) + "\n"

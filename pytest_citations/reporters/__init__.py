"""Reporters: one module per output format, each a ``render(report, registry, **kw) -> str``.

``render`` imports only the module of the format asked for, so the CLI pays for nothing else.
"""

from __future__ import annotations

import importlib
from collections import Counter

FORMATS = ("text", "json", "github", "sarif", "junit")

_MODULES = {
    "text": "text",
    "json": "json_format",
    "github": "github",
    "sarif": "sarif",
    "junit": "junit",
}


def render(format: str, report, registry, *, show_source: bool = True) -> str:
    """``report`` in ``format`` (one of :data:`FORMATS`), ready to write as is."""
    if format not in _MODULES:
        raise ValueError(f"unknown output format {format!r}: expected one of {', '.join(FORMATS)}")
    module = importlib.import_module(f"{__name__}.{_MODULES[format]}")
    return module.render(report, registry, show_source=show_source)


def statistics(report) -> str:
    """One row per rule code: count, code, ``[*]`` when any of them can be fixed, rule name.

    Rows are sorted by count (most first), then code; columns are aligned. Empty when the
    report has no diagnostics.
    """
    by_code = Counter(d.code for d in report.diagnostics)
    if not by_code:
        return ""
    names: dict[str, str] = {}
    fixable: set[str] = set()
    for d in report.diagnostics:
        names.setdefault(d.code, d.name)
        if d.fix is not None:
            fixable.add(d.code)
    rows = sorted(by_code.items(), key=lambda item: (-item[1], item[0]))
    count_width = max(len(str(count)) for _, count in rows)
    code_width = max(len(code) for code, _ in rows)
    marker_width = 4 if fixable else 0
    lines = []
    for code, count in rows:
        marker = "[*] " if code in fixable else ""
        lines.append(f"{count:>{count_width}}  {code:<{code_width}}  {marker:<{marker_width}}{names[code]}")
    return "\n".join(lines) + "\n"

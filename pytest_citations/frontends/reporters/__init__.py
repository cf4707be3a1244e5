"""Reporters: one module per output format, each a ``render(report, registry, **kw) -> str``; each
machine format's module also has a ``render_statistics(report, registry) -> str`` for ``--statistics``.

``render`` imports only the module of the format asked for, so the CLI pays for nothing else, and
defuses what a CI runner would take for a command in its output (``reporters/ci_log.py``).
"""

from __future__ import annotations

import importlib
from collections import Counter
from dataclasses import dataclass

FORMATS = ("text", "json", "github", "sarif", "junit")

_MODULES = {
    "text": "text",
    "json": "json_format",
    "github": "github",
    "sarif": "sarif",
    "junit": "junit",
}


def render(format: str, report, registry, *, show_source: bool = True, quiet: bool = False, color: bool = False,
           hidden_by_baseline: int | None = None, fixes: list[str] | None = None) -> str:
    """``report`` in ``format`` (one of :data:`FORMATS`), ready to write as is: no line of it
    starts a CI workflow command, but the annotations of ``github``, and it holds no lone
    surrogate (see ``reporters/ci_log.py``). ``color`` and ``fixes`` (``--show-fixes``) go to the
    text format alone (a machine format is never coloured); ``hidden_by_baseline`` (None: no baseline) to its summary and to
    the JSON summary."""
    if format not in _MODULES:
        raise ValueError(f"unknown output format {format!r}: expected one of {', '.join(FORMATS)}")
    module = importlib.import_module(f"{__name__}.{_MODULES[format]}")
    options: dict = {"show_source": show_source, "quiet": quiet}
    if format == "text":
        options.update(color=color, fixes=fixes)
    if format in ("text", "json"):
        options["hidden_by_baseline"] = hidden_by_baseline
    return _defused(format, module.render(report, registry, **options))


def _defused(format: str, text: str) -> str:
    """``text`` of ``format`` with every workflow-command mark escaped in that format's syntax."""
    from pytest_citations.frontends.reporters import ci_log

    if format == "github":  # the annotations asked for; their text is escaped by the runner's rules
        return text
    if format in ("json", "sarif"):
        return ci_log.defuse_json(text)
    if format == "junit":
        return ci_log.defuse(text, ci_log.xml_escape)
    return ci_log.defuse_text(text)


@dataclass(frozen=True)
class RuleCount:
    """How many diagnostics one rule reported, and whether any of them can be fixed."""

    code: str
    name: str
    count: int
    fixable: bool

    def described(self) -> str:
        """``2 diagnostics``, and ``, fixable with `citations check --fix``` when any of them is."""
        from pytest_citations.frontends.reporters._common import plural
        from pytest_citations.frontends.reporters.text import fix_legend

        fixable = f", {fix_legend([self.code])}" if self.fixable else ""
        return plural(self.count, "diagnostic") + fixable


def statistics(report, format: str = "text", registry=None) -> str:
    """The count of diagnostics per rule in ``format``: :func:`statistics_table` for ``text``, the
    format's own form for the others (each module's ``render_statistics``), defused as
    :func:`render` defuses a report."""
    if format not in _MODULES:
        raise ValueError(f"unknown output format {format!r}: expected one of {', '.join(FORMATS)}")
    if format == "text":
        return statistics_table(report)
    module = importlib.import_module(f"{__name__}.{_MODULES[format]}")
    return _defused(format, module.render_statistics(report, registry))


def per_rule(report) -> list[RuleCount]:
    """A :class:`RuleCount` per rule code, most frequent first, then by code."""
    by_code = Counter(d.code for d in report.diagnostics)
    names: dict[str, str] = {}
    fixable: set[str] = set()
    for d in report.diagnostics:
        names.setdefault(d.code, d.name)
        if d.fix is not None:
            fixable.add(d.code)
    rows = sorted(by_code.items(), key=lambda item: (-item[1], item[0]))
    return [RuleCount(code, names[code], count, code in fixable) for code, count in rows]


def statistics_table(report) -> str:
    """One row per rule code: count, code, ``[*]`` when any of them can be fixed, rule name.

    Rows are sorted by count (most first), then code; columns are aligned. Empty when the
    report has no diagnostics. Rule names come from plugins: defused as the text format is.
    """
    from pytest_citations.frontends.reporters.ci_log import defuse_text

    rows = per_rule(report)
    if not rows:
        return ""
    count_width = max(len(str(row.count)) for row in rows)
    code_width = max(len(row.code) for row in rows)
    marker_width = 4 if any(row.fixable for row in rows) else 0
    lines = []
    for row in rows:
        marker = "[*] " if row.fixable else ""
        lines.append(f"{row.count:>{count_width}}  {row.code:<{code_width}}  {marker:<{marker_width}}{row.name}")
    return defuse_text("\n".join(lines) + "\n")

"""The default, human format: ``path:line:col: CODE [*] message``, source and caret, a summary."""

from __future__ import annotations

from pytest_citations.frontends.reporters._common import counts, format_diagnostic, plural


def summary(report) -> str:
    """``Found N errors and M warnings in K files (F fixable with --fix).`` or all passed.

    K counts the files that have a diagnostic; the all-passed line counts the files checked.
    A count of zero errors or warnings, and the fixable part when nothing can be fixed, are left out.
    """
    if not report.diagnostics:
        return f"All checks passed: {plural(len(report.files), 'file')} checked."
    errors, warnings, fixable = counts(report.diagnostics)
    files = len({d.path for d in report.diagnostics})
    found = " and ".join(plural(n, noun) for n, noun in ((errors, "error"), (warnings, "warning")) if n)
    line = f"Found {found} in {plural(files, 'file')}"
    if fixable:
        line += f" ({fixable} fixable with --fix)"
    return line + "."


def render(report, registry=None, *, show_source: bool = True, **_: object) -> str:
    lines: list[str] = []
    for d in report.diagnostics:
        lines.extend(format_diagnostic(d, show_source))
    if lines:
        lines.append("")
    lines.append(summary(report))
    return "\n".join(lines) + "\n"

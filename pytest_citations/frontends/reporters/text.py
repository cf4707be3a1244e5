"""The default, human format: ``path:line:col: CODE [*] message``, source and caret, a summary."""

from __future__ import annotations

from pytest_citations.frontends.reporters._common import counts, format_diagnostic, plural

FIX_LEGEND = "fixable with `citations check --fix`"
RULE_HINT = "`citations rule CODE` explains a rule."


def summary(report) -> str:
    """``Found N errors and M warnings in K files.``, what ``[*]`` marks and how to read about a
    rule; or all passed.

    K counts the files that have a diagnostic; the all-passed line counts the files checked.
    A count of zero errors or warnings, and the fixable line when nothing can be fixed, are left out.
    """
    if not report.diagnostics:
        return f"All checks passed: {plural(len(report.files), 'file')} checked."
    errors, warnings, fixable = counts(report.diagnostics)
    files = len({d.path for d in report.diagnostics})
    found = " and ".join(plural(n, noun) for n, noun in ((errors, "error"), (warnings, "warning")) if n)
    lines = [f"Found {found} in {plural(files, 'file')}."]
    if fixable:
        lines.append(f"[*] {fixable} {FIX_LEGEND}.")
    lines.append(RULE_HINT)
    return "\n".join(lines)


def render(report, registry=None, *, show_source: bool = True, quiet: bool = False, **_: object) -> str:
    """The findings, then the summary (``quiet``: the findings alone)."""
    lines: list[str] = []
    for d in report.diagnostics:
        lines.extend(format_diagnostic(d, show_source))
    if quiet:
        return "".join(f"{line}\n" for line in lines)
    if lines:
        lines.append("")
    lines.append(summary(report))
    return "\n".join(lines) + "\n"

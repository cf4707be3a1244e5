"""The default, human format: ``path:line:col: CODE [*] message``, source and caret, a summary."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from pytest_citations.frontends.reporters._common import counts, format_diagnostic, plural, safe

COLOR_CHOICES = ("auto", "always", "never")
FIX_LEGEND = "fixable with `citations check --fix`"
ONLINE_FIX_LEGEND = "fixable with `citations check --online --fix`"  # (an online rule's fix needs the web's answer)
RULE_HINT = "`citations rule CODE` explains a rule."


def fix_legend(codes) -> str:
    """What ``[*]`` marks: fixable with ``--fix``, or with ``--online --fix`` when any of the fixable
    ``codes`` is an online rule's (W7xx)."""
    return ONLINE_FIX_LEGEND if any(code.startswith("W") for code in codes) else FIX_LEGEND


def summary(report, hidden_by_baseline: int | None = None) -> str:
    """``Found N errors and M warnings in K files.``, what ``[*]`` marks and how to read about a
    rule; or all passed. Either says how many findings the baseline hid, when it hid any.

    K counts the files that have a diagnostic; the all-passed line counts the files checked.
    A count of zero errors or warnings, and the fixable line when nothing can be fixed, are left out.
    """
    if not report.diagnostics:
        hidden = f" ({plural(hidden_by_baseline, 'finding')} hidden by the baseline)" if hidden_by_baseline else ""
        return f"All checks passed: {plural(len(report.files), 'file')} checked{hidden}."
    errors, warnings, fixable = counts(report.diagnostics)
    files = len({d.path for d in report.diagnostics})
    found = " and ".join(plural(n, noun) for n, noun in ((errors, "error"), (warnings, "warning")) if n)
    hidden = f" ({hidden_by_baseline} more hidden by the baseline)" if hidden_by_baseline else ""
    lines = [f"Found {found} in {plural(files, 'file')}{hidden}."]
    if fixable:
        lines.append(f"[*] {fixable} {fix_legend(d.code for d in report.diagnostics if d.fix is not None)}.")
    lines.append(RULE_HINT)
    return "\n".join(lines)


def wants_color(choice: str | None, terminal: bool, environ: Mapping[str, str]) -> bool:
    """Whether the text format is coloured: ``--color always`` or ``never`` as said; otherwise
    (``auto``) not when ``NO_COLOR`` is set to anything, yes when ``FORCE_COLOR`` is, and else
    only on a ``terminal``. An empty variable counts as unset."""
    if choice in ("always", "never"):
        return choice == "always"
    if environ.get("NO_COLOR"):
        return False
    return bool(environ.get("FORCE_COLOR")) or terminal


def fixes_list(per_file: Mapping[str, Counter], names: Mapping[str, str], fixed: bool) -> list[str]:
    """``--show-fixes``: ``Fixed N findings:`` (``fixed``) or ``N findings fixable with ...:``, then
    per file, sorted, ``- path:`` and a line ``count × CODE (name)`` per code, most first; nothing
    when there is nothing to list."""
    total = sum(sum(codes.values()) for codes in per_file.values())
    if not total:
        return []
    legend = fix_legend(code for codes in per_file.values() for code in codes)
    lines = [f"Fixed {plural(total, 'finding')}:" if fixed else f"{plural(total, 'finding')} {legend}:"]
    for path, codes in sorted(per_file.items()):
        if not codes:
            continue
        lines.append(f"- {safe(path)}:")
        for code, count in sorted(codes.items(), key=lambda item: (-item[1], item[0])):
            lines.append(f"    {count} \u00d7 {safe(code)} ({safe(names.get(code, ''))})")
    return lines


def render(report, registry=None, *, show_source: bool = True, quiet: bool = False, color: bool = False,
           hidden_by_baseline: int | None = None, fixes: list[str] | None = None, **_: object) -> str:
    """The findings, ``fixes`` (:func:`fixes_list`), then the summary (``quiet``: the findings
    alone); with ``color``, the path, code, ``[*]`` and caret of each finding in colour
    (:func:`wants_color`)."""
    lines: list[str] = []
    for d in report.diagnostics:
        lines.extend(format_diagnostic(d, show_source, color))
    if quiet:
        return "".join(f"{line}\n" for line in lines)
    if lines:
        lines.append("")
    if fixes:
        lines.extend([*fixes, ""])
    lines.append(summary(report, hidden_by_baseline))
    return "\n".join(lines) + "\n"

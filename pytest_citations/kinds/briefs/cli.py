"""``citations brief validate`` and ``citations store init|import`` (brief-citation-contract.md).

``brief validate BRIEF`` is the pre-output validator of spec §3 that a synthesis pipeline calls: it
checks the brief with the B3xx rules, writes §3's validation report (extended with per-bullet
reasons and the diagnostics) and §3.2's decision: ``deliver``, ``retry`` or ``abstain``. With
``--fix`` it applies §3's failure table to the brief and its sidecar; ``--abstain-report`` renders
§3.2's abstaining report from the evidence that remains.

``store init|import`` build the SQLite evidence store the briefs kind reads (spec §8; the DDL is
documented in ``docs/evidence-store.md``).

Exit status: ``brief validate`` 0 when validation passed, 1 when it did not, 2 for an error;
``store`` 0 on success, 2 for an error (the message is on standard error).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import cast

EXIT_OK, EXIT_FAILED, EXIT_ERROR = 0, 1, 2


def add_parser(commands: argparse._SubParsersAction) -> None:
    """Add the ``brief`` (``validate``) and ``store`` (``init``, ``import``) command groups."""
    brief = commands.add_parser("brief", help="validate a synthesis brief before delivery (spec §3, §3.2)")
    brief.set_defaults(brief_parser=brief)
    brief_actions = brief.add_subparsers(dest="brief_command", metavar="COMMAND")
    validate = brief_actions.add_parser("validate", help="write the validation report and the delivery decision")
    validate.add_argument("brief", type=Path, metavar="BRIEF")
    validate.add_argument("--fix", action="store_true", help="apply spec §3's failure actions to the brief and its sidecar")
    validate.add_argument("--report", type=Path, metavar="FILE", help="write the report JSON to FILE (default: standard output)")
    validate.add_argument("--abstain-report", type=Path, metavar="FILE", help="write spec §3.2's abstaining report to FILE")
    validate.add_argument("--attempt", type=int, choices=(1, 2), default=1, help="the synthesis attempt (1, or 2 after the retry)")
    validate.add_argument("--date", default=None, help="the brief's date for the abstaining report (default: today)")
    validate.add_argument("--config", type=Path, metavar="FILE", help="read settings from FILE instead of the nearest pyproject.toml")
    store = commands.add_parser("store", help="build the SQLite evidence store that briefs are checked against")
    store.set_defaults(store_parser=store)
    actions = store.add_subparsers(dest="store_command", metavar="COMMAND")
    init = actions.add_parser("init", help="create the store's tables in PATH (idempotent)")
    init.add_argument("path", type=Path, metavar="PATH")
    load = actions.add_parser("import", help="insert rows from JSON (table -> rows) or JSON Lines ({\"table\": ...}) files")
    load.add_argument("path", type=Path, metavar="STORE")
    load.add_argument("files", nargs="+", type=Path, metavar="FILE")


def run(args: argparse.Namespace) -> int:
    if args.command == "brief":
        return run_brief(args)
    from pytest_citations.kinds.briefs import evidence_store

    try:
        if args.store_command == "init":
            evidence_store.init(args.path)
            print(f"citations: initialised evidence store {args.path}", file=sys.stderr)
            return EXIT_OK
        if args.store_command == "import":
            counts = evidence_store.import_files(args.path, args.files)
            shown = ", ".join(f"{count} {table}" for table, count in sorted(counts.items())) or "no rows"
            print(f"citations: imported {shown} into {args.path}", file=sys.stderr)
            return EXIT_OK
    except evidence_store.StoreError as exc:
        print(f"citations: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    args.store_parser.print_help()
    return EXIT_ERROR


# -- brief validate -----------------------------------------------------------------------------------

# what makes one citation of a bullet invalid (§3 "verifies each citation ID resolves to ...")
INVALIDATING = ("B302", "B306", "B307", "B308", "B309", "B311", "B312", "B313")
# what makes a whole bullet fail §3.1's quality checks, and the action text that replaces it
QUALITY_ACTIONS = {
    "B320": "[Insufficient credible evidence for this claim]",
    "B321": "[Cite official source directly for policy claims]",
}
MAX_REMOVED = 3


def _brief_and_diagnostics(engine, rel: str):
    """The brief in file ``rel`` (None: the file is not one), what the check finds in it, and its
    text, read once."""
    from pytest_citations.core import sources
    from pytest_citations.kinds.briefs.model import KIND, Brief

    source = sources.read_source(engine.config.root, rel, engine.config.max_file_size)
    units: list = []
    diagnostics = engine.check_file(rel, (KIND,), source=source, units=units)
    brief = next((unit for unit in units if isinstance(unit, Brief)), None)
    return brief, diagnostics, source


def _not_a_brief(engine, rel: str, source) -> str:
    """Why ``rel`` is not validated: what its content lacks, and how to claim it as a brief anyway."""
    from pytest_citations.kinds.briefs.model import KIND
    from pytest_citations.kinds.briefs.recognition import not_a_brief_because

    options = engine.config.kinds[KIND.name].options
    because = not_a_brief_because(source.text, options["claim-sections"], options["references-heading"])
    return (f"{rel} is not a brief: {because}; to check it as a brief whatever it holds, claim it with "
            f"include = [\"{rel}\"] under [tool.citations.kinds.briefs]")


def evaluate(brief, diagnostics, attempt: int = 1) -> dict:
    """Spec §3's report, with per-bullet reasons and §3.2's decision."""
    from pytest_citations.kinds.briefs.model import ABSTAIN_MARKER

    positions = {(m.line, m.col): m.number for b in brief.bullets for m in b.markers}
    bullet_at = {(b.line, b.col): (b.section, b.index) for b in brief.bullets}
    reasons: dict[int, list[str]] = {}
    quality: dict[tuple[str, int], tuple[str, str]] = {}  # (section, index) -> (code + message, action)
    for d in diagnostics:
        if d.code in INVALIDATING and (d.line, d.col) in positions:
            reasons.setdefault(positions[(d.line, d.col)], []).append(f"{d.code} {d.message}")
        elif d.code in QUALITY_ACTIONS and (d.line, d.col) in bullet_at:
            quality.setdefault(bullet_at[(d.line, d.col)], (f"{d.code} {d.message}", QUALITY_ACTIONS[d.code]))
    bullets, removed, cited = [], 0, 0
    emptied = []
    for section in brief.sections.values():
        kept = 0
        for bullet in section.bullets:
            numbers = list(dict.fromkeys(m.number for m in bullet.markers))
            valid = [n for n in numbers if n not in reasons]
            failed = quality.get((section.key, bullet.index))
            if bullet.abstain:
                status = "abstain"
            elif valid and not failed:
                status, cited = "cited", cited + 1
            else:
                status, removed = "removed", removed + 1
            kept += status != "removed"
            if status != "removed":
                reason = None
            elif not numbers:
                reason = "bullet has no citation marker"
            elif not valid:
                reason = "no citation of the bullet resolves"
            else:  # (a bullet with a valid citation is removed only for a failed quality check)
                reason = cast("tuple[str, str]", failed)[0]
            bullets.append({
                "section": section.key,
                "index": bullet.index,
                "line": bullet.line,
                "status": status,
                "citations": [{"marker": n, "valid": n not in reasons, "reasons": reasons.get(n, [])} for n in numbers],
                "reason": reason,
                "replacement": None if status != "removed" else (failed[1] if failed and valid else ABSTAIN_MARKER),
            })
        if kept == 0:
            emptied.append(section.title)
    emptied += brief.missing_sections
    passed = removed == 0 and not emptied
    decision = "deliver" if removed <= MAX_REMOVED and not emptied else ("retry" if attempt < 2 else "abstain")
    return {
        "total_bullets": len(bullets),
        "cited_bullets": cited,
        "removed_bullets": removed,
        "validation_passed": passed,
        "decision": decision,
        "attempt": attempt,
        "empty_sections": emptied,
        "bullets": bullets,
        "diagnostics": [
            {"code": d.code, "severity": d.severity.value, "line": d.line, "col": d.col, "message": d.message}
            for d in diagnostics
        ],
    }


def fix_edits(brief, text: str, report: dict) -> list:
    """Spec §3's failure table as text edits: invalid markers removed; a bullet left without a
    valid citation replaced by the abstain marker. References are never renumbered."""
    from pytest_citations.core.diagnostics import Edit
    from pytest_citations.kinds.briefs.model import ABSTAIN_MARKER

    invalid = {(b["section"], b["index"]): {c["marker"] for c in b["citations"] if not c["valid"]} for b in report["bullets"]}
    statuses = {(b["section"], b["index"]): b["status"] for b in report["bullets"]}
    replacements = {(b["section"], b["index"]): b.get("replacement") or ABSTAIN_MARKER for b in report["bullets"]}
    edits = []
    for bullet in brief.bullets:
        key = (bullet.section, bullet.index)
        if statuses[key] == "removed":
            start = text.index(bullet.text.split("\n", 1)[0], bullet.start) if bullet.text else bullet.start
            end = bullet.end
            body = text[start:end]
            trailing = len(body) - len(body.rstrip())
            edits.append(Edit(start, end - trailing, replacements[key]))
            continue
        for marker in bullet.markers:
            if marker.number in invalid[key]:
                start = marker.start - 1 if text[marker.start - 1 : marker.start] == " " and text[marker.end : marker.end + 1] in ("", "\n", "\r", " ") else marker.start
                edits.append(Edit(start, marker.end, ""))
    return edits


def _strip_paywalled_quotes(engine, brief) -> bool:
    """Strip quote_span, and full text under any other field (B324), from sidecar citations of
    metadata_only sources; True when written."""
    import json

    from pytest_citations.core import sources
    from pytest_citations.kinds.briefs.grounding_rules import FULL_TEXT_FIELDS, paywalled_full_text_fields
    from pytest_citations.run import fix as fix_module

    names = engine.config.rule_options.get("B324", {}).get("fields", FULL_TEXT_FIELDS)

    if brief.registry is None or brief.citation_source is None or brief.citation_source.startswith("evidence store"):
        return False
    changed = False
    for citation in (brief.citations or {}).values():
        source = brief.registry.sources.get(citation.get("source_id"))
        if source is not None and source.paywall_policy == "metadata_only" and (
            "quote_span" in citation or paywalled_full_text_fields(citation, names)
        ):
            changed = True
    if not changed:
        return False
    original = sources.read_source(engine.config.root, brief.citation_source, engine.config.max_file_size)
    from pytest_citations.core import jsonlines

    data = jsonlines.loads(original.text)
    for citation in data["citations"].values():
        source = brief.registry.sources.get(citation.get("source_id")) if isinstance(citation, dict) else None
        if source is not None and source.paywall_policy == "metadata_only":
            citation.pop("quote_span", None)
            for name in paywalled_full_text_fields(citation, names):
                citation.pop(name)
    text = json.dumps(data, indent=2, ensure_ascii=False).replace("\n", original.newline)
    if original.text.endswith("\n"):  # the final newline (or its lack) and the newline style are kept
        text += original.newline
    fix_module.write_atomic(original, sources.with_text(original, text).raw)
    return True


def abstain_report(brief, report: dict, date: str) -> str:
    """Spec §3.2's abstaining report, from the citations that remain valid."""
    valid = {c["marker"] for b in report["bullets"] for c in b["citations"] if c["valid"]}
    summary = [b for b in brief.bullets if any(m.number in valid for m in b.markers)][:3]
    lines = [
        f"# Daily Brief - {date}", "", "## Synthesis Status: Insufficient Evidence", "",
        f"We were unable to generate a complete daily brief for {date} due to insufficient citeable evidence in available sources.",
        "", "## Available Evidence Summary", "",
    ]
    for bullet in summary:
        lines.append("- " + " ".join(bullet.text.split("\n")[0].split()))
    if not summary:
        lines.append("- [Insufficient evidence to assess this claim]")
    lines += ["", "## Why Insufficient", ""]
    reasons = [b["reason"] or "" for b in report["bullets"] if b["status"] == "removed"]
    unresolved = sum(1 for r in reasons if not r.startswith(tuple(QUALITY_ACTIONS)))
    if unresolved:
        lines.append(f"- {unresolved} claim bullet(s) had no citation that resolves to stored evidence")
    numeric = sum(1 for r in reasons if r.startswith("B320"))
    if numeric:
        lines.append(f"- {numeric} numeric or time claim(s) had neither a Tier 1-2 source nor two independent sources")
    policy = sum(1 for r in reasons if r.startswith("B321"))
    if policy:
        lines.append(f"- {policy} policy claim(s) did not cite the official (Tier 1) source in the evidence pack")
    for title in report["empty_sections"]:
        lines.append(f"- No citeable evidence for the section \"{title}\"")
    if not report["removed_bullets"] and not report["empty_sections"]:
        lines.append("- The synthesis failed validation twice")
    lines += ["", "## References", ""]
    for entry in brief.entries:
        if entry.number in valid:
            lines.append(f"[{entry.number}] {entry.text}")
            lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n"


def run_brief(args: argparse.Namespace) -> int:
    import datetime
    import json

    from pytest_citations.core import sources
    from pytest_citations.core.config import ConfigError
    from pytest_citations.engine import Engine
    from pytest_citations.run import fix as fix_module

    if args.brief_command != "validate":
        args.brief_parser.print_help()
        return EXIT_ERROR
    path = args.brief
    if not path.is_file():
        print(f"citations: error: no such brief: {path}", file=sys.stderr)
        return EXIT_ERROR
    try:
        engine = Engine.load(path.parent, args.config)
    except ConfigError as exc:
        print(f"citations: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    rel = engine.relative(path)
    if rel is None:
        print(f"citations: error: {path} is outside the repository root {engine.config.root}", file=sys.stderr)
        return EXIT_ERROR
    try:
        brief, diagnostics, source = _brief_and_diagnostics(engine, rel)
    except sources.SourceError as exc:
        print(f"citations: error: {rel}: {exc.message}", file=sys.stderr)
        return EXIT_ERROR
    if brief is None:
        print(f"citations: error: {_not_a_brief(engine, rel, source)}", file=sys.stderr)
        return EXIT_ERROR
    report = evaluate(brief, diagnostics, args.attempt)
    if args.fix:
        first = report
        stripped = _strip_paywalled_quotes(engine, brief)
        edits = fix_edits(brief, source.text, report)
        if edits:
            from pytest_citations.core.diagnostics import Fix

            text, _ = fix_module.apply_fixes(source.text, [Fix(f"edit {i}", (e,)) for i, e in enumerate(edits)])
            try:
                fix_module.write_atomic(source, sources.with_text(source, text).raw)
            except fix_module.FileChangedError as exc:
                print(f"citations: error: {exc}", file=sys.stderr)
                return EXIT_ERROR
        engine.forget()
        brief, diagnostics, source = _brief_and_diagnostics(engine, rel)
        report = evaluate(brief, diagnostics, args.attempt)
        # the decision stands on what the fix removed, not on the replaced text
        report.update(
            removed_bullets=first["removed_bullets"], decision=first["decision"], empty_sections=first["empty_sections"],
            fixed={"edits": len(edits), "stripped_quote_spans": stripped, "bullets_before": first["bullets"]},
        )
    from pytest_citations.frontends.reporters.ci_log import defuse_json

    # the brief's text is quoted in it: defused for a CI log, the same JSON once parsed (frontends/reporters/ci_log.py)
    text = defuse_json(json.dumps(report, indent=2, ensure_ascii=False) + "\n")
    if args.report:
        args.report.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    if args.abstain_report:
        date = args.date or datetime.date.today().isoformat()
        args.abstain_report.write_text(abstain_report(brief, report, date), encoding="utf-8")
    return EXIT_OK if report["validation_passed"] else EXIT_FAILED

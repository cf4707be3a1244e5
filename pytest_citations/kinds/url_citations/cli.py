"""``citations report utilization RUN_DIR``: which citations of a research run its synthesis uses.

The report lists the run's synthesis files, every URL or cid they cite with the record it matched,
the share of ``valid`` records cited, the ``valid`` records left unused, and the diagnostics of the
synthesis rules (U114 phantom citations, U115/U116 cited records that are not ``valid``), exactly as
``citations check`` reports them for those files (same settings, suppressions and severities).

Exit status: 0 when no error was found, 1 when one was, 2 for a usage or settings error.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pytest_citations.core.diagnostics import Diagnostic

EXIT_CLEAN, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2
SYNTHESIS_CODES = ("U114", "U115", "U116")


def add_parser(commands: argparse._SubParsersAction) -> None:
    """Add the ``report`` command group (``utilization``) to the ``citations`` parser."""
    report = commands.add_parser("report", help="reports over research runs (utilization)")
    report.set_defaults(report_parser=report)
    actions = report.add_subparsers(dest="report_command", metavar="COMMAND")
    usage = actions.add_parser(
        "utilization",
        help="which citations of a research run its synthesis cites, and which cited URLs have no valid record",
    )
    usage.add_argument("run_dir", type=Path, metavar="RUN_DIR", help="a research run folder (it holds citations/citations.jsonl)")
    usage.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")
    usage.add_argument("--config", type=Path, metavar="FILE", help="read settings from FILE instead of the nearest pyproject.toml")


def run(args: argparse.Namespace) -> int:
    if getattr(args, "report_command", None) != "utilization":
        args.report_parser.print_help()
        return EXIT_USAGE
    from pytest_citations.core import sources
    from pytest_citations.engine import Engine
    from pytest_citations.kinds.url_citations import utilization

    run_dir: Path = args.run_dir
    if not run_dir.is_dir():
        print(f"citations: error: no such folder: {run_dir}", file=sys.stderr)
        return EXIT_USAGE
    engine = Engine.load(run_dir, args.config)
    rel = engine.relative(run_dir / utilization.CITATIONS_FILE)
    if rel is None:
        print(f"citations: error: {run_dir} is outside the repository root {engine.config.root.as_posix()}", file=sys.stderr)
        return EXIT_USAGE
    try:
        data = build_report(engine, rel.rsplit("/", 2)[0] if rel.count("/") >= 2 else ".")
    except sources.SourceError as error:
        print(f"citations: error: {error.message}", file=sys.stderr)
        return EXIT_USAGE
    from pytest_citations.frontends.reporters.ci_log import defuse_json, defuse_text

    # paths, URLs and messages come from the checkout: defused for a CI log (frontends/reporters/ci_log.py)
    if args.format == "json":
        sys.stdout.write(defuse_json(json.dumps(data, indent=2, ensure_ascii=False) + "\n"))
    else:
        sys.stdout.write(defuse_text(render_text(data)))
    return EXIT_FINDINGS if any(d["severity"] == "error" for d in data["diagnostics"]) else EXIT_CLEAN


def build_report(engine, run: str) -> dict[str, Any]:
    """The utilization report of the run folder ``run`` (repo-relative) as plain JSON data."""
    from pytest_citations.core import sources
    from pytest_citations.kinds.url_citations import utilization

    root = engine.config.root
    index = utilization.load_run(root, run, engine.config.max_file_size, utilization.url_profile(engine))
    folder = root if run == "." else root / run
    profile = utilization.url_profile(engine)
    synthesis: list[str] = []
    cited: dict[str, dict[str, Any]] = {}
    diagnostics: list[Diagnostic] = []
    for rel, kinds in engine.discover([folder]):
        if not any(kind.name == "synthesis" for kind in kinds) or utilization.run_folder(root, rel) != run:
            continue
        synthesis.append(rel)
        text = sources.read_source(root, rel, engine.config.max_file_size).text
        for ref in utilization.cited_references(text, profile):
            record = index.lookup(ref)
            key = f"{record.line}" if record is not None else ref.key
            entry = cited.setdefault(key, {
                "reference": ref.text,
                "record_line": record.line if record else None,
                "cid": record.cid if record else ref.cid,
                "url": record.url if record else ref.text,
                "status": record.status if record else None,
                "phantom": record is None,
                "cited_at": [],
            })
            entry["cited_at"].append(f"{rel}:{ref.line}:{ref.col}")
        diagnostics.extend(d for d in engine.check_file(rel, kinds) if d.code in SYNTHESIS_CODES)
    valid = [r for r in index.records if r.status == "valid"]
    used_lines = {entry["record_line"] for entry in cited.values() if entry["record_line"] is not None}
    used_valid = [r for r in valid if r.line in used_lines]
    entries = list(cited.values())  # in the order first cited (a sort of "path:line:col" texts put line 10 before 9)
    return {
        "run": run,
        "citations_file": index.citations,
        "synthesis_files": synthesis,
        "records": len(index.records),
        "valid_records": len(valid),
        "valid_cited": len(used_valid),
        "utilization": round(len(used_valid) / len(valid), 4) if valid else None,
        "cited": entries,
        "unused_valid": [{"record_line": r.line, "cid": r.cid, "url": r.url} for r in valid if r.line not in used_lines],
        "phantom": [e for e in entries if e["phantom"]],
        "cited_not_valid": [e for e in entries if not e["phantom"] and e["status"] != "valid"],
        "diagnostics": [
            {"path": d.path, "line": d.line, "col": d.col, "code": d.code, "name": d.name, "severity": d.severity.value if hasattr(d.severity, "value") else d.severity, "message": d.message}
            for d in diagnostics
        ],
    }


def render_text(data: dict[str, Any]) -> str:
    out = [f"run: {data['run']}", f"citations: {data['citations_file']} ({data['records']} records, {data['valid_records']} valid)"]
    out.append("synthesis: " + (", ".join(data["synthesis_files"]) or "(none found)"))
    share = data["utilization"]
    shown = "n/a (no valid records)" if share is None else f"{share:.0%}"
    out.append(f"utilization: {data['valid_cited']} of {data['valid_records']} valid citations cited ({shown})")
    out.append("")
    out.append(f"cited ({len(data['cited'])}):")
    for entry in data["cited"]:
        status = "PHANTOM (no record)" if entry["phantom"] else entry["status"]
        out.append(f"  {status:<20} {entry['url']}  [{', '.join(entry['cited_at'])}]")
    out.append(f"unused valid ({len(data['unused_valid'])}):")
    for entry in data["unused_valid"]:
        out.append(f"  {data['citations_file']}:{entry['record_line']}  {entry['url']}")
    if data["diagnostics"]:
        out.append("")
        for d in data["diagnostics"]:
            out.append(f"{d['path']}:{d['line']}:{d['col']}: {d['code']} {d['message']}")
    errors = sum(1 for d in data["diagnostics"] if d["severity"] == "error")
    warnings = len(data["diagnostics"]) - errors
    out.append("")
    counts = f"{errors} error{'s' if errors != 1 else ''}, {warnings} warning{'s' if warnings != 1 else ''}"
    out.append(f"{len(data['phantom'])} phantom, {len(data['cited_not_valid'])} cited but not valid; {counts}")
    return "\n".join(out) + "\n"

"""``citations check``: the request its arguments make, the run (once, or again after each change
with ``--watch``), and the outcome shown in the format asked for, with its exit status."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from pytest_citations.core.suppressions import INTERNAL_ERROR
from pytest_citations.frontends import collector
from pytest_citations.frontends.exit_status import EXIT_CLEAN, EXIT_FINDINGS, EXIT_USAGE

if TYPE_CHECKING:
    from pytest_citations.engine import Report
    from pytest_citations.run.checking import CheckOutcome, CheckRequest

CLEAR_SCREEN = "\x1b[2J\x1b[H"  # --watch on a terminal: the screen cleared before each run after the first
WATCH_SEPARATOR = "-" * 20  # --watch elsewhere: a line between runs
WATCH_MISSING = "--watch needs the watchfiles package: pip install 'pytest-citations[watch]'"


def run_check(args: argparse.Namespace) -> int:
    if args.watch:
        return _watch(args)
    return _check_once(args)


def _watch(args: argparse.Namespace) -> int:
    """``--watch``: check, then check again after each change under the paths (the screen cleared
    on a terminal, a separator line elsewhere), until Ctrl-C, which ends it with status 0. What the
    run itself writes (the cache, the record of the run, ``--output-file``) is not watched."""
    if _reads_stdin(args):
        print("citations: error: --watch cannot watch standard input", file=sys.stderr)
        return EXIT_USAGE
    paths = list(args.paths) or [Path.cwd()]
    try:
        changes = _watched_changes(paths, _not_watched(args, paths))
        _check_once(args)
        for _ in changes:
            sys.stdout.write(CLEAR_SCREEN if sys.stdout.isatty() else f"{WATCH_SEPARATOR}\n")
            print("citations: files changed, checking again", file=sys.stderr)
            _check_once(args)
    except ImportError:
        print(f"citations: error: {WATCH_MISSING}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return EXIT_CLEAN
    return EXIT_CLEAN


def _not_watched(args: argparse.Namespace, paths: list[Path]) -> list[Path]:
    """What a run writes under the paths: the cache folders and the report file."""
    folders = [Path(p if p.is_dir() else p.parent) for p in paths]
    chosen = args.cache_dir or os.environ.get("CITATIONS_CACHE_DIR")
    ignored = [Path(chosen)] if chosen else []
    ignored += [folder / ".citations_cache" for folder in folders]
    if args.output_file:
        ignored.append(args.output_file)
    return [Path(os.path.abspath(path)) for path in ignored]


def _watched_changes(paths: list[Path], ignored: list[Path], **options):
    """The changes under ``paths`` as watchfiles sees them, one set per batch (ImportError when it
    is not installed: it is an optional dependency, imported only here)."""
    import watchfiles

    class Filter(watchfiles.DefaultFilter):
        def __call__(self, change, path: str) -> bool:
            return super().__call__(change, path) and not any(Path(path).is_relative_to(below) for below in ignored)

    return watchfiles.watch(*paths, watch_filter=Filter(ignore_dirs=(*watchfiles.DefaultFilter.ignore_dirs, ".citations_cache")),
                            **options)


def _check_once(args: argparse.Namespace) -> int:
    from pytest_citations.run.checking import CheckRun, RunError

    if args.refresh_verified and not (args.fix or args.diff):
        print("citations: error: --refresh-verified records verification while fixing: add --fix", file=sys.stderr)
        return EXIT_USAGE
    if args.fix and args.diff:
        print("citations: error: --diff shows what --fix would write: use one of them", file=sys.stderr)
        return EXIT_USAGE
    problem = _stdin_problem(args)
    if problem:
        print(f"citations: error: {problem}", file=sys.stderr)
        return EXIT_USAGE
    request = check_request(args)
    try:
        run = CheckRun(request)
        collector.resume()  # start-up is over (see _pause_collector)
        outcome = run.check()
    except RunError as exc:
        print(f"citations: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    for notice in outcome.notices:
        print(f"citations: {notice}", file=sys.stderr)
    if not (args.quiet or args.silent):
        for line in outcome.online_lines:
            print(f"citations: {line}", file=sys.stderr)
    online_selected = [code for code in (*(args.select or ()), *(args.extend_select or ())) if code.startswith("W")]
    if online_selected and not args.online and not args.silent:
        print(f"citations: warning: --select {online_selected[0]}: the online rules (W7xx) run only with --online",
              file=sys.stderr)
    if args.diff or args.fix:
        from pytest_citations.frontends.shown_paths import shown_path, working_folder

        root, folder = outcome.engine.config.root, working_folder()
        fixed = {shown_path(rel, root, folder): result for rel, result in outcome.fixed.items()}
    if args.diff:
        return _show_diff(fixed)
    if args.fix and not (args.quiet or args.silent):
        from pytest_citations.run.fix import summary

        sys.stderr.write(summary(fixed, args.refresh_verified))
    if outcome.fixed_text is not None:  # standard input fixed: its text goes out, the report to standard error
        sys.stdout.write(outcome.fixed_text)
        sys.stdout.flush()
        return _report(args, request, outcome, sys.stderr)
    return _report(args, request, outcome)


def _reads_stdin(args: argparse.Namespace) -> bool:
    """Whether standard input is checked: ``-`` is the path, or ``--stdin-filename`` with no path (as ruff)."""
    return args.paths == [Path("-")] or (args.stdin_filename is not None and not args.paths)


def _stdin_problem(args: argparse.Namespace) -> str | None:
    """Why the paths and ``--stdin-filename`` cannot go together, if they cannot."""
    if Path("-") in args.paths and len(args.paths) > 1:
        return "- (standard input) is checked alone: name no other path"
    if _reads_stdin(args) and args.stdin_filename is None:
        return "- (standard input) needs --stdin-filename PATH: the file whose kind and settings it has"
    if _reads_stdin(args) and (args.staged is not None or args.since or args.affected_by or args.shard or args.write_baseline):
        return "--since, --staged, --affected-by, --shard and --write-baseline cannot check standard input"
    return _online_problem(args)


def _online_problem(args: argparse.Namespace) -> str | None:
    """Why the online options cannot go together with the others, if they cannot."""
    from pytest_citations.online.options import given

    options = given(lambda name: getattr(args, name), "--online")
    if options and not args.online:
        return f"{options[0]} tells the online check how to fetch: add --online"
    if args.online and _reads_stdin(args):
        return "--online checks files, not standard input"
    return None


def check_request(args: argparse.Namespace) -> CheckRequest:
    """The run that ``citations check``'s arguments ask for."""
    from pytest_citations.run.checking import CheckRequest

    def paths(option: list[Path] | None) -> tuple[Path, ...] | None:
        return None if option is None else tuple(option)

    stdin = {"stdin": sys.stdin.buffer, "stdin_filename": args.stdin_filename} if _reads_stdin(args) else {}
    online = None
    if args.online:
        from pytest_citations.online.options import online_request

        online = online_request(lambda name: getattr(args, name), "--online")
    return CheckRequest(
        paths=() if stdin else tuple(args.paths), config_file=args.config, baseline_file=args.baseline,
        select=args.select, ignore=args.ignore, extend_select=args.extend_select, extend_ignore=args.extend_ignore,
        force_exclude=args.force_exclude,
        use_cache=not args.no_cache, cache_dir=args.cache_dir, since=args.since,
        staged=paths(args.staged), affected_by=paths(args.affected_by), shard=args.shard,
        jobs=args.jobs, fix=args.fix or args.diff, refresh_verified=args.refresh_verified, write_fixes=not args.diff,
        online=online, **stdin,
    )


def _show_diff(fixed: dict) -> int:
    """``--diff``: what ``--fix`` would change, one unified diff per file; 1 when anything would."""
    import difflib

    from pytest_citations.frontends.reporters.ci_log import defuse_text

    for shown, result in sorted(fixed.items()):
        lines = difflib.unified_diff(result.before.splitlines(keepends=True), result.after.splitlines(keepends=True),
                                     f"a/{shown}", f"b/{shown}")
        sys.stdout.write(defuse_text("".join(line if line.endswith("\n") else f"{line}\n" for line in lines)))
    return EXIT_FINDINGS if fixed else EXIT_CLEAN


def _report(args: argparse.Namespace, request: CheckRequest, outcome: CheckOutcome, out: TextIO | None = None) -> int:
    """Show the outcome as asked (on ``out``, standard output by default); the exit status."""
    from pytest_citations.core import baseline as baseline_module
    from pytest_citations.frontends.reporters import render, statistics

    engine, report, hits, selecting = outcome.engine, outcome.report, outcome.cache_hits, request.selecting
    if args.verbose:
        files = len(report.files)
        print(f"citations: {files} file{'s' if files != 1 else ''} checked, {hits} from the cache", file=sys.stderr)
    notices = not (args.quiet or args.silent)
    if request.stdin is not None:  # (the run's notices said what was not checked)
        notices = False
    if not selecting and notices:
        from pytest_citations.frontends.reporters._common import safe

        for shown in engine.discovery.unclaimed(args.paths, args.force_exclude):
            print(f"citations: warning: {safe(shown)} is not checked: no kind claims it (see \"Which files are checked\" "
                  "in docs/configuration.md)", file=sys.stderr)
    if not report.files and notices:
        if selecting:
            print("citations: no artifact file is affected by the changes", file=sys.stderr)
        else:
            print("citations: warning: no artifact files found under the given paths", file=sys.stderr)

    if args.write_baseline:
        written = baseline_module.dumps(report.diagnostics)
        refused = baseline_module.beyond_limits(written)
        if refused is not None:  # (a baseline that --baseline would refuse is not written)
            print(f"citations: error: {args.write_baseline}: not written: {refused}", file=sys.stderr)
            return EXIT_USAGE
        if not _write(args.write_baseline, written):
            return EXIT_USAGE
        crashes = sum(d.code == INTERNAL_ERROR for d in report.diagnostics)
        if not (args.quiet or args.silent):
            print(f"citations: recorded {len(report.diagnostics) - crashes} diagnostics in {args.write_baseline}", file=sys.stderr)
        if crashes:  # a baseline never records one: the file must be checked whole first
            print(f"citations: error: {crashes} internal error{'s' if crashes != 1 else ''} ({INTERNAL_ERROR}) not "
                  "recorded: a file that was not fully checked cannot be part of a baseline", file=sys.stderr)
            return EXIT_USAGE
        return EXIT_CLEAN

    from pytest_citations.frontends.shown_paths import FOR_PEOPLE, shown_report, working_folder

    output_format = args.format or ("github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text")
    if output_format in FOR_PEOPLE:  # paths from where the command runs
        report = shown_report(report, engine.config.root, working_folder())
    if args.statistics:
        text = statistics(report, output_format, engine.registry)
    else:
        text = render(output_format, report, engine.registry, **_render_options(args, output_format, outcome, report))
    if args.output_file:
        if not _write(args.output_file, text):
            return EXIT_USAGE
    elif not args.silent:
        (out or sys.stdout).write(text)
    if any(d.code == INTERNAL_ERROR for d in report.diagnostics):
        return EXIT_USAGE  # a file was not fully checked: this must never pass, not even with --exit-zero
    failing = report.diagnostics if args.strict else report.errors
    if failing and not args.exit_zero:
        return EXIT_FINDINGS
    return EXIT_CLEAN


def _render_options(args: argparse.Namespace, output_format: str, outcome: CheckOutcome, report: Report) -> dict:
    """How ``report`` (the outcome's, its paths as shown) is rendered: its source lines, quietness,
    how many findings the baseline hid and, for the text format, colour and the fixes."""
    options = {"show_source": not args.no_source, "quiet": args.quiet, "hidden_by_baseline": outcome.hidden_by_baseline}
    if output_format == "text":
        from pytest_citations.frontends.reporters.text import wants_color

        if args.output_file is None:
            options["color"] = wants_color(args.color, sys.stdout.isatty(), os.environ)
        else:  # a report file is coloured only when the command line says so, whatever the environment
            options["color"] = args.color == "always"
        if args.show_fixes:
            options["fixes"] = _fixes_list(args.fix, outcome, report)
    return options


def _fixes_list(fixing: bool, outcome: CheckOutcome, report: Report) -> list[str]:
    """``--show-fixes``: the fixes applied per file (with ``--fix``), else the fixable findings of
    ``report``; paths as shown."""
    from collections import Counter

    from pytest_citations.frontends.reporters.text import fixes_list
    from pytest_citations.frontends.shown_paths import shown_path, working_folder

    per_file: dict[str, Counter] = {}
    names = {item.code: item.name for item in outcome.engine.registry.declared()}
    if fixing:
        root, folder = outcome.engine.config.root, working_folder()
        per_file = {shown_path(path, root, folder): result.codes for path, result in outcome.fixed.items()}
    else:
        for d in report.diagnostics:
            if d.fix is not None:
                per_file.setdefault(d.path, Counter())[d.code] += 1
                names.setdefault(d.code, d.name)
    return fixes_list(per_file, names, fixing)


def _write(path: Path, text: str) -> bool:
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        print(f"citations: error: cannot write {path}: {exc.strerror or exc}", file=sys.stderr)
        return False
    return True

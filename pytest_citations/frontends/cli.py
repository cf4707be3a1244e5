"""The ``citations`` command: ``check`` for pre-commit and CI, ``rule``/``rules`` for the docs.

Exit status: 0 when no error was found, 1 when one was, 2 for a usage or settings error or an
internal error in a rule (C006), so that a file the checker could not fully check never passes.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from pytest_citations import __version__

if TYPE_CHECKING:
    from pytest_citations.engine import Report
    from pytest_citations.run.checking import CheckOutcome, CheckRequest

# Only what building the parser needs is imported here: each command imports what it runs, so that
# `citations check` on one file loads no more than its kinds need (tests/frontends/test_lazy_imports.py).

EXIT_CLEAN, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2
EXIT_CLOSED_PIPE = 128 + 13  # 128 + SIGPIPE, as a shell reports a program the signal ended
INTERNAL_ERROR = "C006"
CLEAR_SCREEN = "\x1b[2J\x1b[H"  # --watch on a terminal: the screen cleared before each run after the first
WATCH_SEPARATOR = "-" * 20  # --watch elsewhere: a line between runs
WATCH_MISSING = "--watch needs the watchfiles package: pip install 'pytest-citations[watch]'"


def _codes(text: str) -> tuple[str, ...]:
    return tuple(code.strip().upper() for code in text.split(",") if code.strip())


def _jobs(text: str) -> int:
    try:
        jobs = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of processes") from None
    if jobs < 0:
        raise argparse.ArgumentTypeError("the number of processes cannot be negative")
    return jobs or os.cpu_count() or 1


def _shard(text: str) -> tuple[int, int]:
    from pytest_citations.run.selection import parse_shard

    try:
        return parse_shard(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def build_parser(only_check: bool = False) -> argparse.ArgumentParser:
    """The ``citations`` parser; with ``only_check``, one with the ``check`` command alone.

    :func:`main` builds that one for a command line that starts with ``check``: argparse hands all
    that follows the command word to that command's parser, so the other commands' parsers (and
    the modules they are built in) would only slow down the command pre-commit and CI run.
    """
    from pytest_citations.frontends.reporters import FORMATS

    parser = argparse.ArgumentParser(prog="citations", description="Prove that the citations in a repository are real and still true.")
    parser.add_argument("--version", action="version", version=f"pytest-citations {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    check = commands.add_parser(
        "check",
        help="check citation artifacts under PATHS (default: the current folder)",
        epilog="exit status: 0 no errors (warnings allowed), 1 errors found, 2 usage or settings error "
        "or an internal error (C006)",
    )
    check.add_argument("paths", nargs="*", type=Path, metavar="PATHS",
                       help="files or folders to check; - for standard input (with --stdin-filename)")
    check.add_argument("--stdin-filename", type=Path, metavar="PATH",
                       help="check standard input as if it were the file PATH (with --fix: print the fixed text, write nothing)")
    check.add_argument("--format", "--output-format", dest="format", choices=FORMATS,
                       help="output format (default: text; github under GitHub Actions)")
    check.add_argument("--output-file", type=Path, metavar="FILE", help="write the report to FILE instead of standard output")
    check.add_argument("--select", type=_codes, metavar="CODES", help="comma-separated codes or prefixes to enable, instead of the settings' select")
    check.add_argument("--ignore", type=_codes, metavar="CODES", help="comma-separated codes or prefixes to disable, instead of the settings' ignore")
    check.add_argument("--extend-select", type=_codes, metavar="CODES", help="codes or prefixes to enable besides the settings' select")
    check.add_argument("--extend-ignore", type=_codes, metavar="CODES", help="codes or prefixes to disable besides the settings' ignore")
    check.add_argument("--statistics", action="store_true", help="print a count of diagnostics per rule instead of the diagnostics")
    check.add_argument("--exit-zero", action="store_true", help="exit 0 even when errors are found")
    check.add_argument("--force-exclude", action="store_true", help="honour excludes for paths named on the command line too (for pre-commit)")
    check.add_argument("--fix", action="store_true", help="apply the fixes of fixable rules, then report what is left")
    check.add_argument("--show-fixes", action="store_true",
                       help="in the text format, list per file the fixes --fix applied or, without --fix, the fixable findings")
    check.add_argument("--diff", action="store_true",
                       help="print what --fix would change as a unified diff and write nothing; exit 1 when anything would change")
    check.add_argument("--refresh-verified", action="store_true",
                       help="with --fix: also record in memories what verification established (verified stamps with "
                       "the current time, confidence, last_verified)")
    check.add_argument("--config", type=Path, metavar="FILE", help="read settings from FILE instead of the nearest pyproject.toml")
    check.add_argument("--baseline", type=Path, metavar="FILE", help="report only diagnostics not recorded in FILE")
    check.add_argument("--write-baseline", type=Path, metavar="FILE", help="record every current diagnostic in FILE and exit 0")
    check.add_argument("--no-source", action="store_true", help="do not print the offending source line under each diagnostic")
    check.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                       help="colour the text format: auto (the default) on a terminal unless $NO_COLOR is set, or when "
                       "$FORCE_COLOR is; always; never. Machine formats are never coloured")
    check.add_argument("-j", "--jobs", type=_jobs, default=1, metavar="N",
                       help="check files in N processes (0: one per core; default 1)")
    check.add_argument("--no-cache", action="store_true", help="check every file; do not read or write the result cache")
    check.add_argument("--cache-dir", type=Path, metavar="DIR",
                       help="keep the result cache in DIR (default: $CITATIONS_CACHE_DIR, else the cache-dir setting, "
                       ".citations_cache at the root)")
    changes = check.add_mutually_exclusive_group()
    changes.add_argument("--since", metavar="REF",
                         help="check only the files changed since the merge base of REF and HEAD (committed or not) "
                         "and the files that cite one of them")
    changes.add_argument("--affected-by", nargs="+", type=Path, metavar="FILE",
                         help="check only the named files and the files that cite one of them")
    changes.add_argument("--staged", nargs="*", type=Path, metavar="FILE",
                         help="check only what the staged changes affect (added, modified, deleted and renamed files, "
                         "as git lists them) and what the named files affect (for pre-commit)")
    check.add_argument("--shard", type=_shard, metavar="K/N",
                       help="check only the K-th of N deterministic parts of the files (to split a run across CI jobs)")
    check.add_argument("-w", "--watch", action="store_true",
                       help="check again whenever a file under PATHS changes, until Ctrl-C (needs pytest-citations[watch])")
    check.add_argument("-v", "--verbose", action="store_true", help="say how many files were checked and how many came from the cache")
    quiet = check.add_mutually_exclusive_group()
    quiet.add_argument("-q", "--quiet", action="store_true", help="print the findings only: no summary, no notices")
    quiet.add_argument("-s", "--silent", action="store_true", help="print nothing (errors aside): the exit status tells")

    if only_check:
        return parser

    one = commands.add_parser("rule", help="print the documentation of one rule")
    one.add_argument("code", metavar="CODE", help="a rule code (U104) or name (normalized-url-mismatch)")

    listing = commands.add_parser("rules", help="list every rule")
    listing.add_argument("--format", choices=("text", "markdown"), default="text", help="markdown prints the full reference (docs/rules.md)")

    from pytest_citations.kinds.briefs import cli as brief_cli
    from pytest_citations.kinds.claude_exchanges import cli as claude_cli
    from pytest_citations.kinds.memories import cli as memory_cli
    from pytest_citations.kinds.url_citations import cli as report_cli

    memory_cli.add_parser(commands)
    brief_cli.add_parser(commands)
    report_cli.add_parser(commands)
    claude_cli.add_parser(commands)
    return parser


def main(argv: list[str] | None = None) -> int:
    """The ``citations`` command; with ``argv`` None, the program itself (the console script,
    ``python -m pytest_citations``), whose ``check`` starts up without the garbage collector."""
    from pytest_citations.frontends.reporters.ci_log import DefusedStream

    if argv is None and sys.argv[1:2] == ["check"] and gc.isenabled():
        _pause_collector()
    # Standard error carries only messages for people, some quoting file names and settings from
    # the checkout: defused in one place (standard output is defused by each output's renderer).
    stderr = sys.stderr = DefusedStream(sys.stderr)
    try:
        return _main(sys.argv[1:] if argv is None else list(argv))
    except BrokenPipeError:  # the reader went away (`citations rules | head -1`)
        return _closed_pipe()
    finally:
        stderr.drain()
        sys.stderr = stderr.stream
        _resume_collector()


def _closed_pipe() -> int:
    """End quietly when standard output was closed by its reader, as a program killed by SIGPIPE
    would (status 141): what is still buffered goes nowhere instead of raising again at exit."""
    import contextlib

    with contextlib.suppress(OSError, ValueError):  # (ValueError: no file behind standard output)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return EXIT_CLOSED_PIPE


_collector_paused = False


def _pause_collector() -> None:
    """Turn the cyclic garbage collector off for the start-up of ``citations check``.

    Start-up (imports, plugins, settings) makes some hundred thousand objects that live as long as
    the run, and hardly any garbage, yet they set off dozens of collections that walk them all:
    about a tenth of a check of one small file. :func:`_resume_collector`, called once the engine is
    loaded, freezes them out of later collections (:func:`gc.freeze`; it also keeps the memory of
    ``-j`` workers shared with the parent, as the gc documentation explains) and turns the collector
    back on. Only the program does this: a caller of :func:`main` keeps its collector as it is.
    """
    global _collector_paused
    gc.disable()
    _collector_paused = True


def _resume_collector() -> None:
    global _collector_paused
    if _collector_paused:
        _collector_paused = False
        gc.freeze()
        gc.enable()


def _main(argv: list[str]) -> int:
    from pytest_citations.core import baseline as baseline_module
    from pytest_citations.core.config import ConfigError

    parser = build_parser(only_check=argv[:1] == ["check"])
    args = parser.parse_args(argv)
    try:
        if args.command == "check":
            return run_check(args)
        if args.command == "rule":
            return show_rule(args.code)
        if args.command == "rules":
            return list_rules(args.format)
        if args.command == "memory":
            from pytest_citations.kinds.memories import cli as memory_cli

            return memory_cli.run(args)
        if args.command in ("brief", "store"):
            from pytest_citations.kinds.briefs import cli as brief_cli

            return brief_cli.run(args)
        if args.command == "report":
            from pytest_citations.kinds.url_citations import cli as report_cli

            return report_cli.run(args)
        if args.command == "claude":
            from pytest_citations.kinds.claude_exchanges import cli as claude_cli

            return claude_cli.run(args)
    except (ConfigError, baseline_module.BaselineError) as exc:
        print(f"citations: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    parser.print_help()
    return EXIT_USAGE


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
        _resume_collector()  # start-up is over (see _pause_collector)
        outcome = run.check()
    except RunError as exc:
        print(f"citations: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    for notice in outcome.notices:
        print(f"citations: {notice}", file=sys.stderr)
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
    return None


def check_request(args: argparse.Namespace) -> CheckRequest:
    """The run that ``citations check``'s arguments ask for."""
    from pytest_citations.run.checking import CheckRequest

    def paths(option: list[Path] | None) -> tuple[Path, ...] | None:
        return None if option is None else tuple(option)

    stdin = {"stdin": sys.stdin.buffer, "stdin_filename": args.stdin_filename} if _reads_stdin(args) else {}
    return CheckRequest(
        paths=() if stdin else tuple(args.paths), config_file=args.config, baseline_file=args.baseline,
        select=args.select, ignore=args.ignore, extend_select=args.extend_select, extend_ignore=args.extend_ignore,
        force_exclude=args.force_exclude,
        use_cache=not args.no_cache, cache_dir=args.cache_dir, since=args.since,
        staged=paths(args.staged), affected_by=paths(args.affected_by), shard=args.shard,
        jobs=args.jobs, fix=args.fix or args.diff, refresh_verified=args.refresh_verified, write_fixes=not args.diff,
        **stdin,
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
        if not _write(args.write_baseline, baseline_module.dumps(report.diagnostics)):
            return EXIT_USAGE
        crashes = sum(d.code == INTERNAL_ERROR for d in report.diagnostics)
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
    if report.errors and not args.exit_zero:
        return EXIT_FINDINGS
    return EXIT_CLEAN


def _render_options(args: argparse.Namespace, output_format: str, outcome: CheckOutcome, report: Report) -> dict:
    """How ``report`` (the outcome's, its paths as shown) is rendered: its source lines, quietness,
    how many findings the baseline hid and, for the text format, colour and the fixes."""
    options = {"show_source": not args.no_source, "quiet": args.quiet, "hidden_by_baseline": outcome.hidden_by_baseline}
    if output_format == "text":
        from pytest_citations.frontends.reporters.text import wants_color

        terminal = args.output_file is None and sys.stdout.isatty()
        options["color"] = wants_color(args.color, terminal, os.environ)
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


def show_rule(code: str) -> int:
    from pytest_citations.engine import load_plugins

    _, registry = load_plugins()
    item = registry.get(code)
    if item is None:
        print(f"citations: error: no rule {code!r}; `citations rules` lists them", file=sys.stderr)
        return EXIT_USAGE
    sys.stdout.write(rule_markdown(item, level=1))
    return EXIT_CLEAN


def rule_markdown(item, level: int = 2) -> str:
    """One rule's reference: title, facts, then its documentation with headings shifted."""
    prefix = "#" * level
    fixable = "yes (`--fix`)" if item.fixable else "no"
    body = item.doc.replace("\n## ", f"\n{prefix}# ")
    if body.startswith("## "):
        body = f"{prefix}# " + body[3:]
    facts = f"Kind: `{item.kind or 'core'}` · Severity: {item.severity.value} · Fixable: {fixable}"
    if item.options:
        options = ", ".join(f"`{key}` (default `{option.default!r}`)" for key, option in item.options.items())
        facts += f" · Options: {options}"
    return f"{prefix} {item.code} {item.name}\n\n{facts}\n\n{body.strip()}\n"


def rules_reference() -> str:
    """The whole of ``docs/rules.md``, generated from the registry."""
    from pytest_citations.engine import load_plugins

    _, registry = load_plugins()
    parts = [
        "# Rules\n\n",
        "<!-- Generated by `citations rules --format markdown`; a test fails when this file is stale. -->\n\n",
        "| code | name | kind | severity | fixable | summary |\n|---|---|---|---|---|---|\n",
    ]
    for item in registry:
        anchor = f"{item.code}-{item.name}".lower()
        parts.append(
            f"| [{item.code}](#{anchor}) | {item.name} | {item.kind or 'core'} | {item.severity.value} | "
            f"{'yes' if item.fixable else ''} | {item.summary} |\n"
        )
    for item in registry:
        parts.append("\n" + rule_markdown(item))
    return "".join(parts)


def list_rules(output_format: str) -> int:
    from pytest_citations.engine import load_plugins

    if output_format == "markdown":
        sys.stdout.write(rules_reference())
        return EXIT_CLEAN
    _, registry = load_plugins()
    for item in registry:
        marker = "[*]" if item.fixable else "   "
        print(f"{item.code} {marker} {item.name:<28} {item.severity.value:<7} {item.summary}")
    return EXIT_CLEAN


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

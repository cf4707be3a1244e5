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
from typing import TYPE_CHECKING

from pytest_citations import __version__

if TYPE_CHECKING:
    from pytest_citations.engine import Engine

# Only what building the parser needs is imported here: each command imports what it runs, so that
# `citations check` on one file loads no more than its kinds need (tests/test_lazy_imports.py).

EXIT_CLEAN, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2
INTERNAL_ERROR = "C006"


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
    check.add_argument("paths", nargs="*", type=Path, metavar="PATHS", help="files or folders to check")
    check.add_argument("--format", choices=FORMATS, help="output format (default: text; github under GitHub Actions)")
    check.add_argument("--output-file", type=Path, metavar="FILE", help="write the report to FILE instead of standard output")
    check.add_argument("--select", type=_codes, metavar="CODES", help="comma-separated codes or prefixes to enable, instead of the settings' select")
    check.add_argument("--ignore", type=_codes, metavar="CODES", help="comma-separated codes or prefixes to disable, instead of the settings' ignore")
    check.add_argument("--statistics", action="store_true", help="print a count of diagnostics per rule instead of the diagnostics")
    check.add_argument("--exit-zero", action="store_true", help="exit 0 even when errors are found")
    check.add_argument("--force-exclude", action="store_true", help="honour excludes for paths named on the command line too (for pre-commit)")
    check.add_argument("--fix", action="store_true", help="apply the fixes of fixable rules, then report what is left")
    check.add_argument("--refresh-verified", action="store_true",
                       help="with --fix: also record in memories what verification established (verified stamps with "
                       "the current time, confidence, last_verified)")
    check.add_argument("--config", type=Path, metavar="FILE", help="read settings from FILE instead of the nearest pyproject.toml")
    check.add_argument("--baseline", type=Path, metavar="FILE", help="report only diagnostics not recorded in FILE")
    check.add_argument("--write-baseline", type=Path, metavar="FILE", help="record every current diagnostic in FILE and exit 0")
    check.add_argument("--no-source", action="store_true", help="do not print the offending source line under each diagnostic")
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
    check.add_argument("-v", "--verbose", action="store_true", help="say how many files were checked and how many came from the cache")

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
    finally:
        stderr.drain()
        sys.stderr = stderr.stream
        _resume_collector()


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


def _start_folder(paths: list[Path]) -> Path:
    if not paths:
        return Path.cwd()
    folders = [os.path.abspath(p if p.is_dir() else p.parent) for p in paths]
    return Path(os.path.commonpath(folders))


def run_check(args: argparse.Namespace) -> int:
    from pytest_citations.core import baseline as baseline_module
    from pytest_citations.core import git_history
    from pytest_citations.engine import Engine, Task, report_of, run_task
    from pytest_citations.run import parallel
    from pytest_citations.run.progress import Progress

    if args.refresh_verified and not args.fix:
        print("citations: error: --refresh-verified records verification while fixing: add --fix", file=sys.stderr)
        return EXIT_USAGE
    paths = args.paths or [Path.cwd()]
    missing = [p for p in paths if not p.exists() and not p.is_symlink()]
    if missing:
        print(f"citations: error: no such file or folder: {missing[0]}", file=sys.stderr)
        return EXIT_USAGE
    baseline = baseline_module.load(args.baseline) if args.baseline else None
    engine = Engine.load(_start_folder(paths), args.config, baseline=baseline)
    _resume_collector()  # start-up is over (see _pause_collector)
    for option, codes in (("--select", args.select), ("--ignore", args.ignore)):
        unknown = [code for code in codes or () if not any(item.code.startswith(code) for item in engine.registry)]
        if unknown:
            print(f"citations: error: {option}: no rule code starts with {unknown[0]!r}; `citations rules` lists them", file=sys.stderr)
            return EXIT_USAGE
    engine.override(select=args.select, ignore=args.ignore)
    selecting = _selecting(args)
    if not (args.no_cache or args.fix):
        engine.enable_cache(cache_folder(args.cache_dir, engine))
    elif selecting:
        engine.enable_cache(None)  # what each file reads must be learned, even if not kept

    request = None
    changes = _changes(args) if selecting else None
    if engine.cache_folder is not None and not args.fix:
        from pytest_citations.run.replay import Request

        request = Request(engine, paths, args.force_exclude, args.shard, args.baseline)
        try:
            replayed = request.replayed(changes)
        except git_history.ChangesError as exc:
            return _changes_unknown(args, exc)
        if replayed is not None:
            report, kept = replayed
            return _report(args, engine, report, hits=kept)
    progress = Progress()
    if not args.fix:  # a fix goes one file after another
        parallel.claim_in_workers(engine, args.jobs)
    try:
        tasks = engine.plan(paths, args.force_exclude)
        if args.shard:
            from pytest_citations.run.selection import shard_of

            tasks = shard_of(tasks, args.shard)
        known: dict[Task, list] = {}
        if selecting:
            tasks, known = _affected_tasks(tasks, changes, args.jobs, progress)
        fixed: dict = {}
        if args.fix:  # one file after another: a fix may change what the next file reads
            fix_and_check = progress.wrap(_fixer(fixed, args.refresh_verified))
            results = [run_task(task, fix_and_check) for task in tasks]
        elif known:
            todo = [task for task in tasks if task not in known]
            checked = dict(zip(todo, parallel.check(todo, args.jobs, progress.advance), strict=True))
            results = [known[task] if task in known else checked[task] for task in tasks]
        else:
            results = parallel.check(tasks, args.jobs, progress.advance)
    except git_history.ChangesError as exc:
        return _changes_unknown(args, exc)
    except parallel.WorkerError as exc:  # a file not checked: the run must not pass, as for a C006
        print(f"citations: error: {exc} while checking files (-j {args.jobs}): the check is incomplete", file=sys.stderr)
        return EXIT_USAGE
    finally:
        progress.close()
    report = report_of(tasks, results)
    if request is not None and not selecting and not any(d.code == INTERNAL_ERROR for d in report.diagnostics):
        request.record(tasks, results)
    engine.save_cache()
    if args.fix:
        from pytest_citations.run.fix import summary

        sys.stderr.write(summary(fixed, args.refresh_verified))
    caches = [e.cache for e in (engine, *engine.nested_engines) if e.caching and e.cache is not None]
    return _report(args, engine, report, hits=sum(cache.hits for cache in caches))


def _changes_unknown(args: argparse.Namespace, exc: Exception) -> int:
    """Say that git could not list the changes ``--since`` or ``--staged`` asked for; the usage
    error's status."""
    option = f"--since {args.since}" if args.since else "--staged"
    print(f"citations: error: {option}: {exc}", file=sys.stderr)
    return EXIT_USAGE


def _report(args: argparse.Namespace, engine: Engine, report, hits: int) -> int:
    """Show the report as asked; the exit status."""
    from pytest_citations.core import baseline as baseline_module
    from pytest_citations.frontends.reporters import render, statistics

    selecting = _selecting(args)
    if args.verbose:
        files = len(report.files)
        print(f"citations: {files} file{'s' if files != 1 else ''} checked, {hits} from the cache", file=sys.stderr)
    if not selecting:
        from pytest_citations.frontends.reporters._common import safe

        for shown in engine.unclaimed(args.paths, args.force_exclude):
            print(f"citations: warning: {safe(shown)} is not checked: no kind claims it (see \"Which files are checked\" "
                  "in docs/configuration.md)", file=sys.stderr)
    if not report.files:
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

    output_format = args.format or ("github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text")
    if args.statistics:
        text = statistics(report)
    else:
        text = render(output_format, report, engine.registry, show_source=not args.no_source)
    if args.output_file:
        if not _write(args.output_file, text):
            return EXIT_USAGE
    else:
        sys.stdout.write(text)
    if any(d.code == INTERNAL_ERROR for d in report.diagnostics):
        return EXIT_USAGE  # a file was not fully checked: this must never pass, not even with --exit-zero
    if report.errors and not args.exit_zero:
        return EXIT_FINDINGS
    return EXIT_CLEAN


def cache_folder(option: Path | None, engine: Engine) -> Path:
    """--cache-dir, else $CITATIONS_CACHE_DIR, else the cache-dir setting below the root. Symlinks
    are left in the path: the cache refuses one that lies in the checkout (cache.confined_folder)."""
    chosen = option or os.environ.get("CITATIONS_CACHE_DIR")
    return Path(os.path.abspath(chosen)) if chosen else engine.config.root / engine.config.cache_dir


def _fixer(fixed: dict, refresh: bool):
    """A check_file for --fix that fixes as it checks (and, with ``refresh``, records verification),
    keeping the :class:`~pytest_citations.run.fix.FixResult` of each written file by its shown path."""
    from pytest_citations.run.fix import FileChangedError, fix_file

    def fix_and_check(owner, rel, kinds):
        try:
            result = fix_file(owner, rel, kinds, refresh)
        except FileChangedError as exc:
            print(f"citations: {exc}", file=sys.stderr)
            return owner.check_file(rel, kinds)
        if result.written:
            fixed[owner.display_prefix + rel] = result
        return result.diagnostics

    return fix_and_check


def _selecting(args: argparse.Namespace) -> bool:
    """Whether the run checks only what changes affect (``--since``, ``--staged``, ``--affected-by``)."""
    return bool(args.since or args.affected_by) or args.staged is not None


def _changes(args: argparse.Namespace):
    """The changes ``--since``, ``--staged`` or ``--affected-by`` name (:class:`selection.Changes`):
    the changed paths of each root, relative to it (git is asked once per root), with the files
    named on the command line, and for ``--since`` and ``--staged`` the text a changed path had
    at the merge base or at HEAD. Git is asked only about the checkout's own repository: every file
    of a root that lies in a repository nested in it counts as changed."""
    from pytest_citations.core import git_history, sources
    from pytest_citations.run import selection

    found: dict[Path, git_history.Changes] = {}
    named = [Path(os.path.abspath(p)) for p in args.affected_by or args.staged or ()]
    asks_git = bool(args.since) or args.staged is not None

    def listed(engine: Engine) -> git_history.Changes:
        root = engine.config.root
        if root not in found:
            found[root] = (git_history.changes_since(root, args.since) if args.since
                           else git_history.staged_changes(root))
        return found[root]

    def changed_for(engine: Engine) -> set[str]:
        paths = {rel for rel in map(engine.relative, named) if rel is not None}
        if not asks_git:
            return paths
        changes = listed(engine)
        if not changes.unlisted:
            return changes.paths | paths
        # a root inside a repository nested in the checkout, whose changes git is not asked for:
        # its settings count as changed, so every file of it is checked
        if engine.settings_rel() is None:
            raise git_history.ChangesError(changes.unlisted)
        return paths | {engine.settings_rel()}

    def earlier(engine: Engine, rels: list[str]) -> dict[str, str | None]:
        texts = {}
        for rel, data in git_history.files_at(engine.config.root, listed(engine).base, rels).items():
            try:
                texts[rel] = None if data is None else sources.decode_text(data)
            except sources.SourceError:  # not UTF-8 then: left out, as git cannot tell of it
                continue
        return texts

    return selection.Changes(changed_for, earlier if asks_git else None)


def _affected_tasks(tasks, changes, jobs: int, progress) -> tuple[list, dict]:
    """The tasks a change affects, and the diagnostics of those that had to be checked to learn
    what they read (kept only when they turned out to read a changed path, or crashed)."""
    from pytest_citations.run import parallel, selection

    certain, unknown = selection.affected(tasks, changes)
    learned = parallel.check(unknown, jobs, progress.advance)
    known = {
        task: found for task, found in zip(unknown, learned, strict=True)
        if selection.learned_affected(task, changes) or any(d.code == INTERNAL_ERROR for d in found)
    }
    chosen = set(certain) | set(known)
    return [task for task in tasks if task in chosen], known


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

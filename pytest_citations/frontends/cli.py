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

from pytest_citations import __version__
from pytest_citations.frontends import collector
from pytest_citations.frontends.exit_status import EXIT_CLEAN, EXIT_CLOSED_PIPE, EXIT_USAGE

# Only what building the parser needs is imported here: each command imports what it runs, so that
# `citations check` on one file loads no more than its kinds need (tests/frontends/test_lazy_imports.py).



def _codes(text: str) -> tuple[str, ...]:
    return tuple(code.strip().upper() for code in text.split(",") if code.strip())


class _MoreCodes(argparse.Action):
    """An option of codes that adds up when repeated (``--select U1 --select M2``), as ruff's do."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        setattr(namespace, self.dest, (*(getattr(namespace, self.dest) or ()), *values))


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
    check.add_argument("--select", type=_codes, action=_MoreCodes, metavar="CODES", help="comma-separated codes or prefixes to enable, instead of the settings' select")
    check.add_argument("--ignore", type=_codes, action=_MoreCodes, metavar="CODES", help="comma-separated codes or prefixes to disable, instead of the settings' ignore")
    check.add_argument("--extend-select", type=_codes, action=_MoreCodes, metavar="CODES", help="codes or prefixes to enable besides the settings' select")
    check.add_argument("--extend-ignore", type=_codes, action=_MoreCodes, metavar="CODES", help="codes or prefixes to disable besides the settings' ignore")
    check.add_argument("--statistics", action="store_true", help="print a count of diagnostics per rule instead of the diagnostics")
    check.add_argument("--exit-zero", action="store_true", help="exit 0 even when errors are found")
    check.add_argument("--strict", action="store_true",
                       help="exit 1 on warnings too (a URL that could not be checked, W706, then fails the gate)")
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
    online = check.add_argument_group("online", "check the cited URLs against the live web (docs/online.md)")
    online.add_argument("--online", action="store_true",
                        help="fetch every URL the artifacts cite and run the online rules (W7xx); off by default")
    from pytest_citations.online.options import add_options

    add_options(online.add_argument, "--online")
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
    ``python -m pytest_citations``), whose ``check`` starts up without the garbage collector.
    An exception no command foresaw is an internal error (``internal_error.py``): exit 2."""
    from pytest_citations.frontends.reporters.ci_log import DefusedStream

    if argv is None and sys.argv[1:2] == ["check"] and gc.isenabled():
        collector.pause()
    # Standard error carries only messages for people, some quoting file names and settings from
    # the checkout: defused in one place (standard output is defused by each output's renderer).
    stderr = sys.stderr = DefusedStream(sys.stderr)
    try:
        return _main(sys.argv[1:] if argv is None else list(argv))
    except BrokenPipeError:  # the reader went away (`citations rules | head -1`)
        return _closed_pipe()
    except Exception as exc:  # a bug: one line on the defused standard error, never a raw traceback
        from pytest_citations.frontends.internal_error import internal_error

        print(f"citations: {internal_error(exc)}", file=sys.stderr)
        return EXIT_USAGE
    finally:
        stderr.drain()
        sys.stderr = stderr.stream
        collector.resume()


def _closed_pipe() -> int:
    """End quietly when standard output was closed by its reader, as a program killed by SIGPIPE
    would (status 141): what is still buffered goes nowhere instead of raising again at exit."""
    import contextlib

    with contextlib.suppress(OSError, ValueError):  # (ValueError: no file behind standard output)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return EXIT_CLOSED_PIPE


def _main(argv: list[str]) -> int:
    from pytest_citations.core import baseline as baseline_module
    from pytest_citations.core.config import ConfigError

    parser = build_parser(only_check=argv[:1] == ["check"])
    args = parser.parse_args(argv)
    try:
        if args.command == "check":
            from pytest_citations.frontends.check_command import run_check

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
    rules = list(registry)
    width = max((len(item.name) for item in rules), default=0)  # the names in one column, however long
    for item in rules:
        marker = "[*]" if item.fixable else "   "
        print(f"{item.code} {marker} {item.name:<{width}} {item.severity.value:<7} {item.summary}")
    return EXIT_CLEAN


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

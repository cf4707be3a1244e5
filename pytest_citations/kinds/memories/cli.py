"""``citations memory verify|verify-all``: the memory CLI of ``memory-citation-schema.md``.

Standard output and exit codes are those of the reference tool (``python -m memory_enhancement``)
byte for byte, so scripts written against it keep working. Where the reference crashed or read
too much, this one differs, and says so on standard error only:

- ``verify-all`` scans the memories folder recursively (``**/*.md``, sorted by path);
- a memory file with a UTF-8 BOM or CRLF line ends is read; a cited file's CRLF ends still match;
- a citation whose fields have the wrong types (``line: "2"``, a path that is not a string) is
  counted stale with the reason ``Invalid citation: ...`` instead of crashing the run;
- a memory file outside the repository root (through ``..`` or a symlink) is never read, and a
  file that cannot be read as UTF-8 text or whose front matter is not valid YAML is a parse error.

Like the reference, ``verify`` and ``verify-all`` write nothing. ``verify-all --fix`` (not in the
reference) first fixes the memories as ``citations check --fix`` does, and records verification
(``verified`` stamps, ``confidence``, ``last_verified``) only with ``--refresh-verified``; the files
it writes are listed on standard error.

Exit status: 0 when every citation is valid (or there is none), 1 when one is stale, 2 for an error
(with ``verify-all``: a memory whose verification raised, named on standard error; the others are
still reported).

The memories and their verdicts come from the engine, as ``citations check`` gets them: the
memories kind reads each file and the engine's rule runner runs the verification rules (M206-M211)
on it, so the two commands reach one verdict on every citation, and a rule or reader that raises
is contained. Verification reads no settings, as the reference reads none (only the fixes of
``--fix`` do): its engine is rooted at ``--repo-root``, with the default settings. This module finds
the files and prints the results.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_citations.core import sources

DEFAULT_MEMORIES_DIR = ".serena/memories"
EXIT_VALID, EXIT_STALE, EXIT_ERROR = 0, 1, 2


def add_parser(commands: argparse._SubParsersAction) -> None:
    """Add the ``memory`` command group (``verify``, ``verify-all``) to the ``citations`` parser."""
    memory = commands.add_parser(
        "memory",
        help="verify the citations of memory files (compatible with `python -m memory_enhancement`)",
        description="Verify that the citations in memory files still match the repository.",
    )
    memory.set_defaults(memory_parser=memory)
    actions = memory.add_subparsers(dest="memory_command", metavar="COMMAND")
    verify = actions.add_parser("verify", help="verify the citations of one memory")
    verify.add_argument(
        "memory_id",
        metavar="MEMORY",
        help="a memory file path inside the repository, a memory id ({id}.md in the memories folder) or a file name there",
    )
    verify_all = actions.add_parser("verify-all", help="verify every memory with citations in the memories folder (recursively)")
    verify_all.add_argument("--fix", action="store_true", help="first move citations whose snippet moved to another line")
    verify_all.add_argument(
        "--refresh-verified",
        action="store_true",
        help="with --fix: also record verified stamps (the current time), confidence and last_verified",
    )
    for command in (verify, verify_all):
        command.add_argument("--json", action="store_true", help="print JSON instead of human-readable text")
        command.add_argument("--repo-root", default=".", metavar="PATH", help="repository root (default: .)")
        command.add_argument(
            "--dir",
            default=DEFAULT_MEMORIES_DIR,
            metavar="PATH",
            help=f"memories folder, relative to the repository root unless absolute (default: {DEFAULT_MEMORIES_DIR})",
        )


def run(args: argparse.Namespace) -> int:
    """Run ``citations memory ...`` from parsed arguments; returns the exit status."""
    if args.memory_command == "verify":
        return cmd_verify(args)
    if args.memory_command == "verify-all":
        return cmd_verify_all(args)
    args.memory_parser.print_help()
    return EXIT_ERROR


# -- results ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class StaleCitation:
    path: Any
    line: Any
    snippet: Any
    mismatch_reason: str


@dataclass(frozen=True)
class VerificationResult:
    memory_id: str
    valid: bool
    total_citations: int
    valid_count: int
    confidence: float
    stale_citations: tuple[StaleCitation, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "memory_id": self.memory_id,
            "valid": self.valid,
            "total_citations": self.total_citations,
            "valid_count": self.valid_count,
            "confidence": round(self.confidence, 2),
            "stale_citations": [
                {
                    "path": stale.path,
                    "line": stale.line,
                    "snippet": stale.snippet,
                    "mismatch_reason": stale.mismatch_reason,
                }
                for stale in self.stale_citations
            ],
        }


def _plain(value: Any) -> Any:
    """A front-matter value as JSON can hold it (nodes unwrapped, timestamps as written)."""
    from pytest_citations.core.frontmatter import Node, Timestamp

    if isinstance(value, Node):
        return _plain(value.value)
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    if isinstance(value, Timestamp):
        return value.text
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)  # keep the JSON output strict
    return value


def _a(value: Any) -> str:
    """The YAML type of a value, with its article: ``a string``, ``an integer``."""
    from pytest_citations.core.frontmatter import Timestamp

    if value is None:
        return "null"
    for kind, name in (
        (bool, "a boolean"),
        (int, "an integer"),
        (float, "a number"),
        (str, "a string"),
        (list, "a list"),
        (dict, "a mapping"),
        (Timestamp, "a date"),
    ):
        if isinstance(value, kind):
            return name
    return f"a {type(value).__name__}"


def invalid_reason(citation) -> str:
    """Why a citation that is not ``checkable`` cannot be verified, naming the field and its type."""
    fields = citation.node.value if citation.node is not None else {}
    if not isinstance(fields, dict):
        return f"Invalid citation: a citation must be a mapping, not {_a(_plain(fields))}"
    if "path" not in fields:
        return "Invalid citation: path is missing"
    if not isinstance(citation.path, str):
        return f"Invalid citation: path must be a string, not {_a(citation.path)}"
    if not citation.path:
        return "Invalid citation: path is empty"
    line = citation.line
    if line is not None and (not isinstance(line, int) or isinstance(line, bool)):
        return f"Invalid citation: line must be an integer, not {_a(line)}"
    if citation.snippet is not None and not isinstance(citation.snippet, str):
        return f"Invalid citation: snippet must be a string, not {_a(citation.snippet)}"
    return "Invalid citation: a field has the wrong type"


def result_of(memory, verdicts) -> VerificationResult:
    """The spec's result for a memory from the verdict on each of its citations (None for a
    citation whose fields have the wrong types: stale, with the reason naming the field)."""
    from pytest_citations.kinds.memories.memory import DEFAULT_CONFIDENCE

    stale = []
    valid_count = 0
    for citation, verdict in zip(memory.citations, verdicts, strict=True):
        if verdict is not None and verdict.valid:
            valid_count += 1
            continue
        reason = invalid_reason(citation) if verdict is None else verdict.reason or ""
        stale.append(StaleCitation(_plain(citation.path), _plain(citation.line), _plain(citation.snippet), reason))
    total = len(memory.citations)
    if total:
        confidence = valid_count / total
    else:
        own = memory.confidence
        number = isinstance(own, (int, float)) and not isinstance(own, bool)
        confidence = float(own) if number else DEFAULT_CONFIDENCE
    return VerificationResult(memory.id, not stale, total, valid_count, confidence, tuple(stale))


# -- output -------------------------------------------------------------------------------------------


def _shown(value: Any) -> str:
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    return json.dumps(value, ensure_ascii=False)


def _say(text: str = "") -> None:
    """Print a line of the human-readable output on standard output: memory ids, paths and reasons
    come from the checkout, so what a CI runner would take for a command is defused and a lone
    surrogate escaped (``frontends/reporters/ci_log.py``); any other text is printed as the reference prints it."""
    from pytest_citations.frontends.reporters.ci_log import defuse_text

    print(defuse_text(text))


def _say_json(value: Any, indent: int | None = None) -> None:
    """Print ``value`` as the reference's JSON, command marks written as ``\\u`` escapes (the same
    JSON once parsed)."""
    from pytest_citations.frontends.reporters.ci_log import defuse_json

    print(defuse_json(json.dumps(value, indent=indent)))


def print_result(result: VerificationResult) -> None:
    """The human-readable form of one result."""
    _say(f"{'[PASS]' if result.valid else '[FAIL]'} {result.memory_id}: {'VALID' if result.valid else 'STALE'}")
    _say(f"  Citations: {result.valid_count}/{result.total_citations} valid")
    _say(f"  Confidence: {result.confidence:.2f}")
    for stale in result.stale_citations:
        location = _shown(stale.path)
        if stale.line is not None:
            location += f":{_shown(stale.line)}"
        _say(f"  [STALE] {location}")
        _say(f"    Reason: {stale.mismatch_reason}")


def print_results(results: list[VerificationResult]) -> None:
    """The human-readable form of ``verify-all``'s results, with the summary."""
    for result in results:
        print_result(result)
        _say()
    stale = sum(1 for result in results if not result.valid)
    _say(f"Summary: {len(results) - stale}/{len(results)} memories valid")
    if stale:
        _say(f"  {stale} memory/memories have stale citations")


def _error(message: str) -> int:
    print(f"Error: {message}", file=sys.stderr)
    return EXIT_ERROR


# -- finding and reading memories ---------------------------------------------------------------------


class ParseError(Exception):
    """A memory file that cannot be read or whose front matter is not valid YAML."""


class InternalError(Exception):
    """A memory whose verification raised (a bug): it is not verified. The message is the internal
    error (C006) the rule runner reported."""


def _folders(args: argparse.Namespace) -> tuple[Path, Path] | int:
    """(repository root, memories folder), both resolved, or the exit status of an error."""
    try:
        root = Path(args.repo_root).resolve(strict=True)
    except (OSError, RuntimeError) as error:
        return _error(f"Repository root not found: {error}")
    if not root.is_dir():
        return _error(f"Repository root not found: {args.repo_root} is not a folder")
    given = Path(args.dir)
    try:
        memories = (root / given).resolve() if not given.is_absolute() else given.resolve(strict=True)
    except (OSError, RuntimeError) as error:
        return _error(f"Memories directory not found: {error}")
    if not memories.is_relative_to(root):
        return _error(f"Memories directory is outside the repository: {args.dir}")
    return root, memories


def _exists(path: Path) -> bool:
    """``path.exists()``, False where the OS refuses the name (too long, NUL byte, symlink loop)."""
    try:
        return path.exists()
    except (OSError, ValueError, RuntimeError):
        return False


def _file_inside(path: Path, root: Path) -> bool:
    """Whether ``path`` is a file that resolves inside ``root`` (nothing is opened)."""
    if not _exists(path):
        return False
    try:
        return sources.resolve_inside(root, path.absolute()).is_file()
    except (sources.SourceError, OSError, ValueError, RuntimeError):
        return False


def find_memory(memory_id: str, memories: Path, root: Path) -> Path | None:
    """The file ``verify`` means: a literal path (from the current folder, as the reference takes
    it), then ``{id}.md``, then ``{id}`` in the memories folder. Candidates outside the root and
    folders are skipped, so ``verify scripts`` finds ``scripts.md`` even beside a ``scripts/``."""
    for candidate in (Path(memory_id), memories / f"{memory_id}.md", memories / memory_id):
        if _file_inside(candidate, root):
            return candidate
    return None


VERIFICATION_RULES = ("M206", "M207", "M208", "M209", "M210", "M211")  # the rules that verify citations


def load_engine(root: Path):
    """The engine that verifies the memories of ``root``, with the default settings: the command
    reads no settings, as the reference reads none, and its root is ``--repo-root`` (the engine of
    ``Engine.load`` takes the root of the settings or ``.git`` above it, or the current folder)."""
    from pytest_citations.core.config import parse_config
    from pytest_citations.engine import Engine, load_plugins

    kinds, registry = load_plugins()
    return Engine(parse_config({}, root, kinds, registry), kinds, registry)


def checked_memory(engine, path: Path):
    """The memory in the file ``path`` (inside the engine's root) as the memories kind reads it, and
    the verdict on each of its citations (None where its fields have the wrong types) that the
    verification rules reached when the engine's rule runner ran them on it, as ``citations check``
    runs them. :class:`ParseError` when the file cannot be read or its front matter is not valid
    YAML (or its reader raised); :class:`InternalError` when a verification rule raised."""
    from pytest_citations.contexts import FileContext, RuleContext
    from pytest_citations.core.suppressions import INTERNAL_ERROR
    from pytest_citations.kinds.memories.memory import Memory
    from pytest_citations.kinds.memories.model import KIND
    from pytest_citations.kinds.memories.verification import verdicts

    source = _memory_source(engine, path)
    # (read by the path it resolves to: its stem is the id of a memory that names none)
    ctx = FileContext(engine, source.rel, KIND, source)
    rules = [item for item in engine.runner.registry.for_kind(KIND.name, "record") if item.code in VERIFICATION_RULES]
    memory, crash = None, None
    for unit, diagnostic in engine.runner.checked_units(ctx, rules):
        if isinstance(unit, Memory):
            memory = unit
        if diagnostic is not None and diagnostic.code == INTERNAL_ERROR and crash is None:
            crash = diagnostic.message
    if memory is None:  # the kind's reader raised
        raise ParseError(_reader_error(crash or ""))
    _refuse_unparsed(memory)
    if crash is not None:
        raise InternalError(crash)
    return memory, verdicts(memory, RuleContext(ctx, {}))  # the verdicts the rules reached, kept on the memory


def _memory_source(engine, path: Path) -> sources.Source:
    """The text of the memory file ``path``; :class:`ParseError` when it cannot be read."""
    try:
        return sources.read_source(engine.config.root, path.absolute(), engine.config.max_file_size)
    except sources.SourceError as error:
        raise ParseError(error.message) from None
    except (OSError, ValueError, RuntimeError) as error:
        raise ParseError(str(error)) from None


def _reader_error(crash: str) -> str:
    """What the memories kind's reader raised (``ValueError: ...``, on one line), from the internal
    error the rule runner reported of the kind."""
    from pytest_citations.kinds.memories.model import KIND

    return " ".join(crash.removeprefix(f"internal error in kind {KIND.name}: ").split())


def _refuse_unparsed(memory) -> None:
    """:class:`ParseError` for a memory whose front matter is not valid YAML, or whose
    ``citations`` is not a list."""
    front_matter = memory.front_matter
    for problem in front_matter.problems if front_matter else ():
        if problem.kind == "syntax":
            raise ParseError(f"{problem.message} (line {problem.line}, column {problem.col})")
    citations = memory.field("citations")
    if citations is not None and citations.value is not None and not isinstance(citations.value, list):
        raise ParseError(f"citations must be a list, not {_a(_plain(citations.value))} (line {citations.line})")


# -- the commands -------------------------------------------------------------------------------------


def cmd_verify(args: argparse.Namespace) -> int:
    """``verify MEMORY``: one memory's citations."""
    folders = _folders(args)
    if isinstance(folders, int):
        return folders
    root, memories = folders
    path = find_memory(args.memory_id, memories, root)
    if path is None:
        return _error(f"Memory not found: {args.memory_id}. Searched: {args.memory_id}, {memories / f'{args.memory_id}.md'}")
    try:
        memory, verdicts = checked_memory(load_engine(root), path)
    except ParseError as error:
        return _error(f"Cannot parse {path}: {error}")
    except InternalError as error:
        return _error(f"Cannot verify {path}: {error}")
    if not memory.citations:
        if args.json:
            _say_json({"memory_id": memory.id, "valid": True, "total_citations": 0})
        else:
            _say(f"[PASS] {memory.id}: No citations to verify")
        return EXIT_VALID
    result = result_of(memory, verdicts)
    if args.json:
        _say_json(result.to_dict(), indent=2)
    else:
        print_result(result)
    return EXIT_VALID if result.valid else EXIT_STALE


def verify_all(memories: Path, root: Path) -> tuple[list[VerificationResult], int]:
    """The results of every memory with citations under ``memories``, in path order, and how many
    memories were not verified because their verification raised; those, and the files that cannot
    be parsed, are skipped with a warning on standard error."""
    engine = load_engine(root)
    results = []
    failed = 0
    for path in sorted(memories.glob("**/*.md")):
        try:
            memory, verdicts = checked_memory(engine, path)
        except ParseError as error:
            print(f"Warning: Failed to parse {path}: {error}", file=sys.stderr)
            continue
        except InternalError as error:
            print(f"Warning: Failed to verify {path}: {error}", file=sys.stderr)
            failed += 1
            continue
        if memory.citations:
            results.append(result_of(memory, verdicts))
    return results, failed


def fix_all(memories: Path, root: Path, refresh: bool) -> int | None:
    """``--fix`` on every memory under ``memories``, as ``citations check --fix`` fixes them (with
    ``refresh``, as ``--refresh-verified`` too), the files written listed on standard error; an
    exit status when the settings cannot be read."""
    from pytest_citations.core.config import ConfigError
    from pytest_citations.engine import Engine
    from pytest_citations.kinds.memories.model import KIND
    from pytest_citations.run.fix import FileChangedError, fix_file, summary

    try:
        engine = Engine.load(root)
    except ConfigError as error:
        return _error(str(error))
    written = {}
    for path in sorted(memories.glob("**/*.md")):
        rel = engine.relative(path)
        if rel is None:
            continue
        try:
            result = fix_file(engine, rel, (KIND,), refresh)
        except FileChangedError as error:
            print(f"Warning: {error}", file=sys.stderr)
            continue
        if result.written:
            written[rel] = result
    sys.stderr.write(summary(written, refresh))
    return None


def cmd_verify_all(args: argparse.Namespace) -> int:
    """``verify-all``: every memory with citations in the memories folder."""
    if args.refresh_verified and not args.fix:
        return _error("--refresh-verified records verification while fixing: add --fix")
    folders = _folders(args)
    if isinstance(folders, int):
        return folders
    root, memories = folders
    if not _exists(memories):
        return _error(f"Memories directory not found: {memories}")
    if args.fix:
        failed = fix_all(memories, root, args.refresh_verified)
        if failed is not None:
            return failed
    results, failed = verify_all(memories, root)
    if args.json:
        _say_json([result.to_dict() for result in results], indent=2)
    elif not results:
        _say("No memories with citations found.")
    else:
        print_results(results)
    if failed:
        return EXIT_ERROR
    return EXIT_STALE if any(not result.valid for result in results) else EXIT_VALID


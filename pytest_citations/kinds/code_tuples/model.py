"""code tuples: ``{artifact_id, content_hash, lines}`` citations of repository files
(rlm-citation-tuple.schema.json), in JSON, JSONL and inline in Markdown.

- JSON: the whole document is read once; every object that has an ``artifact_id`` key, and every
  object under one of the ``tuple-keys`` (default ``citations``), at any depth, is a tuple.
- JSONL: one JSON document per line, searched the same way; a bad line is R401 and the rest is read.
- Markdown: the inline form ``[artifact_id@content_hash, L42-58]``, ``[artifact_id@content_hash]``
  and ``[artifact_id, L88]``. The schema's ``x-inline-form`` regex is not used (it puts ``, L88``
  into the path of a path-only citation, matches ``[1]`` and ``[Paywall]`` and rejects uppercase
  hashes); the intended grammar is parsed instead, and bracket text is a tuple only when it has a
  tuple's shape: an artifact id that looks like a path, then an ``@`` and a hash (hex digits), or a
  line part that starts with ``L`` and a digit. Any other bracket is prose: ``[N/A]``,
  ``[docs/guide.md]``, ``[actions/checkout@v4]``, ``CI [0.0pp, 0.0pp]``. Fenced code, code spans,
  HTML comments and YAML front matter are skipped.

Each tuple is one :class:`Tuple` unit. Its verdict (FRESH, STALE, UN-VERSIONED, MISSING, or a path
outside the root) is computed once, from the cited file's raw bytes read through ``sources``.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any, cast

from pytest_citations.core import git_history, jsonlines, markdown_text, sources
from pytest_citations.core.suppressions import markdown_directives
from pytest_citations.kinds import Reported
from pytest_citations.rules import Finding, Option
from pytest_citations.run import dependencies

if TYPE_CHECKING:
    from pytest_citations.contexts import RuleContext
    from pytest_citations.core.patterns import AlwaysMatches

FRESH, STALE, UNVERSIONED, MISSING = "FRESH", "STALE", "UN-VERSIONED", "MISSING"
OUTSIDE, UNREADABLE = "OUTSIDE", "UNREADABLE"
HASH = re.compile(r"[0-9a-f]{16}\Z")
ANY_CASE_HASH = re.compile(r"[0-9a-fA-F]{16}\Z")
LINES = re.compile(r"L([0-9]+)(?:-([0-9]+))?\Z")
_MAX_LINE_DIGITS = 18  # a longer line number is past the end of any file (and int() of thousands refuses)
MARKDOWN_SUFFIXES = (".md", ".markdown", ".mdown", ".mkd")
GIT_HISTORY = ("root", "enclosing", "off")

# -- the inline grammar -------------------------------------------------------------------------

# A bracket that is not escaped (a backslash before it that is itself escaped does not count), not
# the second half of a reference link, not link text; of any length (padding must not hide a
# tuple), over one line end at most (a paragraph wrapped inside a tuple), found in linear time
# since its body holds no bracket.
_BRACKET = re.compile(r"(?:(?<![\\\]])|(?<=(?<!\\)\\\\))\[(?P<body>[^\[\]\n]+(?:\n[^\[\]\n]+)?)\](?![(\[])")
_ENDS_ID = r"\s@,\[\]"  # characters that end an artifact id in a bracket (a class's inside)
_NOT_IN_ID_CLASS = r"\s()<>\"'`|*?{}\\"  # characters no artifact id holds (see looks_like_path)
_BODY = re.compile(  # matched against a body without its trailing blanks
    rf"(?P<id>[^{_ENDS_ID}]+)"
    r"(?:@(?P<hash>[^\s,\[\]]*))?"
    r"(?:[ \t]*,\s*(?P<lines>[^\[\]]*))?\Z"
)
_NOT_IN_ID = re.compile(f"[{_NOT_IN_ID_CLASS}]")
_EXTENSION = re.compile(r"[^.]\.[A-Za-z0-9]{0,9}[A-Za-z][A-Za-z0-9]{0,9}\Z|\A\.[A-Za-z0-9_-]*[A-Za-z][A-Za-z0-9_-]*\Z")
# What makes bracket text a tuple besides a path-like id: a hash (16 hex digits give or take two,
# or 16 letters and digits: a hash with a typo), or a line part (L42, lines 3-5, l42, L3-L5). A git
# commit (7 to 12 hex digits abbreviated, 40 or 64 in full) is not a tuple's hash:
# [pallets/flask@1a2b3c4] is a commit of a repository, as GitHub writes it.
_HASH_SHAPE = re.compile(r"[0-9A-Fa-f]{14,18}\Z|[0-9A-Za-z]{16}\Z")
_LINES_SHAPE = re.compile(r"[Ll](?:ines?)?\.?[ \t]*[0-9]")
_WINDOWS_DRIVE = re.compile(r"[A-Za-z]:[/\\]")


def looks_like_path(artifact_id: str) -> bool:
    """Whether bracket text names a project file: no spaces or markup, a letter, and a ``/`` or a
    file extension (so ``[1]``, ``[Paywall]``, ``[e.g.]`` and ``[x]`` are not citations)."""
    if not artifact_id or artifact_id.startswith(("^", "#", "!")) or "://" in artifact_id:
        return False
    if _NOT_IN_ID.search(artifact_id) or not re.search(r"[A-Za-z_]", artifact_id):
        return False
    if "/" in artifact_id.strip("/") or artifact_id.startswith("/"):
        return True
    return _EXTENSION.search(artifact_id) is not None


@dataclass(frozen=True)
class InlineMatch:
    """One inline tuple in a text: offsets of the whole bracket and of each part."""

    start: int
    end: int
    artifact_id: str
    id_start: int
    hash: str | None
    hash_start: int
    lines: str | None
    lines_start: int


def parse_inline(body: str, offset: int = 0) -> InlineMatch | None:
    """The tuple in bracket text ``body`` (without the brackets), or None if it is not one.

    ``offset`` is where ``body`` starts in its text. Bracket text is a tuple when it has a tuple's
    shape (a path-like id, then a hash or a line part: :data:`_HASH_SHAPE`, :data:`_LINES_SHAPE`);
    its other part may then be malformed, for the rules to report.
    """
    match = _BODY.match(body.rstrip(" \t"))
    if match is None or not looks_like_path(match.group("id")):
        return None
    hash_text, lines = match.group("hash"), match.group("lines")
    if not ((hash_text is not None and _HASH_SHAPE.match(hash_text)) or (lines is not None and _LINES_SHAPE.match(lines))):
        return None
    return InlineMatch(
        offset - 1,
        offset + len(body) + 1,
        match.group("id"),
        offset + match.start("id"),
        hash_text,
        offset + match.start("hash") if hash_text is not None else -1,
        lines,
        offset + match.start("lines") if lines is not None else -1,
    )


# What every inline tuple leaves in the raw text: its ``[`` and artifact id, whose characters are
# neither space nor markup (see _BODY and looks_like_path) and which holds a "/" or a "." (a path
# or a file extension). Blanking non-prose keeps offsets and turns characters into spaces only, so
# text without this has no tuple, and is not blanked or scanned (most Markdown and JSON files).
_MAY_HOLD_INLINE = re.compile(rf"\[[^{_ENDS_ID}{_NOT_IN_ID_CLASS}]*[./]")


_BLANKS = cast("AlwaysMatches", re.compile(r"[^\S\n]*"))


def find_inline(text: str) -> Iterator[InlineMatch]:
    """Every inline tuple in Markdown ``text``, in order."""
    if _MAY_HOLD_INLINE.search(text) is None:
        return iter(())
    return _scan_inline(text)


def _scan_inline(text: str) -> Iterator[InlineMatch]:
    prose = markdown_text.prose(text)
    # where the blanks that start the bracket's line end, found once per line: a line may hold
    # thousands of brackets, and looking back to its start for each would take quadratic time
    scanned, blank_to = 0, _BLANKS.match(prose).end()
    for bracket in _BRACKET.finditer(prose):
        newline = prose.rfind("\n", scanned, bracket.start())
        scanned = bracket.start()
        if newline != -1:
            blank_to = _BLANKS.match(prose, newline + 1).end()
        if prose[bracket.end() : bracket.end() + 1] == ":" and blank_to >= bracket.start():
            continue  # a link reference definition
        found = parse_inline(bracket.group("body"), bracket.start("body"))
        if found is not None:
            yield found


# -- JSON with positions ------------------------------------------------------------------------

# The C scanner behind json.JSONDecoder.raw_decode, called directly: scan_json calls it for every
# key and scalar of a document, and the text is known to be valid JSON.
_SCAN_ONCE = json.JSONDecoder().scan_once  # type: ignore[attr-defined]  # (set by __init__; not in the stubs)
_SPACE = " \t\r\n"
_SPACES = cast("AlwaysMatches", re.compile(r"[ \t\r\n]*"))


@dataclass
class Node:
    """A JSON value with its character span; objects map keys to (key start, value node)."""

    value: Any
    start: int
    end: int


def _skip(text: str, index: int) -> int:
    """``index``, or past the JSON whitespace there; called where there is some (the check is
    made inline: compact JSON has none between most tokens)."""
    return _SPACES.match(text, index).end()


def scan_json(text: str, index: int = 0) -> Node:
    """A position tree of the JSON value at ``index`` (the text is known to be valid JSON)."""
    if text[index] in _SPACE:
        index = _skip(text, index)
    char = text[index]
    if char == "{":
        members: dict[str, tuple[int, Node]] = {}
        position = index + 1
        if text[position] in _SPACE:
            position = _skip(text, position)
        if text[position] == "}":
            return Node(members, index, position + 1)
        while True:
            key_start = position
            key, position = _SCAN_ONCE(text, position)
            if text[position] in _SPACE:
                position = _skip(text, position)
            value = scan_json(text, position + 1)  # past the colon
            members[key] = (key_start, value)
            position = value.end
            if text[position] in _SPACE:
                position = _skip(text, position)
            if text[position] == ",":
                position += 1
                if text[position] in _SPACE:
                    position = _skip(text, position)
                continue
            return Node(members, index, position + 1)
    if char == "[":
        items: list[Node] = []
        position = index + 1
        if text[position] in _SPACE:
            position = _skip(text, position)
        if text[position] == "]":
            return Node(items, index, position + 1)
        while True:
            value = scan_json(text, position)
            items.append(value)
            position = value.end
            if text[position] in _SPACE:
                position = _skip(text, position)
            if text[position] == ",":
                position += 1
                continue
            return Node(items, index, position + 1)
    value, end = _SCAN_ONCE(text, index)
    return Node(value, index, end)


def plain(node: Node) -> Any:
    """The Python value of a node."""
    if isinstance(node.value, dict):
        return {key: plain(value) for key, (_, value) in node.value.items()}
    if isinstance(node.value, list):
        return [plain(item) for item in node.value]
    return node.value


def _json_path(parts: list[str | int]) -> str:
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else part)
    return text or "(document)"


_TUPLE_FIELDS = frozenset({"artifact_id", "content_hash", "lines"})
# Top-level keys of documents that describe data rather than hold it: a JSON Schema, an OpenAPI or
# Swagger description (whose examples may be tuples).
_DESCRIPTIONS = ("$schema", "openapi", "swagger")


def has_tuple_shape(members: dict[str, tuple[int, Node]]) -> bool:
    """Whether a JSON object outside a tuple key is a code tuple: a string ``artifact_id`` with a
    ``content_hash`` or ``lines`` beside it, or alone with a path-like id. Other tools use the key
    ``artifact_id`` for their own records (model registries, SBOMs, package metadata:
    ``{"name": "resnet", "artifact_id": "model-v3"}``), which are not citations."""
    artifact_id = members.get("artifact_id")
    if artifact_id is None or not isinstance(artifact_id[1].value, str):
        return False
    if "content_hash" in members or "lines" in members:
        return True
    return members.keys() <= _TUPLE_FIELDS and looks_like_path(artifact_id[1].value)


def find_json_tuples(root: Node, tuple_keys: tuple[str, ...]) -> Iterator[tuple[str, Node]]:
    """(JSON path, node) of every tuple: objects of a tuple's shape (:func:`has_tuple_shape`), and
    every element under a tuple key (an element that is not an object is still yielded, for the
    schema rule). A JSON Schema or OpenAPI document describes tuples and holds none."""
    if isinstance(root.value, dict) and any(key in root.value for key in _DESCRIPTIONS):
        return
    stack: list[tuple[Node, list[str | int], bool]] = [(root, [], False)]
    found = []
    while stack:
        node, path, under_key = stack.pop()
        value = node.value
        if isinstance(value, dict):
            if under_key or has_tuple_shape(value):
                found.append((path, node))  # (a JSON Schema's "properties": {"artifact_id": {...}} is not one)
                continue
            for key, (_, child) in value.items():
                if key in tuple_keys:
                    if isinstance(child.value, list):
                        for number, item in enumerate(child.value):
                            stack.append((item, [*path, key, number], True))
                    else:
                        stack.append((child, [*path, key], True))
                else:
                    stack.append((child, [*path, key], False))
        elif isinstance(value, list):
            for number, item in enumerate(value):
                stack.append((item, [*path, number], under_key))
        elif under_key:
            found.append((path, node))
    found.sort(key=lambda item: item[1].start)
    for path, node in found:
        yield _json_path(path), node


# -- the unit ---------------------------------------------------------------------------------------


@dataclass
class Part:
    """One field of a tuple as written: its value and where it is."""

    value: Any
    start: int  # character offset into the file text of the value (a JSON string's opening quote)
    end: int
    line: int
    col: int


@dataclass
class Tuple:
    """One code tuple: the JSON object or inline bracket, and its fields with positions."""

    form: str  # "json" or "inline"
    where: str  # the JSON path, or "inline"
    line: int
    col: int
    context: str
    data: Any  # the decoded object (JSON) or None (inline)
    artifact_id: Part | None
    content_hash: Part | None
    lines: Part | None
    memo: dict[Any, Any] = field(default_factory=dict, repr=False)

    def finding(self, message: str, part: Part | None = None, fix=None) -> Finding:
        line, col = (part.line, part.col) if part is not None else (self.line, self.col)
        return Finding(message, line, col, fix=fix, context=self.context)

    @property
    def label(self) -> str:
        """How messages name the tuple: ``citations[1]`` in JSON, the bracket text inline."""
        return self.where

    @property
    def checkable(self) -> bool:
        """Whether the artifact id is a non-empty string, so the file can be looked at."""
        return self.artifact_id is not None and isinstance(self.artifact_id.value, str) and bool(self.artifact_id.value)

    def line_range(self) -> tuple[int, int] | None:
        """(start, end) of a well-formed ``lines``, or None; a number of more than
        :data:`_MAX_LINE_DIGITS` digits is read as the largest such number."""
        if self.lines is None or not isinstance(self.lines.value, str):
            return None
        match = LINES.match(self.lines.value)
        if match is None:
            return None
        start = _line_number(match.group(1))
        return start, _line_number(match.group(2)) if match.group(2) else start

    def hash_value(self) -> str | None:
        """The content hash, lowercased, when it is 16 hex digits in any case."""
        if self.content_hash is None or not isinstance(self.content_hash.value, str):
            return None
        value = self.content_hash.value
        return value.lower() if ANY_CASE_HASH.match(value) else None


def _line_number(digits: str) -> int:
    digits = digits.lstrip("0") or "0"
    return int(digits) if len(digits) <= _MAX_LINE_DIGITS else 10**_MAX_LINE_DIGITS


# -- verdicts ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Cited:
    """A cited file as read once per run: its repo-relative path and bytes, or why not."""

    status: str  # FRESH-able ("FILE"), MISSING, OUTSIDE, UNREADABLE
    rel: str = ""
    data: bytes = b""
    reason: str = ""

    @functools.cached_property
    def hash(self) -> str:
        """Computed once: every tuple that cites the file compares its hash with it."""
        return git_history.content_hash(self.data)

    @functools.cached_property
    def lines(self) -> list[bytes]:
        """The file's lines, split once (one list shared by every caller: not to be changed)."""
        return split_lines(self.data)


def split_lines(data: bytes) -> list[bytes]:
    """Lines split on ``\\n``, a trailing ``\\r`` dropped; a final line end starts no new line."""
    if not data:
        return []
    lines = data.split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    return [line[:-1] if line.endswith(b"\r") else line for line in lines]


def is_absolute(artifact_id: str) -> bool:
    return artifact_id.startswith(("/", "\\")) or _WINDOWS_DRIVE.match(artifact_id) is not None or Path(
        artifact_id
    ).is_absolute()


def read_cited(engine, artifact_id: str) -> Cited:
    """The cited file, confined to the root and read once per run (its target is never opened
    when it lies outside the root)."""
    root, max_size = engine.config.root, engine.config.max_file_size
    return engine.memo(("code-tuples.file", artifact_id), lambda: _read(root, artifact_id, max_size))


def _read(root: Path, artifact_id: str, max_size: int) -> Cited:
    if is_absolute(artifact_id):
        return Cited(OUTSIDE, reason=f"{artifact_id} is an absolute path, not a project-relative one")
    if "\0" in artifact_id:
        return Cited(MISSING, reason=f"{artifact_id!r} names no file")
    try:
        resolved = sources.resolve_inside(root, artifact_id)
    except sources.SourceError as error:
        if error.code == "C008":
            how = "escapes the repository root through .." if ".." in PurePosixPath(artifact_id).parts else (
                "resolves outside the repository root (through a symlink)"
            )
            return Cited(OUTSIDE, reason=f"{artifact_id} {how}")
        return Cited(MISSING, reason=f"{artifact_id} cannot be resolved" + (": a symlink loop" if error.symlink_loop else ""))
    rel = resolved.relative_to(root.resolve()).as_posix()
    try:
        exists = resolved.exists()
    except OSError:
        exists = False
    if not exists:
        return Cited(MISSING, rel, reason=f"{artifact_id} does not exist")
    try:
        data = sources.read_bytes(root, rel, max_size)
    except sources.SourceError as error:
        return Cited(UNREADABLE, rel, reason=error.message)
    return Cited("FILE", rel, data)


def history_for(engine, rel: str, options: dict) -> git_history.History:
    """The git history of a cited file, looked up once per run (a cached result that used it
    depends on the commit checked out)."""
    mode = options["git-history"]
    if mode == "off":
        return git_history.History(None, "git history lookup is off (git-history = \"off\")")
    head_commit(engine)
    return engine.memo(
        ("code-tuples.history", rel, mode, options["git-max-commits"], options["git-timeout"]),
        lambda: git_history.file_history(
            engine.config.root,
            rel,
            max_commits=options["git-max-commits"],
            timeout=options["git-timeout"],
            enclosing=mode == "enclosing",
        ),
    )


@dependencies.run_index("git.head", kind="code-tuples", checked_by_value=True)  # one `git rev-parse`
def head_commit(engine) -> str | None:
    """The commit checked out at the root (None outside a git work tree)."""
    return git_history.head_commit(engine.config.root)


def verdict(item: Tuple, ctx: RuleContext) -> tuple[str, Cited] | None:
    """(verdict, cited file) for a checkable tuple; None when its artifact id is not usable."""
    if not item.checkable:
        return None
    if "verdict" not in item.memo:
        cited = read_cited(ctx.file.engine, cast(Part, item.artifact_id).value)  # (checkable: it has one)
        result: str | None
        if cited.status != "FILE":
            result = cited.status
        elif item.content_hash is None:
            result = UNVERSIONED
        else:
            wanted = item.hash_value()
            result = None if wanted is None else (FRESH if wanted == cited.hash else STALE)
        item.memo["verdict"] = (result, cited)
    result, cited = item.memo["verdict"]
    return (result, cited) if result is not None else None


# -- the kind ---------------------------------------------------------------------------------------

# A JSON head that holds a tuple: an artifact id that looks like a path, or one with a hash, a line
# range or a citations list (the default tuple key) somewhere beside it; "artifact_id": "model-v3"
# alone is another tool's key.
_JSON_SNIFF = re.compile(r'"artifact_id"\s*:\s*"(?P<id>[^"\\]{0,300})"')
_JSON_SNIFF_BESIDE = re.compile(r'"(?:content_hash|lines|citations)"\s*:')


class CodeTuples:
    name = "code-tuples"
    description = "code citation tuples {artifact_id, content_hash, lines} in JSON, JSONL and Markdown"
    include: tuple[str, ...] = ()
    sniff_include = ("**/*.json", "**/*.jsonl", "**/*.md", "**/*.markdown")
    options = {
        "tuple-keys": Option(list, ["citations"], "keys whose values are tuples (or lists of tuples)", items=str),
        "require-content-hash": Option(
            bool, False, "report a tuple without content_hash as an error (R410) instead of a warning (R409)"
        ),
        "git-history": Option(
            str, "root", "where STALE looks up history: root (the root is the checkout's top), enclosing (or a folder "
            "below it; the checkout's own history either way), off",
            choices=GIT_HISTORY,
        ),
        "git-max-commits": Option(int, git_history.DEFAULT_MAX_COMMITS, "commits searched per cited file"),
        "git-timeout": Option((int, float), git_history.DEFAULT_TIMEOUT, "seconds allowed per cited file's search"),
    }

    def sniff(self, head: str) -> bool:
        # JSON and Markdown share the sniff: the engine gives it the head only, not the name
        if head.lstrip("\ufeff \t\r\n")[:1] in ("{", "["):
            ids = [found.group("id") for found in _JSON_SNIFF.finditer(head)]
            if ids and (_JSON_SNIFF_BESIDE.search(head) or any(looks_like_path(value) for value in ids)):
                return True
        return any(True for _ in find_inline(head))

    def units(self, ctx) -> Iterator[Tuple | Reported]:
        rel = ctx.rel.lower()
        if rel.endswith(MARKDOWN_SUFFIXES):
            yield from self._markdown(ctx)
        elif rel.endswith(".jsonl"):
            yield from self._jsonl(ctx)
        else:
            yield from self._json(ctx)

    # -- Markdown

    def _markdown(self, ctx) -> Iterator[Tuple]:
        text = ctx.full_text()
        ctx.directives = markdown_directives(text)
        source = ctx.source
        line_text = functools.lru_cache(maxsize=1)(source.line_text)  # each line copied once, not once per tuple
        for found in find_inline(text):
            line, col = source.line_col(found.start)
            context = line_text(line)

            def part(value, start, length, line=line):
                part_line, part_col = source.line_col(start)
                return Part(value, start, start + length, part_line, part_col)

            yield Tuple(
                "inline",
                text[found.start : found.end],
                line,
                col,
                context,
                None,
                part(found.artifact_id, found.id_start, len(found.artifact_id)),
                part(found.hash, found.hash_start, len(found.hash)) if found.hash is not None else None,
                part(found.lines, found.lines_start, len(found.lines)) if found.lines is not None else None,
            )

    # -- JSON and JSONL

    def _tuples(self, text: str, base: int, line_col, context, ctx) -> Iterator[Tuple]:
        tuple_keys = tuple(ctx.kind_options["tuple-keys"])
        for where, node in find_json_tuples(scan_json(text), tuple_keys):
            line, col = line_col(base + node.start)
            parts: dict[str, Part] = {}
            if isinstance(node.value, dict):
                for key in ("artifact_id", "content_hash", "lines"):
                    if key in node.value:
                        value = node.value[key][1]
                        part_line, part_col = line_col(base + value.start)
                        parts[key] = Part(value.value, base + value.start, base + value.end, part_line, part_col)
            yield Tuple(
                "json", where, line, col, context(line), plain(node),
                parts.get("artifact_id"), parts.get("content_hash"), parts.get("lines"),
            )

    def _json(self, ctx) -> Iterator[Tuple | Reported]:
        loaded = jsonlines.document(ctx, "R401")
        if isinstance(loaded, Reported):
            yield loaded
            return
        source = ctx.source
        yield from self._tuples(source.text, 0, source.line_col, functools.lru_cache(maxsize=1)(source.line_text), ctx)

    def _jsonl(self, ctx) -> Iterator[Tuple | Reported]:
        for item in jsonlines.records(ctx, "R401"):
            if isinstance(item, Reported):
                yield item
                continue
            text, number, offset = item.line.text, item.line.number, item.line.offset
            yield from self._tuples(
                text, offset, lambda at, number=number, offset=offset: (number, at - offset + 1), lambda _, t=text: t, ctx
            )


KIND = CodeTuples()

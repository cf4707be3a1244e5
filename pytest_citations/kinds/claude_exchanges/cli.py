"""``citations claude import EXCHANGE --brief BRIEF``: store the verified citations of a Claude
Messages API exchange as the brief's citation objects (brief-citation-contract.md §1-§2).

A citation is *verified* when the A6xx checks of the ``claude-exchanges`` kind find no error and no
A613 (unverifiable) warning on it; the checks run as they are, whatever ``select`` / ``ignore`` say.
Every verified citation becomes one §1 citation object in the brief's sidecar
(``<stem>.citations.json``):

- ``source_id``, ``publisher``, ``doc_id``, ``chunk_id``, ``url``, ``title``, ``published_at``,
  ``fetched_at`` (and ``snippet``, the headline or RSS snippet of a ``metadata_only`` source) come
  from the exchange's optional ``"evidence"`` map: ``{"documents": {"0": {...}}, "search_results":
  {"0": {...}}, "web": {"https://...": {...}}}`` keyed by ``document_index``,
  ``search_result_index`` and cited URL. A field missing there is taken from the cited block: a
  document's ``context`` when it is a JSON object, then its ``title`` and (URL PDFs) ``source.url``;
  a search result's ``title`` and (an http(s) ``source``) URL. A citation left without one of the
  §1 fields is rejected (§2: API citations without valid metadata are rejected).
- The cited range becomes ``quote_span`` (``{start, end, text}``: code-point offsets into the cited
  document's text, a block range's blocks joined, or the pypdf text of the cited pages) for
  sources whose registry ``paywall_policy`` is ``full``; for any other policy (``metadata_only``)
  only ``snippet_span`` (``{"text": <evidence snippet, else the title>}``), never the quote.
- ``claude_citation`` keeps the API's structured pointer (type, indices, range) without its text.
- ``id`` is ``cite_<uuid5>`` of the exchange path, line and citation path: importing twice is a
  no-op.

Markers: the exchange's optional top-level ``"markers"`` map (``{"response.content[1].citations[0]":
3}``) names the brief marker of a citation; the others are numbered in order after the highest
marker the sidecar (or the map) already uses. An existing entry is never renumbered or overwritten.

Exit status: 0 when every citation was imported (or already was), 1 when some were rejected (each is
listed with its reason), 2 for a usage error.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_citations.core import sources

EXIT_CLEAN, EXIT_REJECTED, EXIT_USAGE = 0, 1, 2
# A brief's markers have 1 to 9 digits, as the briefs kind reads them (``[N]`` and sidecar keys):
# a number from the exchange or the sidecar past that is refused, never computed with.
MAX_MARKER = 999_999_999
EVIDENCE_FIELDS = ("source_id", "publisher", "doc_id", "chunk_id", "url", "title", "published_at", "fetched_at")
_EVIDENCE_TABLES = ("documents", "search_results", "web")


class UsageError(Exception):
    pass


def add_parser(commands: argparse._SubParsersAction) -> None:
    """Add the ``claude`` command group (``import``) to the ``citations`` parser."""
    claude = commands.add_parser("claude", help="Claude API structured citations: import them into a brief's sidecar")
    claude.set_defaults(claude_parser=claude)
    actions = claude.add_subparsers(dest="claude_command", metavar="COMMAND")
    imp = actions.add_parser(
        "import", help="store an exchange's verified citations as the brief's citation objects (its sidecar)",
    )
    imp.add_argument("exchange", type=Path, metavar="EXCHANGE", help="an exchange file (*.exchange.json or *.exchanges.jsonl)")
    imp.add_argument("--brief", type=Path, required=True, metavar="BRIEF", help="the brief whose sidecar receives the citations")
    imp.add_argument("--registry", type=Path, metavar="PATH", help="the source registry (default: the briefs kind's `registry` setting)")
    imp.add_argument("--config", type=Path, metavar="FILE", help="read settings from FILE instead of the nearest pyproject.toml")


@dataclass
class Rejected:
    line: int
    col: int
    code: str  # an A6xx code, or "import"
    message: str


def run(args: argparse.Namespace) -> int:
    if getattr(args, "claude_command", None) != "import":
        args.claude_parser.print_help()
        return EXIT_USAGE
    try:
        return _import(args)
    except UsageError as error:
        print(f"citations: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except sources.SourceError as error:
        print(f"citations: error: {error.message}", file=sys.stderr)
        return EXIT_USAGE


def _import(args: argparse.Namespace) -> int:
    from pytest_citations.engine import Engine
    from pytest_citations.run import fix
    from pytest_citations.run.checking import start_folder

    for what, path in (("exchange", args.exchange), ("brief", args.brief)):
        if not path.is_file():
            raise UsageError(f"no such {what} file: {path}")
    engine = Engine.load(start_folder([args.exchange, args.brief]), args.config)
    root, max_size = engine.config.root, engine.config.max_file_size
    rels: dict[str, str] = {}
    for what, path in (("exchange", args.exchange), ("brief", args.brief), ("registry", args.registry)):
        if path is None:
            continue
        rel = engine.relative(path)
        if rel is None:
            raise UsageError(f"{path} is outside the repository root {root.as_posix()}")
        rels[what] = rel
    registry = _registry(engine, rels.get("registry"))
    exchange_rel, brief_rel = rels["exchange"], rels["brief"]

    verified, rejected, read = verify(engine, exchange_rel)
    source = sources.read_source(root, exchange_rel, max_size)
    raws = _raw_exchanges(exchange_rel, source)

    objects: list[tuple[Any, dict[str, Any], int | None]] = []  # (citation, object, explicit marker)
    markers_seen: dict[int, set[str]] = {}
    for c in read:
        markers_seen.setdefault(c.exchange.line, set()).add(c.where)
    for c in verified:
        raw = raws.get(c.exchange.line)
        markers = _markers(raw, c.exchange.line)
        obj = _citation_object(c, raw, registry, exchange_rel)
        if isinstance(obj, str):
            rejected.append(Rejected(c.line, c.col, "import", obj))
            continue
        objects.append((c, obj, markers.get(c.where)))
    for line, raw in raws.items():
        unknown = sorted(set(_markers(raw, line)) - markers_seen.get(line, set()))
        if unknown:
            at = f" (line {line})" if line else ""
            raise UsageError(f"{exchange_rel}{at}: markers names {unknown[0]!r}, which is not a citation of the exchange")

    sidecar_rel, original, data = _sidecar(engine, brief_rel)
    stored: dict[str, Any] = data["citations"]
    by_id = {obj.get("id"): key for key, obj in stored.items() if isinstance(obj, dict)}
    used = {int(key) for key in stored if key.isdigit()}
    explicit = {marker for _, _, marker in objects if marker is not None}
    next_free = max(used | explicit, default=0) + 1
    imported, unchanged = [], []
    for c, obj, marker in objects:
        if obj["id"] in by_id:
            unchanged.append((by_id[obj["id"]], obj, c))
            continue
        if marker is None:
            if next_free > MAX_MARKER:
                raise UsageError(f"{sidecar_rel}: the next free marker would be [{next_free}], and a brief's markers have at "
                                 f"most {len(str(MAX_MARKER))} digits")
            marker, next_free = next_free, next_free + 1
        elif str(marker) in stored:
            held = stored[str(marker)].get("id") if isinstance(stored[str(marker)], dict) else None
            rejected.append(Rejected(c.line, c.col, "import", f"marker [{marker}] already holds citation {held!r} in "
                                                               f"{sidecar_rel}; not overwritten"))
            continue
        stored[str(marker)] = obj
        by_id[obj["id"]] = str(marker)
        imported.append((str(marker), obj, c))

    if imported:
        text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
        if original is not None:
            try:
                fix.write_atomic(original, sources.with_text(original, text).raw)
            except fix.FileChangedError as error:
                raise UsageError(str(error)) from None
        else:
            fix.create_atomic(root, sidecar_rel, text.encode("utf-8"))

    for key, obj, c in imported:
        kind = "quote_span" if "quote_span" in obj else "snippet_span"
        _say(f"imported [{key}] {obj['id']} from {exchange_rel}:{c.line}:{c.col} ({kind})")
    for key, obj, c in unchanged:
        _say(f"unchanged [{key}] {obj['id']} from {exchange_rel}:{c.line}:{c.col} (already in {sidecar_rel})")
    for item in sorted(rejected, key=lambda r: (r.line, r.col)):
        code = "" if item.code == "import" else f"{item.code} "
        _say(f"rejected {exchange_rel}:{item.line}:{item.col}: {code}{item.message}")
    written = f"wrote {len(imported)} citation object{'s' if len(imported) != 1 else ''} to {sidecar_rel}" if imported else (
        f"{sidecar_rel} left unchanged")
    print(f"citations: {written}; {len(unchanged)} already there, {len(rejected)} rejected", file=sys.stderr)
    return EXIT_REJECTED if rejected else EXIT_CLEAN


def _say(line: str) -> None:
    """Print a line of the report on standard output: paths, ids and messages come from the
    checkout, so what a CI runner would take for a command is defused (``frontends/reporters/ci_log.py``)."""
    from pytest_citations.frontends.reporters.ci_log import defuse_text

    print(defuse_text(line))


# -- verification: the kind's reading and the A6xx rules, as they are ---------------------------------------------------


def verify(engine, rel: str) -> tuple[list, list[Rejected], list]:
    """The citations of the exchange file ``rel`` with no A6xx error and no A613; why the others were
    rejected (with every problem of the file the kind reports, A601/A602 included, and a rule's
    internal error, C006); every citation read. Every rule of the kind runs, whatever the selection:
    an import accepts only what they all accept."""
    from pytest_citations.contexts import FileContext
    from pytest_citations.core.diagnostics import Severity
    from pytest_citations.core.suppressions import INTERNAL_ERROR
    from pytest_citations.kinds.claude_exchanges.model import KIND

    ctx = FileContext(engine, rel, KIND, sources.read_source(engine.config.root, rel, engine.config.max_file_size))
    rules = engine.registry.for_kind(KIND.name, "record")
    verified: list = []
    rejected: list[Rejected] = []
    read: list = []
    problems: list[Rejected] = []  # those of the citation being read
    crashed = False  # a rule raised: it checks no later citation, which is then not verified
    for unit, diagnostic in engine.runner.checked_units(ctx, rules):
        if diagnostic is None:  # the unit is done
            read.append(unit)
            if not problems and crashed:
                problems.append(Rejected(unit.line, unit.col, INTERNAL_ERROR,
                                         "not verified: a rule failed on an earlier citation of this file"))
            if problems:
                rejected.extend(problems)
            else:
                verified.append(unit)
            problems = []
            continue
        crashed = crashed or diagnostic.code == INTERNAL_ERROR
        if unit is None:  # a problem of the file, not of one citation
            rejected.append(Rejected(diagnostic.line, diagnostic.col, diagnostic.code, diagnostic.message))
        elif diagnostic.severity == Severity.ERROR or diagnostic.code == "A613":
            problems.append(Rejected(diagnostic.line, diagnostic.col, diagnostic.code, diagnostic.message))
    return verified, rejected, read


# -- the exchange's evidence and markers ----------------------------------------------------------------------------------


def _raw_exchanges(rel: str, source: sources.Source) -> dict[int, dict]:
    """Each readable exchange object by its JSONL line (0 for a JSON file)."""
    from pytest_citations.core import jsonlines

    found: dict[int, dict] = {}
    if rel.lower().endswith(".jsonl"):
        for line in source.lines():
            try:
                value = jsonlines.loads(line.text)
            except (ValueError, RecursionError):
                continue
            if isinstance(value, dict):
                found[line.number] = value
    else:
        try:
            value = jsonlines.loads(source.text)
        except (ValueError, RecursionError):
            return found
        if isinstance(value, dict):
            found[0] = value
    return found


def _where(line: int, what: str) -> str:
    return f"{what} (line {line})" if line else what


def _markers(raw: dict | None, line: int) -> dict[str, int]:
    markers = (raw or {}).get("markers")
    if markers is None:
        return {}
    if not isinstance(markers, dict) or not all(
        isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= MAX_MARKER for v in markers.values()
    ):
        raise UsageError(_where(line, "`markers`") + f" must map citation paths to marker numbers from 1 to {MAX_MARKER}")
    return markers


def _evidence_entry(raw: dict | None, line: int, table: str, key: str) -> dict[str, Any]:
    evidence = (raw or {}).get("evidence")
    if evidence is None:
        return {}
    if not isinstance(evidence, dict) or not all(isinstance(evidence.get(t, {}), dict) for t in _EVIDENCE_TABLES):
        raise UsageError(_where(line, "`evidence`") + ' must be {"documents": {...}, "search_results": {...}, "web": {...}}')
    entry = evidence.get(table, {}).get(key)
    if entry is None:
        return {}
    if not isinstance(entry, dict) or not all(isinstance(v, str) or v is None for v in entry.values()):
        raise UsageError(_where(line, f"evidence.{table}[{key!r}]") + " must be an object of string fields")
    return entry


def _context_fields(context: str | None) -> dict[str, Any]:
    """The fields of a document ``context`` that holds a JSON object (a common place for metadata)."""
    from pytest_citations.core import jsonlines

    if not context or not context.lstrip().startswith("{"):
        return {}
    try:
        value = jsonlines.loads(context)
    except (ValueError, RecursionError):
        return {}
    return {k: v for k, v in value.items() if isinstance(v, str)} if isinstance(value, dict) else {}


def _is_web_url(value: Any) -> bool:
    return isinstance(value, str) and re.match(r"https?://[^\s/]", value) is not None


def _metadata(c, raw: dict | None) -> dict[str, Any]:
    """The citation's §1 metadata: the cited block's fields, overridden by the evidence map's."""
    from pytest_citations.kinds.claude_exchanges.model import FITS

    line = c.exchange.line
    if c.type in FITS:
        doc = c.document
        layers = [{"title": doc.title, "url": doc.url}, _context_fields(doc.context),
                  _evidence_entry(raw, line, "documents", str(doc.index))]
    elif c.type == "search_result_location":
        result = c.search_result
        layers = [{"title": result.title, "url": result.source if _is_web_url(result.source) else None},
                  _evidence_entry(raw, line, "search_results", str(result.index))]
    else:
        layers = [{"title": c.data.get("title"), "url": c.data["url"]}, _evidence_entry(raw, line, "web", c.data["url"])]
    merged: dict[str, Any] = {}
    for layer in layers:
        merged.update({k: v for k, v in layer.items() if v not in (None, "")})
    return merged


# -- the citation object ------------------------------------------------------------------------------------------------


def _quote(c) -> tuple[int, int, str] | str:
    """(start, end, text) of the cited range in the source's own text, or why there is none."""
    from pytest_citations.kinds.claude_exchanges.cited_text import pdf_pages

    data = c.data
    if c.type == "char_location":
        start, end = data["start_char_index"], data["end_char_index"]
        return start, end, c.document.text[start:end]
    if c.type in ("content_block_location", "search_result_location"):
        blocks = c.document.blocks if c.type == "content_block_location" else c.search_result.blocks
        start = len("".join(blocks[: data["start_block_index"]]))
        text = "".join(blocks[data["start_block_index"] : data["end_block_index"]])
        return start, start + len(text), text
    if c.type == "page_location":
        pages = pdf_pages(c.document) or []
        text = "\n".join(pages[data["start_page_number"] - 1 : data["end_page_number"] - 1])
        words = data["cited_text"].split()
        found = re.search(r"\s+".join(map(re.escape, words)), text) if words else None
        if found is None:
            return "cited_text is not in the extracted text of the cited pages"
        return found.start(), found.end(), found.group()
    return "the text of a web search result is not in the exchange (encrypted), so its cited_text cannot be verified"


def _citation_object(c, raw: dict | None, registry, exchange_rel: str) -> dict[str, Any] | str:
    """The §1 citation object of a verified citation, or why it cannot be stored."""
    import uuid

    meta = _metadata(c, raw)
    missing = [name for name in EVIDENCE_FIELDS if not meta.get(name)]
    if missing:
        return (f"no {', '.join(missing)} for this {c.type}: give {'them' if len(missing) > 1 else 'it'} in the exchange's "
                "\"evidence\" map (see docs/claude-citations.md)")
    source = registry.sources.get(meta["source_id"])
    if source is None:
        return f"source_id {meta['source_id']!r} is not in the source registry {registry.rel}"
    quote = _quote(c)
    if isinstance(quote, str):
        return quote
    key = f"claude-exchange:{exchange_rel}:{c.exchange.line}:{c.where}"
    obj: dict[str, Any] = {"id": f"cite_{uuid.uuid5(uuid.NAMESPACE_URL, key)}"}
    obj.update({name: meta[name] for name in EVIDENCE_FIELDS})
    if source.paywall_policy == "full":
        obj["quote_span"] = {"start": quote[0], "end": quote[1], "text": quote[2]}
    else:  # metadata_only (or no policy): never a quote, only the headline or snippet
        obj["snippet_span"] = {"text": meta.get("snippet") or meta["title"]}
    obj["claude_citation"] = {k: v for k, v in c.data.items() if k != "cited_text"}
    return obj


# -- the registry and the sidecar ----------------------------------------------------------------------------------------


def _registry(engine, rel: str | None):
    from pytest_citations.kinds.briefs import source_registry as registry

    if rel is None:
        settings = engine.config.kinds.get("briefs")
        rel = (settings.options if settings is not None else {}).get("registry", "source_registry.yaml")
    root = engine.config.root
    if not sources.resolve_inside(root, rel).is_file():
        raise UsageError(f"no source registry {rel} (the paywall policy of each source decides quote_span or snippet_span); "
                         "give one with --registry")
    return registry.parse(rel, sources.read_source(root, rel, engine.config.max_file_size).text)


def _sidecar(engine, brief_rel: str) -> tuple[str, sources.Source | None, dict[str, Any]]:
    """The sidecar's path, its source when it exists, and its data (``{"citations": {}}`` when new)."""
    from pytest_citations.core import jsonlines
    from pytest_citations.core.diagnostics import quoted
    from pytest_citations.kinds.briefs.resolution import sidecar_candidates

    root = engine.config.root
    for candidate in sidecar_candidates(brief_rel):
        if sources.resolve_inside(root, candidate).exists():
            original = sources.read_source(root, candidate, engine.config.max_file_size)
            try:
                data = jsonlines.loads(original.text)
            except (ValueError, RecursionError) as exc:
                raise UsageError(f"sidecar {candidate}: {jsonlines.error_message(exc, document=True)[0]}") from None
            citations = data.get("citations") if isinstance(data, dict) else None
            if not isinstance(citations, dict):
                raise UsageError(f'sidecar {candidate}: expected {{"citations": {{"1": {{...}}}}}}; fix it before importing')
            key = next((k for k in citations if not (k.isdigit() and k.isascii() and len(k) <= len(str(MAX_MARKER)))), None)
            if key is not None:
                raise UsageError(f"sidecar {candidate}: the key {quoted(key)} is not a marker number (1 to "
                                 f"{len(str(MAX_MARKER))} digits); fix it before importing")
            return candidate, original, data
    return sidecar_candidates(brief_rel)[0], None, {"citations": {}}

'''Rules for EAR ids (E5xx): canonical section ids in eval datasets, RAG outputs and the retrieval
corpus, exactly one corpus record per cited id, deterministic paragraph anchors, consistent dataset
manifests and canonical KG section IRIs (ear-identifier-policy.md).'''

from __future__ import annotations

import json
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

from pytest_citations.core import sources
from pytest_citations.core.diagnostics import Edit, Fix, quoted
from pytest_citations.core.jsonlines import type_name
from pytest_citations.kinds.ear_ids.ids import (
    decode_section_segment,
    encode_section_id,
    is_anchored_id,
    is_part_id,
    is_section_id,
    normalize_ear_doc_id,
    normalize_ear_section_id,
)
from pytest_citations.kinds.ear_ids.model import (
    AnchorSequence,
    CorpusRecord,
    DatasetRecord,
    IdRef,
    KgIri,
    Manifest,
    anchor_index,
    anchored,
    corpus_index,
)
from pytest_citations.rules import Finding, rule

if TYPE_CHECKING:
    from pytest_citations.contexts import RuleContext

KIND = "ear-ids"


def verdict(ref: IdRef) -> tuple[str, str | None]:
    """How a governed id stands: ``ok``, ``fix`` (normalizable), ``anchor`` (a paragraph anchor
    where a section is required), ``invalid``, ``type`` or ``not-array``; and its canonical form."""
    value = ref.value
    if ref.not_array:
        return "not-array", None
    if not isinstance(value, str):
        return "type", None
    if ref.expect == "section":
        if is_section_id(value):
            return "ok", value
        doc = normalize_ear_doc_id(value)
        if doc is not None and "#" in doc:
            return "anchor", doc.split("#", 1)[0]
        normalized = normalize_ear_section_id(value)
        return ("fix", normalized) if normalized else ("invalid", None)
    if is_section_id(value) or is_anchored_id(value):
        return "ok", value
    normalized = normalize_ear_doc_id(value)
    return ("fix", normalized) if normalized else ("invalid", None)


@rule("E501", "ear-invalid-json", kind=KIND, scope="engine")
def ear_invalid_json():
    """
    ## What it does
    Reports a line of an eval dataset or retrieval corpus (JSON Lines) that is not one JSON object,
    and a dataset manifest that is not valid JSON: broken JSON, a duplicate key, `NaN` or
    `Infinity`, nesting too deep, or a value that is not an object. Blank lines are allowed; every
    other line is still checked.

    ## Why is this bad?
    An eval item or corpus record that cannot be read is silently dropped by most loaders, so the
    evaluation runs on fewer items than its manifest says and its citations are never checked.

    ## Example

    Bad (a trailing comma):

    ```jsonl title="eval/items.v1.jsonl"
    {"id": "q1", "ear_sections": ["EAR-736.2(b)"],}
    ```

    Good:

    ```jsonl title="eval/items.v1.jsonl"
    {"id": "q1", "ear_sections": ["EAR-736.2(b)"]}
    ```

    ## Fix
    Have the producer serialize each item with a JSON library, one item per line.
    """


@rule("E502", "ear-id-not-canonical", kind=KIND, fixable=True, unit=(DatasetRecord, CorpusRecord))
def ear_id_not_canonical(unit, ctx: RuleContext):
    """
    ## What it does
    Reports an EAR section id that is recognizable but not written in the canonical form
    `EAR-<section>` (spec §4.1): in a dataset's `ear_sections[]` and `expected.citations[]`, a RAG
    output's `citations[].section_id`, the paths listed in `extra-paths`, and a corpus record's
    `doc_id`, `section_id` and `parent_id`. The fix writes the canonical form, obtained by the
    spec's normalization: trim white space (no-break spaces too), strip `§`, drop a `15 CFR`
    prefix, write the `EAR-` prefix, remove inner spaces, lowercase the section body, drop
    trailing periods. So `§ 736.2(B)`, `15CFR736.2` and `EAR 736.2.` become `EAR-736.2(b)`,
    `EAR-736.2` and `EAR-736.2`.

    ## Why is this bad?
    Ids are compared as strings: an evaluation that expects `EAR 736.2(B)` never matches a
    retrieved `EAR-736.2(b)`, and the citation does not resolve to its corpus record or KG node.

    ## Example

    Bad:

    ```jsonl title="eval/items.v1.jsonl"
    {"id": "q1", "ear_sections": ["§ 736.2(B)"]}
    ```

    Good:

    ```jsonl title="eval/items.v1.jsonl"
    {"id": "q1", "ear_sections": ["EAR-736.2(b)"]}
    ```

    ## Fix
    `citations check --fix` rewrites the id string in place and nothing else.
    """
    for ref in unit.refs:
        state, canonical = verdict(ref)
        if state == "fix":
            fix = Fix(f"write {canonical}", (Edit(ref.start, ref.end, json.dumps(canonical)),))
            message = f"{ref.where} {quoted(ref.value)} is not a canonical EAR id; expected {quoted(canonical)}"
            yield unit.finding(message, ref, fix)


@rule("E503", "ear-id-not-a-section", kind=KIND, unit=(DatasetRecord, CorpusRecord))
def ear_id_not_a_section(unit, ctx: RuleContext):
    """
    ## What it does
    Reports a value in a governed id field (see E502) that is not an EAR section id at all and
    cannot be normalized to one: another number (`73.2`, `1736.2`), a supplement
    (`Supplement No. 1 to Part 740`), a part-only id (`EAR-736`, which the spec's regex rejects:
    a citation names a section), a value that is not a string, or a field that should be an array
    and is not. Corpus `doc_id`s may carry a `#pNNNN` anchor; no other suffix is allowed.

    Fields the spec does not govern are never read: `evidence.doc_spans[].doc_id` holds part-level
    ids such as `EAR-736` by design.

    ## Why is this bad?
    A citation that names no section can never be matched to a corpus record or KG node; the
    evaluation silently scores it as a miss.

    ## Example

    Bad:

    ```jsonl title="eval/items.v1.jsonl"
    {"id": "q1", "ear_sections": ["EAR-736"], "evidence": {"doc_spans": [{"doc_id": "EAR-736", "span_id": "736.2(b)"}]}}
    ```

    Good:

    ```jsonl title="eval/items.v1.jsonl"
    {"id": "q1", "ear_sections": ["EAR-736.2(b)"], "evidence": {"doc_spans": [{"doc_id": "EAR-736", "span_id": "736.2(b)"}]}}
    ```

    ## Fix
    Cite the section itself, in canonical form (`EAR-736.2(b)`).
    """
    for ref in unit.refs:
        state, _ = verdict(ref)
        if state == "not-array":
            yield unit.finding(f"{ref.where} must be an array of EAR section ids, not {type_name(ref.value)}", ref)
        elif state == "type":
            yield unit.finding(f"{ref.where} must be a string EAR id, not {type_name(ref.value)}", ref)
        elif state == "invalid" and is_part_id(ref.value):
            message = (
                f"{ref.where} {quoted(ref.value)} is a part-level id, not a canonical EAR section id: "
                "cite a section such as 'EAR-736.2'"
            )
            yield unit.finding(message, ref)
        elif state == "invalid":
            shape = "EAR-<part>.<section>, such as 'EAR-736.2(b)'"
            if ref.expect == "doc":
                shape += ", optionally with a #pNNNN anchor"
            yield unit.finding(f"{ref.where} {quoted(ref.value)} is not an EAR section id (canonical form {shape})", ref)


@rule("E504", "ear-anchor-in-citation", kind=KIND, unit=DatasetRecord)
def ear_anchor_in_citation(unit, ctx: RuleContext):
    """
    ## What it does
    Reports a paragraph anchor (`EAR-736.2#p0008`) where the spec requires a section citation id:
    in `ear_sections[]`, `expected.citations[]` and RAG `citations[].section_id`.

    ## Why is this bad?
    Anchors are pinpoints inside a section, computed from one corpus build; they change when the
    corpus is rebuilt. The spec (§1.2) forbids them from replacing the section id in citations, so
    that an evaluation stays valid across corpus builds.

    ## Example

    Bad:

    ```jsonl title="eval/items.v1.jsonl"
    {"id": "q1", "ear_sections": ["EAR-736.2#p0008"]}
    ```

    Good:

    ```jsonl title="eval/items.v1.jsonl"
    {"id": "q1", "ear_sections": ["EAR-736.2"]}
    ```

    ## Fix
    Cite the section (the part before `#`); keep the anchor in trace or grounding data if needed.
    """
    for ref in unit.refs:
        state, base = verdict(ref)
        if state == "anchor":
            message = f"{ref.where} {quoted(ref.value)} is a paragraph anchor, not a section citation: cite {quoted(base)}"
            yield unit.finding(message, ref)


def _where(ctx: RuleContext, location: tuple[str, int]) -> str:
    rel, line = location
    return f"line {line}" if rel == ctx.rel else f"{rel}:{line}"


NAMED_RECORDS = 3  # a message names this many corpus records at most, and counts the rest


def _places(ctx: RuleContext, locations: list[tuple[str, int]]) -> str:
    """The first :data:`NAMED_RECORDS` locations, and how many more there are: a message stays
    short however many records share an id."""
    named = ", ".join(_where(ctx, location) for location in locations[:NAMED_RECORDS])
    more = len(locations) - NAMED_RECORDS
    return f"{named} and {more} more" if more > 0 else named


@rule("E505", "ear-citation-unresolved", kind=KIND, unit=DatasetRecord)
def ear_citation_unresolved(unit, ctx: RuleContext):
    """
    ## What it does
    Checks that each section id a dataset cites (`ear_sections[]`, `expected.citations[]`, RAG
    `citations[].section_id`) resolves to exactly one retrieval corpus record: one
    `retrieval-corpus.v1` record in the repository whose `doc_id` equals the id, with no `#`
    suffix (spec §4.3). A non-canonical id is resolved by its canonical form.

    Corpus records are found in every file the `ear-ids` kind claims: JSON Lines files whose first
    record says `"schema_version": "retrieval-corpus.v1"`, wherever they are. A repository without
    any corpus record is not checked by this rule.

    ## Why is this bad?
    A cited section that is missing from the corpus can never be retrieved, so every evaluation of
    that item measures the corpus, not the model; a section held by two records makes retrieval
    scores depend on which copy wins.

    ## Example

    Bad (the corpus has no `EAR-740.1` record):

    ```jsonl title="eval/items.v1.jsonl"
    {"id": "q1", "ear_sections": ["EAR-740.1"]}
    ```

    ```jsonl title="data/corpus.jsonl"
    {"schema_version": "retrieval-corpus.v1", "doc_id": "EAR-736.2(b)", "section_id": "EAR-736.2(b)", "chunk_kind": "subsection", "text": "..."}
    ```

    Good:

    ```jsonl title="eval/items.v1.jsonl"
    {"id": "q1", "ear_sections": ["EAR-740.1"]}
    ```

    ```jsonl title="data/corpus.jsonl"
    {"schema_version": "retrieval-corpus.v1", "doc_id": "EAR-740.1", "section_id": "EAR-740.1", "chunk_kind": "section", "text": "..."}
    ```

    ## Fix
    Rebuild the corpus so it holds the section once, or correct the citation.
    """
    if not unit.refs:
        return
    index = corpus_index(ctx.file.engine)
    if index.empty:
        return
    for ref in unit.refs:
        state, canonical = verdict(ref)
        if state not in ("ok", "fix"):
            continue
        found = index.by_doc_id.get(canonical, [])
        if not found:
            message = f"{ref.where} {quoted(canonical)} does not resolve: no retrieval-corpus record has doc_id {quoted(canonical)}"
            yield unit.finding(message, ref)
        elif len(found) > 1:
            message = (
                f"{ref.where} {quoted(canonical)} resolves to {len(found)} corpus records ({_places(ctx, found)}); "
                "it must resolve to exactly one"
            )
            yield unit.finding(message, ref)


@rule("E506", "ear-duplicate-doc-id", kind=KIND, unit=CorpusRecord)
def ear_duplicate_doc_id(unit, ctx: RuleContext):
    """
    ## What it does
    Reports a retrieval corpus record whose `doc_id` is already the `doc_id` of an earlier record,
    in the same file or in another corpus file of the repository. The first record is not
    reported; each later one is, naming the first.

    ## Why is this bad?
    A citation id must resolve to exactly one corpus document (spec §4.3). With two, retrieval and
    grounding pick one of them arbitrarily.

    ## Example

    Bad:

    ```jsonl title="data/corpus.jsonl"
    {"schema_version": "retrieval-corpus.v1", "doc_id": "EAR-736.2", "section_id": "EAR-736.2", "chunk_kind": "section", "text": "First copy."}
    {"schema_version": "retrieval-corpus.v1", "doc_id": "EAR-736.2", "section_id": "EAR-736.2", "chunk_kind": "section", "text": "Second copy."}
    ```

    Good:

    ```jsonl title="data/corpus.jsonl"
    {"schema_version": "retrieval-corpus.v1", "doc_id": "EAR-736.2", "section_id": "EAR-736.2", "chunk_kind": "section", "text": "First copy."}
    ```

    ## Fix
    Deduplicate the corpus build (the snapshot it was built from holds the section twice).
    """
    doc_id = unit.data.get("doc_id")
    if not isinstance(doc_id, str):
        return
    index = corpus_index(ctx.file.engine)
    found = index.by_doc_id.get(doc_id, [])
    if found and found[0] != (ctx.rel, unit.line) and (ctx.rel, unit.line) in index.records:
        message = f"doc_id {quoted(doc_id)} is already the doc_id of the record at {_where(ctx, found[0])}"
        yield unit.finding(message, unit.ref("doc_id"))


@rule("E507", "ear-chunk-section-mismatch", kind=KIND, unit=CorpusRecord)
def ear_chunk_section_mismatch(unit, ctx: RuleContext):
    """
    ## What it does
    Checks the child chunks of the retrieval corpus: a record whose `doc_id` carries a paragraph
    anchor (`EAR-736.2#p0001`) must carry `section_id` equal to its base id (`EAR-736.2`), and a
    `parent_id`, when present, equal to that base id too; a record of `chunk_kind` `paragraph`
    must have an anchored `doc_id`.

    ## Why is this bad?
    A chunk is credited to the section named by its `section_id`; a chunk that names another
    section makes retrieval cite the wrong section for its text (spec §4.3).

    ## Example

    Bad:

    ```jsonl title="data/corpus.jsonl"
    {"schema_version": "retrieval-corpus.v1", "doc_id": "EAR-736.2", "section_id": "EAR-736.2", "chunk_kind": "section", "text": "Lead-in."}
    {"schema_version": "retrieval-corpus.v1", "doc_id": "EAR-736.2#p0001", "section_id": "EAR-736.2(b)", "chunk_kind": "paragraph", "parent_id": "EAR-736.2", "ordinal": 1, "text": "(b) ..."}
    ```

    Good:

    ```jsonl title="data/corpus.jsonl"
    {"schema_version": "retrieval-corpus.v1", "doc_id": "EAR-736.2", "section_id": "EAR-736.2", "chunk_kind": "section", "text": "Lead-in."}
    {"schema_version": "retrieval-corpus.v1", "doc_id": "EAR-736.2#p0001", "section_id": "EAR-736.2", "chunk_kind": "paragraph", "parent_id": "EAR-736.2", "ordinal": 1, "text": "(b) ..."}
    ```

    ## Fix
    Emit child chunks from their container: `section_id` and `parent_id` are the container's
    `doc_id`.
    """
    doc_id = normalize_ear_doc_id(unit.data.get("doc_id"))
    if doc_id is None:
        return
    if "#" not in doc_id:
        if unit.data.get("chunk_kind") == "paragraph":
            message = f"paragraph chunk doc_id {quoted(unit.data['doc_id'])} has no #pNNNN anchor: child chunks carry anchored doc_ids"
            yield unit.finding(message, unit.ref("doc_id"))
        return
    base = doc_id.split("#", 1)[0]
    if "section_id" not in unit.data:
        yield unit.finding(f"chunk {quoted(doc_id)} has no section_id; it must carry section_id {quoted(base)}", unit.ref("doc_id"))
    elif normalize_ear_section_id(unit.data["section_id"]) != base:
        message = f"section_id {quoted(unit.data['section_id'])} of chunk {quoted(doc_id)} must equal its base id {quoted(base)}"
        yield unit.finding(message, unit.ref("section_id"))
    parent = unit.data.get("parent_id")
    if parent is not None and normalize_ear_doc_id(parent) != base:
        message = f"parent_id {quoted(parent)} of chunk {quoted(doc_id)} must be its container {quoted(base)}"
        yield unit.finding(message, unit.ref("parent_id"))


@rule("E508", "ear-anchor-sequence", kind=KIND, unit=CorpusRecord)
def ear_anchor_sequence(unit, ctx: RuleContext):
    """
    ## What it does
    Checks that paragraph anchors are deterministic (spec §3): within a container (the base id
    before `#`), in the order the records appear in the corpus, anchors run `#p0001`, `#p0002`,
    ... with no gap, no repeat and no step back; a chunk's `ordinal`, when present, equals its
    anchor number. Every corpus file of the repository is one corpus, taken in the order of the
    files' paths, so a container may continue from one shard to the next
    (`corpus-00000-of-00002.jsonl`, then `corpus-00001-of-00002.jsonl`).

    ## Why is this bad?
    Anchors must be computable from the corpus build. A gap or a repeat means the numbering was
    edited by hand or the build dropped or duplicated a paragraph: a pinpoint citation then names
    a different paragraph in the next build.

    ## Example

    Bad (`#p0002` is missing):

    ```jsonl title="data/corpus.jsonl"
    {"schema_version": "retrieval-corpus.v1", "doc_id": "EAR-736.2#p0001", "section_id": "EAR-736.2", "chunk_kind": "paragraph", "text": "(a) ..."}
    {"schema_version": "retrieval-corpus.v1", "doc_id": "EAR-736.2#p0003", "section_id": "EAR-736.2", "chunk_kind": "paragraph", "text": "(b) ..."}
    ```

    Good:

    ```jsonl title="data/corpus.jsonl"
    {"schema_version": "retrieval-corpus.v1", "doc_id": "EAR-736.2#p0001", "section_id": "EAR-736.2", "chunk_kind": "paragraph", "text": "(a) ..."}
    {"schema_version": "retrieval-corpus.v1", "doc_id": "EAR-736.2#p0002", "section_id": "EAR-736.2", "chunk_kind": "paragraph", "text": "(b) ..."}
    ```

    ## Fix
    Rebuild the chunks: the corpus builder numbers paragraphs from `#p0001` in source order.
    """
    found = anchored(unit.data.get("doc_id"))
    if found is None:
        return
    base, number = found
    problem = _anchor_problem(ctx, base, number, unit.line)
    if problem is not None and problem[0] == "repeat":
        message = f"anchor #p{number:04d} of {quoted(base)} already appears {_at(ctx, problem[1])}"
        yield unit.finding(message, unit.ref("doc_id"))
    elif problem is not None:
        last = problem[1]
        previous = f"follows #p{last:04d}" if last else "is the first anchor"
        message = (
            f"anchor #p{number:04d} of {quoted(base)} {previous}; expected #p{last + 1:04d}: anchors run "
            "#p0001, #p0002, ... in source order"
        )
        yield unit.finding(message, unit.ref("doc_id"))
    ordinal = unit.data.get("ordinal")
    if ordinal is not None and ordinal != number:
        message = f"ordinal {quoted(ordinal)} does not match anchor #p{number:04d} (ordinal {number})"
        yield unit.finding(message, unit.ref("doc_id"))


def _anchor_problem(ctx: RuleContext, base: str, number: int, line: int):
    """What the anchor at ``line`` breaks in its container's sequence (see AnchorSequence.add): from
    the run-wide index of the repository's corpus, or, for a file outside it (named on the command
    line though excluded), from the file's own records in line order."""
    index = anchor_index(ctx.file.engine)
    if index.covers(ctx.rel):
        return index.problems.get((ctx.rel, line))
    sequence = ctx.state.get("anchors")
    if sequence is None:
        sequence = ctx.state["anchors"] = AnchorSequence()
    return sequence.add(base, number, (ctx.rel, line))


def _at(ctx: RuleContext, location: tuple[str, int]) -> str:
    """``on line 5`` in the file being checked, ``at data/corpus.jsonl:5`` in another."""
    return f"on {_where(ctx, location)}" if location[0] == ctx.rel else f"at {_where(ctx, location)}"


# -- dataset manifests ------------------------------------------------------------------------------


def _entry_problems(entry) -> list[tuple[str, tuple[int, int]]]:
    """(message, position) for each shape problem of one manifest entry."""
    data = entry.data
    where = f"datasets[{entry.index}]"
    if not isinstance(data, dict):
        return [(f"{where} must be an object, not {type_name(data)}", (entry.line, entry.col))]
    problems = []
    missing = [key for key in ("id", "file", "num_items") if key not in data]
    if missing:
        noun = "fields" if len(missing) > 1 else "field"
        problems.append((f"{where} is missing required {noun}: {', '.join(missing)}", (entry.line, entry.col)))
    for key in ("id", "file"):
        if key in data and not (isinstance(data[key], str) and data[key]):
            shown = "an empty string" if data[key] == "" else type_name(data[key])
            problems.append((f"{where}.{key} must be a non-empty string, not {shown}", entry.position(key)))
    count = data.get("num_items", 0)
    if isinstance(count, bool) or not isinstance(count, int) or count < 0:
        message = f"{where}.num_items must be a non-negative integer, not {json.dumps(count)}"
        problems.append((message, entry.position("num_items")))
    return problems


@rule("E509", "ear-manifest-schema", kind=KIND, unit=Manifest)
def ear_manifest_schema(unit, ctx: RuleContext):
    """
    ## What it does
    Checks the shape of a dataset manifest (`eval/manifest.json`): a JSON object with a `datasets`
    array whose entries each have a non-empty string `id` and `file` and a non-negative integer
    `num_items`. Other fields (`description`, `task`, `version`, `kg_state`, `references`, ...)
    are allowed.

    ## Why is this bad?
    Evaluation runners pick datasets by the manifest; an entry without a file or count cannot be
    checked against the data it describes.

    ## Example

    Bad (`num_items` is a string):

    ```json title="eval/manifest.json"
    {"datasets": [{"id": "items.v1", "file": "eval/items.v1.jsonl", "num_items": "1"}]}
    ```

    ```jsonl title="eval/items.v1.jsonl"
    {"id": "q1", "ear_sections": ["EAR-736.2(b)"]}
    ```

    Good:

    ```json title="eval/manifest.json"
    {"datasets": [{"id": "items.v1", "file": "eval/items.v1.jsonl", "num_items": 1}]}
    ```

    ```jsonl title="eval/items.v1.jsonl"
    {"id": "q1", "ear_sections": ["EAR-736.2(b)"]}
    ```

    ## Fix
    Write the missing fields with the right types.
    """
    if not isinstance(unit.data, dict):
        yield _manifest_finding(unit, f"manifest must be a JSON object, not {type_name(unit.data)}", (1, 1))
        return
    if unit.entries is None:
        if "datasets" not in unit.data:
            yield _manifest_finding(unit, "manifest has no datasets array", (1, 1))
        else:
            message = f"datasets must be an array, not {type_name(unit.data['datasets'])}"
            yield _manifest_finding(unit, message, unit.datasets_position)
        return
    for entry in unit.entries:
        for message, position in _entry_problems(entry):
            yield _manifest_finding(unit, message, position)


def _manifest_finding(unit: Manifest, message: str, position: tuple[int, int]) -> Finding:
    return Finding(message, position[0], position[1])


def _dataset_path(unit: Manifest, ctx: RuleContext, file: str) -> str:
    if ctx.kind_options["manifest-paths"] == "manifest":
        return (PurePosixPath(unit.rel).parent / file).as_posix()
    return file


def _dataset_entries(unit):
    """Entries whose ``file`` is a non-empty string."""
    if not unit.entries:
        return
    for entry in unit.entries:
        if isinstance(entry.data, dict) and isinstance(entry.data.get("file"), str) and entry.data["file"]:
            yield entry


def _count_records(ctx: RuleContext, path: str) -> int | sources.SourceError:
    """The records (non-blank lines) of a listed dataset, or why it cannot be read; once per file
    per run, however many manifest entries list it."""

    def count() -> int | sources.SourceError:
        try:
            data = sources.read_bytes(ctx.root, path, ctx.file.max_file_size)
        except sources.SourceError as error:
            return error
        return sum(1 for line in data.split(b"\n") if line.strip())

    return ctx.file.engine.memo(("ear-ids.dataset-records", path), count)


def _dataset_records(unit, ctx: RuleContext, entry) -> int | str:
    """The listed file's number of records, or why it cannot be read."""
    file = entry.data["file"]
    if PurePosixPath(file).is_absolute() or file.startswith("\\") or (len(file) > 1 and file[1] == ":"):
        return f"datasets[{entry.index}].file {quoted(file)} is absolute; dataset paths are relative"
    found = _count_records(ctx, _dataset_path(unit, ctx, file))
    if not isinstance(found, sources.SourceError):
        return found
    if found.code == "C008":
        return f"datasets[{entry.index}].file {quoted(file)} resolves outside the repository root"
    if "no such file" in found.message:
        return f"datasets[{entry.index}].file {quoted(file)} does not exist"
    return f"datasets[{entry.index}].file {quoted(file)} cannot be read: {found.message}"


@rule("E510", "ear-manifest-file-missing", kind=KIND, unit=Manifest)
def ear_manifest_file_missing(unit, ctx: RuleContext):
    """
    ## What it does
    Reports a manifest entry whose `file` does not exist, cannot be read, or lies outside the
    repository. Paths are relative to the repository root (as earCrawler writes them, for example
    `eval/ear_compliance.v1.jsonl`); set `manifest-paths = "manifest"` under
    `[tool.citations.kinds.ear-ids]` to read them relative to the manifest's folder.

    ## Why is this bad?
    An evaluation run that selects the dataset fails, or worse, a runner that skips missing files
    reports results on fewer datasets than the manifest claims.

    ## Example

    Bad:

    ```json title="eval/manifest.json"
    {"datasets": [{"id": "items.v1", "file": "eval/items.v1.jsonl", "num_items": 1}]}
    ```

    Good:

    ```json title="eval/manifest.json"
    {"datasets": [{"id": "items.v1", "file": "eval/items.v1.jsonl", "num_items": 1}]}
    ```

    ```jsonl title="eval/items.v1.jsonl"
    {"id": "q1", "ear_sections": ["EAR-736.2(b)"]}
    ```

    ## Fix
    Correct the path, restore the file, or drop the entry.
    """
    for entry in _dataset_entries(unit):
        found = _dataset_records(unit, ctx, entry)
        if isinstance(found, str):
            yield _manifest_finding(unit, found, entry.position("file"))


@rule("E511", "ear-manifest-count-mismatch", kind=KIND, unit=Manifest)
def ear_manifest_count_mismatch(unit, ctx: RuleContext):
    """
    ## What it does
    Counts the records of each dataset a manifest lists (its non-blank lines) and reports an entry
    whose `num_items` differs.

    ## Why is this bad?
    A stale count means the dataset changed after the manifest was written: reported scores are
    computed over a different set of items than the one the manifest describes, and a truncated
    file goes unnoticed.

    ## Example

    Bad (the file holds two records):

    ```json title="eval/manifest.json"
    {"datasets": [{"id": "items.v1", "file": "eval/items.v1.jsonl", "num_items": 1}]}
    ```

    ```jsonl title="eval/items.v1.jsonl"
    {"id": "q1", "ear_sections": ["EAR-736.2(b)"]}
    {"id": "q2", "ear_sections": ["EAR-740.1"]}
    ```

    Good:

    ```json title="eval/manifest.json"
    {"datasets": [{"id": "items.v1", "file": "eval/items.v1.jsonl", "num_items": 2}]}
    ```

    ```jsonl title="eval/items.v1.jsonl"
    {"id": "q1", "ear_sections": ["EAR-736.2(b)"]}
    {"id": "q2", "ear_sections": ["EAR-740.1"]}
    ```

    ## Fix
    Regenerate the manifest from the datasets, or set `num_items` to the count given.
    """
    for entry in _dataset_entries(unit):
        expected = entry.data.get("num_items")
        if isinstance(expected, bool) or not isinstance(expected, int):
            continue
        count = _dataset_records(unit, ctx, entry)
        if isinstance(count, str):
            continue
        if count != expected:
            message = (
                f"datasets[{entry.index}] ({quoted(entry.data.get('id'))}) says num_items {expected}, "
                f"but {entry.data['file']} holds {count} record{'s' if count != 1 else ''}"
            )
            yield _manifest_finding(unit, message, entry.position("num_items"))


@rule("E512", "ear-manifest-duplicate-id", kind=KIND, unit=Manifest)
def ear_manifest_duplicate_id(unit, ctx: RuleContext):
    """
    ## What it does
    Reports a manifest entry whose dataset `id` is already the id of an earlier entry.

    ## Why is this bad?
    Runners and reports select datasets by id; with two entries under one id, which file is
    evaluated depends on the runner.

    ## Example

    Bad:

    ```json title="eval/manifest.json"
    {"datasets": [
      {"id": "items.v1", "file": "eval/items.v1.jsonl", "num_items": 1},
      {"id": "items.v1", "file": "eval/items.v2.jsonl", "num_items": 1}
    ]}
    ```

    ```jsonl title="eval/items.v1.jsonl"
    {"id": "q1", "ear_sections": ["EAR-736.2(b)"]}
    ```

    ```jsonl title="eval/items.v2.jsonl"
    {"id": "q1", "ear_sections": ["EAR-736.2(b)"]}
    ```

    Good:

    ```json title="eval/manifest.json"
    {"datasets": [
      {"id": "items.v1", "file": "eval/items.v1.jsonl", "num_items": 1},
      {"id": "items.v2", "file": "eval/items.v2.jsonl", "num_items": 1}
    ]}
    ```

    ```jsonl title="eval/items.v1.jsonl"
    {"id": "q1", "ear_sections": ["EAR-736.2(b)"]}
    ```

    ```jsonl title="eval/items.v2.jsonl"
    {"id": "q1", "ear_sections": ["EAR-736.2(b)"]}
    ```

    ## Fix
    Give each dataset its own id (the earCrawler convention is `<name>.v<version>`).
    """
    if not isinstance(unit, Manifest) or not unit.entries:
        return
    seen: dict[str, int] = {}
    for entry in unit.entries:
        dataset_id = entry.data.get("id") if isinstance(entry.data, dict) else None
        if not isinstance(dataset_id, str):
            continue
        if dataset_id in seen:
            message = f"dataset id {quoted(dataset_id)} is already the id of datasets[{seen[dataset_id]}]"
            yield _manifest_finding(unit, message, entry.position("id"))
        else:
            seen[dataset_id] = entry.index


# -- KG IRIs ----------------------------------------------------------------------------------------


def _iri_fix(unit: KgIri, expected: str) -> Fix | None:
    if unit.form == "json":
        text = json.dumps(expected, ensure_ascii=False)
    elif unit.form == "local":
        if not expected.startswith(unit.prefix):
            return None
        text = expected[len(unit.prefix) :]
    else:
        text = expected
    return Fix(f"write <{expected}>", (Edit(unit.start, unit.end, text),))


@rule("E513", "ear-kg-section-iri", kind=KIND, fixable=True, unit=KgIri)
def ear_kg_section_iri(unit, ctx: RuleContext):
    """
    ## What it does
    Checks every IRI under the section namespace (`iri-base`, by default
    `https://ear.example.org/resource/ear/section/`) in KG files (`*.ttl`, `*.nt`, `*.jsonld`):
    the rest of the IRI must be a canonical section id, percent-encoded as RFC 3986 requires
    (every character outside `A-Z a-z 0-9 - . _ ~` as `%HH`, uppercase hex), so that it decodes
    back to the id. `EAR-736.2(b)` is `.../section/EAR-736.2%28b%29`. When the IRI decodes to an
    id that normalizes, the fix writes the canonical IRI.

    KG files are scanned, not parsed: full IRIs (`<...>`) and prefixed names whose prefix is
    declared in the file in Turtle and N-Triples, and JSON strings holding a full IRI in JSON-LD.

    ## Why is this bad?
    The KG, the corpus and the datasets must name a section by the same id up to a deterministic
    encoding (spec §5); an IRI written another way is a different node, and KG expansion silently
    finds nothing for the cited section.

    ## Example

    Bad (the parentheses are not encoded):

    ```turtle title="kg/sections.ttl"
    <https://ear.example.org/resource/ear/section/EAR-736.2(b)> <http://www.w3.org/2000/01/rdf-schema#label> "736.2(b)" .
    ```

    Good:

    ```turtle title="kg/sections.ttl"
    <https://ear.example.org/resource/ear/section/EAR-736.2%28b%29> <http://www.w3.org/2000/01/rdf-schema#label> "736.2(b)" .
    ```

    ## Fix
    `citations check --fix` rewrites the IRI; generate IRIs with the encoding above.
    """
    base = ctx.kind_options["iri-base"]
    segment = unit.iri[len(base) :]
    if not segment:
        return
    decoded = decode_section_segment(segment)
    if decoded is None:
        yield Finding(f"section IRI <{quoted(unit.iri, plain=True)}> has a percent-escape that is not UTF-8", unit.line, unit.col)
        return
    if is_section_id(decoded):
        expected = base + encode_section_id(decoded)
        if expected != unit.iri:
            message = f"section IRI <{quoted(unit.iri, plain=True)}> is not RFC 3986 percent-encoded; expected <{quoted(expected, plain=True)}>"
            yield Finding(message, unit.line, unit.col, fix=_iri_fix(unit, expected))
        return
    normalized = normalize_ear_section_id(decoded)
    if normalized is not None:
        expected = base + encode_section_id(normalized)
        message = f"section IRI <{quoted(unit.iri, plain=True)}> decodes to {quoted(decoded)}, not a canonical section id; expected <{quoted(expected, plain=True)}>"
        yield Finding(message, unit.line, unit.col, fix=_iri_fix(unit, expected))
    else:
        yield Finding(f"section IRI <{quoted(unit.iri, plain=True)}> does not name an EAR section ({quoted(decoded)})", unit.line, unit.col)

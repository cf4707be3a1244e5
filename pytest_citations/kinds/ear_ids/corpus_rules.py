'''Rules on the retrieval corpus (E505-E508): a cited id resolves to exactly one corpus record
(E505), no two corpus records share a doc_id (E506), a chunk agrees with its container (E507), and
a container's paragraph anchors run in sequence (E508). E505, E506 and E508 consult the run-wide
indexes of the repository's corpus (``corpus.py``).'''

from __future__ import annotations

from typing import TYPE_CHECKING

from pytest_citations.core.diagnostics import quoted
from pytest_citations.kinds.ear_ids.corpus import AnchorSequence, anchor_index, anchored, corpus_index
from pytest_citations.kinds.ear_ids.ids import normalize_ear_doc_id, normalize_ear_section_id
from pytest_citations.kinds.ear_ids.records import CorpusRecord, DatasetRecord, verdict
from pytest_citations.rules import rule

if TYPE_CHECKING:
    from pytest_citations.contexts import RuleContext

KIND = "ear-ids"


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

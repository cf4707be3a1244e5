'''Rules for EAR ids (E5xx): canonical section ids in eval datasets, RAG outputs and the retrieval
corpus, exactly one corpus record per cited id, deterministic paragraph anchors, consistent dataset
manifests and canonical KG section IRIs (ear-identifier-policy.md).

Here, the ids of dataset and corpus records as written: JSON (E501), canonical (E502), section ids
(E503), no paragraph anchor where a section is cited (E504). The rules that consult the corpus are
in ``corpus_rules.py``, those on manifests in ``manifest_rules.py``, that on KG IRIs in
``kg_rules.py``.'''

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from pytest_citations.core.diagnostics import Edit, Fix, quoted
from pytest_citations.core.jsonlines import type_name
from pytest_citations.kinds.ear_ids.ids import is_part_id
from pytest_citations.kinds.ear_ids.records import CorpusRecord, DatasetRecord, verdict
from pytest_citations.rules import rule

if TYPE_CHECKING:
    from pytest_citations.contexts import RuleContext

KIND = "ear-ids"


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
    `EAR-736.2` and `EAR-736.2`. A RAG citation that names another regulation
    (`{"section_id": "741.3", "title": "12 CFR 741.3 Criteria"}`) is not an EAR citation: its id is
    left as it is.

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

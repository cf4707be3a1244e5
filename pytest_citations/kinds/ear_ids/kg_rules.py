'''The rule on KG section IRIs (E513): every IRI under the section namespace is the canonical
section id, percent-encoded as RFC 3986 requires.'''

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from pytest_citations.core.diagnostics import Edit, Fix, quoted
from pytest_citations.kinds.ear_ids.ids import (
    decode_section_segment,
    encode_section_id,
    is_section_id,
    normalize_ear_section_id,
)
from pytest_citations.kinds.ear_ids.kg import KgIri
from pytest_citations.rules import Finding, rule

if TYPE_CHECKING:
    from pytest_citations.contexts import RuleContext

KIND = "ear-ids"


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

'''Rules for synthesis briefs (B3xx): every claim bullet cited, every marker resolving to a
References entry and a stored citation object, and every object true to the store and registry.'''

from __future__ import annotations

import bisect
import operator
import re
from typing import Any

from pytest_citations.core.diagnostics import Severity, quoted
from pytest_citations.core.timestamps import parse_iso_8601
from pytest_citations.kinds.briefs.model import REQUIRED_FIELDS, Brief, sidecar_candidates
from pytest_citations.rules import Finding, rule

KIND = "briefs"

# -- the runnable examples share these files ----------------------------------------------------------

_CLAIMS = """\
### Counterarguments
- [Insufficient evidence to assess this claim]

### Minority View
- [Conflicting reports; unable to confirm]

### What to Watch
- [Data not yet available as of Feb 11, 2026]
"""
_REF1 = '[1] Federal Reserve. "FOMC Statement". Feb 10, 2026. https://www.federalreserve.gov/a.htm'
_REGISTRY = """\
sources:
  - id: fed_press_releases
    url: https://www.federalreserve.gov/feeds/press_all.xml
    credibility_tier: 1
    paywall_policy: full
  - id: ft_markets
    url: https://www.ft.com/markets
    credibility_tier: 2
    paywall_policy: metadata_only
  - id: zerohedge
    url: https://www.zerohedge.com/s/RSS
    credibility_tier: 4
    paywall_policy: full
"""
_OBJECT = (
    '{"id": "cite_1", "source_id": "fed_press_releases", "publisher": "Federal Reserve",\n'
    '   "doc_id": "doc_1", "chunk_id": "chunk_1", "url": "https://www.federalreserve.gov/a.htm",\n'
    '   "title": "FOMC Statement", "published_at": "2026-02-10T14:00:00Z",\n'
    '   "fetched_at": "2026-02-11T02:15:00Z"%s}'
)


def _brief(prevailing: str, references: str = _REF1) -> str:
    return f"### Prevailing View\n{prevailing}\n\n{_CLAIMS}\n### References\n{references}\n"


def _sidecar(extra: str = "", url: str | None = None, source: str | None = None) -> str:
    text = _OBJECT % extra
    if url:
        text = text.replace('"url": "https://www.federalreserve.gov/a.htm"', f'"url": "{url}"')
    if source:
        text = text.replace('"source_id": "fed_press_releases"', f'"source_id": "{source}"')
    return '{"citations": {"1":\n  ' + text + "}}\n"


def _files(brief: str, sidecar: str | None = None, registry: bool = False) -> str:
    parts = [f'```markdown title="brief.md"\n{brief}```\n']
    if sidecar is not None:
        parts.append(f'```json title="brief.citations.json"\n{sidecar}```\n')
    if registry:
        parts.append(f'```yaml title="source_registry.yaml"\n{_REGISTRY}```\n')
    return "\n".join(parts)


def _doc(what: str, why: str, bad: str, good: str, fix: str):
    text = (
        f"## What it does\n{what}\n\n## Why is this bad?\n{why}\n\n## Example\n\nBad:\n\n{bad}\nGood:\n\n{good}\n"
        f"## Fix\n{fix}\n"
    )

    def attach(function):
        function.__doc__ = text
        return function

    return attach


_STORE_SETTINGS = '```toml title="pyproject.toml"\n[tool.citations.kinds.briefs]\nevidence-store = "evidence.sql"\n```\n\n'


def _store(doc_id: str, chunk_id: str) -> str:
    return (
        '\n```sql title="evidence.sql"\n'
        "CREATE TABLE documents (id TEXT PRIMARY KEY, source_id TEXT, url TEXT, title TEXT,\n"
        "                        published_at TEXT, fetched_at TEXT);\n"
        "CREATE TABLE chunks (id TEXT PRIMARY KEY, doc_id TEXT, ordinal INTEGER, text TEXT);\n"
        "CREATE TABLE citations (id TEXT PRIMARY KEY);\n"
        "CREATE TABLE syntheses (id TEXT PRIMARY KEY, brief_path TEXT);\n"
        "CREATE TABLE synthesis_markers (synthesis_id TEXT, marker INTEGER, citation_id TEXT);\n"
        f"INSERT INTO documents (id, source_id, url) VALUES ('{doc_id}', 'fed_press_releases', 'https://www.federalreserve.gov/a.htm');\n"
        f"INSERT INTO chunks (id, doc_id) VALUES ('{chunk_id}', '{doc_id}');\n"
        "```\n"
    )


_GOOD = _files(_brief("- The Fed held rates. [1]"), _sidecar(), registry=True)


def _objects(brief: Brief) -> list[tuple[int, dict, Any]]:
    """(marker number, citation object, the marker where it is first cited) for cited objects;
    computed once per brief, for the many rules that walk them."""
    if "objects" not in brief.memo:
        citations = brief.citations or {}
        found = []
        for number in brief.cited_numbers():
            citation = citations.get(str(number))
            if isinstance(citation, dict):
                found.append((number, citation, brief.first_marker(number)))
        brief.memo["objects"] = found
    return brief.memo["objects"]


_REQUIRED_VALUES = operator.itemgetter(*REQUIRED_FIELDS)


def _has_every_field(citation: dict) -> bool:
    """Whether every required field of ``citation`` is a string with more than blanks, in C calls
    (B308 tests them one by one only for a citation that fails this): a missing field raises
    KeyError, a value that is no string TypeError (``str.strip`` takes strings only)."""
    try:
        return all(map(str.strip, _REQUIRED_VALUES(citation)))
    except (KeyError, TypeError):
        return False


def _at(marker, message: str) -> Finding:
    return Finding(message, marker.line, marker.col)


# -- the brief's own text ------------------------------------------------------------------------------


@rule("B301", "uncited-bullet", kind=KIND)
@_doc(
    "Reports a bullet in a claim section (Prevailing View, Counterarguments, Minority View, What to\n"
    "Watch) with no `[N]` citation marker. Every list item that shows something is a bullet, whatever\n"
    "block it is written as: a paragraph, an HTML block (`- <div>...</div>`, `- <!-- note --> ...`), a\n"
    "blockquote, a heading, a code block. A bullet that is one of spec §6's abstain markers, such as\n"
    "`[Insufficient evidence to assess this claim]`, needs none. Markers in code spans, code blocks,\n"
    "links and HTML comments do not count; only ASCII digits make a marker.",
    "The contract's absolute requirement: every claim bullet cites at least one stored evidence chunk.\n"
    "An uncited claim is one the reader cannot verify.",
    _files(_brief("- The Fed held rates.\n- Markets expect a cut. `[1]`\n- <div>Markets fell 2%.</div>"), _sidecar(), registry=True),
    _GOOD,
    "Cite the evidence after the claim (`[1]`), or replace the bullet with an abstain marker\n"
    "(`[Insufficient evidence to support this claim]`); `citations brief validate --fix` does the latter.",
)
def uncited_bullet(brief: Brief, ctx):
    for bullet in brief.bullets:
        if not bullet.markers and not bullet.abstain:
            yield Finding("claim bullet has no citation marker [N]", bullet.line, bullet.col)


@rule("B302", "marker-without-reference", kind=KIND)
@_doc(
    "Reports a marker `[N]` in a claim bullet that has no `[N]` entry in the References section.",
    "The reader cannot see what the marker cites, and the brief's presentation and its stored\n"
    "citations disagree.",
    _files(_brief("- The Fed held rates. [1][2]"), _sidecar(), registry=True),
    _GOOD,
    "Add the References entry, or remove the marker.",
)
def marker_without_reference(brief: Brief, ctx):
    numbers = {entry.number for entry in brief.entries}
    for bullet in brief.bullets:
        for marker in bullet.markers:
            if marker.number not in numbers:
                yield _at(marker, f"marker [{marker.number}] has no entry in the References section")


@rule("B303", "unused-reference", kind=KIND)
@_doc(
    "Reports a References entry that no claim bullet cites (except in §3.2's abstaining report, whose\n"
    "References list the sources that could not support a synthesis).",
    "A reference nothing cites pads the brief with sources that support none of its claims, and\n"
    "usually means a bullet lost its marker.",
    _files(
        _brief("- The Fed held rates. [1]", _REF1 + '\n[2] Reuters. "Fed holds". Feb 10, 2026. https://www.reuters.com/b'),
        _sidecar(), registry=True,
    ),
    _GOOD,
    "Cite the entry where it supports a claim, or remove it.",
)
def unused_reference(brief: Brief, ctx):
    if brief.abstaining:
        return  # §3.2: an abstaining report lists the sources that could not support a synthesis
    cited = set(brief.cited_numbers())
    for entry in brief.entries:
        if entry.number not in cited:
            yield Finding(f"References entry [{entry.number}] is never cited", entry.line, entry.col)


@rule("B304", "references-out-of-order", kind=KIND)
@_doc(
    "Reports References entries that are not numbered 1, 2, 3... in order: a number given twice, a gap\n"
    "in the numbering, or entries out of order. The entries reported out of order are the fewest whose\n"
    "moving would sort the rest, so a swapped pair `[2]`, `[1]` is one finding, on `[1]`.",
    "Spec §7.2 sorts references by citation number; gaps and repeats mean an entry was lost or\n"
    "renumbered by hand, and markers may now point at the wrong source.",
    _files(
        _brief(
            "- The Fed held rates. [1][3]",
            '[3] Reuters. "Fed holds". Feb 10, 2026. https://www.reuters.com/b\n' + _REF1,
        )
    ),
    _files(_brief("- The Fed held rates. [1]")),
    "Number the entries from 1 without gaps, in order; renumber the markers with them.",
)
def references_out_of_order(brief: Brief, ctx):
    firsts: list = []  # the first entry of each number, in the order written
    seen: dict[int, int] = {}
    for entry in brief.entries:
        if entry.number in seen:
            yield Finding(f"References entry [{entry.number}] is numbered twice (first on line {seen[entry.number]})", entry.line, entry.col)
        else:
            seen[entry.number] = entry.line
            firsts.append(entry)
    ordered = sorted(seen)
    below = dict(zip(ordered, [0, *ordered], strict=False))  # each number -> the next lower one written, or 0
    misplaced = _misplaced(firsts)
    wrong_place = _wrong_places(firsts) if misplaced else {}
    for index, entry in enumerate(firsts):
        if entry.number - 1 > below[entry.number]:
            yield Finding(f"References entry [{entry.number}] leaves a gap: expected [{below[entry.number] + 1}]", entry.line, entry.col)
        if index in misplaced:
            yield Finding(f"References entry [{entry.number}] {wrong_place[index]}: sort by citation number", entry.line, entry.col)


def _misplaced(entries: list) -> set[int]:
    """The indexes of the fewest ``entries`` that, moved, leave the rest in ascending order: those
    outside a longest ascending run of numbers (in n log n: a brief may hold thousands). Of equally
    long runs the one of the earliest entries is kept, so that a swapped pair ``[2] [1]`` reports
    the ``[1]`` that comes late."""
    # Runs are built from the last entry back: a run read backwards descends, so its negated
    # numbers ascend. tails[k] is the index of the entry that starts the best run of k + 1 entries
    # found so far, keys[k] its negated number; then[i] is the entry after entry i in its run.
    tails: list[int] = []
    keys: list[int] = []
    then: dict[int, int] = {}
    for index in range(len(entries) - 1, -1, -1):
        key = -entries[index].number
        place = bisect.bisect_left(keys, key)
        if place:
            then[index] = tails[place - 1]
        if place == len(keys):
            keys.append(key)
            tails.append(index)
        else:
            keys[place], tails[place] = key, index
    kept = set()
    index = tails[-1] if tails else None
    while index is not None:
        kept.add(index)
        index = then.get(index)
    return set(range(len(entries))) - kept


def _wrong_places(entries: list) -> dict[int, str]:
    """Where each entry would stand wrongly if misplaced: after the highest number before it, when
    that is higher, else before the lowest number after it (in linear time)."""
    highest_before, lowest_after = [], []
    highest = None
    for entry in entries:
        highest_before.append(highest)
        highest = entry.number if highest is None else max(highest, entry.number)
    lowest = None
    for entry in reversed(entries):
        lowest_after.append(lowest)
        lowest = entry.number if lowest is None else min(lowest, entry.number)
    lowest_after.reverse()
    places = {}
    for index, entry in enumerate(entries):
        if highest_before[index] is not None and highest_before[index] > entry.number:
            places[index] = f"comes after [{highest_before[index]}]"
        elif lowest_after[index] is not None and lowest_after[index] < entry.number:
            places[index] = f"comes before [{lowest_after[index]}]"
    return places


@rule("B305", "malformed-reference", kind=KIND)
@_doc(
    "Reports a References entry that does not follow spec §7.2:\n"
    '`[N] Publisher. "Title". Published <date>. <URL>`, optionally followed by `[Paywall]` and\n'
    "`[Monitor-only source]`, and says which part failed: no URL at the end (or text after it), no\n"
    "title in double quotes (or one never closed), no publisher ending in a period before it, or a date\n"
    "that is none. The spec fixes no date format: a month's name with the day before or after it\n"
    "(`Feb 10, 2026`, `10 February 2026`, `Feb. 10 2026`), an ISO 8601 date or date-time (`2026-02-10`,\n"
    "the citation's own `2026-02-10T14:00:00Z`) and `2026/02/10`, `10/02/2026` are dates; the date may\n"
    'be left out (calendar entries) and written without "Published" (`Feb 10, 2026.`, as in §10). Curly\n'
    "quotes (`“Title”`), emphasis around the publisher or title (`*\"Title\"*`) and a URL written as a\n"
    "Markdown link (`[https://...](https://...)`) or an autolink (`<https://...>`) are read too.",
    "A reference without a URL or title cannot be followed by the reader, and tools that render or\n"
    "check the brief cannot read it.",
    _files(_brief("- The Fed held rates. [1]", '[1] Anonymous. "Insider Fed leak". <no URL>')),
    _files(_brief("- The Fed held rates. [1]")),
    'Write the entry as `[N] Publisher. "Title". Published Feb 10, 2026. https://...`; the message says\n'
    "which part to mend.",
)
def malformed_reference(brief: Brief, ctx):
    for entry in brief.entries:
        if entry.problem is not None:
            yield Finding(
                f'References entry [{entry.number}] does not follow `[N] Publisher. "Title". Published <date>. <URL>`: {entry.problem}',
                entry.line, entry.col,
            )


@rule("B306", "marker-swallowed-by-link", kind=KIND)
@_doc(
    "Reports a `[N]` in a claim bullet that Markdown reads as a link, not a citation marker: most often\n"
    "because a link reference definition such as `[1]: https://...` exists in the file, which turns\n"
    "every `[1]` into a link to it. A `[N]` inside a link's text or destination, an autolink\n"
    "(`<https://x.example/[1]>`), an image or an HTML tag's attributes is reported too. The message\n"
    "says what Markdown read the `[N]` as, and names a definition only when one made the link.",
    "The bullet looks cited, but its marker is gone from the rendered brief and from any tool that\n"
    "reads the Markdown; the claim passes review uncited.",
    _files(
        "### Prevailing View\n- The Fed held rates. [1]\n\n" + _CLAIMS + "\n### References\n"
        "[1]: https://www.federalreserve.gov/a.htm\n"
    ),
    _files(_brief("- The Fed held rates. [1]")),
    'Write References entries in §7.2 form (`[1] Publisher. "Title". ... URL`), not as link definitions;\n'
    "write a marker after a link, autolink or HTML tag, not inside it.",
)
def marker_swallowed_by_link(brief: Brief, ctx):
    for marker, why in brief.swallowed:
        yield _at(marker, f"[{marker.number}] is read as {why}, not as a citation marker")


@rule("B317", "empty-claim-section", kind=KIND)
@_doc(
    "Reports a claim section with no bullets, and a claim section the brief lacks.",
    "Spec §3.2: an empty section means the synthesis must be retried; a section that abstains says so\n"
    "with an abstain marker bullet instead.",
    _files("### Prevailing View\n- The Fed held rates. [1]\n\n### Counterarguments\n\n### References\n" + _REF1 + "\n"),
    _files(_brief("- The Fed held rates. [1]")),
    "Add the section's bullets, or one abstain marker bullet such as\n"
    "`[Insufficient evidence to represent minority views on this topic]`.",
)
def empty_claim_section(brief: Brief, ctx):
    if brief.abstaining:
        return  # §3.2's abstaining report has no claim sections; B335 checks its own
    for section in brief.sections.values():
        if not section.bullets:
            yield Finding(f"claim section '{section.title}' has no bullets", section.line, 1)
    for title in brief.missing_sections:
        yield Finding(f"claim section '{title}' is missing", 1, 1)


# -- stored citation objects ----------------------------------------------------------------------------


@rule("B307", "missing-citation-object", kind=KIND)
@_doc(
    "Reports a marker `[N]` with no stored citation object (spec §1): neither the brief's sidecar\n"
    '`<brief>.citations.json` (`{"citations": {"N": {...}}}`) nor the evidence store holds one for it.',
    "The rendered `[N]` is presentation only; the validator works on stored objects (§2). A marker\n"
    "with no object cites evidence nobody retrieved.",
    _files(_brief("- The Fed held rates. [1][2]", _REF1 + '\n[2] Reuters. "Fed holds". Feb 10, 2026. https://www.reuters.com/b'),
           _sidecar(), registry=True),
    _GOOD,
    "Store the citation object under the marker's number, or remove the marker.",
)
def missing_citation_object(brief: Brief, ctx):
    numbers = brief.cited_numbers()
    if brief.citations is None:
        if numbers and brief.citation_source is None:  # an unreadable sidecar is B318's
            marker = brief.first_marker(numbers[0])
            yield _at(marker, f"no stored citation objects: no sidecar {sidecar_candidates(brief.rel)[0]} and no synthesis for this brief in an evidence store")
        return
    for number in numbers:
        if str(number) not in brief.citations:
            yield _at(brief.first_marker(number), f"marker [{number}] has no stored citation object in {brief.citation_source}")


@rule("B308", "citation-missing-field", kind=KIND)
@_doc(
    "Reports a stored citation object that lacks a required field of spec §1 (`id`, `source_id`,\n"
    "`publisher`, `doc_id`, `chunk_id`, `url`, `title`, `published_at`, `fetched_at`) or holds one that\n"
    "is not a non-empty string.",
    "Without its URL or publication date a citation cannot be verified; without `source_id` it cannot\n"
    "be checked against the registry. The contract rejects such citations.",
    _files(_brief("- The Fed held rates. [1]"), _sidecar().replace('"url": "https://www.federalreserve.gov/a.htm",', '"url": null,'),
           registry=True),
    _GOOD,
    "Store every required field; `citations brief validate --fix` removes the citation from the bullet.",
)
def citation_missing_field(brief: Brief, ctx):
    for number, citation, marker in _objects(brief):
        if _has_every_field(citation):
            continue
        missing = [f for f in REQUIRED_FIELDS if not (isinstance(value := citation.get(f), str) and value.strip())]
        if missing:
            yield _at(marker, f"citation [{number}] lacks required field{'s' if len(missing) > 1 else ''} {', '.join(missing)}")


@rule("B309", "citation-not-in-store", kind=KIND)
@_doc(
    "With an evidence store configured (`evidence-store`), reports a citation whose `doc_id` is not a\n"
    "stored document, whose `chunk_id` is not a stored chunk, or whose chunk belongs to another\n"
    "document. The store is opened read-only.",
    "A citation must point at evidence that was actually retrieved and stored; an id the store does\n"
    "not hold is fabricated or was lost.",
    _STORE_SETTINGS + _files(_brief("- The Fed held rates. [1]"), _sidecar(), registry=True) + _store("doc_2", "chunk_2"),
    _STORE_SETTINGS + _files(_brief("- The Fed held rates. [1]"), _sidecar(), registry=True) + _store("doc_1", "chunk_1"),
    "Cite the stored document and chunk the claim came from.",
)
def citation_not_in_store(brief: Brief, ctx):
    store = brief.store
    if store is None:
        return
    objects = _objects(brief)
    if not store.holds_every_id():
        store.preload(*([c[key] for _, c, _ in objects if isinstance(c.get(key), str) and c[key]] for key in ("doc_id", "chunk_id")))
    for number, citation, marker in objects:
        doc_id, chunk_id = citation.get("doc_id"), citation.get("chunk_id")
        if isinstance(doc_id, str) and doc_id and not store.has_document(doc_id):
            yield _at(marker, f"citation [{number}]: doc_id {quoted(doc_id)} is not in the evidence store {store.rel}")
        if isinstance(chunk_id, str) and chunk_id:
            owner = store.chunk_document(chunk_id)
            if owner is None:
                yield _at(marker, f"citation [{number}]: chunk_id {quoted(chunk_id)} is not in the evidence store {store.rel}")
            elif isinstance(doc_id, str) and owner != doc_id:
                yield _at(marker, f"citation [{number}]: chunk_id {quoted(chunk_id)} belongs to document {quoted(owner)}, not {quoted(doc_id)}")


@rule("B310", "evidence-store-not-configured", kind=KIND, severity=Severity.WARNING)
@_doc(
    "Warns, once per brief, that no evidence store is configured, so `doc_id`/`chunk_id` resolution\n"
    "(spec §3 step 3) cannot be proven. Set `evidence-store` under `[tool.citations.kinds.briefs]`.",
    "A sidecar says which document and chunk a citation names, but only the store can say that they\n"
    "exist. A check that cannot prove it must say so rather than pass.",
    _files(_brief("- The Fed held rates. [1]"), _sidecar(), registry=True),
    _STORE_SETTINGS + _files(_brief("- The Fed held rates. [1]"), _sidecar(), registry=True) + _store("doc_1", "chunk_1"),
    "Build a store with `citations store init` and `citations store import`, and name it in the settings.",
)
def evidence_store_not_configured(brief: Brief, ctx):
    if brief.store is None and not ctx.kind_options.get("evidence-store") and brief.citations:
        marker = brief.first_marker(brief.cited_numbers()[0]) if brief.cited_numbers() else None
        line, col = (marker.line, marker.col) if marker else (1, 1)
        yield Finding("no evidence store is configured: doc_id/chunk_id resolution is not proven for this brief", line, col)


# -- the source registry --------------------------------------------------------------------------------


@rule("B311", "unknown-source-id", kind=KIND)
@_doc(
    "Reports a citation whose `source_id` is not an `id` in the source registry\n"
    "(`source_registry.yaml` at the repository root, or the `registry` setting), and, once per brief,\n"
    "a brief whose citations name sources while that registry file does not exist: nothing the\n"
    "registry decides (source ids, URLs, tiers, paywall policies) can then be checked.",
    "Tiers, tags and paywall policy all come from the registry: a source it does not list has none,\n"
    "so none of the contract's quality rules can apply to it.",
    _files(_brief("- The Fed held rates. [1]"), _sidecar(source="fed_blog"), registry=True),
    _GOOD,
    "Use the registry's id for the source, or add the source to the registry; without a registry, add\n"
    "one, or point the `registry` setting at it.",
)
def unknown_source_id(brief: Brief, ctx):
    objects = list(_objects(brief))
    if brief.registry is None:
        if objects and any(isinstance(c.get("source_id"), str) for _, c, _ in objects):
            yield _at(objects[0][2], (
                f"the source registry {brief.registry_rel} does not exist, so no citation's source_id, URL, tier or "
                "paywall policy can be checked: add it at the repository root, or set registry under "
                "[tool.citations.kinds.briefs] to the file that lists the sources"
            ))
        return
    for number, citation, marker in objects:
        source_id = citation.get("source_id")
        if isinstance(source_id, str) and source_id and source_id not in brief.registry.sources:
            yield _at(marker, f"citation [{number}]: source_id {quoted(source_id)} is not in {brief.registry.rel}")


@rule("B312", "url-registry-mismatch", kind=KIND)
@_doc(
    "Reports a citation whose `url` does not match its source's registry entry: the entry's `url` by\n"
    "scheme and host (the same host or a subdomain of it; a leading `www.` on the registry host is\n"
    "ignored; an `https` citation matches an `http` entry), or one of the hosts the source publishes on,\n"
    "named by the entry's `article_hosts` list or the `source-hosts` setting. With `url-match =\n"
    "\"domain\"` registrable domains are compared instead (`apps.bea.gov` matches `www.bea.gov`). The\n"
    "message says which of these would make the URL match.",
    "A URL on another site than the source it claims is a mislabelled citation: its tier and paywall\n"
    "policy are someone else's.",
    _files(_brief("- The Fed held rates. [1]"), _sidecar(url="https://www.federalreserve.gov.example.com/a"), registry=True),
    _GOOD,
    "Correct the `source_id` or the `url`. When the source does publish there (a registry naming a feed\n"
    "on another site, such as `reutersagency.com` for articles on `reuters.com`), list the host in the\n"
    "entry's `article_hosts: [reuters.com]`, or in the setting `source-hosts =\n"
    "[\"reuters_business = reuters.com\"]`; for sibling hosts of one domain set `url-match = \"domain\"`.",
)
def url_registry_mismatch(brief: Brief, ctx):
    from pytest_citations.kinds.briefs.source_registry import source_url_matches

    if brief.registry is None:
        return
    mode = ctx.kind_options.get("url-match", "host")
    for number, citation, marker in _objects(brief):
        source = brief.registry.sources.get(citation.get("source_id"))
        url = citation.get("url")
        if source is None or not isinstance(url, str) or not url or not (isinstance(source.url, str) or source.article_hosts):
            continue
        if not source_url_matches(url, source, mode, brief.source_hosts.get(source.id, ())):
            listed = f"the registry URL of {source.id} ({source.url})" if isinstance(source.url, str) else f"the registry entry of {source.id}"
            if source.article_hosts:
                listed += f" nor its article_hosts ({', '.join(source.article_hosts)})"
            yield _at(marker, f"citation [{number}]: url {quoted(url, plain=True)} does not match {listed}{_how_to_match(url, source, mode, brief.registry.rel)}")


def _how_to_match(url: str, source, mode: str, registry_rel: str) -> str:
    """The end of B312's message: what would make ``url`` match ``source``, when it is a setting
    or a registry field."""
    from pytest_citations.kinds.briefs.source_registry import host_of, registrable_domain, url_matches

    host = host_of(url)
    if host is None:
        return ": it is not an http(s) URL with a host"
    listed = host_of(source.url) if isinstance(source.url, str) else None
    if listed is not None and url[:7].lower() == "http://" and url_matches("https://" + url[7:], source.url, mode):
        return ": the citation's URL is http, the registry's https"
    if mode == "host" and listed is not None and registrable_domain(host) == registrable_domain(listed):
        return (f": both hosts are on {registrable_domain(host)}: set url-match = \"domain\", "
                f"or list {host} in its article_hosts in {registry_rel}")
    return (f": if {source.id} publishes on {host}, list the host in its article_hosts in {registry_rel} "
            f"(or add \"{source.id} = {host}\" to the source-hosts setting)")


@rule("B313", "invalid-citation-timestamp", kind=KIND)
@_doc(
    "Reports a citation whose `published_at` or `fetched_at` is not an ISO 8601 date or date-time,\n"
    "or whose `fetched_at` is before its `published_at`.",
    "Recency rules and the reader's trust depend on these dates; a document cannot have been fetched\n"
    "before it was published.",
    _files(_brief("- The Fed held rates. [1]"), _sidecar().replace("2026-02-11T02:15:00Z", "2026-02-09T02:15:00Z"), registry=True),
    _GOOD,
    "Store the timestamps as ISO 8601 (`2026-02-10T14:00:00Z`), as published and as fetched.",
)
def invalid_citation_timestamp(brief: Brief, ctx):
    for number, citation, marker in _objects(brief):
        moments = {}
        for key in ("published_at", "fetched_at"):
            value = citation.get(key)
            if value is None or value == "":
                continue  # B308 reports a missing field
            moments[key] = parse_iso_8601(value)
            if moments[key] is None:
                yield _at(marker, f"citation [{number}]: {key} {quoted(value)} is not an ISO 8601 date-time")
        published, fetched = moments.get("published_at"), moments.get("fetched_at")
        if published and fetched and fetched < published:
            yield _at(
                marker,
                f"citation [{number}]: fetched_at {citation['fetched_at']} is before published_at {citation['published_at']}",
            )


@rule("B314", "quote-span-on-paywalled-source", kind=KIND)
@_doc(
    "Reports a citation with a `quote_span` whose source the registry marks `paywall_policy:\n"
    "metadata_only`.",
    "Spec §5: paywalled full text must never be stored, extracted or fabricated; only the headline or\n"
    "RSS snippet (`snippet_span`) may be cited.",
    _files(
        _brief("- Stocks fell. [1]", '[1] Financial Times. "Stocks tumble". Feb 10, 2026. https://www.ft.com/content/1 [Paywall]'),
        _sidecar(', "quote_span": {"start": 0, "end": 9, "text": "Stocks fell"}', url="https://www.ft.com/content/1", source="ft_markets"),
        registry=True,
    ),
    _files(
        _brief("- Stocks fell. [1]", '[1] Financial Times. "Stocks tumble". Feb 10, 2026. https://www.ft.com/content/1 [Paywall]'),
        _sidecar(', "snippet_span": {"text": "Stocks tumble"}', url="https://www.ft.com/content/1", source="ft_markets"),
        registry=True,
    ),
    "Remove the `quote_span` (keep a `snippet_span`); `citations brief validate --fix` strips it.",
)
def quote_span_on_paywalled_source(brief: Brief, ctx):
    if brief.registry is None:
        return
    for number, citation, marker in _objects(brief):
        source = brief.registry.sources.get(citation.get("source_id"))
        if source is not None and source.paywall_policy == "metadata_only" and citation.get("quote_span") is not None:
            yield _at(marker, f"citation [{number}]: quote_span on {source.id}, whose paywall_policy is metadata_only")


def _tag_rule(brief: Brief, tag: str, wants) -> list[Finding]:
    found = []
    if brief.registry is None:
        return found
    for number, citation, _ in _objects(brief):
        source = brief.registry.sources.get(citation.get("source_id"))
        entry = brief.entry(number)
        if source is not None and entry is not None and entry.reference is not None and wants(source) and tag not in entry.tags:
            found.append(Finding(f"References entry [{number}] cites {source.id} and lacks the [{tag}] tag", entry.line, entry.col))
    return found


@rule("B315", "missing-paywall-tag", kind=KIND)
@_doc(
    "Reports a References entry citing a source whose registry `paywall_policy` is `metadata_only`\n"
    "without the `[Paywall]` tag.",
    "Spec §5 and §7.2: the reader must know a link is paywalled and that the citation rests on the\n"
    "headline or snippet only.",
    _files(
        _brief("- Stocks fell. [1]", '[1] Financial Times. "Stocks tumble". Feb 10, 2026. https://www.ft.com/content/1'),
        _sidecar(url="https://www.ft.com/content/1", source="ft_markets"), registry=True,
    ),
    _files(
        _brief("- Stocks fell. [1]", '[1] Financial Times. "Stocks tumble". Feb 10, 2026. https://www.ft.com/content/1 [Paywall]'),
        _sidecar(url="https://www.ft.com/content/1", source="ft_markets"), registry=True,
    ),
    "Append ` [Paywall]` to the entry.",
)
def missing_paywall_tag(brief: Brief, ctx):
    yield from _tag_rule(brief, "Paywall", lambda s: s.paywall_policy == "metadata_only")


@rule("B316", "missing-monitor-only-tag", kind=KIND)
@_doc(
    "Reports a References entry citing a Tier 4 source (`credibility_tier: 4` in the registry) without\n"
    "the `[Monitor-only source]` tag.",
    "Tier 4 sources are low-trust, kept for minority-view discovery; spec §7.2 requires the reader to\n"
    "be told.",
    _files(
        _brief("- Deflation looms. [1]", '[1] Zero Hedge. "Deflation warnings". Feb 11, 2026. https://www.zerohedge.com/a'),
        _sidecar(url="https://www.zerohedge.com/a", source="zerohedge"), registry=True,
    ),
    _files(
        _brief(
            "- Deflation looms. [1]",
            '[1] Zero Hedge. "Deflation warnings". Feb 11, 2026. https://www.zerohedge.com/a [Monitor-only source]',
        ),
        _sidecar(url="https://www.zerohedge.com/a", source="zerohedge"), registry=True,
    ),
    "Append ` [Monitor-only source]` to the entry.",
)
def missing_monitor_only_tag(brief: Brief, ctx):
    yield from _tag_rule(brief, "Monitor-only source", lambda s: s.credibility_tier == 4)


@rule("B336", "reference-url-mismatch", kind=KIND)
@_doc(
    "Reports a References entry whose URL is not its stored citation object's `url`: a URL on another\n"
    "site, or another page of the same site. The two are compared as spec normalization compares URLs\n"
    "(`citations-jsonl-v1.md`: the case of scheme and host, default ports, tracking parameters, the\n"
    "fragment, a trailing slash), a leading `www.` and the scheme aside. An entry that shortens its URL\n"
    "with an ellipsis, as spec §7.2 and §10 do (`https://www.federalreserve.gov/...`), must name the\n"
    "citation's site and begin its URL; `https://...` names none and is not compared. The publisher,\n"
    "title and date of the entry are not compared (docs/briefs.md says why).",
    "The validator checks the stored object, but the reader follows the printed URL (spec §11.6: the\n"
    "user can verify). An entry that links elsewhere sends the reader to a page the claim was never\n"
    "checked against: a phantom citation in all but name.",
    _files(_brief("- The Fed held rates. [1]", _REF1.replace("https://www.federalreserve.gov/a.htm", "https://www.reuters.com/a")),
           _sidecar(), registry=True),
    _GOOD,
    "Print the stored citation's URL in the entry, or store the object of the page the entry names.",
)
def reference_url_mismatch(brief: Brief, ctx):
    citations = brief.citations or {}
    for number in dict.fromkeys(entry.number for entry in brief.entries):
        entry, citation = brief.entry(number), citations.get(str(number))
        stored = citation.get("url") if isinstance(citation, dict) else None
        if entry.url is None or not isinstance(stored, str):
            continue  # an entry not in §7.2's form is B305's, a missing object B307's, a missing url B308's
        problem = _reference_url_problem(entry.url, stored)
        if problem is not None:
            yield Finding(f"References entry [{number}] {problem}", entry.line, entry.col)


def _reference_url_problem(shown: str, stored: str) -> str | None:
    """How the URL an entry shows differs from its citation's stored URL; None when it does not
    (or either names no http(s) host: the entry's ``https://...``, a stored url B308/B312 report)."""
    from pytest_citations.kinds.briefs.source_registry import host_of

    elided = shown.endswith(("...", "\u2026"))
    written = shown.rstrip(".\u2026") if elided else shown
    shown_host, stored_host = host_of(written), host_of(stored)
    if shown_host is None or stored_host is None:
        return None
    if _site(shown_host) != _site(stored_host):
        return (f"links to {shown_host} ({quoted(shown, plain=True)}), but its stored citation object's url is on "
                f"{stored_host} ({quoted(stored, plain=True)})")
    if elided:
        if _address_on_site(stored, normalize=False).startswith(_address_on_site(written, normalize=False)):
            return None
        return f"links to {quoted(shown, plain=True)}, which does not begin its stored citation object's url {quoted(stored, plain=True)}"
    if _address_on_site(shown) == _address_on_site(stored):
        return None
    return f"links to {quoted(shown, plain=True)}, not to its stored citation object's url {quoted(stored, plain=True)}"


def _site(host: str) -> str:
    """A host without its leading ``www.``: the same site for a reader."""
    return host[4:] if host.startswith("www.") else host


_AUTHORITY = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*")


def _address_on_site(url: str, normalize: bool = True) -> str:
    """What follows a URL's scheme and host (path, query, fragment), after spec normalization
    (``normalize``, when the URL allows it)."""
    url = _normalized(url.strip()) if normalize else url.strip()
    found = _AUTHORITY.match(url)
    return url[found.end() :] if found else url


def _normalized(url: str) -> str:
    """``url`` under the url-citations spec's normalization; as it is when it is no absolute URL."""
    from pytest_citations.kinds.url_citations.urls import NotAbsoluteURL, normalize_url

    try:
        return normalize_url(url)
    except NotAbsoluteURL:
        return url


# -- parser-reported ------------------------------------------------------------------------------------


@rule("B318", "citation-objects-unreadable", kind=KIND, scope="engine")
@_doc(
    "Reports a sidecar `<brief>.citations.json` that is not strict JSON (duplicate keys, NaN, too\n"
    'deep) or not of the shape `{"citations": {"1": {...}}}`, and an `evidence-store` that is missing,\n'
    "outside the repository or not a store built by `citations store init`.",
    "The brief's citations cannot be resolved at all; every marker would otherwise look unresolved,\n"
    "or worse, pass unchecked.",
    _files(_brief("- The Fed held rates. [1]"), '{"citations": {"1": {"id": "a"}, "1": {"id": "b"}}}\n'),
    _files(_brief("- The Fed held rates. [1]"), _sidecar()),
    "Write the sidecar as one JSON object mapping marker numbers to citation objects; build the store\n"
    "with `citations store init`.",
)
def citation_objects_unreadable():
    pass


@rule("B319", "source-registry-invalid", kind=KIND, scope="engine")
@_doc(
    "Reports a source registry that cannot be read safely: a YAML syntax error, an anchor or alias, a\n"
    "tag outside the core schema, a duplicate key or source id, or no `sources:` list; an entry's\n"
    "`article_hosts` that is not a list of host names; and an item of the `source-hosts` setting that is\n"
    "not `\"source_id = host\"` or names a source the registry lacks.",
    "Tiers and paywall policies from a registry that loaders read differently (or that can run code)\n"
    "cannot be trusted.",
    _files(_brief("- The Fed held rates. [1]"), _sidecar())
    + '\n```yaml title="source_registry.yaml"\nsources:\n  - id: fed_press_releases\n    url: &u https://www.federalreserve.gov/\n```\n',
    _GOOD,
    "Write the registry as plain YAML: a `sources:` list of mappings with unique ids; write hosts alone\n"
    "(`www.reuters.com`, not a URL).",
)
def source_registry_invalid():
    pass

'''Rules on a brief's own text (B3xx): every claim bullet cited (B301), every marker resolving to a
References entry and every entry cited (B302, B303), the entries numbered in order and written in
§7.2's form (B304, B305), no marker read as a link (B306), no claim section empty or missing
(B317), and an abstaining report complete (B335).'''

from __future__ import annotations

import bisect

from pytest_citations.kinds.briefs.citations import _at
from pytest_citations.kinds.briefs.headings import heading_key
from pytest_citations.kinds.briefs.model import Brief
from pytest_citations.kinds.briefs.recognition import ABSTAIN_SECTIONS
from pytest_citations.rules import Finding, rule

KIND = "briefs"


@rule("B301", "uncited-bullet", kind=KIND)
def uncited_bullet(brief: Brief, ctx):
    """
    ## What it does
    Reports a bullet in a claim section (Prevailing View, Counterarguments, Minority View, What to
    Watch) with no `[N]` citation marker. Every list item that shows something is a bullet, whatever
    block it is written as: a paragraph, an HTML block (`- <div>...</div>`, `- <!-- note --> ...`), a
    blockquote, a heading, a code block. A bullet that is one of spec §6's abstain markers, such as
    `[Insufficient evidence to assess this claim]`, needs none. Markers in code spans, code blocks,
    links and HTML comments do not count; only ASCII digits make a marker.

    ## Why is this bad?
    The contract's absolute requirement: every claim bullet cites at least one stored evidence chunk.
    An uncited claim is one the reader cannot verify.

    ## Example

    Bad:

    ```markdown title="brief.md"
    ### Prevailing View
    - The Fed held rates.
    - Markets expect a cut. `[1]`
    - <div>Markets fell 2%.</div>

    ### Counterarguments
    - [Insufficient evidence to assess this claim]

    ### Minority View
    - [Conflicting reports; unable to confirm]

    ### What to Watch
    - [Data not yet available as of Feb 11, 2026]

    ### References
    [1] Federal Reserve. "FOMC Statement". Feb 10, 2026. https://www.federalreserve.gov/a.htm
    ```

    ```json title="brief.citations.json"
    {"citations": {"1":
      {"id": "cite_1", "source_id": "fed_press_releases", "publisher": "Federal Reserve",
       "doc_id": "doc_1", "chunk_id": "chunk_1", "url": "https://www.federalreserve.gov/a.htm",
       "title": "FOMC Statement", "published_at": "2026-02-10T14:00:00Z",
       "fetched_at": "2026-02-11T02:15:00Z"}}}
    ```

    ```yaml title="source_registry.yaml"
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
    ```

    Good:

    ```markdown title="brief.md"
    ### Prevailing View
    - The Fed held rates. [1]

    ### Counterarguments
    - [Insufficient evidence to assess this claim]

    ### Minority View
    - [Conflicting reports; unable to confirm]

    ### What to Watch
    - [Data not yet available as of Feb 11, 2026]

    ### References
    [1] Federal Reserve. "FOMC Statement". Feb 10, 2026. https://www.federalreserve.gov/a.htm
    ```

    ```json title="brief.citations.json"
    {"citations": {"1":
      {"id": "cite_1", "source_id": "fed_press_releases", "publisher": "Federal Reserve",
       "doc_id": "doc_1", "chunk_id": "chunk_1", "url": "https://www.federalreserve.gov/a.htm",
       "title": "FOMC Statement", "published_at": "2026-02-10T14:00:00Z",
       "fetched_at": "2026-02-11T02:15:00Z"}}}
    ```

    ```yaml title="source_registry.yaml"
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
    ```

    ## Fix
    Cite the evidence after the claim (`[1]`), or replace the bullet with an abstain marker
    (`[Insufficient evidence to support this claim]`); `citations brief validate --fix` does the latter.
    """
    for bullet in brief.bullets:
        if not bullet.markers and not bullet.abstain:
            yield Finding("claim bullet has no citation marker [N]", bullet.line, bullet.col)


@rule("B302", "marker-without-reference", kind=KIND)
def marker_without_reference(brief: Brief, ctx):
    """
    ## What it does
    Reports a marker `[N]` in a claim bullet that has no `[N]` entry in the References section.

    ## Why is this bad?
    The reader cannot see what the marker cites, and the brief's presentation and its stored
    citations disagree.

    ## Example

    Bad:

    ```markdown title="brief.md"
    ### Prevailing View
    - The Fed held rates. [1][2]

    ### Counterarguments
    - [Insufficient evidence to assess this claim]

    ### Minority View
    - [Conflicting reports; unable to confirm]

    ### What to Watch
    - [Data not yet available as of Feb 11, 2026]

    ### References
    [1] Federal Reserve. "FOMC Statement". Feb 10, 2026. https://www.federalreserve.gov/a.htm
    ```

    ```json title="brief.citations.json"
    {"citations": {"1":
      {"id": "cite_1", "source_id": "fed_press_releases", "publisher": "Federal Reserve",
       "doc_id": "doc_1", "chunk_id": "chunk_1", "url": "https://www.federalreserve.gov/a.htm",
       "title": "FOMC Statement", "published_at": "2026-02-10T14:00:00Z",
       "fetched_at": "2026-02-11T02:15:00Z"}}}
    ```

    ```yaml title="source_registry.yaml"
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
    ```

    Good:

    ```markdown title="brief.md"
    ### Prevailing View
    - The Fed held rates. [1]

    ### Counterarguments
    - [Insufficient evidence to assess this claim]

    ### Minority View
    - [Conflicting reports; unable to confirm]

    ### What to Watch
    - [Data not yet available as of Feb 11, 2026]

    ### References
    [1] Federal Reserve. "FOMC Statement". Feb 10, 2026. https://www.federalreserve.gov/a.htm
    ```

    ```json title="brief.citations.json"
    {"citations": {"1":
      {"id": "cite_1", "source_id": "fed_press_releases", "publisher": "Federal Reserve",
       "doc_id": "doc_1", "chunk_id": "chunk_1", "url": "https://www.federalreserve.gov/a.htm",
       "title": "FOMC Statement", "published_at": "2026-02-10T14:00:00Z",
       "fetched_at": "2026-02-11T02:15:00Z"}}}
    ```

    ```yaml title="source_registry.yaml"
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
    ```

    ## Fix
    Add the References entry, or remove the marker.
    """
    numbers = {entry.number for entry in brief.entries}
    for bullet in brief.bullets:
        for marker in bullet.markers:
            if marker.number not in numbers:
                yield _at(marker, f"marker [{marker.number}] has no entry in the References section")


@rule("B303", "unused-reference", kind=KIND)
def unused_reference(brief: Brief, ctx):
    """
    ## What it does
    Reports a References entry that no claim bullet cites (except in §3.2's abstaining report, whose
    References list the sources that could not support a synthesis).

    ## Why is this bad?
    A reference nothing cites pads the brief with sources that support none of its claims, and
    usually means a bullet lost its marker.

    ## Example

    Bad:

    ```markdown title="brief.md"
    ### Prevailing View
    - The Fed held rates. [1]

    ### Counterarguments
    - [Insufficient evidence to assess this claim]

    ### Minority View
    - [Conflicting reports; unable to confirm]

    ### What to Watch
    - [Data not yet available as of Feb 11, 2026]

    ### References
    [1] Federal Reserve. "FOMC Statement". Feb 10, 2026. https://www.federalreserve.gov/a.htm
    [2] Reuters. "Fed holds". Feb 10, 2026. https://www.reuters.com/b
    ```

    ```json title="brief.citations.json"
    {"citations": {"1":
      {"id": "cite_1", "source_id": "fed_press_releases", "publisher": "Federal Reserve",
       "doc_id": "doc_1", "chunk_id": "chunk_1", "url": "https://www.federalreserve.gov/a.htm",
       "title": "FOMC Statement", "published_at": "2026-02-10T14:00:00Z",
       "fetched_at": "2026-02-11T02:15:00Z"}}}
    ```

    ```yaml title="source_registry.yaml"
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
    ```

    Good:

    ```markdown title="brief.md"
    ### Prevailing View
    - The Fed held rates. [1]

    ### Counterarguments
    - [Insufficient evidence to assess this claim]

    ### Minority View
    - [Conflicting reports; unable to confirm]

    ### What to Watch
    - [Data not yet available as of Feb 11, 2026]

    ### References
    [1] Federal Reserve. "FOMC Statement". Feb 10, 2026. https://www.federalreserve.gov/a.htm
    ```

    ```json title="brief.citations.json"
    {"citations": {"1":
      {"id": "cite_1", "source_id": "fed_press_releases", "publisher": "Federal Reserve",
       "doc_id": "doc_1", "chunk_id": "chunk_1", "url": "https://www.federalreserve.gov/a.htm",
       "title": "FOMC Statement", "published_at": "2026-02-10T14:00:00Z",
       "fetched_at": "2026-02-11T02:15:00Z"}}}
    ```

    ```yaml title="source_registry.yaml"
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
    ```

    ## Fix
    Cite the entry where it supports a claim, or remove it.
    """
    if brief.abstaining:
        return  # §3.2: an abstaining report lists the sources that could not support a synthesis
    cited = set(brief.cited_numbers())
    for entry in brief.entries:
        if entry.number not in cited:
            yield Finding(f"References entry [{entry.number}] is never cited", entry.line, entry.col)


@rule("B304", "references-out-of-order", kind=KIND)
def references_out_of_order(brief: Brief, ctx):
    """
    ## What it does
    Reports References entries that are not numbered 1, 2, 3... in order: a number given twice, a gap
    in the numbering, or entries out of order. The entries reported out of order are the fewest whose
    moving would sort the rest, so a swapped pair `[2]`, `[1]` is one finding, on `[1]`.

    ## Why is this bad?
    Spec §7.2 sorts references by citation number; gaps and repeats mean an entry was lost or
    renumbered by hand, and markers may now point at the wrong source.

    ## Example

    Bad:

    ```markdown title="brief.md"
    ### Prevailing View
    - The Fed held rates. [1][3]

    ### Counterarguments
    - [Insufficient evidence to assess this claim]

    ### Minority View
    - [Conflicting reports; unable to confirm]

    ### What to Watch
    - [Data not yet available as of Feb 11, 2026]

    ### References
    [3] Reuters. "Fed holds". Feb 10, 2026. https://www.reuters.com/b
    [1] Federal Reserve. "FOMC Statement". Feb 10, 2026. https://www.federalreserve.gov/a.htm
    ```

    Good:

    ```markdown title="brief.md"
    ### Prevailing View
    - The Fed held rates. [1]

    ### Counterarguments
    - [Insufficient evidence to assess this claim]

    ### Minority View
    - [Conflicting reports; unable to confirm]

    ### What to Watch
    - [Data not yet available as of Feb 11, 2026]

    ### References
    [1] Federal Reserve. "FOMC Statement". Feb 10, 2026. https://www.federalreserve.gov/a.htm
    ```

    ## Fix
    Number the entries from 1 without gaps, in order; renumber the markers with them.
    """
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
    link = tails[-1] if tails else None
    while link is not None:
        kept.add(link)
        link = then.get(link)
    return set(range(len(entries))) - kept


def _wrong_places(entries: list) -> dict[int, str]:
    """Where each entry would stand wrongly if misplaced: after the highest number before it, when
    that is higher, else before the lowest number after it (in linear time)."""
    highest_before: list[int | None] = []
    lowest_after: list[int | None] = []
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
def malformed_reference(brief: Brief, ctx):
    """
    ## What it does
    Reports a References entry that does not follow spec §7.2:
    `[N] Publisher. "Title". Published <date>. <URL>`, optionally followed by `[Paywall]` and
    `[Monitor-only source]`, and says which part failed: no URL at the end (or text after it), no
    title in double quotes (or one never closed), no publisher ending in a period before it, or a date
    that is none. The spec fixes no date format: a month's name with the day before or after it
    (`Feb 10, 2026`, `10 February 2026`, `Feb. 10 2026`), an ISO 8601 date or date-time (`2026-02-10`,
    the citation's own `2026-02-10T14:00:00Z`) and `2026/02/10`, `10/02/2026` are dates; the date may
    be left out (calendar entries) and written without "Published" (`Feb 10, 2026.`, as in §10). Curly
    quotes (`“Title”`), emphasis around the publisher or title (`*"Title"*`) and a URL written as a
    Markdown link (`[https://...](https://...)`) or an autolink (`<https://...>`) are read too.

    ## Why is this bad?
    A reference without a URL or title cannot be followed by the reader, and tools that render or
    check the brief cannot read it.

    ## Example

    Bad:

    ```markdown title="brief.md"
    ### Prevailing View
    - The Fed held rates. [1]

    ### Counterarguments
    - [Insufficient evidence to assess this claim]

    ### Minority View
    - [Conflicting reports; unable to confirm]

    ### What to Watch
    - [Data not yet available as of Feb 11, 2026]

    ### References
    [1] Anonymous. "Insider Fed leak". <no URL>
    ```

    Good:

    ```markdown title="brief.md"
    ### Prevailing View
    - The Fed held rates. [1]

    ### Counterarguments
    - [Insufficient evidence to assess this claim]

    ### Minority View
    - [Conflicting reports; unable to confirm]

    ### What to Watch
    - [Data not yet available as of Feb 11, 2026]

    ### References
    [1] Federal Reserve. "FOMC Statement". Feb 10, 2026. https://www.federalreserve.gov/a.htm
    ```

    ## Fix
    Write the entry as `[N] Publisher. "Title". Published Feb 10, 2026. https://...`; the message says
    which part to mend.
    """
    for entry in brief.entries:
        if entry.problem is not None:
            yield Finding(
                f'References entry [{entry.number}] does not follow `[N] Publisher. "Title". Published <date>. <URL>`: {entry.problem}',
                entry.line, entry.col,
            )


@rule("B306", "marker-swallowed-by-link", kind=KIND)
def marker_swallowed_by_link(brief: Brief, ctx):
    """
    ## What it does
    Reports a `[N]` in a claim bullet that Markdown reads as a link, not a citation marker: most often
    because a link reference definition such as `[1]: https://...` exists in the file, which turns
    every `[1]` into a link to it. A `[N]` inside a link's text or destination, an autolink
    (`<https://x.example/[1]>`), an image or an HTML tag's attributes is reported too. The message
    says what Markdown read the `[N]` as, and names a definition only when one made the link.

    ## Why is this bad?
    The bullet looks cited, but its marker is gone from the rendered brief and from any tool that
    reads the Markdown; the claim passes review uncited.

    ## Example

    Bad:

    ```markdown title="brief.md"
    ### Prevailing View
    - The Fed held rates. [1]

    ### Counterarguments
    - [Insufficient evidence to assess this claim]

    ### Minority View
    - [Conflicting reports; unable to confirm]

    ### What to Watch
    - [Data not yet available as of Feb 11, 2026]

    ### References
    [1]: https://www.federalreserve.gov/a.htm
    ```

    Good:

    ```markdown title="brief.md"
    ### Prevailing View
    - The Fed held rates. [1]

    ### Counterarguments
    - [Insufficient evidence to assess this claim]

    ### Minority View
    - [Conflicting reports; unable to confirm]

    ### What to Watch
    - [Data not yet available as of Feb 11, 2026]

    ### References
    [1] Federal Reserve. "FOMC Statement". Feb 10, 2026. https://www.federalreserve.gov/a.htm
    ```

    ## Fix
    Write References entries in §7.2 form (`[1] Publisher. "Title". ... URL`), not as link definitions;
    write a marker after a link, autolink or HTML tag, not inside it.
    """
    for marker, why in brief.swallowed:
        yield _at(marker, f"[{marker.number}] is read as {why}, not as a citation marker")


@rule("B317", "empty-claim-section", kind=KIND)
def empty_claim_section(brief: Brief, ctx):
    """
    ## What it does
    Reports a claim section with no bullets, a claim section the brief lacks, and a missing
    References section when the brief's bullets cite `[N]` markers.

    ## Why is this bad?
    Spec §3.2: an empty section means the synthesis must be retried; a section that abstains says so
    with an abstain marker bullet instead. Spec §7.2 ends every synthesis with its References: without
    them no marker resolves (B302 names each one).

    ## Example

    Bad:

    ```markdown title="brief.md"
    ### Prevailing View
    - The Fed held rates. [1]

    ### Counterarguments

    ### References
    [1] Federal Reserve. "FOMC Statement". Feb 10, 2026. https://www.federalreserve.gov/a.htm
    ```

    Good:

    ```markdown title="brief.md"
    ### Prevailing View
    - The Fed held rates. [1]

    ### Counterarguments
    - [Insufficient evidence to assess this claim]

    ### Minority View
    - [Conflicting reports; unable to confirm]

    ### What to Watch
    - [Data not yet available as of Feb 11, 2026]

    ### References
    [1] Federal Reserve. "FOMC Statement". Feb 10, 2026. https://www.federalreserve.gov/a.htm
    ```

    ## Fix
    Add the section's bullets, or one abstain marker bullet such as
    `[Insufficient evidence to represent minority views on this topic]`; add the References section
    with an entry for each marker.
    """
    if brief.abstaining:
        return  # §3.2's abstaining report has no claim sections; B335 checks its own
    for section in brief.sections.values():
        if not section.bullets:
            yield Finding(f"claim section '{section.title}' has no bullets", section.line, 1)
    for title in brief.missing_sections:
        yield Finding(f"claim section '{title}' is missing", 1, 1)
    if brief.references is None and any(bullet.markers for bullet in brief.bullets):
        references = ctx.kind_options.get("references-heading", "References")
        yield Finding(f"section '{references}' is missing: every [N] marker resolves to an entry there", 1, 1)


@rule("B335", "abstaining-report-incomplete", kind=KIND)
def abstaining_report_incomplete(brief: Brief, ctx):
    """
    ## What it does
    Reports an abstaining report (a file with the heading `Synthesis Status: Insufficient Evidence`,
    spec §3.2) that lacks one of its sections, `Available Evidence Summary`, `Why Insufficient` and
    `References`, or leaves one empty.

    ## Why is this bad?
    The abstaining report replaces the brief; without its reasons or the evidence that was available
    the reader cannot tell an empty day from a failed pipeline.

    ## Example

    Bad:

    ```markdown title="abstain.md"
    # Daily Brief - 2026-02-11

    ### Synthesis Status: Insufficient Evidence

    No brief today.

    ### References

    [1] Federal Reserve. "FOMC Statement". Feb 10, 2026. https://www.federalreserve.gov/a.htm
    ```

    Good:

    ```markdown title="abstain.md"
    # Daily Brief - 2026-02-11

    ### Synthesis Status: Insufficient Evidence

    No brief today.

    ### Available Evidence Summary

    - The Fed held rates. [1]

    ### Why Insufficient

    - No Tier 1 sources published policy statements today

    ### References

    [1] Federal Reserve. "FOMC Statement". Feb 10, 2026. https://www.federalreserve.gov/a.htm
    ```

    ## Fix
    Write the report with `citations brief validate --abstain-report`, which renders every section.
    """
    if not brief.abstaining:
        return
    sections = brief.memo.get("abstain_sections", {})
    wanted = [*ABSTAIN_SECTIONS, ctx.kind_options.get("references-heading", "References")]
    for title in wanted:
        key = heading_key(title)
        if key not in sections:
            yield Finding(f"abstaining report lacks the section '{title}'", 1, 1)
        elif not sections[key][1]:
            yield Finding(f"abstaining report section '{title}' is empty", sections[key][0], 1)

'''Quality rules on what a claim bullet states against what it cites (brief-citation-contract.md
§3.1 and §6): a numeric or time claim needs a credible or corroborated source (B320), a policy
claim the Tier 1 source of the pack (B321), an uncertainty marker the tiers it admits (B333) and a
confidence label the corroboration it states (B334). docs/brief-quality.md explains each decision.'''

from __future__ import annotations

import functools
from collections import Counter

from pytest_citations.core.diagnostics import quoted
from pytest_citations.kinds.briefs.citations import bullet_citations, cites_tier_in, publisher_of, source_of, tier_of
from pytest_citations.kinds.briefs.claims import (
    MACRO_PATTERNS,
    NAMES,
    POLICY_PATTERNS,
    Overrun,
    SettingsTime,
    _may_have_label,
    _may_hold,
    _patterns,
    all_compile,
    claim_text,
    numeric_parts,
    run_time,
    topics,
)
from pytest_citations.kinds.briefs.model import Brief, Bullet
from pytest_citations.rules import Finding, Option, Reported, rule

KIND = "briefs"
INSUFFICIENT_CREDIBLE = "[Insufficient credible evidence for this claim]"
CITE_OFFICIAL = "[Cite official source directly for policy claims]"


def _cites_calendar(brief: Brief, cited: list[tuple[int, dict]], tag: str) -> bool:
    """Whether a registry source of any of ``cited`` carries the calendar ``tag``."""
    sources = [source_of(brief, c.get("source_id")) for _, c in cited]
    return any(s is not None and tag in s.tags for s in sources)


def _describe(brief: Brief, cited: list[tuple[int, dict]]) -> str:
    parts = []
    for number, citation in cited:
        tier = tier_of(brief, citation)
        parts.append(f"[{number}] {citation.get('source_id')} (Tier {tier if tier is not None else '?'})")
    return ", ".join(parts)


def _bullet_at(bullet: Bullet, message: str) -> Finding:
    return Finding(message, bullet.line, bullet.col)


def _settings_time(ctx) -> SettingsTime | None:
    """The time of the run's regexes from the settings (one for every root the run checks); none
    for a check asked outside a run, which gives each claim a time of its own."""
    file = getattr(ctx, "file", None)
    return None if file is None else run_time(file.engine.registry)


def _out_of_time(overrun: Overrun, code: str, bullet: Bullet) -> Reported:
    """The B337 of the first regex of ``code``'s settings that did not finish on a brief's claims."""
    return settings_patterns_out_of_time.report(_bullet_at(bullet, overrun.message(code)))


# -- §3.1 numeric/time claims ---------------------------------------------------------------------------------


@rule(
    "B320", "numeric-claim-uncorroborated", kind=KIND,
    options={
        "credible-tiers": Option(list, [1, 2], "tiers that alone support a numeric/time claim", items=int),
        "min-independent": Option(int, 2, "independent sources (distinct publishers) that support it otherwise"),
        "calendar-tag": Option(str, "event_calendar", "registry tag of official calendars: What to Watch bullets citing one are exempt"),
        "non-numeric-names": Option(list, NAMES, "regexes of names whose digits state no number (S&P 500, G7, Section 230, "
                                    "the 2nd Circuit, the 10-year Treasury)", items=str),
    },
)
def numeric_claim_uncorroborated(brief: Brief, ctx):
    """
    ## What it does
    Reports a claim bullet stating a number, a percentage, a quarter (`Q4`), a month-day date or a
    year whose citations include no Tier 1-2 source and fewer than two independent sources (distinct
    publishers). Spec §3.1. `may`, `March` alone and `Q&A` are not numbers; nor are the digits of
    names (setting `non-numeric-names`): indexes and groups (`S&P 500`, `G7`), statutes, rules and forms
    (`Section 230`, `§ 512`, `Rule 10b-5`, `Form 10-K`), ordinals naming a court or an amendment (`the 2nd
    Circuit`, `the 1st Amendment`) and instruments' tenors (`the 10-year Treasury`, `the 2-year note`); a
    figure beside them still is (`the 10-year yield rose to 4.5%`). Only the claim's words count: a
    link's text does, its destination and title do not, nor an image, an autolink or bare URL, a
    reference label, an HTML tag or comment, or a code span. A What to Watch bullet citing a
    registry source tagged `event_calendar` (setting `calendar-tag`) states a scheduled date and is
    exempt.

    ## Why is this bad?
    A figure from a single low-tier source is the claim most likely to be wrong and most likely to
    be repeated; the contract asks for a credible source or corroboration.

    ## Example

    Bad:

    ```markdown title="brief.md"
    ### Prevailing View
    - Markets fell 2% yesterday. [1]

    ### Counterarguments
    - [Insufficient evidence to assess this claim]

    ### Minority View
    - [Conflicting reports; unable to confirm]

    ### What to Watch
    - [Data not yet available as of Feb 11, 2026]

    ### References
    [1] Market Blog. "Title 1". Feb 10, 2026. https://www.marketblog.example/d
    ```

    ```json title="brief.citations.json"
    {"citations": {
      "1": {"id": "cite_1", "source_id": "market_blog", "publisher": "Market Blog", "doc_id": "doc_1", "chunk_id": "chunk_1", "url": "https://www.marketblog.example/d", "title": "Title 1", "published_at": "2026-02-10T14:00:00Z", "fetched_at": "2026-02-11T02:15:00Z"}
    }}
    ```

    ```yaml title="source_registry.yaml"
    sources:
      - id: fed_press_releases
        name: Federal Reserve - Press Releases
        url: https://www.federalreserve.gov/feeds/press_all.xml
        tags: [policy_centralbank, macro_data, rates]
        credibility_tier: 1
        paywall_policy: full
      - id: bls_schedule
        name: U.S. Bureau of Labor Statistics - Release Schedule
        url: https://www.bls.gov/schedule/
        tags: [macro_data, event_calendar]
        credibility_tier: 1
        paywall_policy: full
      - id: reuters
        name: Reuters - Business
        url: https://www.reuters.com/business/
        tags: [market_narrative]
        credibility_tier: 2
        paywall_policy: full
      - id: ft_markets
        name: Financial Times - Markets
        url: https://www.ft.com/markets
        tags: [market_narrative]
        credibility_tier: 2
        paywall_policy: metadata_only
      - id: market_blog
        name: Market Blog
        url: https://www.marketblog.example/
        tags: [market_narrative]
        credibility_tier: 3
        paywall_policy: full
      - id: zerohedge
        name: Zero Hedge
        url: https://www.zerohedge.com/
        tags: [contrarian]
        credibility_tier: 4
        paywall_policy: full
    ```

    Good:

    ```markdown title="brief.md"
    ### Prevailing View
    - Markets fell 2% yesterday. [1][2]
    - Stocks may fall in March. [3]

    ### Counterarguments
    - [Insufficient evidence to assess this claim]

    ### Minority View
    - [Conflicting reports; unable to confirm]

    ### What to Watch
    - [Data not yet available as of Feb 11, 2026]

    ### References
    [1] Market Blog. "Title 1". Feb 10, 2026. https://www.marketblog.example/d
    [2] Reuters. "Title 2". Feb 10, 2026. https://www.reuters.com/business/b
    [3] Market Blog. "Title 3". Feb 10, 2026. https://www.marketblog.example/d
    ```

    ```json title="brief.citations.json"
    {"citations": {
      "1": {"id": "cite_1", "source_id": "market_blog", "publisher": "Market Blog", "doc_id": "doc_1", "chunk_id": "chunk_1", "url": "https://www.marketblog.example/d", "title": "Title 1", "published_at": "2026-02-10T14:00:00Z", "fetched_at": "2026-02-11T02:15:00Z"},
      "2": {"id": "cite_2", "source_id": "reuters", "publisher": "Reuters", "doc_id": "doc_2", "chunk_id": "chunk_2", "url": "https://www.reuters.com/business/b", "title": "Title 2", "published_at": "2026-02-10T14:00:00Z", "fetched_at": "2026-02-11T02:15:00Z"},
      "3": {"id": "cite_3", "source_id": "market_blog", "publisher": "Market Blog", "doc_id": "doc_3", "chunk_id": "chunk_3", "url": "https://www.marketblog.example/d", "title": "Title 3", "published_at": "2026-02-10T14:00:00Z", "fetched_at": "2026-02-11T02:15:00Z"}
    }}
    ```

    ```yaml title="source_registry.yaml"
    sources:
      - id: fed_press_releases
        name: Federal Reserve - Press Releases
        url: https://www.federalreserve.gov/feeds/press_all.xml
        tags: [policy_centralbank, macro_data, rates]
        credibility_tier: 1
        paywall_policy: full
      - id: bls_schedule
        name: U.S. Bureau of Labor Statistics - Release Schedule
        url: https://www.bls.gov/schedule/
        tags: [macro_data, event_calendar]
        credibility_tier: 1
        paywall_policy: full
      - id: reuters
        name: Reuters - Business
        url: https://www.reuters.com/business/
        tags: [market_narrative]
        credibility_tier: 2
        paywall_policy: full
      - id: ft_markets
        name: Financial Times - Markets
        url: https://www.ft.com/markets
        tags: [market_narrative]
        credibility_tier: 2
        paywall_policy: metadata_only
      - id: market_blog
        name: Market Blog
        url: https://www.marketblog.example/
        tags: [market_narrative]
        credibility_tier: 3
        paywall_policy: full
      - id: zerohedge
        name: Zero Hedge
        url: https://www.zerohedge.com/
        tags: [contrarian]
        credibility_tier: 4
        paywall_policy: full
    ```

    ## Fix
    Cite a Tier 1-2 source or a second independent source, or replace the bullet with
    `[Insufficient credible evidence for this claim]` (what `citations brief validate --fix` does).
    """
    options = ctx.options
    names_compile = all_compile(tuple(options["non-numeric-names"]))
    time, overruns = _settings_time(ctx), list[Overrun]()
    for bullet in brief.bullets:
        cited = bullet_citations(brief, bullet)
        if bullet.abstain or not cited:
            continue  # uncited bullets are B301's and B307's
        if not names_compile:
            numeric_parts(bullet.claim, options["non-numeric-names"])  # raises where it always did
        if bullet.section == "watch" and _cites_calendar(brief, cited, options["calendar-tag"]):
            continue
        if cites_tier_in(brief, cited, options["credible-tiers"]):
            continue
        publishers = {publisher_of(brief, c).casefold() for _, c in cited}
        if len(publishers) >= options["min-independent"]:
            continue
        reported = bool(overruns)
        parts = numeric_parts(bullet.claim, options["non-numeric-names"], overruns, time)  # last: the costliest test
        if overruns and not reported:
            yield _out_of_time(overruns[0], "B320", bullet)
        if not parts:
            continue
        kind, shown = parts[0]
        tiers = "-".join(str(t) for t in sorted(options["credible-tiers"]))
        yield _bullet_at(
            bullet,
            f"numeric/time claim ({kind} {quoted(shown)}) needs a Tier {tiers} citation or {options['min-independent']} "
            f"independent sources; it cites {_describe(brief, cited)}: {INSUFFICIENT_CREDIBLE}",
        )


# -- §3.1 policy claims -----------------------------------------------------------------------------------------


def bullet_topics(brief: Brief, bullet: Bullet, options: dict, overruns: list[Overrun] | None = None,
                  time: SettingsTime | None = None) -> tuple[dict[str, str], str]:
    """Topic tags of a bullet and where they came from: §8's mapping, else the keyword classifier
    (:func:`topics`: its patterns from the settings within ``time``, what did not finish in
    ``overruns``)."""
    if brief.bullet_tags is not None and (bullet.section, bullet.index) in brief.bullet_tags:
        tags = brief.bullet_tags[(bullet.section, bullet.index)]
        return {t: "" for t in tags}, "mapping"
    return topics(bullet.claim, options["policy-patterns"], options["macro-patterns"], overruns, time), "keywords"


def _tier_1_pack_sources(brief: Brief, pack_chunks: list[dict], tags: list[str], match_topic: bool) -> list:
    """The source ids of the pack's Tier 1 chunks (sharing a tag when ``match_topic``), in order."""
    available = []
    for chunk in pack_chunks:
        if tier_of(brief, chunk) != 1:
            continue
        source = source_of(brief, chunk.get("source_id"))
        if match_topic and source is not None and source.tags and not set(tags) & set(source.tags):
            continue
        if chunk.get("source_id") not in available:
            available.append(chunk.get("source_id"))
    return available


@rule(
    "B321", "policy-claim-without-tier-1", kind=KIND,
    options={
        "policy-tags": Option(list, ["policy_centralbank", "macro_data"], "topic tags that make a claim a policy claim", items=str),
        "policy-patterns": Option(list, POLICY_PATTERNS, "regexes that tag a claim policy_centralbank", items=str),
        "macro-patterns": Option(list, MACRO_PATTERNS, "regexes that tag a claim macro_data", items=str),
        "match-topic": Option(bool, True, "only a pack Tier 1 source sharing the claim's topic tag counts as available"),
    },
)
def policy_claim_without_tier_1(brief: Brief, ctx):
    """
    ## What it does
    Reports a claim bullet about central-bank policy or official macro releases (`policy_centralbank`,
    `macro_data`) that cites no Tier 1 source while the evidence pack holds one (spec §3.1). The
    bullet's tags come from §8's bullet mapping (sidecar `bullets`, or a `tags` column of the store's
    `synthesis_bullets`) when it has them, else from a keyword classifier: `Fed` (not `fed up`),
    `Federal Reserve`, `FOMC`, `central bank`, `ECB`, `interest rates`... are policy; `GDP`, `CPI`,
    `payrolls`... are macro data (settings `policy-patterns`, `macro-patterns`), in the claim's words
    as B320 reads them (not in link destinations, titles or HTML). With `match-topic`
    (the default) only a pack Tier 1 source whose registry tags share the claim's tag counts.

    ## Why is this bad?
    Secondary reporting of an official decision can misstate it; when the official statement was
    retrieved, the brief must cite it directly.

    ## Example

    Bad:

    ```markdown title="brief.md"
    ### Prevailing View
    - The Fed held rates steady. [1]

    ### Counterarguments
    - [Insufficient evidence to assess this claim]

    ### Minority View
    - [Conflicting reports; unable to confirm]

    ### What to Watch
    - [Data not yet available as of Feb 11, 2026]

    ### References
    [1] Reuters. "Title 1". Feb 10, 2026. https://www.reuters.com/business/b
    ```

    ```json title="brief.citations.json"
    {"citations": {
      "1": {"id": "cite_1", "source_id": "reuters", "publisher": "Reuters", "doc_id": "doc_1", "chunk_id": "chunk_1", "url": "https://www.reuters.com/business/b", "title": "Title 1", "published_at": "2026-02-10T14:00:00Z", "fetched_at": "2026-02-11T02:15:00Z"}
    },
    "evidence_pack": {"pack_id": "pack_1", "query": "What is the Fed's stance?", "generated_at": "2026-02-11T08:00:00Z", "chunks": [{"chunk_id": "chunk_1", "source_id": "fed_press_releases"}, {"chunk_id": "chunk_2", "source_id": "reuters"}]}}
    ```

    ```yaml title="source_registry.yaml"
    sources:
      - id: fed_press_releases
        name: Federal Reserve - Press Releases
        url: https://www.federalreserve.gov/feeds/press_all.xml
        tags: [policy_centralbank, macro_data, rates]
        credibility_tier: 1
        paywall_policy: full
      - id: bls_schedule
        name: U.S. Bureau of Labor Statistics - Release Schedule
        url: https://www.bls.gov/schedule/
        tags: [macro_data, event_calendar]
        credibility_tier: 1
        paywall_policy: full
      - id: reuters
        name: Reuters - Business
        url: https://www.reuters.com/business/
        tags: [market_narrative]
        credibility_tier: 2
        paywall_policy: full
      - id: ft_markets
        name: Financial Times - Markets
        url: https://www.ft.com/markets
        tags: [market_narrative]
        credibility_tier: 2
        paywall_policy: metadata_only
      - id: market_blog
        name: Market Blog
        url: https://www.marketblog.example/
        tags: [market_narrative]
        credibility_tier: 3
        paywall_policy: full
      - id: zerohedge
        name: Zero Hedge
        url: https://www.zerohedge.com/
        tags: [contrarian]
        credibility_tier: 4
        paywall_policy: full
    ```

    Good:

    ```markdown title="brief.md"
    ### Prevailing View
    - The Fed held rates steady. [1][2]
    - Fed up investors sold bonds. [1]

    ### Counterarguments
    - [Insufficient evidence to assess this claim]

    ### Minority View
    - [Conflicting reports; unable to confirm]

    ### What to Watch
    - [Data not yet available as of Feb 11, 2026]

    ### References
    [1] Reuters. "Title 1". Feb 10, 2026. https://www.reuters.com/business/b
    [2] Federal Reserve. "Title 2". Feb 10, 2026. https://www.federalreserve.gov/a.htm
    ```

    ```json title="brief.citations.json"
    {"citations": {
      "1": {"id": "cite_1", "source_id": "reuters", "publisher": "Reuters", "doc_id": "doc_1", "chunk_id": "chunk_1", "url": "https://www.reuters.com/business/b", "title": "Title 1", "published_at": "2026-02-10T14:00:00Z", "fetched_at": "2026-02-11T02:15:00Z"},
      "2": {"id": "cite_2", "source_id": "fed_press_releases", "publisher": "Federal Reserve", "doc_id": "doc_2", "chunk_id": "chunk_2", "url": "https://www.federalreserve.gov/a.htm", "title": "Title 2", "published_at": "2026-02-10T14:00:00Z", "fetched_at": "2026-02-11T02:15:00Z"}
    },
    "evidence_pack": {"pack_id": "pack_1", "query": "What is the Fed's stance?", "generated_at": "2026-02-11T08:00:00Z", "chunks": [{"chunk_id": "chunk_1", "source_id": "fed_press_releases"}, {"chunk_id": "chunk_2", "source_id": "reuters"}]}}
    ```

    ```yaml title="source_registry.yaml"
    sources:
      - id: fed_press_releases
        name: Federal Reserve - Press Releases
        url: https://www.federalreserve.gov/feeds/press_all.xml
        tags: [policy_centralbank, macro_data, rates]
        credibility_tier: 1
        paywall_policy: full
      - id: bls_schedule
        name: U.S. Bureau of Labor Statistics - Release Schedule
        url: https://www.bls.gov/schedule/
        tags: [macro_data, event_calendar]
        credibility_tier: 1
        paywall_policy: full
      - id: reuters
        name: Reuters - Business
        url: https://www.reuters.com/business/
        tags: [market_narrative]
        credibility_tier: 2
        paywall_policy: full
      - id: ft_markets
        name: Financial Times - Markets
        url: https://www.ft.com/markets
        tags: [market_narrative]
        credibility_tier: 2
        paywall_policy: metadata_only
      - id: market_blog
        name: Market Blog
        url: https://www.marketblog.example/
        tags: [market_narrative]
        credibility_tier: 3
        paywall_policy: full
      - id: zerohedge
        name: Zero Hedge
        url: https://www.zerohedge.com/
        tags: [contrarian]
        credibility_tier: 4
        paywall_policy: full
    ```

    ## Fix
    Cite the Tier 1 source of the pack, or replace the bullet with `[Cite official source directly for policy claims]`
    (what `citations brief validate --fix` does).
    """
    if not brief.pack:
        return
    options = ctx.options
    patterns_compile = all_compile((*options["policy-patterns"], *options["macro-patterns"]))
    pack_chunks = [c for c in brief.pack.get("chunks") or () if isinstance(c, dict)]
    available_by_tags: dict[tuple[str, ...], list] = {}  # the same for every bullet with the same tags
    time, overruns = _settings_time(ctx), list[Overrun]()
    for bullet in brief.bullets:
        cited = bullet_citations(brief, bullet)
        if bullet.abstain or not cited:
            continue
        if not patterns_compile:
            bullet_topics(brief, bullet, options)  # raises where it always did, if it does
        if cites_tier_in(brief, cited, (1,)):
            continue
        reported = bool(overruns)
        found, origin = bullet_topics(brief, bullet, options, overruns, time)
        if overruns and not reported:
            yield _out_of_time(overruns[0], "B321", bullet)
        tags = [t for t in options["policy-tags"] if t in found]
        if not tags:
            continue
        if tuple(tags) not in available_by_tags:
            available_by_tags[tuple(tags)] = _tier_1_pack_sources(brief, pack_chunks, tags, options["match-topic"])
        available = available_by_tags[tuple(tags)]
        if not available:
            continue
        why = ", ".join(f"{t} ({quoted(found[t])})" if found[t] else t for t in tags)
        yield _bullet_at(
            bullet,
            f"policy claim [{why}, from the {origin}] cites no Tier 1 source while the evidence pack holds "
            f"{', '.join(map(str, available))} (Tier 1): {CITE_OFFICIAL}",
        )


@rule("B337", "settings-patterns-out-of-time", kind=KIND, scope="engine")
def settings_patterns_out_of_time():
    """
    ## What it does
    Reports a brief whose claims a regex from the settings could not be run on to its end: a
    pattern of `non-numeric-names` (B320), `policy-patterns` or `macro-patterns` (B321) that ran
    longer than half a second on a claim (taken as not matching it), or the claims that the
    settings' patterns were no longer tried on because their time in the run was up (1 s in a run,
    2 s in a process, and 1 s more per MiB of claims they are run on). It names the setting and the
    first such pattern, on the first bullet of the brief where it happened, once per rule.

    ## Why is this bad?
    The settings come with the checkout, and a pattern that backtracks (`(a|aa)+$` on a run of
    "a"s) can take minutes on one claim: the check stops it rather than run without end, so the
    claims it did not finish were classified without it, and the rule's verdict on them may differ
    from what the settings meant.

    ## Example

    Bad:

    ```markdown title="brief.md"
    ### Prevailing View
    - The Fed held rates aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa! [1]

    ### Counterarguments
    - [Insufficient evidence to assess this claim]

    ### Minority View
    - [Conflicting reports; unable to confirm]

    ### What to Watch
    - [Data not yet available as of Feb 11, 2026]

    ### References
    [1] Reuters. "Title 1". Feb 10, 2026. https://www.reuters.com/business/b
    ```

    ```json title="brief.citations.json"
    {"citations": {
      "1": {"id": "cite_1", "source_id": "reuters", "publisher": "Reuters", "doc_id": "doc_1", "chunk_id": "chunk_1", "url": "https://www.reuters.com/business/b", "title": "Title 1", "published_at": "2026-02-10T14:00:00Z", "fetched_at": "2026-02-11T02:15:00Z"}
    },
    "evidence_pack": {"pack_id": "pack_1", "query": "What is the Fed's stance?", "generated_at": "2026-02-11T08:00:00Z", "chunks": [{"chunk_id": "chunk_1", "source_id": "fed_press_releases"}, {"chunk_id": "chunk_2", "source_id": "reuters"}]}}
    ```

    ```yaml title="source_registry.yaml"
    sources:
      - id: fed_press_releases
        name: Federal Reserve - Press Releases
        url: https://www.federalreserve.gov/feeds/press_all.xml
        tags: [policy_centralbank, macro_data, rates]
        credibility_tier: 1
        paywall_policy: full
      - id: reuters
        name: Reuters - Business
        url: https://www.reuters.com/business/
        tags: [market_narrative]
        credibility_tier: 2
        paywall_policy: full
    ```

    ```toml title="pyproject.toml"
    [tool.citations.rules.B321]
    policy-patterns = ["(a|aa)+$"]
    ```

    Good:

    ```markdown title="brief.md"
    ### Prevailing View
    - The Fed held rates aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa! [1]

    ### Counterarguments
    - [Insufficient evidence to assess this claim]

    ### Minority View
    - [Conflicting reports; unable to confirm]

    ### What to Watch
    - [Data not yet available as of Feb 11, 2026]

    ### References
    [1] Reuters. "Title 1". Feb 10, 2026. https://www.reuters.com/business/b
    ```

    ```json title="brief.citations.json"
    {"citations": {
      "1": {"id": "cite_1", "source_id": "reuters", "publisher": "Reuters", "doc_id": "doc_1", "chunk_id": "chunk_1", "url": "https://www.reuters.com/business/b", "title": "Title 1", "published_at": "2026-02-10T14:00:00Z", "fetched_at": "2026-02-11T02:15:00Z"}
    },
    "evidence_pack": {"pack_id": "pack_1", "query": "What is the Fed's stance?", "generated_at": "2026-02-11T08:00:00Z", "chunks": [{"chunk_id": "chunk_1", "source_id": "fed_press_releases"}, {"chunk_id": "chunk_2", "source_id": "reuters"}]}}
    ```

    ```yaml title="source_registry.yaml"
    sources:
      - id: fed_press_releases
        name: Federal Reserve - Press Releases
        url: https://www.federalreserve.gov/feeds/press_all.xml
        tags: [policy_centralbank, macro_data, rates]
        credibility_tier: 1
        paywall_policy: full
      - id: reuters
        name: Reuters - Business
        url: https://www.reuters.com/business/
        tags: [market_narrative]
        credibility_tier: 2
        paywall_policy: full
    ```

    ```toml title="pyproject.toml"
    [tool.citations.rules.B321]
    policy-patterns = ["\\\\bFOMC\\\\b"]
    ```

    ## Fix
    Write the pattern so that it cannot try one stretch of a claim in many ways: no nested
    repetition (`(a+)+`), no alternatives that match the same text (`(a|aa)+`); or remove it from
    the settings. The built-in patterns never run out of time.
    """


# -- §6 uncertainty markers and confidence labels ---------------------------------------------------------------

UNCERTAINTY_MARKERS = [
    "According to limited available reports => 3, 4",
    "Some sources suggest => 2, 3, 4",
    "Early indications from => 2, 3, 4",
]


@functools.lru_cache(maxsize=16)
def _markers(items: tuple[str, ...]) -> list[tuple[str, str, set[int], list[str]]]:
    """(phrase, its casefolded form, admitted tiers, the casefolded form's words) of each
    "phrase => tiers" setting; read once."""
    found = []
    for item in items:
        phrase, _, tiers = item.partition("=>")
        phrase = phrase.strip()
        folded = phrase.casefold()
        found.append((phrase, folded, {int(t) for t in tiers.replace(",", " ").split() if t.isdigit()}, folded.split()))
    return found


@rule(
    "B333", "uncertainty-marker-overstates", kind=KIND,
    options={"markers": Option(list, UNCERTAINTY_MARKERS, "\"phrase => tiers\": the tiers a marker admits", items=str)},
)
def uncertainty_marker_overstates(brief: Brief, ctx):
    """
    ## What it does
    Reports a bullet with one of §6's uncertainty markers that cites a source the marker does not
    admit: "According to limited available reports" admits Tier 3-4 sources only; "Some sources
    suggest" ("official confirmation is pending") and "Early indications from" admit no Tier 1 source
    (setting `markers`: `"phrase => tiers"`, matched case-insensitively anywhere in the claim's words,
    as B320 reads them).

    ## Why is this bad?
    A hedge in front of an official statement misreports the evidence as weaker than it is; the
    hedge and the citations must tell the same story.

    ## Example

    Bad:

    ```markdown title="brief.md"
    ### Prevailing View
    - According to limited available reports, the Fed will pause. [1]

    ### Counterarguments
    - [Insufficient evidence to assess this claim]

    ### Minority View
    - [Conflicting reports; unable to confirm]

    ### What to Watch
    - [Data not yet available as of Feb 11, 2026]

    ### References
    [1] Federal Reserve. "Title 1". Feb 10, 2026. https://www.federalreserve.gov/a.htm
    ```

    ```json title="brief.citations.json"
    {"citations": {
      "1": {"id": "cite_1", "source_id": "fed_press_releases", "publisher": "Federal Reserve", "doc_id": "doc_1", "chunk_id": "chunk_1", "url": "https://www.federalreserve.gov/a.htm", "title": "Title 1", "published_at": "2026-02-10T14:00:00Z", "fetched_at": "2026-02-11T02:15:00Z"}
    }}
    ```

    ```yaml title="source_registry.yaml"
    sources:
      - id: fed_press_releases
        name: Federal Reserve - Press Releases
        url: https://www.federalreserve.gov/feeds/press_all.xml
        tags: [policy_centralbank, macro_data, rates]
        credibility_tier: 1
        paywall_policy: full
      - id: bls_schedule
        name: U.S. Bureau of Labor Statistics - Release Schedule
        url: https://www.bls.gov/schedule/
        tags: [macro_data, event_calendar]
        credibility_tier: 1
        paywall_policy: full
      - id: reuters
        name: Reuters - Business
        url: https://www.reuters.com/business/
        tags: [market_narrative]
        credibility_tier: 2
        paywall_policy: full
      - id: ft_markets
        name: Financial Times - Markets
        url: https://www.ft.com/markets
        tags: [market_narrative]
        credibility_tier: 2
        paywall_policy: metadata_only
      - id: market_blog
        name: Market Blog
        url: https://www.marketblog.example/
        tags: [market_narrative]
        credibility_tier: 3
        paywall_policy: full
      - id: zerohedge
        name: Zero Hedge
        url: https://www.zerohedge.com/
        tags: [contrarian]
        credibility_tier: 4
        paywall_policy: full
    ```

    Good:

    ```markdown title="brief.md"
    ### Prevailing View
    - According to limited available reports, the Fed will pause. [1]

    ### Counterarguments
    - [Insufficient evidence to assess this claim]

    ### Minority View
    - [Conflicting reports; unable to confirm]

    ### What to Watch
    - [Data not yet available as of Feb 11, 2026]

    ### References
    [1] Market Blog. "Title 1". Feb 10, 2026. https://www.marketblog.example/d
    ```

    ```json title="brief.citations.json"
    {"citations": {
      "1": {"id": "cite_1", "source_id": "market_blog", "publisher": "Market Blog", "doc_id": "doc_1", "chunk_id": "chunk_1", "url": "https://www.marketblog.example/d", "title": "Title 1", "published_at": "2026-02-10T14:00:00Z", "fetched_at": "2026-02-11T02:15:00Z"}
    }}
    ```

    ```yaml title="source_registry.yaml"
    sources:
      - id: fed_press_releases
        name: Federal Reserve - Press Releases
        url: https://www.federalreserve.gov/feeds/press_all.xml
        tags: [policy_centralbank, macro_data, rates]
        credibility_tier: 1
        paywall_policy: full
      - id: bls_schedule
        name: U.S. Bureau of Labor Statistics - Release Schedule
        url: https://www.bls.gov/schedule/
        tags: [macro_data, event_calendar]
        credibility_tier: 1
        paywall_policy: full
      - id: reuters
        name: Reuters - Business
        url: https://www.reuters.com/business/
        tags: [market_narrative]
        credibility_tier: 2
        paywall_policy: full
      - id: ft_markets
        name: Financial Times - Markets
        url: https://www.ft.com/markets
        tags: [market_narrative]
        credibility_tier: 2
        paywall_policy: metadata_only
      - id: market_blog
        name: Market Blog
        url: https://www.marketblog.example/
        tags: [market_narrative]
        credibility_tier: 3
        paywall_policy: full
      - id: zerohedge
        name: Zero Hedge
        url: https://www.zerohedge.com/
        tags: [contrarian]
        credibility_tier: 4
        paywall_policy: full
    ```

    ## Fix
    Drop the marker when the claim has the stronger sources, or cite what the marker says.
    """
    markers = _markers(tuple(ctx.options["markers"]))
    for bullet in brief.bullets:
        raw_folded = bullet.text.casefold()
        held = [marker for marker in markers if marker[0] and _may_hold(raw_folded, marker[3])]
        if not held:
            continue  # no phrase can be in the bullet: its claim text is not needed
        text = " ".join(claim_text(bullet.claim).split()).casefold()
        for phrase, folded, tiers, _ in held:
            if folded in text:
                wrong = [(n, c) for n, c in bullet_citations(brief, bullet) if tier_of(brief, c) not in tiers]
                if wrong:
                    admitted = ", ".join(str(t) for t in sorted(tiers))
                    yield _bullet_at(bullet, f"uncertainty marker {quoted(phrase)} admits Tier {admitted} sources; "
                                             f"the bullet cites {_describe(brief, wrong)}")
                break


def confidence_level(brief: Brief, cited: list[tuple[int, dict]], options: dict) -> tuple[str, dict[int, int]]:
    """The level the corroboration supports, and independent publishers counted by their best tier."""
    best: dict[str, int] = {}
    for _, citation in cited:
        tier = tier_of(brief, citation)
        publisher = publisher_of(brief, citation).casefold()
        if tier is not None:
            best[publisher] = min(tier, best.get(publisher, tier))
    by_tier = Counter(best.values())
    for level in ("high", "medium"):
        strong = sum(n for t, n in by_tier.items() if t <= options[f"{level}-max-tier"])
        if strong >= options[f"{level}-min-sources"]:
            return level.upper(), dict(by_tier)
    return "LOW", dict(by_tier)


@rule(
    "B334", "confidence-label-mismatch", kind=KIND,
    options={
        "high-min-sources": Option(int, 3, "independent sources a HIGH CONFIDENCE bullet needs"),
        "high-max-tier": Option(int, 2, "the lowest tier that counts towards HIGH"),
        "medium-min-sources": Option(int, 2, "independent sources a MEDIUM CONFIDENCE bullet needs"),
        "medium-max-tier": Option(int, 2, "the lowest tier that counts towards MEDIUM"),
    },
)
def confidence_label_mismatch(brief: Brief, ctx):
    """
    ## What it does
    Reports a bullet labelled `[HIGH CONFIDENCE]`, `[MEDIUM CONFIDENCE]` or `[LOW CONFIDENCE]` (§6)
    whose corroboration supports another level. HIGH needs 3 independent sources (distinct
    publishers) of Tier 1-2; MEDIUM needs 2; anything less is LOW (settings `high-min-sources`,
    `high-max-tier`, `medium-min-sources`, `medium-max-tier`). An understated label is reported too.

    ## Why is this bad?
    A confidence label is a claim about the evidence; one the citations do not bear out misleads the
    reader more than no label.

    ## Example

    Bad:

    ```markdown title="brief.md"
    ### Prevailing View
    - [HIGH CONFIDENCE] The Fed will cut rates. [1]

    ### Counterarguments
    - [Insufficient evidence to assess this claim]

    ### Minority View
    - [Conflicting reports; unable to confirm]

    ### What to Watch
    - [Data not yet available as of Feb 11, 2026]

    ### References
    [1] Zero Hedge. "Title 1". Feb 10, 2026. https://www.zerohedge.com/e [Monitor-only source]
    ```

    ```json title="brief.citations.json"
    {"citations": {
      "1": {"id": "cite_1", "source_id": "zerohedge", "publisher": "Zero Hedge", "doc_id": "doc_1", "chunk_id": "chunk_1", "url": "https://www.zerohedge.com/e", "title": "Title 1", "published_at": "2026-02-10T14:00:00Z", "fetched_at": "2026-02-11T02:15:00Z"}
    }}
    ```

    ```yaml title="source_registry.yaml"
    sources:
      - id: fed_press_releases
        name: Federal Reserve - Press Releases
        url: https://www.federalreserve.gov/feeds/press_all.xml
        tags: [policy_centralbank, macro_data, rates]
        credibility_tier: 1
        paywall_policy: full
      - id: bls_schedule
        name: U.S. Bureau of Labor Statistics - Release Schedule
        url: https://www.bls.gov/schedule/
        tags: [macro_data, event_calendar]
        credibility_tier: 1
        paywall_policy: full
      - id: reuters
        name: Reuters - Business
        url: https://www.reuters.com/business/
        tags: [market_narrative]
        credibility_tier: 2
        paywall_policy: full
      - id: ft_markets
        name: Financial Times - Markets
        url: https://www.ft.com/markets
        tags: [market_narrative]
        credibility_tier: 2
        paywall_policy: metadata_only
      - id: market_blog
        name: Market Blog
        url: https://www.marketblog.example/
        tags: [market_narrative]
        credibility_tier: 3
        paywall_policy: full
      - id: zerohedge
        name: Zero Hedge
        url: https://www.zerohedge.com/
        tags: [contrarian]
        credibility_tier: 4
        paywall_policy: full
    ```

    Good:

    ```markdown title="brief.md"
    ### Prevailing View
    - [LOW CONFIDENCE] The Fed will cut rates. [1]

    ### Counterarguments
    - [Insufficient evidence to assess this claim]

    ### Minority View
    - [Conflicting reports; unable to confirm]

    ### What to Watch
    - [Data not yet available as of Feb 11, 2026]

    ### References
    [1] Zero Hedge. "Title 1". Feb 10, 2026. https://www.zerohedge.com/e [Monitor-only source]
    ```

    ```json title="brief.citations.json"
    {"citations": {
      "1": {"id": "cite_1", "source_id": "zerohedge", "publisher": "Zero Hedge", "doc_id": "doc_1", "chunk_id": "chunk_1", "url": "https://www.zerohedge.com/e", "title": "Title 1", "published_at": "2026-02-10T14:00:00Z", "fetched_at": "2026-02-11T02:15:00Z"}
    }}
    ```

    ```yaml title="source_registry.yaml"
    sources:
      - id: fed_press_releases
        name: Federal Reserve - Press Releases
        url: https://www.federalreserve.gov/feeds/press_all.xml
        tags: [policy_centralbank, macro_data, rates]
        credibility_tier: 1
        paywall_policy: full
      - id: bls_schedule
        name: U.S. Bureau of Labor Statistics - Release Schedule
        url: https://www.bls.gov/schedule/
        tags: [macro_data, event_calendar]
        credibility_tier: 1
        paywall_policy: full
      - id: reuters
        name: Reuters - Business
        url: https://www.reuters.com/business/
        tags: [market_narrative]
        credibility_tier: 2
        paywall_policy: full
      - id: ft_markets
        name: Financial Times - Markets
        url: https://www.ft.com/markets
        tags: [market_narrative]
        credibility_tier: 2
        paywall_policy: metadata_only
      - id: market_blog
        name: Market Blog
        url: https://www.marketblog.example/
        tags: [market_narrative]
        credibility_tier: 3
        paywall_policy: full
      - id: zerohedge
        name: Zero Hedge
        url: https://www.zerohedge.com/
        tags: [contrarian]
        credibility_tier: 4
        paywall_policy: full
    ```

    ## Fix
    Label the bullet with the level its citations support, or add corroboration.
    """
    for bullet in brief.bullets:
        if not _may_have_label(bullet.text):
            continue
        label = _patterns().confidence.match(bullet.claim)
        cited = bullet_citations(brief, bullet)
        if not label or not cited:
            continue
        level, by_tier = confidence_level(brief, cited, ctx.options)
        if level != label.group(1):
            counted = ", ".join(f"{n} Tier {t}" for t, n in sorted(by_tier.items())) or "no source of known tier"
            yield _bullet_at(bullet, f"[{label.group(1)} CONFIDENCE] but the citations ({counted}, by publisher) "
                                     f"support {level}")

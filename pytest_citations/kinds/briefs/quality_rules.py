'''Quality rules for synthesis briefs (B320-B335): brief-citation-contract.md §3.1 (numeric/time and
policy claims), §4 (the evidence pack: diversity, size, recency, scoring), §1/§5 (grounding: quote
spans true to the stored text, no paywalled full text) and §6/§3.2 (uncertainty markers, confidence
labels, the abstaining report). docs/brief-quality.md explains each decision.'''

from __future__ import annotations

import datetime
import functools
import json
import re
from collections import Counter
from types import SimpleNamespace
from typing import Any

from pytest_citations.core.diagnostics import quoted
from pytest_citations.core.timestamps import parse_iso_8601
from pytest_citations.kinds.briefs.model import ABSTAIN_SECTIONS, Brief, Bullet, chunk_text, heading_key
from pytest_citations.kinds.briefs.rules import _brief, _doc, _files, _objects
from pytest_citations.rules import Finding, Option, rule

KIND = "briefs"
INSUFFICIENT_CREDIBLE = "[Insufficient credible evidence for this claim]"
CITE_OFFICIAL = "[Cite official source directly for policy claims]"

# -- detecting numbers, dates and topics ----------------------------------------------------------------

_MONTH = (
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?"
    r"|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)"
)
_WORD_NUMBER = r"(?:one|two|three|four|five|six|seven|eight|nine|ten|a\s+half|half\s+a)"
NUMERIC = (
    rf"""
    (?P<date>\b{_MONTH}\.?\s+\d{{1,2}}(?:st|nd|rd|th)?\b(?:,?\s+\d{{4}}\b)?
           |\b\d{{1,2}}(?:st|nd|rd|th)?\s+{_MONTH}\b(?:\s+\d{{4}}\b)?
           |\b\d{{4}}-\d{{2}}-\d{{2}}\b)
    |(?P<quarter>\b[QH][1-4]\b(?:\s+\d{{4}}\b)?)
    |(?P<percentage>[-+\u2212]?\d+(?:[.,]\d+)?(?:\s*[-\u2013]\s*\d+(?:[.,]\d+)?)?\s?(?:%|percent\b|per\s+cent\b|pct\b|bps\b|basis\s+points?\b|percentage\s+points?\b)
           |(?i:\b{_WORD_NUMBER}\s+(?:percent|per\s+cent|percentage\s+points?)\b))
    |(?P<year>\b(?:19|20)\d{{2}}\b)
    |(?P<number>(?<![\w.])[-+\u2212$\u20ac\u00a3\u00a5]?\d[\d,]*(?:\.\d+)?(?:st|nd|rd|th|k|bn|mn|[mbx])?(?!\w))
    """
)
# names that carry digits but state no number
NAMES = [
    r"S&P\s*500", r"Nasdaq[- ]100", r"Russell\s*2000", r"FTSE\s*(?:100|250)", r"Stoxx\s*600", r"Euro\s*Stoxx\s*50",
    r"DAX\s*40", r"Nikkei\s*225", r"CAC\s*40", r"\bG-?(?:7|8|10|20)\b", r"COVID-19", r"\b401\(k\)",
    # the number of a statute, rule, form or part: Section 230, § 512, Rule 10b-5, Article 50, Chapter 11, Form 10-K
    r"(?:\b(?:Sections?|Sec\.|Articles?|Art\.|Rules?|Chapters?|Title|Part|Regulation|Reg\.|Form|Schedule|Amendment)|§§?)\s*\d[\w./()-]*",
    # an ordinal naming a court, an amendment or a district: the 2nd Circuit, the 9th Cir., the 1st Amendment
    r"\b\d{1,3}(?:st|nd|rd|th)\s+(?:Circuit|Cir\.|Amendment|District|Dist\.|Congress)",
    # an instrument's tenor: the 10-year Treasury, the 2-year note, the 30-year fixed mortgage (2s10s is no number already)
    r"\b\d{1,2}[- ](?:year|yr|month|week)[- ](?:(?:fixed(?:-rate)?|government|sovereign|benchmark|inflation-linked|zero-coupon)\s+)?"
    r"(?:Treasur(?:y|ies)|T-?bills?|T-?notes?|notes?|bonds?|gilts?|Bunds?|JGBs?|yields?|swaps?|mortgages?|rates?|bills?"
    r"|breakevens?|paper|futures)\b",
]
POLICY_PATTERNS = [
    r"\bFed\b(?!\s+up\b)",
    r"(?i)\bFederal\s+Reserve\b",
    r"\bFOMC\b",
    r"(?i)\bcentral\s+banks?\b",
    r"\b(?:ECB|BoE|BOE|BoJ|BOJ|PBoC|PBOC|RBA|RBI|SNB|MAS)\b",
    r"(?i)\bBank\s+of\s+(?:England|Japan|Canada|Korea)\b",
    r"(?i)\b(?:monetary\s+policy|policy\s+rates?|interest\s+rates?|rate\s+(?:cuts?|hikes?|decisions?)"
    r"|quantitative\s+(?:easing|tightening)|balance\s+sheet\s+runoff|forward\s+guidance)\b",
]
MACRO_PATTERNS = [
    r"\b(?:GDP|CPI|PCE|PPI|PMI|JOLTS)\b",
    r"(?i)\b(?:non-?farm\s+payrolls?|payrolls?|unemployment\s+rate|jobless\s+claims|jobs\s+report|employment\s+report"
    r"|retail\s+sales|industrial\s+production|consumer\s+prices?|personal\s+income|inflation\s+(?:data|rate|print|report|release))\b",
]

_TRUSTED = frozenset([*NAMES, *POLICY_PATTERNS, *MACRO_PATTERNS])


@functools.cache
def _patterns() -> SimpleNamespace:
    """The ``regex`` module and this module's patterns, on first use: importing and compiling
    them costs every run about 15 ms, and only briefs need them."""
    import regex

    return SimpleNamespace(
        regex=regex,
        numeric=regex.compile(NUMERIC, regex.X),
        confidence=regex.compile(r"^\s*\[(HIGH|MEDIUM|LOW) CONFIDENCE\]"),
        blanked=(regex.compile(r"\[[0-9]+\]"), regex.compile(r"`[^`]*`")),  # markers, code spans
    )


@functools.lru_cache(maxsize=256)
def _compiled(pattern: str):
    """A settings regex compiled once (each is applied to every claim of every brief)."""
    return _patterns().regex.compile(pattern)


@functools.lru_cache(maxsize=64)
def all_compile(patterns: tuple[str, ...]) -> bool:
    """Whether every settings regex of ``patterns`` compiles."""
    try:
        for pattern in patterns:
            _compiled(pattern)
    except Exception:  # whatever compiling raises, the plain path raises it again
        return False
    return True


# In a pattern, what an alternation could change the meaning of: a group reference, an inline flag
# or any other ``(?`` construct but a non-capturing group, a lookaround or scoped flags.
_UNJOINABLE = re.compile(r"\\[0-9gkK]|\(\?(?![:=!]|<[=!]|[imsx-]*:)")


@functools.lru_cache(maxsize=64)
def _any_of(patterns: tuple[str, ...]):
    """One alternation of the settings regexes ``patterns`` that matches wherever one of them
    would, as a cheap first test before trying each in turn; None when one cannot be joined without
    changing its meaning (a leading ``(?i)`` is scoped to its own branch) or does not compile."""
    if not patterns or not all_compile(patterns):
        return None
    branches = []
    for pattern in patterns:
        if pattern.startswith("(?i)"):
            pattern = f"(?i:{pattern[4:]})"
        if _UNJOINABLE.search(pattern):
            return None
        branches.append(f"(?:{pattern})")
    try:
        return _patterns().regex.compile("|".join(branches))
    except Exception:  # then each is tried in turn, as without this test
        return None


def _none_match(patterns: list[str], text: str) -> bool:
    """True when no regex of ``patterns`` matches anywhere in ``text`` (False when unsure)."""
    combined = _any_of(tuple(patterns))
    if combined is None:
        return False
    try:
        return combined.search(text, timeout=_timeout(*patterns)) is None
    except TimeoutError:
        return False


@functools.lru_cache(maxsize=1024)
def claim_text(text: str) -> str:
    """The words of a claim (a bullet's :attr:`~pytest_citations.kinds.briefs.model.Bullet.claim`, whose
    link destinations, HTML and URLs are blanked already): markers, code spans and a confidence
    label blanked too (offsets kept); several rules ask for the same bullet's."""
    patterns = _patterns()
    for pattern in (*patterns.blanked, patterns.confidence):
        text = pattern.sub(lambda m: " " * len(m.group(0)), text)
    return text


REGEX_TIMEOUT = 0.5  # seconds one settings regex may run on one claim


def _timeout(*patterns: str) -> float | None:
    """REGEX_TIMEOUT for regexes from the settings; none for the defaults, which run in linear
    time (a search with a timeout costs several times one without)."""
    return None if _TRUSTED.issuperset(patterns) else REGEX_TIMEOUT


def numeric_parts(text: str, names: list[str] = NAMES) -> list[tuple[str, str]]:
    """(kind, text) of every number, percentage, quarter, month-day date and year in a claim;
    ``may``, ``March`` alone, ``Q&A`` and index names such as ``S&P 500`` are none."""
    text = claim_text(text)
    if not _none_match(names, text):
        for name in names:
            try:  # the names come from the settings: each is bounded in time
                text = _compiled(name).sub(lambda m: " " * len(m.group(0)), text, timeout=_timeout(name))
            except TimeoutError:
                continue
    return [(m.lastgroup, " ".join(m.group(0).split())) for m in _patterns().numeric.finditer(text)]


def topics(text: str, policy: list[str] = POLICY_PATTERNS, macro: list[str] = MACRO_PATTERNS) -> dict[str, str]:
    """The policy tags the keyword classifier gives a claim, each with the words that matched."""
    found: dict[str, str] = {}
    text = claim_text(text)
    for tag, patterns in (("policy_centralbank", policy), ("macro_data", macro)):
        if _none_match(patterns, text):
            continue
        for pattern in patterns:
            try:  # the patterns come from the settings: each is bounded in time
                match = _compiled(pattern).search(text, timeout=_timeout(pattern))
            except TimeoutError:
                match = None
            if match:
                found[tag] = match.group(0)
                break
    return found


# -- citations, tiers, publishers -------------------------------------------------------------------------


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def source_of(brief: Brief, source_id: Any):
    return brief.registry.sources.get(source_id) if brief.registry is not None and isinstance(source_id, str) else None


def tier_of(brief: Brief, item: dict) -> int | None:
    """The registry's tier of a citation's or chunk's source, else the tier the item states."""
    source_id = item.get("source_id")
    if brief.registry is not None and isinstance(source_id, str):
        tier = brief.registry.tiers.get(source_id)
        if tier is not None:
            return tier
    return _int(item.get("credibility_tier"))


def publisher_of(brief: Brief, item: dict) -> str:
    """The item's ``publisher``; else the registry name before " - "; else its ``source_id``."""
    if isinstance(item.get("publisher"), str) and item["publisher"].strip():
        return item["publisher"].strip()
    source = source_of(brief, item.get("source_id"))
    if source is not None and isinstance(source.name, str) and source.name.strip():
        return source.name.split(" - ")[0].strip()
    return str(item.get("source_id"))


def bullet_citations(brief: Brief, bullet: Bullet) -> list[tuple[int, dict]]:
    """(number, citation object) of a bullet's markers, once each; computed once per bullet."""
    memo = brief.memo.get("bullet_citations")
    if memo is None:
        memo = brief.memo["bullet_citations"] = {}
    key = (bullet.section, bullet.index)
    if key not in memo:
        citations = brief.citations or {}
        found = []
        for number in dict.fromkeys(m.number for m in bullet.markers):
            citation = citations.get(str(number))
            if isinstance(citation, dict):
                found.append((number, citation))
        memo[key] = found
    return memo[key]


def _cites_calendar(brief: Brief, cited: list[tuple[int, dict]], tag: str) -> bool:
    """Whether a registry source of any of ``cited`` carries the calendar ``tag``."""
    sources = [source_of(brief, c.get("source_id")) for _, c in cited]
    return any(s is not None and tag in s.tags for s in sources)


def cites_tier_in(brief: Brief, cited: list[tuple[int, dict]], tiers) -> bool:
    """Whether the :func:`tier_of` of any of ``cited`` is in ``tiers`` (a loop: a generator per
    bullet costs more than the test)."""
    for _, citation in cited:  # noqa: SIM110 - the loop is the point (see above)
        if tier_of(brief, citation) in tiers:
            return True
    return False


def _describe(brief: Brief, cited: list[tuple[int, dict]]) -> str:
    parts = []
    for number, citation in cited:
        tier = tier_of(brief, citation)
        parts.append(f"[{number}] {citation.get('source_id')} (Tier {tier if tier is not None else '?'})")
    return ", ".join(parts)


def _bullet_at(bullet: Bullet, message: str) -> Finding:
    return Finding(message, bullet.line, bullet.col)


# -- the runnable examples' files --------------------------------------------------------------------------

_QREGISTRY = """\
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
"""
_SOURCES = {
    "fed_press_releases": ("Federal Reserve", "https://www.federalreserve.gov/a.htm"),
    "bls_schedule": ("U.S. Bureau of Labor Statistics", "https://www.bls.gov/schedule/"),
    "reuters": ("Reuters", "https://www.reuters.com/business/b"),
    "ft_markets": ("Financial Times", "https://www.ft.com/content/c"),
    "market_blog": ("Market Blog", "https://www.marketblog.example/d"),
    "zerohedge": ("Zero Hedge", "https://www.zerohedge.com/e"),
}


def _cite(number: int, source_id: str, **extra: Any) -> dict:
    publisher, url = _SOURCES[source_id]
    return {
        "id": f"cite_{number}", "source_id": source_id, "publisher": publisher, "doc_id": f"doc_{number}",
        "chunk_id": f"chunk_{number}", "url": url, "title": f"Title {number}",
        "published_at": "2026-02-10T14:00:00Z", "fetched_at": "2026-02-11T02:15:00Z", **extra,
    }


def _refs(*sources: str) -> str:
    lines = []
    for number, source_id in enumerate(sources, start=1):
        publisher, url = _SOURCES[source_id]
        tags = " [Paywall]" if source_id == "ft_markets" else " [Monitor-only source]" if source_id == "zerohedge" else ""
        lines.append(f'[{number}] {publisher}. "Title {number}". Feb 10, 2026. {url}{tags}')
    return "\n".join(lines)


def _sidecar(citations: list[dict], **more: Any) -> str:
    lines = [f'  "{n}": {json.dumps(c)}' for n, c in enumerate(citations, start=1)]
    text = '{"citations": {\n' + ",\n".join(lines) + "\n}"
    for key, value in more.items():
        text += f',\n"{key}": {json.dumps(value)}'
    return text + "}\n"


def _example(prevailing: str, citations: list[dict], settings: str = "", **more: Any) -> str:
    sources = [c["source_id"] for c in citations]
    files = _files(_brief(prevailing, _refs(*sources)), _sidecar(citations, **more))
    files += f'\n```yaml title="source_registry.yaml"\n{_QREGISTRY}```\n'
    if settings:
        files = f'```toml title="pyproject.toml"\n{settings}```\n\n' + files
    return files


def _pack(counts: list[tuple[str, int]], **extra: Any) -> dict:
    """A pack of chunks given as (source_id, how many), or as ``chunks=[...]``."""
    items, number = [], 0
    for source_id, count in counts:
        for _ in range(count):
            number += 1
            items.append({"chunk_id": f"chunk_{number}", "source_id": source_id})
    return {"pack_id": "pack_1", "query": "What is the Fed's stance?", "generated_at": "2026-02-11T08:00:00Z", "chunks": items, **extra}


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
@_doc(
    "Reports a claim bullet stating a number, a percentage, a quarter (`Q4`), a month-day date or a\n"
    "year whose citations include no Tier 1-2 source and fewer than two independent sources (distinct\n"
    "publishers). Spec §3.1. `may`, `March` alone and `Q&A` are not numbers; nor are the digits of\n"
    "names (setting `non-numeric-names`): indexes and groups (`S&P 500`, `G7`), statutes, rules and forms\n"
    "(`Section 230`, `§ 512`, `Rule 10b-5`, `Form 10-K`), ordinals naming a court or an amendment (`the 2nd\n"
    "Circuit`, `the 1st Amendment`) and instruments' tenors (`the 10-year Treasury`, `the 2-year note`); a\n"
    "figure beside them still is (`the 10-year yield rose to 4.5%`). Only the claim's words count: a\n"
    "link's text does, its destination and title do not, nor an image, an autolink or bare URL, a\n"
    "reference label, an HTML tag or comment, or a code span. A What to Watch bullet citing a\n"
    "registry source tagged `event_calendar` (setting `calendar-tag`) states a scheduled date and is\n"
    "exempt.",
    "A figure from a single low-tier source is the claim most likely to be wrong and most likely to\n"
    "be repeated; the contract asks for a credible source or corroboration.",
    _example("- Markets fell 2% yesterday. [1]", [_cite(1, "market_blog")]),
    _example("- Markets fell 2% yesterday. [1][2]\n- Stocks may fall in March. [3]",
             [_cite(1, "market_blog"), _cite(2, "reuters"), _cite(3, "market_blog")]),
    f"Cite a Tier 1-2 source or a second independent source, or replace the bullet with\n"
    f"`{INSUFFICIENT_CREDIBLE}` (what `citations brief validate --fix` does).",
)
def numeric_claim_uncorroborated(brief: Brief, ctx):
    options = ctx.options
    names_compile = all_compile(tuple(options["non-numeric-names"]))
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
        parts = numeric_parts(bullet.claim, options["non-numeric-names"])  # last: the costliest test
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


def bullet_topics(brief: Brief, bullet: Bullet, options: dict) -> tuple[dict[str, str], str]:
    """Topic tags of a bullet and where they came from: §8's mapping, else the keyword classifier."""
    if brief.bullet_tags is not None and (bullet.section, bullet.index) in brief.bullet_tags:
        tags = brief.bullet_tags[(bullet.section, bullet.index)]
        return {t: "" for t in tags}, "mapping"
    return topics(bullet.claim, options["policy-patterns"], options["macro-patterns"]), "keywords"


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
@_doc(
    "Reports a claim bullet about central-bank policy or official macro releases (`policy_centralbank`,\n"
    "`macro_data`) that cites no Tier 1 source while the evidence pack holds one (spec §3.1). The\n"
    "bullet's tags come from §8's bullet mapping (sidecar `bullets`, or a `tags` column of the store's\n"
    "`synthesis_bullets`) when it has them, else from a keyword classifier: `Fed` (not `fed up`),\n"
    "`Federal Reserve`, `FOMC`, `central bank`, `ECB`, `interest rates`... are policy; `GDP`, `CPI`,\n"
    "`payrolls`... are macro data (settings `policy-patterns`, `macro-patterns`), in the claim's words\n"
    "as B320 reads them (not in link destinations, titles or HTML). With `match-topic`\n"
    "(the default) only a pack Tier 1 source whose registry tags share the claim's tag counts.",
    "Secondary reporting of an official decision can misstate it; when the official statement was\n"
    "retrieved, the brief must cite it directly.",
    _example("- The Fed held rates steady. [1]", [_cite(1, "reuters")],
             evidence_pack=_pack([("fed_press_releases", 1), ("reuters", 1)])),
    _example("- The Fed held rates steady. [1][2]\n- Fed up investors sold bonds. [1]",
             [_cite(1, "reuters"), _cite(2, "fed_press_releases")],
             evidence_pack=_pack([("fed_press_releases", 1), ("reuters", 1)])),
    f"Cite the Tier 1 source of the pack, or replace the bullet with `{CITE_OFFICIAL}`\n"
    "(what `citations brief validate --fix` does).",
)
def policy_claim_without_tier_1(brief: Brief, ctx):
    if not brief.pack:
        return
    options = ctx.options
    patterns_compile = all_compile((*options["policy-patterns"], *options["macro-patterns"]))
    pack_chunks = [c for c in brief.pack.get("chunks") or () if isinstance(c, dict)]
    available_by_tags: dict[tuple[str, ...], list] = {}  # the same for every bullet with the same tags
    for bullet in brief.bullets:
        cited = bullet_citations(brief, bullet)
        if bullet.abstain or not cited:
            continue
        if not patterns_compile:
            bullet_topics(brief, bullet, options)  # raises where it always did, if it does
        if cites_tier_in(brief, cited, (1,)):
            continue
        found, origin = bullet_topics(brief, bullet, options)
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


# -- §1/§5 grounding -----------------------------------------------------------------------------------------------


def escaped(text: str, limit: int = 160) -> str:
    """A double-quoted, escaped rendering: control, format and other invisible characters shown."""
    out = []
    for char in text[:limit]:
        if char in '"\\':
            out.append("\\" + char)
        elif char == "\n":
            out.append("\\n")
        elif char == "\t":
            out.append("\\t")
        elif char != " " and (not char.isprintable() or char.isspace()):
            out.append(f"\\u{ord(char):04x}" if ord(char) <= 0xFFFF else f"\\U{ord(char):08x}")
        else:
            out.append(char)
    return '"' + "".join(out) + ('..."' if len(text) > limit else '"')


def _quote_checks(brief: Brief) -> list[tuple[Any, str, str]]:
    """(marker, problem kind, message) for every citation's quote_span; computed once per brief
    for the two rules that report them."""
    if "quote_checks" not in brief.memo:
        brief.memo["quote_checks"] = list(_check_quotes(brief))
    return brief.memo["quote_checks"]


def _check_quotes(brief: Brief):
    for number, citation, marker in _objects(brief):
        span = citation.get("quote_span")
        if not isinstance(span, dict):
            continue
        stored = chunk_text(brief, citation.get("chunk_id"), citation.get("doc_id"))
        if stored is None:
            continue
        text, what = stored
        start, end, quoted = _int(span.get("start")), _int(span.get("end")), span.get("text")
        if start is None or end is None or start < 0 or end < start or end > len(text):
            yield marker, "range", (
                f"citation [{number}]: quote_span [{span.get('start')}:{span.get('end')}) is outside the stored "
                f"text of {what} ({len(text)} code points)"
            )
            continue
        if not isinstance(quoted, str):
            continue
        actual = text[start:end]
        if actual != quoted:
            first = next((i for i, (a, b) in enumerate(zip(quoted, actual, strict=False)) if a != b), min(len(quoted), len(actual)))
            yield marker, "text", (
                f"citation [{number}]: quote_span text differs from {what} [{start}:{end}) at offset {start + first}: "
                f"quoted {escaped(quoted)}, stored {escaped(actual)}"
            )


_QUOTE_TEXT = "Officials kept policy settings unchanged."
_QUOTE_CHUNKS = {"chunk_1": {"text": "Federal Reserve officials kept policy settings unchanged."}}


@rule("B322", "quote-span-mismatch", kind=KIND)
@_doc(
    "Reports a citation whose `quote_span.text` is not the stored text at `[start:end)` (code-point\n"
    "offsets into the stored chunk, or into the document when no chunk text is stored). The text\n"
    "comes from the evidence store's `chunks.text`, else from the sidecar's `chunks` / `documents`\n"
    'maps (`{"chunks": {"chunk_1": {"text": "..."}}}`). The message gives the first differing offset\n'
    "and both texts, escaped (invisible characters shown as `\\uXXXX`).",
    "A quote is the strongest evidence a brief offers; one that is not in the source is fabricated,\n"
    "however close it reads.",
    _example("- The Fed kept policy unchanged. [1]",
             [_cite(1, "fed_press_releases", quote_span={"start": 16, "end": 57, "text": _QUOTE_TEXT})],
             chunks=_QUOTE_CHUNKS),
    _example("- The Fed kept policy unchanged. [1]",
             [_cite(1, "fed_press_releases", quote_span={"start": 16, "end": 57, "text": "officials kept policy settings unchanged."})],
             chunks=_QUOTE_CHUNKS),
    "Quote the stored text exactly, with the offsets it has there.",
)
def quote_span_mismatch(brief: Brief, ctx):
    for marker, kind, message in _quote_checks(brief):
        if kind == "text":
            yield Finding(message, marker.line, marker.col)


@rule("B323", "quote-span-out-of-range", kind=KIND)
@_doc(
    "Reports a citation whose `quote_span` offsets are not integers with `0 <= start <= end <= length`\n"
    "of the stored chunk (or document) text.",
    "Offsets outside the text cannot locate the quote: the span was computed against another text,\n"
    "or the stored text was truncated.",
    _example("- The Fed kept policy unchanged. [1]",
             [_cite(1, "fed_press_releases", quote_span={"start": 16, "end": 90, "text": _QUOTE_TEXT})],
             chunks=_QUOTE_CHUNKS),
    _example("- The Fed kept policy unchanged. [1]",
             [_cite(1, "fed_press_releases", quote_span={"start": 16, "end": 57, "text": "officials kept policy settings unchanged."})],
             chunks=_QUOTE_CHUNKS),
    "Recompute the offsets against the stored text.",
)
def quote_span_out_of_range(brief: Brief, ctx):
    for marker, kind, message in _quote_checks(brief):
        if kind == "range":
            yield Finding(message, marker.line, marker.col)


FULL_TEXT_FIELDS = [
    "quote", "quote_text", "quotation", "full_text", "fulltext", "body", "body_text", "text", "content",
    "excerpt", "passage", "extract", "extracted_text", "article_text",
]


def paywalled_full_text_fields(citation: dict, names: list[str]) -> list[str]:
    """Fields other than ``quote_span`` (B314) and ``snippet_span`` that carry full text."""
    found = []
    for key, value in citation.items():
        if key in ("quote_span", "snippet_span"):
            continue
        if key in names and value not in (None, "", {}, []):
            found.append(key)
        elif isinstance(value, dict) and isinstance(value.get("text"), str) and value["text"].strip():
            found.append(key)  # a span under another name
    return found


@rule(
    "B324", "paywalled-full-text", kind=KIND,
    options={"fields": Option(list, FULL_TEXT_FIELDS, "citation fields that hold full text", items=str)},
)
@_doc(
    "Reports a citation of a `paywall_policy: metadata_only` source that carries full text under a\n"
    "field other than `quote_span` (B314 reports that one): `body_text`, `excerpt`, `full_text`... (setting\n"
    "`fields`), or any object with a `text` other than `snippet_span`.",
    "Spec §5: paywalled full text must never be stored or fabricated, whatever the field is called.",
    _example("- Stocks fell on inflation data. [1]",
             [_cite(1, "ft_markets", excerpt="Stocks tumbled on Tuesday after consumer prices rose faster than forecast.")]),
    _example("- Stocks fell on inflation data. [1]",
             [_cite(1, "ft_markets", snippet_span={"text": "Stocks tumble as CPI exceeds forecasts"})]),
    "Remove the field (keep a `snippet_span`); `citations brief validate --fix` strips it.",
)
def paywalled_full_text(brief: Brief, ctx):
    if brief.registry is None:
        return
    for number in brief.cited_numbers():
        citation = (brief.citations or {}).get(str(number))
        if not isinstance(citation, dict):
            continue
        source = source_of(brief, citation.get("source_id"))
        if source is None or source.paywall_policy != "metadata_only":
            continue
        fields = paywalled_full_text_fields(citation, ctx.options["fields"])
        if fields:
            marker = brief.first_marker(number)
            shown = ", ".join(fields)
            yield Finding(
                f"citation [{number}]: {shown} carr{'ies' if len(fields) == 1 else 'y'} text of {source.id}, "
                "whose paywall_policy is metadata_only: only snippet_span is allowed",
                marker.line, marker.col,
            )


# -- §4 the evidence pack -----------------------------------------------------------------------------------------------


def pack_view(brief: Brief) -> dict | None:
    """The pack's chunks with publisher and tier, and the diversity figures recomputed from them."""
    if not brief.pack:
        return None
    if "pack_view" in brief.memo:
        return brief.memo["pack_view"]
    chunks = [c for c in brief.pack.get("chunks") or () if isinstance(c, dict)]
    publishers = Counter([publisher_of(brief, c) for c in chunks])
    chunk_tiers = [tier_of(brief, c) for c in chunks]
    tiers = Counter(chunk_tiers)
    total = len(chunks)

    def pct(count: int) -> float:
        return 100.0 * count / total if total else 0.0

    top = publishers.most_common(1)[0] if publishers else (None, 0)
    view = {
        "chunks": chunks,
        "tiers": chunk_tiers,  # each chunk's tier_of
        "total": total,
        "publishers": publishers,
        "top": top,
        "stats": {
            "unique_publishers": len(publishers),
            **{f"tier_{t}_pct": pct(tiers.get(t, 0)) for t in (1, 2, 3, 4)},
            "max_publisher_pct": pct(top[1]),
        },
        "name": f"evidence pack {brief.pack.get('pack_id', '?')}",
    }
    brief.memo["pack_view"] = view
    return view


def _pct(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".") + "%"


_PACK_DOC_NOTE = (
    "The pack (§4.4) is the sidecar's `evidence_pack` or the store's `evidence_packs` row of the brief's\n"
    "synthesis. A chunk's publisher is its `publisher`, else its registry source's name up to \" - \", else\n"
    "its `source_id`; its tier is the registry's, else the chunk's `credibility_tier`."
)


def _diversity_settings(**options: str) -> str:
    lines = "\n".join(f"{k} = {v}" for k, v in options.items())
    return f"[tool.citations.rules.B328]\n{lines}\n" if lines else ""


@rule(
    "B325", "pack-publisher-dominance", kind=KIND,
    options={"max-publisher-pct": Option((int, float), 40, "the largest share of the pack one publisher may hold (%)")},
)
@_doc(
    "Reports an evidence pack in which one publisher holds more than 40% of the chunks (setting\n"
    "`max-publisher-pct`). Spec §4.2. " + _PACK_DOC_NOTE,
    "A synthesis from a pack one publisher dominates repeats that publisher's narrative; the contract\n"
    "requires down-sampling it.",
    _example("- The Fed held rates. [1]", [_cite(1, "fed_press_releases")],
             evidence_pack=_pack([("reuters", 3), ("fed_press_releases", 1), ("market_blog", 1)])),
    _example("- The Fed held rates. [1]", [_cite(1, "fed_press_releases")],
             evidence_pack=_pack([("reuters", 2), ("fed_press_releases", 2), ("market_blog", 1)])),
    "Down-sample the dominant publisher and retrieve from others.",
)
def pack_publisher_dominance(brief: Brief, ctx):
    view = pack_view(brief)
    if not view or not view["total"]:
        return
    limit = ctx.options["max-publisher-pct"]
    for publisher, count in sorted(view["publishers"].items(), key=lambda item: (-item[1], item[0])):
        share = 100.0 * count / view["total"]
        if share > limit:
            yield Finding(f"{view['name']}: publisher {quoted(publisher)} holds {count} of {view['total']} chunks "
                          f"({_pct(share)}), over {_pct(limit)}")


@rule(
    "B326", "pack-low-credibility", kind=KIND,
    options={"min-tier-1-2-pct": Option((int, float), 50, "the least share of Tier 1 and 2 chunks (%)")},
)
@_doc(
    "Reports an evidence pack whose Tier 1 and Tier 2 chunks are under 50% of it (setting\n"
    "`min-tier-1-2-pct`). Spec §4.2. " + _PACK_DOC_NOTE,
    "A pack of mostly secondary and low-trust sources cannot support a brief the reader will trust.",
    _example("- The Fed held rates. [1]", [_cite(1, "fed_press_releases")],
             evidence_pack=_pack([("fed_press_releases", 1), ("market_blog", 2)])),
    _example("- The Fed held rates. [1]", [_cite(1, "fed_press_releases")],
             evidence_pack=_pack([("fed_press_releases", 1), ("reuters", 1), ("market_blog", 2)])),
    "Retrieve more Tier 1-2 evidence.",
)
def pack_low_credibility(brief: Brief, ctx):
    view = pack_view(brief)
    if not view or not view["total"]:
        return
    share = view["stats"]["tier_1_pct"] + view["stats"]["tier_2_pct"]
    if share < ctx.options["min-tier-1-2-pct"]:
        yield Finding(f"{view['name']}: Tier 1-2 chunks are {_pct(share)} of {view['total']}, "
                      f"under {_pct(ctx.options['min-tier-1-2-pct'])}")


@rule(
    "B327", "pack-tier-4-excess", kind=KIND,
    options={"max-tier-4-pct": Option((int, float), 15, "the largest share of Tier 4 chunks (%)")},
)
@_doc(
    "Reports an evidence pack whose Tier 4 (monitor-only) chunks are over 15% of it (setting\n"
    "`max-tier-4-pct`). Spec §4.2. " + _PACK_DOC_NOTE,
    "Tier 4 sources are kept for minority-view discovery; they must not dominate retrieval.",
    _example("- The Fed held rates. [1]", [_cite(1, "fed_press_releases")],
             evidence_pack=_pack([("fed_press_releases", 3), ("reuters", 3), ("zerohedge", 2)])),
    _example("- The Fed held rates. [1]", [_cite(1, "fed_press_releases")],
             evidence_pack=_pack([("fed_press_releases", 4), ("reuters", 3), ("zerohedge", 1)])),
    "Down-sample the Tier 4 chunks.",
)
def pack_tier_4_excess(brief: Brief, ctx):
    view = pack_view(brief)
    if not view or not view["total"]:
        return
    share = view["stats"]["tier_4_pct"]
    if share > ctx.options["max-tier-4-pct"]:
        yield Finding(f"{view['name']}: Tier 4 chunks are {_pct(share)} of {view['total']}, "
                      f"over {_pct(ctx.options['max-tier-4-pct'])}")


@rule(
    "B328", "pack-size", kind=KIND,
    options={
        "min-chunks": Option(int, 20, "the fewest chunks a pack may hold (§4.1)"),
        "max-chunks": Option(int, 40, "the most chunks a pack may hold (§4.1; retrieval's default is 30)"),
    },
)
@_doc(
    "Reports an evidence pack with fewer than 20 or more than 40 chunks (settings `min-chunks`,\n"
    "`max-chunks`; §4.1's retrieval default is 30). " + _PACK_DOC_NOTE,
    "A pack too small cannot be diverse; one too large was not bounded as the contract requires.",
    _example("- The Fed held rates. [1]", [_cite(1, "fed_press_releases")],
             evidence_pack=_pack([("fed_press_releases", 2), ("reuters", 2)])),
    _example("- The Fed held rates. [1]", [_cite(1, "fed_press_releases")],
             settings=_diversity_settings(**{"min-chunks": "4"}),
             evidence_pack=_pack([("fed_press_releases", 2), ("reuters", 2)])),
    "Retrieve within the configured bounds, or set them to the pipeline's.",
)
def pack_size(brief: Brief, ctx):
    view = pack_view(brief)
    if not view:
        return
    low, high = ctx.options["min-chunks"], ctx.options["max-chunks"]
    if not low <= view["total"] <= high:
        yield Finding(f"{view['name']} holds {view['total']} chunks, outside {low}-{high}")


@rule(
    "B329", "pack-stale-chunk", kind=KIND,
    options={
        "recency-days": Option(int, 30, "the oldest a chunk of a time-sensitive pack may be, in days before generated_at"),
        "time-sensitive": Option(bool, True, "treat packs as time-sensitive unless they say \"time_sensitive\": false"),
    },
)
@_doc(
    "Reports, in a time-sensitive evidence pack, chunks published more than 30 days before the pack's\n"
    "`generated_at` (setting `recency-days`; spec §4.1 and §6's abstain scenario 4). A chunk's date is\n"
    "its `published_at` (the store dates it by its document). A pack is time-sensitive unless it says\n"
    '`"time_sensitive": false` (setting `time-sensitive` flips the default).',
    "Outdated evidence presented as today's is a false claim about the present.",
    _example("- The Fed held rates. [1]", [_cite(1, "fed_press_releases")],
             evidence_pack=_pack([], chunks=[
                 {"chunk_id": "chunk_1", "source_id": "fed_press_releases", "published_at": "2026-02-10T14:00:00Z"},
                 {"chunk_id": "chunk_2", "source_id": "reuters", "published_at": "2025-12-01T09:00:00Z"},
             ])),
    _example("- The Fed held rates. [1]", [_cite(1, "fed_press_releases")],
             evidence_pack=_pack([], chunks=[
                 {"chunk_id": "chunk_1", "source_id": "fed_press_releases", "published_at": "2026-02-10T14:00:00Z"},
                 {"chunk_id": "chunk_2", "source_id": "reuters", "published_at": "2026-01-20T09:00:00Z"},
             ])),
    "Drop the stale chunks or mark the pack `\"time_sensitive\": false` when history is the point.",
)
def pack_stale_chunk(brief: Brief, ctx):
    view = pack_view(brief)
    if not view:
        return
    sensitive = brief.pack.get("time_sensitive")
    if not (sensitive if isinstance(sensitive, bool) else ctx.options["time-sensitive"]):
        return
    generated = parse_iso_8601(brief.pack.get("generated_at"))
    if generated is None:
        return
    oldest = generated - datetime.timedelta(days=ctx.options["recency-days"])
    stale = []
    for chunk in view["chunks"]:
        published = parse_iso_8601(chunk.get("published_at"))
        if published is not None and published < oldest:
            stale.append(f"{chunk.get('chunk_id')} ({chunk.get('published_at')})")
    if stale:
        yield Finding(f"{view['name']}: {len(stale)} chunk{'s' if len(stale) > 1 else ''} older than "
                      f"{ctx.options['recency-days']} days before {brief.pack.get('generated_at')}: {', '.join(stale)}")


STAT_KEYS = ("unique_publishers", "tier_1_pct", "tier_2_pct", "tier_3_pct", "tier_4_pct", "max_publisher_pct")


@rule(
    "B330", "pack-diversity-stats-mismatch", kind=KIND,
    options={"tolerance": Option((int, float), 1.0, "percentage points a stored share may differ by (rounding)")},
)
@_doc(
    "Recomputes an evidence pack's `diversity_stats` (§4.4) from its chunks and the registry and reports\n"
    "each stored figure that disagrees: `unique_publishers` exactly, the `*_pct` shares within 1\n"
    "percentage point (setting `tolerance`). " + _PACK_DOC_NOTE,
    "Retry logging and review rely on these figures (§3.2); stored stats that do not describe the pack\n"
    "hide the dominance or the low-tier share they exist to show.",
    _example("- The Fed held rates. [1]", [_cite(1, "fed_press_releases")],
             evidence_pack=_pack([("fed_press_releases", 1), ("reuters", 1)], diversity_stats={
                 "unique_publishers": 2, "tier_1_pct": 50, "tier_2_pct": 50, "tier_3_pct": 0, "tier_4_pct": 0,
                 "max_publisher_pct": 35})),
    _example("- The Fed held rates. [1]", [_cite(1, "fed_press_releases")],
             evidence_pack=_pack([("fed_press_releases", 1), ("reuters", 1)], diversity_stats={
                 "unique_publishers": 2, "tier_1_pct": 50, "tier_2_pct": 50, "tier_3_pct": 0, "tier_4_pct": 0,
                 "max_publisher_pct": 50})),
    "Store the figures the pack has (or recompute them when the pack changes).",
)
def pack_diversity_stats_mismatch(brief: Brief, ctx):
    view = pack_view(brief)
    stored = brief.pack.get("diversity_stats") if view else None
    if not isinstance(stored, dict):
        return
    for key in STAT_KEYS:
        value = _number(stored.get(key))
        if value is None:
            continue
        actual = view["stats"][key]
        if key == "unique_publishers":
            if value != actual:
                yield Finding(f"{view['name']}: diversity_stats.unique_publishers is {stored[key]}, "
                              f"the chunks have {actual} ({', '.join(sorted(view['publishers']))})")
        elif abs(value - actual) > ctx.options["tolerance"]:
            yield Finding(f"{view['name']}: diversity_stats.{key} is {stored[key]}, recomputed {_pct(actual)}")


SIMILARITY = ("semantic_similarity", "similarity")
RECENCY = ("recency_score", "recency")
CREDIBILITY = ("credibility_score", "credibility")


def _component(chunk: dict, names: tuple[str, ...]) -> float | None:
    """The first of ``names`` the chunk has, if a number."""
    for name in names:
        if name in chunk:
            return _number(chunk[name])
    return None


@rule(
    "B331", "pack-score-mismatch", kind=KIND,
    options={
        "weights": Option(list, [0.5, 0.3, 0.2], "weights of similarity, recency and credibility (§4.3)", items=(int, float)),
        "tolerance": Option((int, float), 0.005, "how far a stored score may be from the formula"),
    },
)
@_doc(
    "Reports a pack chunk whose stored `score` is not `0.5*similarity + 0.3*recency + 0.2*credibility`\n"
    "(spec §4.3; settings `weights`, `tolerance`) when all three components are stored\n"
    "(`semantic_similarity`/`similarity`, `recency_score`/`recency`, `credibility_score`/`credibility`).",
    "A score that the formula does not give means retrieval ranked by something other than the\n"
    "contract's weighting, usually without the credibility term.",
    _example("- The Fed held rates. [1]", [_cite(1, "fed_press_releases")],
             evidence_pack=_pack([], chunks=[{"chunk_id": "chunk_1", "source_id": "fed_press_releases", "score": 0.97,
                                              "similarity": 0.9, "recency": 1.0, "credibility": 1.0}])),
    _example("- The Fed held rates. [1]", [_cite(1, "fed_press_releases")],
             evidence_pack=_pack([], chunks=[{"chunk_id": "chunk_1", "source_id": "fed_press_releases", "score": 0.95,
                                              "similarity": 0.9, "recency": 1.0, "credibility": 1.0}])),
    "Store the score the formula gives, or the components it was computed from.",
)
def pack_score_mismatch(brief: Brief, ctx):
    view = pack_view(brief)
    if not view:
        return
    weights = ctx.options["weights"]
    if len(weights) != 3:
        return
    tolerance = ctx.options["tolerance"]
    for chunk in view["chunks"]:
        score = _number(chunk.get("score"))
        if score is None:
            continue
        parts = [_component(chunk, SIMILARITY), _component(chunk, RECENCY), _component(chunk, CREDIBILITY)]
        if None in parts:
            continue
        expected = sum((weights[0] * parts[0], weights[1] * parts[1], weights[2] * parts[2]))  # added as sum() adds
        if abs(score - expected) > tolerance:
            yield Finding(f"{view['name']}: chunk {chunk.get('chunk_id')} has score {chunk['score']}, the formula gives "
                          f"{expected:.4f} ({weights[0]}*{parts[0]} + {weights[1]}*{parts[1]} + {weights[2]}*{parts[2]})")


@rule(
    "B332", "pack-credibility-mismatch", kind=KIND,
    options={"scores": Option(list, [1.0, 0.8, 0.6, 0.3], "credibility scores of Tiers 1-4 (§4.3)", items=(int, float))},
)
@_doc(
    "Reports a pack chunk whose stored `credibility_tier` is not its source's registry tier, or whose\n"
    "stored credibility score is not §4.3's for the tier (Tier 1: 1.0, 2: 0.8, 3: 0.6, 4: 0.3; setting\n"
    "`scores`).",
    "A chunk ranked or counted at a tier its source does not have skews both the retrieval score and\n"
    "the diversity figures.",
    _example("- The Fed held rates. [1]", [_cite(1, "fed_press_releases")],
             evidence_pack=_pack([], chunks=[{"chunk_id": "chunk_1", "source_id": "market_blog", "credibility_tier": 2,
                                              "credibility_score": 0.8}])),
    _example("- The Fed held rates. [1]", [_cite(1, "fed_press_releases")],
             evidence_pack=_pack([], chunks=[{"chunk_id": "chunk_1", "source_id": "market_blog", "credibility_tier": 3,
                                              "credibility_score": 0.6}])),
    "Store the registry's tier and the mapping's score.",
)
def pack_credibility_mismatch(brief: Brief, ctx):
    view = pack_view(brief)
    if not view:
        return
    scores = ctx.options["scores"]
    for chunk, tier in zip(view["chunks"], view["tiers"], strict=True):
        source = source_of(brief, chunk.get("source_id"))
        registry_tier = _int(source.credibility_tier) if source is not None else None
        stored_tier = chunk.get("credibility_tier")
        if registry_tier is not None and stored_tier is not None and stored_tier != registry_tier:
            yield Finding(f"{view['name']}: chunk {chunk.get('chunk_id')} has credibility_tier {stored_tier}, "
                          f"the registry gives {source.id} Tier {registry_tier}")
        value = _component(chunk, CREDIBILITY)
        if value is not None and tier is not None and 1 <= tier <= len(scores) and abs(value - scores[tier - 1]) > 1e-9:
            yield Finding(f"{view['name']}: chunk {chunk.get('chunk_id')} has credibility score {value:g}, "
                          f"Tier {tier} maps to {scores[tier - 1]:g}")


# -- §6 uncertainty markers and confidence labels; §3.2 the abstaining report -----------------------------------------

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


def _may_hold(raw_folded: str, words: list[str]) -> bool:
    """Whether a bullet whose casefolded text is ``raw_folded`` may hold a phrase of ``words`` once
    its claim is blanked by :func:`claim_text` and its whitespace collapsed: blanking (the claim's
    too) only turns characters into spaces, and casefolding maps each character alone, so each
    word is in ``raw_folded`` then."""
    # the first word alone rules out most bullets, without the cost of a generator
    return (not words or words[0] in raw_folded) and all(word in raw_folded for word in words)


@rule(
    "B333", "uncertainty-marker-overstates", kind=KIND,
    options={"markers": Option(list, UNCERTAINTY_MARKERS, "\"phrase => tiers\": the tiers a marker admits", items=str)},
)
@_doc(
    "Reports a bullet with one of §6's uncertainty markers that cites a source the marker does not\n"
    "admit: \"According to limited available reports\" admits Tier 3-4 sources only; \"Some sources\n"
    "suggest\" (\"official confirmation is pending\") and \"Early indications from\" admit no Tier 1 source\n"
    "(setting `markers`: `\"phrase => tiers\"`, matched case-insensitively anywhere in the claim's words,\n"
    "as B320 reads them).",
    "A hedge in front of an official statement misreports the evidence as weaker than it is; the\n"
    "hedge and the citations must tell the same story.",
    _example("- According to limited available reports, the Fed will pause. [1]", [_cite(1, "fed_press_releases")]),
    _example("- According to limited available reports, the Fed will pause. [1]", [_cite(1, "market_blog")]),
    "Drop the marker when the claim has the stronger sources, or cite what the marker says.",
)
def uncertainty_marker_overstates(brief: Brief, ctx):
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


def _may_have_label(text: str) -> bool:
    """False for a text the confidence label pattern cannot match (it has no ``CONFIDENCE]``): a
    plain search, cheaper than the pattern on every bullet."""
    return "CONFIDENCE]" in text


@rule(
    "B334", "confidence-label-mismatch", kind=KIND,
    options={
        "high-min-sources": Option(int, 3, "independent sources a HIGH CONFIDENCE bullet needs"),
        "high-max-tier": Option(int, 2, "the lowest tier that counts towards HIGH"),
        "medium-min-sources": Option(int, 2, "independent sources a MEDIUM CONFIDENCE bullet needs"),
        "medium-max-tier": Option(int, 2, "the lowest tier that counts towards MEDIUM"),
    },
)
@_doc(
    "Reports a bullet labelled `[HIGH CONFIDENCE]`, `[MEDIUM CONFIDENCE]` or `[LOW CONFIDENCE]` (§6)\n"
    "whose corroboration supports another level. HIGH needs 3 independent sources (distinct\n"
    "publishers) of Tier 1-2; MEDIUM needs 2; anything less is LOW (settings `high-min-sources`,\n"
    "`high-max-tier`, `medium-min-sources`, `medium-max-tier`). An understated label is reported too.",
    "A confidence label is a claim about the evidence; one the citations do not bear out misleads the\n"
    "reader more than no label.",
    _example("- [HIGH CONFIDENCE] The Fed will cut rates. [1]", [_cite(1, "zerohedge")]),
    _example("- [LOW CONFIDENCE] The Fed will cut rates. [1]", [_cite(1, "zerohedge")]),
    "Label the bullet with the level its citations support, or add corroboration.",
)
def confidence_label_mismatch(brief: Brief, ctx):
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


@rule("B335", "abstaining-report-incomplete", kind=KIND)
@_doc(
    "Reports an abstaining report (a file with the heading `Synthesis Status: Insufficient Evidence`,\n"
    "spec §3.2) that lacks one of its sections, `Available Evidence Summary`, `Why Insufficient` and\n"
    "`References`, or leaves one empty.",
    "The abstaining report replaces the brief; without its reasons or the evidence that was available\n"
    "the reader cannot tell an empty day from a failed pipeline.",
    '```markdown title="abstain.md"\n# Daily Brief - 2026-02-11\n\n### Synthesis Status: Insufficient Evidence\n\n'
    "No brief today.\n\n### References\n\n" + '[1] Federal Reserve. "FOMC Statement". Feb 10, 2026. https://www.federalreserve.gov/a.htm\n```\n',
    '```markdown title="abstain.md"\n# Daily Brief - 2026-02-11\n\n### Synthesis Status: Insufficient Evidence\n\n'
    "No brief today.\n\n### Available Evidence Summary\n\n- The Fed held rates. [1]\n\n### Why Insufficient\n\n"
    "- No Tier 1 sources published policy statements today\n\n### References\n\n"
    '[1] Federal Reserve. "FOMC Statement". Feb 10, 2026. https://www.federalreserve.gov/a.htm\n```\n',
    "Write the report with `citations brief validate --abstain-report`, which renders every section.",
)
def abstaining_report_incomplete(brief: Brief, ctx):
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

'''The claim classifier of the quality rules: the words of a bullet's claim (:func:`claim_text`),
the numbers, percentages, quarters, dates and years it states (:func:`numeric_parts`, B320) and
its policy topics (:func:`topics`, B321), each regex from the settings bounded in time on each claim
and all of them in a run (:class:`SettingsTime`); and the cheap tests that rule a bullet out before
its claim is read (B333's phrases, B334's label).'''

from __future__ import annotations

import functools
import re
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from time import perf_counter
from types import SimpleNamespace
from typing import Any, TypeVar

from pytest_citations.core.diagnostics import quoted
from pytest_citations.run import dependencies

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


@functools.lru_cache(maxsize=1024)
def claim_text(text: str) -> str:
    """The words of a claim (a bullet's :attr:`~pytest_citations.kinds.briefs.model.Bullet.claim`, whose
    link destinations, HTML and URLs are blanked already): markers, code spans and a confidence
    label blanked too (offsets kept); several rules ask for the same bullet's."""
    patterns = _patterns()
    for pattern in (*patterns.blanked, patterns.confidence):
        text = pattern.sub(lambda m: " " * len(m.group(0)), text)
    return text


REGEX_TIMEOUT = 0.5  # seconds one regex from the settings may run on one claim
RUN_SECONDS = 1.0  # seconds the regexes from the settings may run in a run, all together
PROCESS_SECONDS = 2.0  # and in a process (pytest checks each settings root in a run of its own)
SECONDS_PER_MIB = 1.0  # and more of both for each MiB of claims they are run on


class SettingsTime:
    """The time left to the regexes from the settings: they come with the checkout, and a regex
    may backtrack for ages on a claim written for it (``(a+)+$`` on a run of "a"s). Each runs at
    most :data:`REGEX_TIMEOUT` on a claim; all of them together at most a run's time, which is
    also spent from the process's (``within``); once it is up, they are not run any more. Each
    claim they are run on adds :data:`SECONDS_PER_MIB` per MiB of it, so that many briefs with
    patterns that do not backtrack never run out."""

    def __init__(self, seconds: float, within: SettingsTime | None = None) -> None:
        self.left, self.within = seconds, within

    def remaining(self) -> float:
        return self.left if self.within is None else min(self.left, self.within.remaining())

    def grant(self, characters: int) -> None:
        """More time for a claim of ``characters`` that the regexes are run on."""
        self.left += characters * SECONDS_PER_MIB / 2**20
        if self.within is not None:
            self.within.grant(characters)

    def spend(self, seconds: float) -> None:
        self.left -= seconds
        if self.within is not None:
            self.within.spend(seconds)


_PROCESS_TIME = SettingsTime(PROCESS_SECONDS)
_RUN_TIMES: weakref.WeakKeyDictionary[Any, SettingsTime] = weakref.WeakKeyDictionary()


def run_time(run: Any) -> SettingsTime:
    """The time of the regexes from the settings in the run ``run`` (an object of the run's that
    its rules see, which every root it checks shares: its rule registry)."""
    found = _RUN_TIMES.get(run)
    if found is None:
        found = _RUN_TIMES[run] = SettingsTime(RUN_SECONDS, _PROCESS_TIME)
    return found


@dataclass(frozen=True)
class Overrun:
    """A regex from the settings that did not run to its end on a claim: it ran longer than
    :data:`REGEX_TIMEOUT` on it, or (``out_of_time``) the regexes' time was up."""

    setting: str
    pattern: str
    out_of_time: bool

    def message(self, code: str) -> str:
        """What B337 says of it, for the setting of rule ``code``."""
        setting, pattern = f"the setting {self.setting} of {code}", quoted(self.pattern)
        if self.out_of_time:
            return (f"{setting}: the settings' patterns ran out of the time a run gives them ({RUN_SECONDS:g} s, "
                    f"{PROCESS_SECONDS:g} s in a process, and {SECONDS_PER_MIB:g} s more per MiB of claims) at the pattern "
                    f"{pattern} on this claim: from there on, claims were classified without them")
        return f"{setting}: the pattern {pattern} ran longer than {REGEX_TIMEOUT} s on this claim and was taken as not matching it"


_T = TypeVar("_T")


class _Settings:
    """The regexes of one setting, run on one claim: those from the settings within their time
    (:class:`SettingsTime`), and what did not finish noted in ``overruns``; the built-in ones,
    which run in linear time, as they are (a search with a time limit costs several times one
    without)."""

    def __init__(self, setting: str, patterns: list[str], text: str, time: SettingsTime | None,
                 overruns: list[Overrun] | None) -> None:
        self.setting, self.overruns = setting, overruns
        self.time = time if time is not None else SettingsTime(RUN_SECONDS)
        self.trusted = _TRUSTED.issuperset(patterns)
        if not self.trusted:
            self.time.grant(len(text))

    def none_match(self, patterns: list[str], text: str) -> bool:
        """True when no regex of ``patterns`` matches anywhere in ``text`` (False when unsure):
        one alternation of them all, as a cheap first test before trying each in turn."""
        combined = _any_of(tuple(patterns)) if len(patterns) > 1 else None  # (one is tried as it is)
        if combined is None:
            return False
        if self.trusted:
            return combined.search(text) is None
        return self._timed(lambda timeout: combined.search(text, timeout=timeout) is None, False)

    def search(self, pattern: str, text: str) -> Any:
        compiled = _compiled(pattern)
        if pattern in _TRUSTED:
            return compiled.search(text)
        return self._timed(lambda timeout: compiled.search(text, timeout=timeout), None, pattern)

    def blank(self, pattern: str, text: str) -> str:
        """``text`` with what ``pattern`` matches blanked (offsets kept)."""
        compiled = _compiled(pattern)
        if pattern in _TRUSTED:
            return compiled.sub(_spaces, text)
        return self._timed(lambda timeout: compiled.sub(_spaces, text, timeout=timeout), text, pattern)

    def _timed(self, run: Callable[[float], _T], unfinished: _T, pattern: str | None = None) -> _T:
        """``run(timeout)`` within the time left, or ``unfinished`` when it did not finish (noted
        as an overrun of ``pattern``, when one is named)."""
        left = self.time.remaining()
        if left <= 0:
            self._note(pattern, out_of_time=True)
            return unfinished
        timeout = min(REGEX_TIMEOUT, left)
        started = perf_counter()
        try:
            return run(timeout)
        except TimeoutError:
            self._note(pattern, out_of_time=timeout < REGEX_TIMEOUT)
            return unfinished
        finally:
            self.time.spend(perf_counter() - started)

    def _note(self, pattern: str | None, out_of_time: bool) -> None:
        dependencies.note_run_limit()  # (the run's time, or the machine's speed, decided it)
        if pattern is not None and self.overruns is not None:
            self.overruns.append(Overrun(self.setting, pattern, out_of_time))


def _spaces(match) -> str:
    return " " * len(match.group(0))


def numeric_parts(text: str, names: list[str] = NAMES, overruns: list[Overrun] | None = None,
                  time: SettingsTime | None = None) -> list[tuple[str, str]]:
    """(kind, text) of every number, percentage, quarter, month-day date and year in a claim;
    ``may``, ``March`` alone, ``Q&A`` and index names such as ``S&P 500`` are none. The names
    from the settings run within ``time`` (alone on this claim without it); those that did not
    finish are added to ``overruns``, and blank nothing."""
    text = claim_text(text)
    settings = _Settings("non-numeric-names", names, text, time, overruns)
    if not settings.none_match(names, text):
        for name in names:
            text = settings.blank(name, text)
    return [(m.lastgroup, " ".join(m.group(0).split())) for m in _patterns().numeric.finditer(text)]


def topics(text: str, policy: list[str] = POLICY_PATTERNS, macro: list[str] = MACRO_PATTERNS,
           overruns: list[Overrun] | None = None, time: SettingsTime | None = None) -> dict[str, str]:
    """The policy tags the keyword classifier gives a claim, each with the words that matched; the
    patterns from the settings run as in :func:`numeric_parts`, and those that did not finish
    match nothing."""
    found: dict[str, str] = {}
    text = claim_text(text)
    for tag, setting, patterns in (("policy_centralbank", "policy-patterns", policy), ("macro_data", "macro-patterns", macro)):
        settings = _Settings(setting, patterns, text, time, overruns)
        if settings.none_match(patterns, text):
            continue
        for pattern in patterns:
            match = settings.search(pattern, text)
            if match:
                found[tag] = match.group(0)
                break
    return found


def _may_hold(raw_folded: str, words: list[str]) -> bool:
    """Whether a bullet whose casefolded text is ``raw_folded`` may hold a phrase of ``words`` once
    its claim is blanked by :func:`claim_text` and its whitespace collapsed: blanking (the claim's
    too) only turns characters into spaces, and casefolding maps each character alone, so each
    word is in ``raw_folded`` then."""
    # the first word alone rules out most bullets, without the cost of a generator
    return (not words or words[0] in raw_folded) and all(word in raw_folded for word in words)


def _may_have_label(text: str) -> bool:
    """False for a text the confidence label pattern cannot match (it has no ``CONFIDENCE]``): a
    plain search, cheaper than the pattern on every bullet."""
    return "CONFIDENCE]" in text

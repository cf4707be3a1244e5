"""Whether a Markdown file is a brief, by what it holds (the kind's sniff and claim): §3.2's
abstaining report, or two claim-section headings (:mod:`headings`) with a References heading
over what a brief holds besides (:func:`holds_brief_evidence`), or without one, over claim
sections that cite (:func:`_claim_citations`). A file longer than the engine's sniff window is
read whole when its start opens a brief (:func:`opens_a_brief`), or when its text, read on past
the window, names one (:func:`names_a_brief`)."""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable

from pytest_citations.kinds.briefs.headings import _heading_matches, heading_key, heading_titles, headings

ABSTAIN_PREFIXES = [
    "Insufficient evidence",
    "Insufficient credible evidence",
    "Data not yet available",
    "Conflicting reports",
    "No official statement found",
    "Cite official source directly",
]
ABSTAIN_STATUS = "Synthesis Status: Insufficient Evidence"
ABSTAIN_SECTIONS = ["Available Evidence Summary", "Why Insufficient"]


# What a brief holds besides its headings, and ordinary writing under the same headings does not
# (spec §3, §6, §7.2): a References entry line (``[N] ...``, as :data:`model._ENTRY_START` reads
# one), a ``[N]`` marker on a list item's line or on an indented line (a list item's next line), or
# an abstain marker. Searched with a newline put in front of the text, as
# :data:`headings._ATX_HEADING` is.
_ENTRY_LINE = r"\n[ \t]*(?:[-*+][ \t]+)?\[[0-9]{1,9}\][ \t]"
_CITED_ITEM = r"\n(?:[ \t]|(?:>[ \t]*)*(?:[-*+]|[0-9]{1,9}[.)])[ \t])[^\n]*\[[0-9]{1,9}\]"
_ABSTAIN = r"\[[ \t]*(?i:" + "|".join(re.escape(prefix) for prefix in ABSTAIN_PREFIXES) + ")"
_EVIDENCE = re.compile(f"{_ENTRY_LINE}|{_CITED_ITEM}|{_ABSTAIN}")
# what a claim section's bullets hold, cited or abstaining (§3, §6), and a References entry line
_CLAIM_EVIDENCE = re.compile(f"{_CITED_ITEM}|{_ABSTAIN}")
_ENTRY = re.compile(_ENTRY_LINE)


def holds_brief_evidence(text: str) -> bool:
    """Whether ``text`` holds a References entry, a marker in a list item or an abstain marker
    (:data:`_EVIDENCE`): a brief always holds one, even when none of its bullets is cited."""
    return _EVIDENCE.search("\n" + text) is not None


def looks_like_brief(text: str, claim_sections: list[str], references: str) -> bool:
    return _is_brief(heading_titles(text), claim_sections, references, text)


def _claim_spans(text: str, claim_sections: list[str]) -> list[tuple[int, int]]:
    """The [start, end) offsets of the claim sections of ``text``, each from its heading to the
    next heading of its level or a higher one (a deeper heading stays inside it), as
    :func:`model.read_brief` reads them (fences not considered)."""
    keys = {heading_key(name) for name in claim_sections}
    spans = []
    start, level = -1, 0  # the open claim section's start and heading level (-1: none open)
    for heading in _heading_matches(text):
        key = heading_key(heading.text)
        if key not in keys and start >= 0 and heading.level > level:
            continue  # a sub-heading: its section goes on
        if start >= 0:
            spans.append((start, heading.start))
        start, level = (heading.start, heading.level) if key in keys else (-1, 0)
    if start >= 0:
        spans.append((start, len(text)))
    return spans


def _claim_citations(text: str, claim_sections: list[str]) -> tuple[bool, int | None]:
    """(whether a claim section of ``text`` holds a ``[N]`` marker on a list item's line or an
    abstain marker, the 1-based line of the first References entry line outside every claim
    section, or None): what tells a brief without its References heading. Claim sections that
    cite are a brief (spec §3), whose missing References B317 reports; entries listed under some
    other heading are a References section renamed, which only the settings can name."""
    led = "\n" + text  # a match at ``i`` of ``led`` starts the line at ``i`` of ``text``
    spans = _claim_spans(text, claim_sections)
    cited = any(_CLAIM_EVIDENCE.search(led, start, end + 1) for start, end in spans)
    starts = [start for start, _ in spans]
    for entry in _ENTRY.finditer(led):
        index = bisect.bisect_right(starts, entry.start()) - 1
        if index < 0 or entry.start() >= spans[index][1]:
            return cited, text.count("\n", 0, entry.start()) + 1
    return cited, None


# A word of each default claim-section heading, with no letter another character casefolds to
# (no ``s``, ``k``, ``st``, ``ff``, ``fi``...): what :func:`may_be_brief` looks for.
_CLAIM_WORDS = ("prevailing", "counterargument", "minority", "watch")


def may_be_brief(head: str) -> bool:
    """False for most heads :func:`looks_like_brief` rejects with the default headings, at a tenth
    of its cost (every Markdown file no kind claims by path is sniffed). A brief has a heading that
    compares as ``synthesis status: insufficient evidence``, or two claim-section headings and
    either one that compares as ``references`` or a ``[`` (of a marker or an abstain marker). The
    only characters that casefold to the letters of ``referenc``, ``evidence``, ``cient`` (of
    "insufficient") or :data:`_CLAIM_WORDS` are those ASCII letters in either case (``ſ`` and the
    Kelvin sign give ``s`` and ``k``, ligatures and ``ß`` give pairs none of these words holds),
    and :func:`heading_key` removes no character between two letters, so the head holds these
    words in ASCII, in some case."""
    lowered = head.lower()
    if "evidence" in lowered and "cient" in lowered:
        return True
    return ("referenc" in lowered or "[" in head) and sum(word in lowered for word in _CLAIM_WORDS) >= 2


def _is_brief(titles: set[str], claim_sections: list[str], references: str, text: str) -> bool:
    """Whether a file of these heading ``titles`` and ``text`` is a brief: §3.2's abstaining
    report, or a synthesis with two claim-section headings (one when only one is configured) and
    either a References heading and :func:`holds_brief_evidence`, or, without one, claim
    sections that cite and no References entries under another heading (:func:`_claim_citations`)."""
    claims = sum(1 for name in claim_sections if heading_key(name) in titles)
    if heading_key(ABSTAIN_STATUS) in titles and claims == 0:
        return True  # §3.2's abstaining report: B335 checks its sections
    if claims < min(2, len(claim_sections)):
        return False
    if heading_key(references) in titles:
        return holds_brief_evidence(text)
    cited, entries_elsewhere = _claim_citations(text, claim_sections)
    return cited and entries_elsewhere is None


def not_a_brief_because(text: str, claim_sections: list[str], references: str) -> str:
    """What ``text`` lacks to be a brief by its content (:func:`_is_brief`), for a person to read."""
    titles = heading_titles(text)
    claims = [name for name in claim_sections if heading_key(name) in titles]
    if len(claims) < min(2, len(claim_sections)):
        found = f" (it has {', '.join(claims)})" if claims else ""
        return f"it lacks two of the claim-section headings {', '.join(claim_sections)}{found}"
    if heading_key(references) in titles:
        return "it lacks a [N] marker in a list item, a [N] References entry or an abstain marker"
    cited, entries_elsewhere = _claim_citations(text, claim_sections)
    if entries_elsewhere is not None:
        return f"it lacks a {references} heading: its [N] entries (line {entries_elsewhere}) are under another heading"
    return f"it lacks a {references} heading or a [N] marker or abstain marker in a claim section's bullet"




def names_a_brief(pieces: Iterable[str], claim_sections: list[str]) -> bool:
    """Whether the text given in ``pieces`` (each ending at a line's end, the last at the text's)
    has two claim-section headings, or the abstaining report's heading, wherever they lie: what a
    long brief whose claim sections start past the sniff window holds. One pass, a piece at a time
    (each piece with the last line of the one before, which a setext underline at its start makes a
    heading); a piece that holds no word of the default headings (:data:`_CLAIM_WORDS`,
    ``evidence``) is not searched, as in :func:`may_be_brief`: the sniff knows no other headings."""
    keys = {heading_key(name) for name in claim_sections}
    found: set[str] = set()
    last_line = ""
    for piece in pieces:
        text = last_line + piece
        last_line = text[text.rfind("\n", 0, len(text) - 1) + 1 :]
        lowered = text.lower()
        if not any(word in lowered for word in (*_CLAIM_WORDS, "evidence")):
            continue
        titles = heading_titles(text)
        if heading_key(ABSTAIN_STATUS) in titles:
            return True
        found |= keys & titles
        if len(found) >= min(2, len(keys)):
            return True
    return False


def opens_a_brief(head: str, claim_sections: list[str]) -> bool:
    """Whether the start of a file holds what the start of a brief always holds, however long
    the brief: claim-section headings. A brief's References heading comes last and may lie past
    any window, but its first claim section starts near the top: the head holds two claim-section
    headings, or one whose section runs on to the end of the head (a deeper heading stays inside
    it). Ordinary Markdown names such a heading rarely, and then goes on to other sections."""
    claims = {heading_key(name) for name in claim_sections}
    found = headings(head)
    opened = [index for index, (title, _, _) in enumerate(found) if title in claims]
    if not opened:
        return False
    if len({found[index][0] for index in opened}) >= 2:
        return True
    level = found[opened[0]][2]
    return all(depth > level for _, _, depth in found[opened[0] + 1 :])

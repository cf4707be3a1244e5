"""Which regulation a RAG output's citation cites, by what it says: the EAR (15 CFR parts 730 to
774), another regulation, or neither.

A section number alone (``741.3``, ``§ 745.1``) does not say: other CFR titles have parts 730 to
774 too (12 CFR's credit-union rules, 40 CFR 745 on lead paint). So a RAG output's
``citations[].section_id`` is an EAR id when the id says so itself (``EAR-736.2``,
``15 CFR 736.2``) or when its citation or its record names the EAR, and never when its citation
names another regulation (``"title": "12 CFR 741.3 Criteria"``): such an id is not judged, and
never rewritten.
"""

from __future__ import annotations

import re
from typing import Any

from pytest_citations.kinds.ear_ids.ids import EAR_PARTS, looks_like_ear_id

EAR, OTHER = "ear", "other"
# The EAR named in words: the upper-case word EAR ("EAR sections", an id's "EAR-736.2"), but not
# the start of a hyphenated word ("EAR-related"), or the regulation's name. The lower-case word is
# anyone's ("ear training", "inner ear").
NAMES_THE_EAR = re.compile(
    r"(?<![A-Za-z0-9_-])EAR(?![A-Za-z0-9_]|-[A-Za-z])|(?i:Export\s+Administration\s+Regulations)"
)
# A CFR citation: a title, CFR, and perhaps a part or a section of it ("12 CFR 741.3",
# "15 C.F.R. § 30.2", "15 CFR Part 744", "15CFR736.2", "12 CFR"). Each white-space run is matched
# by one quantifier that a literal follows, so a failed match costs the length of the run once.
_CFR_CITATION = re.compile(
    r"(?<![0-9])(?P<title>[0-9]{1,3})\s*C\.?\s*F\.?\s*R(?![A-Za-z])\.?"
    r"(?:(?:\s*(?:§+|parts?(?![A-Za-z])))?\s*(?P<part>[0-9]+))?",
    re.ASCII | re.IGNORECASE,
)
_TITLE_15 = "title 15"  # 15 CFR without a part: the EAR's title, and others' (Census rules in part 30)


def _cfr_verdicts(text: str) -> set[str]:
    """What the CFR citations of ``text`` name: :data:`EAR` (15 CFR and a part of the EAR's),
    :data:`OTHER` (another title, or another part of title 15), ``title 15`` (15 CFR alone)."""
    verdicts = set()
    for found in _CFR_CITATION.finditer(text):
        part = found.group("part")
        if int(found.group("title")) != 15:
            verdicts.add(OTHER)
        elif part is None:
            verdicts.add(_TITLE_15)
        else:
            verdicts.add(EAR if int(part) in EAR_PARTS else OTHER)
    return verdicts


def _said_by_the_id(section_id: object) -> str | None:
    """What a ``section_id`` says of itself: :data:`EAR` for an ``EAR`` prefix or 15 CFR and a part
    of the EAR's, :data:`OTHER` for a CFR prefix of another title or part, None for a section
    number alone (or no string)."""
    if not isinstance(section_id, str):
        return None
    text = section_id.strip()
    cfr = _CFR_CITATION.match(text)
    if cfr is not None:
        return EAR if _cfr_verdicts(cfr.group()) == {EAR} else OTHER
    number_alone = text.lstrip("§").lstrip()[:1].isdigit()
    return EAR if looks_like_ear_id(text) and not number_alone else None


def citation_regulation(citation: dict[str, Any]) -> str | None:
    """Which regulation a RAG citation (an object of a record's ``citations``) cites: :data:`EAR`,
    :data:`OTHER`, or None when it does not say. Its ``section_id`` decides when it says so itself;
    else its other text fields (a ``title``, a ``source``): another regulation named there wins
    over the EAR, so that a citation of another title is never rewritten."""
    said = _said_by_the_id(citation.get("section_id"))
    if said is not None:
        return said
    texts = [value for key, value in citation.items() if key != "section_id" and isinstance(value, str)]
    verdicts = set().union(*map(_cfr_verdicts, texts))
    if OTHER in verdicts:
        return OTHER
    if EAR in verdicts or (_TITLE_15 in verdicts and looks_like_ear_id(citation.get("section_id"))):
        return EAR
    return EAR if any(NAMES_THE_EAR.search(text) for text in texts) else None


def names_the_ear(text: str) -> bool:
    """Whether ``text`` (a record) names the EAR: in words, or as 15 CFR (with a part of the EAR's,
    or none: a section number of the EAR's parts under title 15 is the EAR's)."""
    return NAMES_THE_EAR.search(text) is not None or bool({EAR, _TITLE_15} & _cfr_verdicts(text))

"""EAR section identifiers (ear-identifier-policy.md): normalization and the canonical forms.

A canonical section id is ``EAR-<section>`` matching :data:`SECTION_ID` (spec §4.1), for example
``EAR-736.2(b)``; a paragraph chunk id adds an anchor, ``EAR-736.2#p0008`` (§4.2,
:data:`ANCHORED_ID`). The normalizers follow the spec's canonicalization rules (§2), and accept the
spellings real data uses (``15CFR736.2``, ``§§ 736.2``, ``EAR 736.2``, a no-break space anywhere).
What is not an EAR *section* gives ``None``, never a guess: ``73.2``, ``1736.2``,
``Supplement No. 1 to Part 740``, and a part-only id such as ``EAR-736`` (the reference
implementation accepts parts, but the spec's regex does not, and every output here matches it).

KG section IRIs (spec §5): ``<base><encoded>``, where ``<encoded>`` is the canonical id with every
character outside RFC 3986's unreserved set (``A-Z a-z 0-9 - . _ ~``) percent-encoded with
uppercase hex digits: ``EAR-736.2(b)`` -> ``.../section/EAR-736.2%28b%29``.
"""

from __future__ import annotations

import re
from urllib.parse import quote, unquote

# The spec's regexes; ASCII digits only (``\d`` alone would also accept other scripts' digits).
SECTION_ID = re.compile(r"^EAR-\d{3}(?:\.\d+[a-z0-9]*)+(?:\([a-z0-9]+\))*\Z", re.ASCII)
ANCHORED_ID = re.compile(r"^EAR-\d{3}(?:\.\d+[a-z0-9]*)+(?:\([a-z0-9]+\))*#p\d{4}\Z", re.ASCII)
DEFAULT_IRI_BASE = "https://ear.example.org/resource/ear/section/"

_BODY = re.compile(r"(?:\d{3}(?:\.\d+[a-z0-9]*)+(?:\([a-z0-9]+\))*)\Z", re.ASCII)
_CFR_PREFIX = re.compile(r"^15\s*c\.?\s*f\.?\s*r\.?", re.IGNORECASE)
_EAR_PREFIX = re.compile(r"^ear(?:-|\s+|(?=§))", re.IGNORECASE)
_SPLIT_WORDS = re.compile(r"[A-Za-z0-9] +[A-Za-z0-9]")
_ANCHOR = re.compile(r"^p\d{4}\Z", re.ASCII)
_PART = re.compile(r"(?:part)?\d{3}\.?\Z", re.ASCII)


def _spaces_to_plain(value: str) -> str:
    """Every Unicode white space (a no-break space included) as a plain space."""
    return "".join(" " if char.isspace() else char for char in value)


def normalize_ear_section_id(raw: object) -> str | None:
    """The canonical ``EAR-<section>`` form of ``raw``, or None when it is not an EAR section id.

    Trims white space (including no-break spaces), strips leading ``§`` signs, allows a leading
    ``15 CFR`` (``15CFR``, ``15 C.F.R.``) and an ``EAR-`` or ``EAR `` prefix, removes internal
    spaces, lowercases the section body and drops trailing periods. A space between two letters
    or digits of the body (``736.2 or 740.1``) is not removed but refused: joining the words
    would be a guess.
    """
    if not isinstance(raw, str):
        return None
    value = _spaces_to_plain(raw).strip()
    value = value.lstrip("§").strip()
    value = _CFR_PREFIX.sub("", value, count=1).strip()
    value = _EAR_PREFIX.sub("", value, count=1).strip()
    body = value.lstrip("§").strip()
    if _SPLIT_WORDS.search(body):  # "736.2 or 740.1", "7 36.2": removing the space would be a guess
        return None
    body = body.replace(" ", "").rstrip(".").lower()
    if not _BODY.match(body):
        return None
    return f"EAR-{body}"


def normalize_ear_doc_id(raw: object) -> str | None:
    """A section id, or a section id with a paragraph anchor (``#pNNNN``), in canonical form.

    Anchor suffixes other than ``pNNNN`` are reserved by the spec (§1.2) and give None.
    """
    if not isinstance(raw, str):
        return None
    if "#" not in raw:
        return normalize_ear_section_id(raw)
    left, suffix = raw.split("#", 1)
    section = normalize_ear_section_id(left)
    anchor = _spaces_to_plain(suffix).replace(" ", "").lower()
    if section is None or not _ANCHOR.match(anchor):
        return None
    return f"{section}#{anchor}"


def is_section_id(value: object) -> bool:
    return isinstance(value, str) and SECTION_ID.match(value) is not None


def is_anchored_id(value: object) -> bool:
    return isinstance(value, str) and ANCHORED_ID.match(value) is not None


def is_part_id(value: object) -> bool:
    """Whether ``value`` names a whole part (``EAR-736``, ``736``, ``§ 736``): not a section."""
    if not isinstance(value, str):
        return False
    text = _spaces_to_plain(value).strip().lstrip("§").strip()
    text = _EAR_PREFIX.sub("", _CFR_PREFIX.sub("", text, count=1).strip(), count=1)
    return _PART.match(text.lstrip("§").replace(" ", "").lower()) is not None


def encode_section_id(section_id: str) -> str:
    """RFC 3986 percent-encoding of everything outside the unreserved set, uppercase hex."""
    return quote(section_id, safe="")


def section_iri(section_id: str, base: str = DEFAULT_IRI_BASE) -> str:
    return base + encode_section_id(section_id)


def decode_section_segment(segment: str) -> str | None:
    """The text a percent-encoded IRI segment stands for; None when an escape is not UTF-8."""
    try:
        return unquote(segment, errors="strict")
    except UnicodeDecodeError:
        return None

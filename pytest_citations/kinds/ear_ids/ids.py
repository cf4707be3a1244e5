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

# The spec's regexes, ``^EAR-\d{3}(?:\.\d+[a-z0-9]*)+(?:\([a-z0-9]+\))*$`` and the same with
# ``#p\d{4}``, in an equivalent form (``\d+[a-z0-9]*`` is ``\d[a-z0-9]*``: the class holds the
# digits); ASCII digits only (``\d`` alone would also accept other scripts' digits). Ids are not
# matched with them but with :func:`_is_section`, which says the same in time linear in the id and
# constant memory: as the spec writes it, a failed match tries every way of splitting a run of
# digits between ``\d+`` and ``[a-z0-9]*`` (``EAR-777.`` + 3000 digits + ``(`` took seconds), and
# Python's regex engine keeps a record of each repetition of a group (an id of a million ``.1``
# took 130 MB).
_SECTION = r"\d{3}(?:\.\d[a-z0-9]*)+(?:\([a-z0-9]+\))*"
SECTION_ID = re.compile(rf"^EAR-{_SECTION}\Z", re.ASCII)
ANCHORED_ID = re.compile(rf"^EAR-{_SECTION}#p\d{{4}}\Z", re.ASCII)
DEFAULT_IRI_BASE = "https://ear.example.org/resource/ear/section/"

# _is_section's parts, each a run of one character class or a search for two characters in a row:
_DOTTED = re.compile(r"\d{3}\.[.a-z0-9]*", re.ASCII)  # then each period is followed by a digit
_PERIOD_WITHOUT_DIGIT = re.compile(r"\.(?![0-9])")
_GROUPS = re.compile(r"\([()a-z0-9]*\)", re.ASCII)  # then no two of these in a row:
_GROUP_BREAK = re.compile(r"\(\)|\(\(|\)\)|\)[a-z0-9]|[a-z0-9]\(", re.ASCII)
_CFR_PREFIX = re.compile(r"^15\s*c\.?\s*f\.?\s*r\.?", re.IGNORECASE)
_EAR_PREFIX = re.compile(r"^ear(?:-|\s+|(?=§))", re.IGNORECASE)
_SPLIT_WORDS = re.compile(r"[A-Za-z0-9] +[A-Za-z0-9]")
_ANCHOR = re.compile(r"^p\d{4}\Z", re.ASCII)
_PART = re.compile(r"(?:part)?\d{3}\.?\Z", re.ASCII)


def _is_section(body: str) -> bool:
    r"""Whether ``body`` (a section id without ``EAR-``) matches the spec's section pattern
    ``\d{3}(?:\.\d+[a-z0-9]*)+(?:\([a-z0-9]+\))*``: three digits, then periods each followed by a
    digit and letters or digits, then ``(...)`` groups of letters or digits."""
    split = body.find("(")
    dotted, groups = (body, "") if split < 0 else (body[:split], body[split:])
    if _DOTTED.fullmatch(dotted) is None or _PERIOD_WITHOUT_DIGIT.search(dotted) is not None:
        return False
    return not groups or (_GROUPS.fullmatch(groups) is not None and _GROUP_BREAK.search(groups) is None)


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
    if not _is_section(body):
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
    """Whether ``value`` matches :data:`SECTION_ID`."""
    return isinstance(value, str) and value.startswith("EAR-") and _is_section(value[4:])


def is_anchored_id(value: object) -> bool:
    """Whether ``value`` matches :data:`ANCHORED_ID`."""
    return (isinstance(value, str) and value.startswith("EAR-") and value[-6:-5] == "#"
            and _ANCHOR.match(value[-5:]) is not None and _is_section(value[4:-6]))


def is_part_id(value: object) -> bool:
    """Whether ``value`` names a whole part (``EAR-736``, ``736``, ``§ 736``): not a section."""
    if not isinstance(value, str):
        return False
    text = _spaces_to_plain(value).strip().lstrip("§").strip()
    text = _EAR_PREFIX.sub("", _CFR_PREFIX.sub("", text, count=1).strip(), count=1)
    return _PART.match(text.lstrip("§").replace(" ", "").lower()) is not None


EAR_PARTS = range(730, 775)  # the EAR is parts 730 to 774 of 15 CFR
_PART_AND_SECTION = re.compile(r"(\d{3})\.\d", re.ASCII)


def looks_like_ear_id(value: object) -> bool:
    """Whether ``value`` is written as an EAR section id, canonical or not: it says so itself (an
    ``EAR-`` or ``EAR `` prefix before a digit or ``§``), or it names a section of one of the EAR's
    parts, with or without ``§`` and ``15 CFR`` (``§ 736.2``, ``15 CFR 740.9``, ``736.2(b)``). A
    section of another title or part (``§ 101.5``, ``15 CFR 30.2``) and another tool's section
    number (``3.2``, ``sec-3``) are not. Linear in the value's length."""
    if not isinstance(value, str):
        return False
    text = _CFR_PREFIX.sub("", _spaces_to_plain(value).strip(), count=1).strip()
    said = _EAR_PREFIX.match(text)
    body = text[said.end() :].lstrip().lstrip("§").lstrip() if said else text.lstrip("§").lstrip()
    if said:
        return body[:1].isascii() and body[:1].isdigit()
    part = _PART_AND_SECTION.match(body)
    return part is not None and int(part.group(1)) in EAR_PARTS


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

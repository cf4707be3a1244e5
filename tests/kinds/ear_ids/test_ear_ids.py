"""EAR section id normalization (ear-identifier-policy.md §2, §4) and the KG IRI encoding (§5)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_citations.kinds.ear_ids.ids import (
    ANCHORED_ID,
    SECTION_ID,
    decode_section_segment,
    encode_section_id,
    is_part_id,
    normalize_ear_doc_id,
    normalize_ear_section_id,
    section_iri,
)

NBSP = "\u00a0"


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        # already canonical
        ("EAR-736.2(b)", "EAR-736.2(b)"),
        ("EAR-740.9(a)(2)", "EAR-740.9(a)(2)"),
        ("EAR-744.6(b)(3)", "EAR-744.6(b)(3)"),
        ("EAR-740.1", "EAR-740.1"),
        # the spec's rules: trim (NBSP too), strip §, 15 CFR, EAR-/EAR prefixes, inner spaces,
        # lowercase body, trailing periods
        ("  EAR-736.2(b)  ", "EAR-736.2(b)"),
        (f"{NBSP}EAR-736.2(b){NBSP}", "EAR-736.2(b)"),
        ("§ 736.2(b)", "EAR-736.2(b)"),
        ("§736.2", "EAR-736.2"),
        ("15 CFR 736.2", "EAR-736.2"),
        ("15 CFR § 740.9(a)(2)", "EAR-740.9(a)(2)"),
        ("EAR 736.2(b)", "EAR-736.2(b)"),
        ("ear-736.2(b)", "EAR-736.2(b)"),
        ("EAR-736.2 (b)", "EAR-736.2(b)"),
        ("EAR-736.2(B)", "EAR-736.2(b)"),
        ("736.2(B)(1)(II)", "EAR-736.2(b)(1)(ii)"),
        ("EAR-736.2.", "EAR-736.2"),
        ("736.2(b)..", "EAR-736.2(b)"),
        ("740.9", "EAR-740.9"),
        ("734.3a", "EAR-734.3a"),
        # the forms real data uses (earCrawler snapshots and citations in text)
        ("15CFR736.2", "EAR-736.2"),
        ("15 C.F.R. 736.2", "EAR-736.2"),
        ("§§ 736.2", "EAR-736.2"),
        (f"§{NBSP}736.2", "EAR-736.2"),
        (f"EAR{NBSP}736.2", "EAR-736.2"),
        (f"736.2{NBSP}(b)", "EAR-736.2(b)"),
        ("EAR-§ 736.2", "EAR-736.2"),
        ("\t736.2\n", "EAR-736.2"),
    ],
)
def test_normalize_ear_section_id(raw, expected):
    assert normalize_ear_section_id(raw) == expected
    assert normalize_ear_doc_id(raw) == expected


@pytest.mark.parametrize(
    "raw",
    [
        "73.2",  # two-digit part
        "1736.2",  # four-digit part
        "Supplement No. 1 to Part 740",
        "EAR-736",  # part-only: the spec's regex requires a section
        "736",
        "§ 736",
        "Part 736",
        "",
        "   ",
        NBSP,
        "EAR-",
        "EAR-736.",
        "EAR-736.2(b",
        "EAR-736.2()",
        "EAR-736.2(b)#p0001",  # an anchor is not a section id
        "EAR-ABC.1",
        "ITAR-121.1",
        "736.2 or 740.1",  # removing the spaces would join two ids
        "7 36.2",
        "EAR-\u0667\u0663\u0666.2",  # Arabic-Indic digits are not ASCII digits
        None,
        736.2,
        ["EAR-736.2"],
    ],
)
def test_not_an_ear_section_gives_none(raw):
    assert normalize_ear_section_id(raw) is None


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("EAR-736.2#p0008", "EAR-736.2#p0008"),
        ("EAR-736.2(b)#p0001", "EAR-736.2(b)#p0001"),
        (" EAR 736.2(B) # P0003 ", "EAR-736.2(b)#p0003"),
        ("§ 736.2#p0001", "EAR-736.2#p0001"),
        ("EAR-736.2#p1", None),  # anchors have four digits
        ("EAR-736.2#x0001", None),  # other suffix shapes are reserved (spec §1.2)
        ("EAR-736.2#", None),
        ("EAR-736#p0001", None),  # a part is no container
        ("#p0001", None),
        ("EAR-736.2#p0001#p0002", None),
    ],
)
def test_normalize_ear_doc_id(raw, expected):
    assert normalize_ear_doc_id(raw) == expected


def test_part_ids_are_recognized_for_the_message():
    assert is_part_id("EAR-736") and is_part_id("736") and is_part_id("§ 736") and is_part_id("Part 740")
    assert not is_part_id("EAR-736.2") and not is_part_id("73") and not is_part_id(None)


def test_section_iri_encoding_follows_the_policy_examples():
    base = "https://ear.example.org/resource/ear/section/"
    assert section_iri("EAR-736.2(b)") == base + "EAR-736.2%28b%29"
    assert section_iri("EAR-740.9(a)(2)") == base + "EAR-740.9%28a%29%282%29"
    assert encode_section_id("EAR-736.2#p0001") == "EAR-736.2%23p0001"
    assert decode_section_segment("EAR-736.2%28b%29") == "EAR-736.2(b)"
    assert decode_section_segment("EAR-736.2%FF") is None


# -- properties --------------------------------------------------------------------------------------

_SUBSECTION = st.from_regex(r"\A\([a-z0-9]{1,3}\)\Z")
_CANONICAL = st.builds(
    lambda part, sections, tails: "EAR-" + part + "".join(sections) + "".join(tails),
    st.from_regex(r"\A[0-9]{3}\Z"),
    st.lists(st.from_regex(r"\A\.[0-9]{1,3}[a-z0-9]{0,2}\Z"), min_size=1, max_size=2),
    st.lists(_SUBSECTION, max_size=3),
)
_SPACE = st.sampled_from(["", " ", NBSP, "\t", "  "])
_PREFIX = st.sampled_from(["", "§", "§ ", "§§ ", "15 CFR ", "15CFR", "15 CFR § ", "EAR-", "EAR ", "ear-", "Ear "])


def _swap_case(text: str, flags: list[bool]) -> str:
    return "".join(char.upper() if flag else char for char, flag in zip(text, flags + [False] * len(text), strict=False))


@st.composite
def _decorated(draw):
    """A canonical id and a spelling of it the normalization must bring back."""
    canonical = draw(_CANONICAL)
    body = canonical[4:]
    body = _swap_case(body, draw(st.lists(st.booleans(), max_size=len(body))))
    spaced = draw(st.sampled_from(["", " ", NBSP]))
    if "(" in body and spaced:
        body = body.replace("(", spaced + "(", 1)
    text = draw(_SPACE) + draw(_PREFIX) + body + draw(st.sampled_from(["", ".", ".."])) + draw(_SPACE)
    return canonical, text


_TEXT = st.one_of(
    st.text(max_size=40),
    st.text(alphabet="EARear-§ \u00a0.()#p0123456789abcBCFR15", max_size=30),
    _decorated().map(lambda pair: pair[1]),
)


@given(_decorated())
def test_every_spelling_of_a_canonical_id_normalizes_to_it(pair):
    canonical, text = pair
    assert normalize_ear_section_id(text) == canonical


@given(_TEXT)
def test_section_normalization_is_idempotent_and_canonical(text):
    normalized = normalize_ear_section_id(text)
    if normalized is not None:
        assert SECTION_ID.match(normalized)
        assert normalize_ear_section_id(normalized) == normalized


@given(st.one_of(_TEXT, st.builds(lambda t, n: f"{t}#p{n:04d}", _TEXT, st.integers(0, 9999))))
def test_doc_normalization_is_idempotent_and_canonical(text):
    normalized = normalize_ear_doc_id(text)
    if normalized is not None:
        assert SECTION_ID.match(normalized) or ANCHORED_ID.match(normalized)
        assert normalize_ear_doc_id(normalized) == normalized


@given(_CANONICAL)
def test_section_iris_decode_back_to_the_id(canonical):
    encoded = encode_section_id(canonical)
    assert set(encoded) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~%")
    assert decode_section_segment(encoded) == canonical

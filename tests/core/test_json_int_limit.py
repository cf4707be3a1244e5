"""A long JSON text whose integers the scanner reads itself (while Python refuses longer integers
on its own) gives what reading each through _parse_int gives: the same values, or the same error."""

from __future__ import annotations

import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_citations.core import jsonlines

needs_limit = pytest.mark.skipif(not hasattr(sys, "get_int_max_str_digits"), reason="Python < 3.11 has no int limit")


def outcome(text: str):
    try:
        return "ok", jsonlines.loads(text)
    except (ValueError, RecursionError) as exc:
        return type(exc).__name__, jsonlines.error_message(exc, document=True)


def both(text: str, monkeypatch) -> tuple:
    """(the outcome with the scanner reading integers, the outcome with _parse_int reading each)."""
    fast = outcome(text)
    with monkeypatch.context() as patch:
        patch.setattr(jsonlines, "_ints_bounded", lambda: False)
        full = outcome(text)
    return fast, full


PADDING = '"' + "x" * 4400 + '"'


def texts() -> list[str]:
    found = []
    for digits in (1, 640, 4299, 4300, 4301, 5000):
        number = "7" * digits
        found += [
            f'{{"pad": {PADDING}, "n": {number}}}',
            f'{{"pad": {PADDING}, "n": -{number}}}',
            f"[{PADDING}, {number}, tru]",
            f"[{PADDING}, tru, {number}]",
            f'{{"pad": {PADDING}, "n": {number}, "n": 1}}',
            f"[{PADDING}, {number}.5e3, 1e400]",
            f"[{PADDING}, 1e400, {number}]",
        ]
    return found


@needs_limit
@pytest.mark.parametrize("limit", [None, 0, 640, 1000, 4300, 5000])
def test_long_texts_read_the_same_under_any_int_limit(limit, monkeypatch):
    previous = sys.get_int_max_str_digits()
    try:
        if limit is not None:
            sys.set_int_max_str_digits(limit)
        for text in texts():
            fast, full = both(text, monkeypatch)
            assert fast == full, text[-60:]
    finally:
        sys.set_int_max_str_digits(previous)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.integers(-(10**30), 10**30), st.sampled_from(["7" * 4301, "1" * 4300, "tru", "0.5", "NaN", '"a"'])
        ),
        max_size=6,
    )
)
def test_generated_long_texts_read_the_same(items):
    text = "[" + PADDING + "".join(f", {item}" for item in items) + "]"
    patch = pytest.MonkeyPatch()
    try:
        fast, full = both(text, patch)
    finally:
        patch.undo()
    assert fast == full

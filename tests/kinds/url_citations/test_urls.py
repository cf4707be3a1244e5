"""The spec profile of URL normalization, rule by rule, and cid computation."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_citations.kinds.url_citations.urls import NotAbsoluteURL, cid_for, normalize_url


@pytest.mark.parametrize(
    ("original", "expected"),
    [
        ("HTTPS://Example.COM/Path", "https://example.com/Path"),  # scheme and host only
        ("https://example.com/doc#section-2", "https://example.com/doc"),
        ("https://example.com/doc?utm_source=x&utm_medium=y", "https://example.com/doc"),
        ("https://example.com/doc?gclid=1&fbclid=2&id=3", "https://example.com/doc?id=3"),
        ("https://example.com/doc?GCLID=1&Utm_source=2", "https://example.com/doc?GCLID=1&Utm_source=2"),  # case-sensitive
        ("https://example.com/doc?b=2&a=9&a=1", "https://example.com/doc?a=1&a=9&b=2"),  # key, then value
        ("https://example.com/doc?b=1&B=1&_=1", "https://example.com/doc?B=1&_=1&b=1"),  # code-point order
        ("https://example.com/doc?q=a%20b&p=%7E", "https://example.com/doc?p=%7E&q=a%20b"),  # no re-encoding
        ("https://example.com/doc?flag&a=1", "https://example.com/doc?a=1&flag"),
        ("https://example.com/doc?utm_source=x", "https://example.com/doc"),  # no '?' when empty
        ("https://example.com/doc?", "https://example.com/doc"),
        ("http://example.com:80/a", "http://example.com/a"),
        ("https://example.com:443/a", "https://example.com/a"),
        ("http://example.com:443/a", "http://example.com:443/a"),  # only the scheme's own default
        ("https://example.com:8443/a", "https://example.com:8443/a"),
        ("https://example.com/", "https://example.com/"),  # path '/' stays
        ("https://example.com", "https://example.com"),  # an empty path stays empty
        ("https://example.com/a/", "https://example.com/a"),
        ("https://example.com/a//", "https://example.com/a/"),  # one trailing slash only
        ("https://User:Pw@Example.com/a", "https://User:Pw@example.com/a"),  # userinfo untouched
        ("https://[2001:DB8::1]:443/a", "https://[2001:db8::1]/a"),
        ("https://bücher.example/ä", "https://bücher.example/ä"),  # no IDNA, no percent-encoding
    ],
)
def test_spec_normalization(original, expected):
    assert normalize_url(original) == expected


@pytest.mark.parametrize("url", ["example.com/doc", "/docs/x", "mailto:a@example.com", "https:///path", "", "1http://x.com"])
def test_not_absolute(url):
    with pytest.raises(NotAbsoluteURL):
        normalize_url(url)


def test_cid_is_sha256_of_utf8_bytes():
    assert cid_for("https://example.com/a") == "cid_2dce0a4c50441bfccfa9caf4b58c3cba6e06c420505dd829f0436de1aa44baac"
    assert cid_for("https://bücher.example") == "cid_" + hashlib.sha256("https://bücher.example".encode()).hexdigest()


def test_unknown_profile():
    with pytest.raises(ValueError, match="unknown url profile 'rfc'"):
        normalize_url("https://example.com", "rfc")


def test_realdata_normalization_fixtures(realdata):
    folder = realdata / "pai-opencode/.opencode/tests/fixtures/citations/phase04/normalize"
    extracted = (folder / "extracted-urls.txt").read_text().split()
    expected = set((folder / "expected-normalized-urls.txt").read_text().split())
    assert {normalize_url(url) for url in extracted} == expected


_urls = st.builds(
    lambda scheme, host, port, path, query, fragment: f"{scheme}://{host}{port}{path}{query}{fragment}",
    st.sampled_from(["http", "https", "HTTP", "Https"]),
    st.from_regex(r"[A-Za-z0-9]{1,8}(\.[A-Za-z]{2,5}){1,2}", fullmatch=True),
    st.sampled_from(["", ":80", ":443", ":8080"]),
    st.from_regex(r"(/[A-Za-z0-9%._~-]{1,6}){0,3}/?", fullmatch=True),  # one trailing "/" at most: "///" loses one per pass
    st.from_regex(r"(\?([a-z_]{1,6}(=[A-Za-z0-9%]{0,4})?)(&[a-z_]{1,6}(=[A-Za-z0-9%]{0,4})?){0,4})?", fullmatch=True),
    st.sampled_from(["", "#", "#frag"]),
)


@given(_urls)
def test_spec_normalization_is_idempotent(url):
    once = normalize_url(url)
    assert normalize_url(once) == once

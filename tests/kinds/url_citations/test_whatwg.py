"""The ``whatwg`` URL profile: what a WHATWG-based ``citation.v1`` producer writes."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import REALDATA
from pytest_citations.kinds.url_citations.urls import NotAbsoluteURL, normalize_spec, normalize_url
from pytest_citations.kinds.url_citations.whatwg import normalize_whatwg, whatwg_normalizations

NORMALIZE_FIXTURES = REALDATA / "pai-opencode/.opencode/tests/fixtures/citations/phase04/normalize"

CASES = [
    # A host-only URL gains the `/` path.
    ("https://a.com", "https://a.com/"),
    ("https://a.com?utm_source=x", "https://a.com/"),
    # IDN hosts become punycode, whatever their case.
    ("https://bücher.example/x", "https://xn--bcher-kva.example/x"),
    ("https://BÜCHER.Example/x", "https://xn--bcher-kva.example/x"),
    ("https://ＡＢＣ.com", "https://abc.com/"),
    # Scheme and host are lowercased, the path is not.
    ("HTTPS://Example.COM/Path", "https://example.com/Path"),
    ("http://ex%61mple.com/", "http://example.com/"),
    # Default ports are dropped, others kept (leading zeros gone).
    ("https://a.com:443/x", "https://a.com/x"),
    ("http://a.com:80/x", "http://a.com/x"),
    ("http://a.com:0080/", "http://a.com/"),
    ("https://a.com:08443/x", "https://a.com:8443/x"),
    ("http://a.com:443/", "http://a.com:443/"),
    ("https://a.com:/x", "https://a.com/x"),
    # Tracking keys are dropped after form-decoding, case-insensitively.
    (
        "https://a.com/?utm_source=a&UTM_Medium=b&gclid=1&fbclid=2&Gclid=3&utm%5Fx=4&keep=1&utm=1",
        "https://a.com/?keep=1&utm=1",
    ),
    ("https://a.com/x?gclid=1&fbclid=2", "https://a.com/x"),
    # Sorted by key, then value, as localeCompare orders them (ICU, not code points).
    ("https://a.com/?b=2&a=1&a=0", "https://a.com/?a=0&a=1&b=2"),
    ("https://A.COM:443/X/?B=1&a=2#f", "https://a.com/X?a=2&B=1"),
    ("https://a.com/?a=B&a=a&a=_&a=1&A=z", "https://a.com/?a=_&a=1&a=a&a=B&A=z"),
    ("https://a.com/?q=é&q=e&q=f&q=E", "https://a.com/?q=e&q=E&q=%C3%A9&q=f"),
    ("https://a.com/?=x&=&&&a", "https://a.com/?=&=x&a="),
    # The fragment is dropped, `?` inside it too.
    ("https://a.com/x#frag", "https://a.com/x"),
    ("https://a.com/?x=1#?y=2", "https://a.com/?x=1"),
    # One trailing slash goes, unless the path is `/`.
    ("https://a.com/x/", "https://a.com/x"),
    ("https://a.com/", "https://a.com/"),
    ("https://a.com/x//", "https://a.com/x/"),
    ("https://a.com//", "https://a.com/"),
    # The query is re-encoded with encodeURIComponent: `+` is a space, a space is %20.
    (
        "https://example.com/path?q=a+b&r=a%20b&s=a%2Bb&t=a b",
        "https://example.com/path?q=a%20b&r=a%20b&s=a%2Bb&t=a%20b",
    ),
    ("https://a.com/?q=~!*()'-_.", "https://a.com/?q=~!*()'-_."),
    ("https://a.com/?q=a/b:c;d,e@f$g", "https://a.com/?q=a%2Fb%3Ac%3Bd%2Ce%40f%24g"),
    ("https://a.com/?q=é&k=%E2%82", "https://a.com/?k=%EF%BF%BD&q=%C3%A9"),
    ("https://a.com/?flag", "https://a.com/?flag="),
    # Dot segments are resolved, `\` is a path separator, the path is percent-encoded.
    ("https://example.com/a/b/../c/./d/", "https://example.com/a/c/d"),
    ("http://a.com/%2e%2E/x/.%2e/y", "http://a.com/y"),
    ("https://a.com/a/..", "https://a.com/"),
    ("https://example.com\\a\\b", "https://example.com/a/b"),
    ("https://a.com/p q/é/\"<>`{}", "https://a.com/p%20q/%C3%A9/%22%3C%3E%60%7B%7D"),
    # Surrounding C0 controls and spaces are stripped, tabs and newlines removed.
    ("  https://example.com/x\ty\n ", "https://example.com/xy"),
    ("\x00https://a.com/\x01", "https://a.com/"),
    # User info is dropped; missing slashes after the scheme are tolerated.
    ("http://user:pw@a.com:8080/x/", "http://a.com:8080/x"),
    ("http:example.com/x", "http://example.com/x"),
    # IPv4 and IPv6 hosts are canonicalized.
    ("http://0x7f.1/", "http://127.0.0.1/"),
    ("http://[::FFFF:1.2.3.4]:80/", "http://[::ffff:102:304]/"),
    ("https://[1:0:0:2:0:0:0:3]/", "https://[1:0:0:2::3]/"),
]


@pytest.mark.parametrize(("url", "expected"), CASES)
def test_normalize_whatwg(url: str, expected: str) -> None:
    assert normalize_whatwg(url) == expected


def test_profile_whatwg_uses_it() -> None:
    assert normalize_url("https://a.com", "whatwg") == "https://a.com/"
    assert normalize_url("https://a.com", "spec") == "https://a.com"


@pytest.mark.parametrize(
    "url",
    [
        "",
        "/relative/path",
        "example.com/x",
        "https://",
        "https:///",
        "https://user@/x",
        "https://:443/",
        "ftp://a.com/x",
        "mailto:a@b.com",
        "https://a b.com/",
        "https://a.com:99999/",
        "https://a.com:8o/",
        "http://1.2.3.4.5/",
        "http://[::1/",
    ],
)
def test_not_absolute_raises(url: str) -> None:
    with pytest.raises(NotAbsoluteURL):
        normalize_whatwg(url)


def _lines(path: Path) -> list[str]:
    return [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_realdata_urls_agree_with_spec_where_spec_is_expected() -> None:
    if not NORMALIZE_FIXTURES.is_dir():
        pytest.skip(f"real data not present at {NORMALIZE_FIXTURES}")
    extracted = _lines(NORMALIZE_FIXTURES / "extracted-urls.txt")
    expected = set(_lines(NORMALIZE_FIXTURES / "expected-normalized-urls.txt"))
    checked = [url for url in extracted if normalize_spec(url) in expected]
    assert len(checked) == len(extracted) == 6
    for url in checked:
        assert normalize_whatwg(url) == normalize_spec(url), url


_LABEL = st.text(alphabet="abcxyzABC0123456789-äöüé", min_size=1, max_size=8)
_SEGMENT = st.text(st.characters(exclude_characters="/\\?#\t\n\r", exclude_categories=("Cs",)), min_size=1)
_FORM_TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=6)


@st.composite
def http_urls(draw: st.DrawFn) -> str:
    scheme = draw(st.sampled_from(["http", "https", "HTTPS"]))
    host = ".".join(draw(st.lists(_LABEL, min_size=1, max_size=3))).strip("-")
    port = draw(st.sampled_from(["", ":80", ":443", ":8080"]))
    path = "".join("/" + segment for segment in draw(st.lists(_SEGMENT, max_size=4)))
    path += draw(st.sampled_from(["", "/"]))
    pairs = draw(st.lists(st.tuples(_FORM_TEXT, _FORM_TEXT), max_size=5))
    query = "&".join(f"{key}={value}".replace("#", "%23").replace("&", "%26") for key, value in pairs)
    fragment = draw(st.sampled_from(["", "#frag"]))
    return f"{scheme}://{host or 'a'}{port}{path}{'?' + query if query else ''}{fragment}"


@given(http_urls())
def test_normalize_whatwg_is_idempotent(url: str) -> None:
    try:
        once = normalize_whatwg(url)
    except NotAbsoluteURL:  # e.g. a label that IDNA cannot encode
        return
    assert normalize_whatwg(once) == once


@given(http_urls())
def test_each_serialization_of_the_query_reads_back_as_itself(url: str) -> None:
    """A URL as either serializer writes it, normalized again, is among what the profile accepts:
    the two differ only in how the query's characters are escaped."""
    try:
        forms = whatwg_normalizations(url)
    except NotAbsoluteURL:
        return
    assert forms[0] == normalize_whatwg(url) and 1 <= len(forms) <= 2
    for form in forms:
        assert form in whatwg_normalizations(form)


@pytest.mark.parametrize(
    ("url", "forms"),
    [
        ("https://Example.com/a b/?q=hello world&utm_source=x",
         ("https://example.com/a%20b?q=hello%20world", "https://example.com/a%20b?q=hello+world")),
        ("https://e.com/?q=it's (x)!~*", ("https://e.com/?q=it's%20(x)!~*", "https://e.com/?q=it%27s+%28x%29%21%7E*")),
        ("https://e.com/?q=a+b%2Bc", ("https://e.com/?q=a%20b%2Bc", "https://e.com/?q=a+b%2Bc")),
        ("https://e.com/p?b=2&a=1", ("https://e.com/p?a=1&b=2",)),  # nothing to escape: one form
        ("https://e.com/", ("https://e.com/",)),
    ],
)
def test_the_two_serializations_of_a_query(url: str, forms: tuple[str, ...]) -> None:
    """``encodeURIComponent`` (the reference producer) first, then ``URLSearchParams``."""
    assert whatwg_normalizations(url) == forms


def test_uts46_keeps_sharp_s_in_hosts():
    assert normalize_whatwg("https://Straße.de/x") == "https://xn--strae-oqa.de/x"

"""The fast paths of url citations checking give exactly what the plain ways of computing the same
thing give, on tricky inputs: URL normalization, the strict JSON reader, cid digests and the index
of first lines, cached timestamp verdicts."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_citations.core import jsonlines
from pytest_citations.core.timestamps import parse_iso_8601
from pytest_citations.engine import Engine
from pytest_citations.kinds.url_citations.fields import _digest, _is_iso_8601
from pytest_citations.kinds.url_citations.first_lines import FirstLines
from pytest_citations.kinds.url_citations.urls import NotAbsoluteURL, cid_for, normalize_spec
from url_records import valid_record

# -- URL normalization: the spec's steps, written out plainly, as the reference ----------------

_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*$")


def reference_normalize(url: str) -> str:
    scheme, colon, rest = url.partition(":")
    if not colon or not _SCHEME.match(scheme) or not rest.startswith("//"):
        raise NotAbsoluteURL(f"not an absolute URL: {url!r}")
    rest = rest[2:].partition("#")[0]
    end = min([len(rest)] + [rest.find(d) for d in "/?" if d in rest])
    authority, rest = rest[:end], rest[end:]
    path, _, query = rest.partition("?")
    userinfo, at, hostport = authority.rpartition("@")
    if hostport.startswith("["):
        close = hostport.find("]")
        host, after = (hostport[: close + 1], hostport[close + 1 :]) if close != -1 else (hostport, "")
    else:
        host, colon, port = hostport.partition(":")
        after = colon + port
    port = after[1:] if after.startswith(":") else None
    if not host:
        raise NotAbsoluteURL(f"URL has no host: {url!r}")
    scheme = scheme.lower()
    if port is not None and {"http": "80", "https": "443"}.get(scheme) == port:
        port = None
    if path not in ("", "/") and path.endswith("/"):
        path = path[:-1]
    pairs = []
    for pair in query.split("&"):
        key, _, value = pair.partition("=")
        if pair and not key.startswith("utm_") and key not in ("gclid", "fbclid"):
            pairs.append((key, value, pair))
    pairs.sort(key=lambda item: (item[0], item[1]))
    query = "&".join(pair for _, _, pair in pairs)
    netloc = userinfo + at + host.lower() + (f":{port}" if port is not None else "")
    return f"{scheme}://{netloc}{path}" + (f"?{query}" if query else "")


def outcome(function, *args):
    """What ``function(*args)`` gives: ("ok", repr of the value) or (exception type, message)."""
    try:
        return "ok", repr(function(*args))
    except (ValueError, RecursionError) as exc:
        return type(exc).__name__, str(exc)


TRICKY_URLS = [
    "HTTPS://Example.COM:443/a/?utm_source=x&b=2&a=1&a=&a#frag",
    "http://user:PW@Host.example:80",
    "http://[::1]:80/",
    "http://[::1/x",  # an unclosed IPv6 bracket
    "https://h/?&&utm_=1&gclid&fbclid=2&GCLID=3&a=1?b=2",
    "https://h?x=1",  # a query straight after the host
    "https://h#a?b/c",
    "https://h/a//",
    "http\n://h/x",  # "$" in the scheme pattern lets a final newline through
    "https:///nohost",
    "https://@/x",
    "https://:8080/x",
    "https:/x",
    "1https://h",
    "",
    ":",
    "://h",
    "mailto:a@b",
    "https://h/p?b=1&a=2&b=0&a",
    "https://h/p?a&a=",  # equal key and value: the order as written stays
    "https://h/p?a=&a",
    "https://bücher.example/ä?ü=1",
    "https://h:/x",
    "https://h:443:443/x",
    "https://h/?gclid",
    "https://h/?fbclid",
    "https://h/?gclid=",
    "https://h/?gclidx=1&fbclidfoo&utm&utm_",
    "https://h/?a=1&gclid",
    "https://h/?=1&==&a==b",
]


@pytest.mark.parametrize("url", TRICKY_URLS)
def test_normalization_matches_the_reference(url):
    assert outcome(normalize_spec, url) == outcome(reference_normalize, url)


@settings(max_examples=500)
@given(st.text(alphabet="hHtTpPsS:/?#@[]&=._-%1aA80utm_gclidfb \n\u00fc", max_size=40))
def test_normalization_matches_the_reference_on_any_text(url):
    assert outcome(normalize_spec, url) == outcome(reference_normalize, url)


_pair = st.builds(
    lambda key, equals, value: key + equals + value,
    st.sampled_from(["", "a", "b", "A", "utm_", "utm_x", "utm", "gclid", "fbclid", "gclidx", "GCLID", "a=b"]),
    st.sampled_from(["", "=", "=="]),
    st.sampled_from(["", "1", "0", "a", "="]),
)


@settings(max_examples=500)
@given(st.lists(_pair, max_size=6), st.sampled_from(["", "#f", "#x&gclid"]))
def test_query_normalization_matches_the_reference(pairs, fragment):
    url = "https://h/p?" + "&".join(pairs) + fragment
    assert outcome(normalize_spec, url) == outcome(reference_normalize, url)


@settings(max_examples=300)
@given(st.text(alphabet="abAB:@[]1", max_size=12), st.text(alphabet="ab=&/utm_", max_size=20))
def test_normalization_with_a_warm_host_cache_matches(authority, rest):
    url = f"https://{authority}/{rest}"
    assert outcome(normalize_spec, url) == outcome(normalize_spec, url) == outcome(reference_normalize, url)


def test_a_long_authority_is_normalized_without_being_cached():
    url = "https://" + "A" * 400 + ".example/x/"
    assert normalize_spec(url) == reference_normalize(url) == "https://" + "a" * 400 + ".example/x"


# -- the test of a fetched url: one match for a plain http(s) URL, the parts of any other --------

_URL_TEXT = "hHtTpPsS:/?#@[]%.1a \t\n\x00\x1f\x7f\u00a0\u2028"
_URL_PIECE = st.sampled_from(["http://", "https://", "HTTPS://", "ftp://", "h", "a.b", "@", "u:p@", "[::1]", "[", ":",
                              ":443", ":x", "/", "/p", "?q=1", "#f", " ", "\t", "\x00", "\x7f", "\u00a0", "%20", ""])


def _plain_url_problem(url: str) -> str | None:
    """What :func:`http_url_problem` says of ``url`` without its one-match test."""
    from pytest_citations.kinds.url_citations.urls import _http_url_problem_by_parts

    return _http_url_problem_by_parts(url)


@settings(max_examples=500)
@given(st.one_of(st.text(alphabet=_URL_TEXT, max_size=30), st.lists(_URL_PIECE, max_size=7).map("".join)))
def test_the_one_match_test_of_a_url_says_what_its_parts_say(url):
    from pytest_citations.kinds.url_citations.urls import http_url_problem

    assert http_url_problem(url) == _plain_url_problem(url)


@pytest.mark.parametrize("url", [
    "https://a.example/x?y#z", "HTTP://a.example:8080", "https://a:b@/x", "https://u@h/", "https://[::1]/", "https://h:1@/",
    "https:///x", "https://h/x y", "https://h/\x7f", "https://h\u00a0/", "https://h:80?x", "https://h#",
])
def test_the_one_match_test_of_a_url_on_its_edges(url):
    from pytest_citations.kinds.url_citations.urls import http_url_problem

    assert http_url_problem(url) == _plain_url_problem(url)


# -- the strict JSON reader: its direct scanner call and short-text decoder against the slow way --


def reference_loads(text: str):
    """jsonlines.loads as it reads every text: the decoder with all its hooks, through ``decode``."""
    if text.count("[") + text.count("{") > jsonlines.MAX_DEPTH and jsonlines.nesting_depth(text) > jsonlines.MAX_DEPTH:
        raise RecursionError("nested too deeply")
    value = jsonlines._DECODER.decode(text)
    bad = jsonlines._lone_surrogate(value) if "\\u" in text else None
    if bad is not None:
        raise ValueError(f"a lone UTF-16 surrogate escape in {bad.encode('utf-8', 'backslashreplace').decode()[:60]!r}")
    return value


TRICKY_JSON = [
    '{"a":1}',
    ' {"a":1}',
    '{"a":1} ',
    '{"a":1}\t\r',
    '{"a":1}{"b":2}',
    '{"a":1} x',
    "",
    "   ",
    "{",
    '{"a":1,}',
    '{"a":1,"a":2}',
    '{"a":{"b":1,"b":1}}',
    '[{"x":1},{"x":1,"x":1}]',
    '{"a":NaN}',
    '{"a":-Infinity}',
    '{"a":Infinity}',
    '{"a":1e400}',
    '{"a":-1e400}',
    '{"a":1e308}',
    '{"a":1.0}',
    '{"a":-0}',
    '{"a":' + "9" * 4300 + "}",  # longer than MAX_DIGITS characters: read with the int hook
    '{"a":' + "9" * 4301 + "}",
    '{"a":-' + "9" * 4300 + "}",
    '{"a":' + "9" * 4290 + "}",  # a short text: read by the scanner itself
    '{"a":1.' + "5" * 4300 + "}",
    '{"a":"\\ud800"}',
    '{"\\udfff":1}',
    '{"a":"\\ud83d\\ude00"}',
    '{"a":"\\u00e9"}',
    "[" * 501 + "]" * 501,
    "[" * 500 + "]" * 500,
    "[" * 501,  # short and too deep: measured only once it fails to decode
    "[" * 501 + "]" * 499,
    "[" * 700 + "1",
    "[" * 990,
    '{"a":' * 200 + "[" * 301,
    '"' + "[" * 600 + '"',  # brackets in a string do not nest
    "[" * 1200,
    "[" * 400 + "]" * 401,
    '{"a":' * 300 + "1" + "}" * 300,
    '"just a string"',
    "12",
    "null",
    "tru",
    '{"a":"\x00"}',
    '{"a":"line\nbreak"}',
    '{"a" : 1 , "b" : [ 1 , 2 ] }',
    '{"a": 1}\n',  # a document as editors save it: JSON whitespace after the value
    '{"a": 1} \t\r\n\n',
    '{"a": 1}\n\x0b',  # whitespace to str.isspace, not to JSON
    '{"a": 1}\u00a0',
    '{"a": 1}\x0c',
    '{"a": 1}\n}',
    '{"k": "' + "x" * 5000 + '"}\n',  # longer than MAX_DIGITS: the other decoder
    '{"k": "' + "x" * 5000 + '"}\n\u2028',
]


@pytest.mark.parametrize("text", TRICKY_JSON)
def test_loads_matches_the_slow_decoder(text):
    assert outcome(jsonlines.loads, text) == outcome(reference_loads, text)


_json_text = st.recursive(
    st.sampled_from(["1", "-0", "1.5", "1e400", "NaN", '"a"', '"\\ud800"', "null", "true", "12345678901234567890"]),
    lambda inner: st.lists(inner, max_size=3).map(lambda items: "[" + ",".join(items) + "]")
    | st.lists(st.tuples(st.sampled_from(['"a"', '"b"', '"\\u0061"']), inner), max_size=3).map(
        lambda pairs: "{" + ",".join(f"{k}:{v}" for k, v in pairs) + "}"
    ),
    max_leaves=8,
)


@settings(max_examples=500)
@given(_json_text, st.sampled_from(["", " ", "\n", "\r\n\n", "\n\x0b", "\u00a0", "x", "}"]), st.sampled_from(["", " ", "\t"]))
def test_loads_matches_the_slow_decoder_on_generated_json(text, after, before):
    text = before + text + after
    assert outcome(jsonlines.loads, text) == outcome(reference_loads, text)


# -- cids: the digest that stands for a well-formed cid, and the index of first lines ----------

_CID = re.compile(r"^cid_[0-9a-f]{64}\Z")
GOOD_CID = cid_for("https://example.com/doc")


@pytest.mark.parametrize(
    "cid",
    [
        GOOD_CID,
        GOOD_CID.upper(),
        "cid_" + GOOD_CID[4:].upper(),
        GOOD_CID[:-1],
        GOOD_CID + "0",
        GOOD_CID[:-1] + "\n",
        GOOD_CID[:-2] + " 0",
        GOOD_CID[:6] + " " + GOOD_CID[7:],
        "cid_" + "0" * 64,
        "cid_" + "\u0663" * 64,  # Arabic-Indic digits
        "CID_" + GOOD_CID[4:],
        "cid_alpha",
        "",
        None,
        12,
    ],
)
def test_cid_digest_is_the_well_formed_check(cid):
    digest = _digest(cid)
    assert (digest is not None) == (isinstance(cid, str) and _CID.match(cid) is not None)
    if digest is not None:
        assert digest.hex() == cid[4:]


@settings(max_examples=300)
@given(st.lists(st.sampled_from([cid_for(str(n)) for n in range(6)] + ["cid_x", "cid_" + "A" * 64]), max_size=30),
       st.sampled_from([0, 1, 16]), st.sampled_from([0, 3, 4096]))
def test_first_lines_agree_with_a_dict(cids, bits, small):
    index, reference = FirstLines(bits, small), {}
    for line, cid in enumerate(cids, start=1):
        assert index.first(cid, _digest(cid), line) == reference.setdefault(cid, line)


def test_a_digest_found_across_two_entries_is_not_a_match():
    index = FirstLines(bits=0, small=0)  # compact from the start, one bucket: every entry is searched
    first = bytes(range(32))
    index.first("cid_" + first.hex(), first, 0x0101010101010101)
    across = first[8:] + (0x0101010101010101).to_bytes(8, "little")  # the end of an entry and its line
    later = bytes(range(100, 132))
    assert index.first("cid_" + across.hex(), across, 2) == 2
    assert index.first("cid_" + later.hex(), later, 3) == 3
    assert index.first("cid_" + across.hex(), across, 4) == 2
    assert index.first("cid_" + first.hex(), first, 5) == 0x0101010101010101


# -- cached timestamp verdicts -------------------------------------------------------------------


@pytest.mark.parametrize(
    "value",
    ["2026-02-13T12:35:00Z", "2026-02-30", "2026-02-13T24:00Z", "2026-02-13T12:35:00+23:59", "2026-02-13T12:35+24:00",
     "2026-02-13T12:35:00." + "1" * 100 + "Z", "2026-02-13T12:35:00." + "1" * 100 + "X", "", "0000-01-01", "2026-02-13\n"],
)
def test_timestamp_verdicts_match_the_parser(value):
    for _ in range(2):  # once to fill the cache, once from it
        assert _is_iso_8601(value) == (parse_iso_8601(value) is not None)


# -- the rules over a file of tricky records, end to end -------------------------------------------


def _record(url: str, **fields) -> str:
    return json.dumps(valid_record(url, **fields))


def test_tricky_records_end_to_end(tmp_path):
    run = tmp_path / "run"
    (run / "citations").mkdir(parents=True)
    (run / "wave-1").mkdir()
    (run / "wave-1" / "p1.md").write_text("x\n")
    upper = "cid_" + cid_for("https://b.example/")[4:].upper()
    lines = [
        _record("https://a.example/x?utm_source=1"),
        _record("https://a.example/x?utm_source=2"),  # the same cid as line 1
        _record("https://b.example/", cid=upper),
        _record("https://c.example/", cid=upper),  # a malformed cid, repeated
        '{"schema_version":"citation.v1","a":1,"a":2}',
        _record("https://a.example/x"),  # the cid of line 1 again
        _record("https://d.example/", checked_at="2026-02-30", status="ok", http_status=404),
        _record("https://e.example/", found_by=[{"wave": 3, "perspective_id": "p", "agent_type": "A",
                                                 "artifact_path": "../x.md"}], http_status=None),
        _record("https://f.example/", normalized_url="https://F.example/", title=5),
        _record("https://g.example/", http_status=404.0),
    ]
    (run / "citations" / "citations.jsonl").write_text("\n".join(lines) + "\n")
    report = Engine.load(tmp_path).check([tmp_path])
    assert [(d.line, d.col, d.code) for d in report.diagnostics] == [
        (2, 83, "U113"),
        (3, 82, "U106"),
        (4, 82, "U106"), (4, 82, "U113"),
        (5, 39, "U101"),  # at the repeated key
        (6, 83, "U113"),
        (7, 231, "U107"), (7, 251, "U108"),
        (8, 312, "U110"), (8, 312, "U112"),
        (9, 53, "U104"), (9, 82, "U105"), (9, 425, "U102"),
        (10, 293, "U109"),
    ]
    messages = {(d.line, d.code): d.message for d in report.diagnostics}
    assert messages[(4, "U113")] == f"cid {upper} already appears on line 3: merge the records"
    assert messages[(6, "U113")].endswith("already appears on line 1: merge the records")

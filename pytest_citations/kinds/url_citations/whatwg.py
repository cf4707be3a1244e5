"""The ``whatwg`` URL profile: ``citation.v1`` normalization as WHATWG-based producers write it.

Why this exists: producers that build ``normalized_url`` on the WHATWG URL parser (JavaScript
``new URL()``) write URLs that differ from the spec's literal steps, and their records must be
readable as their owners wrote them. The reference producer is ``normalizeCitationUrl`` in
``.opencode/tools/deep_research/citations_lib.ts`` of leppikallio/pai-opencode. What it does, and so
what this module reproduces (:func:`normalize_whatwg`):

1. Parse with the WHATWG URL parser: leading and trailing C0 controls and spaces are stripped, tabs
   and newlines removed anywhere, ``\\`` is a path separator, ``.``/``..`` segments are resolved,
   the path is percent-encoded, the host is percent-decoded, IDNA-mapped to ASCII and lowercased,
   IPv4/IPv6 hosts are canonicalized, a default port is dropped, the fragment is dropped. Only
   ``http`` and ``https`` are accepted.
2. Rebuild ``scheme://host[:port]`` from the parts: user info is dropped.
3. Take the parsed ``pathname`` (``/`` for a host-only URL) and strip one trailing ``/`` unless it is
   ``/``.
4. Read the query as application/x-www-form-urlencoded (``+`` is a space, percent-escapes decoded),
   drop pairs whose key, lowercased, starts with ``utm_`` or is ``gclid``/``fbclid``, sort by key
   then value with ``String.prototype.localeCompare`` (ICU collation, not code-point order), and
   write each pair back as ``encodeURIComponent(key)=encodeURIComponent(value)`` (so a space is
   ``%20``, and a key without ``=`` gains one). No ``?`` when nothing remains.

The other way JavaScript writes a query is WHATWG's own form serializer, ``URLSearchParams``
(``u.search = new URLSearchParams(pairs).toString()``): a space is ``+``, and ``!'()~`` are
percent-encoded too. A producer that does steps 1-4 with it writes the same URL but for those
characters of the query; :func:`whatwg_normalizations` gives both.

Known approximations:

- IDN labels go through Python's ``encodings.idna`` (IDNA 2003, nameprep), not UTS-46 as the
  WHATWG parser does. They agree on ordinary IDNs (``bücher`` -> ``xn--bcher-kva``). Of the
  deviation characters, which IDNA 2003 maps away and UTS-46 keeps, ``ß`` and ``ς`` are handled
  as UTS-46 does (``straße.de`` -> ``xn--strae-oqa.de``); a label with ZWJ/ZWNJ still follows
  IDNA 2003, and a non-ASCII label longer than 63 octets is rejected here and accepted by WHATWG.
- ``localeCompare`` is reproduced exactly for ASCII text (ICU root order: ignorable controls,
  whitespace, punctuation and symbols, digits, then letters with lowercase before uppercase);
  other characters are placed by a simpler rule (see ``_collation_key``).
"""

from __future__ import annotations

import encodings.idna
import ipaddress
import re
import unicodedata
from typing import cast
from urllib.parse import quote, quote_plus, unquote_to_bytes

from pytest_citations.kinds.url_citations.errors import NotAbsoluteURL

_DEFAULT_PORTS = {"http": 80, "https": 443}
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.\-]*):")
_C0_OR_SPACE = "".join(map(chr, range(0x21)))
_TAB_OR_NEWLINE = re.compile("[\t\n\r]")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_LABEL_DOTS = re.compile("[.\u3002\uff0e\uff61]")
_FORBIDDEN_IN_DOMAIN = set("\x00\t\n\r #/:<>?@[\\]^|%\x7f") | set(map(chr, range(0x20)))
_PATH_ENCODE = set(' "#<>?`{}')
_SINGLE_DOT = {".", "%2e"}
_DOUBLE_DOT = {"..", ".%2e", "%2e.", "%2e%2e"}
_TRACKING_KEYS = {"gclid", "fbclid"}
_DEVIATIONS = {"\u00df", "\u03c2"}  # UTS-46 deviation characters kept by non-transitional processing
_RADIX_DIGITS = {8: set("01234567"), 10: set("0123456789"), 16: set("0123456789abcdefABCDEF")}


def normalize_whatwg(url: str) -> str:
    """``url`` normalized as the reference WHATWG-based ``citation.v1`` producer writes it (the
    query written back with ``encodeURIComponent``)."""
    return whatwg_normalizations(url)[0]


def whatwg_normalizations(url: str) -> tuple[str, ...]:
    """Every way a WHATWG-based producer writes ``url`` normalized: the query written back with
    ``encodeURIComponent`` (the reference producer), then with ``URLSearchParams`` (a space as
    ``+``), the second left out when the two are the same."""
    text = _LONE_SURROGATE.sub("\ufffd", url).strip(_C0_OR_SPACE)
    text = _TAB_OR_NEWLINE.sub("", text)
    match = _SCHEME.match(text)
    if not match:
        raise NotAbsoluteURL(f"not an absolute URL: {url!r}")
    scheme = match.group(1).lower()
    if scheme not in _DEFAULT_PORTS:
        raise NotAbsoluteURL(f"the whatwg profile reads only http and https URLs: {url!r}")
    rest = text[match.end() :].lstrip("/\\").partition("#")[0]
    end = min((i for i in map(rest.find, "/\\?") if i != -1), default=len(rest))
    authority, rest = rest[:end], rest[end:]
    path, _, query = rest.partition("?")
    host, port = _host_and_port(authority.rpartition("@")[2], scheme, url)
    pairs = _query_pairs(query)
    base = f"{scheme}://{host}{port}{_pathname(path)}"
    written = (_written_query(pairs, encode) for encode in (_uri_component, _form_component))
    return tuple(dict.fromkeys(base + (f"?{query}" if query else "") for query in written))


def _host_and_port(hostport: str, scheme: str, url: str) -> tuple[str, str]:
    """(serialized host, ``:port`` or ``""``); the port is dropped when it is the default."""
    inside_brackets, split_at = False, len(hostport)
    for index, char in enumerate(hostport):
        if char == "[":
            inside_brackets = True
        elif char == "]":
            inside_brackets = False
        elif char == ":" and not inside_brackets:
            split_at = index
            break
    raw_host, port_text = hostport[:split_at], hostport[split_at + 1 :]
    if not raw_host:
        raise NotAbsoluteURL(f"URL has no host: {url!r}")
    if port_text and not (port_text.isascii() and port_text.isdigit() and int(port_text) <= 65535):
        raise NotAbsoluteURL(f"invalid port in {url!r}")
    port = "" if not port_text or int(port_text) == _DEFAULT_PORTS[scheme] else f":{int(port_text)}"
    if raw_host.startswith("["):
        return _ipv6(raw_host, url), port
    return _domain(raw_host, url), port


def _ipv6(raw_host: str, url: str) -> str:
    if not raw_host.endswith("]") or "%" in raw_host:
        raise NotAbsoluteURL(f"invalid IPv6 host in {url!r}")
    try:
        return f"[{_serialize_ipv6(ipaddress.IPv6Address(raw_host[1:-1]))}]"
    except ValueError:
        raise NotAbsoluteURL(f"invalid IPv6 host in {url!r}") from None


def _uts46_label(label: str) -> str:
    """A label holding ``ß`` or ``ς``, which UTS-46 keeps where IDNA 2003 maps them away."""
    mapped = unicodedata.normalize("NFKC", label).lower()
    return "xn--" + mapped.encode("punycode").decode("ascii")


def _serialize_ipv6(address: ipaddress.IPv6Address) -> str:
    """Eight hex pieces, the first longest run of two or more zero pieces written ``::``.

    (``IPv6Address.compressed`` writes IPv4-mapped addresses in dotted form from Python 3.13 on;
    WHATWG never does.)
    """
    pieces = [f"{int.from_bytes(address.packed[i : i + 2], 'big'):x}" for i in range(0, 16, 2)]
    best_start, best_length = -1, 1
    index = 0
    while index < 8:
        end = index
        while end < 8 and pieces[end] == "0":
            end += 1
        if end - index > best_length:
            best_start, best_length = index, end - index
        index = max(end, index + 1)
    if best_start < 0:
        return ":".join(pieces)
    return ":".join(pieces[:best_start]) + "::" + ":".join(pieces[best_start + best_length :])


def _domain(raw_host: str, url: str) -> str:
    """Percent-decode, map each label to ASCII (IDNA 2003), lowercase; IPv4 if it ends in a number."""
    decoded = unquote_to_bytes(raw_host).decode("utf-8", "replace")
    labels = []
    for label in _LABEL_DOTS.split(decoded):
        if label.isascii():
            labels.append(label.lower())
            continue
        if _DEVIATIONS.intersection(label):
            labels.append(_uts46_label(label))
            continue
        try:
            labels.append(encodings.idna.ToASCII(label.lower()).decode("ascii"))
        except UnicodeError as error:
            raise NotAbsoluteURL(f"host label {label!r} has no IDNA form ({error}): {url!r}") from None
    host = ".".join(labels)
    if not host or _FORBIDDEN_IN_DOMAIN.intersection(host):
        raise NotAbsoluteURL(f"invalid host in {url!r}")
    return _ipv4(host, url) if _ends_in_number(host) else host


def _ipv4_number(text: str) -> int | None:
    """A WHATWG IPv4 part: decimal, ``0x`` hex or leading-zero octal; None when it is not one."""
    radix = 10
    if text[:2].lower() == "0x":
        text, radix = text[2:], 16
        if not text:
            return 0
    elif len(text) > 1 and text.startswith("0"):
        text, radix = text[1:], 8
    return int(text, radix) if text and set(text) <= _RADIX_DIGITS[radix] else None


def _ends_in_number(host: str) -> bool:
    parts = host.split(".")
    if parts[-1] == "" and len(parts) > 1:
        parts.pop()
    last = parts[-1]
    return bool(last) and ((last.isascii() and last.isdigit()) or _ipv4_number(last) is not None)


def _ipv4(host: str, url: str) -> str:
    parts = host.split(".")
    if parts[-1] == "" and len(parts) > 1:
        parts.pop()
    parsed = [_ipv4_number(part) for part in parts] if len(parts) <= 4 else [None]
    if None in parsed:
        raise NotAbsoluteURL(f"invalid IPv4 host in {url!r}")
    numbers = cast("list[int]", parsed)  # none of them is None
    if any(n > 255 for n in numbers[:-1]) or numbers[-1] >= 256 ** (5 - len(numbers)):
        raise NotAbsoluteURL(f"invalid IPv4 host in {url!r}")
    value = numbers[-1] + sum(n << (8 * (3 - i)) for i, n in enumerate(numbers[:-1]))
    return ".".join(str((value >> shift) & 0xFF) for shift in (24, 16, 8, 0))


def _percent_encode(text: str, also: set[str]) -> str:
    """UTF-8 percent-encode C0 controls, DEL, non-ASCII and the characters in ``also``."""
    return "".join(
        char if " " < char < "\x7f" and char not in also else "".join(f"%{b:02X}" for b in char.encode())
        for char in text
    )


def _pathname(path: str) -> str:
    """The WHATWG pathname (dot segments resolved, percent-encoded), minus one trailing ``/``."""
    segments = path.replace("\\", "/").removeprefix("/").split("/")
    resolved: list[str] = []
    for index, segment in enumerate(segments):
        is_last = index == len(segments) - 1
        segment = _percent_encode(segment, _PATH_ENCODE)
        if segment.lower() in _DOUBLE_DOT:
            if resolved:
                resolved.pop()
            if is_last:
                resolved.append("")
        elif segment.lower() in _SINGLE_DOT:
            if is_last:
                resolved.append("")
        else:
            resolved.append(segment)
    pathname = "/" + "/".join(resolved)
    return pathname[:-1] if pathname != "/" and pathname.endswith("/") else pathname


def _form_decode(raw: bytes) -> str:
    return unquote_to_bytes(raw.replace(b"+", b" ")).decode("utf-8", "replace")


def _query_pairs(query: str) -> list[tuple[str, str]]:
    """Form-decode, drop tracking keys, sort as ``localeCompare`` does."""
    pairs = []
    for chunk in query.encode("utf-8").split(b"&"):
        if not chunk:
            continue
        name, _, value = chunk.partition(b"=")
        key = _form_decode(name)
        if not (key.lower().startswith("utm_") or key.lower() in _TRACKING_KEYS):
            pairs.append((key, _form_decode(value)))
    pairs.sort(key=lambda pair: (_collation_key(pair[0]), _collation_key(pair[1])))
    return pairs


def _written_query(pairs: list[tuple[str, str]], encode) -> str:
    return "&".join(f"{encode(key)}={encode(value)}" for key, value in pairs)


def _uri_component(text: str) -> str:
    """JavaScript ``encodeURIComponent``: everything but ``A-Z a-z 0-9 - _ . ! ~ * ' ( )``."""
    return quote(text, safe="!'()*~")


def _form_component(text: str) -> str:
    """WHATWG's application/x-www-form-urlencoded serializer (``URLSearchParams``): everything but
    ``A-Z a-z 0-9 * - . _``, a space as ``+``. (``quote_plus`` leaves ``~`` as it is; after it, a
    ``~`` can only be one of the text's.)"""
    return quote_plus(text, safe="*").replace("~", "%7E")


# ICU root collation of ASCII (what localeCompare uses for en-US); other C0 controls and DEL are
# ignorable. Characters outside ASCII are placed just after the ASCII character of their class.
_ASCII_ORDER = "\t\n\x0b\x0c\r _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$0123456789abcdefghijklmnopqrstuvwxyz"
_ASCII_PRIMARY = {char: index for index, char in enumerate(_ASCII_ORDER)}
_AFTER = {"Z": " ", "P": "%", "Sk": "^", "So": "^", "Sm": "~", "Sc": "$"}


def _collation_key(text: str) -> tuple[tuple, tuple, tuple]:
    """Three-level sort key that orders strings as ``localeCompare`` does under ``en-US``.

    Exact for ASCII: primary weights in ICU root order, case only at the third level (lowercase
    first). Elsewhere a best effort: text is decomposed (NFKD, ``ß`` as ``ss``), a combining mark
    weighs only at the second level, a compatibility form only at the third, a decimal digit sorts
    as its ASCII digit, spaces, punctuation and symbols sort just after the ASCII ones of their
    class, other letters after ``z`` in code-point order, and format and control characters are
    ignored. ICU orders some of these differently (ø is an o with a stroke, Han after Hangul).
    """
    primary: list[tuple[int, int]] = []
    secondary: list[int] = []
    tertiary: list[int] = []
    for original in unicodedata.normalize("NFD", text):
        expanded = "ss" if original == "\xdf" else unicodedata.normalize("NFKD", original)
        variant = 0 if expanded == original else 2
        for char in expanded:
            lower = char.lower() if len(char.lower()) == 1 else char
            category = unicodedata.category(char)
            if lower in _ASCII_PRIMARY:
                weight = (_ASCII_PRIMARY[lower], 0)
            elif category.startswith("M"):
                secondary.append(1 + ord(char))
                tertiary.append(0)
                continue
            elif char == "\ufffd":  # ICU sorts the replacement character after everything
                weight = (len(_ASCII_ORDER), 0)
            elif category == "Nd":
                weight = (_ASCII_PRIMARY[str(unicodedata.digit(char))], 0)
            elif char == "\x85" or category in _AFTER or category[0] in _AFTER:
                # the branch's condition: the category or its first letter is in _AFTER
                anchor = " " if char == "\x85" else cast(str, _AFTER.get(category, _AFTER.get(category[0])))
                weight = (_ASCII_PRIMARY[anchor], ord(char))
            elif category.startswith("C"):
                continue
            else:
                weight = (_ASCII_PRIMARY["z"], ord(lower))
            primary.append(weight)
            secondary.append(0)
            tertiary.append(variant + (char != lower))
    return tuple(primary), tuple(secondary), tuple(tertiary)

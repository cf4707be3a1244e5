"""The text of a fetched page, and whether the page is a wall (a paywall, a sign-in page, a bot
check, an access-denied page) rather than what was cited.

A page comes from the web, so it is hostile input (docs/security.md): every step here is bounded in
time and memory by the page's size, and a page that cannot be read gives a reason, never a traceback.

- HTML (``text/html``, ``application/xhtml+xml``, or no usable type and bytes that look like HTML)
  is decoded (a byte order mark, else the charset of the content type, else a ``<meta>`` charset,
  else UTF-8; a label that names no encoding of the web counts as none; undecodable bytes become
  U+FFFD) and parsed with Lexbor (selectolax, the ``online`` extra). Scripts, styles, ``noscript``,
  templates, SVG, frames and embedded objects are dropped, and of the head only the title is kept,
  as the first line. Each block element (paragraph, heading, list item, table cell,
  ``<br>``...) is a line of its own, so the words of adjacent blocks never merge, while inline
  elements never split a word (``wo<b>rd</b>`` is ``word``); whitespace in a line is collapsed.
- Plain text (any other ``text/*`` type) is decoded the same way and kept as it is.
- PDF (``application/pdf``, or ``%PDF-`` in the first kilobyte of a body of another type) is read
  with pypdf, the ``pdf`` extra, when it is installed, in a process of its own, within the limits of
  :mod:`pytest_citations.core.pdf_text`.
- Anything else (images, JSON, ``application/octet-stream`` that is not a PDF) has no text.

Lexbor spends time quadratic in the depth of nested elements (each block start tag searches the
stack of open elements) and in the number of attributes of one tag. Before parsing, a scan in the
manner of the HTML tokenizer measures both; a page whose elements nest more than :data:`MAX_DEPTH`
deep (browsers themselves stop nesting past a few hundred levels), or that has a tag with more than
:data:`MAX_ATTRIBUTES` attributes, is read only up to that tag, and the result says so.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass
from typing import Any

from pytest_citations.core import pdf_text

MAX_BODY_BYTES = 10 * 1024 * 1024
"""HTML and plain text are read up to this many bytes; the rest of a longer body is left out."""
MAX_DEPTH = 256
"""How deep the elements of an HTML page may nest before the rest of the page is left out."""
MAX_ATTRIBUTES = 256
"""How many attributes one tag may have before the rest of the page is left out."""
MAX_TAGS = 250_000
"""How many tags of an HTML page are read before the rest of the page is left out (a long article
has tens of thousands)."""
SHORT_PAGE_WORDS = 300
"""A page with fewer words than this (title aside) is short: an interstitial is, an article is not."""

PDF_EXTRA_MISSING = pdf_text.EXTRA_MISSING
"""The :attr:`PageText.unread` reason of a PDF when pypdf is not installed."""


@dataclass(frozen=True)
class PageText:
    """What a fetched page says, as far as the online check reads it.

    ``text``: the page's text, when it was wanted and could be read. ``wall``: a short name of what
    stands in front of the content (``"a paywall"``, ``"a sign-in page"``, ``"a bot check"``,
    ``"an access-denied page"``) when the page is a known interstitial, whatever its HTTP status;
    a wall is no proof that the text is absent (a metered article marked as not free may still be
    served whole), so a quote found in ``text`` stands. ``unread``: why ``text`` is None although
    it was wanted (:data:`PDF_EXTRA_MISSING` when pypdf is not installed). ``partial``: why
    ``text`` holds only the first part of the page, so that a quote not found in it is no proof.
    ``limited``: the checker's own limits or means, not the page, left its text unread (a PDF past
    the reader's time or memory, or without the ``pdf`` extra), so its quotes are not checked.
    """

    text: str | None
    wall: str | None = None
    unread: str | None = None
    partial: str | None = None
    limited: bool = False


def read_page(body: bytes, content_type: str | None, wants_text: bool) -> PageText:
    """The text (only when ``wants_text``) and the wall of a fetched page of ``content_type``
    (the Content-Type header, None when the response had none). Reading HTML needs the ``online``
    extra (selectolax): without it, ImportError is raised, as ``--online`` cannot run at all."""
    media_type, charset = _parse_content_type(content_type)
    kind = _kind(media_type, body)
    if kind == "html":
        return _read_html(body, charset, wants_text)
    if kind == "pdf":
        return _read_pdf(body) if wants_text else PageText(None)
    if kind == "text":
        if not wants_text:
            return PageText(None)
        head, partial = _capped(body)
        return PageText(_decode(head, _bom_codec(head) or _codec(charset)), partial=partial)
    if not wants_text:
        return PageText(None)
    if media_type is None:
        return PageText(None, unread="a page of no content type that is neither HTML nor PDF has no text to read")
    return PageText(None, unread=f"a page of type {media_type} has no text to read")


# -- what the page is ---------------------------------------------------------------------------

_HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
_PDF_TYPES = frozenset({"application/pdf", "application/x-pdf"})
_UNKNOWN_TYPES = frozenset({"", "unknown/unknown", "application/unknown", "*/*"})
_MEDIA_TYPE = re.compile(r"[a-z0-9!#$&^_.+-]+/[a-z0-9!#$&^_.+*-]+")
_CHARSET_PARAMETER = re.compile(r"""charset\s*=\s*["']?([^"';\s]*)""", re.IGNORECASE)
# The beginnings by which a body of no known type is taken as HTML (after the MIME Sniffing standard).
_HTML_START = re.compile(
    rb"\s*<(?:!doctype\s+html|html|head|script|iframe|h1|div|font|table|a|style|title|b|body|br|p|!--)[\s>]",
    re.IGNORECASE,
)


def _parse_content_type(content_type: str | None) -> tuple[str | None, str | None]:
    """(media type, charset label) of a Content-Type header; a media type that is not of the form
    ``type/subtype`` counts as none."""
    if content_type is None:
        return None, None
    media_type, _, parameters = content_type.partition(";")
    media_type = media_type.strip().lower()
    charset = _CHARSET_PARAMETER.search(parameters[:1000])
    return (media_type if _MEDIA_TYPE.fullmatch(media_type) else None), (charset.group(1) if charset else None)


def _kind(media_type: str | None, body: bytes) -> str | None:
    """The kind of a body served as ``media_type``: "html", "pdf", "text", or None (no text)."""
    if media_type in _HTML_TYPES:
        return "html"
    if media_type in _PDF_TYPES or ((media_type is None or not media_type.startswith("text/")) and _is_pdf(body)):
        return "pdf"
    if media_type is not None and media_type.startswith("text/"):
        return "text"
    if (media_type is None or media_type in _UNKNOWN_TYPES) and _HTML_START.match(body.removeprefix(b"\xef\xbb\xbf")[:512]):
        return "html"
    return None


def _is_pdf(body: bytes) -> bool:
    return b"%PDF-" in body[:1024]


# -- bytes to text --------------------------------------------------------------------------------

# The encodings of the web (the Encoding standard) that Python decodes; a label naming any other
# codec is not used (a page never chooses a codec such as rot13 or punycode).
_WEB_CODECS = frozenset(
    codecs.lookup(name).name
    for name in [
        "utf-8", "utf-16", "utf-16-le", "utf-16-be", "ibm866", "koi8-r", "koi8-u", "mac-roman",
        "mac-cyrillic", "cp874", "cp1250", "cp1251", "cp1252", "cp1253", "cp1254", "cp1255", "cp1256",
        "cp1257", "cp1258", "gbk", "gb18030", "big5", "big5hkscs", "euc-jp", "iso2022-jp",
        "shift-jis", "cp932", "euc-kr", "cp949",
        *(f"iso8859-{n}" for n in (1, 2, 3, 4, 5, 6, 7, 8, 10, 13, 14, 15, 16)),
        "ascii", "gb2312", "tis-620",
    ]
)  # fmt: skip
# Labels that browsers decode with a wider encoding than the one they name.
_AS_BROWSERS_READ = {
    "ascii": "cp1252",
    "iso8859-1": "cp1252",
    "gb2312": "gb18030",
    "gbk": "gb18030",
    "big5": "big5hkscs",
    "shift_jis": "cp932",
    "euc_kr": "cp949",
    "tis-620": "cp874",
}
# Labels of the Encoding standard that Python does not know by that name.
_WEB_LABELS = {
    "windows-874": "cp874", "iso-8859-8-i": "iso8859-8", "csiso88598i": "iso8859-8", "logical": "iso8859-8",
    "x-sjis": "cp932", "windows-31j": "cp932", "ms932": "cp932", "ms_kanji": "cp932", "csshiftjis": "cp932",
    "x-euc-jp": "euc-jp", "cseucpkdfmtjapanese": "euc-jp", "x-gbk": "gb18030", "x-cp1252": "cp1252",
    "x-mac-roman": "mac-roman", "x-mac-cyrillic": "mac-cyrillic", "x-x-big5": "big5hkscs", "cn-big5": "big5hkscs",
    "ks_c_5601-1987": "cp949", "windows-949": "cp949", "x-user-defined": "cp1252",
}
_CHARSET_LABEL = re.compile(r"[a-zA-Z0-9._:-]{1,40}")
_UTF8_SEQUENCE = re.compile(rb"[\xc2-\xdf][\x80-\xbf]|[\xe0-\xef][\x80-\xbf]{2}|[\xf0-\xf4][\x80-\xbf]{3}")
_META_CHARSET = re.compile(
    rb"""<meta[^>]*?charset\s*=\s*["']?\s*([a-zA-Z0-9._:-]{1,40})|<\?xml[^>]*?encoding\s*=\s*["']([a-zA-Z0-9._:-]{1,40})""",
    re.IGNORECASE,
)


def _codec(label: str | bytes | None) -> str | None:
    """The Python codec of a charset label, when it names an encoding of the web."""
    if isinstance(label, bytes):
        label = label.decode("ascii", "replace")
    if not label or not _CHARSET_LABEL.fullmatch(label):
        return None
    label = _WEB_LABELS.get(label.lower(), label)
    try:
        name = codecs.lookup(label).name
    except LookupError:
        return None
    return _AS_BROWSERS_READ.get(name, name) if name in _WEB_CODECS else None


def _bom_codec(body: bytes) -> str | None:
    if body.startswith(b"\xef\xbb\xbf"):
        return "utf-8-sig"
    if body.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "utf-16"  # (Python's utf-16 reads the mark and drops it)
    return None


def _meta_codec(body: bytes) -> str | None:
    """The codec a ``<meta>`` charset (or an XML declaration) names in the page's first bytes; a
    page that declares UTF-16 there is read as UTF-8, as browsers do (its bytes so far were ASCII)."""
    found = _META_CHARSET.search(body[:4096])
    if found is None:
        return None
    codec = _codec(found.group(1) or found.group(2))
    return "utf-8" if codec is not None and codec.startswith("utf-16") else codec


def _decode(body: bytes, codec: str | None) -> str:
    """``body`` decoded with ``codec``; with none declared, as UTF-8 when it holds UTF-8 (a few bad
    bytes replaced), else as windows-1252: what browsers read a legacy page without a charset as."""
    if codec is None:
        try:
            return body.decode("utf-8")
        except UnicodeDecodeError:
            legacy = _UTF8_SEQUENCE.search(body) is None
            return body.decode("cp1252" if legacy else "utf-8", errors="replace")
    return body.decode(codec, errors="replace")


def _capped(body: bytes) -> tuple[bytes, str | None]:
    if len(body) <= MAX_BODY_BYTES:
        return body, None
    return body[:MAX_BODY_BYTES], f"only the first {MAX_BODY_BYTES // (1024 * 1024)} MB of the page are read"


# -- HTML -----------------------------------------------------------------------------------------

_DROPPED = ["script", "style", "noscript", "template", "svg", "iframe", "object", "noembed", "noframes"]
# Elements that end a line of text (block and table elements, line breaks, form controls).
_LINE_BREAKING = re.compile(
    r"(?=</?(?:address|article|aside|blockquote|br|button|caption|center|dd|details|dialog|dir|div|dl|dt"
    r"|fieldset|figcaption|figure|footer|form|h[1-6]|header|hgroup|hr|legend|li|listing|main|menu|nav|ol"
    r"|optgroup|option|p|pre|search|section|select|summary|table|tbody|td|textarea|tfoot|th|thead|tr|ul"
    r"|video|audio|img|canvas|xmp)[\s/>])",
    re.IGNORECASE,
)
_LINE = "\f"  # marks a line break in the markup: ASCII whitespace, so the parser never moves it out of a table
_SPACES = re.compile(r"[^\S\f]+")
_LINE_BREAKS = re.compile(r" ?(?:\f ?)+")


def _read_html(body: bytes, charset: str | None, wants_text: bool) -> PageText:
    head, partial = _capped(body)
    html = _decode(head, _bom_codec(head) or _codec(charset) or _meta_codec(head))
    limit = _parser_limit(html)
    if limit is not None:
        html, partial = html[: limit[0]], limit[1]
    from selectolax.lexbor import LexborHTMLParser

    tree = LexborHTMLParser(_LINE_BREAKING.sub(_LINE, html))
    title_node = tree.css_first("head > title")
    title = " ".join(title_node.text(separator="").split()) if title_node is not None else ""
    evidence = _Evidence.gather(tree, title)
    tree.strip_tags(_DROPPED)
    root = tree.body
    text = _lines(root.text(separator="") if root is not None else "")
    wall = evidence.wall(text)
    if not wants_text:
        return PageText(None, wall=wall)
    return PageText(f"{title}\n{text}" if title and text else title or text, wall=wall, partial=partial)


def _lines(marked_text: str) -> str:
    """A body's text as lines (one per block), whitespace collapsed in each, no empty line."""
    return _LINE_BREAKS.sub("\n", _SPACES.sub(" ", marked_text)).strip()


# A tag or comment start as the tokenizer reads it (on lowercased text): the name, then attributes
# whose quoted values may hold ``>``; a quote not after ``=`` is part of a name, as in the tokenizer.
_MARKUP = re.compile(r"""<(?:!--|(/?)([a-z][^\t\n\f\r />]*)((?:[^"'>=]+|=\s*"[^"]*"|=\s*'[^']*'|["'=])*))""")
_COMMENT_END = re.compile(r"--!?>")
_RAW_TEXT = frozenset({"script", "style", "textarea", "title", "xmp", "iframe", "noembed", "noframes"})
_VOID = frozenset(
    [
        "area", "base", "basefont", "bgsound", "br", "col", "embed", "frame", "hr", "image", "img", "input",
        "keygen", "link", "meta", "param", "source", "track", "wbr",
    ]
)  # fmt: skip
# Elements whose start tag closes the one of their own kind that is open (or that are never nested
# by the parser): they add no depth of their own.
_NOT_NESTING = frozenset(
    ["p", "li", "dt", "dd", "option", "tr", "td", "th", "thead", "tbody", "tfoot", "caption", "colgroup", "html", "head", "body"]
)
# Elements that a second start tag of the same name closes (or ignores) instead of nesting.
_ONE_AT_A_TIME = frozenset(["a", "nobr", "button", "form", "select"])
_QUOTED_VALUE = re.compile(r"""=\s*(?:"[^"]*"|'[^']*')""")
_ATTRIBUTE = re.compile(r"""[^\s/=]+(?:\s*=\s*[^\s]*)?""")


def _parser_limit(html: str) -> tuple[int, str] | None:
    """(offset, reason) of the first tag past which Lexbor would take more than linear time or
    hold too many nodes: the :data:`MAX_TAGS`-th tag, one that nests elements more than
    :data:`MAX_DEPTH` deep, or one with more than :data:`MAX_ATTRIBUTES` attributes; None when the
    page has none of them.

    The depth is tracked on a stack of open elements the way the parser keeps it, closely enough to
    bound it: an end tag closes only an element that is open, raw text (scripts, styles...) and
    comments are skipped, a self-closing tag opens nothing inside SVG or MathML, and elements that
    the parser never nests in themselves (``p``, ``li``, table cells...) add no depth."""
    low = html.lower()
    search = _MARKUP.search
    stack: list[str] = []
    open_count: dict[str, int] = {}
    position = 0
    for _ in range(MAX_TAGS):
        markup = search(low, position)
        if markup is None:
            return None
        closing, name, attributes = markup.groups()
        if name is None:  # a comment: it ends at the first "-->" or "--!>" (even "<!-->" is whole)
            position = _comment_end(low, markup.start() + 2)
            if position < 0:
                return None
            continue
        position = markup.end()
        if closing:
            _close(name, stack, open_count)
        elif len(attributes) > 2 * MAX_ATTRIBUTES and _attribute_count(attributes) > MAX_ATTRIBUTES:
            return markup.start(), f"only the part of the page before a tag with over {MAX_ATTRIBUTES} attributes is read"
        elif name in _RAW_TEXT:
            position = low.find("</" + name, position)
            if position < 0:
                return None
        elif name == "plaintext":
            return None
        elif not _opens_nothing(name, attributes, open_count):
            stack.append(name)
            open_count[name] = open_count.get(name, 0) + 1
            if len(stack) > MAX_DEPTH:
                return markup.start(), f"only the part of the page before its elements nest over {MAX_DEPTH} deep is read"
    if search(low, position) is None:
        return None
    return position, f"only the part of the page before its {MAX_TAGS:,}th tag is read"


def _comment_end(low: str, start: int) -> int:
    """The offset after the comment whose ``--`` is at ``start``, or -1 when it runs to the end."""
    end = _COMMENT_END.search(low, start)
    return end.end() if end is not None else -1


def _opens_nothing(name: str, attributes: str, open_count: dict[str, int]) -> bool:
    if name in _VOID or name in _NOT_NESTING or (name in _ONE_AT_A_TIME and open_count.get(name)):
        return True
    in_foreign_content = open_count.get("svg") or open_count.get("math")
    return bool(in_foreign_content) and attributes.rstrip().endswith("/")


def _close(name: str, stack: list[str], open_count: dict[str, int]) -> None:
    """Pop the stack down to the innermost open ``name`` (nothing when none is open)."""
    if not open_count.get(name):
        return
    while True:
        popped = stack.pop()
        open_count[popped] -= 1
        if popped == name:
            return


def _attribute_count(attributes: str) -> int:
    return len(_ATTRIBUTE.findall(_QUOTED_VALUE.sub("=", attributes)))


# -- walls ----------------------------------------------------------------------------------------

_NOT_FREE = re.compile(r"""["']?isAccessibleForFree["']?\s*:\s*["']?false\b""", re.IGNORECASE)
# Scripts, element ids and classes that only a challenge page of a bot manager carries.
_CHALLENGE_MARKERS = (
    "_cf_chl_opt",  # Cloudflare challenge
    "/cdn-cgi/challenge-platform/h/",  # (its challenge scripts; /scripts/jsd/ is on every page it serves)
    "captcha-delivery.com",  # DataDome
    "_Incapsula_Resource",  # Imperva
    "px-captcha",  # PerimeterX / HUMAN
    "/_sec/cp_challenge/",  # Akamai
    "ddos-guard",
)
_CHALLENGE_ELEMENTS = "#challenge-form, #challenge-stage, #challenge-running, .cf-browser-verification, #cf-challenge-running, #px-captcha"
_BOT_CHECK_TITLES = frozenset(
    {
        "just a moment...",
        "just a moment…",
        "please wait... | cloudflare",
        "one moment, please...",
        "ddos-guard",
        "robot check",
        "are you a robot?",
        "pardon our interruption",
        "human verification",
        "verifying you are human",
    }
)
_BOT_CHECK_TEXT = re.compile(
    r"verifying you are human|checking your browser before accessing|checking if the site connection is secure"
    r"|enable javascript and cookies to continue|press (?:&|and) hold to confirm you are a human"
    r"|please verify you are a human|type the characters you see in this image"
    r"|our systems have detected unusual traffic from your computer network"
)
_ACCESS_DENIED_TEXT = re.compile(
    r"sorry, you have been blocked|you don'?t have permission to access (?:this resource|.{0,300} on this server)"
    r"|the requested url was rejected|access to this page has been denied|your request has been blocked"
    r"|this request was blocked by the security rules|the request could not be satisfied|error 1020"
    r"|access denied - sucuri website firewall"
)
_SIGN_IN_TEXT = re.compile(
    r"(?:sign|log) ?in (?:or (?:sign|register) up )?to (?:continue|view|see|read|access)\b"
    r"|(?:create an? (?:free )?account|join|register|sign up) (?:\w+ )?(?:for free )?to (?:continue|keep) reading"
    r"|(?:create an? (?:free )?account|join|register|sign up) (?:\w+ )?(?:for free )?to (?:read|see|view) the full"
)
_SIGN_IN_TITLE = re.compile(r"\b(?:sign ?in|log ?in)\b")
_PAYWALL_TEXT = re.compile(
    r"subscribe (?:now )?to (?:continue|keep) reading|subscribe to read the full (?:article|story)"
    r"|to continue reading,? (?:please )?(?:subscribe|become a subscriber)"
    r"|continue reading with a (?:\w+ )?subscription"
    r"|this (?:article|story|content) is (?:only )?(?:available )?(?:to|for) (?:paying |premium |digital )?subscribers"
    r"|you(?:'ve| have) (?:reached|hit) your (?:monthly |weekly |free )*(?:article |story )?limit"
    r"|you(?:'ve| have) (?:used|read) all (?:of )?your free (?:articles|stories)"
)
_PROMPT_LINE = 300  # a paywall's prompt is a short line of its own, not a sentence of an article about one


@dataclass(frozen=True)
class _Evidence:
    """What the markup of a page says about walls, gathered before scripts are dropped."""

    title: str
    not_free: bool
    challenge: bool
    password_field: bool

    @classmethod
    def gather(cls, tree: Any, title: str) -> _Evidence:
        return cls(
            title=title.lower(),
            not_free=_marked_not_free(tree),
            challenge=any(tree.scripts_contain(marker) for marker in _CHALLENGE_MARKERS)
            or tree.script_srcs_contain(_CHALLENGE_MARKERS)
            or tree.css_first(_CHALLENGE_ELEMENTS) is not None,
            password_field=tree.css_first('input[type="password" i]') is not None,
        )

    def wall(self, text: str) -> str | None:
        """The wall the page is, judged from this evidence and the text of its body.

        Bot checks, access-denied pages and sign-in pages are short, so a long page is never one of
        them; a paywall is marked as such in the page's structured data, or says so in a short line
        of its own (a button "Subscribe" or a newsletter box is no paywall)."""
        folded = text.lower().replace("\u2019", "'")
        if self.not_free or _prompts(folded, _PAYWALL_TEXT):
            return "a paywall"
        if len(folded.split(maxsplit=SHORT_PAGE_WORDS)) >= SHORT_PAGE_WORDS:
            return None
        if self.challenge or self.title in _BOT_CHECK_TITLES or _BOT_CHECK_TEXT.search(folded):
            return "a bot check"
        if _ACCESS_DENIED_TEXT.search(folded) or _ACCESS_DENIED_TEXT.search(self.title):
            return "an access-denied page"
        if (self.password_field and _SIGN_IN_TITLE.search(self.title)) or _prompts(folded, _SIGN_IN_TEXT):
            return "a sign-in page"
        return None


def _marked_not_free(tree: Any) -> bool:
    """Whether the page's schema.org data (JSON-LD or microdata) says it is not free to read."""
    for script in tree.css('script[type="application/ld+json" i]'):
        if _NOT_FREE.search(script.text(separator="")):
            return True
    return any(
        (meta.attributes.get("content") or "").strip().lower() == "false"
        for meta in tree.css('[itemprop="isAccessibleForFree" i]')
    )


def _prompts(text: str, prompt: re.Pattern[str]) -> bool:
    """Whether a line of ``text`` (lowercased) is a short prompt of its own saying ``prompt``, not a
    sentence that quotes it."""
    for found in prompt.finditer(text):
        start, end = found.span()
        line_start = text.rfind("\n", max(0, start - _PROMPT_LINE), start) + 1
        line_end = text.find("\n", end, line_start + _PROMPT_LINE + 1)
        if line_end < 0:
            line_end = len(text)
        quoted = text[max(line_start, start - 2) : start].strip() in ('"', "\u201c", "'", "\u2018")
        if line_end - line_start <= _PROMPT_LINE and (line_start > 0 or start <= _PROMPT_LINE) and not quoted:
            return True
    return False


# -- PDF ------------------------------------------------------------------------------------------


def _read_pdf(body: bytes) -> PageText:
    """The text of a PDF's first pages, read in a process of its own (:mod:`pytest_citations.core.pdf_text`)."""
    read = pdf_text.read(body)
    if read.pages is None:
        return PageText(None, unread=read.unread, limited=read.limited)
    return PageText("\n".join(read.pages), partial=read.partial)

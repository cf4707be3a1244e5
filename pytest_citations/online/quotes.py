"""Whether a quote that an artifact attributes to a web page is still on the page, and, when it is
not, the page's words that come closest.

Both texts are normalized the same way before they are compared: Unicode NFKC (ligatures, full-width
forms and the ellipsis character become plain letters and dots), case-folded, typographic quotes,
apostrophes and dashes made plain (an acute accent or a backtick used as an apostrophe too), soft
hyphens, zero-width characters and lone spacing accents dropped, whitespace collapsed; then
footnote markers (``[1]``), double quote marks, hyphens and dashes left out, which typesetting
moves or adds (a comma inside or outside quote marks, a word hyphenated across a PDF's line end).
The quote's HTML entities are decoded. A quote is found when it is a part of the page's text. An ellipsis (``...``,
``…``, ``. . .``, ``[...]``) inside a quote marks an elision: the parts between ellipses must all be
on the page, in order. Quote marks around the quote, ellipses at its ends, and the punctuation at
the ends of the quote and next to an ellipsis (a period the quoting sentence added) do not count.

Finding the closest words takes time linear in the page's length: the quote's word n-grams are
indexed, the window of the page's words (as many as the quote's) that shares the most of them is
found in one pass, and only that window is compared with the quote. The page is read in pieces of
:data:`_PIECE` characters, so that memory stays a small multiple of the page's size.
"""

from __future__ import annotations

import difflib
import functools
import html
import itertools
import operator
import re
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass

CLOSEST_CHARACTERS = 200
"""At most this many characters of the page are shown as the closest match."""
MIN_SIMILARITY = 0.5
"""A window of the page less similar to the quote than this is not shown as its closest match."""
_DIFFLIB_WORDS = 256
"""A quote of up to this many words is compared with its window word by word (difflib); a longer
one by the share of its word n-grams the window holds (difflib's time grows faster than linearly)."""
_PIECE = 1 << 18
_MEMO_WORDS = 100_000

# Characters replaced before NFKC (which would turn a lone spacing accent into a space and a
# combining accent, splitting a word) and again after it (for the few it makes): invisible ones and
# lone accents dropped, accents used as apostrophes and typographic marks made plain.
_REPLACED = {
    **dict.fromkeys("\u00ad\u034f\u180e\u200b\u200c\u200d\u2060\ufeff", ""),
    **dict.fromkeys(
        "\u00a8\u00af\u00b8\u02d8\u02d9\u02da\u02db\u02dc\u02dd\u037a\u0384\u0385\u1fbd\u1fbf\u1fc0\u1fc1"
        "\u1fcd\u1fce\u1fcf\u1fdd\u1fde\u1fdf\u1fed\u1fee\u1ffd\u1ffe\u2017\u203e\u309b\u309c\ufc5e\ufc5f"
        "\ufc60\ufc61\ufc62\ufc63\ufe49\ufe4a\ufe4b\ufe4c\ufe70\ufe72\ufe74\ufe76\ufe78\ufe7a\ufe7c\ufe7e\uffe3",
        "",
    ),
    **dict.fromkeys("\u00b4`\u2018\u2019\u201a\u201b\u2032\u2035\u2039\u203a\u02bc", "'"),
    **dict.fromkeys("\u201c\u201d\u201e\u201f\u2033\u2036\u00ab\u00bb", '"'),
    **dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2043\u2212\u2e3a\u2e3b", "-"),
}
_TO_REPLACE = re.compile("[" + "".join(_REPLACED) + "]")
_SPACE = re.compile(r"\s")
_FOOTNOTE = re.compile(r" ?\[\d{1,3}\]")
_ELISION = re.compile(r"\s*[\[(]?\s*(?:\.\s?){3,}\s*[\])]?\s*")
# cut from both ends of a quote and of each part of an elided one (a shorter part is found as often)
_EDGE_PUNCTUATION = " \"',;:."
_WORD_EDGE = "\"'()[]{}<>,;:.!?-*_/\\"


@dataclass(frozen=True)
class QuoteMatch:
    """Whether a quote is on a page. ``closest``: when it is not, the page's words that come closest
    (at most :data:`CLOSEST_CHARACTERS` characters, ``…`` where they were cut short), None when
    nothing on the page is at least :data:`MIN_SIMILARITY` similar. ``similarity``: 0..1, of those
    words to the quote, compared word by word without the punctuation at their edges (so 1.0 when
    they differ only there; 1.0 when the quote is found; 0.0 when the page shares none of its words)."""

    found: bool
    closest: str | None
    similarity: float


def normalize(text: str) -> str:
    """The text as quotes and pages are compared (see the module's description)."""
    return _loosen(_join_dashes(" ".join(_plain(text).split())))


def _loosen(text: str) -> str:
    """What typesetting moves or adds taken out of a normalized text: footnote markers (``[1]``),
    double quote marks (a comma inside or outside them, as house styles differ) and hyphens and
    dashes (a word hyphenated across a PDF's line end reads ``expec- tations``)."""
    return _FOOTNOTE.sub("", text).replace('"', "").replace("-", "")


def quote_parts(quote: str) -> list[str]:
    """The normalized parts of a quote that must be on the page in order: one, or one per elision."""
    parts = (part.strip(_EDGE_PUNCTUATION) for part in _ELISION.split(normalize(html.unescape(quote))))
    return [part for part in parts if part]


def find_quote(quote: str, page_text: str, closest: bool = True) -> QuoteMatch:
    """Whether ``quote`` is in ``page_text`` (see the module's description), else the closest match
    (unless ``closest`` is False: its search takes a pass over the page per quote). A quote with
    nothing left to look for once normalized (empty, only ellipses) is found."""
    parts = quote_parts(quote)
    if not parts:
        return QuoteMatch(found=True, closest=None, similarity=1.0)
    plain_pieces, normalized_page = _prepared(page_text)
    if _in_order(parts, normalized_page):
        return QuoteMatch(found=True, closest=None, similarity=1.0)
    if not closest:
        return QuoteMatch(found=False, closest=None, similarity=0.0)
    return _closest(_tokens(" ".join(parts).split()), page_text, plain_pieces)


def _plain(text: str) -> str:
    return _replace(unicodedata.normalize("NFKC", _replace(text)).casefold())


def _replace(text: str) -> str:
    """The text with the characters of :data:`_REPLACED` replaced (``str.translate`` looks up
    every character of a text that is not ASCII, several times slower than this on web pages)."""
    for char in set(_TO_REPLACE.findall(text)):
        text = text.replace(char, _REPLACED[char])
    return text


def _join_dashes(text: str) -> str:
    """``a - b``, ``a -- b`` and ``a-b`` alike, in a text whose whitespace is collapsed."""
    text = text.replace(" -", "-").replace("- ", "-")
    while "--" in text:
        text = text.replace("--", "-")
    return text


def _pieces(text: str) -> Iterator[str]:
    """The text in pieces of about :data:`_PIECE` characters, each cut after whitespace."""
    start = 0
    while start < len(text):
        space = _SPACE.search(text, start + _PIECE)
        end = space.end() if space is not None else len(text)
        yield text[start:end]
        start = end


@functools.lru_cache(maxsize=2)
def _prepared(page_text: str) -> tuple[list[str], str]:
    """The page's pieces made plain and the page normalized: made once for the many quotes of one
    page (a response may cite one page hundreds of times)."""
    plain_pieces = [_plain(piece) for piece in _pieces(page_text)]
    return plain_pieces, _normalized_page(plain_pieces)


def _normalized_page(plain_pieces: list[str]) -> str:
    """The page as :func:`normalize` makes it, from its pieces made plain."""
    collapsed = (" ".join(piece.split()) for piece in plain_pieces)
    return _loosen(_join_dashes(" ".join(piece for piece in collapsed if piece)))


def _in_order(parts: list[str], page: str) -> bool:
    position = 0
    for part in parts:
        found = page.find(part, position)
        if found < 0:
            return False
        position = found + len(part)
    return True


def _tokens(normalized_words: list[str]) -> list[str]:
    """Words as they are compared for similarity: without the punctuation at their edges."""
    return [token for token in (word.strip(_WORD_EDGE) for word in normalized_words) if token]


def _closest(quote_tokens: list[str], page_text: str, plain_pieces: list[str]) -> QuoteMatch:
    if not quote_tokens:
        return QuoteMatch(found=False, closest=None, similarity=0.0)
    size = len(quote_tokens)
    # n-grams short enough that a quote with one word changed in its middle still shares some
    n = max(1, min(3, size // 3))
    vocabulary = {token: index for index, token in enumerate(dict.fromkeys(quote_tokens))}
    quote_grams = set(_grams([vocabulary[token] for token in quote_tokens], n))
    page_ids = _page_ids(page_text, plain_pieces, vocabulary.get)
    shared = list(map(quote_grams.__contains__, _grams(page_ids, n)))
    del page_ids
    start, score = _best_window(shared, max(1, size - n + 1))
    if score == 0:
        return QuoteMatch(found=False, closest=None, similarity=0.0)
    window = _words(page_text, start, size)
    window_tokens = [_token(word) for word in window]
    similarity, differs_at = _compare(quote_tokens, window_tokens, quote_grams, vocabulary, n)
    if similarity < MIN_SIMILARITY:
        return QuoteMatch(found=False, closest=None, similarity=similarity)
    return QuoteMatch(found=False, closest=_excerpt(window, differs_at), similarity=similarity)


def _grams(ids: list[int], n: int) -> Iterator[tuple[int, ...]]:
    return zip(*(itertools.islice(ids, k, None) for k in range(n)), strict=False)


def _token(word: str) -> str:
    """The token of one word of the page as it was written."""
    return (word.lower() if word.isascii() else _plain(word)).strip(_WORD_EDGE)


def _page_ids(page_text: str, plain_pieces: list[str], index: Callable[[str, int], int]) -> list[int]:
    """The vocabulary index of the token of each word of the page (-1 when it is not the quote's).

    Each piece of the page, made plain whole, is split into words, which line up with the piece's
    words as written, as normalizing adds and removes no whitespace; in the rare piece where they do
    not line up (a character whose compatibility form holds a space), each word is normalized alone."""
    ids: list[int] = []
    memo: dict[str, int] = {}
    for piece, plain_piece in zip(_pieces(page_text), plain_pieces, strict=True):
        plain_words = plain_piece.split()
        words = piece.split()
        if len(plain_words) == len(words):
            ids.extend([index(word.strip(_WORD_EDGE), -1) for word in plain_words])
            continue
        for word in words:
            if word not in memo:
                if len(memo) >= _MEMO_WORDS:
                    memo.clear()
                memo[word] = index(_token(word), -1)
            ids.append(memo[word])
    return ids


def _best_window(shared: list[bool], length: int) -> tuple[int, int]:
    """(start, count) of a run of ``length`` positions holding the most shared n-grams: the first
    such run, moved on to its first shared n-gram (a window that starts with a word the quote does
    not have, when the next one holds as many, is the quote's window shifted)."""
    if length >= len(shared):
        return 0, sum(shared)
    ahead = itertools.islice(itertools.accumulate(shared, initial=0), length, None)
    behind = itertools.accumulate(shared, initial=0)
    score, negative_start = max(zip(map(operator.sub, ahead, behind), itertools.count(0, -1)))
    start = -negative_start
    while score and not shared[start] and start + length < len(shared):
        start += 1  # (the run keeps its count: the position it takes in cannot be shared, or the count was not the most)
    return start, score


def _words(page_text: str, first: int, count: int) -> list[str]:
    """The page's words ``first`` to ``first + count`` (not included), as written."""
    window: list[str] = []
    seen = 0
    for piece in _pieces(page_text):
        words = piece.split()
        if seen + len(words) > first:
            window += words[max(0, first - seen) : first + count - seen]
            if len(window) >= count:
                break
        seen += len(words)
    return window


def _compare(
    quote_tokens: list[str], window_tokens: list[str], quote_grams: set[tuple[int, ...]], vocabulary: dict[str, int], n: int
) -> tuple[float, int]:
    """(similarity of the window to the quote, index of the window's first word that differs)."""
    if len(quote_tokens) <= _DIFFLIB_WORDS:
        matcher = difflib.SequenceMatcher(None, quote_tokens, window_tokens, autojunk=False)
        differs = next((j1 for tag, _, _, j1, _ in matcher.get_opcodes() if tag != "equal"), 0)
        return matcher.ratio(), differs
    window_grams = list(_grams([vocabulary.get(token, -1) for token in window_tokens], n))
    differs = next((index for index, gram in enumerate(window_grams) if gram not in quote_grams), 0)
    return len(quote_grams.intersection(window_grams)) / len(quote_grams), differs


def _excerpt(window: list[str], around: int) -> str:
    """The window's words, cut to :data:`CLOSEST_CHARACTERS` around its word ``around`` (where it
    starts to differ from the quote) when they are longer, with ``…`` where they were cut."""
    text = " ".join(window)
    if len(text) <= CLOSEST_CHARACTERS:
        return text
    offset = len(" ".join(window[:around])) + (1 if around else 0)
    start = max(0, min(offset - CLOSEST_CHARACTERS // 4, len(text) - CLOSEST_CHARACTERS))
    end = start + CLOSEST_CHARACTERS
    if start > 0 and text[start - 1] != " " and " " in text[start : start + 40]:
        start = text.index(" ", start) + 1
    if end < len(text) and text[end] != " " and " " in text[end - 40 : end]:
        end = text.rindex(" ", start, end)
    return ("…" if start > 0 else "") + text[start:end].strip() + ("…" if end < len(text) else "")

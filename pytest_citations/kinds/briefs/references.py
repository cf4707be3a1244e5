"""References entries in spec §7.2's form, ``[N] Publisher. "Title". Published <date>. <URL>``
and its ``[Paywall]`` and ``[Monitor-only source]`` tags, read as generators write them
(:func:`read_reference`); for an entry not in the form, which part is not."""

from __future__ import annotations

import re
from typing import NamedTuple, cast

from pytest_citations.core.diagnostics import quoted


class Reference(NamedTuple):
    """A References entry read in spec §7.2's form: ``Publisher. "Title". Published <date>. <URL>``."""

    publisher: str
    title: str
    date: str | None  # as written, without "Published"; None when the entry gives none
    url: str  # where a reader goes: a Markdown link's destination, an autolink's or a bare URL
    tags: frozenset[str]  # Paywall, Monitor-only source


_TAGS = frozenset(("Paywall", "Monitor-only source"))
# The URL an entry ends in: a Markdown link (its destination), an autolink or a bare URL.
_LINK_AT_END = re.compile(r"(?:\A|[ \t])\[(?P<text>[^\[\]]*)\]\((?P<url>https?://[^\s()<>]*(?:\([^\s()<>]*\)[^\s()<>]*)*)\)\Z", re.I)
_URL = re.compile(r"<https?://[^\s<>]+>|\[[^\[\]]*\]\(https?://[^\s()\[\]]*\)|https?://\S+", re.I)
_OPENING_QUOTES, _CLOSING_QUOTES = "\"\u201c", "\"\u201d"
_EMPHASIS_MARKS = "*_"
_PUBLISHED = re.compile(r"Published:?[ \t]*", re.I)
_MONTH_NUMBERS = {name: number for number, names in enumerate([
    ("jan", "january"), ("feb", "february"), ("mar", "march"), ("apr", "april"), ("may",), ("jun", "june"),
    ("jul", "july"), ("aug", "august"), ("sep", "sept", "september"), ("oct", "october"), ("nov", "november"),
    ("dec", "december"),
], start=1) for name in names}
_WEEKDAY = r"(?:(?:Mon|Tue|Tues|Wed|Thu|Thur|Thurs|Fri|Sat|Sun)[a-z]*\.?,?[ \t]+)?"
# The dates §7.2's "Published <date>" is written with: a month's name with the day before or after
# it (or without a day), an ISO 8601 date or date-time (the citation's own published_at), and the
# numeric forms 2026/02/10, 10/02/2026, 10.02.2026 (either order of day and month).
_DATE_FORMS = [
    re.compile(_WEEKDAY + r"(?P<month>[A-Za-z]{3,9})\.?[ \t]+(?P<day>[0-9]{1,2})(?:st|nd|rd|th)?,?[ \t]+(?P<year>[0-9]{4})"),
    re.compile(_WEEKDAY + r"(?P<day>[0-9]{1,2})(?:st|nd|rd|th)?[ \t]+(?P<month>[A-Za-z]{3,9})\.?,?[ \t]+(?P<year>[0-9]{4})"),
    re.compile(r"(?P<month>[A-Za-z]{3,9})\.?,?[ \t]+(?P<year>[0-9]{4})"),
    re.compile(r"(?P<year>[0-9]{4})/(?P<month>[0-9]{1,2})/(?P<day>[0-9]{1,2})"),
    re.compile(r"(?P<first>[0-9]{1,2})[/.](?P<second>[0-9]{1,2})[/.](?P<year>[0-9]{4})"),
]
_ISO_SHAPE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}(?:T\S*)?")


def read_reference(body: str) -> tuple[Reference | None, str | None]:
    """(the entry read in §7.2's form, None) or (None, which part failed) for the text of a
    References entry after its ``[N]``. Besides §7.2's exact form it reads what generators write:
    curly quotes, emphasis around the publisher or title, any date (or none, as in a calendar
    entry), "Published" left out (§10), a Markdown link or an autolink for the URL."""
    rest, tags = _split_tags(body)
    found = _url_at_end(rest)
    if found is None:
        return None, _no_url_problem(rest)
    head, url = found
    opening = next((index for index, char in enumerate(head) if char in _OPENING_QUOTES), -1)
    if opening < 0:
        return None, "no title in double quotes"
    closing = max(head.rfind(char) for char in _CLOSING_QUOTES)
    if closing <= opening:
        return None, "the title's opening quote is never closed"
    publisher = head[:opening].rstrip(" \t" + _EMPHASIS_MARKS)
    if not publisher:
        return None, "no publisher before the title"
    if not publisher.endswith("."):
        return None, f"the publisher {quoted(_unemphasized(publisher))} does not end with a period"
    title = _unemphasized(head[opening + 1 : closing])
    if not title:
        return None, "the title is empty"
    written = head[closing + 1 :].lstrip(_EMPHASIS_MARKS).lstrip(".").strip(" \t").removesuffix(".").rstrip(" \t")
    date = _PUBLISHED.sub("", written, count=1) if _PUBLISHED.match(written) else written
    problem = _date_problem(date, written) if written else None
    if problem:
        return None, problem
    return Reference(_unemphasized(publisher[:-1]), title, date or None, url, tags), None


def _unemphasized(text: str) -> str:
    """``text`` without the blanks and emphasis marks around it (``**Reuters**``, ``*Title*``)."""
    return text.strip(" \t").strip(_EMPHASIS_MARKS).strip(" \t")


def _split_tags(body: str) -> tuple[str, frozenset[str]]:
    """(the entry without the §7.2 tags at its end, the tags)."""
    tags = set()
    end = len(body.rstrip(" \t"))
    while end and body[end - 1] == "]":  # read back by index: a line may hold a long run of blanks or tags
        opening = body.rfind("[", 0, end)
        tag = body[opening + 1 : end - 1]
        if opening <= 0 or tag not in _TAGS or body[opening - 1] not in " \t":
            break
        tags.add(tag)
        end = opening
        while end and body[end - 1] in " \t":
            end -= 1
    return body[:end], frozenset(tags)


def _url_at_end(text: str) -> tuple[str, str] | None:
    """(what comes before it, the URL) of the URL ``text`` ends in, None when it ends in none."""
    if text.endswith(")"):
        link = _LINK_AT_END.search(text)
        if link is not None:
            return text[: link.start()], link.group("url")
    cut = max(text.rfind(" "), text.rfind("\t"))  # the last blank, -1 for none
    before, last = text[: max(cut, 0)], text[cut + 1 :]
    if last.startswith("<") and last.endswith(">"):
        last = last[1:-1]
    scheme, separator, address = last.partition("://")
    if separator and scheme.lower() in ("http", "https") and address and "<" not in last and ">" not in last:
        return before, last
    return None


def _no_url_problem(text: str) -> str:
    """Why ``text`` (an entry without its tags) ends in no URL: text follows its URL, or it has none."""
    urls = list(_URL.finditer(text))
    last = urls[-1] if urls else None
    if last is None or not text[last.end() :].strip():
        return "it ends in no http(s) URL"
    after = text[last.end() :].strip()
    return f"text after the URL: {quoted(after)} (only [Paywall] and [Monitor-only source] may follow it)"


def _date_problem(date: str, written: str) -> str | None:
    """None when ``date`` (the entry's text between its title and URL, ``written``, without
    "Published") is a date; else what is wrong with it."""
    if _ISO_SHAPE.fullmatch(date):
        from pytest_citations.core.timestamps import parse_iso_8601

        return None if parse_iso_8601(date) is not None else f"{quoted(date)} is not a date of the calendar"
    for form in _DATE_FORMS:
        found = form.fullmatch(date)
        readings = _calendar_readings(found.groupdict()) if found else None
        if readings is None:
            continue  # not this form, or a word that names no month
        if any(_is_calendar_date(*reading) for reading in readings):
            return None
        return f"{quoted(date)} is not a date of the calendar"
    return f"{quoted(written)} is not a date"


def _calendar_readings(parts: dict[str, str | None]) -> list[tuple[int, int, int]] | None:
    """The (year, month, day) a date of :data:`_DATE_FORMS` may mean: a numeric day and month
    (``10/02/2026``) either way round, a month without a day its first; None when its month's
    word names no month."""
    year = int(cast(str, parts["year"]))  # every form has a year
    if parts.get("first") is not None:  # the form with a first number has a second one
        first, second = int(cast(str, parts["first"])), int(cast(str, parts["second"]))
        return [(year, first, second), (year, second, first)]
    month = cast(str, parts["month"])  # every other form has a month
    number = int(month) if month.isdigit() else _MONTH_NUMBERS.get(month.casefold())
    return None if number is None else [(year, number, int(parts.get("day") or 1))]


def _is_calendar_date(year: int, month: int, day: int) -> bool:
    import datetime

    try:
        datetime.date(year, month, day)
    except ValueError:
        return False
    return True

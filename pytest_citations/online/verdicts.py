"""What an answer from the web means for a citation: the page is live, dead, walled, not checked
or refused, and what a ``citation.v1`` record's ``status`` should say of it. One place decides it,
for every online rule."""

from __future__ import annotations

import datetime
import enum
from dataclasses import dataclass
from http import HTTPStatus
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pytest_citations.online.fetch import Answer

PERMANENT_REDIRECTS = frozenset((301, 308))
# Statuses that say the server will not give the page to this client, not that it is gone.
PAYWALL_STATUSES = frozenset((402,))
BLOCK_STATUSES = frozenset((401, 403, 451))
_DEAD_OUTCOMES = frozenset(("dns", "connect", "tls", "redirect-loop", "too-many-redirects"))
_REFUSED_OUTCOMES = frozenset(("refused-scheme", "refused-address"))


class State(enum.Enum):
    LIVE = "live"  # a 2xx page with nothing in front of it
    DEAD = "dead"  # no such host, no connection, a 4xx that says the page is not there
    WALLED = "walled"  # a paywall, a sign-in or a block (401/402/403/451, or a known interstitial)
    UNCHECKED = "unchecked"  # not known: timed out, 5xx or 429 to the end, robots.txt said no
    REFUSED = "refused"  # never fetched: not http(s), or an address a pull request may not reach


@dataclass(frozen=True)
class Verdict:
    state: State
    reason: str  # what the web answered, as a message says it: "404 Not Found", "no such host"
    record_status: str | None  # what a citation.v1 record's status should say, None when unknown

    @property
    def paywall(self) -> bool:
        return self.record_status == "paywalled"


def status_phrase(status: int) -> str:
    try:
        return f"{status} {HTTPStatus(status).phrase}"
    except ValueError:
        return str(status)


def verdict(answer: Answer) -> Verdict:
    if answer.outcome in _REFUSED_OUTCOMES:
        return Verdict(State.REFUSED, answer.detail, None)
    if answer.outcome in _DEAD_OUTCOMES:
        return Verdict(State.DEAD, answer.detail, "invalid")
    if answer.outcome != "ok" or answer.status is None:  # timeout, robots, retry-after
        return Verdict(State.UNCHECKED, answer.detail, None)
    status = answer.status
    phrase = status_phrase(status)
    if status in PAYWALL_STATUSES:
        return Verdict(State.WALLED, f"{phrase} (a paywall)", "paywalled")
    if status in BLOCK_STATUSES:
        return Verdict(State.WALLED, f"{phrase} (the page is blocked to this client)", "blocked")
    if status == 429 or status >= 500:
        return Verdict(State.UNCHECKED, answer.detail or phrase, None)
    if status >= 400 or 300 <= status < 400:  # (a 3xx left over has no Location to follow)
        return Verdict(State.DEAD, phrase, "invalid")
    if answer.wall:
        kind = "paywalled" if "paywall" in answer.wall else "blocked"
        return Verdict(State.WALLED, f"{phrase}, but the page is {answer.wall}", kind)
    return Verdict(State.LIVE, phrase, "valid")


def moved_to(answer: Answer) -> str | None:
    """The URL a chain of redirects with a permanent one among them ends at, else None."""
    if any(status in PERMANENT_REDIRECTS for status, _ in answer.redirects):
        return answer.final_url
    return None


def checked_at(answer: Answer) -> str:
    """When the answer was fetched, as a ``citation.v1`` record writes ``checked_at``."""
    moment = datetime.datetime.fromtimestamp(answer.fetched_at, tz=datetime.timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")

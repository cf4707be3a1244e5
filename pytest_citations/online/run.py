"""An online run: before its files are checked, the URLs they cite are collected and fetched, and
the answers are given to the engines, whose rule runner then runs the online rules (W7xx) on each
web citation.

Collecting reads each file with its kinds once more, which costs little next to the network; the
check that follows runs without the result cache and the record of the last run, whose results
do not depend on the web (the answers have a cache of their own, :mod:`.response_cache`).
"""

from __future__ import annotations

import dataclasses
import os
import re
import sys
import time
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO
from urllib.parse import urlsplit

from pytest_citations.kinds import Reported
from pytest_citations.online.verdicts import State, verdict

if TYPE_CHECKING:
    from pytest_citations.engine import Engine, Task
    from pytest_citations.online.fetch import Answer, FetchSettings, Wanted

MISSING = "the online check needs its extra: pip install 'pytest-citations[online]'"
ALLOW_VARIABLE = "CITATIONS_ONLINE_ALLOW"  # hosts and networks the user allows, comma-separated
SUMMARY_HOSTS = 10  # hosts named in the summary at most (those with the most failures first)


CLOSEST_SECONDS = 20.0  # CPU time a run spends looking for the closest words of quotes not found


class WebAnswers(dict):
    """What the web answered, by cited URL, for the engines of one run; and what the run has left
    of its time for W705's closest words (a pass over the page per quote not found: hundreds of
    quotes of one large page would take minutes)."""

    closest_seconds_left: float = CLOSEST_SECONDS


class OnlineUnavailable(Exception):
    """The online extra is not installed."""


@dataclass(frozen=True)
class OnlineRequest:
    """What the command line asks of the online check; every value comes from the user (the
    command line or the environment), never from the checkout's settings."""

    refresh: bool = False
    allow: tuple[str, ...] = ()
    timeout: float | None = None
    time_limit: float | None = None
    max_body: int | None = None  # MiB
    host_concurrency: int | None = None
    host_interval: float | None = None
    max_age: float | None = None
    connect_to: Mapping[tuple[str, int], tuple[str, int]] = field(default_factory=dict)

    def settings(self) -> FetchSettings:
        try:
            from pytest_citations.online.fetch import FetchSettings
        except ImportError:
            raise OnlineUnavailable(MISSING) from None
        given: dict[str, Any] = {name: value for name, value in (
            ("max_body", None if self.max_body is None else self.max_body << 20),
            ("timeout", self.timeout), ("time_limit", self.time_limit), ("host_concurrency", self.host_concurrency),
            ("host_interval", self.host_interval), ("max_age", self.max_age),
        ) if value is not None}
        allowed = tuple(part.strip() for part in os.environ.get(ALLOW_VARIABLE, "").split(",") if part.strip())
        return FetchSettings(allow=(*allowed, *self.allow), refresh=self.refresh, connect_to=dict(self.connect_to), **given)


def wanted(tasks: Iterable[Task]) -> list[Wanted]:
    """What to fetch for ``tasks``: every URL their files cite, with whether a quote needs its text."""
    from pytest_citations.contexts import FileContext
    from pytest_citations.online.fetch import Wanted

    quotes: dict[str, bool] = {}
    for task in tasks:
        for kind in task.kinds:
            if not hasattr(kind, "web_citations"):
                continue
            ctx = FileContext(task.engine, task.rel, kind)
            try:
                for unit in kind.units(ctx):
                    if isinstance(unit, Reported):
                        continue
                    for cited in kind.web_citations(unit, ctx):
                        quotes[cited.url] = quotes.get(cited.url, False) or cited.quote is not None
            except Exception:  # what cannot be read is the check's to report (C00x, C006)
                continue
    return [Wanted(url, text) for url, text in quotes.items()]


def fetch(engine: Engine, tasks: list[Task], request: OnlineRequest, cache_folder: Path | None,
          stream: TextIO | None = None) -> OnlineSummary:
    """Fetch what ``tasks`` cite and give the answers to ``engine`` (and its nested engines, now
    and when they are made), with a progress line on a terminal."""
    settings = request.settings()
    asked = wanted(tasks)
    try:
        from pytest_citations.online.fetch import fetch_all
        from pytest_citations.online.page_text import read_page
    except ImportError:
        raise OnlineUnavailable(MISSING) from None

    progress = OnlineProgress(len(asked), stream)
    try:
        answers = fetch_all(asked, settings, read_page, cache_folder, progress.answered)
    finally:
        progress.close()
    notices = [f"warning: --online-connect-to {host}:{port} matches no cited URL"
               for host, port in settings.connect_to if not any(_origin(w.url) == (host, port) for w in asked)]
    not_checked = sum(answer.outcome == "time-up" for answer in answers.values())
    if not_checked:
        from pytest_citations.online.fetch import duration_phrase

        notices.append(f"warning: the online check's time ({duration_phrase(settings.time_limit)}) was up: {not_checked} of "
                       f"{len(answers)} URLs were not reached (W708); --online-time-limit "
                       "(--citations-online-time-limit under pytest) gives it more")
    unread = sum(answer.text_past_run_limits for answer in answers.values())
    if unread:
        notices.append(f"warning: the quotes of {unread} URLs were not checked: the run held all the page text it allows, "
                       "or their pages were larger than it reads (W708)")
    if _network_unreachable(answers):
        notices.append(f"warning: the network looks unreachable: none of the {len({_host(url) for url in answers})} "
                       "cited hosts answered, so no URL was judged (W708)")
        answers = {url: dataclasses.replace(answer, outcome="unreachable", detail="the network looks unreachable")
                   for url, answer in answers.items()}
    answers = WebAnswers(answers)
    for each in (engine, *engine.nested_engines, *{task.engine for task in tasks}):
        each.web = answers
    return OnlineSummary(answers, notices)


UNREACHABLE_HOSTS = 3  # this many cited hosts, none answering at all, is a network down, not dead pages
_NETWORK_FAILURES = frozenset(("dns", "connect", "timeout", "tls"))


def _network_unreachable(answers: Mapping[str, Answer]) -> bool:
    """Whether no cited host answered at all although several were asked: then the machine has no
    network (a closed CI runner, a proxy it must use), and its URLs are not known to be dead. A
    name the DNS says does not exist is an answer: the network reached the DNS (else three made-up
    names would make every cited URL unjudged)."""
    from pytest_citations.online.fetch import NO_SUCH_HOST

    asked = [answer for answer in answers.values() if answer.outcome not in ("refused-scheme", "refused-address")]
    hosts = {_host(answer.url) for answer in asked}
    return len(hosts) >= UNREACHABLE_HOSTS and all(
        answer.outcome in _NETWORK_FAILURES and answer.detail != NO_SUCH_HOST for answer in asked)


def _origin(url: str) -> tuple[str, int] | None:
    try:
        parts = urlsplit(url)
        return (parts.hostname or "", parts.port or {"http": 80, "https": 443}.get(parts.scheme, 0))
    except ValueError:
        return None


class OnlineProgress:
    """``citations: online: 120 of 10000 URLs, 48 hosts, 3 failed`` on a terminal, at most four
    times a second once the fetch has taken a second; nothing elsewhere."""

    def __init__(self, total: int, stream: TextIO | None = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = self.stream.isatty()
        self.total = total
        self.done = self.failed = 0
        self.hosts: set[str] = set()
        self.started = time.monotonic()
        self.shown_at = 0.0

    def answered(self, answer: Answer) -> None:
        self.done += 1
        self.hosts.add(_host(answer.url))
        if verdict(answer).state is not State.LIVE:
            self.failed += 1
        now = time.monotonic()
        if self.enabled and now - self.started >= 1.0 and now - self.shown_at >= 0.25:
            self.shown_at = now
            self.stream.write(f"\r\x1b[Kcitations: online: {self.done} of {self.total} URLs, "
                              f"{len(self.hosts)} hosts, {self.failed} failed")
            self.stream.flush()

    def close(self) -> None:
        if self.enabled and self.shown_at:
            self.stream.write("\r\x1b[K")
            self.stream.flush()


class OnlineSummary:
    """What the fetch did, per host: for the lines the run prints at its end."""

    def __init__(self, answers: Mapping[str, Answer], notices: list[str] | None = None) -> None:
        self.notices = notices or []  # what the user should know of the fetch (a mapping that matched nothing)
        self.urls = len(answers)
        self.requests = sum(answer.requests for answer in answers.values())
        self.cached = sum(answer.from_cache for answer in answers.values())
        self.by_host: dict[str, Counter[str]] = {}
        for answer in answers.values():
            counts = self.by_host.setdefault(_host(answer.url), Counter())
            counts["urls"] += 1
            counts["requests"] += answer.requests
            counts[verdict(answer).state.value] += 1

    def lines(self) -> list[str]:
        """``online: 10000 URLs on 50 hosts, 9950 requests, 50 from the cache`` and a line per host
        with URLs that are not live, the worst first, at most :data:`SUMMARY_HOSTS`."""
        from pytest_citations.core.diagnostics import clipped
        from pytest_citations.frontends.reporters._common import safe
        from pytest_citations.frontends.reporters.ci_log import defuse_text

        lines = [f"online: {self.urls} URL{'s' if self.urls != 1 else ''} on {len(self.by_host)} "
                 f"host{'s' if len(self.by_host) != 1 else ''}, {self.requests} request{'s' if self.requests != 1 else ''}, "
                 f"{self.cached} from the cache"]
        troubled = sorted(((host, counts) for host, counts in self.by_host.items() if counts["live"] < counts["urls"]),
                          key=lambda item: (item[1]["live"] - item[1]["urls"], item[0]))
        for host, counts in troubled[:SUMMARY_HOSTS]:
            states = ", ".join(f"{counts[state.value]} {state.value}" for state in State if counts[state.value])
            urls, requests = counts["urls"], counts["requests"]
            lines.append(defuse_text(f"online:   {safe(clipped(host, 100))}: {urls} URL{'s' if urls != 1 else ''} ({states}), "
                                     f"{requests} request{'s' if requests != 1 else ''}"))
        if len(troubled) > SUMMARY_HOSTS:
            lines.append(f"online:   and {len(troubled) - SUMMARY_HOSTS} more hosts with URLs that are not live")
        return lines


def _host(url: str) -> str:
    """The host and port of ``url`` as the summary counts them (``news.example.`` is ``news.example``)."""
    try:
        netloc = urlsplit(url).netloc.rpartition("@")[2].lower()
    except ValueError:
        return "(no host)"
    return _TRAILING_DOT.sub("", netloc) or "(no host)"


_TRAILING_DOT = re.compile(r"\.(?=(?::\d*)?\Z)")

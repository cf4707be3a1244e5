"""The fetch layer of the online check: one :class:`Answer` for every URL that artifacts cite.

:func:`fetch_all` fetches each distinct URL once with aiohttp, in an event loop of its own run in
a thread of its own, and returns when all are answered. What it promises, since the URLs come
from an untrusted checkout and the answers from servers anyone may run:

- Only ``http`` and ``https`` are fetched; no socket is opened for anything else.
- No connection goes to a private, loopback, link-local or otherwise non-global address, before or
  after DNS, on the first request or after a redirect, unless ``FetchSettings.allow`` names it
  (:mod:`pytest_citations.online.addresses`). Proxies and other settings of the environment are
  not used, and no cookie is kept.
- Politeness: at most ``host_concurrency`` requests in flight per site (scheme, host, port) and
  ``host_interval`` seconds between the starts of two of them, ``total_concurrency`` in all;
  robots.txt is obeyed (:mod:`pytest_citations.online.robots`); a 429 or 503 with a Retry-After
  holds that site back that long; connection errors, timeouts and 5xx are retried with exponential
  backoff and jitter, ``retries`` times at most.
- Bounded: each attempt (connecting, the headers, the whole body) within ``timeout`` seconds (and
  its name's lookup within as many, once one of the run's lookup slots is free), and
  the whole run within ``time_limit``; a body (decompressed) read up to ``max_body`` bytes;
  redirects followed by hand, each hop checked again, at most ``max_redirects``; at most
  :data:`BODIES_HELD` bodies held at once; a server's headers are limited by aiohttp's parser.
  Anything unexpected while fetching one URL becomes its answer (outcome ``connect``, the
  exception's type in the detail); the others go on.
- Answers that will not change soon (a response that is not 429 or 5xx, a redirect loop) are kept
  in the response cache (:mod:`pytest_citations.online.response_cache`) and given again for
  ``max_age`` seconds without a request; after that, one with an ETag or Last-Modified is
  revalidated.

``final_url`` is the URL at which an answer's chain of redirects ended: the last ``Location`` of
``redirects`` (followed or refused), else the URL asked; ``status`` is the status of the response
from ``final_url`` (None when it gave none).
"""

from __future__ import annotations

import asyncio
import contextlib
import email.utils
import http
import json
import random
import socket
import ssl
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import aiohttp
from multidict import CIMultiDictProxy
from yarl import URL

from pytest_citations import __version__
from pytest_citations.online import robots
from pytest_citations.online.addresses import (
    LOOKUPS_AT_ONCE,
    AddressPolicy,
    AddressRefused,
    GuardedResolver,
    is_host_name,
    literal_address,
    normal_host,
)
from pytest_citations.online.response_cache import ResponseCache

if TYPE_CHECKING:
    from pytest_citations.online.page_text import PageText

OUTCOMES = ("ok", "dns", "connect", "tls", "timeout", "refused-scheme", "refused-address", "robots",
            "redirect-loop", "too-many-redirects", "retry-after", "time-up", "malformed")
USER_AGENT = f"pytest-citations/{__version__} (citation checker)"
ACCEPT = "text/html,application/xhtml+xml,application/pdf;q=0.9,text/plain;q=0.8,*/*;q=0.5"
REDIRECTS = frozenset({301, 302, 303, 307, 308})
WAIT_STATUSES = frozenset({429, 503})  # the statuses a Retry-After asks to wait after
CACHED_OUTCOMES = frozenset({"ok", "redirect-loop", "too-many-redirects"})
NO_SUCH_HOST = "no such host"  # the detail of a name the DNS says does not exist
_READ_CHUNK = 1 << 16
HEADER_LINE_BYTES = 16 << 10
_PAGE_WORKERS = 2
_NO_SUCH_HOST = {socket.EAI_NONAME, getattr(socket, "EAI_NODATA", socket.EAI_NONAME)}


@dataclass(frozen=True)
class FetchSettings:
    host_concurrency: int = 2  # requests in flight per site (scheme, host, port)
    host_interval: float = 0.1  # seconds between the starts of two requests to one site
    total_concurrency: int = 64
    timeout: float = 10.0  # per attempt: connecting, the headers and the whole body
    max_body: int = 5 * 2**20  # bytes of a body read at most; more: Answer.truncated
    max_redirects: int = 10
    retries: int = 2  # further attempts after a connection error, a timeout, a 5xx or a 429
    max_retry_after: float = 30.0  # a longer Retry-After is not waited for (outcome "retry-after")
    user_agent: str = USER_AGENT
    # host names, addresses or networks (CIDR) that may be fetched although they are not global
    allow: tuple[str, ...] = ()
    # (host, port) asked -> (host, port) connected to, like curl's --connect-to: the URL and its Host
    # header stay as asked; the address connected to still passes the guard (an address in ``allow``)
    connect_to: Mapping[tuple[str, int], tuple[str, int]] = field(default_factory=dict)
    max_age: float = 86400.0  # seconds a cached answer is fresh
    refresh: bool = False  # ignore cached answers (still write new ones)
    robots: bool = True
    backoff: float = 0.5  # seconds before the first retry; doubled for each further one (with jitter)
    # seconds a run fetches at most (wall time): a checkout may cite thousands of URLs of a host that
    # asks to wait or never answers; what is not answered by then is "time-up", not checked
    time_limit: float = 300.0


@dataclass(frozen=True)
class Wanted:
    url: str
    text: bool  # the page's text is needed (a quote is checked against it)


@dataclass(frozen=True)
class Answer:
    url: str  # as asked
    outcome: str  # one of OUTCOMES
    status: int | None  # HTTP status of the response from final_url (None when it gave none)
    redirects: tuple[tuple[int, str], ...]  # (status, absolute Location) of each redirect met, in order
    final_url: str  # where the chain ended (the last Location, else url)
    detail: str  # a short phrase: "404 Not Found", "connection refused", "timed out after 10 s", ...
    content_type: str | None
    text: str | None  # the page's text, from the page hook
    wall: str | None  # what the page hook says blocks the page (a paywall or interstitial), else None
    truncated: bool  # the body was longer than max_body
    fetched_at: float  # epoch seconds of the answer (of the original fetch when from the cache)
    from_cache: bool
    requests: int  # HTTP requests this answer cost in this run (robots.txt not counted)
    etag: str | None = None
    last_modified: str | None = None
    # the page's text was wanted and the page answered, but a limit of the run, not the page, left
    # it unread: the run could not hold it (MAX_RUN_TEXT characters at most), or the body was cut
    # at max_body and its first part gives no text (a PDF, whose table of objects is at its end)
    text_past_run_limits: bool = False


# page(body, content_type, wants_text) -> what the page says (its text when wanted, a wall, why
# there is no text or only part of it: page_text.PageText), for every final response with a body
# Characters of page text a run's answers hold at most (each page's text is kept for its quotes
# until the rules have run: 256 pages of 5 MiB would be more than a gigabyte).
MAX_RUN_TEXT = 64 << 20

# Bodies a run reads and holds at once (each up to max_body, until the page hook is done with it):
# 64 requests in flight to pages of 5 MiB held 645 MB.
BODIES_HELD = 8

def _over_run_text() -> str:
    """Why a page's text is left out once the run holds all it may."""
    return f"the run already holds {MAX_RUN_TEXT >> 20} Mi characters of page text"


Page = Callable[[bytes, str | None, bool], "PageText"]


def fetch_all(wanted: Iterable[Wanted], settings: FetchSettings, page: Page,
              cache_folder: Path | None = None,
              progress: Callable[[Answer], None] | None = None) -> dict[str, Answer]:
    """One Answer per distinct URL (text wanted when any Wanted of that URL wants it).

    Runs its own asyncio event loop in a thread of its own (so it works under pytest and when the
    caller runs a loop itself) and returns when all are answered. ``progress`` is called once per
    answer as it is made, in that thread; an exception it raises ends the run and is raised here.
    ``page`` runs in a small pool of worker threads."""
    wants: dict[str, bool] = {}
    for item in wanted:
        wants[item.url] = wants.get(item.url, False) or item.text
    run = _Run(settings, page, ResponseCache(cache_folder), progress)
    return run.in_a_thread(wants)


class _TimeUp(Exception):
    """The run's time limit (FetchSettings.time_limit) has passed."""


def duration_phrase(seconds: float) -> str:
    """``300`` as "5 min", ``90`` as "90 s", ``7200`` as "2 h"."""
    for unit, size in (("h", 3600), ("min", 60)):
        if seconds >= size and seconds % size == 0:
            return f"{int(seconds // size)} {unit}"
    return f"{seconds:g} s"


@dataclass
class _Failure:
    """The end of a chain without a usable response."""

    outcome: str
    detail: str
    definitive: bool = False  # worth keeping in the cache (a host that does not exist)
    status: int | None = None


@dataclass
class _Reply:
    """What the checker keeps of one response."""

    status: int
    location: str | None
    retry_after: str | None
    content_type: str | None
    etag: str | None
    last_modified: str | None
    body: bytes | None = None  # read only from a response that ends the chain
    truncated: bool = False
    text: str | None = None
    wall: str | None = None
    page_failed: str | None = None  # the type of the exception the page hook raised
    unread: str | None = None  # why the page gives no text, or only its first part
    text_past_run_limits: bool = False  # (Answer.text_past_run_limits)


@dataclass
class _Chain:
    """One URL's way through redirects: what the answer reports about it."""

    url: str
    wants_text: bool
    redirects: list[tuple[int, str]] = field(default_factory=list)
    final_url: str = ""
    requests: int = 0

    def __post_init__(self) -> None:
        self.final_url = self.url

    def kept(self, definitive: bool) -> bool | None:
        """How the cache keeps this chain's answer: None (not at all), else whether the answer's
        text serves a Wanted with text (the page hook was asked for it)."""
        return self.wants_text if definitive else None

    def answer(self, outcome: str, detail: str, status: int | None = None, reply: _Reply | None = None) -> Answer:
        return Answer(
            url=self.url, outcome=outcome, status=status, redirects=tuple(self.redirects), final_url=self.final_url,
            detail=detail, content_type=None if reply is None else reply.content_type,
            text=None if reply is None else reply.text, wall=None if reply is None else reply.wall,
            truncated=reply is not None and reply.truncated, fetched_at=time.time(), from_cache=False,
            requests=self.requests, etag=None if reply is None else reply.etag,
            last_modified=None if reply is None else reply.last_modified,
            text_past_run_limits=reply is not None and reply.text_past_run_limits)


def reach_of(settings: FetchSettings) -> str:
    """What a run with ``settings`` may reach besides the public web (its allowances and mappings),
    and how much of a page it reads, as its cache entries record it."""
    return json.dumps([sorted(settings.allow), sorted(map(list, settings.connect_to.items())), settings.max_body])


def status_phrase(status: int) -> str:
    """``404 Not Found``: the standard reason phrase, never the server's own."""
    try:
        return f"{status} {http.HTTPStatus(status).phrase}"
    except ValueError:
        return str(status)


def retry_after_seconds(value: str | None, now: float) -> float | None:
    """The seconds a Retry-After header asks to wait (delay-seconds or an HTTP-date); None when
    absent or unreadable."""
    if value is None:
        return None
    value = value.strip()
    if value.isdigit() and value.isascii():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if when.tzinfo is None:
        return None
    return max(0.0, when.timestamp() - now)


class _SiteGate:
    """The politeness of one site: at most ``concurrency`` requests in flight, ``interval``
    seconds between two starts, and none before a time a Retry-After named."""

    def __init__(self, concurrency: int, interval: float) -> None:
        self._slots = asyncio.Semaphore(max(1, concurrency))
        self._interval = interval
        self._next_start = 0.0
        self._held_until = 0.0

    async def __aenter__(self) -> None:
        await self._slots.acquire()
        try:
            loop = asyncio.get_running_loop()
            while (wait := max(self._next_start, self._held_until) - loop.time()) > 0:
                await asyncio.sleep(wait)
            self._next_start = loop.time() + self._interval
        except BaseException:
            self._slots.release()
            raise

    async def __aexit__(self, *exc_info: object) -> None:
        self._slots.release()

    def hold(self, seconds: float) -> None:
        self._held_until = max(self._held_until, asyncio.get_running_loop().time() + seconds)


class _Run:
    """One call of :func:`fetch_all`."""

    def __init__(self, settings: FetchSettings, page: Page, cache: ResponseCache,
                 progress: Callable[[Answer], None] | None) -> None:
        self.settings = settings
        self.page = page
        self.cache = cache
        self.progress = progress
        self.policy = AddressPolicy(settings.allow)
        self.resolver: GuardedResolver
        # What this run may reach besides the public web: an answer kept under other allowances or
        # mappings is not this run's (it would answer for a host this run refuses or reaches elsewhere).
        self.reach = reach_of(settings)
        self._text_held = 0  # characters of page text the run's answers hold
        self.now = time.time()
        self._gates: dict[str, _SiteGate] = {}
        self._robots: dict[str, asyncio.Task[robots.Rules | _Failure]] = {}
        # (host name, port) -> its answer, once a lookup said so (by port: --online-connect-to may
        # send one port of a name to a server and leave the others to DNS)
        self._no_such_host: dict[tuple[str, int | None], _Failure] = {}
        self._total = asyncio.Semaphore(max(1, settings.total_concurrency))
        self._bodies = asyncio.Semaphore(BODIES_HELD)
        self._loop_task: asyncio.Task[dict[str, Answer]] | None = None
        self.session: aiohttp.ClientSession
        self.pool: ThreadPoolExecutor

    # -- the thread and the loop ---------------------------------------------------------------

    def in_a_thread(self, wants: dict[str, bool]) -> dict[str, Answer]:
        outcome: dict[str, Any] = {}

        def work() -> None:
            try:
                outcome["answers"] = asyncio.run(self._main(wants))
            except BaseException as exc:  # raised again in the caller's thread
                outcome["error"] = exc

        thread = threading.Thread(target=work, name="citations-fetch", daemon=True)
        thread.start()
        try:
            thread.join()
        except BaseException:  # (Ctrl-C in the caller's thread) stop the run, then let it through
            self._cancel()
            thread.join(5)
            raise
        if "error" in outcome:
            raise outcome["error"]
        return outcome["answers"]

    def _cancel(self) -> None:
        task = self._loop_task
        if task is not None:
            with contextlib.suppress(RuntimeError):
                task.get_loop().call_soon_threadsafe(task.cancel)

    async def _main(self, wants: dict[str, bool]) -> dict[str, Answer]:
        self._loop_task = asyncio.current_task()
        # (the name lookups run in the loop's default executor: one thread per lookup slot)
        asyncio.get_running_loop().set_default_executor(
            ThreadPoolExecutor(max_workers=LOOKUPS_AT_ONCE, thread_name_prefix="citations-dns"))
        answers: dict[str, Answer] = {}
        pool = ThreadPoolExecutor(max_workers=_PAGE_WORKERS, thread_name_prefix="citations-page")
        try:
            async with self._session() as session:
                self.session = session
                self.pool = pool
                await self._answer_all(wants, answers)
        finally:
            pool.shutdown(wait=False, cancel_futures=True)
        self.cache.save(time.time())
        return answers

    def _session(self) -> aiohttp.ClientSession:
        settings = self.settings
        self.resolver = GuardedResolver(self.policy, settings.connect_to)
        connector = aiohttp.TCPConnector(
            limit=max(1, settings.total_concurrency), limit_per_host=max(1, settings.host_concurrency),
            resolver=self.resolver, ttl_dns_cache=60)
        return aiohttp.ClientSession(
            connector=connector, cookie_jar=aiohttp.DummyCookieJar(), trust_env=False, auto_decompress=True,
            headers={"User-Agent": settings.user_agent, "Accept": ACCEPT},
            # a header line of up to 16 KiB, as real sites send (a long Content-Security-Policy):
            # aiohttp's 8 KiB would make such a page unreadable
            max_line_size=HEADER_LINE_BYTES, max_field_size=HEADER_LINE_BYTES,
            # (each attempt's time is bounded by _request; a total here would count a body's wait for its permit)
            timeout=aiohttp.ClientTimeout(total=None, sock_connect=settings.timeout))

    async def _answer_all(self, wants: dict[str, bool], answers: dict[str, Answer]) -> None:
        """Answer from the cache what it holds fresh, then fetch the rest, a window at a time
        (the sites taken in turn, so that one site with many URLs does not hold the others up)."""
        stale: dict[str, dict[str, Any]] = {}
        for url, entry in ([] if self.settings.refresh else self.cache.answers(wants)):
            answer = self._cached(url, entry, wants[url])
            if answer is not None:
                self._record(answers, self._held(answer), None)
            elif self._revalidates(entry, wants[url]):
                stale[url] = entry
        window = max(64, 2 * self.settings.total_concurrency)
        deadline = asyncio.get_running_loop().time() + self.settings.time_limit
        pending: set[asyncio.Task[tuple[Answer, bool | None]]] = set()
        try:
            for url in _taking_sites_in_turn(url for url in wants if url not in answers):
                if len(pending) >= window:
                    await self._collect(pending, answers, deadline)
                pending.add(asyncio.ensure_future(self._answer(url, wants[url], stale.get(url))))
            while pending:
                await self._collect(pending, answers, deadline)
        except _TimeUp:
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
            detail = f"the online check's time for a run ({duration_phrase(self.settings.time_limit)}) was up"
            for url in wants:
                if url not in answers:
                    self._record(answers, _Chain(url, wants[url]).answer("time-up", detail), None)

    async def _collect(self, pending: set[asyncio.Task[tuple[Answer, bool | None]]],
                       answers: dict[str, Answer], deadline: float) -> None:
        """Take the answers of the tasks of ``pending`` that end first (removed from it); raise
        _TimeUp once ``deadline`` has passed."""
        loop = asyncio.get_running_loop()
        done, _ = await asyncio.wait(pending, timeout=max(0.0, deadline - loop.time()), return_when=asyncio.FIRST_COMPLETED)
        for task in done:
            pending.discard(task)
            answer, keep = task.result()
            self._record(answers, answer, keep)
        if loop.time() >= deadline:
            raise _TimeUp

    def _record(self, answers: dict[str, Answer], answer: Answer, kept: bool | None) -> None:
        """Take ``answer``, and keep it in the cache unless ``kept`` is None (see
        :meth:`_Chain.kept`; None for an answer from the cache)."""
        answers[answer.url] = answer
        if kept is not None:
            self.cache.keep_answer(answer.url, {**_entry(answer, wanted_text=kept), "reach": self.reach})
        if self.progress is not None:
            self.progress(answer)

    def _held(self, answer: Answer) -> Answer:
        """``answer`` from the cache as the run may hold it: its text counted against
        :data:`MAX_RUN_TEXT` as a fetched page's is (the cache may hold the text of many earlier
        runs), and left out, as a limit of the run, past it."""
        if answer.text is None or self._holds(answer.text):
            return answer
        return replace(answer, text=None, text_past_run_limits=True, detail=f"{answer.detail}; {_over_run_text()}")

    def _holds(self, text: str) -> bool:
        """Whether the run may hold ``text`` besides the page text it holds (counted when so):
        :data:`MAX_RUN_TEXT` in all. (Only the loop's thread counts: no lock is needed.)"""
        if self._text_held + len(text) > MAX_RUN_TEXT:
            return False
        self._text_held += len(text)
        return True

    # -- the cache -----------------------------------------------------------------------------

    def _cached(self, url: str, entry: dict[str, Any], wants_text: bool) -> Answer | None:
        """The answer ``entry`` gives, when it is fresh and has what is wanted."""
        age = self.now - entry["fetched_at"]
        if not (0 <= age < self.settings.max_age) or entry["outcome"] not in CACHED_OUTCOMES or not self._reaches(entry):
            return None
        if wants_text and entry["outcome"] == "ok" and not entry["wanted_text"]:
            return None
        return _answer_of(url, entry, entry["fetched_at"], requests=0)

    def _reaches(self, entry: dict[str, Any]) -> bool:
        """Whether ``entry`` was kept by a run that could reach what this one can (and no more)."""
        return entry.get("reach", "") == self.reach

    def _revalidates(self, entry: dict[str, Any], wants_text: bool) -> bool:
        return (self._reaches(entry) and entry["outcome"] == "ok" and (entry["etag"] is not None or entry["last_modified"] is not None)
                and (entry["wanted_text"] or not wants_text))

    # -- one URL -------------------------------------------------------------------------------

    async def _answer(self, url: str, wants_text: bool, stale: dict[str, Any] | None) -> tuple[Answer, bool | None]:
        """The answer for ``url``, and how the cache keeps it (:meth:`_Chain.kept`); never raises
        (but for cancellation)."""
        chain = _Chain(url, wants_text)
        try:
            return await self._follow(chain, stale)
        except Exception as exc:  # one URL's surprise is its answer; the run goes on
            return chain.answer("connect", f"unexpected {type(exc).__name__} while fetching"), None

    async def _follow(self, chain: _Chain, stale: dict[str, Any] | None) -> tuple[Answer, bool | None]:
        try:
            url = URL(chain.url)
        except (ValueError, TypeError):
            return chain.answer("refused-scheme", "refused: not a valid URL"), None
        seen = {_visited(url)}
        while True:
            checked = self._checked(url, redirected=bool(chain.redirects))
            if isinstance(checked, _Failure):
                return chain.answer(checked.outcome, checked.detail), None
            url = checked
            if self.settings.robots:
                blocked = await self._robots_block(url)
                if blocked is not None:
                    return chain.answer(blocked.outcome, blocked.detail, blocked.status), chain.kept(_kept(blocked))
            conditional = _conditional_headers(stale) if stale is not None and chain.final_url == stale["final_url"] else {}
            result = await self._attempts(url, conditional, self.settings.max_body, chain)
            if isinstance(result, _Failure):
                return chain.answer(result.outcome, result.detail, result.status), chain.kept(_kept(result))
            if result.status == 304 and conditional and stale is not None:
                renewed = _answer_of(chain.url, stale, time.time(), requests=chain.requests)
                return self._held(replace(renewed, redirects=tuple(chain.redirects))), stale["wanted_text"]
            if result.status not in REDIRECTS or result.location is None:
                return self._final(chain, result)
            try:
                target = url.join(URL(result.location))
            except (ValueError, TypeError):
                detail = f"{status_phrase(result.status)} with an invalid Location"
                return chain.answer("ok", detail, result.status, result), chain.kept(True)
            chain.redirects.append((result.status, str(target)))
            chain.final_url = str(target)
            if len(chain.redirects) > self.settings.max_redirects:
                detail = f"more than {self.settings.max_redirects} redirects"
                return chain.answer("too-many-redirects", detail), chain.kept(True)
            if _visited(target) in seen:
                detail = "the redirects lead back to a URL already visited"
                return chain.answer("redirect-loop", detail), chain.kept(True)
            seen.add(_visited(target))
            url = target

    def _final(self, chain: _Chain, reply: _Reply) -> tuple[Answer, bool | None]:
        detail = status_phrase(reply.status)
        if reply.page_failed is not None:
            detail += f"; the page's text could not be read ({reply.page_failed})"
        elif reply.unread is not None:
            detail += f"; {reply.unread}"
        # (a text wanted but not read may be read another day: the pdf extra installed, say)
        definitive = (reply.status != 429 and reply.status < 500 and reply.page_failed is None
                      and not (chain.wants_text and reply.text is None and reply.unread is not None))
        return chain.answer("ok", detail, reply.status, reply), chain.kept(definitive)

    def _checked(self, url: URL, redirected: bool) -> URL | _Failure:
        """``url`` as it may be requested (without credentials, an address in its usual
        spelling), or why it may not be."""
        if url.scheme not in ("http", "https"):
            named = f"a {url.scheme}: URL" if url.scheme else "a URL without a scheme"
            return _Failure("refused-scheme", f"refused: {'a redirect to ' if redirected else ''}{named} is not fetched")
        host = url.raw_host
        if not host:
            return _Failure("refused-scheme", "refused: the URL names no host")
        refused = self.policy.refusal_of_host(host)
        if refused is not None:
            return _Failure("refused-address", refused)
        if url.user is not None or url.password is not None:
            url = url.with_user(None)
        address = literal_address(host)
        if address is not None:
            return url.with_host(str(address)) if address.version == 4 else url
        if not is_host_name(host):
            return _Failure("dns", "not a valid host name", definitive=True)
        return url

    # -- requests ------------------------------------------------------------------------------

    async def _attempts(self, url: URL, headers: dict[str, str], limit: int, chain: _Chain,
                        page: bool = True) -> _Reply | _Failure:
        """The response from ``url`` after the retries its answers call for."""
        settings = self.settings
        attempts = 1 + max(0, settings.retries)
        host = (normal_host(url.raw_host or ""), url.port)
        if host in self._no_such_host:
            return self._no_such_host[host]
        for attempt in range(attempts):
            last = attempt == attempts - 1
            chain.requests += 1
            result = await self._request(url, headers, limit, chain.wants_text if page else None, last)
            if isinstance(result, _Failure):
                if result.outcome == "dns" and result.definitive:
                    self._no_such_host[host] = result  # the run's other URLs on it need no lookup
                if last or not _retried(result):
                    return result
            elif result.status in WAIT_STATUSES:
                delay = retry_after_seconds(result.retry_after, time.time())
                if delay is not None and delay > settings.max_retry_after:
                    return _Failure("retry-after", f"{status_phrase(result.status)}: asked to wait {delay:g} s, more "
                                    f"than {settings.max_retry_after:g} s", status=result.status)
                if last:
                    return _Failure("retry-after", f"{status_phrase(result.status)} after {attempts} attempts",
                                    status=result.status)
                if delay is not None:
                    self._gate(url).hold(delay)
                    continue
            elif result.status < 500 or last:
                return result
            await asyncio.sleep(settings.backoff * 2**attempt * random.uniform(0.5, 1.5))
        raise AssertionError("unreachable: the last attempt returns")

    async def _request(self, url: URL, headers: dict[str, str], limit: int, wants_text: bool | None,
                       last: bool) -> _Reply | _Failure:
        """One request through the site's gate and the run's limit, within the timeout; the
        body read (and given to the page hook unless ``wants_text`` is None) when the response
        ends the chain. A body is read under one of the run's :data:`BODIES_HELD` permits, held
        until the page hook is done with it; the wait for a permit is no part of the attempt's
        time (a run of large pages would otherwise time out for want of memory, not of a server)."""
        async with self._gate(url), self._total:
            try:  # (the name first, in a lookup slot whose wait is no part of any time limit)
                await self.resolver.look_up(url.raw_host or "", url.port or 0, self.settings.timeout)
            except asyncio.TimeoutError:
                return _Failure("timeout", f"the name was not looked up within {self.settings.timeout:g} s")
            loop = asyncio.get_running_loop()
            started = loop.time()
            try:
                response = await asyncio.wait_for(self.session.get(url, headers=headers, allow_redirects=False),
                                                  self.settings.timeout)
            except asyncio.TimeoutError:
                return _Failure("timeout", f"timed out after {self.settings.timeout:g} s")
            except Exception as exc:
                return _failure_of(exc)
            with contextlib.closing(response):  # (a connection read to its end is released before)
                reply = _reply_of(response.status, response.headers)
                if not _ends_chain(reply, last):
                    return reply
                headers_seconds = loop.time() - started
                async with self._bodies:
                    left = max(0.0, self.settings.timeout - headers_seconds)
                    try:
                        reply.body, reply.truncated = await asyncio.wait_for(_read_capped(response.content, limit), left)
                    except asyncio.TimeoutError:
                        return _Failure("timeout", f"timed out after {self.settings.timeout:g} s")
                    except Exception as exc:
                        return _failure_of(exc)
                    if not reply.truncated:
                        response.release()  # (the connection serves the site's next request)
                    if reply.body and wants_text is not None:
                        await self._read_page(reply, wants_text)
                    return reply

    async def _read_page(self, reply: _Reply, wants_text: bool) -> None:
        body, reply.body = reply.body, None
        assert body is not None
        loop = asyncio.get_running_loop()
        try:
            read = await loop.run_in_executor(self.pool, self.page, body, reply.content_type, wants_text)
            reply.text, reply.wall, reply.unread = read.text, read.wall, read.unread or read.partial
            if wants_text and reply.text is None and read.limited:
                reply.text_past_run_limits = True  # (the checker's limits or means left it unread)
            if wants_text and reply.text is None and reply.truncated and read.unread is not None:
                # (the first part of a page gives no text, as of a PDF whose table of objects is at its end)
                reply.unread = (f"{read.unread}: only its first {self.settings.max_body >> 20} MiB were read "
                                "(--online-max-body)")
                reply.text_past_run_limits = True
            if reply.text is not None and not self._holds(reply.text):
                reply.text, reply.unread, reply.text_past_run_limits = None, _over_run_text(), True
            reply.truncated = reply.truncated or read.partial is not None
        except Exception as exc:
            reply.page_failed = type(exc).__name__

    def _gate(self, url: URL) -> _SiteGate:
        site = _site(url)
        gate = self._gates.get(site)
        if gate is None:
            gate = self._gates[site] = _SiteGate(self.settings.host_concurrency, self.settings.host_interval)
        return gate

    # -- robots.txt ----------------------------------------------------------------------------

    async def _robots_block(self, url: URL) -> _Failure | None:
        """Why robots.txt keeps the checker from ``url`` (a failure to reach its site is the
        answer for the URL too), or None."""
        site = _site(url)
        task = self._robots.get(site)
        if task is None:
            task = self._robots[site] = asyncio.ensure_future(self._site_rules(url))
        rules = await asyncio.shield(task)
        if isinstance(rules, _Failure):
            return rules
        if rules.allows(str(url), self.settings.user_agent):
            return None
        return _Failure("robots", f"robots.txt disallows {robots.disallowed_path(url)}")

    async def _site_rules(self, url: URL) -> robots.Rules | _Failure:
        site = _site(url)
        entry = None if self.settings.refresh else self.cache.robots(site)
        if entry is not None and 0 <= self.now - entry["fetched_at"] < self.settings.max_age and self._reaches(entry):
            return robots.Rules(entry["text"])
        try:
            result = await self._fetch_robots(robots.robots_url(url))
        except Exception as exc:
            return _Failure("connect", f"unexpected {type(exc).__name__} while fetching robots.txt")
        if isinstance(result, robots.Rules):
            self.cache.keep_robots(site, {"fetched_at": time.time(), "text": result.text, "reach": self.reach})
        return result

    async def _fetch_robots(self, url: URL) -> robots.Rules | _Failure:
        chain = _Chain(str(url), False)
        seen = {_visited(url)}
        for hop in range(robots.MAX_REDIRECTS + 1):
            result = await self._attempts(url, {}, robots.MAX_SIZE, chain, page=False)
            if isinstance(result, _Failure):
                if result.outcome == "retry-after":
                    return _robots_unavailable(result.status or 503)
                # the site itself cannot be reached: that is the cited URL's answer too; a
                # redirect elsewhere that cannot be followed leaves robots.txt unavailable
                return result if hop == 0 else robots.Rules(None)
            if result.status in REDIRECTS and result.location is not None:
                try:
                    target = url.join(URL(result.location))
                except (ValueError, TypeError):
                    return robots.Rules(None)
                checked = self._checked(target, redirected=True)
                if isinstance(checked, _Failure) or _visited(checked) in seen:
                    return robots.Rules(None)  # unavailable: everything allowed
                seen.add(_visited(checked))
                url = checked
                continue
            if 200 <= result.status < 300:
                return robots.Rules.from_body(result.body or b"")
            if result.status == 429 or result.status >= 500:
                return _robots_unavailable(result.status)
            return robots.Rules(None)
        return robots.Rules(None)


def _kept(failure: _Failure) -> bool:
    """Whether the cache keeps the answer a failure gives: a definitive one, but a host that does
    not exist (met by the URL or by its site's robots.txt), which is not kept past the run: a name
    may come to exist, and a machine without DNS (a closed network, a typo in --online-connect-to)
    would keep every URL dead for a day."""
    return failure.definitive and failure.outcome != "dns"


def _robots_unavailable(status: int) -> _Failure:
    return _Failure("robots", f"robots.txt answered {status_phrase(status)}: the site is taken as disallowing "
                    "everything for now (RFC 9309)", status=None)


def _retried(failure: _Failure) -> bool:
    """Whether a failure may pass on a second attempt (not a refusal, a bad certificate or a
    host that does not exist)."""
    return failure.outcome in ("connect", "timeout") or (failure.outcome == "dns" and not failure.definitive)


def _ends_chain(reply: _Reply, last: bool) -> bool:
    """Whether a response's body is read: it is the last of its chain (not a redirect followed,
    not an answer retried) and not a 429 or 503 (whose answer is "retry-after", body or not)."""
    if reply.status in REDIRECTS and reply.location is not None or reply.status in WAIT_STATUSES:
        return False
    return reply.status < 500 or last


def _reply_of(status: int, headers: CIMultiDictProxy[str]) -> _Reply:
    return _Reply(status=status, location=headers.get("Location"), retry_after=headers.get("Retry-After"),
                  content_type=headers.get("Content-Type"), etag=headers.get("ETag"),
                  last_modified=headers.get("Last-Modified"))


async def _read_capped(content: aiohttp.StreamReader, limit: int) -> tuple[bytes, bool]:
    """At most ``limit`` bytes of a body (decompressed), and whether there was more."""
    parts: list[bytes] = []
    size = 0
    while size < limit:
        chunk = await content.read(min(_READ_CHUNK, limit - size))
        if not chunk:
            return b"".join(parts), False
        parts.append(chunk)
        size += len(chunk)
    more = await content.read(1)
    return b"".join(parts), bool(more)


def _failure_of(exc: Exception) -> _Failure:
    """The outcome and phrase of an exception raised while connecting or reading a response."""
    if isinstance(exc, aiohttp.ClientConnectorCertificateError):
        return _Failure("tls", f"TLS certificate not accepted ({_tls_reason(exc.certificate_error)})")
    if isinstance(exc, (aiohttp.ClientSSLError, ssl.SSLError)):
        return _Failure("tls", f"TLS handshake failed ({_tls_reason(exc)})")
    if isinstance(exc, aiohttp.ClientConnectorError):
        return _connector_failure(exc.os_error)
    if isinstance(exc, aiohttp.ServerDisconnectedError):
        return _Failure("connect", "the server closed the connection without an answer")
    if isinstance(exc, aiohttp.ClientPayloadError):
        return _Failure("connect", "the response broke off")
    if isinstance(exc, aiohttp.ClientResponseError):  # (a browser may still read it: not dead, not known)
        return _Failure("malformed", "the server's answer is not HTTP this check can read")
    if isinstance(exc, ConnectionResetError):
        return _Failure("connect", "connection reset")
    if isinstance(exc, OSError):
        return _Failure("connect", f"connection failed ({exc.strerror or type(exc).__name__})")
    return _Failure("connect", f"unexpected {type(exc).__name__} while fetching")


def _connector_failure(error: OSError) -> _Failure:
    if isinstance(error, AddressRefused):
        return _Failure("refused-address", error.detail)
    if isinstance(error, socket.gaierror):
        if error.errno in _NO_SUCH_HOST:
            return _Failure("dns", NO_SUCH_HOST, definitive=True)
        return _Failure("dns", "the host name could not be resolved for now")
    if isinstance(error, ssl.SSLError):
        return _Failure("tls", f"TLS handshake failed ({_tls_reason(error)})")
    if isinstance(error, ConnectionRefusedError):
        return _Failure("connect", "connection refused")
    if isinstance(error, (TimeoutError, asyncio.TimeoutError)):
        return _Failure("timeout", "timed out while connecting")
    return _Failure("connect", f"cannot connect ({error.strerror or type(error).__name__})")


def _tls_reason(error: BaseException) -> str:
    reason = getattr(error, "verify_message", None) or getattr(error, "reason", None)
    return str(reason) if reason else type(error).__name__


def _site(url: URL) -> str:
    """``scheme://host:port``: what the politeness limits and robots.txt are kept per (a fully
    qualified name's trailing dot and the case of its letters make no other site)."""
    return f"{url.scheme}://{normal_host(url.raw_host or '')}:{url.port}"


def _visited(url: URL) -> str:
    return str(url.with_fragment(None))


def _conditional_headers(entry: dict[str, Any]) -> dict[str, str]:
    headers = {}
    if entry["etag"] is not None:
        headers["If-None-Match"] = entry["etag"]
    if entry["last_modified"] is not None:
        headers["If-Modified-Since"] = entry["last_modified"]
    return headers


def _taking_sites_in_turn(urls: Iterable[str]) -> Iterator[str]:
    """``urls`` reordered: the first of each site, then the second of each, and so on."""
    by_site: dict[str, list[str]] = defaultdict(list)
    for url in urls:
        try:
            parsed = URL(url)
            key = f"{parsed.scheme}://{parsed.raw_host}:{parsed.port}"
        except (ValueError, TypeError):
            key = ""
        by_site[key].append(url)
    queues = [list(reversed(site_urls)) for site_urls in by_site.values()]
    while queues:
        for queue in queues:
            yield queue.pop()
        queues = [queue for queue in queues if queue]


def _entry(answer: Answer, wanted_text: bool) -> dict[str, Any]:
    return {
        "outcome": answer.outcome, "status": answer.status, "redirects": [list(hop) for hop in answer.redirects],
        "final_url": answer.final_url, "detail": answer.detail, "content_type": answer.content_type,
        "text": answer.text, "wall": answer.wall, "truncated": answer.truncated,
        "fetched_at": answer.fetched_at, "etag": answer.etag, "last_modified": answer.last_modified,
        "wanted_text": wanted_text,
    }


def _answer_of(url: str, entry: dict[str, Any], fetched_at: float, requests: int) -> Answer:
    return Answer(
        url=url, outcome=entry["outcome"], status=entry["status"],
        redirects=tuple((status, location) for status, location in entry["redirects"]), final_url=entry["final_url"],
        detail=entry["detail"], content_type=entry["content_type"], text=entry["text"], wall=entry["wall"],
        truncated=entry["truncated"], fetched_at=fetched_at, from_cache=True, requests=requests,
        etag=entry["etag"], last_modified=entry["last_modified"])

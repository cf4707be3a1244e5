"""The fetch layer against real servers on 127.0.0.1: answers, redirects, refusals, errors,
retries, timeouts, bounded bodies, politeness limits and hostile headers."""

from __future__ import annotations

import asyncio
import ssl
import subprocess
import threading
import time
import tracemalloc
import zlib

import pytest

from pytest_citations import __version__
from pytest_citations.online.fetch import OUTCOMES, Wanted, retry_after_seconds
from pytest_citations.online.page_text import PageText

from .online_servers import send

# -- answers -----------------------------------------------------------------------------------


def test_a_page_is_answered_with_its_status_type_and_text(server, fetch):
    server.expect_request("/article").respond_with_data("<p>The quote.</p>", content_type="text/html; charset=utf-8")
    url = server.url_for("/article").replace("localhost", "127.0.0.1")

    answer = fetch.one(url)

    assert (answer.outcome, answer.status, answer.detail) == ("ok", 200, "200 OK")
    assert answer.text == "<p>The quote.</p>" and answer.content_type == "text/html; charset=utf-8"
    assert (answer.url, answer.final_url, answer.redirects) == (url, url, ())
    assert (answer.requests, answer.from_cache, answer.truncated, answer.wall) == (1, False, False, None)
    request = server.log[0][0]
    assert request.method == "GET" and request.headers["User-Agent"] == f"pytest-citations/{__version__} (citation checker)"


@pytest.mark.parametrize(("status", "detail"), [(404, "404 Not Found"), (410, "410 Gone"), (403, "403 Forbidden")])
def test_an_error_status_is_an_answer(serve, fetch, status, detail):
    site = serve(lambda request, connection, _: send(connection, status, b"<paywall> gone", {"Content-Type": "text/html"}))

    answer = fetch.one(site.url("/missing"))

    assert (answer.outcome, answer.status, answer.detail) == ("ok", status, detail)
    assert answer.wall == "test-paywall"  # the page hook sees the bodies of error pages too


def test_the_page_hook_is_asked_for_text_only_when_it_is_wanted(serve, fetch):
    site = serve(lambda request, connection, _: send(connection, 200, b"page"))
    asked = []

    def page(body, content_type, wants_text):
        asked.append((body, wants_text))
        return PageText("text" if wants_text else None)

    answers = fetch(Wanted(site.url("/a"), text=False), Wanted(site.url("/b"), text=True), page=page)

    assert sorted(asked) == [(b"page", False), (b"page", True)]
    assert answers[site.url("/a")].text is None and answers[site.url("/b")].text == "text"


def test_a_url_wanted_twice_is_fetched_once_with_its_text(serve, fetch):
    site = serve(lambda request, connection, _: send(connection, 200, b"page"))

    answers = fetch(Wanted(site.url("/a"), text=False), Wanted(site.url("/a"), text=True))

    assert list(answers) == [site.url("/a")] and answers[site.url("/a")].text == "page"
    assert site.paths() == ["/a"]


def test_connect_to_keeps_the_url_and_the_host_header(serve, fetch):
    site = serve(lambda request, connection, _: send(connection, 200, request.headers["host"].encode()))

    answer = fetch.one("http://news.example/story", connect_to={("news.example", 80): ("127.0.0.1", site.port)})

    assert (answer.outcome, answer.url, answer.text) == ("ok", "http://news.example/story", "news.example")


def test_no_cookie_is_kept_and_no_credentials_are_sent(serve, fetch):
    def respond(request, connection, _):
        if request.path == "/login":
            send(connection, 302, headers={"Location": f"http://user:secret@127.0.0.1:{site.port}/next",
                                           "Set-Cookie": "session=1; Path=/"})
        else:
            send(connection, 200, repr(sorted(request.headers)).encode())

    site = serve(respond)

    answer = fetch.one(site.url("/login"))

    assert answer.status == 200 and "cookie" not in answer.text and "authorization" not in answer.text


def test_progress_is_told_of_every_answer_once_from_the_fetching_thread(serve, fetch):
    site = serve(lambda request, connection, _: send(connection, 200, b"page"))
    told = []

    answers = fetch(site.url("/a"), site.url("/b"), "ftp://example.org/c",
                    progress=lambda answer: told.append((answer, threading.current_thread())))

    assert sorted(answer.url for answer, _ in told) == sorted(answers)
    assert all(thread is not threading.current_thread() for _, thread in told)


def test_fetch_all_works_inside_a_running_event_loop(serve, fetch):
    site = serve(lambda request, connection, _: send(connection, 200, b"page"))

    async def caller():
        return fetch.one(site.url("/a"))

    assert asyncio.run(caller()).status == 200


def test_every_outcome_is_one_of_the_documented_ones(serve, fetch):
    site = serve(lambda request, connection, _: send(connection, 200, b"page"))

    answers = fetch(site.url("/"), "ftp://example.org/", "http://169.254.169.254/", "http://nowhere.invalid/")

    assert {answer.outcome for answer in answers.values()} <= set(OUTCOMES)
    assert len({answer.outcome for answer in answers.values()}) == 4


# -- redirects ---------------------------------------------------------------------------------


def test_a_chain_of_redirects_is_followed_and_reported(serve, fetch):
    def respond(request, connection, _):
        hops = {"/old": (301, "/older"), "/older": (308, f"http://127.0.0.1:{site.port}/new?x=1")}
        if request.path in hops:
            status, location = hops[request.path]
            send(connection, status, headers={"Location": location})
        else:
            send(connection, 200, b"new home")

    site = serve(respond)

    answer = fetch.one(site.url("/old"))

    assert answer.redirects == ((301, site.url("/older")), (308, site.url("/new?x=1")))
    assert (answer.outcome, answer.status, answer.final_url, answer.text) == ("ok", 200, site.url("/new?x=1"), "new home")
    assert answer.requests == 3 and site.paths() == ["/old", "/older", "/new?x=1"]


def test_a_redirect_loop_is_stopped(serve, fetch):
    site = serve(lambda request, connection, _: send(
        connection, 302, headers={"Location": "/b" if request.path == "/a" else "/a"}))

    answer = fetch.one(site.url("/a"))

    assert answer.outcome == "redirect-loop"
    assert answer.redirects == ((302, site.url("/b")), (302, site.url("/a")))
    assert site.paths() == ["/a", "/b"]


def test_too_many_redirects_are_not_followed(serve, fetch):
    site = serve(lambda request, connection, _: send(
        connection, 307, headers={"Location": f"/r{int(request.path[2:]) + 1}"}))

    answer = fetch.one(site.url("/r0"), max_redirects=3)

    assert (answer.outcome, answer.detail) == ("too-many-redirects", "more than 3 redirects")
    assert len(answer.redirects) == 4 and answer.requests == 4 and answer.final_url == site.url("/r4")


@pytest.mark.parametrize("location", ["ftp://files.example/a", "javascript:alert(1)", "file:///etc/passwd"])
def test_a_redirect_to_another_scheme_is_refused_at_that_hop(serve, fetch, location):
    site = serve(lambda request, connection, _: send(connection, 302, headers={"Location": location}))

    answer = fetch.one(site.url("/a"))

    assert answer.outcome == "refused-scheme" and "a redirect to" in answer.detail
    assert answer.redirects == ((302, location),) and answer.final_url == location and answer.requests == 1


def test_a_redirect_to_a_private_address_is_refused_without_connecting(serve, fetch, no_network):
    site = serve(lambda request, connection, _: send(
        connection, 301, headers={"Location": "http://169.254.169.254/latest/meta-data/"}))

    answer = fetch.one(site.url("/a"))

    assert answer.outcome == "refused-address"
    assert answer.detail == "refused: 169.254.169.254 is a link-local address"
    assert answer.redirects == ((301, "http://169.254.169.254/latest/meta-data/"),)
    assert {address for address, _ in no_network.connections} == {"127.0.0.1"}


@pytest.mark.parametrize(("headers", "detail"), [({}, "301 Moved Permanently"),
                                                 ({"Location": "http://[::1"}, "301 Moved Permanently with an invalid Location")])
def test_a_redirect_that_cannot_be_followed_is_the_answer(serve, fetch, headers, detail):
    site = serve(lambda request, connection, _: send(connection, 301, b"moved", headers))

    answer = fetch.one(site.url("/a"))

    assert (answer.outcome, answer.status, answer.detail, answer.redirects) == ("ok", 301, detail, ())


# -- refusals and failures ---------------------------------------------------------------------


@pytest.mark.parametrize("url", ["ftp://example.org/file", "file:///etc/passwd", "javascript:alert(1)",
                                 "data:text/html,hello", "mailto:someone@example.org", "example.org/no-scheme",
                                 "http:///no-host", "http://[::1"])
def test_what_is_not_an_http_url_is_refused_without_a_socket(fetch, no_network, url):
    answer = fetch.one(url)

    assert answer.outcome == "refused-scheme" and answer.detail.startswith("refused: ")
    assert (answer.requests, answer.status) == (0, None)
    assert no_network.connections == [] and no_network.lookups == []


def test_a_host_that_does_not_exist(fetch, no_network):
    answer = fetch.one("http://nowhere.invalid/page", retries=2)

    assert (answer.outcome, answer.detail, answer.requests) == ("dns", "no such host", 1)  # not retried
    assert no_network.connections == []


def test_a_refused_connection_is_retried_then_answered(fetch, free_port):
    answer = fetch.one(f"http://127.0.0.1:{free_port}/", retries=2)

    assert (answer.outcome, answer.detail, answer.requests) == ("connect", "connection refused", 3)


def test_a_certificate_that_is_not_trusted(serve, fetch, self_signed):
    site = serve(lambda request, connection, _: send(connection, 200, b"page"), ssl_context=self_signed)

    answer = fetch.one(f"https://127.0.0.1:{site.port}/", retries=2)

    assert answer.outcome == "tls" and "certificate" in answer.detail and answer.requests == 1


def test_a_server_that_answers_too_late_times_out(serve, fetch):
    site = serve(lambda request, connection, server: server.pause(5) and send(connection, 200, b"late"))

    answer = fetch.one(site.url("/slow"), timeout=0.5)

    assert (answer.outcome, answer.detail, answer.status) == ("timeout", "timed out after 0.5 s", None)
    assert fetch.last_seconds < 4


def test_a_body_that_drips_is_bounded_by_the_timeout(serve, fetch):
    def respond(request, connection, server):
        connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n")
        while server.pause(0.05):
            connection.sendall(b"x")

    site = serve(respond)

    answer = fetch.one(site.url("/drip"), timeout=0.5)

    assert answer.outcome == "timeout" and fetch.last_seconds < 4


def test_an_unexpected_error_in_one_url_is_its_answer_and_the_others_go_on(serve, fetch):
    site = serve(lambda request, connection, _: send(connection, 200, request.path.encode()))

    def page(body, content_type, wants_text):
        if body == b"/bad":
            raise ValueError("cannot read this page")
        return PageText(body.decode())

    answers = fetch(site.url("/bad"), site.url("/good"), page=page)

    bad, good = answers[site.url("/bad")], answers[site.url("/good")]
    assert (bad.outcome, bad.status, bad.text) == ("ok", 200, None) and "ValueError" in bad.detail
    assert good.text == "/good"


def test_an_exception_inside_the_fetch_is_an_answer(serve, fetch, monkeypatch):
    from pytest_citations.online import fetch as module

    real = module._reply_of

    def failing(status, headers):
        if "boom" in headers.get("X-Path", ""):
            raise RuntimeError("boom")
        return real(status, headers)

    monkeypatch.setattr(module, "_reply_of", failing)
    site = serve(lambda request, connection, _: send(connection, 200, b"page", {"X-Path": request.path}))

    answers = fetch(site.url("/boom"), site.url("/fine"))

    assert (answers[site.url("/boom")].outcome, answers[site.url("/boom")].detail) == (
        "connect", "unexpected RuntimeError while fetching")
    assert answers[site.url("/fine")].status == 200


# -- retries -----------------------------------------------------------------------------------


def test_a_429_with_a_short_retry_after_is_waited_for(serve, fetch):
    def respond(request, connection, server):
        if len(server.requests) == 1:
            send(connection, 429, headers={"Retry-After": "1"})
        else:
            send(connection, 200, b"page")

    site = serve(respond)

    answer = fetch.one(site.url("/a"), retries=2, max_retry_after=5)

    assert (answer.outcome, answer.status, answer.requests) == ("ok", 200, 2)
    assert 0.9 <= fetch.last_seconds < 10


def test_a_retry_after_also_holds_back_the_other_urls_of_that_site(serve, fetch):
    arrivals = {}

    def respond(request, connection, server):
        arrivals.setdefault(request.path, time.monotonic())
        if request.path == "/first" and len(server.requests) == 1:
            send(connection, 503, headers={"Retry-After": "1"})
        else:
            send(connection, 200, b"page")

    site = serve(respond)

    answers = fetch(site.url("/first"), site.url("/second"), retries=1, host_concurrency=1)

    assert {answer.status for answer in answers.values()} == {200}
    assert arrivals["/second"] - arrivals["/first"] >= 0.9


def test_a_retry_after_longer_than_allowed_is_not_waited_for(serve, fetch):
    site = serve(lambda request, connection, _: send(connection, 429, headers={"Retry-After": "120"}))

    answer = fetch.one(site.url("/a"), retries=2, max_retry_after=30)

    assert (answer.outcome, answer.status, answer.requests) == ("retry-after", 429, 1)
    assert "120 s" in answer.detail and fetch.last_seconds < 10


def test_a_503_that_stays_is_a_retry_after_outcome(serve, fetch):
    site = serve(lambda request, connection, _: send(connection, 503))

    answer = fetch.one(site.url("/a"), retries=1)

    assert (answer.outcome, answer.status, answer.requests) == ("retry-after", 503, 2)


def test_a_5xx_is_retried_until_it_passes(serve, fetch):
    def respond(request, connection, server):
        send(connection, 502 if len(server.requests) == 1 else 200, b"page")

    site = serve(respond)

    answer = fetch.one(site.url("/a"), retries=2)

    assert (answer.outcome, answer.status, answer.requests) == ("ok", 200, 2)


def test_a_5xx_that_stays_is_the_answer_after_the_retries(serve, fetch):
    site = serve(lambda request, connection, _: send(connection, 500, b"broken"))

    answer = fetch.one(site.url("/a"), retries=2)

    assert (answer.outcome, answer.status, answer.detail, answer.requests) == ("ok", 500, "500 Internal Server Error", 3)


@pytest.mark.parametrize(("value", "seconds"), [("7", 7.0), ("0", 0.0), ("Wed, 21 Oct 2015 07:28:10 GMT", 10.0),
                                                ("Wed, 21 Oct 2015 07:27:00 GMT", 0.0), ("soon", None), ("-5", None),
                                                (None, None)])
def test_retry_after_is_read_as_seconds_or_a_date(value, seconds):
    now = 1445412480.0  # Wed, 21 Oct 2015 07:28:00 GMT
    assert retry_after_seconds(value, now) == seconds


# -- bounded bodies ----------------------------------------------------------------------------


def test_an_endless_body_is_read_up_to_max_body_in_bounded_memory(serve, fetch):
    def respond(request, connection, server):
        connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 1073741824\r\n\r\n")
        block = b"a" * (1 << 16)
        while not server.stopping.is_set():
            connection.sendall(block)

    site = serve(respond)
    seen = []

    tracemalloc.start()
    try:
        answer = fetch.one(site.url("/huge"), max_body=1 << 20, page=lambda body, *_: (seen.append(len(body)), PageText(None))[1])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()

    assert (answer.outcome, answer.status, answer.truncated, seen) == ("ok", 200, True, [1 << 20])
    assert peak < 40 * 2**20 and fetch.last_seconds < 10


def test_a_gzip_bomb_is_read_up_to_max_body_in_bounded_memory(serve, fetch):
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)  # gzip
    zeros = bytes(1 << 20)
    start = compressor.compress(zeros) + compressor.flush(zlib.Z_FULL_FLUSH)
    repeated = compressor.compress(zeros) + compressor.flush(zlib.Z_FULL_FLUSH)  # inflates to 1 MiB, again and again

    def respond(request, connection, server):
        connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nConnection: close\r\n\r\n" + start)
        while not server.stopping.is_set():
            connection.sendall(repeated * 64)

    site = serve(respond)
    seen = []

    tracemalloc.start()
    try:
        answer = fetch.one(site.url("/bomb"), max_body=2 << 20,
                           page=lambda body, *_: (seen.append((len(body), body.count(0))), PageText(None))[1])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()

    assert (answer.outcome, answer.truncated, seen) == ("ok", True, [(2 << 20, 2 << 20)])
    assert peak < 40 * 2**20 and fetch.last_seconds < 10


def test_the_bodies_a_run_holds_at_once_are_bounded(serve, fetch):
    """32 pages of 2 MiB in flight at once, each held until the slow page hook is done with it: the
    run holds 8 bodies at a time (36 MiB at the peak, with what the other connections buffer), not 32
    (67 MiB here; 64 pages of 5 MiB took 645 MB)."""
    site = serve(lambda request, connection, _: send(connection, 200, b"x" * (2 << 20)))

    def slow_page(body, content_type, wants_text):
        time.sleep(0.05)
        return PageText(None)

    tracemalloc.start()
    try:
        answers = fetch(*(site.url(f"/{n}") for n in range(32)), page=slow_page, max_body=2 << 20, host_concurrency=32,
                        timeout=5)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()

    assert {(answer.outcome, answer.status) for answer in answers.values()} == {("ok", 200)}
    assert peak < 48 * 2**20, f"peak {peak / 2**20:.0f} MiB"


def test_the_wait_for_a_body_permit_is_no_part_of_an_attempts_time(serve, fetch, monkeypatch):
    """With one body held at a time and a page hook of 0.6 s, the third page waits 1.2 s for its
    turn, past the 1 s timeout of an attempt: it does not time out, since its server answered in time."""
    from pytest_citations.online import fetch as fetch_module

    monkeypatch.setattr(fetch_module, "BODIES_HELD", 1)
    site = serve(lambda request, connection, _: send(connection, 200, b"page"))

    def slow_page(body, content_type, wants_text):
        time.sleep(0.6)
        return PageText(body.decode())

    answers = fetch(*(site.url(f"/{n}") for n in range(3)), page=slow_page, timeout=1.0, host_concurrency=3)

    assert {(answer.outcome, answer.text) for answer in answers.values()} == {("ok", "page")}


def test_a_body_of_exactly_max_body_is_not_truncated(serve, fetch):
    site = serve(lambda request, connection, _: send(connection, 200, b"x" * 1000))

    assert fetch.one(site.url("/a"), max_body=1000).truncated is False
    assert fetch.one(site.url("/a"), max_body=999).truncated is True


# -- hostile headers ---------------------------------------------------------------------------


@pytest.mark.parametrize("response", [
    b"HTTP/1.1 200 OK\r\nX-Huge: " + b"a" * 200_000 + b"\r\n\r\n",
    b"HTTP/1.1 200 OK\r\n" + b"".join(b"X-%d: a\r\n" % n for n in range(20_000)) + b"\r\n",
    b"NOT HTTP AT ALL\r\n\r\n",
    b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 7\r\n\r\nhello",
], ids=["huge header", "many headers", "not HTTP", "two lengths"])
def test_a_malformed_answer_is_not_known_to_be_dead(serve, fetch, response):
    """A server answered, in a form this check does not read (a browser may): not a dead page
    (W701, an error), but a page not checked (W706)."""
    from pytest_citations.online.verdicts import State, verdict

    site = serve(lambda request, connection, _: connection.sendall(response))

    answer = fetch.one(site.url("/a"))

    assert answer.outcome == "malformed" and answer.status is None and fetch.last_seconds < 10
    assert verdict(answer).state is State.UNCHECKED


def test_a_header_line_as_long_as_real_sites_send_is_read(serve, fetch):
    policy = b"default-src 'self'; " + b"script-src https://cdn.example " * 400  # 12 KB
    site = serve(lambda request, connection, _: send(connection, 200, b"page", {"Content-Security-Policy": policy.decode()}))

    answer = fetch.one(site.url("/a"))

    assert (answer.outcome, answer.status, answer.text) == ("ok", 200, "page")


def test_a_server_that_closes_without_answering(serve, fetch):
    site = serve(lambda request, connection, _: None)

    answer = fetch.one(site.url("/a"), retries=1)

    assert (answer.outcome, answer.requests) == ("connect", 2)


def test_the_server_s_reason_phrase_is_never_repeated(serve, fetch):
    site = serve(lambda request, connection, _: connection.sendall(
        b"HTTP/1.1 404 ::error::injected\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"))

    assert fetch.one(site.url("/a")).detail == "404 Not Found"


# -- politeness limits -------------------------------------------------------------------------


def _slow_page(request, connection, server):
    server.pause(0.3)
    send(connection, 200, b"page")


def test_at_most_host_concurrency_requests_are_in_flight_per_site(serve, fetch):
    site = serve(_slow_page)

    answers = fetch(*(site.url(f"/p{n}") for n in range(6)), host_concurrency=2)

    assert {answer.status for answer in answers.values()} == {200}
    assert site.most_in_flight <= 2


def test_the_in_flight_count_can_see_more_than_two(serve, fetch):
    """A control for the test above: with a higher limit, the server does see more at once."""
    site = serve(_slow_page)

    fetch(*(site.url(f"/p{n}") for n in range(6)), host_concurrency=6)

    assert site.most_in_flight > 2


def test_at_most_total_concurrency_requests_are_in_flight(serve, fetch):
    site = serve(_slow_page)
    hosts = [f"site{n}.example" for n in range(4)]

    answers = fetch(*(f"http://{host}/p{n}" for host in hosts for n in range(2)), host_concurrency=2, timeout=10,
                    total_concurrency=3, connect_to={(host, 80): ("127.0.0.1", site.port) for host in hosts})

    assert {answer.status for answer in answers.values()} == {200}
    assert site.most_in_flight <= 3


def test_requests_to_one_site_start_host_interval_apart(serve, fetch):
    site = serve(lambda request, connection, _: send(connection, 200, b"page"))

    fetch(*(site.url(f"/p{n}") for n in range(4)), host_interval=0.3, host_concurrency=4)

    assert fetch.last_seconds >= 0.9  # three intervals at least between the four starts


# -- helpers -----------------------------------------------------------------------------------


@pytest.fixture
def self_signed(tmp_path) -> ssl.SSLContext:
    """A server-side TLS context with a certificate no one vouches for."""
    key, certificate = tmp_path / "key.pem", tmp_path / "certificate.pem"
    try:
        subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                        "-nodes", "-keyout", str(key), "-out", str(certificate), "-days", "1", "-subj", "/CN=127.0.0.1"],
                       check=True, capture_output=True, timeout=30)
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("openssl cannot make a test certificate here")
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(certificate, key)
    return context


def test_memory_grows_with_the_answers_only(serve, fetch):
    """Four hundred small pages over the network: a few KiB per answer (its text included), so
    ten thousand stay well under 100 MB (tests/online/test_response_cache.py gives ten thousand
    from the cache)."""
    site = serve(lambda request, connection, _: send(connection, 200, b"<p>a small page</p>" * 20))
    urls = [site.url(f"/p{n}") for n in range(400)]

    tracemalloc.start()
    try:
        answers = fetch(*urls, host_concurrency=16)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()

    assert {answer.status for answer in answers.values()} == {200}
    assert peak < 2 * 2**20 + len(urls) * 8 * 2**10


def test_the_page_text_of_answers_from_the_cache_counts_against_what_the_run_holds(serve, fetch, monkeypatch):
    """Pages fetched in earlier runs and kept in the cache of answers hold text too: they count, or
    each run could hold another run's worth (found by an attack: 120 Mi characters held)."""
    from pytest_citations.online import fetch as fetching

    site = serve(lambda request, connection, _: send(connection, 200, b"twenty characters..."))
    fetch(site.url("/a"), cache=True)
    fetch(site.url("/b"), cache=True)
    monkeypatch.setattr(fetching, "MAX_RUN_TEXT", 25)
    answers = fetch(site.url("/a"), site.url("/b"), cache=True)
    assert all(answer.from_cache for answer in answers.values())
    assert sorted(answer.text_past_run_limits for answer in answers.values()) == [False, True]


def test_the_page_text_a_run_holds_is_bounded(serve, fetch, monkeypatch):
    from pytest_citations.online import fetch as fetching

    monkeypatch.setattr(fetching, "MAX_RUN_TEXT", 25)
    site = serve(lambda request, connection, _: send(connection, 200, b"twenty characters..."))
    answers = fetch(site.url("/a"), site.url("/b"))
    held = [answer for answer in answers.values() if answer.text is not None]
    dropped = [answer for answer in answers.values() if answer.text is None]
    assert len(held) == 1 and len(dropped) == 1 and "already holds" in dropped[0].detail
    assert (held[0].text_past_run_limits, dropped[0].text_past_run_limits) == (False, True)


# -- the run's time limit ------------------------------------------------------------------------


def test_what_is_not_answered_when_the_runs_time_is_up_is_not_checked(serve, fetch, tmp_path):
    """A checkout may cite thousands of URLs of a host that never answers: the run stops at its
    time limit, keeps what was answered, and neither waits for nor caches the rest."""
    hanging = serve(lambda request, connection, server: server.pause(30) and send(connection, 200, b"late"))
    quick = serve(lambda request, connection, _: send(connection, 200, b"page"))
    fetch.cache_folder = tmp_path / "cache"
    slow_urls = [hanging.url(f"/{n}") for n in range(6)]

    answers = fetch(quick.url("/a"), *slow_urls, cache=True, timeout=20, time_limit=1.0)

    assert (answers[quick.url("/a")].outcome, answers[quick.url("/a")].status) == ("ok", 200)
    assert {(answers[url].outcome, answers[url].detail) for url in slow_urls} == {
        ("time-up", "the online check's time for a run (1 s) was up")}
    assert fetch.last_seconds < 10  # (not the 20 s timeout of each request, nor the 30 s pause)
    again = fetch(quick.url("/a"), *slow_urls, cache=True, timeout=20, time_limit=0.5)
    assert again[quick.url("/a")].from_cache and {again[url].outcome for url in slow_urls} == {"time-up"}


@pytest.mark.parametrize(("seconds", "phrase"), [(300, "5 min"), (90, "90 s"), (7200, "2 h"), (0.5, "0.5 s")])
def test_a_time_limit_is_said_in_its_unit(seconds, phrase):
    from pytest_citations.online.fetch import duration_phrase

    assert duration_phrase(seconds) == phrase


def test_names_that_answer_slowly_cannot_make_a_third_partys_lookup_time_out(serve, fetch, no_network):
    """A checkout cites many names whose DNS answers slowly, to hold the lookup threads while the
    name of a fabricated URL's host waits for one: the wait for a lookup slot is no part of the
    request's time, so that URL is still answered (here 404: W701, an error). Was: it timed out
    (W706, a warning) and the gate passed."""
    site = serve(lambda request, connection, _: send(connection, 404 if request.path == "/fabricated" else 200, b"page"))
    slow = [f"slow{n}.example" for n in range(12)]
    for name in slow:
        no_network.serve_name(name, "127.0.0.1", delay=0.8)
    no_network.serve_name("victim.example", "127.0.0.1")
    urls = [f"http://{name}:{site.port}/page" for name in slow] + [f"http://victim.example:{site.port}/fabricated"]

    answers = fetch(*urls, timeout=1.0, allow=("127.0.0.1", *slow, "victim.example"))

    victim = answers[urls[-1]]
    assert (victim.outcome, victim.status) == ("ok", 404)
    assert {answers[url].status for url in urls[:-1]} == {200}


def test_a_slot_is_held_until_its_lookup_is_done_and_a_lookup_that_took_too_long_is_not_kept(serve, fetch, no_network):
    """Names whose lookups outlast the request's timeout keep their threads busy after the requests
    stop waiting: their slots are held until then, so that the next lookup (a fabricated URL's
    host) waits for a slot, untimed, and then has a thread. Was: the slot was given back at the
    timeout and the next lookup waited for a thread in the executor's queue, timed: W706, exit 0.
    (And a lookup that timed out was kept as the name's answer for the run.)"""
    from pytest_citations.online.addresses import LOOKUPS_AT_ONCE

    site = serve(lambda request, connection, _: send(connection, 404 if request.path == "/fabricated" else 200, b"page"))
    slow = [f"slow{n}.example" for n in range(LOOKUPS_AT_ONCE + 2)]
    for name in slow:
        no_network.serve_name(name, "127.0.0.1", delay=2.0)
    no_network.serve_name("victim.example", "127.0.0.1")
    urls = [f"http://{name}:{site.port}/page" for name in slow] + [f"http://victim.example:{site.port}/fabricated"]

    answers = fetch(*urls, timeout=0.5, retries=1, allow=("127.0.0.1", *slow, "victim.example"))

    assert (answers[urls[-1]].outcome, answers[urls[-1]].status) == ("ok", 404)
    # the slow names' first attempts timed out; their retries found what the lookups kept meanwhile
    assert {answers[url].status for url in urls[:-1]} <= {200, None}

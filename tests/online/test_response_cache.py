"""The response cache: a re-run within max_age makes no request; expired answers are
revalidated; only this user's documents are believed; everything it keeps is bounded."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import tracemalloc

import pytest

from conftest import same_code_environment
from cpu_bounds import assert_cpu_under
from pytest_citations.online import response_cache
from pytest_citations.online.fetch import Wanted, reach_of
from pytest_citations.online.response_cache import ResponseCache, shard
from pytest_citations.run.cache import write_document

from .online_servers import TEST_SETTINGS, send


def _page_site(serve, headers=None, status=200, robots=b"User-agent: *\nDisallow: /private\n"):
    def respond(request, connection, _):
        if request.path == "/robots.txt":
            send(connection, 200, robots)
        else:
            send(connection, status, b"page " + request.path.encode(), headers)

    return serve(respond)


def _answers_document(fetch, url):
    return fetch.cache_folder / "online" / f"answers-{shard(url)}.json"


def test_a_re_run_with_a_fresh_cache_makes_no_request(serve, fetch):
    site = _page_site(serve)
    urls = [site.url("/a"), site.url("/b"), site.url("/private/c")]

    first = fetch(*urls, cache=True, robots=True)
    requests_before = len(site.requests)
    again = fetch(*urls, cache=True, robots=True)

    assert len(site.requests) == requests_before == 3  # robots.txt, /a, /b (the private one never)
    assert again[site.url("/a")].from_cache and again[site.url("/a")].requests == 0
    assert again[site.url("/a")].fetched_at == first[site.url("/a")].fetched_at
    assert again[site.url("/a")].text == "page /a" and again[site.url("/private/c")].outcome == "robots"


def test_an_answer_kept_without_text_does_not_serve_one_that_wants_it(serve, fetch):
    site = _page_site(serve)

    fetch(Wanted(site.url("/a"), text=False), cache=True)
    needs_text = fetch(Wanted(site.url("/a"), text=True), cache=True)[site.url("/a")]
    no_text = fetch(Wanted(site.url("/a"), text=False), cache=True)[site.url("/a")]

    assert (needs_text.from_cache, needs_text.text) == (False, "page /a")
    assert no_text.from_cache and site.paths() == ["/a", "/a"]


@pytest.mark.parametrize(("validator", "condition"), [("ETag", "if-none-match"), ("Last-Modified", "if-modified-since")])
def test_an_expired_answer_is_revalidated(serve, fetch, validator, condition):
    value = '"v1"' if validator == "ETag" else "Wed, 21 Oct 2015 07:28:00 GMT"

    def respond(request, connection, _):
        if request.headers.get(condition) == value:
            send(connection, 304, headers={validator: value})
        else:
            send(connection, 200, b"first text", {validator: value})

    site = serve(respond)

    first = fetch.one(site.url("/a"), cache=True, max_age=0)
    renewed = fetch.one(site.url("/a"), cache=True, max_age=0)

    assert (renewed.outcome, renewed.status, renewed.text) == ("ok", 200, "first text")
    assert (renewed.from_cache, renewed.requests) == (True, 1) and renewed.fetched_at > first.fetched_at
    assert [request.headers.get(condition) for request in site.requests] == [None, value]


def test_an_expired_answer_without_validators_is_fetched_again(serve, fetch):
    site = _page_site(serve)

    fetch.one(site.url("/a"), cache=True, max_age=0)
    again = fetch.one(site.url("/a"), cache=True, max_age=0)

    assert again.from_cache is False and site.paths() == ["/a", "/a"]


def test_refresh_ignores_the_cache_but_writes_it(serve, fetch):
    site = _page_site(serve)

    fetch.one(site.url("/a"), cache=True, robots=True)
    refreshed = fetch.one(site.url("/a"), cache=True, robots=True, refresh=True)
    cached = fetch.one(site.url("/a"), cache=True, robots=True)

    assert refreshed.from_cache is False and cached.from_cache is True
    assert site.paths() == ["/robots.txt", "/a", "/robots.txt", "/a"]


@pytest.mark.parametrize("status", [500, 503, 429])
def test_answers_that_may_change_soon_are_not_kept(serve, fetch, status):
    site = _page_site(serve, status=status)

    fetch.one(site.url("/a"), cache=True)
    again = fetch.one(site.url("/a"), cache=True)

    assert again.from_cache is False and site.paths() == ["/a", "/a"]


@pytest.mark.parametrize("robots", [False, True], ids=["the URL", "its robots.txt"])
def test_a_host_that_does_not_exist_is_not_kept(fetch, no_network, robots):
    """A name may come to exist, and a machine without DNS (or a typo in --online-connect-to)
    would otherwise keep every URL dead for a day; the first request to a site is often its
    robots.txt, whose failure is then the URL's answer."""
    fetch.one("http://nowhere.invalid/a", cache=True, robots=robots)
    again = fetch.one("http://nowhere.invalid/a", cache=True, robots=robots)

    assert (again.outcome, again.from_cache) == ("dns", False) and no_network.lookups == ["nowhere.invalid"] * 2


def test_a_refused_connection_is_not_kept(fetch, no_network):
    fetch.one("http://127.0.0.1:9/a", cache=True)

    assert not (fetch.cache_folder / "online").exists() or not any((fetch.cache_folder / "online").iterdir())


def test_a_redirect_loop_is_kept(serve, fetch):
    site = serve(lambda request, connection, _: send(
        connection, 302, headers={"Location": "/b" if request.path == "/a" else "/a"}))

    fetch.one(site.url("/a"), cache=True)
    again = fetch.one(site.url("/a"), cache=True)

    assert (again.outcome, again.from_cache, again.redirects) == (
        "redirect-loop", True, ((302, site.url("/b")), (302, site.url("/a"))))


# -- documents no one of ours wrote ------------------------------------------------------------


def test_documents_of_another_user_are_ignored(serve, fetch, monkeypatch, tmp_path):
    site = _page_site(serve)
    ours = os.environ["CITATIONS_CACHE_KEY_FILE"]
    monkeypatch.setenv("CITATIONS_CACHE_KEY_FILE", str(tmp_path / "another-user" / "key"))
    fetch.one(site.url("/a"), cache=True, robots=True)  # written with the other user's key
    monkeypatch.setenv("CITATIONS_CACHE_KEY_FILE", ours)

    answer = fetch.one(site.url("/a"), cache=True, robots=True)

    assert answer.from_cache is False and site.paths() == ["/robots.txt", "/a", "/robots.txt", "/a"]


def test_a_forged_or_edited_document_is_ignored(serve, fetch):
    site = _page_site(serve)
    url = site.url("/a")
    fetch.one(url, cache=True)
    document = _answers_document(fetch, url)
    written = document.read_bytes()
    document.write_bytes(written.replace(b"page /a", b"forged!"))  # edited after it was written

    assert fetch.one(url, cache=True).text == "page /a"

    entry = json.loads(document.read_bytes())["answers"][url]
    forged = {"format": response_cache.FORMAT, "version": json.loads(document.read_bytes())["version"],
              "answers": {url: {**entry, "text": "forged!", "fetched_at": time.time()}}}
    document.write_text(json.dumps(forged))  # no authentication code at all

    answer = fetch.one(url, cache=True)

    assert (answer.text, answer.from_cache) == ("page /a", False)


# A process started by a large one (a test worker late in the suite) inherits its peak memory as
# its own (Linux keeps it across exec): the measured one is started by a small process instead.
_FROM_A_SMALL_PARENT = "import subprocess, sys; sys.exit(subprocess.run(sys.argv[1:]).returncode)"
# Reads the shard of one URL in a child process: its answers, the time it took, its peak memory.
_READ_AND_MEASURE = """
import resource, sys, time
from pathlib import Path
from pytest_citations.online.response_cache import ResponseCache
started = time.process_time()
found = list(ResponseCache(Path(sys.argv[1])).answers([sys.argv[2]]))
print(len(found), time.process_time() - started, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def test_a_shard_larger_than_its_writer_makes_is_never_read(tmp_path):
    """A shard's name follows from a cited URL, so a pull request can commit one: 900 MB (under
    the cache's 1 GiB cap on any document, over what a shard's writer makes) is refused by its
    size, unread. Was: read whole before its code was checked, 962 MB at the peak."""
    url = "https://www.iea.org/reports/the-future-of-heat-pumps"
    document = tmp_path / "online" / f"answers-{shard(url)}.json"
    document.parent.mkdir()
    with open(document, "wb") as stream:
        stream.write(b'{"mac":"' + b"0" * 64 + b'","format":1,"answers":{"' + url.encode() + b'":"')
        stream.truncate(900 << 20)  # sparse: no room taken on disk

    done = subprocess.run([sys.executable, "-c", _FROM_A_SMALL_PARENT, sys.executable, "-c", _READ_AND_MEASURE, str(tmp_path),
                           url], capture_output=True, text=True, timeout=60, check=True, env=same_code_environment())
    found, seconds, peak_kib = done.stdout.split()

    assert int(found) == 0
    assert_cpu_under(float(seconds), 1)
    assert int(peak_kib) < 100 * 1024, peak_kib


def test_a_shard_as_large_as_its_writer_makes_it_is_read(tmp_path, monkeypatch):
    """The size a shard is refused at leaves room for the document's own members around its
    entries: a shard filled to its size is read back whole."""
    monkeypatch.setattr(response_cache, "SHARD_DIGITS", 0)  # one shard for every URL
    monkeypatch.setattr(response_cache, "MAX_DOCUMENT", 3000)
    cache = ResponseCache(tmp_path)
    now = time.time()
    urls = [f"http://a.example/{n}" for n in range(20)]
    for url in urls:
        cache.keep_answer(url, _entry(now, "x" * 100))
    cache.save(now)
    kept = json.loads((tmp_path / "online" / "answers-.json").read_bytes())["answers"]

    assert len(dict(ResponseCache(tmp_path).answers(urls))) == len(kept) > 0


def test_a_document_moved_to_another_name_is_ignored(serve, fetch):
    site = _page_site(serve)
    url = site.url("/a")
    other = next(f"http://elsewhere.example/{n}" for n in range(1000) if shard(f"http://elsewhere.example/{n}") != shard(url))
    fetch.one(url, cache=True)
    entry = json.loads(_answers_document(fetch, url).read_bytes())["answers"][url]
    # a genuine document, written for the other URL's shard name, holding an answer for this URL
    impostor = _answers_document(fetch, other)
    write_document(impostor, {"format": response_cache.FORMAT, "version": json.loads(impostor.read_bytes())["version"]
                              if impostor.exists() else _version(),
                              "answers": {url: {**entry, "text": "moved"}}})
    impostor.replace(_answers_document(fetch, url))

    answer = fetch.one(url, cache=True)

    assert (answer.text, answer.from_cache) == ("page /a", False)


def _version() -> str:
    from pytest_citations import __version__

    return __version__


def test_an_online_folder_that_is_a_symlink_is_not_used(serve, fetch, tmp_path):
    site = _page_site(serve)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    fetch.cache_folder.mkdir()
    (fetch.cache_folder / "online").symlink_to(elsewhere)

    fetch.one(site.url("/a"), cache=True)
    again = fetch.one(site.url("/a"), cache=True)

    assert again.from_cache is False and list(elsewhere.iterdir()) == []


@pytest.mark.parametrize("damage", [{"status": "200"}, {"status": True}, {"redirects": [[301]]}, {"truncated": 0},
                                    {"fetched_at": "now"}, {"text": None, "wall": 5}], ids=str)
def test_entries_of_the_wrong_shape_are_ignored(serve, fetch, damage):
    site = _page_site(serve)
    url = site.url("/a")
    document = _answers_document(fetch, url)
    document.parent.mkdir(parents=True)
    write_document(document, {"format": response_cache.FORMAT, "version": _version(),
                              "answers": {url: {**_entry(time.time()), **damage}}})

    assert fetch.one(url, cache=True).from_cache is False


# -- bounds ------------------------------------------------------------------------------------


def _entry(fetched_at: float, text: str | None = "text") -> dict:
    """An entry as a run with the test settings keeps it."""
    return {"outcome": "ok", "status": 200, "redirects": [], "final_url": "", "detail": "200 OK",
            "content_type": "text/html", "text": text, "wall": None, "truncated": False, "fetched_at": fetched_at,
            "etag": None, "last_modified": None, "wanted_text": True, "reach": reach_of(TEST_SETTINGS)}


def test_entries_older_than_thirty_days_are_pruned(tmp_path):
    cache = ResponseCache(tmp_path)
    now = time.time()
    cache.keep_answer("http://a.example/old", _entry(now - 31 * 86400))
    cache.keep_answer("http://a.example/new", _entry(now - 29 * 86400))
    cache.save(now)

    kept = dict(ResponseCache(tmp_path).answers(["http://a.example/old", "http://a.example/new"]))

    assert list(kept) == ["http://a.example/new"]


def test_a_text_too_long_is_not_kept_but_the_answer_is(tmp_path, monkeypatch):
    monkeypatch.setattr(response_cache, "MAX_TEXT", 10)
    cache = ResponseCache(tmp_path)
    cache.keep_answer("http://a.example/long", _entry(time.time(), "x" * 11))
    cache.keep_answer("http://a.example/short", _entry(time.time(), "x" * 10))
    cache.save(time.time())

    kept = dict(ResponseCache(tmp_path).answers(["http://a.example/long", "http://a.example/short"]))

    assert (kept["http://a.example/long"]["text"], kept["http://a.example/long"]["wanted_text"]) == (None, False)
    assert kept["http://a.example/short"]["text"] == "x" * 10


def test_a_shard_keeps_its_newest_entries_within_its_size(tmp_path, monkeypatch):
    monkeypatch.setattr(response_cache, "SHARD_DIGITS", 0)  # one shard for every URL
    monkeypatch.setattr(response_cache, "MAX_DOCUMENT", 3000)
    cache = ResponseCache(tmp_path)
    now = time.time()
    urls = [f"http://a.example/{n}" for n in range(20)]
    for age, url in enumerate(urls):
        cache.keep_answer(url, _entry(now - age, "x" * 100))
    cache.save(now)

    kept = dict(ResponseCache(tmp_path).answers(urls))

    assert 0 < len(kept) < len(urls) and set(kept) == set(urls[:len(kept)])
    assert (tmp_path / "online" / "answers-.json").stat().st_size <= 3000 + 200


def test_ten_thousand_cached_answers_are_given_without_a_request_in_bounded_memory(fetch, no_network):
    cache = ResponseCache(fetch.cache_folder)
    now = time.time()
    urls = [f"http://site{n % 100}.example/page/{n}" for n in range(10_000)]
    for url in urls:
        cache.keep_answer(url, _entry(now, "a small page's text " * 10))
    cache.save(now)

    tracemalloc.start()
    try:
        answers = fetch(*urls, cache=True)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()

    assert len(answers) == 10_000 and all(answer.from_cache for answer in answers.values())
    assert no_network.connections == [] and no_network.lookups == []
    assert peak < 100 * 2**20

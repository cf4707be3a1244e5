"""robots.txt: fetched once per site, obeyed for the checker's product token, and a site that
cannot be reached keeps its own outcome."""

from __future__ import annotations

import pytest

from pytest_citations.online.robots import MAX_SIZE, Rules, product_token

from .online_servers import send


def _site_with_robots(serve, robots: bytes | None, robots_status: int = 200):
    def respond(request, connection, _):
        if request.path == "/robots.txt":
            if robots is None:
                connection.close()
            else:
                send(connection, robots_status, robots, {"Content-Type": "text/plain"})
        else:
            send(connection, 200, b"page")

    return serve(respond)


def test_a_disallowed_path_is_never_requested(serve, fetch):
    site = _site_with_robots(serve, b"User-agent: *\nDisallow: /private/\n")

    answers = fetch(site.url("/private/report"), site.url("/private/other"), site.url("/public"), robots=True)

    private = answers[site.url("/private/report")]
    assert (private.outcome, private.detail, private.requests, private.status) == (
        "robots", "robots.txt disallows /private/report", 0, None)
    assert answers[site.url("/public")].status == 200
    assert sorted(site.paths()) == ["/public", "/robots.txt"]  # robots.txt once for the site


def test_the_rules_for_the_checker_s_product_token_apply(serve, fetch):
    site = _site_with_robots(serve, b"User-agent: pytest-citations\nDisallow: /\n\nUser-agent: *\nAllow: /\n")
    other = _site_with_robots(serve, b"User-agent: some-other-bot\nDisallow: /\n")

    assert fetch.one(site.url("/a"), robots=True).outcome == "robots"
    assert fetch.one(other.url("/a"), robots=True).outcome == "ok"


@pytest.mark.parametrize("status", [404, 403, 410])
def test_a_robots_txt_that_is_missing_allows_everything(serve, fetch, status):
    site = _site_with_robots(serve, b"User-agent: *\nDisallow: /\n", robots_status=status)

    assert fetch.one(site.url("/a"), robots=True).status == 200


def test_a_robots_txt_that_fails_on_the_server_disallows_for_now(serve, fetch):
    site = _site_with_robots(serve, b"", robots_status=500)

    answer = fetch.one(site.url("/a"), robots=True, retries=1)

    assert answer.outcome == "robots" and "500 Internal Server Error" in answer.detail
    assert site.paths() == ["/robots.txt", "/robots.txt"] and answer.requests == 0


def test_a_dead_host_keeps_its_own_outcome(fetch, free_port):
    assert fetch.one(f"http://127.0.0.1:{free_port}/a", robots=True).outcome == "connect"
    assert fetch.one("http://nowhere.invalid/a", robots=True).outcome == "dns"


def test_a_robots_txt_redirect_elsewhere_that_cannot_be_followed_leaves_it_unavailable(serve, fetch):
    def respond(request, connection, _):
        if request.path == "/robots.txt":
            send(connection, 301, headers={"Location": "http://10.0.0.1/robots.txt"})
        else:
            send(connection, 200, b"page")

    site = serve(respond)

    assert fetch.one(site.url("/a"), robots=True).status == 200


def test_a_robots_txt_redirect_is_followed(serve, fetch):
    def respond(request, connection, _):
        if request.path == "/robots.txt":
            send(connection, 301, headers={"Location": "/real-robots.txt"})
        elif request.path == "/real-robots.txt":
            send(connection, 200, b"User-agent: *\nDisallow: /a\n")
        else:
            send(connection, 200, b"page")

    site = serve(respond)

    assert fetch.one(site.url("/a"), robots=True).outcome == "robots"


def test_each_redirect_hop_is_checked_against_its_site_s_robots_txt(serve, fetch):
    closed = _site_with_robots(serve, b"User-agent: *\nDisallow: /\n")
    site = serve(lambda request, connection, _: send(connection, 302, headers={"Location": closed.url("/x")})
                 if request.path != "/robots.txt" else send(connection, 404))

    answer = fetch.one(site.url("/go"), robots=True)

    assert answer.outcome == "robots" and answer.redirects == ((302, closed.url("/x")),)
    assert closed.paths() == ["/robots.txt"]


def test_a_robots_txt_is_read_up_to_its_size_limit(serve, fetch):
    padding = b"# " + b"x" * 98 + b"\n"
    body = b"User-agent: *\nDisallow: /early\n" + padding * (MAX_SIZE // len(padding) + 10) + b"Disallow: /late\n"
    site = _site_with_robots(serve, body)

    answers = fetch(site.url("/early"), site.url("/late"), robots=True)

    assert answers[site.url("/early")].outcome == "robots" and answers[site.url("/late")].status == 200


def test_robots_txt_can_be_turned_off(serve, fetch):
    site = _site_with_robots(serve, b"User-agent: *\nDisallow: /\n")

    assert fetch.one(site.url("/a"), robots=False).status == 200
    assert site.paths() == ["/a"]


def test_rules_and_the_product_token():
    assert product_token("pytest-citations/0.1.0 (citation checker)") == "pytest-citations"
    rules = Rules.from_body(b"User-agent: pytest-citations\nDisallow: /x\n")
    assert not rules.allows("http://a.example/x/y", "pytest-citations/0.1.0")
    assert rules.allows("http://a.example/y", "pytest-citations/0.1.0")
    assert Rules(None).allows("http://a.example/x", "pytest-citations/0.1.0")
    assert Rules.from_body(b"\xef\xbb\xbfUser-agent: *\nDisallow: /\n\xff").allows("http://a.example/", "x") is False

"""fixtures/online-repo checked online: a research run, a brief and a Claude exchange whose cited
pages are the HTTP responses kept under its ``web/<host>/<path>.http``, served on 127.0.0.1 for
their hosts. Each online rule shows on a realistic file there."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from werkzeug import Response

from conftest import PROJECT
from pytest_citations.online.run import OnlineRequest
from pytest_citations.run.checking import CheckRequest, CheckRun

FIXTURE = PROJECT / "fixtures" / "online-repo"

# (file, line, code) of every finding of the online check, and what its message names
EXPECTED = [
    ("briefs/2026-02-11-rates.md", 5, "W705", "closest"),  # [2]'s quote: "since 2024" is "since December" on the page
    ("briefs/2026-02-11-rates.md", 11, "W704", "paywall_policy for 'wire_business' is 'full'"),
    ("exchanges/rates-question.exchange.json", 67, "W705", "closest"),
    ("runs/2026-02-11-rates/citations/citations.jsonl", 3, "W702", "fed-meeting-preview"),
    ("runs/2026-02-11-rates/citations/citations.jsonl", 4, "W701", "404 Not Found"),
    ("runs/2026-02-11-rates/citations/citations.jsonl", 5, "W703", "status 'invalid' is out of date"),
    ("runs/2026-02-11-rates/citations/citations.jsonl", 6, "W707", "169.254.169.254"),
    ("runs/2026-02-11-rates/citations/citations.jsonl", 7, "W706", "robots.txt"),
]


def serve_web(server, web: Path) -> set[str]:
    """Serve each ``web/<host>/<path>.http`` for its host; a host without a robots.txt has none."""
    hosts = set()
    for response in sorted(web.rglob("*.http")):
        host, *parts = response.relative_to(web).with_suffix("").parts
        hosts.add(host)
        head, _, body = response.read_text(encoding="utf-8").partition("\n\n")
        status_line, *header_lines = head.splitlines()
        headers = dict(line.split(": ", 1) for line in header_lines)
        server.expect_request("/" + "/".join(parts), headers={"Host": host}).respond_with_data(
            body, status=int(status_line.split()[1]), headers=headers)
    server.expect_request("/robots.txt").respond_with_data("", status=404)
    return hosts


@pytest.fixture
def repo(tmp_path) -> Path:
    copy = tmp_path / "online-repo"
    shutil.copytree(FIXTURE, copy)
    return copy


def test_the_online_fixture_shows_every_online_rule(repo, server):
    hosts = serve_web(server, repo / "web")
    online = OnlineRequest(allow=("127.0.0.1",), connect_to={(host, 80): ("127.0.0.1", server.port) for host in hosts},
                           timeout=5, host_interval=0)
    outcome = CheckRun(CheckRequest(paths=(repo,), online=online, use_cache=False)).check()
    found = sorted((d.path, d.line, d.code, d.message) for d in outcome.report.diagnostics)
    assert [(path, line, code) for path, line, code, _ in found] == [(path, line, code) for path, line, code, _ in EXPECTED]
    for (_, _, _, message), (_, _, _, named) in zip(found, EXPECTED, strict=True):
        assert named in message
    assert {code for *_, code, _ in EXPECTED} == {f"W70{n}" for n in range(1, 8)}  # (W708: the test below)


def test_a_run_whose_time_is_up_before_its_hosts_answer_reports_every_url_it_did_not_reach(repo, server):
    """W708 on the same files: the run's time limit (0.2 s) is up while the hosts wait 1 s each
    before they answer."""
    import time

    def slowly(request):
        time.sleep(1)
        return Response("<p>late</p>", content_type="text/html")

    hosts = {path.name for path in (repo / "web").iterdir()}
    server.expect_request("/robots.txt").respond_with_data("", status=404)
    server.expect_request(re.compile("/.+")).respond_with_handler(slowly)
    online = OnlineRequest(allow=("127.0.0.1",), connect_to={(host, 80): ("127.0.0.1", server.port) for host in hosts},
                           timeout=5, host_interval=0, time_limit=0.2)
    outcome = CheckRun(CheckRequest(paths=(repo,), online=online, use_cache=False)).check()
    found = [(d.path, d.code) for d in outcome.report.diagnostics]
    assert "W708" in {code for _, code in found} <= {"W707", "W708"}  # (the metadata address may be refused in time)
    assert {path for path, code in found if code == "W708"} == {
        "briefs/2026-02-11-rates.md", "exchanges/rates-question.exchange.json", "runs/2026-02-11-rates/citations/citations.jsonl"}
    assert any("the online check's time (0.2 s) was up" in notice for notice in outcome.notices)


def test_offline_the_fixture_is_clean(repo):
    outcome = CheckRun(CheckRequest(paths=(repo,), use_cache=False)).check()
    assert outcome.report.diagnostics == []

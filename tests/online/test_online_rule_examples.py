"""The online rules' documented examples: the bad one fires and the good one is clean, against the
web each example writes out (its ``http`` blocks), served on 127.0.0.1 for the example's host."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from pytest_citations.engine import load_plugins
from pytest_citations.online.run import OnlineRequest
from pytest_citations.run.checking import CheckRequest, CheckRun
from rule_examples import build, examples, pages

_, REGISTRY = load_plugins()
ONLINE_RULES = [item for item in REGISTRY if item.code.startswith("W")]


def test_every_online_rule_is_tested_here():
    assert [item.code for item in ONLINE_RULES] == [f"W70{n}" for n in range(1, 9)]


# The run's time limit an example is written for (its text says so), in seconds.
TIME_LIMITS = {"W708": 3.0}


@pytest.mark.parametrize("item", ONLINE_RULES, ids=lambda r: r.code)
@pytest.mark.parametrize("case", ["bad", "good"])
def test_online_rule_examples(item, case, tmp_path, server):
    files = examples(item.doc)[case]
    web = pages(files)
    hosts = {urlsplit(url).hostname for url in web}
    for url, page in web.items():
        server.expect_request(urlsplit(url).path).respond_with_data(page.body, status=page.status, headers=page.headers)
    server.expect_request("/robots.txt").respond_with_data("", status=404)  # (unless the example serves one)
    repo = tmp_path / "repo"
    build(files, repo)
    online = OnlineRequest(allow=("127.0.0.1",), connect_to={(host, 80): ("127.0.0.1", server.port) for host in hosts},
                           timeout=3, host_interval=0, time_limit=TIME_LIMITS.get(item.code))
    outcome = CheckRun(CheckRequest(paths=(repo,), online=online, use_cache=False)).check()
    codes = [d.code for d in outcome.report.diagnostics]
    if case == "bad":
        assert item.code in codes, f"{item.code}: bad example did not fire; got {outcome.report.diagnostics}"
    else:
        assert item.code not in codes, f"{item.code}: good example fired: {outcome.report.diagnostics}"

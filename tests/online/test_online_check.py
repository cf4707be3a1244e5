"""The online check end to end: records, briefs and Claude exchanges citing pages that a real HTTP
server on 127.0.0.1 serves as ``http://news.example/...`` (mapped with connect-to), checked by
``citations check --online`` and ``pytest --citations --citations-online``."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import same_code_environment
from pytest_citations.online.run import OnlineRequest
from pytest_citations.run.checking import CheckRequest, CheckRun, RunError
from url_records import valid_record

HOST = "news.example"


@pytest.fixture
def web(server):
    """The server, with no robots.txt (everything allowed)."""
    server.expect_request("/robots.txt").respond_with_data("", status=404)
    return server


def serve(web, path: str, body: str = "", status: int = 200, headers: dict | None = None,
          content_type: str = "text/html") -> str:
    web.expect_request(path).respond_with_data(body, status=status, headers=headers, content_type=content_type)
    return f"http://{HOST}{path}"


def online(web, **options) -> OnlineRequest:
    return OnlineRequest(allow=("127.0.0.1",), connect_to={(HOST, 80): ("127.0.0.1", web.port)},
                         timeout=3, host_interval=0, **options)


def check(repo: Path, web, cache: Path | None = None, online_request: OnlineRequest | None = None, **request):
    chosen = online(web) if online_request is None else online_request
    outcome = CheckRun(CheckRequest(paths=(repo,), online=chosen, cache_dir=cache, **request)).check()
    return outcome


def found(outcome, prefix: str = "W") -> list[tuple[str, int, str]]:
    return [(d.code, d.line, d.message) for d in outcome.report.diagnostics if d.code.startswith(prefix)]


def write_records(repo: Path, *records: dict) -> Path:
    path = repo / "run" / "citations" / "citations.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


# -- citation.v1 records -----------------------------------------------------------------------


def test_a_record_of_a_dead_page_is_w701_and_fix_writes_its_status(tmp_path, web):
    gone = serve(web, "/gone", "<h1>not here</h1>", status=404)
    live = serve(web, "/live", "<h1>here</h1>")
    path = write_records(tmp_path, valid_record(gone), valid_record(live), valid_record(gone, status="invalid", http_status=404))
    outcome = check(tmp_path, web)
    assert [(code, line) for code, line, _ in found(outcome)] == [("W701", 1)]
    message = found(outcome)[0][2]
    assert "404 Not Found" in message and "the record says status 'valid', http_status 200" in message

    CheckRun(CheckRequest(paths=(tmp_path,), online=online(web), fix=True)).check()
    first = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    assert (first["status"], first["http_status"], first["url_original"]) == ("invalid", 404, gone)
    assert first["checked_at"] != "2026-02-13T12:35:00Z"
    assert found(check(tmp_path, web)) == []


def test_a_record_that_says_invalid_for_a_live_page_is_w703(tmp_path, web):
    live = serve(web, "/back", "<h1>back again</h1>")
    path = write_records(tmp_path, valid_record(live, status="invalid", http_status=404))
    assert [code for code, _, _ in found(check(tmp_path, web))] == ["W703"]
    CheckRun(CheckRequest(paths=(tmp_path,), online=online(web), fix=True)).check()
    record = json.loads(path.read_text(encoding="utf-8"))
    assert (record["status"], record["http_status"]) == ("valid", 200)


@pytest.mark.parametrize("status", [401, 403, 451])
def test_a_page_that_refuses_this_client_contradicts_no_record_and_is_w706(tmp_path, web, status):
    """Many sites refuse a client that is not a browser, and a store of files may answer 403 for a
    key it does not have: the record's own verdict stands, and --fix leaves it as it is."""
    refused = [serve(web, f"/refused-{n}", "<h1>Access denied</h1>", status=status) for n in range(3)]
    path = write_records(tmp_path, valid_record(refused[0]), valid_record(refused[1], status="invalid", http_status=404),
                         valid_record(refused[2], status="blocked", http_status=status))
    before = path.read_text(encoding="utf-8")
    findings = found(check(tmp_path, web))
    assert [(code, line) for code, line, _ in findings] == [("W706", 1), ("W706", 2)]
    assert "which could not be checked: " in findings[0][2] and "(the page is blocked to this client)" in findings[0][2]
    CheckRun(CheckRequest(paths=(tmp_path,), online=online(web), fix=True)).check()
    assert path.read_text(encoding="utf-8") == before


def test_fix_adds_http_status_when_absent_and_takes_it_out_without_an_http_answer(tmp_path, web):
    paywalled = serve(web, "/paid", "<p>subscribe</p>", status=402)
    record = valid_record(paywalled)
    del record["http_status"]
    path = write_records(tmp_path, record, valid_record("http://no-such-host.invalid/a"))
    request = CheckRequest(paths=(tmp_path,), online=online(web), fix=True)
    CheckRun(request).check()
    first, second = (json.loads(line) for line in path.read_text(encoding="utf-8").splitlines())
    assert (first["status"], first["http_status"]) == ("paywalled", 402)
    assert second["status"] == "invalid" and "http_status" not in second
    assert found(check(tmp_path, web)) == []


def test_a_permanent_redirect_is_w702_naming_its_target(tmp_path, web):
    serve(web, "/new", "<h1>moved here</h1>")
    old = serve(web, "/old", status=301, headers={"Location": "/new"})
    temporary = serve(web, "/temp", status=302, headers={"Location": "/new"})
    write_records(tmp_path, valid_record(old), valid_record(temporary))
    results = found(check(tmp_path, web))
    assert [(code, line) for code, line, _ in results] == [("W702", 1)]
    assert f"http://{HOST}/new" in results[0][2]


def test_a_url_to_an_internal_address_is_refused_with_w707(tmp_path, web):
    local_file = valid_record("http://files.example/passwd")
    local_file["url"] = "file:///etc/passwd"
    write_records(tmp_path, valid_record("http://169.254.169.254/latest/meta-data/"), local_file)
    results = found(check(tmp_path, web))
    assert [code for code, _, _ in results] == ["W707", "W707"]


# -- briefs and Claude exchanges ---------------------------------------------------------------

_REGISTRY = """\
sources:
  - id: fed_press_releases
    url: http://news.example/feeds/press.xml
    credibility_tier: 1
    paywall_policy: full
  - id: ft_markets
    url: http://news.example/markets
    credibility_tier: 2
    paywall_policy: metadata_only
"""


def write_brief(repo: Path, quote: str, urls: tuple[str, str]) -> None:
    brief = (
        "### Prevailing View\n- The Fed held rates. [1]\n- Markets shrugged. [2]\n\n"
        "### Counterarguments\n- [Insufficient evidence to assess this claim]\n\n"
        "### Minority View\n- [Conflicting reports; unable to confirm]\n\n"
        "### What to Watch\n- [Data not yet available as of Feb 11, 2026]\n\n"
        "### References\n"
        f'[1] Federal Reserve. "FOMC Statement". Feb 10, 2026. {urls[0]}\n'
        f'[2] Financial Times. "Markets". Feb 10, 2026. {urls[1]} [Paywall]\n'
    )
    common = {"published_at": "2026-02-10T14:00:00Z", "fetched_at": "2026-02-11T02:15:00Z"}
    sidecar = {"citations": {
        "1": {"id": "cite_1", "source_id": "fed_press_releases", "publisher": "Federal Reserve", "doc_id": "doc_1",
              "chunk_id": "chunk_1", "url": urls[0], "title": "FOMC Statement",
              "quote_span": {"start": 0, "end": len(quote), "text": quote}, **common},
        "2": {"id": "cite_2", "source_id": "ft_markets", "publisher": "Financial Times", "doc_id": "doc_2",
              "chunk_id": "chunk_2", "url": urls[1], "title": "Markets", **common},
    }}
    (repo / "brief.md").write_text(brief, encoding="utf-8")
    (repo / "brief.citations.json").write_text(json.dumps(sidecar), encoding="utf-8")
    (repo / "source_registry.yaml").write_text(_REGISTRY, encoding="utf-8")


def test_a_brief_quote_not_on_its_page_is_w705_with_the_closest_words(tmp_path, web):
    statement = serve(web, "/statement", "<html><body><nav>Menu</nav><p>The Committee decided to maintain the "
                      "target range for the federal funds rate at 4 to 4-1/4 percent.</p></body></html>")
    markets = serve(web, "/markets-today", "<p>Subscribe to continue reading</p>", status=402)
    write_brief(tmp_path, "The Committee decided to lower the target range for the federal funds rate", (statement, markets))
    results = found(check(tmp_path, web))
    assert [(code, line) for code, line, _ in results] == [("W705", 2)], results  # the paywalled source is metadata_only
    assert "closest" in results[0][2] and "maintain the target range" in results[0][2]

    write_brief(tmp_path, "The Committee decided to maintain the target range for the federal funds rate", (statement, markets))
    assert found(check(tmp_path, web)) == []


def test_a_full_text_source_now_behind_a_paywall_is_w704_naming_the_registry_policy(tmp_path, web):
    statement = serve(web, "/statement-paid", "<p>Sign in</p>", status=402)
    markets = serve(web, "/markets-free", "<p>Markets</p>")
    write_brief(tmp_path, "The Committee decided", (statement, markets))
    results = found(check(tmp_path, web))
    assert [code for code, _, _ in results] == ["W704"]
    assert "paywall_policy for 'fed_press_releases' is 'full'" in results[0][2]


def _exchange(url: str, cited: str) -> dict:
    return {"request": {"messages": [{"role": "user", "content": "Did the Fed move?"}]}, "response": {"content": [
        {"type": "text", "text": "No.", "citations": [{"type": "web_search_result_location", "cited_text": cited,
                                                       "url": url, "title": "Fed", "encrypted_index": "Eo8B"}]}]}}


def test_claude_cited_text_is_looked_for_on_the_page(tmp_path, web):
    page = serve(web, "/fed", "<p>The Fed held <em>rates</em> steady on Wednesday &mdash; as expected.</p>")
    (tmp_path / "a.exchange.json").write_text(json.dumps(_exchange(page, "The Fed held rates steady")), encoding="utf-8")
    (tmp_path / "b.exchange.json").write_text(json.dumps(_exchange(page, "The Fed cut rates sharply")), encoding="utf-8")
    results = [(d.path, d.code) for d in check(tmp_path, web).report.diagnostics if d.code.startswith("W")]
    assert results == [("b.exchange.json", "W705")]


def test_a_quote_carried_by_the_query_of_its_url_is_not_proven_by_a_page_that_echoes_it(tmp_path, web):
    """A search page shows what it is asked: citing it with the fabricated quote as its query made
    the quote 'found'. A text fragment (#:~:text=) is never sent to the server, and a quote of a
    word or two may share a query's words: neither is reported."""
    from werkzeug import Response

    web.expect_request("/search").respond_with_handler(
        lambda request: Response(f"<p>Results for {request.args.get('q', '')}</p><p>The Fed held rates steady.</p>",
                                 content_type="text/html"))
    echo = f"http://{HOST}/search?q=The+Fed+cut+rates+sharply"
    web.expect_request("/find/the-fed-cut-rates-sharply").respond_with_data(
        "", status=302, headers={"Location": "/search?q=The+Fed+cut+rates+sharply"})
    cases = {"a": (echo, "The Fed cut rates sharply"), "b": (f"http://{HOST}/search?q=rates#:~:text=The%20Fed%20held",
                                                               "The Fed held rates steady"),
             "c": (f"http://{HOST}/search?q=held+rates", "held rates"),
             "d": (f"http://{HOST}/find/the-fed-cut-rates-sharply", "The Fed cut rates sharply")}
    for name, (url, cited) in cases.items():
        (tmp_path / f"{name}.exchange.json").write_text(json.dumps(_exchange(url, cited)), encoding="utf-8")
    findings = [(d.path, d.code, d.message) for d in check(tmp_path, web).report.diagnostics if d.code.startswith("W")]
    assert [(path, code) for path, code, _ in findings] == [("a.exchange.json", "W705"), ("d.exchange.json", "W705")]
    assert "is in the query of its URL" in findings[0][2]


def test_a_page_marked_as_walled_that_gives_its_whole_text_has_its_quotes_looked_for(tmp_path, web):
    """A metered article marked as not free (schema.org isAccessibleForFree false) is served whole:
    its quotes are looked for in it (W705 for one it does not hold). Was: W704 alone, 'its quote
    cannot be checked', a warning: any fabricated quote of such an article passed. A short wall
    page still cannot be checked."""
    marked = ('<script type="application/ld+json">{"@type": "NewsArticle", "isAccessibleForFree": false}</script>'
              "<p>The Fed held rates steady on Wednesday.</p>"
              + "".join(f"<p>Paragraph {n} of the article goes on about the economy and the markets.</p>" for n in range(40)))
    article = serve(web, "/metered", marked)
    wall = serve(web, "/wall", '<script type="application/ld+json">{"isAccessibleForFree": false}</script>'
                               "<p>Subscribe to continue reading.</p>")
    cases = {"a": (article, "The Fed cut rates sharply"), "b": (article, "The Fed held rates steady"),
             "c": (wall, "The Fed cut rates sharply")}
    for name, (url, cited) in cases.items():
        (tmp_path / f"{name}.exchange.json").write_text(json.dumps(_exchange(url, cited)), encoding="utf-8")
    findings = sorted((d.path, d.code, d.message) for d in check(tmp_path, web).report.diagnostics if d.code.startswith("W"))
    assert [(path, code) for path, code, _ in findings] == [
        ("a.exchange.json", "W704"), ("a.exchange.json", "W705"), ("b.exchange.json", "W704"), ("c.exchange.json", "W704")]
    assert "cannot be checked" not in findings[2][2] and findings[3][2].endswith("its quote cannot be checked")


def test_a_pdf_larger_than_the_run_reads_is_w708_until_the_run_reads_more(tmp_path, web):
    """A PDF's table of objects is at its end: cut at the body limit, it gives no text, and its
    quotes cannot be checked. That is the run's limit, not the page's: W708, an error (was: W706, a
    warning, so a fabricated quote of any large report passed); --online-max-body reads more."""
    pytest.importorskip("pypdf")
    import os

    from .test_page_text import pdf_of

    pdf = pdf_of("The Fed held rates steady.")
    filler = b"%% " + os.urandom(3 << 19).hex().encode()[: 3 << 20] + b"\n"  # 3 MiB of comment before the table
    body = pdf.replace(b"xref\n", filler + b"xref\n", 1)
    body = body.replace(b"startxref\n%d" % pdf.index(b"xref\n"), b"startxref\n%d" % body.index(b"xref\n"))
    web.expect_request("/report.pdf").respond_with_data(body, content_type="application/pdf")
    url = f"http://{HOST}/report.pdf"
    (tmp_path / "a.exchange.json").write_text(json.dumps(_exchange(url, "The Fed held rates steady")), encoding="utf-8")
    (tmp_path / "b.exchange.json").write_text(json.dumps(_exchange(url, "The Fed cut rates sharply")), encoding="utf-8")

    cut = check(tmp_path, web, online_request=online(web, max_body=1))
    assert [(d.path, d.code) for d in cut.report.diagnostics if d.code.startswith("W")] == [
        ("a.exchange.json", "W708"), ("b.exchange.json", "W708")]
    assert "only its first 1 MiB were read (--online-max-body)" in cut.report.diagnostics[0].message
    whole = check(tmp_path, web, online_request=online(web, max_body=8))
    assert [(d.path, d.code) for d in whole.report.diagnostics if d.code.startswith("W")] == [("b.exchange.json", "W705")]


def test_a_quote_whose_page_the_run_could_not_hold_is_w708_an_error(tmp_path, web, monkeypatch):
    """The run holds a bounded amount of page text; a checkout can fill it with pages of its own so
    that the page of a fabricated quote comes after: that quote must fail the gate, not pass as a
    W706 warning (found by an attack: 13 pages of 5 MiB before the victim's). Here the run holds
    less than either page."""
    from pytest_citations.online import fetch as fetching

    monkeypatch.setattr(fetching, "MAX_RUN_TEXT", 5)
    first = serve(web, "/first", "<p>The attacker's own page.</p>")
    victim = serve(web, "/victim", "<p>The Fed held rates steady.</p>")
    (tmp_path / "a.exchange.json").write_text(json.dumps(_exchange(first, "own page")), encoding="utf-8")
    (tmp_path / "b.exchange.json").write_text(json.dumps(_exchange(victim, "The Fed cut rates sharply")), encoding="utf-8")
    outcome = check(tmp_path, web)
    found = [(d.path, d.code, d.severity.value, d.message) for d in outcome.report.diagnostics if d.code.startswith("W")]
    assert [(path, code, severity) for path, code, severity, _ in found] == [
        ("a.exchange.json", "W708", "error"), ("b.exchange.json", "W708", "error")]
    assert found[1][3].endswith("could not be checked against 'http://news.example/victim': 200 OK; the run already "
                                "holds 0 Mi characters of page text")
    assert any(notice.startswith("warning: the quotes of 2 URLs were not checked:") for notice in outcome.notices)


# -- the run -------------------------------------------------------------------------------------


def test_a_re_run_with_a_fresh_cache_makes_no_request(tmp_path, web):
    urls = [serve(web, f"/page{n}", f"<p>page {n}</p>") for n in range(5)]
    repo = tmp_path / "repo"
    write_records(repo, *(valid_record(url) for url in urls))
    cache = tmp_path / "cache"
    first = CheckRun(CheckRequest(paths=(repo,), online=online(web), cache_dir=cache))
    first.check()
    assert first.online_summary is not None and first.online_summary.requests == 5
    asked = len(web.log)
    again = CheckRun(CheckRequest(paths=(repo,), online=online(web), cache_dir=cache))
    outcome = again.check()
    assert len(web.log) == asked
    assert again.online_summary is not None and (again.online_summary.requests, again.online_summary.cached) == (0, 5)
    assert "online: 5 URLs on 1 host, 0 requests, 5 from the cache" in outcome.online_lines
    refreshed = CheckRun(CheckRequest(paths=(repo,), online=online(web, refresh=True), cache_dir=cache))
    refreshed.check()
    pages = [request.path for request, _ in web.log[asked:] if request.path != "/robots.txt"]
    assert sorted(pages) == [f"/page{n}" for n in range(5)]


def test_without_online_no_online_rule_runs(tmp_path, web):
    write_records(tmp_path, valid_record(serve(web, "/gone", status=404)))
    outcome = CheckRun(CheckRequest(paths=(tmp_path,))).check()
    assert found(outcome) == [] and not web.log


def test_online_options_without_online_and_online_with_standard_input_are_usage_errors(tmp_path):
    from pytest_citations.frontends.cli import main

    assert main(["check", str(tmp_path), "--online-allow", "127.0.0.1"]) == 2
    assert main(["check", "-", "--stdin-filename", "x.jsonl", "--online"]) == 2


def test_the_cli_and_pytest_give_the_same_online_findings(tmp_path, web):
    gone = serve(web, "/gone", status=404)
    moved = serve(web, "/moved", status=308, headers={"Location": "/here"})
    serve(web, "/here", "<p>here</p>")
    write_records(tmp_path, valid_record(gone), valid_record(moved), valid_record("http://10.0.0.7/x"))
    options = ["--online-allow", "127.0.0.1", "--online-connect-to", f"{HOST}:80:127.0.0.1:{web.port}"]
    cli = subprocess.run([sys.executable, "-m", "pytest_citations", "check", "--online", *options, "--format", "json", "."],
                         cwd=tmp_path, capture_output=True, text=True, env=same_code_environment(), timeout=120)
    assert cli.returncode == 1, cli.stderr
    from_cli = sorted((d["code"], d["line"]) for d in json.loads(cli.stdout)["diagnostics"] if d["code"].startswith("W"))
    assert from_cli == [("W701", 1), ("W702", 2), ("W707", 3)]
    assert "citations: online: 3 URLs on 2 hosts" in cli.stderr

    plugin = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--citations", "--citations-online",
                             *[option.replace("--online", "--citations-online") for option in options], "-q", "-rN"],
                            cwd=tmp_path, capture_output=True, text=True, env=same_code_environment(), timeout=120)
    assert plugin.returncode == 1, plugin.stdout + plugin.stderr
    for code, line in from_cli:
        assert f"citations.jsonl:{line}:" in plugin.stdout and code in plugin.stdout
    assert "citations: online: 3 URLs on 2 hosts" in plugin.stdout
    assert "fixable with `citations check --online --fix`" in plugin.stdout


def test_the_online_summary_defuses_host_names_from_the_checkout():
    from pytest_citations.online.run import OnlineSummary

    class Answer:
        url, outcome, status, redirects, final_url, detail = "http://::error::x/", "dns", None, (), "", "no such host"
        wall, text, requests, from_cache = None, None, 1, False

    lines = OnlineSummary({Answer.url: Answer()}).lines()  # type: ignore[dict-item]
    assert "::error::x" in lines[1]  # (named, but never where a runner reads a command)
    assert not any(line.lstrip().startswith("::") or "##[" in line for line in lines)
    assert "1 URL on 1 host" in lines[0]


def test_a_fully_qualified_name_is_the_same_host_in_the_summary_and_the_politeness_limits():
    from yarl import URL

    from pytest_citations.online.fetch import _site
    from pytest_citations.online.run import OnlineSummary

    @dataclass
    class Answer:
        url: str
        outcome, status, redirects, final_url, detail = "dns", None, (), "", "no such host"
        wall, text, requests, from_cache = None, None, 1, False

    urls = ["http://news.example./a", "http://NEWS.example/b", "http://news.example.:8080/c", "http://[::1]/d"]
    lines = OnlineSummary({url: Answer(url) for url in urls}).lines()  # type: ignore[misc]
    assert "4 URLs on 3 hosts" in lines[0]
    assert {_site(URL(url)) for url in urls[:2]} == {"http://news.example:80"}


def test_a_missing_online_extra_is_a_usage_error(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "pytest_citations.online.fetch", None)
    write_records(tmp_path, valid_record("http://news.example/a"))
    with pytest.raises(RunError, match=r"pytest-citations\[online\]"):
        CheckRun(CheckRequest(paths=(tmp_path,), online=OnlineRequest())).check()


# -- from a new user's review --------------------------------------------------------------------


def test_an_online_rule_s_suppression_is_not_unused_in_an_offline_run(tmp_path, web):
    statement = serve(web, "/statement", "<p>The Committee decided to maintain the target range.</p>")
    markets = serve(web, "/markets-free", "<p>Markets</p>")
    write_brief(tmp_path, "The Committee decided to lower the target range", (statement, markets))
    brief = tmp_path / "brief.md"
    text = brief.read_text(encoding="utf-8").replace("- The Fed held", "<!-- citations: disable-next-line W705 -- quoted from the print edition -->\n- The Fed held")
    brief.write_text(text, encoding="utf-8")
    assert found(check(tmp_path, web)) == []
    offline = CheckRun(CheckRequest(paths=(tmp_path,), use_cache=False)).check()
    assert [d.code for d in offline.report.diagnostics if d.code in ("C007", "W705")] == []


def test_a_network_that_answers_nothing_judges_no_url_and_fails_the_gate(tmp_path, web):
    """No URL is called dead (nothing is fixed), and none passes either: the check did not run."""
    write_records(tmp_path, *(valid_record(f"http://site{n}.offline.invalid/a") for n in range(3)))
    outcome = check(tmp_path, web)
    assert [(code, severity) for code, severity in ((d.code, d.severity.value) for d in outcome.report.diagnostics)
            if code.startswith("W")] == [("W708", "error")] * 3
    assert found(outcome, "W708")[0][2].endswith("which the online check did not reach: the network looks unreachable")
    assert any("network looks unreachable" in notice for notice in outcome.notices)
    assert not any(d.fix for d in outcome.report.diagnostics)


def test_names_the_dns_says_do_not_exist_are_dead_however_many(tmp_path, web):
    """The DNS answered them: the network is reachable. Was: a third made-up name made every cited
    URL unjudged (W706 warnings), a fabricated URL among them included."""
    write_records(tmp_path, *(valid_record(f"http://made-up-{n}.invalid/a") for n in range(3)),
                  valid_record(serve(web, "/fabricated", status=404)))
    outcome = check(tmp_path, web)
    assert [code for code, _, _ in found(outcome)] == ["W701"] * 4
    assert not any("unreachable" in notice for notice in outcome.notices)


def test_one_dead_host_among_live_ones_is_dead(tmp_path, web):
    write_records(tmp_path, valid_record("http://gone.invalid/a"), valid_record(serve(web, "/live", "<p>live</p>")))
    assert [code for code, _, _ in found(check(tmp_path, web))] == ["W701"]


@pytest.mark.parametrize("status", ["mismatch", "paywalled", "blocked"])
def test_a_live_page_does_not_contradict_a_content_or_wall_verdict(tmp_path, web, status):
    write_records(tmp_path, valid_record(serve(web, "/page", "<p>page</p>"), status=status))
    assert found(check(tmp_path, web)) == []


def test_a_dead_redirect_target_is_named(tmp_path, web):
    moved = serve(web, "/moved", status=308, headers={"Location": "http://gone.invalid/there"})
    write_records(tmp_path, valid_record(moved))
    (code, _, message), = found(check(tmp_path, web))
    assert code == "W701" and "redirects to 'http://gone.invalid/there'" in message


def test_a_mapped_port_is_fetched_whatever_an_unmapped_port_of_the_same_name_answered(tmp_path, web):
    web.expect_request("/live").respond_with_data("<p>live</p>", content_type="text/html")
    write_records(tmp_path, valid_record("https://site.invalid/x"), valid_record("http://site.invalid/live"))
    online = OnlineRequest(allow=("127.0.0.1",), connect_to={("site.invalid", 80): ("127.0.0.1", web.port)},
                           timeout=3, host_interval=0)
    outcome = CheckRun(CheckRequest(paths=(tmp_path,), online=online, use_cache=False)).check()
    assert [(code, line) for code, line, _ in found(outcome)] == [("W701", 1)]


def test_the_cli_says_how_online_findings_are_fixed_and_what_the_options_need(tmp_path, web, capsys):
    from pytest_citations.frontends.cli import main

    write_records(tmp_path, valid_record(serve(web, "/gone", status=404)))
    options = ["--online", "--online-allow", "127.0.0.1", "--online-connect-to", f"{HOST}:80:127.0.0.1:{web.port}",
               "--online-connect-to", "other.example:80:127.0.0.1:1", "--no-cache"]
    assert main(["check", str(tmp_path), *options]) == 1
    out, err = capsys.readouterr()
    assert "fixable with `citations check --online --fix`" in out
    assert "--online-connect-to other.example:80 matches no cited URL" in err and "citations: online: 1 URL on 1 host" in err
    assert main(["check", str(tmp_path), *options, "-q"]) == 1
    assert "citations: online:" not in capsys.readouterr().err
    assert main(["check", str(tmp_path), "--select", "W701"]) == 0
    assert "run only with --online" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["check", str(tmp_path), "--online", "--online-allow", "127.0.0.1/33"])


def test_pytest_citations_online_needs_citations(tmp_path):
    result = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--citations-online", "-q"], cwd=tmp_path,
                            capture_output=True, text=True, env=same_code_environment(), timeout=120)
    assert result.returncode == 4 and "add --citations" in result.stderr


def test_the_repository_s_pytest_settings_cannot_ask_for_the_online_check(tmp_path, web):
    """``addopts`` in the checkout's pytest settings is the pull request's: it may not turn the
    online check on, allow a private address or map a host (it reached 127.0.0.1 and printed a
    secret as W705's closest words)."""
    secret = serve(web, "/secret.txt", "The admin token is s3cr3t-4f9a", content_type="text/plain")
    exchange = _exchange(secret, "The admin token is")
    (tmp_path / "a.exchange.json").write_text(json.dumps(exchange), encoding="utf-8")
    addopts = (f"--citations-online --citations-online-allow 127.0.0.0/8 "
               f"--citations-online-connect-to {HOST}:80:127.0.0.1:{web.port}")
    (tmp_path / "pyproject.toml").write_text(f'[tool.pytest.ini_options]\naddopts = "{addopts}"\n\n[tool.citations]\n',
                                             encoding="utf-8")
    result = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--citations", "-q", "--noconftest"],
                            cwd=tmp_path, capture_output=True, text=True, env=same_code_environment(), timeout=120)
    assert not [request for request, _ in web.log if request.path == "/secret.txt"]
    assert "W70" not in result.stdout and "addopts) are ignored" in result.stdout


def test_an_answer_kept_under_an_allowance_is_not_given_to_a_run_without_it(tmp_path, web):
    web.expect_request("/inside").respond_with_data("<p>inside</p>", content_type="text/html")
    repo, cache = tmp_path / "repo", tmp_path / "cache"
    write_records(repo, valid_record(f"http://127.0.0.1:{web.port}/inside"))
    allowed = OnlineRequest(allow=("127.0.0.1",), timeout=3, host_interval=0)
    assert found(CheckRun(CheckRequest(paths=(repo,), online=allowed, cache_dir=cache)).check()) == []
    refused = CheckRun(CheckRequest(paths=(repo,), online=OnlineRequest(timeout=3), cache_dir=cache)).check()
    assert [code for code, _, _ in found(refused)] == ["W707"]
    again = CheckRun(CheckRequest(paths=(repo,), online=allowed, cache_dir=cache))
    again.check()
    assert again.online_summary is not None and again.online_summary.cached == 1


def test_a_page_is_prepared_once_for_its_quotes_and_the_closest_words_have_a_time_budget(tmp_path, web, monkeypatch):
    from pytest_citations.online import quotes
    from pytest_citations.online.run import WebAnswers

    page = serve(web, "/fed", "<p>The Fed held rates steady on Wednesday.</p>")
    exchange = _exchange(page, "The Fed cut rates")
    exchange["response"]["content"][0]["citations"] *= 3
    (tmp_path / "a.exchange.json").write_text(json.dumps(exchange), encoding="utf-8")
    quotes._prepared.cache_clear()
    results = found(check(tmp_path, web))
    assert [code for code, _, _ in results] == ["W705"] * 3 and "closest" in results[0][2]
    assert quotes._prepared.cache_info().misses == 1
    monkeypatch.setattr(WebAnswers, "closest_seconds_left", 0.0)
    results = found(check(tmp_path, web))
    assert all("the closest words were not looked for" in message for _, _, message in results)


def test_urls_not_answered_in_the_runs_time_are_w708_errors_and_the_run_says_so(tmp_path, web, capsys):
    from pytest_citations.frontends.cli import main

    def never(request):
        import time

        time.sleep(5)

    web.expect_request("/slow").respond_with_handler(never)
    write_records(tmp_path, valid_record(f"http://{HOST}/slow"))
    options = ["--online", "--online-allow", "127.0.0.1", "--online-connect-to", f"{HOST}:80:127.0.0.1:{web.port}",
               "--no-cache", "--online-time-limit", "1s", "--format", "json"]
    assert main(["check", str(tmp_path), *options, "--select", "W"]) == 1
    out, err = capsys.readouterr()
    [finding] = json.loads(out)["diagnostics"]
    assert (finding["code"], finding["severity"], finding["line"], finding["message"]) == (
        "W708", "error", 1,
        f"the record cites 'http://{HOST}/slow', which the online check did not reach: the online check's time for a run "
        "(1 s) was up")
    assert ("warning: the online check's time (1 s) was up: 1 of 1 URLs were not reached (W708); --online-time-limit "
            "(--citations-online-time-limit under pytest) gives it more") in err


@pytest.mark.parametrize("value", ["0", "0s", "soon", "-5m"])
def test_a_time_limit_of_no_time_is_a_usage_error(tmp_path, capsys, value):
    from pytest_citations.frontends.cli import main

    with pytest.raises(SystemExit) as stopped:
        main(["check", str(tmp_path), "--online", "--online-time-limit", value])
    assert stopped.value.code == 2 and "--online-time-limit" in capsys.readouterr().err


def test_a_baseline_knows_an_online_finding_whatever_the_web_answers_this_time(tmp_path, web, capsys):
    """A dead page answers 404 today and 410 tomorrow, a busy one asks to wait 120 s today and 300 s
    tomorrow: the same findings, which a baseline written today still knows (it is matched by what
    a finding is, not by what the web said this time)."""
    from pytest_citations.frontends.cli import main

    repo = tmp_path / "repo"
    write_records(repo, valid_record(f"http://{HOST}/gone"), valid_record(f"http://{HOST}/busy"))
    (repo / "run" / "wave-1").mkdir()
    (repo / "run" / "wave-1" / "p1.md").write_text("notes\n")  # (what the records' found_by names)
    baseline = tmp_path / "baseline.json"

    def check_with(gone: int, wait: int, *more: str) -> tuple[int, list[tuple[str, str]]]:
        web.clear_all_handlers()
        web.expect_request("/robots.txt").respond_with_data("", status=404)
        web.expect_request("/gone").respond_with_data("", status=gone)
        web.expect_request("/busy").respond_with_data("", status=429, headers={"Retry-After": str(wait)})
        status = main(["check", str(repo), "--online", "--online-allow", "127.0.0.1", "--online-connect-to",
                       f"{HOST}:80:127.0.0.1:{web.port}", "--no-cache", "--format", "json", *more])
        out = capsys.readouterr().out
        return status, [(d["code"], d["message"]) for d in json.loads(out)["diagnostics"]] if out else []

    status, today = check_with(404, 120)
    check_with(404, 120, "--write-baseline", str(baseline))
    assert [code for code, _ in today] == ["W701", "W706"] and "404 Not Found" in today[0][1] and "120 s" in today[1][1]
    assert check_with(410, 300, "--baseline", str(baseline)) == (0, [])
    status, tomorrow = check_with(410, 300)
    assert [code for code, _ in tomorrow] == ["W701", "W706"] and "410 Gone" in tomorrow[0][1] and "300 s" in tomorrow[1][1]


def test_a_pdf_the_reader_could_not_read_within_its_limits_is_w708(tmp_path, web, monkeypatch):
    """A dense table, a map, a large scan: a PDF that pypdf reads only past the reader's limits
    leaves its quotes unchecked by the checker's doing, not the page's: W708, an error (was W706,
    a warning: the checkout picks the PDF it misquotes). An encrypted PDF is W706: that is the PDF."""
    pytest.importorskip("pypdf")
    from pytest_citations.core import pdf_text

    from .test_page_text import pdf_of

    web.expect_request("/table.pdf").respond_with_data(pdf_of("The Fed held rates steady."), content_type="application/pdf")
    url = f"http://{HOST}/table.pdf"
    (tmp_path / "a.exchange.json").write_text(json.dumps(_exchange(url, "The Fed cut rates sharply")), encoding="utf-8")
    monkeypatch.setattr(pdf_text, "read", lambda body: pdf_text.PdfText(None, unread=pdf_text.TOO_COSTLY, limited=True))
    findings = [(d.code, d.message) for d in check(tmp_path, web).report.diagnostics if d.code.startswith("W")]
    assert [code for code, _ in findings] == ["W708"] and findings[0][1].endswith(pdf_text.TOO_COSTLY)
    monkeypatch.setattr(pdf_text, "read", lambda body: pdf_text.PdfText(None, unread="the PDF is encrypted"))
    assert [d.code for d in check(tmp_path, web).report.diagnostics if d.code.startswith("W")] == ["W706"]

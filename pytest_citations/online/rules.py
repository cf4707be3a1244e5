'''Online rules (W7xx): what the live web says of the URLs artifacts cite. They run only in an
online run (``citations check --online``, ``pytest --citations --citations-online``), on the web
citations each kind gives (:class:`~pytest_citations.online.web_citation.WebCitation`), against the
answers fetched for the run (:mod:`pytest_citations.online.run`). Whatever the answer means is
decided once, in :mod:`pytest_citations.online.verdicts`.

Their examples show the web as a server answers it: an ``http`` block titled with a URL is that
URL's whole response.
'''

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

from pytest_citations.core.diagnostics import Severity, quoted
from pytest_citations.online.verdicts import State, checked_at, moved_to, verdict
from pytest_citations.online.web_citation import WebCitation
from pytest_citations.rules import Finding, rule

if TYPE_CHECKING:
    from pytest_citations.contexts import RuleContext
    from pytest_citations.online.fetch import Answer

ONLINE_HELP = "docs/online.md"
# Statuses a live page does not contradict: "mismatch" judges the page's content against the
# citation, and a paywall or block may show only to a browser (a script's wall answers 200).
_NOT_CONTRADICTED_BY_A_PAGE = frozenset(("mismatch", "paywalled", "blocked"))
# Outcomes of a URL the run did not reach: its time was up, or its network looked unreachable.
_NOT_REACHED = frozenset(("time-up", "unreachable"))


def _answer(c: WebCitation, ctx: RuleContext) -> Answer | None:
    web = ctx.file.engine.web
    return None if web is None else web.get(c.url)


def _at(c: WebCitation, message: str, fix=None, *, known_as: str) -> Finding:
    """The finding ``message`` at the citation; ``known_as`` is what baselines and fingerprints
    know it by: the message without what the web may answer otherwise next time for the same
    finding (a reason, a redirect's target, the closest words of a page)."""
    return Finding(message, c.line, c.col, fix=fix, context=c.context, identity=known_as)


def _says(c: WebCitation) -> str:
    """What a record says of its producer's fetch, as the end of a message."""
    recorded = c.recorded
    if recorded is None:
        return ""
    said = f"status {quoted(recorded.status)}"
    if recorded.http_status is not None:
        said += f", http_status {quoted(recorded.http_status)}"
    return f"; the record says {said}"


def _redirected(answer: Answer) -> str:
    """`` (it redirects to X)`` when the answer's end lies past redirects, else nothing."""
    return f" (it redirects to {quoted(answer.final_url)})" if answer.redirects else ""


def _record_fix(c: WebCitation, answer: Answer, status: str):
    recorded = c.recorded
    if recorded is None or c.context is None:
        return None
    http_status = answer.status if answer.outcome == "ok" else None
    return recorded.fix(status, http_status, checked_at(answer), c.context)


@rule("W701", "dead-url", unit=WebCitation, fixable=True)
def dead_url(c: WebCitation, ctx: RuleContext) -> Iterator[Finding]:
    """
    ## What it does
    In an online run, reports a cited URL whose page is gone: its host does not exist, no
    connection or TLS handshake can be made, it answers 404, 410 or another 4xx that says the page
    is not there, or its redirects go round in a loop. A `citation.v1` record whose `status` is
    already `invalid` is not reported: it says so itself.

    ## Why is this bad?
    A citation whose page is gone proves nothing, and a model may have invented the URL in the
    first place. A record that says `valid` for a dead page passes it on as evidence.

    ## Example

    Bad:

    ```jsonl title="run/citations/citations.jsonl"
    {"schema_version": "citation.v1", "normalized_url": "http://news.example/fed-holds", "cid": "cid_8b500dca15c1c946ad7e7958f3df5a3f066905001481db4425565aefde20623f", "url": "http://news.example/fed-holds", "url_original": "http://news.example/fed-holds", "status": "valid", "checked_at": "2026-02-13T12:35:00Z", "http_status": 200, "found_by": [], "notes": ""}
    ```

    ```http title="http://news.example/fed-holds"
    HTTP/1.1 404 Not Found
    Content-Type: text/html

    <h1>Page not found</h1>
    ```

    Good:

    ```jsonl title="run/citations/citations.jsonl"
    {"schema_version": "citation.v1", "normalized_url": "http://news.example/fed-holds", "cid": "cid_8b500dca15c1c946ad7e7958f3df5a3f066905001481db4425565aefde20623f", "url": "http://news.example/fed-holds", "url_original": "http://news.example/fed-holds", "status": "valid", "checked_at": "2026-02-13T12:35:00Z", "http_status": 200, "found_by": [], "notes": ""}
    ```

    ```http title="http://news.example/fed-holds"
    HTTP/1.1 200 OK
    Content-Type: text/html

    <h1>The Fed holds rates steady</h1>
    ```

    ## Fix
    Cite a page that exists, or drop the claim. For a `citation.v1` record,
    `citations check --online --fix` writes what the page answers now into `status` (`invalid`),
    `http_status` and `checked_at`; it never changes `url_original`.
    """
    answer = _answer(c, ctx)
    if answer is None:
        return
    found = verdict(answer)
    if found.state is not State.DEAD or (c.recorded is not None and c.recorded.status == "invalid"):
        return
    yield _at(c, f"{c.what} cites a dead URL {quoted(c.url)}{_redirected(answer)}: {found.reason}{_says(c)}",
              _record_fix(c, answer, "invalid"), known_as=f"{c.what} cites a dead URL {quoted(c.url)}")


@rule("W702", "moved-url", unit=WebCitation, severity=Severity.WARNING)
def moved_url(c: WebCitation, ctx: RuleContext) -> Iterator[Finding]:
    """
    ## What it does
    In an online run, reports a cited URL that redirects permanently (301 or 308, anywhere in its
    chain of redirects) to a live page, naming where the chain ends.

    ## Why is this bad?
    The page has moved: the citation works today only as long as the old address keeps
    redirecting, and a `citation.v1` record's `url` is meant to be the URL after redirects.

    ## Example

    Bad:

    ```jsonl title="run/citations/citations.jsonl"
    {"schema_version": "citation.v1", "normalized_url": "http://news.example/old-path", "cid": "cid_6929f989e8654af9482445b5fd647390ae1f5af3267737bc3cf1a377f4ccfa84", "url": "http://news.example/old-path", "url_original": "http://news.example/old-path", "status": "valid", "checked_at": "2026-02-13T12:35:00Z", "http_status": 200, "found_by": [], "notes": ""}
    ```

    ```http title="http://news.example/old-path"
    HTTP/1.1 301 Moved Permanently
    Location: /rates

    ```

    ```http title="http://news.example/rates"
    HTTP/1.1 200 OK
    Content-Type: text/html

    <h1>Rates</h1>
    ```

    Good:

    ```jsonl title="run/citations/citations.jsonl"
    {"schema_version": "citation.v1", "normalized_url": "http://news.example/rates", "cid": "cid_774e476bc0e59cfeecb9e5f12fa7cdce0abe412cf56fde054ae37f9d72904c02", "url": "http://news.example/rates", "url_original": "http://news.example/rates", "status": "valid", "checked_at": "2026-02-13T12:35:00Z", "http_status": 200, "found_by": [], "notes": ""}
    ```

    ```http title="http://news.example/rates"
    HTTP/1.1 200 OK
    Content-Type: text/html

    <h1>Rates</h1>
    ```

    ## Fix
    Cite the URL the redirects end at (for a `citation.v1` record, its `url`; `url_original`
    stays as extracted).
    """
    answer = _answer(c, ctx)
    if answer is None or verdict(answer).state is not State.LIVE:
        return
    target = moved_to(answer)
    if target is not None and target != c.url:
        hops = len(answer.redirects)
        chain = "a permanent redirect" if hops == 1 else f"{hops} redirects"
        yield _at(c, f"{c.what} cites {quoted(c.url)}, which has moved: {chain} to {quoted(target)}",
                  known_as=f"{c.what} cites {quoted(c.url)}, which has moved")


@rule("W703", "outdated-record-status", unit=WebCitation, fixable=True)
def outdated_record_status(c: WebCitation, ctx: RuleContext) -> Iterator[Finding]:
    """
    ## What it does
    In an online run, reports a `citation.v1` record whose `status` no longer says what its page
    answers: `invalid` for a page that is live again (or behind a paywall), `valid` for a page now
    behind a paywall (`paywalled`). A dead page under a record that does not say `invalid` is
    W701's. A live or walled page does not contradict `mismatch` (the producer's verdict on the
    page's content) or `paywalled` and `blocked` (a wall may show only to a browser). A page that
    refuses this client (401, 403, 451, or a bot challenge) contradicts no record: many sites
    refuse a client that is not a browser, and some answer 403 for a page they do not have; it is
    W706.

    ## Why is this bad?
    What reads the record (synthesis, utilization, a reader) trusts its `status`; one that is out
    of date passes a walled page as evidence or drops a good one.

    ## Example

    Bad:

    ```jsonl title="run/citations/citations.jsonl"
    {"schema_version": "citation.v1", "normalized_url": "http://news.example/report", "cid": "cid_f6d059aa5306afd83a9347cb468fd75c647afee458682fe9fbeee216fc0d06de", "url": "http://news.example/report", "url_original": "http://news.example/report", "status": "valid", "checked_at": "2026-02-13T12:35:00Z", "http_status": 200, "found_by": [], "notes": ""}
    ```

    ```http title="http://news.example/report"
    HTTP/1.1 402 Payment Required
    Content-Type: text/html

    <p>Subscribe to read this report.</p>
    ```

    Good:

    ```jsonl title="run/citations/citations.jsonl"
    {"schema_version": "citation.v1", "normalized_url": "http://news.example/report", "cid": "cid_f6d059aa5306afd83a9347cb468fd75c647afee458682fe9fbeee216fc0d06de", "url": "http://news.example/report", "url_original": "http://news.example/report", "status": "paywalled", "checked_at": "2026-02-13T12:35:00Z", "http_status": 402, "found_by": [], "notes": ""}
    ```

    ```http title="http://news.example/report"
    HTTP/1.1 402 Payment Required
    Content-Type: text/html

    <p>Subscribe to read this report.</p>
    ```

    ## Fix
    `citations check --online --fix` writes what the page answers now into `status`,
    `http_status` and `checked_at`; `url_original` is never changed.
    """
    answer = _answer(c, ctx)
    recorded = c.recorded
    if answer is None or recorded is None:
        return
    found = verdict(answer)
    if found.record_status in (None, "blocked", recorded.status) or found.state is State.DEAD:
        return  # ("blocked" may be to this client alone: W706's)
    if recorded.status in _NOT_CONTRADICTED_BY_A_PAGE and found.state in (State.LIVE, State.WALLED):
        return  # (the producer judged the content, or saw a wall this check cannot see)
    message = (f"the record's status {quoted(recorded.status)} is out of date: the page answers "
               f"{found.reason} now (status {quoted(found.record_status)})")
    yield _at(c, message, _record_fix(c, answer, found.record_status),
              known_as=f"the record's status {quoted(recorded.status)} is out of date: status {quoted(found.record_status)}")


@rule("W704", "walled-url", unit=WebCitation, severity=Severity.WARNING)
def walled_url(c: WebCitation, ctx: RuleContext) -> Iterator[Finding]:
    """
    ## What it does
    In an online run, reports a cited page behind a paywall, a sign-in or a block (401, 402, 403,
    451, or a known interstitial page), unless what cites it expects that: the source registry's
    `paywall_policy` is `metadata_only`, a References entry is tagged `[Paywall]`, or a
    `citation.v1` record's `status` is `paywalled` or `blocked` (W703 reports one that is not).

    ## Why is this bad?
    The page cannot be read to check the citation, and a source the registry lets briefs quote in
    full (`paywall_policy: full`) that is now paywalled is quoted from text no reader can see.

    ## Example

    Bad:

    ```json title="run/answer.exchange.json"
    {"request": {"messages": [{"role": "user", "content": "Did the Fed move?"}]}, "response": {"content": [{"type": "text", "text": "No.", "citations": [{"type": "web_search_result_location", "cited_text": "The Fed held rates steady.", "url": "http://news.example/fed-holds", "title": "Fed", "encrypted_index": "Eo8BCioIAhgBIiQ"}]}]}}
    ```

    ```http title="http://news.example/fed-holds"
    HTTP/1.1 403 Forbidden
    Content-Type: text/html

    <p>Access denied</p>
    ```

    Good:

    ```json title="run/answer.exchange.json"
    {"request": {"messages": [{"role": "user", "content": "Did the Fed move?"}]}, "response": {"content": [{"type": "text", "text": "No.", "citations": [{"type": "web_search_result_location", "cited_text": "The Fed held rates steady.", "url": "http://news.example/fed-holds", "title": "Fed", "encrypted_index": "Eo8BCioIAhgBIiQ"}]}]}}
    ```

    ```http title="http://news.example/fed-holds"
    HTTP/1.1 200 OK
    Content-Type: text/html

    <p>The Fed held rates steady.</p>
    ```

    ## Fix
    Cite a page readers can open, or mark the source as metadata-only in the registry
    (`paywall_policy: metadata_only`) and cite its headline or snippet only.
    """
    answer = _answer(c, ctx)
    if answer is None or c.recorded is not None:
        return
    found = verdict(answer)
    if found.state is not State.WALLED or c.paywall_policy == "metadata_only":
        return
    message = f"{c.what} cites {quoted(c.url)}, which is walled: {found.reason}"
    if c.paywall_policy is not None:
        message += (f"; the source registry's paywall_policy for {quoted(c.source_id)} is "
                    f"{quoted(c.paywall_policy)}")
    if c.quote is not None and not _gives_its_text(answer):
        message += "; its quote cannot be checked"
    yield _at(c, message, known_as=f"{c.what} cites {quoted(c.url)}, which is walled")


def _gives_its_text(answer: Answer) -> bool:
    """Whether a page the wall heuristics call walled answered 200 with an article's worth of text
    (a metered article marked as not free, a box that asks to subscribe under a whole article):
    its quotes are looked for in it (W705), whatever the wall."""
    from pytest_citations.online.page_text import SHORT_PAGE_WORDS

    return (answer.status is not None and 200 <= answer.status < 300 and answer.text is not None
            and len(answer.text.split(maxsplit=SHORT_PAGE_WORDS)) > SHORT_PAGE_WORDS)


@rule("W705", "quote-not-on-page", unit=WebCitation)
def quote_not_on_page(c: WebCitation, ctx: RuleContext) -> Iterator[Finding]:
    """
    ## What it does
    In an online run, reports a quote that an artifact attributes to a live page (a brief's
    `quote_span.text`, a Claude web search citation's `cited_text`) that the page's text does not
    hold, and says where the page's closest words are, when it has any. The page's HTML is reduced
    to its text; case, whitespace, entities and typographic quotes and dashes do not count, and an
    ellipsis in the quote may stand for any text in between. A quote of three words or more that
    the URL's own query holds is reported too: a page that shows what it is asked (a search page
    echoing its query) proves nothing of it.

    ## Why is this bad?
    A quote that is not on the page was invented, or the page changed after it was quoted: either
    way the claim it supports is no longer backed by its source.

    ## Example

    Bad:

    ```json title="run/answer.exchange.json"
    {"request": {"messages": [{"role": "user", "content": "Did the Fed move?"}]}, "response": {"content": [{"type": "text", "text": "No.", "citations": [{"type": "web_search_result_location", "cited_text": "The Fed cut rates by half a point.", "url": "http://news.example/fed-holds", "title": "Fed", "encrypted_index": "Eo8BCioIAhgBIiQ"}]}]}}
    ```

    ```http title="http://news.example/fed-holds"
    HTTP/1.1 200 OK
    Content-Type: text/html

    <p>The Fed held rates steady on Wednesday.</p>
    ```

    Good:

    ```json title="run/answer.exchange.json"
    {"request": {"messages": [{"role": "user", "content": "Did the Fed move?"}]}, "response": {"content": [{"type": "text", "text": "No.", "citations": [{"type": "web_search_result_location", "cited_text": "The Fed held rates steady", "url": "http://news.example/fed-holds", "title": "Fed", "encrypted_index": "Eo8BCioIAhgBIiQ"}]}]}}
    ```

    ```http title="http://news.example/fed-holds"
    HTTP/1.1 200 OK
    Content-Type: text/html

    <p>The Fed held <b>rates</b> steady on Wednesday.</p>
    ```

    ## Fix
    Quote the page as it reads now, or cite the page that holds the quote.
    """
    from pytest_citations.online.quotes import find_quote

    answer = _answer(c, ctx)
    if c.quote is None or answer is None or answer.text is None:
        return  # (W706 says why a quote could not be checked)
    state = verdict(answer).state
    if not (state is State.LIVE or (state is State.WALLED and _gives_its_text(answer))):
        return  # (W704 and W706 say why a quote could not be checked)
    web = ctx.file.engine.web
    left = getattr(web, "closest_seconds_left", None)
    started = time.process_time()
    match = find_quote(c.quote, answer.text, closest=left is None or left > 0)
    if left is not None:
        web.closest_seconds_left = left - (time.process_time() - started)  # type: ignore[union-attr]
    if match.found:
        if any(_carried_by_its_query(c.quote, url) for url in {c.url, answer.final_url}):  # (and where it led)
            yield _at(c, f"the quote of {c.what} is in the query of its URL {quoted(c.url)} (or of where it led): a page that shows what it is "
                         "asked (a search page) proves nothing of it",
                      known_as=f"the quote of {c.what} is in the query of its URL {quoted(c.url)}")
        return
    message = known_as = f"the quote of {c.what} is not on the page {quoted(c.url)}"
    if answer.truncated:
        message += " (only the first part of the page was read: it is larger than the online check reads)"
    if left is not None and left <= 0:
        message += "; the closest words were not looked for (the run spent the time it allows for that)"
    elif match.closest is not None:
        similar = min(99, int(match.similarity * 100))  # (rounded down: a quote not found is never "100%")
        message += f"; closest ({similar}% similar): {quoted(match.closest)}"
    else:
        message += "; nothing on the page comes close"
    yield _at(c, message, known_as=known_as)


def _carried_by_its_query(quote: str, url: str) -> bool:
    """Whether the URL's query string holds the quote (of three words or more): a page found to hold
    it may only show what it was asked, as a search page shows its query."""
    from urllib.parse import unquote_plus, urlsplit

    from pytest_citations.online.quotes import find_quote, quote_parts

    try:
        query = unquote_plus(urlsplit(url).query)
    except ValueError:
        return False
    return bool(query) and len(" ".join(quote_parts(quote)).split()) >= 3 and find_quote(quote, query, closest=False).found


@rule("W706", "unchecked-url", unit=WebCitation, severity=Severity.WARNING)
def unchecked_url(c: WebCitation, ctx: RuleContext) -> Iterator[Finding]:
    """
    ## What it does
    In an online run, reports a cited URL that could not be checked: it timed out, answered 429 or
    5xx to the last retry, asked to wait longer than the check waits (`Retry-After`), answered in
    a form this check cannot read as HTTP, or its `robots.txt` does not let the checker fetch it;
    a `citation.v1` record's URL whose page refuses this client (401, 403, 451 or a bot challenge)
    although the record does not say `blocked`; and a quote whose page gives no text to check it
    against (a type with no text, or a PDF without the `pdf` extra).

    ## Why is this bad?
    Nothing is known of such a citation. It is a warning, not an error: the page may be fine, and
    a server's bad minute must not fail the gate. It says that the citation is not proven.

    ## Example

    Bad:

    ```json title="run/answer.exchange.json"
    {"request": {"messages": [{"role": "user", "content": "Did the Fed move?"}]}, "response": {"content": [{"type": "text", "text": "No.", "citations": [{"type": "web_search_result_location", "cited_text": "The Fed held rates steady.", "url": "http://news.example/fed-holds", "title": "Fed", "encrypted_index": "Eo8BCioIAhgBIiQ"}]}]}}
    ```

    ```http title="http://news.example/robots.txt"
    HTTP/1.1 200 OK
    Content-Type: text/plain

    User-agent: *
    Disallow: /
    ```

    Good:

    ```json title="run/answer.exchange.json"
    {"request": {"messages": [{"role": "user", "content": "Did the Fed move?"}]}, "response": {"content": [{"type": "text", "text": "No.", "citations": [{"type": "web_search_result_location", "cited_text": "The Fed held rates steady.", "url": "http://news.example/fed-holds", "title": "Fed", "encrypted_index": "Eo8BCioIAhgBIiQ"}]}]}}
    ```

    ```http title="http://news.example/fed-holds"
    HTTP/1.1 200 OK
    Content-Type: text/html

    <p>The Fed held rates steady.</p>
    ```

    ## Fix
    Run the online check again later; cite a page whose site lets checkers read it. A quote from a
    PDF is checked once the `pdf` extra is installed (`pip install 'pytest-citations[pdf]'`).
    """
    answer = _answer(c, ctx)
    if answer is None:
        return
    found = verdict(answer)
    refused_to_this_client = (found.record_status == "blocked" and c.recorded is not None
                              and c.recorded.status != "blocked")
    if answer.outcome in _NOT_REACHED:
        return  # (W708's: a limit of the run, or its network, which the gate does not let pass)
    if found.state is State.UNCHECKED or refused_to_this_client:
        yield _at(c, f"{c.what} cites {quoted(c.url)}, which could not be checked: {found.reason}",
                  known_as=f"{c.what} cites {quoted(c.url)}, which could not be checked")
    elif found.state is State.LIVE and c.quote is not None and answer.text is None and not answer.text_past_run_limits:
        why = answer.detail or f"a page of type {quoted(answer.content_type or 'unknown')} gives no text"
        yield _at(c, f"the quote of {c.what} could not be checked against {quoted(c.url)}: {why}",
                  known_as=f"the quote of {c.what} could not be checked against {quoted(c.url)}")


@rule("W707", "refused-url", unit=WebCitation)
def refused_url(c: WebCitation, ctx: RuleContext) -> Iterator[Finding]:
    """
    ## What it does
    In an online run, reports a cited URL the checker refuses to fetch: a scheme other than `http`
    and `https`, or a host that is, resolves to or redirects to a private, loopback, link-local or
    otherwise non-public address (a cloud's metadata service at `169.254.169.254`, `localhost`, a
    `10.x` host), unless the command line allows it (`--online-allow`).

    ## Why is this bad?
    A citation is to a public source, which any reader can open. A URL to an internal address is
    not one; fetched from a CI machine, it would let a pull request reach what only that machine
    can reach.

    ## Example

    Bad:

    ```json title="run/answer.exchange.json"
    {"request": {"messages": [{"role": "user", "content": "Which region?"}]}, "response": {"content": [{"type": "text", "text": "The east.", "citations": [{"type": "web_search_result_location", "cited_text": "us-east-1", "url": "http://169.254.169.254/latest/meta-data/placement/region", "title": "Region", "encrypted_index": "Eo8BCioIAhgBIiQ"}]}]}}
    ```

    Good:

    ```json title="run/answer.exchange.json"
    {"request": {"messages": [{"role": "user", "content": "Did the Fed move?"}]}, "response": {"content": [{"type": "text", "text": "No.", "citations": [{"type": "web_search_result_location", "cited_text": "The Fed held rates steady.", "url": "http://news.example/fed-holds", "title": "Fed", "encrypted_index": "Eo8BCioIAhgBIiQ"}]}]}}
    ```

    ```http title="http://news.example/fed-holds"
    HTTP/1.1 200 OK
    Content-Type: text/html

    <p>The Fed held rates steady.</p>
    ```

    ## Fix
    Cite a public page. To check artifacts that cite an internal host on purpose, allow it on the
    command line: `citations check --online --online-allow wiki.internal.example` (settings in the
    repository cannot allow it).
    """
    answer = _answer(c, ctx)
    if answer is not None and verdict(answer).state is State.REFUSED:
        hint = "; allow the host on the command line (--online-allow) to fetch it" if answer.outcome == "refused-address" else ""
        yield _at(c, f"{c.what} cites {quoted(c.url)}{_redirected(answer)}, which is not fetched: {answer.detail}{hint}",
                  known_as=f"{c.what} cites {quoted(c.url)}, which is not fetched")


@rule("W708", "run-limit-reached", unit=WebCitation)
def run_limit_reached(c: WebCitation, ctx: RuleContext) -> Iterator[Finding]:
    """
    ## What it does
    In an online run, reports a cited URL the check did not reach before its time for the run was
    up (`--online-time-limit`, 5 minutes by default), or at all because the network looked
    unreachable (none of three or more cited hosts answered), and a quote whose page answered but
    whose text the run could not hold (it holds 64 Mi characters of page text at most) or could not
    read (a page larger than `--online-max-body`, 5 MiB by default, whose first part gives no text,
    as a PDF's does not; a PDF the reader could not read within its limits, or without the `pdf`
    extra): a limit of the run, not a fault of the cited server.

    ## Why is this bad?
    The gate cannot vouch for a citation it did not check. A warning would let a pull request that
    cites enough hosts that never answer, or enough large pages, push any URL or quote past the
    limit, a fabricated one included, and pass. So the run fails, and says how many URLs it did
    not reach.

    ## Example

    Bad (with `--online-time-limit 3s`: the host asks to wait 10 s before it answers):

    ```jsonl title="run/citations/citations.jsonl"
    {"schema_version": "citation.v1", "normalized_url": "http://news.example/fed-holds", "cid": "cid_8b500dca15c1c946ad7e7958f3df5a3f066905001481db4425565aefde20623f", "url": "http://news.example/fed-holds", "url_original": "http://news.example/fed-holds", "status": "valid", "checked_at": "2026-02-13T12:35:00Z", "http_status": 200, "found_by": [], "notes": ""}
    ```

    ```http title="http://news.example/fed-holds"
    HTTP/1.1 429 Too Many Requests
    Retry-After: 10

    Slow down.
    ```

    Good (with `--online-time-limit 3s`):

    ```jsonl title="run/citations/citations.jsonl"
    {"schema_version": "citation.v1", "normalized_url": "http://news.example/fed-holds", "cid": "cid_8b500dca15c1c946ad7e7958f3df5a3f066905001481db4425565aefde20623f", "url": "http://news.example/fed-holds", "url_original": "http://news.example/fed-holds", "status": "valid", "checked_at": "2026-02-13T12:35:00Z", "http_status": 200, "found_by": [], "notes": ""}
    ```

    ```http title="http://news.example/fed-holds"
    HTTP/1.1 200 OK
    Content-Type: text/html

    <p>The Fed held rates steady.</p>
    ```

    ## Fix
    Give the run more time (`--online-time-limit 15m`), or find what took it: the run's summary
    names the hosts whose URLs were not checked. Cited hosts that never answer are best removed;
    a run that cites more than 64 Mi characters of pages with quotes is best split; a larger page
    is read with `--online-max-body 50` (MiB). Run the online
    check where the web can be reached (a runner that must use a proxy cannot).
    """
    answer = _answer(c, ctx)
    if answer is None:
        return
    if answer.outcome in _NOT_REACHED:
        yield _at(c, f"{c.what} cites {quoted(c.url)}, which the online check did not reach: {answer.detail}",
                  known_as=f"{c.what} cites {quoted(c.url)}, which the online check did not reach")
    elif answer.text_past_run_limits and c.quote is not None and answer.text is None:
        yield _at(c, f"the quote of {c.what} could not be checked against {quoted(c.url)}: {answer.detail}",
                  known_as=f"the quote of {c.what} could not be checked against {quoted(c.url)}")

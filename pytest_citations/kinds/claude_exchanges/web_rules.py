'''Rules on web search citations (A611, A612): an absolute http(s) URL and a quote no longer than
the API returns (A611), among the web search results of the exchange (A612).'''

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from pytest_citations.kinds.claude_exchanges.cited_text import _show
from pytest_citations.kinds.claude_exchanges.model import Citation
from pytest_citations.rules import rule

if TYPE_CHECKING:
    from pytest_citations.contexts import RuleContext

KIND = "claude-exchanges"
WEB_CITED_TEXT_LIMIT = 150


@rule("A611", "invalid-web-citation", kind=KIND)
def invalid_web_citation(c: Citation, ctx: RuleContext):
    """
    ## What it does
    Reports a `web_search_result_location` whose `url` is not an absolute `http` or `https` URL, or
    whose `cited_text` is longer than the 150 characters the API returns at most.

    ## Why is this bad?
    A reader cannot follow such a URL, and a longer quote was not returned by the API: it was added
    afterwards and nobody checked it against the page.

    ## Example

    Bad:

    ```json title="run/answer.exchange.json"
    {"request": {"messages": [{"role": "user", "content": "How efficient are heat pumps?"}]}, "response": {"content": [{"type": "text", "text": "Very.", "citations": [{"type": "web_search_result_location", "cited_text": "Heat pumps are efficient.", "url": "ftp://www.iea.org/reports/heat-pumps", "title": "Heat pumps", "encrypted_index": "Eo8BCioIAhgBIiQ"}]}]}}
    ```

    Good:

    ```json title="run/answer.exchange.json"
    {"request": {"messages": [{"role": "user", "content": "How efficient are heat pumps?"}]}, "response": {"content": [{"type": "text", "text": "Very.", "citations": [{"type": "web_search_result_location", "cited_text": "Heat pumps are efficient.", "url": "https://www.iea.org/reports/heat-pumps", "title": "Heat pumps", "encrypted_index": "Eo8BCioIAhgBIiQ"}]}]}}
    ```

    ## Fix
    Record the response as received.
    """
    if c.type != "web_search_result_location":
        return
    url = c.data["url"]
    try:
        parts = urlsplit(url)
        good = parts.scheme in ("http", "https") and bool(parts.netloc)
    except ValueError:
        good = False
    if not good:
        yield c.finding(f"url {_show(url)} is not an absolute http(s) URL")
    length = len(c.data["cited_text"])
    if length > WEB_CITED_TEXT_LIMIT:
        yield c.finding(f"cited_text has {length} characters, over the {WEB_CITED_TEXT_LIMIT} a web search citation holds")


@rule("A612", "web-url-not-in-results", kind=KIND)
def web_url_not_in_results(c: Citation, ctx: RuleContext):
    """
    ## What it does
    Reports a `web_search_result_location` whose `url` is not among the `web_search_result`s of the
    exchange's `web_search_tool_result` blocks (in the response or earlier turns), when the exchange
    holds any.

    ## Why is this bad?
    The model can only cite pages its searches returned; a URL that is not among them was added or
    changed after the fact.

    ## Example

    Bad:

    ```json title="run/answer.exchange.json"
    {"request": {"messages": [{"role": "user", "content": "How efficient are heat pumps?"}]}, "response": {"content": [{"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": [{"type": "web_search_result", "url": "https://www.iea.org/reports/heat-pumps", "title": "Heat pumps", "encrypted_content": "EqgfCioIARgBIiQ", "page_age": null}]}, {"type": "text", "text": "Very.", "citations": [{"type": "web_search_result_location", "cited_text": "Heat pumps are efficient.", "url": "https://www.example.com/heat-pumps", "title": "Heat pumps", "encrypted_index": "Eo8BCioIAhgBIiQ"}]}]}}
    ```

    Good:

    ```json title="run/answer.exchange.json"
    {"request": {"messages": [{"role": "user", "content": "How efficient are heat pumps?"}]}, "response": {"content": [{"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": [{"type": "web_search_result", "url": "https://www.iea.org/reports/heat-pumps", "title": "Heat pumps", "encrypted_content": "EqgfCioIARgBIiQ", "page_age": null}]}, {"type": "text", "text": "Very.", "citations": [{"type": "web_search_result_location", "cited_text": "Heat pumps are efficient.", "url": "https://www.iea.org/reports/heat-pumps", "title": "Heat pumps", "encrypted_index": "Eo8BCioIAhgBIiQ"}]}]}}
    ```

    ## Fix
    Record the whole response, search results included, and cite only what it returned.
    """
    if c.type != "web_search_result_location" or not c.exchange.has_web_results:
        return
    if c.data["url"] not in c.exchange.web_urls:
        yield c.finding(f"url {_show(c.data['url'])} is not among the {len(c.exchange.web_urls)} web search results of the exchange")

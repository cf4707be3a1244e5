"""The rules under which the claude-exchanges kind's reader reports what it cannot read: the
reader reports through these rule objects (``RULE.report(finding)``); they have no check of their own."""

from pytest_citations.rules import rule

KIND = "claude-exchanges"


@rule("A601", "invalid-exchange", kind=KIND, scope="engine")
def invalid_exchange():
    """
    ## What it does
    Reports an exchange file that cannot be read as `{"request": ..., "response": ...}`: JSON that
    does not parse (with the line and column), a duplicate key, `NaN`, nesting deeper than 500
    levels, a field of the wrong type (`messages` that is not an array, a `document_index` that is
    a string) or a citation without a field its type requires. In JSONL every other line is still
    checked. Extra fields (such as `file_id`) are tolerated.

    ## Why is this bad?
    A citation that cannot be read cannot be checked, and a pipeline that stores it anyway stores a
    pointer to nothing.

    ## Example

    Bad (`document_index` is a string):

    ```json title="run/answer.exchange.json"
    {"request": {"messages": [{"role": "user", "content": [{"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "The grass is green. The sky is blue."}, "title": "Colors"}]}]}, "response": {"content": [{"type": "text", "text": "The sky is blue.", "citations": [{"type": "char_location", "cited_text": "The sky is blue.", "document_index": "0", "document_title": "Colors", "start_char_index": 20, "end_char_index": 36}]}]}}
    ```

    Good:

    ```json title="run/answer.exchange.json"
    {"request": {"messages": [{"role": "user", "content": [{"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "The grass is green. The sky is blue."}, "title": "Colors"}]}]}, "response": {"content": [{"type": "text", "text": "The sky is blue.", "citations": [{"type": "char_location", "cited_text": "The sky is blue.", "document_index": 0, "document_title": "Colors", "start_char_index": 20, "end_char_index": 36}]}]}}
    ```

    ## Fix
    Store the request and response bodies exactly as sent and received (for example
    `message.model_dump(mode="json")` with the Python SDK), not a hand-edited copy.
    """


@rule("A602", "unknown-citation-type", kind=KIND, scope="engine")
def unknown_citation_type():
    """
    ## What it does
    Reports a citation whose `type` is not one of the documented types: `char_location`,
    `page_location`, `content_block_location`, `search_result_location`,
    `web_search_result_location`.

    ## Why is this bad?
    Nothing says what the fields of an unknown type mean, so the citation cannot be checked; it is
    usually a typo or a new API shape this tool does not know yet.

    ## Example

    Bad:

    ```json title="run/answer.exchange.json"
    {"request": {"messages": [{"role": "user", "content": [{"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "The grass is green. The sky is blue."}, "title": "Colors"}]}]}, "response": {"content": [{"type": "text", "text": "The sky is blue.", "citations": [{"type": "character_location", "cited_text": "The sky is blue.", "document_index": 0, "document_title": "Colors", "start_char_index": 20, "end_char_index": 36}]}]}}
    ```

    Good:

    ```json title="run/answer.exchange.json"
    {"request": {"messages": [{"role": "user", "content": [{"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "The grass is green. The sky is blue."}, "title": "Colors"}]}]}, "response": {"content": [{"type": "text", "text": "The sky is blue.", "citations": [{"type": "char_location", "cited_text": "The sky is blue.", "document_index": 0, "document_title": "Colors", "start_char_index": 20, "end_char_index": 36}]}]}}
    ```

    ## Fix
    Use the type the API returned; if the API added a type, upgrade pytest-citations.
    """

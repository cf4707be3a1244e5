"""claude-exchanges: structured citations returned by the Claude Messages API
(brief-citation-contract.md §2), checked against the request that produced them.

A file is claimed by its path and what it holds: ``**/*.exchange.json`` holds one exchange,
``**/*.exchanges.jsonl`` one exchange per line, and such a file is an exchange file when its first
64 KiB are empty or hold a ``request`` or ``response`` key and a request's ``messages`` or a
response's ``content`` blocks (a message broker's ``orders.exchange.json`` holds neither). A file
that ``include`` under ``[tool.citations.kinds.claude-exchanges]`` names is claimed whatever it
holds. An exchange is ``{"request": <Messages API request body>, "response": <Messages API response
body>}``.

The request's ``messages`` are walked in order (blocks inside a ``tool_result``'s ``content``
included): every ``document`` block is the next ``document_index``, every ``search_result`` block
the next ``search_result_index``, and every ``web_search_result`` of a ``web_search_tool_result``
(in the request or the response) is a URL a ``web_search_result_location`` may cite. Each entry of
the ``citations`` list of a response ``text`` block is one :class:`Citation` unit. A structural
problem (bad JSON, a field of the wrong type, a missing required field) is A601 at that spot; the
rest of the file is still read. Extra fields (``file_id``...) are tolerated.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, TypeGuard, cast

from pytest_citations.core import jsonlines
from pytest_citations.core.json_positions import Node, plain, scan_json
from pytest_citations.kinds import Reported
from pytest_citations.kinds.claude_exchanges.parse_rules import invalid_exchange, unknown_citation_type
from pytest_citations.rules import Finding, Rule

INVALID = invalid_exchange
UNKNOWN_TYPE = unknown_citation_type
CITATION_TYPES = (
    "char_location",
    "page_location",
    "content_block_location",
    "search_result_location",
    "web_search_result_location",
)
# The fields each citation type must carry, and what they must be ("int", "str", "str?").
FIELDS: dict[str, dict[str, str]] = {
    "char_location": {"cited_text": "str", "document_index": "int", "document_title": "str?",
                      "start_char_index": "int", "end_char_index": "int"},
    "page_location": {"cited_text": "str", "document_index": "int", "document_title": "str?",
                      "start_page_number": "int", "end_page_number": "int"},
    "content_block_location": {"cited_text": "str", "document_index": "int", "document_title": "str?",
                               "start_block_index": "int", "end_block_index": "int"},
    "search_result_location": {"cited_text": "str", "search_result_index": "int", "source": "str",
                               "title": "str?", "start_block_index": "int", "end_block_index": "int"},
    "web_search_result_location": {"cited_text": "str", "url": "str", "title": "str?", "encrypted_index": "str"},
}
# What kind of document each location type cites.
FITS = {"char_location": "text", "page_location": "pdf", "content_block_location": "content"}
_CONTEXT = 500


@dataclass
class Document:
    """A ``document`` block of the request: its kind (``text``, ``pdf``, ``content``, or ``other``
    when its text is not in the request), and what the rules compare against."""

    index: int
    kind: str
    source_type: str
    title: str | None
    context: str | None
    text: str | None = None  # plain text documents
    blocks: list[str] | None = None  # custom content documents
    data: bytes | None = None  # base64 PDFs, decoded
    where: str = ""
    url: str | None = None  # ``source.url`` of a URL PDF
    pages: Any = field(default=None, repr=False)  # the rules' cache of the PDF's extracted page texts

    def body(self) -> str | None:
        if self.text is not None:
            return self.text
        if self.blocks is not None:
            return "".join(self.blocks)
        return None


@dataclass
class SearchResult:
    index: int
    source: str | None
    title: str | None
    blocks: list[str]
    where: str = ""


@dataclass
class Exchange:
    """What one exchange's request (and response) offers to cite."""

    documents: list[Document] = field(default_factory=list)
    search_results: list[SearchResult] = field(default_factory=list)
    web_urls: list[str] = field(default_factory=list)
    has_web_results: bool = False
    line: int = 0  # the JSONL line of the exchange, 0 for a JSON file


@dataclass(frozen=True)
class Citation:
    """One citation of a response text block, with the exchange it must resolve in."""

    data: dict[str, Any]
    exchange: Exchange
    where: str  # a JSON path: response.content[1].citations[0]
    line: int
    col: int
    context: str | None

    @property
    def type(self) -> str:
        return self.data["type"]

    def finding(self, message: str) -> Finding:
        return Finding(message, self.line, self.col, context=self.context)

    @property
    def document(self) -> Document | None:
        index = cast(int, self.data.get("document_index"))  # an int for the types in FITS (see FIELDS)
        if self.type in FITS and 0 <= index < len(self.exchange.documents):
            return self.exchange.documents[index]
        return None

    @property
    def search_result(self) -> SearchResult | None:
        index = cast(int, self.data.get("search_result_index"))  # an int for this type (see FIELDS)
        if self.type == "search_result_location" and 0 <= index < len(self.exchange.search_results):
            return self.exchange.search_results[index]
        return None


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _fits(value: Any, expected: str) -> bool:
    if expected == "int":
        return _is_int(value)
    if expected == "str?":
        return value is None or isinstance(value, str)
    return isinstance(value, str)


_EXPECTED = {"int": "an integer", "str": "a string", "str?": "a string or null"}


class _Reader:
    """Walks one exchange's position tree; ``problems`` collects A601/A602 findings."""

    def __init__(self, base: int, line_col, context, line: int) -> None:
        self.base = base
        self.line_col = line_col
        self.context = context
        self.problems: list[Reported] = []
        self.exchange = Exchange(line=line)
        self.citations: list[Citation] = []

    def position(self, node: Node) -> tuple[int, int]:
        return self.line_col(self.base + node.start)

    def report(self, node: Node, message: str, rule: Rule = INVALID) -> None:
        line, col = self.position(node)
        self.problems.append(rule.report(Finding(message, line, col, context=self.context(line)[:_CONTEXT])))

    def expect(self, node: Node | None, kind: type, where: str, parent: Node, what: str) -> TypeGuard[Node]:
        if node is None:
            self.report(parent, f"{where}: missing (expected {what})")
            return False
        if not isinstance(node.value, kind):
            self.report(node, f"{where}: expected {what}, found {jsonlines.type_name(plain(node))}")
            return False
        return True

    # -- the exchange

    def read(self, root: Node, where: str = "") -> None:
        prefix = f"{where}." if where else ""
        if not isinstance(root.value, dict):
            self.report(root, f"{where or 'the exchange'}: expected an object with `request` and `response`, "
                              f"found {jsonlines.type_name(plain(root))}")
            return
        request = _member(root, "request")
        response = _member(root, "response")
        request_ok = self.expect(request, dict, f"{prefix}request", root, "a Messages API request object")
        response_ok = self.expect(response, dict, f"{prefix}response", root, "a Messages API response object")
        if request_ok and request is not None:  # (the test for None only tells the type checker)
            messages = _member(request, "messages")
            if self.expect(messages, list, f"{prefix}request.messages", request, "an array of messages"):
                for i, message in enumerate(messages.value):
                    path = f"{prefix}request.messages[{i}]"
                    if not self.expect(message, dict, path, messages, "a message object"):
                        continue
                    content = _member(message, "content")
                    if content is None or isinstance(content.value, str):
                        continue  # a plain-text turn cites nothing
                    if self.expect(content, list, f"{path}.content", message, "a string or an array of blocks"):
                        self.blocks(content, f"{path}.content")
        if response_ok and response is not None:
            content = _member(response, "content")
            if self.expect(content, list, f"{prefix}response.content", response, "an array of content blocks"):
                self.response_blocks(content, f"{prefix}response.content")

    def blocks(self, content: Node, where: str) -> None:
        for i, block in enumerate(content.value):
            path = f"{where}[{i}]"
            if not isinstance(block.value, dict):
                continue  # not a block this tool reads; the API would refuse it anyway
            kind = _string(block, "type")
            if kind == "document":
                self.document(block, path)
            elif kind == "search_result":
                self.search_result(block, path)
            elif kind == "tool_result":
                inner = _member(block, "content")
                if inner is not None and isinstance(inner.value, list):
                    self.blocks(inner, f"{path}.content")
            elif kind == "web_search_tool_result":
                self.web_results(block)

    def response_blocks(self, content: Node, where: str) -> None:
        texts = []
        for i, block in enumerate(content.value):
            if isinstance(block.value, dict) and _string(block, "type") == "web_search_tool_result":
                self.web_results(block)
            elif isinstance(block.value, dict) and _string(block, "type") == "text":
                texts.append((i, block))
        for i, block in texts:
            citations = _member(block, "citations")
            if citations is None or citations.value is None:
                continue
            path = f"{where}[{i}].citations"
            if not self.expect(citations, list, path, block, "an array of citations or null"):
                continue
            for j, item in enumerate(citations.value):
                self.citation(item, f"{path}[{j}]")

    # -- what the request offers

    def document(self, block: Node, where: str) -> None:
        import base64
        import binascii

        index = len(self.exchange.documents)
        title = _member(block, "title")
        context = _member(block, "context")
        for name, node in (("title", title), ("context", context)):
            if node is not None and not (node.value is None or isinstance(node.value, str)):
                self.report(node, f"{where}.{name}: expected a string or null, found {jsonlines.type_name(plain(node))}")
        doc = Document(
            index, "other", "", _str_or_none(title), _str_or_none(context), where=where,
        )
        self.exchange.documents.append(doc)
        source = _member(block, "source")
        if not self.expect(source, dict, f"{where}.source", block, "a source object"):
            return
        source_type = _string(source, "type") or ""
        doc.source_type = source_type
        data = _member(source, "data")
        if source_type == "text":
            doc.kind = "text"
            if self.expect(data, str, f"{where}.source.data", source, "the document's text"):
                doc.text = data.value
        elif source_type == "base64" or source_type == "url":
            media = _string(source, "media_type")
            doc.kind = "pdf" if source_type == "url" or media == "application/pdf" else "other"
            if source_type == "url":
                doc.url = _string(source, "url")
            if source_type == "base64" and self.expect(data, str, f"{where}.source.data", source, "base64 data"):
                try:
                    doc.data = base64.b64decode(data.value, validate=True)
                except (binascii.Error, ValueError):
                    self.report(data, f"{where}.source.data: not valid base64")
        elif source_type == "content":
            doc.kind = "content"
            content = _member(source, "content")
            if content is not None and isinstance(content.value, str):
                doc.blocks = [content.value]
            elif self.expect(content, list, f"{where}.source.content", source, "a string or an array of text blocks"):
                blocks = []
                for i, item in enumerate(content.value):
                    text = _member(item, "text") if isinstance(item.value, dict) else None
                    if text is None or not isinstance(text.value, str):
                        self.report(item, f"{where}.source.content[{i}]: expected a text block with a string `text`")
                        blocks.append("")
                    else:
                        blocks.append(text.value)
                doc.blocks = blocks
        # "file" (a Files API id) and anything else: the text is not in the request

    def search_result(self, block: Node, where: str) -> None:
        blocks: list[str] = []
        content = _member(block, "content")
        if content is not None and isinstance(content.value, list):
            for item in content.value:
                text = _member(item, "text") if isinstance(item.value, dict) else None
                blocks.append(text.value if text is not None and isinstance(text.value, str) else "")
        self.exchange.search_results.append(
            SearchResult(len(self.exchange.search_results), _str_or_none(_member(block, "source")),
                         _str_or_none(_member(block, "title")), blocks, where)
        )

    def web_results(self, block: Node) -> None:
        content = _member(block, "content")
        if content is None or not isinstance(content.value, list):
            return  # an error result lists no pages
        for item in content.value:
            if isinstance(item.value, dict) and _string(item, "type") == "web_search_result":
                self.exchange.has_web_results = True
                url = _string(item, "url")
                if url is not None:
                    self.exchange.web_urls.append(url)

    # -- one citation

    def citation(self, node: Node, where: str) -> None:
        if not isinstance(node.value, dict):
            self.report(node, f"{where}: expected a citation object, found {jsonlines.type_name(plain(node))}")
            return
        kind = _member(node, "type")
        if kind is None or not isinstance(kind.value, str):
            self.report(node, f"{where}: a citation needs a string `type`")
            return
        if kind.value not in FIELDS:
            self.report(kind, f"{where}: unknown citation type {kind.value!r}; documented types: "
                              + ", ".join(CITATION_TYPES), UNKNOWN_TYPE)
            return
        good = True
        for name, expected in FIELDS[kind.value].items():
            value = _member(node, name)
            if value is None:
                self.report(node, f"{where}: {kind.value} has no `{name}` (expected {_EXPECTED[expected]})")
                good = False
            elif not _fits(value.value, expected):
                found = jsonlines.type_name(plain(value))
                self.report(value, f"{where}.{name}: expected {_EXPECTED[expected]}, found {found}")
                good = False
        if good:
            line, col = self.position(node)
            self.citations.append(Citation(plain(node), self.exchange, where, line, col, self.context(line)[:_CONTEXT]))


def _member(node: Node, key: str) -> Node | None:
    if not isinstance(node.value, dict):
        return None
    found = node.value.get(key)
    return found[1] if found is not None else None


def _string(node: Node, key: str) -> str | None:
    value = _member(node, key)
    return value.value if value is not None and isinstance(value.value, str) else None


def _str_or_none(node: Node | None) -> str | None:
    return node.value if node is not None and isinstance(node.value, str) else None


def read_exchange(text: str, base: int, line_col, context, line: int = 0) -> tuple[list[Reported], list[Citation]]:
    """Problems and citations of one exchange whose JSON (known to be valid) is ``text``."""
    reader = _Reader(base, line_col, context, line)
    reader.read(scan_json(text))
    return reader.problems, reader.citations


# What the head of an exchange file holds: a request or a response, and a request's messages or a
# response's array of content blocks. Other files named *.exchange.json hold neither (a message
# broker's exchange: name, type, durable) or not both (an HTTP recording: a request with a method,
# a response whose content is an object).
_EXCHANGE_KEY = re.compile(r'"(?:request|response)"\s*:')
_MESSAGES_KEY = re.compile(r'"messages"\s*:|"content"\s*:\s*\[')


class ClaudeExchanges:
    name = "claude-exchanges"
    description = "Claude Messages API request/response pairs whose response carries citations"
    include = ("**/*.exchange.json", "**/*.exchanges.jsonl")
    sniff_include = ()
    by_content_only = include  # a file named so is an exchange file or is not one by what it holds
    options: dict = {}

    def sniff(self, head: str) -> bool:
        """Whether the head of a file named as an exchange file holds exchanges: it is empty (an
        exchange file yet to be written, or one whose write failed), or it holds a ``request`` or
        ``response`` key and ``messages`` or an array of ``content`` blocks."""
        if not head.removeprefix("\ufeff").strip():
            return True
        return _EXCHANGE_KEY.search(head) is not None and _MESSAGES_KEY.search(head) is not None

    def web_citations(self, unit, ctx):
        """The URL a web search citation cites, for the online rules (:mod:`.web`)."""
        from pytest_citations.kinds.claude_exchanges.web import web_citations

        return web_citations(unit) if isinstance(unit, Citation) else ()

    def units(self, ctx) -> Iterator[Citation | Reported]:
        if ctx.rel.lower().endswith(".jsonl"):
            yield from self._jsonl(ctx)
        else:
            yield from self._json(ctx)

    def _json(self, ctx) -> Iterator[Citation | Reported]:
        loaded = jsonlines.document(ctx, INVALID)
        if isinstance(loaded, Reported):
            yield loaded
            return
        text, source = ctx.source.text, ctx.source
        problems, citations = read_exchange(text, 0, source.line_col, source.line_text)
        yield from problems
        yield from citations

    def _jsonl(self, ctx) -> Iterator[Citation | Reported]:
        for item in jsonlines.records(ctx, INVALID):
            if isinstance(item, Reported):
                yield item
                continue
            text, number, offset = item.line.text, item.line.number, item.line.offset
            problems, citations = read_exchange(
                text, offset, lambda at, number=number, offset=offset: (number, at - offset + 1),
                lambda _, t=text: t, number,
            )
            yield from problems
            yield from citations


KIND = ClaudeExchanges()

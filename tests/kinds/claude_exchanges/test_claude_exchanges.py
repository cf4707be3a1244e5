"""Structured citations returned by the Claude Messages API (A601-A613) on the
claude-exchanges fixture: exact diagnostics, every rule firing, hostile inputs, front ends agreeing."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys

import pytest

from conftest import PROJECT
from pytest_citations.engine import Engine, load_plugins
from pytest_citations.frontends.cli import main

NAME = "claude-exchanges"
FIXTURE = PROJECT / "fixtures" / NAME
DIAGNOSTIC_LINE = re.compile(r"^(?P<path>\S+):(?P<line>\d+):(?P<col>\d+): (?P<code>[A-Z]\d{3}) (?:\[\*\] )?(?P<message>.*)$")

EXPECTED = [
    ('batch.exchanges.jsonl', 2, 56, 'A601', 'invalid JSON: expecting value'),
    ('batch.exchanges.jsonl', 3, 330, 'A602', "response.content[0].citations[0]: unknown citation type 'sentence_location'; documented types: char_location, page_location, content_block_location, search_result_location, web_search_result_location"),
    ('batch.exchanges.jsonl', 4, 190, 'A601', 'request.messages[0].content[0].title: expected a string or null, found a number'),
    ('batch.exchanges.jsonl', 4, 443, 'A601', 'response.content[0].citations[0].start_char_index: expected an integer, found a string'),
    ('batch.exchanges.jsonl', 5, 13, 'A601', 'request: expected a Messages API request object, found an array'),
    ('batch.exchanges.jsonl', 5, 41, 'A601', 'response.content: expected an array of content blocks, found a string'),
    ('custom-content.exchange.json', 65, 11, 'A606', 'cited_text " Gas boilers burn fuel." is not what [1, 3) holds: " They use electricity. Gas boilers burn fuel."; cited_text is blocks [2, 3)'),
    ('custom-content.exchange.json', 79, 11, 'A604', "char_location cites document 0, a custom content document (source type 'content'), which is cited with content_block_location"),
    ('custom-content.exchange.json', 93, 11, 'A605', 'content_block_location: end_block_index 4 is past the end of the cited text (3 blocks)'),
    ('pdf.exchange.json', 50, 11, 'A613', 'page_location of document 0 cannot be verified: PDF text is not extracted, so its cited_text is unverified'),
    ('pdf.exchange.json', 64, 11, 'A605', 'page_location: start_page_number 0 is below 1'),
    ('pdf.exchange.json', 64, 11, 'A613', 'page_location of document 0 cannot be verified: PDF text is not extracted, so its cited_text is unverified'),
    ('pdf.exchange.json', 78, 11, 'A604', "char_location cites document 0, a PDF document (source type 'base64'), which is cited with page_location"),
    ('pdf.exchange.json', 92, 11, 'A613', "char_location of document 1 cannot be verified: the document's text is not in the request (source type 'file')"),
    ('plain-text.exchange.json', 90, 11, 'A606', 'cited_text "The sky is blue." is not what [20, 35) holds: "The sky is blue"; cited_text occurs at [20, 36)'),
    ('plain-text.exchange.json', 104, 11, 'A603', 'document_index 3 does not resolve: the request has 3 document blocks (indices 0-2)'),
    ('plain-text.exchange.json', 118, 11, 'A609', 'cited_text "Q1 report" comes from the title, not the body, of the cited source'),
    ('plain-text.exchange.json', 132, 11, 'A607', 'cited_text differs from what [0, 37) holds in whitespace only: "Output rose 2% in March.\\nPrices fell."'),
    ('plain-text.exchange.json', 146, 11, 'A606', 'cited_text "and coffee." is not what [7, 18) holds: "nd coffee. " (only a UTF-16 slice matches: count code points, not UTF-16 units)'),
    ('plain-text.exchange.json', 154, 11, 'A608', 'document_title "Tea" is not the title of document 2: expected null (the document has no title)'),
    ('plain-text.exchange.json', 168, 11, 'A608', 'document_title null is not the title of document 0: expected "Colors"'),
    ('search-results.exchange.json', 110, 11, 'A610', 'source "https://kb.example.com/cost" is not the source of search result 0: expected "https://kb.example.com/costs"'),
    ('search-results.exchange.json', 125, 11, 'A603', 'search_result_index 2 does not resolve: the request has 2 search_result blocks (indices 0-1)'),
    ('search-results.exchange.json', 140, 11, 'A609', 'cited_text "Grants" comes from the title, not the body, of the cited source'),
    ('web-search.exchange.json', 70, 11, 'A612', 'url "https://www.heatpumpnews.example.com/efficiency" is not among the 2 web search results of the exchange'),
    ('web-search.exchange.json', 83, 11, 'A611', 'cited_text has 161 characters, over the 150 a web search citation holds'),
    ('web-search.exchange.json', 96, 11, 'A611', 'url "ftp://www.energy.gov/heat-pumps" is not an absolute http(s) URL'),
    ('web-search.exchange.json', 96, 11, 'A612', 'url "ftp://www.energy.gov/heat-pumps" is not among the 2 web search results of the exchange'),
]

EXCHANGE = {
    "request": {"messages": [{"role": "user", "content": [
        {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "The grass is green. The sky is blue."},
         "title": "Colors"},
    ]}]},
    "response": {"content": [{"type": "text", "text": "The sky is blue.", "citations": [
        {"type": "char_location", "cited_text": "The sky is blue.", "document_index": 0, "document_title": "Colors",
         "start_char_index": 20, "end_char_index": 36},
    ]}]},
}


def _copy(tmp_path):
    shutil.copytree(FIXTURE, tmp_path / NAME)
    return tmp_path / NAME


def _found(root):
    return [(d.path.removeprefix("exchanges/"), d.line, d.col, d.code, d.message) for d in Engine.load(root).check([root]).diagnostics]


def test_fixture_diagnostics_are_exact():
    assert _found(FIXTURE) == EXPECTED


def test_every_a6xx_rule_fires_on_the_fixture():
    _, registry = load_plugins()
    codes = {item.code for item in registry if item.code.startswith("A6")}
    assert codes == {f"A6{n:02d}" for n in range(1, 14)}
    assert {row[3] for row in EXPECTED} == codes


def test_the_correct_citations_pass(tmp_path):
    root = _copy(tmp_path)
    for path in (root / "exchanges").glob("*.exchange.json"):
        data = json.loads(path.read_text(encoding="utf-8"))
        texts = [block for block in data["response"]["content"] if block["type"] == "text"]
        data["response"]["content"] = [block for block in data["response"]["content"] if block["type"] != "text"] + texts[:1]
        path.write_text(json.dumps(data), encoding="utf-8")
    (root / "exchanges" / "batch.exchanges.jsonl").unlink()
    # the first citation of each file is the correct one; a PDF's can only be unverified, never passed
    assert [(row[0], row[3]) for row in _found(root)] == [("pdf.exchange.json", "A613")]


def test_search_result_index_counts_search_results_only(tmp_path):
    data = json.loads((FIXTURE / "exchanges" / "search-results.exchange.json").read_text(encoding="utf-8"))
    first = data["response"]["content"][0]["citations"][0]
    assert (first["search_result_index"], first["source"]) == (1, "https://kb.example.com/grants")
    assert not [row for row in EXPECTED if row[0] == "search-results.exchange.json" and row[1] < 100]


def _check_text(tmp_path, name, text):
    (tmp_path / "pyproject.toml").write_text("[tool.citations]\n", encoding="utf-8")
    (tmp_path / name).write_text(text, encoding="utf-8")
    return [(d.line, d.col, d.code, d.message) for d in Engine.load(tmp_path).check([tmp_path]).diagnostics]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", [(1, 1, "A601", "invalid JSON: expecting value")]),
        ('[{"request": {"messages": []}}]',
         [(1, 1, "A601", "the exchange: expected an object with `request` and `response`, found an array")]),
        ('{"request": {"messages": []}, "request": {}}', [(1, 31, "A601", "invalid JSON: duplicate key 'request'")]),
        ('{"request": {"messages": [NaN]}}', [(1, 1, "A601", "invalid JSON: NaN is not valid JSON")]),
        ('{"request": {"messages": ' + "[" * 600 + "]" * 600 + "}}", [(1, 1, "A601", "invalid JSON: nested too deeply")]),
        ('{"request": {"messages": "hi"}, "response": {"content": null}}', [
            (1, 26, "A601", "request.messages: expected an array of messages, found a string"),
            (1, 57, "A601", "response.content: expected an array of content blocks, found null"),
        ]),
        ('{"response": {"content": [{"type": "text", "citations": [1, {"type": 5}, {"type": "char_location"}]}]}}', [
            (1, 1, "A601", "request: missing (expected a Messages API request object)"),
            (1, 58, "A601", "response.content[0].citations[0]: expected a citation object, found a number"),
            (1, 61, "A601", "response.content[0].citations[1]: a citation needs a string `type`"),
            (1, 74, "A601", "response.content[0].citations[2]: char_location has no `cited_text` (expected a string)"),
            (1, 74, "A601", "response.content[0].citations[2]: char_location has no `document_index` (expected an integer)"),
            (1, 74, "A601", "response.content[0].citations[2]: char_location has no `document_title` (expected a string or null)"),
            (1, 74, "A601", "response.content[0].citations[2]: char_location has no `end_char_index` (expected an integer)"),
            (1, 74, "A601", "response.content[0].citations[2]: char_location has no `start_char_index` (expected an integer)"),
        ]),
        ('{"request": {"messages": [1, {"content": [2, {"type": "document", "source": "x"}, {"type": "document", '
         '"source": {"type": "content", "content": [3]}}, {"type": "tool_result", "content": "x"}]}]}, "response": {"content": []}}', [
            (1, 27, "A601", "request.messages[0]: expected a message object, found a number"),
            (1, 77, "A601", "request.messages[1].content[1].source: expected a source object, found a string"),
            (1, 146, "A601", "request.messages[1].content[2].source.content[0]: expected a text block with a string `text`"),
        ]),
        ('{"request": {"messages": [{"content": [{"type": "document", "source": {"type": "base64", "data": "@@"}}]}]}, '
         '"response": {"content": [{"type": "text", "citations": [{"type": "char_location", "cited_text": "x", '
         '"document_index": true, "document_title": null, "start_char_index": 0, "end_char_index": 1}]}]}}', [
            (1, 98, "A601", "request.messages[0].content[0].source.data: not valid base64"),
            (1, 229, "A601", "response.content[0].citations[0].document_index: expected an integer, found a boolean"),
        ]),
    ],
    ids=["empty", "array", "duplicate-key", "nan", "deep", "wrong-containers", "bad-citations", "bad-blocks", "bool-index"],
)
def test_hostile_exchanges_are_diagnostics_not_crashes(tmp_path, text, expected):
    assert _check_text(tmp_path, "x.exchange.json", text) == expected



@pytest.mark.parametrize(
    "text",
    [
        '{"name": "orders", "vhost": "/", "type": "topic", "durable": true, "auto_delete": false}\n',  # RabbitMQ
        '{"request": {"method": "GET", "url": "/a"}, "response": {"status": 200, "content": {"size": 2}}}\n',  # HTTP
        "[]\n",
        "not json\n",
    ],
    ids=["rabbitmq-exchange", "http-recording", "array", "not-json"],
)
def test_a_file_named_like_an_exchange_is_one_only_when_it_holds_one(tmp_path, text):
    """An exchange file is claimed by what it holds (a request with messages, a response with
    content blocks), not by its name alone: message brokers call their routing objects exchanges,
    and HTTP recordings pair a request with a response too."""
    (tmp_path / "pyproject.toml").write_text("[tool.citations]\n", encoding="utf-8")
    (tmp_path / "config").mkdir()
    for name in ("orders.exchange.json", "all.exchanges.jsonl"):
        (tmp_path / "config" / name).write_text(text, encoding="utf-8")
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "answer.exchange.json").write_text(json.dumps(EXCHANGE), encoding="utf-8")
    (tmp_path / "run" / "empty.exchanges.jsonl").write_text("", encoding="utf-8")
    report = Engine.load(tmp_path).check([tmp_path])
    assert sorted(report.files) == ["run/answer.exchange.json", "run/empty.exchanges.jsonl"]
    assert report.diagnostics == []

def test_a_huge_exchange_is_refused_by_size(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.citations]\nmax-file-size = 1024\n", encoding="utf-8")
    (tmp_path / "big.exchange.json").write_text(json.dumps({"request": {"messages": [{"content": "x" * 5000}]}}), encoding="utf-8")
    assert [d.code for d in Engine.load(tmp_path).check([tmp_path]).diagnostics] == ["C003"]


def test_many_citations_and_odd_values_stay_quick_and_quiet(tmp_path):
    data = json.loads(json.dumps(EXCHANGE))
    citation = data["response"]["content"][0]["citations"][0]
    data["response"]["content"][0]["citations"] = [citation] * 5000 + [
        {**citation, "start_char_index": -5, "end_char_index": 10**30, "file_id": "file_1"},
        {**citation, "document_index": -1},
    ]
    found = _check_text(tmp_path, "many.exchange.json", json.dumps(data))
    assert [(code, message) for _, _, code, message in found] == [
        ("A605", "char_location: start_char_index -5 is below 0"),
        ("A603", "document_index -1 does not resolve: the request has 1 document block (indices 0-0)"),
    ]


def test_glob_is_configurable(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.citations.kinds.claude-exchanges]\ninclude = ["api/*.json"]\n', encoding="utf-8")
    (tmp_path / "api").mkdir()
    bad = json.loads(json.dumps(EXCHANGE))
    bad["response"]["content"][0]["citations"][0]["end_char_index"] = 35
    (tmp_path / "api" / "call.json").write_text(json.dumps(bad), encoding="utf-8")
    (tmp_path / "skipped.exchange.json").write_text("not json", encoding="utf-8")
    assert [(d.path, d.code) for d in Engine.load(tmp_path).check([tmp_path]).diagnostics] == [("api/call.json", "A606")]


def test_front_ends_agree(pytester, capsys):
    root = _copy(pytester.path)
    expected = {(f"{NAME}/{d.path}", d.line, d.col, d.code, d.message) for d in Engine.load(root).check([root]).diagnostics}
    assert len(expected) == len(EXPECTED)

    assert main(["check", str(root), "--format", "json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert {(f"{NAME}/{d['path']}", d["line"], d["col"], d["code"], d["message"]) for d in data["diagnostics"]} == expected

    command = [sys.executable, "-m", "pytest_citations", "check", NAME, "--format", "json"]
    completed = subprocess.run(command, cwd=pytester.path, capture_output=True, text=True)
    assert completed.returncode == 1, completed.stderr
    data = json.loads(completed.stdout)
    assert {(f"{NAME}/{d['path']}", d["line"], d["col"], d["code"], d["message"]) for d in data["diagnostics"]} == expected

    # warnings (A607, A613) pass in pytest unless made errors; then they are reported like errors
    result = pytester.runpytest("--citations", f"--rootdir={pytester.path}", "-W", "error::pytest_citations.frontends.plugin.CitationsWarning", NAME)
    from_pytest = {
        (m["path"], int(m["line"]), int(m["col"]), m["code"], m["message"]) for m in map(DIAGNOSTIC_LINE.match, result.outlines) if m
    }
    assert from_pytest == expected
    result.assert_outcomes(failed=6)


def test_docs_show_the_fixture_diagnostics():
    doc = (PROJECT / "docs" / "claude-citations.md").read_text(encoding="utf-8")
    shown = [line for line in doc.splitlines() if line.startswith("exchanges/")]
    assert shown == [f"exchanges/{path}:{line}:{col}: {code} {message}" for path, line, col, code, message in EXPECTED]


def _pdf(pages: list[str]) -> bytes:
    """A tiny PDF with one line of Helvetica text per page, built with pypdf."""
    import io

    pypdf = pytest.importorskip("pypdf")
    from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject

    writer = pypdf.PdfWriter()
    add = getattr(writer, "add_object", None) or writer._add_object
    font = add(DictionaryObject({
        NameObject("/Type"): NameObject("/Font"), NameObject("/Subtype"): NameObject("/Type1"),
        NameObject("/BaseFont"): NameObject("/Helvetica"),
    }))
    for text in pages:
        page = writer.add_blank_page(612, 792)
        page[NameObject("/Resources")] = DictionaryObject({NameObject("/Font"): DictionaryObject({NameObject("/F1"): font})})
        stream = DecodedStreamObject()
        stream.set_data(f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode("latin-1"))
        page[NameObject("/Contents")] = add(stream)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def _pdf_exchange(data: bytes) -> str:
    import base64

    def page(cited, start, end):
        return {"type": "page_location", "cited_text": cited, "document_index": 0, "document_title": "Report",
                "start_page_number": start, "end_page_number": end}

    return json.dumps({
        "request": {"messages": [{"role": "user", "content": [
            {"type": "document", "title": "Report",
             "source": {"type": "base64", "media_type": "application/pdf", "data": base64.b64encode(data).decode()}},
        ]}]},
        "response": {"content": [{"type": "text", "text": "Output rose; prices fell.", "citations": [
            page("Output rose 2% in March.", 1, 2),
            page("Prices  fell\nin April.", 2, 3),  # whitespace differs from the extracted text: still found
            page("Prices fell in April.", 1, 2),  # the wrong page
            page("Output rose 2% in March.", 1, 4),  # past the end of a two-page PDF
        ]}]},
    }, indent=1)


def test_pdf_extra_checks_page_locations(tmp_path):
    data = _pdf(["Output rose 2% in March.", "Prices fell in April."])
    found = _check_text(tmp_path, "report.exchange.json", _pdf_exchange(data))
    assert [(code, message) for _, _, code, message in found] == [
        ("A606", 'cited_text "Prices fell in April." is not in the text extracted from page 1 (pages [1, 2)) of '
                 "document 0 (PDF text extraction is approximate)"),
        ("A605", "page_location: end_page_number 4 is past the end of the PDF (2 pages)"),
    ]


def test_without_pypdf_page_locations_stay_unverifiable(tmp_path, monkeypatch):
    try:
        data = _pdf(["Output rose 2% in March.", "Prices fell in April."])
    except pytest.skip.Exception:
        data = b"%PDF-1.4\n% a stub PDF\n"
    monkeypatch.setitem(sys.modules, "pypdf", None)  # `import pypdf` raises ImportError
    found = _check_text(tmp_path, "report.exchange.json", _pdf_exchange(data))
    assert [code for _, _, code, _ in found] == ["A613"] * 4
    assert found[0][3] == "page_location of document 0 cannot be verified: PDF text is not extracted, so its cited_text is unverified"


def test_an_unreadable_pdf_stays_unverifiable(tmp_path):
    pytest.importorskip("pypdf")
    found = _check_text(tmp_path, "report.exchange.json", _pdf_exchange(b"%PDF-1.4\n% a stub PDF\n"))
    assert [code for _, _, code, _ in found] == ["A613"] * 4


def test_a_file_whose_start_is_padded_with_blanks_is_still_claimed_and_checked(tmp_path):
    """``{`` and 70,000 spaces (valid JSON) pushed everything past the 64 KiB the kinds are chosen
    by: no kind claimed the file, and it was never checked, offline or online (found by an attack).
    Long runs of blanks are left out of what decides a file's kind."""
    import json as json_module

    from pytest_citations.engine import Engine

    (tmp_path / "pyproject.toml").write_text("[tool.citations]\n")
    exchange = {"request": {"messages": [{"role": "user", "content": "q"}]},
                "response": {"content": [{"type": "text", "text": "a", "citations": [{"type": "sentence_location"}]}]}}
    (tmp_path / "a.exchange.json").write_text("{" + " " * 70_000 + json_module.dumps(exchange)[1:])
    records = tmp_path / "run" / "citations"
    records.mkdir(parents=True)
    (records / "citations.jsonl").write_text(" " * 70_000 + '{"schema_version": "citation.v1"}\n')
    found = {(d.path, d.code) for d in Engine.load(tmp_path).check([tmp_path]).diagnostics}
    assert ("a.exchange.json", "A602") in found and ("run/citations/citations.jsonl", "U102") in found

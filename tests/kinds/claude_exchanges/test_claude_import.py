"""`citations claude import`: an exchange's verified citations become a brief's citation objects
(brief-citation-contract.md §1-§2), on the claude-import-repo fixture."""

from __future__ import annotations

import json
import shutil

import pytest

from conftest import PROJECT
from pytest_citations.engine import Engine
from pytest_citations.frontends.cli import main

FIXTURE = PROJECT / "fixtures" / "claude-import-repo"
EXCHANGE = "exchanges/daily.exchange.json"
SIDECAR = "briefs/daily.citations.json"
FED = "cite_fb68bd99-df43-516a-a398-0e56515cb0f0"
FT = "cite_9944068d-854f-59a3-ad54-edc630380eb4"
BEA = "cite_5e71ae9e-aba5-5502-b03d-d9160871efcd"
REJECTED = [
    f'rejected {EXCHANGE}:126:11: A606 cited_text "Inflation remains elevated." is not what [135, 161) holds: '
    '"Inflation remains elevated"; cited_text occurs at [135, 162)',
    f"rejected {EXCHANGE}:134:11: no source_id, publisher, doc_id, chunk_id, url, published_at, fetched_at for this "
    'char_location: give them in the exchange\'s "evidence" map (see docs/claude-citations.md)',
]
EXPECTED_SIDECAR = """{
  "citations": {
    "1": {
      "id": "cite_fb68bd99-df43-516a-a398-0e56515cb0f0",
      "source_id": "fed_press_releases",
      "publisher": "Federal Reserve",
      "doc_id": "doc_fomc_20240131",
      "chunk_id": "chunk_fomc_20240131_0",
      "url": "https://www.federalreserve.gov/newsevents/pressreleases/monetary20240131a.htm",
      "title": "FOMC statement",
      "published_at": "2024-01-31T19:00:00Z",
      "fetched_at": "2024-01-31T19:20:00Z",
      "quote_span": {
        "start": 30,
        "end": 134,
        "text": "The Committee decided to maintain the target range for the federal funds rate at 5-1/4 to 5-1/2 percent."
      },
      "claude_citation": {
        "type": "char_location",
        "document_index": 0,
        "document_title": "FOMC statement",
        "start_char_index": 30,
        "end_char_index": 134
      }
    },
    "2": {
      "id": "cite_9944068d-854f-59a3-ad54-edc630380eb4",
      "source_id": "ft_markets",
      "publisher": "Financial Times",
      "doc_id": "doc_ft_stocks_20240213",
      "chunk_id": "chunk_ft_stocks_20240213_0",
      "url": "https://www.ft.com/content/stocks-inflation-20240213",
      "title": "Stocks fall as inflation surprises",
      "published_at": "2024-02-13T15:30:00Z",
      "fetched_at": "2024-02-13T16:00:00Z",
      "snippet_span": {
        "text": "Equities slide as January CPI beats forecasts"
      },
      "claude_citation": {
        "type": "char_location",
        "document_index": 1,
        "document_title": "Stocks fall as inflation surprises",
        "start_char_index": 0,
        "end_char_index": 73
      }
    },
    "3": {
      "id": "cite_5e71ae9e-aba5-5502-b03d-d9160871efcd",
      "source_id": "bea_releases",
      "publisher": "Bureau of Economic Analysis",
      "doc_id": "doc_bea_gdp_2023q4",
      "chunk_id": "chunk_bea_gdp_2023q4_0",
      "url": "https://www.bea.gov/news/2024/gdp-fourth-quarter-2023-advance-estimate",
      "title": "GDP, Fourth Quarter 2023 (Advance Estimate)",
      "published_at": "2024-01-25T13:30:00Z",
      "fetched_at": "2024-01-25T14:00:00Z",
      "quote_span": {
        "start": 0,
        "end": 82,
        "text": "Real GDP increased at an annual rate of 3.3 percent in the fourth quarter of 2023."
      },
      "claude_citation": {
        "type": "search_result_location",
        "search_result_index": 0,
        "source": "https://www.bea.gov/news/2024/gdp-fourth-quarter-2023-advance-estimate",
        "title": "GDP, Fourth Quarter 2023 (Advance Estimate)",
        "start_block_index": 0,
        "end_block_index": 1
      }
    }
  }
}
"""


@pytest.fixture
def repo(tmp_path, monkeypatch):
    root = tmp_path / "repo"
    shutil.copytree(FIXTURE, root)
    monkeypatch.chdir(root)
    return root


def _import(capsys, *extra):
    code = main(["claude", "import", EXCHANGE, "--brief", "briefs/daily.md", *extra])
    captured = capsys.readouterr()
    return code, captured.out.splitlines(), captured.err


def test_import_writes_the_exact_sidecar(repo, capsys):
    code, out, err = _import(capsys)
    assert code == 1  # two citations were rejected
    assert out == [
        f"imported [1] {FED} from {EXCHANGE}:83:11 (quote_span)",
        f"imported [2] {FT} from {EXCHANGE}:97:11 (snippet_span)",
        f"imported [3] {BEA} from {EXCHANGE}:111:11 (quote_span)",
        *REJECTED,
    ]
    assert err == f"citations: wrote 3 citation objects to {SIDECAR}; 0 already there, 2 rejected\n"
    assert (repo / SIDECAR).read_text(encoding="utf-8") == EXPECTED_SIDECAR


def test_a_paywalled_source_gets_a_snippet_never_a_quote(repo, capsys):
    _import(capsys)
    stored = json.loads((repo / SIDECAR).read_text(encoding="utf-8"))["citations"]["2"]
    assert stored["source_id"] == "ft_markets" and "quote_span" not in stored
    assert stored["snippet_span"] == {"text": "Equities slide as January CPI beats forecasts"}
    exchange = json.loads((repo / EXCHANGE).read_text(encoding="utf-8"))
    article = exchange["request"]["messages"][0]["content"][1]["source"]["data"]
    cited = exchange["response"]["content"][1]["citations"][0]["cited_text"]
    assert cited in article
    assert cited not in json.dumps(stored) and "Stocks tumbled" not in json.dumps(stored)


def test_the_brief_resolves_every_imported_marker(repo, capsys):
    before = [d.code for d in Engine.load(repo).check([repo / "briefs"]).diagnostics]
    assert "B307" in before
    _import(capsys)
    after = [(d.code, d.message) for d in Engine.load(repo).check([repo / "briefs"]).diagnostics]
    assert after == [("B310", "no evidence store is configured: doc_id/chunk_id resolution is not proven for this brief")]
    assert main(["check", "briefs", "--no-source"]) == 0
    capsys.readouterr()


def test_importing_again_changes_nothing(repo, capsys):
    _import(capsys)
    written = (repo / SIDECAR).read_bytes()
    code, out, err = _import(capsys)
    assert code == 1
    assert out[:3] == [
        f"unchanged [1] {FED} from {EXCHANGE}:83:11 (already in {SIDECAR})",
        f"unchanged [2] {FT} from {EXCHANGE}:97:11 (already in {SIDECAR})",
        f"unchanged [3] {BEA} from {EXCHANGE}:111:11 (already in {SIDECAR})",
    ]
    assert err == f"citations: {SIDECAR} left unchanged; 3 already there, 2 rejected\n"
    assert (repo / SIDECAR).read_bytes() == written


def test_existing_entries_are_kept_and_new_ones_numbered_after_them(repo, capsys):
    existing = {"id": "cite_manual", "source_id": "fed_press_releases"}
    (repo / SIDECAR).write_text(json.dumps({"citations": {"4": existing}, "bullets": {"prevailing": [["cite_manual"]]}}), encoding="utf-8")
    code, out, _ = _import(capsys)
    assert code == 1
    assert [line.split()[1] for line in out[:3]] == ["[5]", "[6]", "[7]"]
    data = json.loads((repo / SIDECAR).read_text(encoding="utf-8"))
    assert list(data["citations"]) == ["4", "5", "6", "7"]
    assert data["citations"]["4"] == existing and data["bullets"] == {"prevailing": [["cite_manual"]]}


def test_explicit_markers_and_a_taken_marker(repo, capsys):
    exchange = json.loads((repo / EXCHANGE).read_text(encoding="utf-8"))
    exchange["markers"] = {"response.content[0].citations[0]": 2, "response.content[2].citations[0]": 9,
                           "response.content[3].citations[0]": 12}  # a rejected citation may be named too
    (repo / EXCHANGE).write_text(json.dumps(exchange, indent=2), encoding="utf-8")
    (repo / SIDECAR).write_text(json.dumps({"citations": {"2": {"id": "cite_other"}}}), encoding="utf-8")
    code, out, _ = _import(capsys)
    assert code == 1
    imported = [line.split()[:2] for line in out if line.startswith("imported")]
    assert imported == [["imported", "[10]"], ["imported", "[9]"]]  # the unmapped one goes after the highest marker
    assert any(f"marker [2] already holds citation 'cite_other' in {SIDECAR}; not overwritten" in line for line in out)
    assert list(json.loads((repo / SIDECAR).read_text(encoding="utf-8"))["citations"]) == ["2", "10", "9"]


def test_every_verified_citation_imported_exits_0(repo, capsys):
    exchange = json.loads((repo / EXCHANGE).read_text(encoding="utf-8"))
    exchange["response"]["content"] = exchange["response"]["content"][:3]
    (repo / EXCHANGE).write_text(json.dumps(exchange), encoding="utf-8")
    code, out, _ = _import(capsys)
    assert code == 0 and len(out) == 3


@pytest.mark.parametrize(
    ("change", "argv", "message"),
    [
        (None, ["--brief", "briefs/none.md"], "no such brief file: briefs/none.md"),
        ("registry", [], "no source registry source_registry.yaml"),
        ("evidence", [], "`evidence` must be {"),
        ("markers", [], "markers names 'response.content[9].citations[0]', which is not a citation of the exchange"),
        ("sidecar", [], f"sidecar {SIDECAR}: expected"),
    ],
)
def test_usage_errors_exit_2(repo, capsys, change, argv, message):
    exchange = json.loads((repo / EXCHANGE).read_text(encoding="utf-8"))
    if change == "registry":
        (repo / "source_registry.yaml").unlink()
    elif change == "evidence":
        exchange["evidence"] = {"documents": []}
    elif change == "markers":
        exchange["markers"] = {"response.content[9].citations[0]": 1}
    elif change == "sidecar":
        (repo / SIDECAR).write_text('{"citations": []}', encoding="utf-8")
    (repo / EXCHANGE).write_text(json.dumps(exchange), encoding="utf-8")
    code = main(["claude", "import", EXCHANGE, *(argv or ["--brief", "briefs/daily.md"])])
    assert code == 2
    assert message in capsys.readouterr().err
    assert change == "sidecar" or not (repo / SIDECAR).exists()


def test_the_command_group_needs_a_command(capsys):
    assert main(["claude"]) == 2
    assert "import" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exit_info:
        main(["claude", "import", EXCHANGE])  # --brief is required
    assert exit_info.value.code == 2


def test_a_pdf_page_citation_is_imported_with_the_extra(repo, capsys):
    import base64

    from test_claude_exchanges import _pdf

    data = _pdf(["Output rose 2% in March.", "Prices fell in April."])
    exchange = json.loads((repo / EXCHANGE).read_text(encoding="utf-8"))
    exchange["request"]["messages"][0]["content"][0]["source"] = {
        "type": "base64", "media_type": "application/pdf", "data": base64.b64encode(data).decode(),
    }
    exchange["response"]["content"] = [{"type": "text", "text": "Prices fell.", "citations": [
        {"type": "page_location", "cited_text": "Prices fell\nin April.", "document_index": 0, "document_title": "FOMC statement",
         "start_page_number": 2, "end_page_number": 3},
    ]}]
    (repo / EXCHANGE).write_text(json.dumps(exchange), encoding="utf-8")
    code, out, _ = _import(capsys)
    assert code == 0, out
    stored = json.loads((repo / SIDECAR).read_text(encoding="utf-8"))["citations"]["1"]
    # offsets into the text pypdf extracts from the cited pages; the text is the PDF's, not the API's
    assert stored["quote_span"] == {"start": 0, "end": 21, "text": "Prices fell in April."}
    assert stored["claude_citation"]["start_page_number"] == 2


def test_without_the_extra_a_pdf_page_citation_is_rejected(repo, capsys, monkeypatch):
    import base64
    import sys

    exchange = json.loads((repo / EXCHANGE).read_text(encoding="utf-8"))
    exchange["request"]["messages"][0]["content"][0]["source"] = {
        "type": "base64", "media_type": "application/pdf", "data": base64.b64encode(b"%PDF-1.4\n").decode(),
    }
    exchange["response"]["content"] = [{"type": "text", "text": "Prices fell.", "citations": [
        {"type": "page_location", "cited_text": "Prices fell in April.", "document_index": 0, "document_title": "FOMC statement",
         "start_page_number": 2, "end_page_number": 3},
    ]}]
    (repo / EXCHANGE).write_text(json.dumps(exchange), encoding="utf-8")
    monkeypatch.setitem(sys.modules, "pypdf", None)
    code, out, _ = _import(capsys)
    assert code == 1
    assert out == [f"rejected {EXCHANGE}:1:{out[0].split(':')[2]}: A613 page_location of document 0 cannot be verified: "
                   "PDF text is not extracted, so its cited_text is unverified"]
    assert not (repo / SIDECAR).exists()


def test_a_rule_that_crashes_rejects_what_it_checks_instead_of_ending_the_import(repo, capsys, monkeypatch):
    """The import runs the kind's rules through the engine's rule runner: a rule's bug is a C006 on
    each citation it was asked about, as in `citations check`, never a traceback."""
    from pytest_citations.rules import RuleRegistry, rule

    @rule("A699", "always-crashes", kind="claude-exchanges")
    def always_crashes(citation, ctx):
        """Raises."""
        raise RuntimeError("boom")

    for_kind = RuleRegistry.for_kind
    monkeypatch.setattr(RuleRegistry, "for_kind", lambda self, kind, scope: [*for_kind(self, kind, scope), always_crashes])
    monkeypatch.setattr(RuleRegistry, "get", lambda self, code: {"A699": always_crashes}.get(code) or self._by_code.get(code))
    code, out, _ = _import(capsys)
    assert code == 1
    assert not [line for line in out if line.startswith("imported")]
    assert any("C006" in line and "internal error in rule A699" in line for line in out), out

"""PDFs are read in a process of their own (pytest_citations/core/pdf_text.py): a hostile one costs
the checker's process nothing past the child's limits, and the child imports nothing from the
checkout or the current folder."""

from __future__ import annotations

import base64
import json

import pytest
from test_page_text import one_page_pdf, pdf_of

from bounded_run import check_bounded, repo_with
from pytest_citations.core import pdf_text


def exchange_citing_pages_of(pdf: bytes) -> str:
    """A Claude exchange whose document is ``pdf`` (base64), with a page_location citation of its page 1."""
    document = {"type": "document", "source": {"type": "base64", "media_type": "application/pdf",
                                               "data": base64.b64encode(pdf).decode()}, "citations": {"enabled": True}}
    citation = {"type": "page_location", "cited_text": "ab", "document_index": 0, "document_title": None,
                "start_page_number": 1, "end_page_number": 2}
    return json.dumps({"request": {"messages": [{"role": "user", "content": [document, {"type": "text", "text": "q"}]}]},
                       "response": {"content": [{"type": "text", "text": "a", "citations": [citation]}]}})


def test_a_committed_pdf_of_millions_of_operators_is_checked_in_bounded_time_and_memory(tmp_path):
    """A 24 KB exchange: its PDF's one page holds 2 million text operators. Was: read in the
    checker's process without pypdf's limits, 5.7 s and 322 MB."""
    pytest.importorskip("pypdf")
    pdf = one_page_pdf(b"BT /F1 12 Tf " + b"(ab) Tj " * 2_000_000 + b"ET")
    repo = repo_with(tmp_path / "repo", {"a.exchange.json": exchange_citing_pages_of(pdf)})
    outcome = check_bounded(repo, "--format", "json")
    outcome.assert_bounded()
    assert [(d["code"], d["message"]) for d in outcome.diagnostics()] == [
        ("A613", "page_location of document 0 cannot be verified: PDF text is not extracted, so its cited_text is unverified")]


def test_the_pdf_reader_imports_nothing_from_the_current_folder(tmp_path, monkeypatch):
    pytest.importorskip("pypdf")
    marker = tmp_path / "imported"
    for name in ("pypdf.py", "json.py"):
        (tmp_path / name).write_text(f"open({str(marker)!r}, 'w').close()\n")
    (tmp_path / "pytest_citations").mkdir()
    (tmp_path / "pytest_citations" / "__init__.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    read = pdf_text.read(pdf_of("Minutes"))
    assert [page.strip() for page in read.pages] == ["Minutes"] and read.count == 1
    assert not marker.exists()


def test_without_pypdf_the_reader_says_so_without_a_process(monkeypatch):
    monkeypatch.setitem(__import__("sys").modules, "pypdf", None)
    assert pdf_text.read(b"%PDF-1.4") == pdf_text.PdfText(None, unread=pdf_text.EXTRA_MISSING, limited=True)


def test_the_child_sends_its_text_back_as_utf8():
    """Non-ASCII text comes back whole (the child writes UTF-8, not escapes that take up to 12
    bytes a character: a 4 KB PDF made its parent hold 440 MB)."""
    pytest.importorskip("pypdf")
    pdf = pdf_of("Caf\u00e9 cr\u00e8me")
    here, there = pdf_text.extract(pdf), pdf_text.read(pdf)
    assert there == here and any(ord(character) > 127 for character in there.pages[0])


def test_the_pdf_text_the_documents_of_a_run_hold_is_bounded(tmp_path, monkeypatch):
    """Each document keeps its pages' text for the run: past the run's budget, a PDF is not read,
    and its citations cannot be verified (A613), rather than held (40 documents of emoji took
    680 MB); the result is not kept, as a limit of the run decided it."""
    pytest.importorskip("pypdf")
    from pytest_citations.engine import Engine
    from pytest_citations.kinds.claude_exchanges import cited_text

    monkeypatch.setattr(cited_text, "RUN_PDF_CHARACTERS", 5)
    repo = repo_with(tmp_path / "repo", {
        "a.exchange.json": exchange_citing_pages_of(pdf_of("ab and more")),
        "b.exchange.json": exchange_citing_pages_of(pdf_of("ab and more")),
    })
    found = sorted((d.path, d.code) for d in Engine.load(repo).check([repo]).diagnostics)
    assert found == [("b.exchange.json", "A613")]  # (a's quote "ab" is on its page: verified)

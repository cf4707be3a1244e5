"""--fix --refresh-verified on memories records verification: stamps, confidence, last_verified;
idempotent; lossless. Without the opt-in, nothing of it is written."""

from __future__ import annotations

import pytest

from pytest_citations.engine import Engine
from pytest_citations.kinds.memories import refresh as memory_refresh
from pytest_citations.run.fix import fix_file

NOW = "2026-11-22T10:00:00Z"
BODY = "\n# Session cache\n\nThe cache key is the user id  (two spaces kept).\n"


@pytest.fixture(autouse=True)
def fixed_clock(monkeypatch):
    monkeypatch.setattr(memory_refresh, "utc_now", lambda: NOW)


def _repo(tmp_path, front_matter: str, body: str = BODY):
    (tmp_path / "pyproject.toml").write_text("[tool.citations]\n")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "cache.py").write_text("import os\n\ndef cache_key(user):\n    return user.id\n")
    memories = tmp_path / ".serena" / "memories"
    memories.mkdir(parents=True)
    (memories / "cache.md").write_text(f"---\n{front_matter}---\n{body}")
    return tmp_path, ".serena/memories/cache.md"


def _fix(root, rel, refresh=True):
    engine = Engine.load(root)
    return fix_file(engine, rel, engine.kinds_for(rel), refresh)


def test_without_the_opt_in_a_memory_without_findings_is_not_written(tmp_path):
    root, rel = _repo(tmp_path, "citations:\n  - path: src/cache.py\n    line: 3\n    snippet: def cache_key\n")
    before = (root / rel).read_bytes()
    result = _fix(root, rel, refresh=False)
    assert (result.diagnostics, result.applied, result.refreshed, result.written) == ([], 0, False, False)
    assert (root / rel).read_bytes() == before
    assert _fix(root, rel).refreshed  # what --refresh-verified would have recorded
    assert f"verified: {NOW}" in (root / rel).read_text()


def test_stamps_verified_citations_confidence_and_last_verified(tmp_path):
    root, rel = _repo(
        tmp_path,
        "id: cache  # the session cache\n"
        "citations:\n"
        "  - path: src/cache.py\n"
        "    line: 1\n"
        "    snippet: 'def cache_key'\n"
        "  - path: \"src/cache.py\"\n",
    )
    result = _fix(root, rel)
    assert result.diagnostics == []
    assert (root / rel).read_text() == (
        "---\n"
        "id: cache  # the session cache\n"
        "citations:\n"
        "  - path: src/cache.py\n"
        "    line: 3\n"
        "    snippet: 'def cache_key'\n"
        f"    verified: {NOW}\n"
        "  - path: \"src/cache.py\"\n"
        f"    verified: {NOW}\n"
        "confidence: 1.0\n"
        f"last_verified: {NOW}\n"
        "---\n" + BODY
    )
    once = (root / rel).read_bytes()
    _fix(root, rel)
    assert (root / rel).read_bytes() == once


def test_a_stale_citation_is_not_stamped_and_lowers_confidence(tmp_path):
    root, rel = _repo(
        tmp_path,
        "citations:\n- path: src/cache.py\n  line: 3\n  verified: 2026-01-01T00:00:00Z\n- path: src/gone.py\nconfidence: 1.0\n",
    )
    result = _fix(root, rel)
    assert [d.code for d in result.diagnostics] == ["M207"]
    text = (root / rel).read_text()
    assert "verified: 2026-01-01T00:00:00Z\n" in text  # already stamped and not moved: kept
    assert text.count(NOW) == 1 and f"last_verified: {NOW}" in text
    assert "confidence: 0.5\n" in text


def test_nothing_to_record_writes_nothing(tmp_path):
    root, rel = _repo(
        tmp_path, "citations:\n- path: src/cache.py\n  verified: 2026-01-01T00:00:00Z\nconfidence: 1.0\n"
    )
    before = (root / rel).read_bytes()
    assert _fix(root, rel).diagnostics == []
    assert (root / rel).read_bytes() == before


def test_front_matter_a_round_trip_would_reformat_is_left_alone(tmp_path):
    root, rel = _repo(tmp_path, "citations: [ {path: src/cache.py} ]\n")
    before = (root / rel).read_bytes()
    assert _fix(root, rel).diagnostics == []
    assert (root / rel).read_bytes() == before


def test_crlf_and_bom_are_kept(tmp_path):
    root, rel = _repo(tmp_path, "citations:\n- path: src/cache.py\n")
    path = root / rel
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes().replace(b"\n", b"\r\n"))
    _fix(root, rel)
    data = path.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf---\r\n")
    assert b"\n" not in data.replace(b"\r\n", b"")
    assert f"verified: {NOW}\r\n".encode() in data

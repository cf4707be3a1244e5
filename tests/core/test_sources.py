"""sources.py: confinement, size cap, strict UTF-8, BOM, CRLF, and the line index."""

from __future__ import annotations

import os

import pytest

from pytest_citations.core import sources
from pytest_citations.core.sources import SourceError


def test_reads_utf8_with_bom_and_crlf(tmp_path):
    (tmp_path / "a.txt").write_bytes(b"\xef\xbb\xbfone\r\ntwo\r\n")
    source = sources.read_source(tmp_path, "a.txt")
    assert source.has_bom and source.text == "one\r\ntwo\r\n"
    assert source.newline == "\r\n"
    assert [(line.number, line.offset, line.text) for line in source.lines()] == [(1, 0, "one"), (2, 5, "two")]
    assert source.line_col(6) == (2, 2)
    assert source.line_text(2) == "two"


def test_streamed_lines_match_in_memory_lines(tmp_path):
    data = "\ufefffirst\r\nsecond é\nlast without newline"
    (tmp_path / "a.jsonl").write_bytes(data.encode("utf-8"))
    streamed = list(sources.iter_lines(tmp_path, "a.jsonl"))
    in_memory = list(sources.read_source(tmp_path, "a.jsonl").lines())
    assert streamed == in_memory
    assert [line.text for line in streamed] == ["first", "second é", "last without newline"]


def test_not_utf8_names_the_byte_offset_line_and_column(tmp_path):
    (tmp_path / "a.txt").write_bytes(b"ok\nab\xe9cd\n")
    with pytest.raises(SourceError) as caught:
        sources.read_source(tmp_path, "a.txt")
    assert (caught.value.code, caught.value.message) == ("C002", "not valid UTF-8: byte 0xe9 at offset 5")
    assert (caught.value.line, caught.value.col) == (2, 3)


def test_streaming_reports_not_utf8_on_its_line(tmp_path):
    (tmp_path / "a.txt").write_bytes(b"ok\nab\xe9cd\n")
    lines = sources.iter_lines(tmp_path, "a.txt")
    assert next(lines).text == "ok"
    with pytest.raises(SourceError) as caught:
        next(lines)
    assert (caught.value.code, caught.value.line, caught.value.col) == ("C002", 2, 3)
    assert caught.value.message == "not valid UTF-8: byte 0xe9 at offset 5"


def test_size_cap_is_checked_before_reading(tmp_path):
    (tmp_path / "big.txt").write_bytes(b"x" * 101)
    with pytest.raises(SourceError) as caught:
        sources.read_source(tmp_path, "big.txt", max_size=100)
    assert caught.value.code == "C003"
    assert caught.value.message == "file is 101 bytes, over the 100-byte limit (max-file-size)"


def test_symlink_out_of_the_root_is_refused_without_reading(tmp_path):
    outside = tmp_path / "secret.txt"
    outside.write_text("password=hunter2")
    root = tmp_path / "repo"
    root.mkdir()
    os.symlink(outside, root / "link.txt")
    with pytest.raises(SourceError) as caught:
        sources.read_source(root, "link.txt")
    assert caught.value.code == "C008"
    assert "hunter2" not in caught.value.message


def test_dotdot_escape_is_refused(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    (tmp_path / "x.txt").write_text("x")
    with pytest.raises(SourceError) as caught:
        sources.read_bytes(root, "../x.txt")
    assert caught.value.code == "C008"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_fifo_is_not_opened(tmp_path):
    os.mkfifo(tmp_path / "pipe.jsonl")
    with pytest.raises(SourceError) as caught:
        sources.read_source(tmp_path, "pipe.jsonl")
    assert (caught.value.code, caught.value.message) == ("C001", "cannot read pipe.jsonl: not a regular file")


def test_folder_and_missing_file(tmp_path):
    (tmp_path / "folder").mkdir()
    with pytest.raises(SourceError) as caught:
        sources.read_source(tmp_path, "folder")
    assert caught.value.message == "cannot read folder: not a regular file"
    with pytest.raises(SourceError) as caught:
        sources.read_source(tmp_path, "nothing.txt")
    assert caught.value.message == "cannot read nothing.txt: no such file"


def test_with_text_keeps_the_bom(tmp_path):
    (tmp_path / "a.txt").write_bytes(b"\xef\xbb\xbfold\n")
    source = sources.read_source(tmp_path, "a.txt")
    assert sources.with_text(source, "new\n").raw == b"\xef\xbb\xbfnew\n"


def test_read_head_reads_only_the_head(tmp_path):
    (tmp_path / "big.jsonl").write_bytes(b"x" * 100_000)
    assert sources.read_head(tmp_path, "big.jsonl", 10) == b"x" * 10
    with pytest.raises(SourceError) as caught:
        sources.read_head(tmp_path, "big.jsonl", 10, max_size=1000)
    assert caught.value.code == "C003"


def test_sniffing_a_kind_never_reads_the_whole_file(tmp_path, monkeypatch):
    from pytest_citations.engine import Engine

    (tmp_path / "pyproject.toml").write_text("[tool.citations]\n")
    (tmp_path / "data.jsonl").write_text('{"schema_version": "citation.v1"}\n' * 10)
    engine = Engine.load(tmp_path)

    def whole_file(*args, **kwargs):
        raise AssertionError("sniffing read the whole file")

    monkeypatch.setattr(sources, "read_bytes", whole_file)
    assert [kind.name for kind in engine.kinds_for("data.jsonl")] == ["url-citations"]

"""Big JSON Lines files (issue 19): ``max-file-size`` caps a line, not the file, and the file is
read in memory bounded by that cap however large it is. Each case runs ``citations check`` in a
child process measured by test_exhaustion's harness: its findings, its time and its peak memory."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_exhaustion import check_bounded

from bounded_run import RUNAWAY_SECONDS
from pytest_citations.core import sources
from pytest_citations.core.sources import Line, LongLine, SourceError
from pytest_citations.kinds.url_citations.urls import cid_for

CITATIONS = "runs/r/citations/citations.jsonl"
LIMIT = 16 * 1024 * 1024  # the default max-file-size


def record(n: int) -> str:
    url = f"https://example.com/doc/{n}"
    return json.dumps({"schema_version": "citation.v1", "normalized_url": url, "cid": cid_for(url), "url": url,
                       "url_original": url, "status": "valid", "checked_at": "2026-02-13T12:35:00Z", "found_by": [],
                       "notes": "ok"}, separators=(",", ":"))


def repo(tmp_path: Path, data: bytes, settings: str = "") -> Path:
    root = tmp_path / "repo"
    (root / "runs" / "r" / "citations").mkdir(parents=True)
    (root / "pyproject.toml").write_text(f"[tool.citations]\n{settings}")
    (root / CITATIONS).write_bytes(data)
    return root


def too_long(number_of_bytes: int, limit: int = LIMIT) -> str:
    return (f"line is {number_of_bytes} bytes, over the {limit}-byte limit on one record (max-file-size): it is skipped; "
            "the other lines are checked")


BROKEN = b'{"schema_version": "citation.v1", "status": }\n'  # a U101 where it stands


def test_a_file_far_over_the_limit_is_checked_record_by_record_in_bounded_memory(tmp_path):
    """Was: C003 for the whole file, none of its records checked. 25 MB of records under a 64 KiB
    limit: reading the file whole would take twice its size (bytes and text) over the interpreter's
    own; streamed, the peak stays far below."""
    lines = [record(n).encode() + b"\n" for n in range(1000)]
    body = b"".join(lines) * 80  # (repeated cids: U113 on each repeat, at most 50 kept and a C009)
    root = repo(tmp_path, body + BROKEN, "max-file-size = 65536\n")
    assert len(body) > 25_000_000
    outcome = check_bounded(tmp_path, root)
    assert outcome.status is not None, f"still running after {RUNAWAY_SECONDS} s"
    assert outcome.megabytes < 60, f"peak memory {outcome.megabytes:.0f} MB"
    found = outcome.findings()
    assert {code for _, _, code, _ in found} == {"U113", "C009", "U101"}
    assert found[-1][1:3] == (80_001, "U101")


def test_a_single_50_mb_line_is_a_c003_at_its_line_and_the_lines_around_it_are_read(tmp_path):
    long = b'{"notes": "' + b"x" * 50_000_000 + b'"}\n'
    outcome = check_bounded(tmp_path, repo(tmp_path, BROKEN + long + BROKEN))
    outcome.assert_bounded()
    assert [(line, code, message) for _, line, code, message in outcome.findings()] == [
        (1, "U101", "invalid JSON: expecting value"),
        (2, "C003", too_long(len(long))),
        (3, "U101", "invalid JSON: expecting value"),
    ]


def test_a_file_without_a_newline_over_the_limit_is_one_long_line(tmp_path):
    line = b'{"url": "https://example.com/a"' + b" " * (20 << 20)
    outcome = check_bounded(tmp_path, repo(tmp_path, line))
    outcome.assert_bounded()
    assert [(line, code, message) for _, line, code, message in outcome.findings()] == [(1, "C003", too_long(len(line)))]


def test_nul_bytes_are_text_a_long_run_of_them_is_a_long_line(tmp_path):
    nul_line = b'{"url": "a\x00b"}\n'
    outcome = check_bounded(tmp_path, repo(tmp_path, nul_line + b"\x00" * (20 << 20) + b"\n" + nul_line))
    outcome.assert_bounded()
    assert [(line, code) for _, line, code, _ in outcome.findings()] == [(1, "U101"), (2, "C003"), (3, "U101")]


def test_invalid_utf8_in_the_middle_of_a_huge_file_is_a_c002_at_its_line_and_column(tmp_path):
    """The records before it are checked; the file is no text past it (as within the limit)."""
    good = b"".join(record(n).encode() + b"\n" for n in range(20_000))
    bad_line = b'{"notes": "caf\xe9"}\n'
    data = BROKEN + good + bad_line + good[:100_000]
    outcome = check_bounded(tmp_path, repo(tmp_path, data, "max-file-size = 65536\n"))
    outcome.assert_bounded()
    offset = len(BROKEN) + len(good) + 14
    assert outcome.findings()[0][1:3] == (1, "U101")
    assert [(line, code, message) for _, line, code, message in outcome.findings()[1:]] == [
        (20_002, "C002", f"not valid UTF-8: byte 0xe9 at offset {offset}")]


# -- the reader itself ------------------------------------------------------------------------


def test_stream_lines_within_the_cap_gives_what_iter_lines_gives(tmp_path):
    (tmp_path / "a.jsonl").write_bytes("\ufefffirst\r\nsecond é\n\nlast without newline".encode())
    assert list(sources.stream_lines(tmp_path, "a.jsonl")) == list(sources.iter_lines(tmp_path, "a.jsonl"))


def test_stream_lines_skips_a_long_line_and_keeps_the_offsets_of_the_lines_after_it(tmp_path):
    long = "é" * 30 + "\r\n"
    (tmp_path / "a.jsonl").write_bytes(("\ufeffab\n" + long + "cd\n").encode())
    assert list(sources.stream_lines(tmp_path, "a.jsonl", max_line_size=16)) == [
        Line(1, 0, "ab"), LongLine(2, 3, len(long.encode())), Line(3, 3 + len(long), "cd")]


@pytest.mark.parametrize(("first", "col"), [(True, 5), (False, 5)])
def test_stream_lines_names_invalid_utf8_inside_a_long_line(tmp_path, first, col):
    before = b"" if first else b"ok\n"
    line = "éééé".encode() + b"\xff" + b"x" * (3 << 20) + b"\n"
    (tmp_path / "a.jsonl").write_bytes(before + line)
    with pytest.raises(SourceError) as caught:
        list(sources.stream_lines(tmp_path, "a.jsonl", max_line_size=100))
    assert (caught.value.code, caught.value.line, caught.value.col) == ("C002", 2 - first, col)
    assert caught.value.message == f"not valid UTF-8: byte 0xff at offset {len(before) + 8}"


def test_stream_lines_names_a_sequence_cut_at_the_end_of_a_long_line(tmp_path):
    (tmp_path / "a.jsonl").write_bytes(b"x" * (2 << 20) + b"\xe2\x82")
    with pytest.raises(SourceError) as caught:
        list(sources.stream_lines(tmp_path, "a.jsonl", max_line_size=100))
    assert (caught.value.code, caught.value.line, caught.value.col) == ("C002", 1, (2 << 20) + 1)


def test_stream_lines_tells_a_listener_how_far_it_has_read(tmp_path):
    (tmp_path / "a.jsonl").write_bytes(b"x" * 99 + b"\n" + (b"y" * 1023 + b"\n") * 3000)
    heard: list[tuple[str, int, int]] = []
    replaced = sources.listen_to_reads(lambda *told: heard.append(told))
    try:
        list(sources.stream_lines(tmp_path, "a.jsonl", max_line_size=100))
    finally:
        sources.listen_to_reads(replaced)
    size = 100 + 1024 * 3000
    assert heard == [("a.jsonl", 100 + 1024 * n, size) for n in (1024, 2048)]


# -- read_blocks: a whole file read in blocks (the count of a dataset's records) ----------------------


def test_read_blocks_gives_the_bytes_of_a_file_larger_than_a_block(tmp_path):
    data = b"x" * (sources.READ_BLOCK + 10)
    root = repo(tmp_path, data)
    assert b"".join(sources.read_blocks(root, CITATIONS)) == data


@pytest.mark.parametrize("kind", ["outside", "fifo", "folder"])
def test_read_blocks_keeps_the_readers_guarantees(tmp_path, kind):
    root = repo(tmp_path, b"")
    target = root / CITATIONS
    target.unlink()
    if kind == "outside":
        (tmp_path / "secret").write_text("secret\n")
        target.symlink_to(tmp_path / "secret")
    elif kind == "fifo":
        import os

        os.mkfifo(target)
    else:
        target.mkdir()
    with pytest.raises(SourceError) as raised:
        b"".join(sources.read_blocks(root, CITATIONS))
    assert raised.value.code == ("C008" if kind == "outside" else "C001")


def test_read_blocks_reads_a_file_growing_while_read_no_further_than_its_size_then(tmp_path):
    root = repo(tmp_path, b"x" * (sources.READ_BLOCK + 1))
    blocks = sources.read_blocks(root, CITATIONS)
    first = next(blocks)
    with (root / CITATIONS).open("ab") as grown:
        grown.write(b"y" * (2 * sources.READ_BLOCK))
    with pytest.raises(SourceError) as raised:
        list(blocks)
    assert len(first) == sources.READ_BLOCK and raised.value.code == "C001" and "grew past" in raised.value.message

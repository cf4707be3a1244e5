"""Inside one big file the progress note shows how far it has been read (issue 19), fed by the
streaming reader; only on a terminal, and never once the run is over."""

from __future__ import annotations

import io

from pytest_citations.core import sources
from pytest_citations.run.progress import Progress


class Terminal(io.StringIO):
    def isatty(self):
        return True


def big_file(tmp_path, megabytes: int = 3):
    (tmp_path / "runs" / "x").mkdir(parents=True)
    line = b'{"notes": "' + b"n" * (sources.READ_BLOCK - 14) + b'"}\n'  # a mebibyte a line
    (tmp_path / "runs" / "x" / "citations.jsonl").write_bytes(line * megabytes)


def test_the_bytes_read_of_the_current_file_are_shown_on_a_terminal(tmp_path):
    big_file(tmp_path)
    stream = Terminal()
    progress = Progress(stream, delay=0, interval=0)
    try:
        for _ in sources.stream_lines(tmp_path, "runs/x/citations.jsonl"):
            pass
    finally:
        progress.close()
    shown = stream.getvalue()
    assert shown.startswith("\r\x1b[Kcitations: 0 files checked, now runs/x/citations.jsonl 1 MB of 3 MB")
    assert "now runs/x/citations.jsonl 2 MB of 3 MB" in shown
    assert shown.endswith("\r\x1b[K")
    assert sources.listen_to_reads(None) is None  # close() stopped listening


def test_nothing_is_shown_off_a_terminal_and_nothing_listens(tmp_path):
    big_file(tmp_path)
    stream = io.StringIO()
    progress = Progress(stream, delay=0, interval=0)
    assert sources.listen_to_reads(None) is None
    for _ in sources.stream_lines(tmp_path, "runs/x/citations.jsonl"):
        pass
    progress.close()
    assert stream.getvalue() == ""


"""A one-line progress note on a terminal for long runs; silent when output is not a terminal."""

from __future__ import annotations

import os
import sys
import time
from typing import TextIO

from pytest_citations.core import sources


class Progress:
    """Counts checked files and, once a run has taken ``delay`` seconds, shows the count on
    ``stream`` at most every ``interval`` seconds, erasing the line when done. Inside a file read
    as a stream (:func:`sources.stream_lines`: a large JSON Lines file) it shows how far the read
    has come too, from the streaming reader, while it listens (on a terminal, until :meth:`close`)."""

    def __init__(self, stream: TextIO | None = None, delay: float = 1.0, interval: float = 0.25) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = self.stream.isatty()
        self.started = time.monotonic()
        self.delay, self.interval = delay, interval
        self.shown_at = 0.0
        self.files = 0
        self._process = os.getpid()
        self._replaced = sources.listen_to_reads(self.read) if self.enabled else None

    def wrap(self, check_file=None):
        """``check_file(engine, rel, kinds)`` (by default the engine's own check) counted, for
        :meth:`Engine.check`."""

        def counted(engine, rel, kinds):
            result = check_file(engine, rel, kinds) if check_file else engine.check_file(rel, kinds)
            self.advance(engine.display_prefix + rel)
            return result

        return counted

    def advance(self, rel: str) -> None:
        self.files += 1
        self._show(rel[-60:])

    def read(self, rel: str, done: int, total: int) -> None:
        """``done`` of the ``total`` bytes of ``rel`` read (told by the streaming reader). Not in a
        worker process (``-j``), which inherits the listener: the parent alone writes the line."""
        if os.getpid() == self._process:
            self._show(f"{rel[-60:]} {_megabytes(done)} of {_megabytes(total)}")

    def _show(self, now_at: str) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self.started >= self.delay and now - self.shown_at >= self.interval:
            self.shown_at = now
            self.stream.write(f"\r\x1b[Kcitations: {self.files} files checked, now {now_at}")
            self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            sources.listen_to_reads(self._replaced)
        if self.enabled and self.shown_at:
            self.stream.write("\r\x1b[K")
            self.stream.flush()


def _megabytes(count: int) -> str:
    return f"{count // 1_000_000} MB"

"""The progress note appears only on a terminal, only for long runs, and is erased at the end."""

import io

from pytest_citations.run.progress import Progress


class Engine:
    """Stands in for an engine: progress reads only where its paths are shown from."""

    def __init__(self, display_prefix=""):
        self.display_prefix = display_prefix


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_silent_when_not_a_terminal():
    stream = io.StringIO()
    progress = Progress(stream, delay=0, interval=0)
    progress.wrap(lambda engine, rel, kinds: [])(Engine(), "a.jsonl", ())
    progress.close()
    assert stream.getvalue() == "" and progress.files == 1


def test_shown_and_erased_on_a_terminal():
    stream = Terminal()
    progress = Progress(stream, delay=0, interval=0)
    assert progress.wrap(lambda engine, rel, kinds: ["x"])(Engine("sub/"), "runs/a/citations/citations.jsonl", ()) == ["x"]
    progress.close()
    assert stream.getvalue() == (
        "\r\x1b[Kcitations: 1 files checked, now sub/runs/a/citations/citations.jsonl" + "\r\x1b[K"
    )


def test_quiet_during_the_first_second():
    stream = Terminal()
    progress = Progress(stream, delay=60)
    progress.advance("a.jsonl")
    progress.close()
    assert stream.getvalue() == ""

"""Any text from the checkout in what the checker prints: no line of standard output or standard
error starts a workflow command of a CI runner, but the annotations of the github format, and
nothing raises (a traceback is printed as it is, past every escape).

Two ways in, chosen by the first byte:

- a finding's message, source line and path, rendered by every output format;
- ``citations check`` run on a checkout whose folder name and ``citations.jsonl`` come from the
  fuzzer (or a record whose fix ``--fix`` applies, so the summary on standard error names the
  folder; or a ``pyproject.toml`` in that folder linked to a name from the fuzzer, too long to
  resolve or looping), in one output format, with ``--fix``, ``--statistics`` or ``--show-fixes``
  or none; and on standard input under a name from the fuzzer (``--stdin-filename``), whose
  notices quote that name on standard error. (Standard input fixed with ``--fix`` goes to standard output as it
  is: that output is the file, not a message.)
"""

import json
import os
import re
import tempfile
from pathlib import Path

import atheris

with atheris.instrument_imports():
    from pytest_citations.core.diagnostics import Diagnostic, Severity
    from pytest_citations.engine import Report, load_plugins
    from pytest_citations.frontends import check_command  # noqa: F401 (instrumented for the CLI runs)
    from pytest_citations.frontends.cli import main
    from pytest_citations.frontends.reporters import render
    from pytest_citations.run import checking, fix  # noqa: F401
from _common import checked, run

FORMATS = ("text", "json", "github", "sarif", "junit")
OPTIONS = ([], ["--fix"], ["--statistics"], ["--show-fixes"])
URL = "https://example.com/a?utm_source=x"
FIXABLE = (json.dumps({"schema_version": "citation.v1", "normalized_url": URL, "cid": "cid_0", "url": URL, "url_original": URL,
                       "status": "valid", "checked_at": "2026-02-13T12:35:00Z", "found_by": [], "notes": "ok"}) + "\n").encode()
# What a runner strips before looking for ``::`` at the start of a line: whitespace, a byte order
# mark and terminal colour sequences; a legacy command (``##[``, ``##vso[``, ``##teamcity[``) may
# start anywhere in a line. A line ends at LF, CR or CRLF.
_LEAD = re.compile(r"(?:[^\S\r\n]|\ufeff|\x1b\[[0-?]*[ -/]*[@-~])*")
_LEGACY = re.compile(r"##(?:\[|vso\[|teamcity\[)", re.IGNORECASE)
# an annotation of the github format: each value escaped (``:`` and ``,`` in a value as ``%3A``, ``%2C``)
_ANNOTATION = re.compile(r"::(?:error|warning|notice) (?:file=[^:,]*,line=\d+,col=\d+,)?title=[A-Z]\d{3} [a-z0-9-]+"
                         r"(?:,endLine=\d+)?::")
NAME = b"x ##[error]pwned ##vso[task.setvariable variable=a]b"
SEEDS = [
    b"\x00" + "\u2028::add-mask::x\r::stop-commands::y ##vso[task.setvariable]".encode(),
    b"\x01" + bytes([0, 0, len(NAME)]) + NAME + b"::error::pwned\n",  # text format, a Markdown file
    b"\x01" + bytes([2 + 5, 0b0110, len(NAME)]) + NAME,  # github format, --fix, a fixable record
    b"\x01" + bytes([0, 0b1000, len(NAME)]) + NAME + b"a" * 300,  # a pyproject.toml linked to a name too long
    b"\x01" + bytes([3 * 5, 0b0011, len(NAME)]) + NAME + b'{"url": "::error::x"}\n',  # --show-fixes, standard input
]


def commands(text: str) -> list[str]:
    """The lines of ``text`` a runner would take for a workflow command."""
    return [line for line in re.split(r"\r\n|\r|\n", text)
            if line[_LEAD.match(line).end():].startswith("::") or _LEGACY.search(line)]


def rendered(provider: atheris.FuzzedDataProvider) -> None:
    path = provider.ConsumeUnicode(64) or "a.md"
    context = provider.ConsumeUnicode(512)
    message = provider.ConsumeUnicode(512)
    diagnostic = Diagnostic(code="M207", name="citation-file-not-found", severity=Severity.ERROR, message=message,
                            path=path, line=1, col=provider.ConsumeIntInRange(1, 600), context=context)
    registry = load_plugins()[1]
    for output in FORMATS:
        text = render(output, Report([diagnostic], [path]), registry)
        text.encode("utf-8", "surrogateescape")
        # github's one annotation is the only workflow command any output may hold
        assert len(commands(text)) == (1 if output == "github" else 0), (output, commands(text))


def folder_name(data: bytes) -> str:
    """A name a file system takes (no ``/``, no NUL, at most 200 bytes, not ``.`` or ``..``), not
    necessarily UTF-8 (shown by Python with surrogate escapes)."""
    name = data.replace(b"/", b"_").replace(b"\x00", b"_")[:200]
    return os.fsdecode(name if name.strip(b".") else b"x" + name)


def checked_from_the_command_line(data: bytes) -> None:
    """``citations check`` on a checkout made from ``data``: a byte for the output format and the
    option, a byte of switches (standard input; a path a kind claims; a fixable record for content;
    a ``pyproject.toml`` in the folder that is a symlink to the content, as a name), the folder
    name's length and the name, then the content."""
    head, switches, length = (data + bytes(3))[:3]
    output, options = FORMATS[head % len(FORMATS)], OPTIONS[head // len(FORMATS) % len(OPTIONS)]
    on_stdin, claimed, fixable, symlinked = (bool(switches >> bit & 1) for bit in range(4))
    name, content = folder_name(data[3:3 + length] or b"x"), data[3 + length:]
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "repo"
        (root / "runs" / name / "citations").mkdir(parents=True)
        (root / "pyproject.toml").write_text("[tool.citations]\n")
        if symlinked:  # a name too long to resolve, or one that loops, among the settings files
            os.symlink(content.replace(b"\x00", b"_")[:4000] or b"x", root / "runs" / name / "pyproject.toml")
        content = FIXABLE if fixable else content
        rel = f"runs/{name}/citations/citations.jsonl" if claimed else f"{name}.md"
        common = ["--no-cache", "--format", output, *options]
        if on_stdin:
            argv, stdin = ["check", "--stdin-filename", str(root / rel), *common, "-"], content
        else:
            (root / rel).write_bytes(content)
            argv, stdin = ["check", str(root), *common], b""
        status, stdout, stderr = checked(main, argv, stdin, cwd=root)
    assert status in (0, 1, 2), (status, stderr)
    assert commands(stderr) == [], stderr
    shown = [] if on_stdin and "--fix" in options else commands(stdout)
    if output == "github":
        shown = [line for line in shown if not _ANNOTATION.match(line)]
    assert shown == [], (output, shown)


def one(data: bytes) -> None:
    if data[:1] == b"\x01":
        checked_from_the_command_line(data[1:])
    else:
        rendered(atheris.FuzzedDataProvider(data[1:]))


if __name__ == "__main__":
    run(one, SEEDS)

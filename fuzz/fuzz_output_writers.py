"""Any text as a finding's message, source line and path, through every output format: a report,
never an exception; no workflow command of GitHub Actions but the one annotation of the github
format."""

import atheris

with atheris.instrument_imports():
    from pytest_citations.core.diagnostics import Diagnostic, Severity
    from pytest_citations.engine import Report, load_plugins
    from pytest_citations.frontends.reporters import render
from _common import run

FORMATS = ("text", "json", "github", "sarif", "junit")


def one(data: bytes) -> None:
    provider = atheris.FuzzedDataProvider(data)
    path = provider.ConsumeUnicode(64) or "a.md"
    context = provider.ConsumeUnicode(512)
    message = provider.ConsumeUnicode(512)
    diagnostic = Diagnostic(code="M207", name="citation-file-not-found", severity=Severity.ERROR, message=message,
                            path=path, line=1, col=provider.ConsumeIntInRange(1, 600), context=context)
    registry = load_plugins()[1]
    for output in FORMATS:
        text = render(output, Report([diagnostic], [path]), registry)
        text.encode("utf-8", "surrogateescape")
        commands = [line for line in text.splitlines() if line.lstrip().startswith("::") or "##[" in line]
        # github's one annotation is the only workflow command any output may hold
        assert len(commands) == (1 if output == "github" else 0), (output, commands)


if __name__ == "__main__":
    run(one)

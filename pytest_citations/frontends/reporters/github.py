"""GitHub Actions workflow commands: one ``::error``/``::warning`` annotation per diagnostic.

Escaping follows the runner's rules (as in ``@actions/core``): in the message, ``%`` becomes
``%25``, CR ``%0D`` and LF ``%0A``; property values also get ``:`` as ``%3A`` and ``,`` as
``%2C``. ``%`` is replaced first so nothing is escaped twice.
"""

from __future__ import annotations

from pytest_citations.frontends.reporters._common import safe, severity_name


def escape_data(text: str) -> str:
    """The runner's escapes, then the other control, bidi and zero-width characters shown as
    ``\\xNN``/``\\uNNNN`` (as in the text format), so an annotation cannot drive the log viewer."""
    return safe(text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A"))


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(d) -> str:
    properties = ",".join(
        f"{key}={escape_property(str(value))}"
        for key, value in (
            ("file", d.path),
            ("line", d.line),
            ("col", d.col),
            ("title", f"{d.code} {d.name}"),
        )
    )
    return f"::{severity_name(d)} {properties}::{escape_data(d.message)}"


def render(report, registry=None, **_: object) -> str:
    return "".join(annotation(d) + "\n" for d in report.diagnostics)

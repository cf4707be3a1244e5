"""GitHub Actions workflow commands: one ``::error``/``::warning`` annotation per diagnostic.

Escaping follows the runner's rules (as in ``@actions/core``): in the message, ``%`` becomes
``%25``, CR ``%0D`` and LF ``%0A``; property values also get ``:`` as ``%3A`` and ``,`` as
``%2C``. ``%`` is replaced first so nothing is escaped twice.

An annotation spans its diagnostic: ``endLine`` is the line it ends on and ``endColumn`` the column
after its last character. A diagnostic holds one position, not a range, so ``endLine`` is its
``line`` and ``endColumn`` is left out, which GitHub reads as the whole line. Both come after
``title``: the runner takes the properties in any order.

``--statistics`` prints one ``::notice`` per rule, titled with its code and name, whose message
is the count (the annotations of a run's summary, with no file).
"""

from __future__ import annotations

from pytest_citations.frontends.reporters._common import safe, severity_name


def escape_data(text: str) -> str:
    """The runner's escapes, then the other control, bidi and zero-width characters shown as
    ``\\xNN``/``\\uNNNN`` (as in the text format), so an annotation cannot drive the log viewer."""
    return safe(text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A"))


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command(name: str, properties: tuple[tuple[str, object], ...], message: str) -> str:
    """``::name key=value,...::message``, every value and the message escaped."""
    shown = ",".join(f"{key}={escape_property(str(value))}" for key, value in properties)
    return f"::{name} {shown}::{escape_data(message)}"


def annotation(d) -> str:
    properties = (
        ("file", d.path),
        ("line", d.line),
        ("col", d.col),
        ("title", f"{d.code} {d.name}"),
        ("endLine", d.line),
    )
    return command(severity_name(d), properties, d.message)


def render(report, registry=None, **_: object) -> str:
    return "".join(annotation(d) + "\n" for d in report.diagnostics)


def statistics_notice(row) -> str:
    """``::notice title=CODE name::N diagnostics``, and whether ``--fix`` repairs any of them."""
    return command("notice", (("title", f"{row.code} {row.name}"),), row.described())


def render_statistics(report, registry=None) -> str:
    from pytest_citations.frontends.reporters import per_rule

    return "".join(statistics_notice(row) + "\n" for row in per_rule(report))

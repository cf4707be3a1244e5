"""JUnit XML for CI test dashboards: one test case per checked file.

A file with at least one error fails, with one ``<failure>`` listing all its diagnostics in the
text format; a file with only warnings passes and lists them in ``<system-out>``. There is no
``time`` attribute, so the same report always gives the same bytes.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from pytest_citations.frontends.reporters._common import escape_char, format_diagnostic, is_error, plural

SUITE = "citations"

# Characters XML 1.0 cannot carry at all, even as character references.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def xml_safe(text: str) -> str:
    """``text`` with the characters XML cannot hold shown as escapes."""
    return _NOT_XML.sub(lambda m: escape_char(m.group()), text)


def to_element(report, show_source: bool = True) -> ET.Element:
    by_path: dict[str, list] = {path: [] for path in report.files}
    for d in report.diagnostics:  # a diagnostic on a path not in ``files`` still gets its case
        by_path.setdefault(d.path, []).append(d)

    suites = ET.Element("testsuites", name="pytest-citations")
    suite = ET.SubElement(suites, "testsuite", name=SUITE)
    failures = 0
    for path, diagnostics in by_path.items():
        case = ET.SubElement(suite, "testcase", classname=SUITE, name=xml_safe(path))
        lines = [line for d in diagnostics for line in format_diagnostic(d, show_source)]
        text = xml_safe("\n".join(lines) + "\n") if lines else ""
        if any(is_error(d) for d in diagnostics):
            failures += 1
            failure = ET.SubElement(case, "failure", message=plural(len(diagnostics), "problem"), type=SUITE)
            failure.text = text
        elif diagnostics:
            ET.SubElement(case, "system-out").text = text
    for element in (suites, suite):
        element.set("tests", str(len(by_path)))
        element.set("failures", str(failures))
        element.set("errors", "0")
        element.set("skipped", "0")
    return suites


def render(report, registry=None, *, show_source: bool = True, **_: object) -> str:
    root = to_element(report, show_source)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"

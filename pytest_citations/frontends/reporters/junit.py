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
STATISTICS_SUITE = "citations-statistics"

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
    _set_totals((suites, suite), len(by_path), failures)
    return suites


def _set_totals(elements, tests: int, failures: int) -> None:
    for element in elements:
        element.set("tests", str(tests))
        element.set("failures", str(failures))
        element.set("errors", "0")
        element.set("skipped", "0")


def _document(root: ET.Element) -> str:
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def render(report, registry=None, *, show_source: bool = True, **_: object) -> str:
    return _document(to_element(report, show_source))


def statistics_element(report) -> ET.Element:
    """The ``citations-statistics`` suite: its ``<properties>`` give each rule code's count, and
    a test case per rule (``CODE name``) fails when the rule reported an error; a rule of
    warnings only passes, its count in ``<system-out>``."""
    from pytest_citations.frontends.reporters import per_rule

    rows = per_rule(report)
    errors = {d.code for d in report.diagnostics if is_error(d)}
    suites = ET.Element("testsuites", name="pytest-citations")
    suite = ET.SubElement(suites, "testsuite", name=STATISTICS_SUITE)
    properties = ET.SubElement(suite, "properties")
    for row in rows:
        ET.SubElement(properties, "property", name=row.code, value=str(row.count))
    for row in rows:
        case = ET.SubElement(suite, "testcase", classname=STATISTICS_SUITE, name=xml_safe(f"{row.code} {row.name}"))
        if row.code in errors:
            failure = ET.SubElement(case, "failure", message=plural(row.count, "problem"), type=STATISTICS_SUITE)
            failure.text = row.described() + "\n"
        else:
            ET.SubElement(case, "system-out").text = row.described() + "\n"
    _set_totals((suites, suite), len(rows), len(errors))
    return suites


def render_statistics(report, registry=None) -> str:
    return _document(statistics_element(report))

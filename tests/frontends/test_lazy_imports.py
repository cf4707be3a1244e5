"""A run imports what the kinds of the files it checks need, and nothing more.

Each check runs ``cli.main`` in a fresh interpreter and looks at the modules it imported (those
already there when the interpreter started, from ``site`` and ``.pth`` files, are left out).
Start-up time is measured by the bench harness (``bench/run.py``, the one-small-file row), not here:
these tests catch the regressions that make it slow, such as a module-level import of a heavy
dependency that only one kind needs.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import textwrap
from importlib.machinery import PathFinder

import pytest

from conftest import PROJECT
from pytest_citations import hookspecs
from pytest_citations.frontends import cli

# Third-party dependencies, and standard modules a check of one file with -j 1 never needs.
MARKDOWN, SCHEMA, YAML, PYTEST = "markdown_it", "jsonschema", "ruamel", "pytest"
NEVER = {PYTEST, "_pytest", "multiprocessing", "subprocess", "sqlite3", "uuid", "tempfile", "difflib", "pypdf"}

CHILD = textwrap.dedent(
    """
    import json, sys
    before = set(sys.modules)
    from pytest_citations import hookspecs
    from pytest_citations.frontends import cli
    status = cli.main(sys.argv[1:])
    print(json.dumps({
        "status": status,
        "imported": sorted({name.split(".")[0] for name in set(sys.modules) - before}),
        "imported_modules": sorted(set(sys.modules) - before),
        "plugins_possible": hookspecs.may_declare_entry_points(hookspecs.ENTRY_POINT_GROUP),
    }))
    """
)


def imported_by(root, *args: str) -> dict:
    """What ``citations ARGS`` imported, run in ``root`` in a fresh interpreter."""
    env = {**os.environ, "PYTHONPATH": str(PROJECT), "CITATIONS_CACHE_DIR": str(root / ".cache")}
    done = subprocess.run([sys.executable, "-c", CHILD, *args], cwd=root, capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.splitlines()[-1])
    result["output"] = "\n".join(done.stdout.splitlines()[:-1])
    return result


def check(root, *paths: str) -> dict:
    result = imported_by(root, "check", "--no-cache", *paths)
    assert result["status"] == 0, result["output"]
    return result


def assert_not_imported(result: dict, *names: str) -> None:
    found = sorted(set(names) & set(result["imported"]))
    assert not found, f"imported {found}"


@pytest.fixture
def repo(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    (root / "pyproject.toml").write_text("[tool.citations]\n")
    (root / "a.py").write_text("x = 1\n")
    return root


def test_a_memory_check_imports_no_markdown_schema_or_pytest(repo):
    memories = repo / ".serena" / "memories"
    memories.mkdir(parents=True)
    (memories / "m.md").write_text('---\nid: m\ncitations:\n  - path: a.py\n    line: 1\n    snippet: "x = 1"\n---\n\nBody.\n')
    result = check(repo, ".")
    assert "1 file checked" in result["output"]
    assert_not_imported(result, MARKDOWN, SCHEMA, "regex", *NEVER)
    assert YAML in result["imported"]  # front matter is YAML: the one parser this run needs


def test_a_check_imports_the_rule_modules_of_its_kinds_only(repo):
    memories = repo / ".serena" / "memories"
    memories.mkdir(parents=True)
    (memories / "m.md").write_text('---\nid: m\ncitations:\n  - path: a.py\n    line: 1\n    snippet: "x = 1"\n---\n\nBody.\n')
    result = check(repo, ".")
    rule_modules = {name for name in result["imported_modules"] if name.endswith(("rules", "_rules")) and ".kinds." in name}
    assert "pytest_citations.kinds.memories.citation_rules" in rule_modules
    assert not {name for name in rule_modules if not name.endswith("parse_rules") and ".memories." not in name}
    # the kinds that claim no Markdown file, not even by sniffing, are not imported at all
    assert not {name for name in result["imported_modules"]
                if name.startswith(("pytest_citations.kinds.ear_ids", "pytest_citations.kinds.url_citations",
                                    "pytest_citations.kinds.claude_exchanges", "pytest_citations.kinds.synthesis"))}


def test_a_warm_re_run_imports_no_rule_module(repo):
    memories = repo / ".serena" / "memories"
    memories.mkdir(parents=True)
    (memories / "m.md").write_text('---\nid: m\ncitations:\n  - path: a.py\n    line: 1\n    snippet: "x = 1"\n---\n\nBody.\n')
    first = imported_by(repo, "check", ".")
    assert first["status"] == 0 and "pytest_citations.kinds.memories.citation_rules" in first["imported_modules"]
    again = imported_by(repo, "check", ".")
    assert again["status"] == 0
    assert not [name for name in again["imported_modules"] if name.endswith("_rules") and not name.endswith("parse_rules")]


def test_a_url_citations_check_imports_no_markdown_yaml_or_schema(repo):
    record = {
        "schema_version": "citation.v1",
        "normalized_url": "https://www.iea.org/reports/the-future-of-heat-pumps",
        "cid": "cid_e8219ae01c546315f3af2b1268db3914aca69123454a5ceb3cd07af6130862e5",
        "url": "https://www.iea.org/reports/the-future-of-heat-pumps",
        "url_original": "https://www.iea.org/reports/the-future-of-heat-pumps?utm_source=feed",
        "status": "valid", "checked_at": "2026-03-01T09:00:00Z", "http_status": 200,
        "title": "The Future of Heat Pumps", "publisher": "IEA", "notes": "ok",
        "found_by": [{"wave": 1, "perspective_id": "p1", "agent_type": "ClaudeResearcher", "artifact_path": "wave-1/p1.md"}],
    }
    run = repo / "runs" / "r1"
    (run / "citations").mkdir(parents=True)
    (run / "wave-1").mkdir()
    (run / "wave-1" / "p1.md").write_text("Heat pumps.\n")
    (run / "citations" / "citations.jsonl").write_text(json.dumps(record) + "\n")
    result = check(repo, "runs/r1/citations/citations.jsonl")
    assert "1 file checked" in result["output"]
    assert_not_imported(result, MARKDOWN, YAML, SCHEMA, *NEVER)


def test_a_code_tuples_check_imports_no_markdown_yaml_or_schema(repo):
    content_hash = hashlib.sha256(b"x = 1\n").hexdigest()[:16]
    tuples = {"finding": "x is one", "citations": [{"artifact_id": "a.py", "content_hash": content_hash, "lines": "L1"}]}
    (repo / "rlm").mkdir()
    (repo / "rlm" / "findings.jsonl").write_text(json.dumps(tuples) + "\n")
    result = check(repo, "rlm/findings.jsonl")
    assert "1 file checked" in result["output"]
    assert_not_imported(result, MARKDOWN, YAML, SCHEMA, *NEVER)


def test_a_plain_brief_check_imports_no_markdown_schema_or_pytest(tmp_path):
    root = shutil.copytree(PROJECT / "fixtures" / "brief-repo", tmp_path / "brief-repo")
    result = check(root, "briefs/valid.md")
    assert "1 file checked" in result["output"]
    # headings, "- " bullets and paragraph lines are read without markdown-it
    assert_not_imported(result, MARKDOWN, SCHEMA, *(NEVER - {"sqlite3"}))  # the evidence store is SQLite


@pytest.mark.parametrize("bullet", [
    "- Q4 GDP grew 2.9%, slightly above consensus ([BEA](https://www.bea.gov/news)). [3]",  # a link in a bullet
    "- Q4 GDP grew 2.9%, slightly above consensus. [3]\n  (advance estimate)",  # a continuation line
])
def test_a_brief_that_needs_markdown_imports_it_but_no_schema_or_pytest(tmp_path, bullet):
    root = shutil.copytree(PROJECT / "fixtures" / "brief-repo", tmp_path / "brief-repo")
    valid = root / "briefs" / "valid.md"
    valid.write_text(valid.read_text().replace("- Q4 GDP grew 2.9%, slightly above consensus. [3]", bullet))
    result = check(root, "briefs/valid.md")
    assert "1 file checked" in result["output"]
    assert MARKDOWN in result["imported"]
    assert_not_imported(result, SCHEMA, *(NEVER - {"sqlite3"}))


def test_listing_the_rules_imports_no_parser(repo):
    result = imported_by(repo, "rules")
    assert result["status"] == 0
    assert "U104 [*] normalized-url-mismatch" in result["output"]
    assert_not_imported(result, MARKDOWN, YAML, SCHEMA, *NEVER)


def test_a_check_builds_and_imports_no_other_command(repo):
    result = imported_by(repo, "check", "--no-cache", ".")
    assert result["status"] == 0
    assert not {"pytest_citations.kinds.memories.cli", "pytest_citations.kinds.briefs.cli", "pytest_citations.kinds.url_citations.cli",
                "pytest_citations.kinds.claude_exchanges.cli"} & set(result["imported_modules"])


CHECK_LINES = [
    ["check"],
    ["check", "--select", "M2,U1", "-j", "2", "--no-source", "a", "b"],
    ["check", "--affected-by", "x.md", "y.md", "--format", "json", "--shard", "1/3"],
]


@pytest.mark.parametrize("argv", CHECK_LINES)
def test_the_check_command_parses_alone_as_in_the_whole_parser(argv):
    assert vars(cli.build_parser(only_check=True).parse_args(argv)) == vars(cli.build_parser().parse_args(argv))


@pytest.mark.parametrize(
    "argv",
    [["check", "--help"], ["check", "--format", "xml"], ["check", "--since", "a", "--affected-by", "b"],
     ["check", "--bogus"], ["check", "-j", "x"], ["check", "a", "extra", "--statistics", "--nope"]],
)
def test_the_check_command_says_the_same_alone(argv, capsys):
    said = []
    for only_check in (True, False):
        with pytest.raises(SystemExit) as stopped:
            cli.build_parser(only_check).parse_args(argv)
        said.append((stopped.value.code, capsys.readouterr()))
    assert said[0] == said[1]
    assert said[0][1].out or said[0][1].err


def test_entry_points_are_not_scanned_when_no_distribution_declares_the_group(repo):
    result = imported_by(repo, "rules")
    if result["plugins_possible"]:
        pytest.skip("a distribution on this interpreter's path declares the pytest_citations group")
    assert "importlib.metadata" not in result["imported_modules"]


def dist_info(folder, name: str, entry_points: str | None):
    info = folder / f"{name}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    if entry_points is not None:
        (info / "entry_points.txt").write_text(entry_points)


@pytest.mark.parametrize(
    ("entry_points", "expected"),
    [
        (None, False),
        ("[console_scripts]\ntool = pytest_citations.frontends.cli:main\n", False),
        ("[pytest11]\nname = pytest_citations.frontends.plugin\n", False),  # the group's name as a value only
        ("[pytest_citations]\nnotes = citations_notes\n", True),
        ("# plugins\n  [pytest_citations]  \nnotes = citations_notes\n", True),  # lines are read stripped
    ],
)
def test_only_a_section_for_the_group_sends_the_scan_to_pluggy(tmp_path, monkeypatch, entry_points, expected):
    dist_info(tmp_path, "other", "[console_scripts]\nother = other:main\n")
    dist_info(tmp_path, "candidate", entry_points)
    monkeypatch.setattr(sys, "path", [str(tmp_path), str(tmp_path / "missing")])
    monkeypatch.setattr(sys, "meta_path", [PathFinder])
    assert hookspecs.may_declare_entry_points("pytest_citations") is expected
    monkeypatch.setattr(sys, "path", [tmp_path])  # a Path object is read as importlib.metadata reads it
    assert hookspecs.may_declare_entry_points("pytest_citations") is expected


def test_what_the_fast_check_cannot_read_is_left_to_pluggy(tmp_path, monkeypatch):
    archive = tmp_path / "plugins.zip"
    archive.write_bytes(b"")
    monkeypatch.setattr(sys, "meta_path", [PathFinder])
    monkeypatch.setattr(sys, "path", [str(archive)])
    assert hookspecs.may_declare_entry_points("pytest_citations")  # a zip on sys.path

    class Finder:
        @staticmethod
        def find_distributions(context=None):
            return iter(())

    monkeypatch.setattr(sys, "path", [str(tmp_path / "missing")])
    monkeypatch.setattr(sys, "meta_path", [PathFinder, Finder])
    assert hookspecs.may_declare_entry_points("pytest_citations")  # distributions of its own


def test_the_program_starts_up_without_the_collector_then_resumes_it(repo):
    """``citations check`` freezes what start-up built and turns the collector back on."""
    child = "import gc, sys; from pytest_citations.frontends import cli; sys.argv[0] = 'citations'; status = cli.main(); " \
            "print(status, gc.isenabled(), gc.get_freeze_count() > 0)"
    env = {**os.environ, "PYTHONPATH": str(PROJECT)}
    done = subprocess.run([sys.executable, "-c", child, "check", "--no-cache", "."], cwd=repo, capture_output=True,
                          text=True, env=env)
    assert done.stdout.split()[-3:] == ["0", "True", "True"], done.stderr


def test_a_caller_of_main_keeps_its_collector_as_it_is(repo, monkeypatch, capsys):
    import gc

    monkeypatch.chdir(repo)
    frozen = gc.get_freeze_count()
    assert cli.main(["check", "--no-cache", "."]) == 0
    # Nothing was frozen (a frozen object that an earlier test let go of leaves the count lower)
    assert gc.isenabled() and gc.get_freeze_count() <= frozen

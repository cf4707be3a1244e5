"""Other packages add kinds and rules through the ``pytest_citations`` entry-point group."""

from __future__ import annotations

import json

import pytest

from conftest import PROJECT, TESTS
from pytest_citations.engine import Engine, load_plugins
from pytest_citations.frontends.cli import main
from pytest_citations.hookspecs import plugin_manager
from pytest_citations.rules import Rule, RuleDeclaration
from pytest_citations.run.selection import index_touched


@pytest.fixture
def installed_plugin(tmp_path, monkeypatch):
    """Install tests/citations_testplugin.py as a distribution with an entry point."""
    site = tmp_path / "site"
    info = site / "citations_testplugin-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: citations-testplugin\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[pytest_citations]\nnotes = citations_testplugin\n")
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.syspath_prepend(str(TESTS))
    return site


@pytest.fixture
def repo(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    (root / "pyproject.toml").write_text("[tool.citations]\n")
    return root


def test_entry_point_adds_a_kind_and_its_rules(installed_plugin):
    kinds, registry = load_plugins(plugin_manager())
    assert "notes" in [kind.name for kind in kinds]
    assert registry.get("X901").name == "uncited-todo"


def test_every_kind_keeps_the_kind_contract(installed_plugin):
    """The built-in kinds and a third-party one all satisfy the typed contract the engine relies on."""
    from pytest_citations.kinds import Kind

    kinds, _ = load_plugins(plugin_manager())
    assert "notes" in {kind.name for kind in kinds}
    assert [kind.name for kind in kinds if not isinstance(kind, Kind)] == []


def test_plugin_rule_reports_and_suppressions_apply(installed_plugin, repo):
    (repo / "a.notes.md").write_text(
        "Batteries got cheaper. TODO-CITE\n"
        "<!-- citations: disable-next-line X901 -- tracked in issue 12 -->\n"
        "Prices fell further. TODO-CITE\n"
        "<!-- citations: disable-next-line X901, U104 -->\n"
        "A cited line [1].\n"
    )
    report = Engine.load(repo).check([repo])
    assert [(d.line, d.col, d.code, d.message) for d in report.diagnostics] == [
        (1, 24, "X901", "claim marked TODO-CITE has no citation"),
        (4, 1, "C007", "suppression of U104 is unused: no U104 diagnostic on this line"),
        (4, 1, "C007", "suppression of X901 is unused: no X901 diagnostic on this line"),
    ]


def test_disable_file_suppresses_a_whole_file(installed_plugin, repo):
    (repo / "a.notes.md").write_text("<!-- citations: disable-file X9 -->\nTODO-CITE\nmore TODO-CITE\n")
    assert Engine.load(repo).check([repo]).diagnostics == []


def test_a_crashing_rule_is_contained_and_named(installed_plugin, repo):
    (repo / "a.notes.md").write_text("CRASH\nTODO-CITE\nCRASH\n")
    report = Engine.load(repo).check([repo])
    assert [(d.line, d.code, d.message) for d in report.diagnostics] == [
        (1, "C006", "internal error in rule X902 (crashes-on-crash): ZeroDivisionError: division by zero"),
        (2, "X901", "claim marked TODO-CITE has no citation"),
    ]


def test_plugin_rule_is_documented_by_the_cli(installed_plugin, capsys):
    assert main(["rule", "X901"]) == 0
    assert capsys.readouterr().out.startswith("# X901 uncited-todo\n")


def test_notes_fixture_shows_suppression_unused_suppression_and_a_contained_crash(installed_plugin):
    root = PROJECT / "fixtures" / "plugin-notes-repo"
    report = Engine.load(root).check([root])
    assert [(d.line, d.col, d.code, d.message) for d in report.diagnostics] == [
        (4, 50, "X901", "claim marked TODO-CITE has no citation"),
        (7, 1, "C007", "suppression of X901 is unused: no X901 diagnostic on this line"),
        (9, 1, "C006", "internal error in rule X902 (crashes-on-crash): ZeroDivisionError: division by zero"),
    ]


def test_a_file_two_kinds_claim_is_checked_by_both(installed_plugin, repo):
    memories = repo / ".serena" / "memories"
    memories.mkdir(parents=True)
    (memories / "cache.notes.md").write_text("---\ncitations:\n  - path: src/gone.py\n---\nTTL is one day. TODO-CITE\n")
    engine = Engine.load(repo)
    assert {kind.name for kind in engine.kinds_for(".serena/memories/cache.notes.md")} == {"memories", "notes"}
    report = engine.check([repo])
    assert [(d.line, d.code) for d in report.diagnostics] == [(3, "M207"), (5, "X901")]


def test_a_suppression_read_by_two_kinds_counts_once(installed_plugin, repo):
    memories = repo / ".serena" / "memories"
    memories.mkdir(parents=True)
    (memories / "cache.notes.md").write_text(
        "---\ncitations: []\n---\n<!-- citations: disable-next-line X901 -- tracked -->\nTTL is one day. TODO-CITE\n"
    )
    assert Engine.load(repo).check([repo]).diagnostics == []


def test_an_internal_error_makes_the_cli_exit_2(installed_plugin, repo, capsys):
    from pytest_citations.frontends.cli import main

    (repo / "a.notes.md").write_text("CRASH\n")
    assert main(["check", str(repo)]) == 2
    assert main(["check", str(repo), "--exit-zero"]) == 2
    assert "C006 internal error in rule X902" in capsys.readouterr().out


def test_a_plugin_rule_of_a_built_in_kind_runs_on_every_unit(repo):
    """The url-citations rules' predicates spare their checks on clean records; a record rule
    another package adds to that kind, without a predicate, must still see every record."""
    import json

    from pytest_citations.hookspecs import hookimpl
    from pytest_citations.rules import Finding, rule
    from url_records import valid_record

    @rule("X950", "every-record", kind="url-citations")
    def every_record(record, ctx):
        """Reports every record."""
        yield Finding("seen", record.line)

    class Plugin:
        @hookimpl
        def citations_rules(self):
            return [every_record]

    manager = plugin_manager(load_entry_points=False)
    manager.register(Plugin())
    run = repo / "run" / "citations"
    run.mkdir(parents=True)
    (repo / "run" / "wave-1").mkdir()
    (repo / "run" / "wave-1" / "p1.md").write_text("notes\n")
    records = [valid_record("https://example.org/a"), valid_record("https://example.org/b")]
    (run / "citations.jsonl").write_text("".join(json.dumps(record) + "\n" for record in records))
    engine = Engine.load(repo, manager=manager)
    found = [(d.code, d.line) for d in engine.check([repo]).diagnostics]
    assert found == [("X950", 1), ("X950", 2)]


def _tags_plugin():
    """A plugin whose kind ``tags`` (``*.tags.md``: ``define: NAME`` and ``use: NAME`` lines) has a
    rule that reports a tag no file defines, from a run-wide index of every defined tag."""
    from dataclasses import dataclass

    from pytest_citations.core import sources
    from pytest_citations.hookspecs import hookimpl
    from pytest_citations.rules import Finding, rule
    from pytest_citations.run.dependencies import run_index

    @dataclass(frozen=True)
    class TagLine:
        line: int
        text: str

    class TagsKind:
        name = "tags"
        description = "tag definitions and uses"
        include = ("**/*.tags.md",)
        sniff_include = ()
        options: dict = {}

        def sniff(self, head):
            return False

        def units(self, ctx):
            for line in ctx.lines():
                yield TagLine(line.number, line.text)

    def tag_files(engine) -> list[str]:
        return [rel for rel, kinds in engine.discover([engine.config.root]) if any(k.name == "tags" for k in kinds)]

    @run_index("tags.defined", kind="tags", sources=tag_files)
    def defined_tags(engine) -> set[str]:
        root, cap = engine.config.root, engine.config.max_file_size
        texts = [sources.read_source(root, rel, cap).text for rel in tag_files(engine)]
        return {line.removeprefix("define: ") for text in texts for line in text.splitlines() if line.startswith("define: ")}

    @rule("X960", "undefined-tag", kind="tags")
    def undefined_tag(unit, ctx):
        """Reports a tag that no file defines."""
        if unit.text.startswith("use: ") and unit.text.removeprefix("use: ") not in defined_tags(ctx.file.engine):
            yield Finding(f"tag {unit.text.removeprefix('use: ')} is not defined", unit.line)

    class Plugin:
        @hookimpl
        def citations_kinds(self):
            return [TagsKind()]

        @hookimpl
        def citations_rules(self):
            return [undefined_tag]

        @hookimpl
        def citations_indexes(self):
            return [defined_tags]

    manager = plugin_manager(load_entry_points=False)
    manager.register(Plugin())
    return manager, defined_tags


def test_a_plugin_declares_a_run_wide_index_for_its_kind(repo, tmp_path):
    """A plugin's index reaches the engine through the ``citations_indexes`` hook: a cached result
    that consulted it is checked again when its value changes, though no file that result read did."""
    manager, defined_tags = _tags_plugin()
    _, registry = load_plugins(manager)
    assert registry.indexes.get("tags.defined") is defined_tags
    (repo / "a.tags.md").write_text("use: blue\n")
    (repo / "b.tags.md").write_text("define: red\n")

    def check() -> list[tuple[str, str]]:
        engine = Engine.load(repo, manager=manager)
        engine.state.enable_cache(tmp_path / "cache")
        found = [(d.path, d.message) for d in engine.check([repo]).diagnostics]
        engine.save_cache()
        return found

    assert check() == [("a.tags.md", "tag blue is not defined")]
    (repo / "b.tags.md").write_text("define: red\ndefine: blue\n")
    assert check() == []
    assert index_touched(Engine.load(repo, manager=manager), "tags.defined", {"b.tags.md"})


def test_a_rule_is_given_only_the_units_it_declares(repo):
    """A kind may read several sorts of unit; ``@rule(..., unit=T)`` is called with those of type T."""
    from dataclasses import dataclass

    from pytest_citations.hookspecs import hookimpl
    from pytest_citations.rules import Finding, rule

    @dataclass(frozen=True)
    class Heading:
        line: int

    @dataclass(frozen=True)
    class Line:
        line: int

    class Outline:
        name, include, sniff_include, options = "outline", ("*.outline",), (), {}

        def sniff(self, head):
            return False

        def units(self, ctx):
            for line in ctx.lines():
                yield (Heading if line.text.startswith("#") else Line)(line.number)

    @rule("X970", "every-heading", kind="outline", unit=Heading)
    def every_heading(unit, ctx):
        """Reports every heading."""
        assert isinstance(unit, Heading)
        yield Finding("heading", unit.line)

    class Plugin:
        @hookimpl
        def citations_kinds(self):
            return [Outline()]

        @hookimpl
        def citations_rules(self):
            return [every_heading]

    manager = plugin_manager(load_entry_points=False)
    manager.register(Plugin())
    (repo / "a.outline").write_text("# one\ntext\n# two\nmore\n")
    found = [(d.code, d.line) for d in Engine.load(repo, manager=manager).check([repo]).diagnostics]
    assert found == [("X970", 1), ("X970", 3)]


def test_the_catalog_matches_the_kind_packages():
    """The kinds, rules and run-wide indexes are registered from ``catalog.json`` and imported only
    when used; one added, removed or changed without writing the catalog again would be wrong
    there. ``python -m pytest_citations.builtins`` writes it."""
    from pytest_citations import builtins

    assert json.loads(builtins.CATALOG.read_text(encoding="utf-8")) == builtins.catalog(), (
        "catalog.json is out of date: write it again with python -m pytest_citations.builtins")
    declared = {item.code: item for item in builtins.builtin_rules()}
    for item in builtins.scanned_rules():
        assert declared[item.code].options == item.options  # read back with the same types
    catalogued = {kind.name: kind for kind in builtins.builtin_kinds()}
    for _, kind in builtins.scanned_kinds():
        assert catalogued[kind.name].options == kind.options
        assert catalogued[kind.name] == kind and catalogued[kind.name].kind() is kind


def test_a_catalogued_rule_is_the_one_its_module_declares():
    kinds, registry = load_plugins()
    declared = {item.code: item for item in registry.declared()}
    assert any(isinstance(item, RuleDeclaration) for item in declared.values())
    for item in registry:
        assert isinstance(item, Rule) and item.module and item.code == declared[item.code].code
        assert (item.name, item.kind, item.severity, item.scope, item.fixable) == (
            declared[item.code].name, declared[item.code].kind, declared[item.code].severity,
            declared[item.code].scope, declared[item.code].fixable)

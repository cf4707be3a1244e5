"""[tool.citations]: found, validated, and every error a clear message (exit 2 in the CLI)."""

from __future__ import annotations

import re

import pytest

from pytest_citations.core.config import ConfigError, find_settings
from pytest_citations.engine import Engine
from pytest_citations.frontends.cli import main


def _settings(tmp_path, text):
    (tmp_path / "pyproject.toml").write_text("[tool.citations]\n" + text)
    return tmp_path


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("colour = 1\n", "unknown setting 'colour' in [tool.citations]"),
        ("select = 'U1'\n", "select: expected a list of strings"),
        ("ignore = ['u104']\n", "ignore: 'u104' is not a rule code or code prefix"),
        # a code no rule has, as a typo of M207 would be: the gate must not pass by switching rules off
        ("select = ['M270']\n", "select: no rule code starts with 'M270'; `citations rules` lists them"),
        ("ignore = ['Z']\n", "ignore: no rule code starts with 'Z'"),
        ("[tool.citations.per-file-ignores]\n'x/**' = ['Q1']\n", "per-file-ignores.x/**: no rule code starts with 'Q1'"),
        ("max-file-size = -1\n", "max-file-size: expected a positive integer"),
        ("max-file-size = true\n", "max-file-size: expected a positive integer"),
        ("per-file-ignores = ['x']\n", "per-file-ignores: expected a table"),
        ("[tool.citations.kinds.brieves]\n", "kinds: unknown kind 'brieves'"),
        ("[tool.citations.kinds.url-citations]\nurl-profile = 'rfc3986'\n", "kinds.url-citations.url-profile: expected one of spec, whatwg"),
        ("[tool.citations.kinds.url-citations]\ninclude = 'x'\n", "kinds.url-citations.include: expected a list of strings"),
        ("[tool.citations.kinds.url-citations]\nspeed = 1\n", "kinds.url-citations: unknown setting 'speed'"),
        ("[tool.citations.rules.U999]\n", "rules: unknown rule code 'U999'"),
        ("[tool.citations.rules.U104]\nx = 1\n", "rules.U104: unknown option 'x'; known: none"),
        ("[tool.citations.rules.U110]\nallowed-waves = ['1']\n", "rules.U110.allowed-waves: expected a list of int"),
        ("[tool.citations.rules.U110]\nallowed-waves = [true]\n", "rules.U110.allowed-waves: expected a list of int"),
        # an option whose items may be of two types names both
        ("[tool.citations.rules.B331]\nweights = ['a', 'b', 'c']\n", "rules.B331.weights: expected a list of int or float"),
    ],
)
def test_bad_settings_are_clear_errors(tmp_path, capsys, text, message):
    root = _settings(tmp_path, text)
    with pytest.raises(ConfigError, match=re.escape(message)):
        Engine.load(root)
    assert main(["check", str(root)]) == 2
    assert message in capsys.readouterr().err


def test_broken_toml_is_a_clear_error(tmp_path, capsys):
    (tmp_path / "pyproject.toml").write_text("[tool.citations\n")
    assert main(["check", str(tmp_path)]) == 2
    assert "cannot read settings" in capsys.readouterr().err


def test_settings_are_found_upwards_and_fix_the_root(tmp_path):
    root = _settings(tmp_path, "select = ['U1']\n")
    deep = root / "a" / "b"
    deep.mkdir(parents=True)
    found_root, table, source = find_settings(deep)
    assert (found_root, table, source) == (root.resolve(), {"select": ["U1"]}, (root / "pyproject.toml").resolve())


def test_a_pyproject_without_the_table_marks_the_root_but_gives_no_settings(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    (tmp_path / "sub").mkdir()
    assert find_settings(tmp_path / "sub") == (tmp_path.resolve(), {}, None)


def test_select_and_ignore_most_specific_prefix_wins(tmp_path):
    config = Engine.load(_settings(tmp_path, "select = ['U']\nignore = ['U1', 'U104']\n")).config
    assert not config.rule_enabled("U104") and not config.rule_enabled("U105") and not config.rule_enabled("C001")
    config.select, config.ignore = ("U", "U105"), ("U1",)
    assert config.rule_enabled("U105") and not config.rule_enabled("U104")


def test_explicit_config_file(tmp_path):
    settings = tmp_path / "citations.toml"
    settings.write_text("ignore = ['U104']\n")
    engine = Engine.load(tmp_path / "elsewhere", settings)
    assert engine.config.ignore == ("U104",) and engine.config.root == tmp_path.resolve()


def test_without_a_marker_the_root_is_the_current_folder_for_whatever_is_named_below_it(tmp_path, monkeypatch, capsys):
    """No pyproject.toml, no .git (a source archive, a CI export): a folder or file named below the
    current folder, or visited by pytest, belongs to one repository, rooted where the run started."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("x\n")
    memories = tmp_path / ".serena" / "memories"
    memories.mkdir(parents=True)
    (memories / "m.md").write_text("---\ncitations:\n  - path: src/a.py\n    line: 1\n    snippet: x\n"
                                   "links:\n  - supersedes: old\n---\n")
    (memories / "old.md").write_text("---\nid: old\n---\n")
    monkeypatch.chdir(tmp_path)
    assert find_settings(memories)[0] == tmp_path.resolve()
    for named in (".", ".serena", ".serena/memories/m.md"):
        assert main(["check", "--no-cache", named]) == 0, capsys.readouterr()
    elsewhere = tmp_path.parent / f"{tmp_path.name}-elsewhere"
    elsewhere.mkdir()
    assert find_settings(elsewhere)[0] == elsewhere.resolve()  # not below the current folder: itself

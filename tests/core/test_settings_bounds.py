"""Settings are the checkout's (docs/security.md, rule 4): whatever the root's or a nested
``pyproject.toml`` holds, reading it and applying it is bounded. Deep nesting is a settings error;
the globs of one settings table are capped in number and length, and matching a walk against the
most a table may hold stays under 5 s and 200 MB.

The exhaustion cases run ``citations check`` or ``pytest --citations`` in a child process through
a measuring process of its own (``test_bounded_output.run_bounded``) and assert the outcome, the
time and the peak memory.
"""

from __future__ import annotations

import json

import pytest

from bounded_run import check_bounded, pytest_bounded, repo_with

# -- nesting ----------------------------------------------------------------------------------


def deep_settings(depth: int) -> str:
    return "[tool.citations]\nexclude = " + "[" * depth + "]" * depth + "\n"


@pytest.mark.parametrize("where", ["root", "nested"])
def test_settings_nested_too_deep_are_a_settings_error(tmp_path, where):
    """Was: a RecursionError traceback (exit 1) from the TOML reader."""
    repo = repo_with(tmp_path / "repo", {"runs/r/citations/citations.jsonl": '{"schema_version": "citation.v1"}\n'})
    settings = repo / ("pyproject.toml" if where == "root" else "n/pyproject.toml")
    settings.parent.mkdir(exist_ok=True)
    settings.write_text(deep_settings(500))
    outcome = check_bounded(repo)
    outcome.assert_bounded()
    assert outcome.status == 2
    assert f"citations: error: {settings.resolve()}: cannot read settings: arrays or tables are nested more than 100 deep" \
        in outcome.stderr


def test_pytest_reports_settings_nested_too_deep_as_a_usage_error(tmp_path):
    """Was: two collection errors with the RecursionError's traceback."""
    repo = repo_with(tmp_path / "repo", {})
    (repo / "n").mkdir()
    (repo / "n/pyproject.toml").write_text(deep_settings(500))
    outcome = pytest_bounded(repo)
    outcome.assert_bounded()
    assert outcome.status == 4
    assert "cannot read settings: arrays or tables are nested more than 100 deep" in outcome.stderr + outcome.output
    assert "RecursionError" not in outcome.stderr + outcome.output


@pytest.mark.parametrize("depth", [100, 101, 450])
def test_the_nesting_limit_is_the_same_in_every_front_end(tmp_path, depth):
    """The limit is counted in the settings, not left to the reader's recursion, which depends on
    how deep the stack already is (pytest's is deeper than the command line's)."""
    repo = repo_with(tmp_path / "repo", {})
    lists = depth - 3  # inside the document, [tool] and [tool.other]
    (repo / "pyproject.toml").write_text(f"[tool.other]\nx = {'[' * lists}{']' * lists}\n[tool.citations]\n")
    from pytest_citations.core.config import ConfigError, find_settings

    if depth <= 100:
        assert find_settings(repo)[0] == repo.resolve()
    else:
        with pytest.raises(ConfigError, match="nested more than 100 deep"):
            find_settings(repo)


@pytest.mark.parametrize("where", ["root", "nested"])
def test_a_settings_file_larger_than_a_megabyte_is_a_settings_error(tmp_path, where):
    """Was: read whole and parsed (12 MB: 2.2 s and 105 MB; the size was the checkout's to choose)."""
    repo = repo_with(tmp_path / "repo", {})
    settings = repo / ("pyproject.toml" if where == "root" else "n/pyproject.toml")
    settings.parent.mkdir(exist_ok=True)
    filler = ", ".join(f'"v{i:07d}"' for i in range(200_000))
    settings.write_text(f"[tool.other]\nx = [{filler}]\n[tool.citations]\n")  # 2.4 MB
    outcome = check_bounded(repo)
    outcome.assert_bounded()
    assert outcome.status == 2
    size = settings.stat().st_size
    assert (f"citations: error: {settings.resolve()}: cannot read settings: the file is {size} bytes, over the "
            "1048576-byte limit") in outcome.stderr


def test_a_settings_file_of_a_megabyte_is_read(tmp_path):
    repo = repo_with(tmp_path / "repo", {})
    text = "[tool.citations]\n#"
    (repo / "pyproject.toml").write_text(text + "x" * (2**20 - len(text)))
    from pytest_citations.core.config import find_settings

    assert find_settings(repo)[0] == repo.resolve()


# -- how many globs, how long ---------------------------------------------------------------------

MEMORY = "---\nid: {id}\n---\nBody.\n"


def toml_list(items) -> str:
    return "[" + ", ".join(f'"{item}"' for item in items) + "]"


def test_the_audits_three_thousand_automaton_globs_are_a_settings_error(tmp_path):
    """Was: 33.5 s (pytest --citations: 69 s) for 3000 files, each matched against each glob."""
    repo = repo_with(tmp_path / "repo", {f"dir{i % 50}/sub{i % 7}/file_number_{i}.md": "x\n" for i in range(3000)})
    (repo / "pyproject.toml").write_text(f"[tool.citations]\nexclude = {toml_list(f'**/q{i}/**/z' for i in range(3000))}\n")
    outcome = check_bounded(repo)
    outcome.assert_bounded()
    assert outcome.status == 2
    assert (f"citations: error: {(repo / 'pyproject.toml').resolve()}: exclude: more than 256 globs: the settings' "
            "globs (exclude, per-file-ignores and every kind's include and exclude together) number at most 256") in outcome.stderr


def test_the_audits_sixty_thousand_globs_are_a_settings_error_before_any_is_compiled(tmp_path):
    """Was: 8.4 s and 249 MB for one regex of 60000 alternatives (an 840 KB pyproject.toml)."""
    repo = repo_with(tmp_path / "repo", {"a.md": "x\n"})
    (repo / "pyproject.toml").write_text(f"[tool.citations]\nexclude = {toml_list(f'zz{i:05d}*q*' for i in range(60000))}\n")
    outcome = check_bounded(repo)
    outcome.assert_bounded()
    assert outcome.status == 2
    assert "exclude: more than 256 globs" in outcome.stderr


LISTS = {  # where a list of globs goes in a settings table, as TOML
    "exclude": lambda globs: f"[tool.citations]\nexclude = {toml_list(globs)}\n",
    "per-file-ignores": lambda globs: "[tool.citations.per-file-ignores]\n" + "".join(f'"{g}" = ["M2"]\n' for g in globs),
    "kinds.memories.include": lambda globs: f"[tool.citations.kinds.memories]\ninclude = {toml_list(globs)}\n",
    "kinds.memories.exclude": lambda globs: f"[tool.citations.kinds.memories]\nexclude = {toml_list(globs)}\n",
}


def settings_error(tmp_path, settings: str) -> str:
    from pytest_citations.core.config import ConfigError, load_config
    from pytest_citations.engine import load_plugins

    repo = repo_with(tmp_path / "repo", {})
    (repo / "pyproject.toml").write_text(settings)
    kinds, registry = load_plugins()
    try:
        load_config(repo, kinds, registry)
    except ConfigError as exc:
        return str(exc).split(": ", 1)[1]
    return ""


@pytest.mark.parametrize("setting", list(LISTS))
def test_each_list_of_globs_counts_toward_the_caps(tmp_path, setting):
    from pytest_citations.core.config import MAX_GLOB_CHARACTERS, MAX_GLOBS

    assert settings_error(tmp_path / "at", LISTS[setting]([f"g{i}" for i in range(MAX_GLOBS)])) == ""
    assert settings_error(tmp_path / "over", LISTS[setting]([f"g{i}" for i in range(MAX_GLOBS + 1)])) == (
        f"{setting}: more than {MAX_GLOBS} globs: the settings' globs (exclude, per-file-ignores and every kind's "
        f"include and exclude together) number at most {MAX_GLOBS}")
    long = "a" * (MAX_GLOB_CHARACTERS // 2)
    assert settings_error(tmp_path / "long", LISTS[setting]([long, long[:-1] + "b"])) == ""
    assert settings_error(tmp_path / "longer", LISTS[setting]([long, long + "b"])) == (
        f"{setting}: more than {MAX_GLOB_CHARACTERS} characters of globs: the settings' globs (exclude, per-file-ignores "
        f"and every kind's include and exclude together) hold at most {MAX_GLOB_CHARACTERS} characters")


def test_the_caps_count_every_list_of_a_table_together(tmp_path):
    from pytest_citations.core.config import MAX_GLOBS

    half = MAX_GLOBS // 2
    settings = (f"[tool.citations]\nexclude = {toml_list(f'e{i}' for i in range(half))}\n"
                + f"[tool.citations.kinds.briefs]\ninclude = {toml_list(f'b{i}' for i in range(half))}\n"
                + f"[tool.citations.kinds.memories]\nexclude = {toml_list(['m'])}\n")
    assert settings_error(tmp_path, settings).startswith("kinds.memories.exclude: more than 256 globs")


# The most the caps allow, in the costliest shapes: 256 globs of 32 characters. An automaton glob
# (``**`` inside a name) whose pieces are random, so that the path's every character leads the
# automaton to a state it has not seen, and that ends in a "z" no path holds, so that none matches
# and every path is read to its end; or a glob the one regex takes, whose folder names the paths'
# folders all start with, so that each alternative is tried at each folder and fails at its end.
WORST_GLOBS = 256
WORST_LENGTH = 32
FILES = 3000


def automaton_glob(rng) -> str:
    glob = "**"
    while len(glob) < WORST_LENGTH - 1:
        glob += rng.choice(["a", "b", "?", "*", "**", "a?", "/"])
    return glob[: WORST_LENGTH - 1] + "z"


def regex_glob(index: int) -> str:
    return f"**/ab*ab/ab*ab*{index:05d}"[:WORST_LENGTH]


def worst_repo(tmp_path, setting: str, shape: str, where: str, text: str = MEMORY, folder: str = ".serena/memories"):
    """FILES files holding ``text`` (memories) under random 40-character names (of "a" and "b")
    in folders of such names under ``folder``, and the settings of ``where`` (the root, or a nested root holding
    the files) with the most globs the caps allow, of ``shape``, in ``setting``."""
    import random

    rng = random.Random(18)
    globs = [automaton_glob(rng) if shape == "automaton" else regex_glob(i) for i in range(WORST_GLOBS)]
    from pytest_citations.core.config import MAX_GLOB_CHARACTERS

    assert sum(map(len, globs)) <= MAX_GLOB_CHARACTERS
    base = "" if where == "root" else "n/"
    files = {}
    for i in range(FILES):
        name = "ab" + "".join(rng.choice("ab") for _ in range(38))
        files[f"{base}{folder}/{name[:10]}ab/{name}{i}.md"] = text.format(id=f"m{i}")
    repo = repo_with(tmp_path / "repo", files)
    (repo / base / "pyproject.toml").write_text(LISTS[setting](globs))
    return repo


@pytest.mark.parametrize("where", ["root", "nested"])
@pytest.mark.parametrize(("setting", "shape"), [(setting, "automaton") for setting in LISTS] + [("exclude", "regex")])
def test_the_most_globs_the_caps_allow_are_matched_in_bounded_time_and_memory(tmp_path, setting, shape, where):
    repo = worst_repo(tmp_path, setting, shape, where)
    outcome = check_bounded(repo, "--format", "json")
    outcome.assert_bounded()
    report = json.loads(outcome.output)
    assert (outcome.status, report["diagnostics"]) == (0, [])
    if setting != "kinds.memories.include":  # (the memories' own globs replaced: none claimed by path)
        assert report["files_checked"] == FILES


def test_pytest_matches_the_most_globs_the_caps_allow_in_bounded_time_and_memory(tmp_path):
    """Was: 69 s for the audit's 3000 globs. The files are Markdown that no kind claims (as in the
    audit's case), but one memory: pytest's own work for thousands of items is not the globs'."""
    repo = worst_repo(tmp_path, "exclude", "automaton", "root", text="x\n", folder="notes")
    (repo / ".serena/memories").mkdir(parents=True)
    (repo / ".serena/memories/m.md").write_text(MEMORY.format(id="m"))
    outcome = pytest_bounded(repo)
    outcome.assert_bounded()
    assert "1 passed" in outcome.output

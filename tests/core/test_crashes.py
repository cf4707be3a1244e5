"""Crashes whose traceback reached the CI log raw (issue 18, docs/security.md "Crashes, internal
errors and the fixer").

Each case is a checkout that made ``citations check`` or ``pytest --citations`` end in a traceback
(``citations`` printed it after putting back the raw standard error, so the file names it quoted
reached the log undefused) or in pytest's INTERNALERROR. Each now gets a clear diagnostic or a
usage error, and no traceback. Behind those fixes, whatever else a front end did not expect is
reported as an internal error in one line, defused, and fails the run.

The cases run in child processes, so that what reaches the log is what a CI job would print.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from test_ci_log_injection import command_lines

LONG_TARGET = "a" * 300  # a symlink target whose one name is longer than a file name may be (255 bytes)
HOSTILE = "x ##[error]pwned ##vso[task.setvariable variable=a]b"
MEMORY = "---\nid: m\ncitations:\n  - path: gone.py\n---\n# m\n"


def _repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".serena" / "memories").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[tool.citations]\n")
    return root


def _run(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], cwd=cwd, capture_output=True, text=True, errors="replace", timeout=120)


def citations(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return _run(cwd, "-m", "pytest_citations", "check", *args)


def pytest_citations(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return _run(cwd, "-m", "pytest", "--citations", "-p", "no:cacheprovider", "-p", "no:randomly", *args)


def assert_no_traceback_and_no_command(done: subprocess.CompletedProcess) -> None:
    output = done.stdout + done.stderr
    assert "Traceback" not in output and "INTERNALERROR" not in output, output[-5000:]
    assert command_lines(output) == [], output[-5000:]


# -- a name too long to resolve ---------------------------------------------------------------


def test_a_settings_file_that_is_a_symlink_with_a_target_name_too_long_is_a_settings_error(tmp_path):
    """Was: ``OSError: File name too long`` from the walk's look for nested settings, a traceback
    printed raw (its ``##[error]`` with it), exit 1."""
    repo = _repo(tmp_path)
    (repo / ".serena" / "memories" / "m.md").write_text(MEMORY)
    (repo / HOSTILE).mkdir()
    (repo / HOSTILE / "pyproject.toml").symlink_to(LONG_TARGET)
    done = citations(repo)
    assert done.returncode == 2, done.stderr
    assert "pyproject.toml: cannot read settings: File name too long" in done.stderr
    assert_no_traceback_and_no_command(done)
    done = pytest_citations(repo)
    assert done.returncode not in (0, 1), done.stdout  # (pytest's own walk cannot list that folder either)
    assert "pyproject.toml: cannot read settings: File name too long" in done.stdout + done.stderr
    assert command_lines(done.stdout + done.stderr) == []
    assert "INTERNALERROR" not in done.stdout + done.stderr


def test_a_file_named_in_a_folder_whose_settings_file_cannot_be_resolved_is_a_settings_error(tmp_path):
    """Was: the settings lookup for a file named on the command line raised OSError, an internal
    error (exit 2) instead of the settings error it is."""
    root = _repo(tmp_path)
    folder = root / HOSTILE
    folder.mkdir()
    os.symlink(LONG_TARGET, folder / "pyproject.toml")
    (folder / "a.md").write_text("# a\n")
    done = citations(root, f"{HOSTILE}/a.md")
    assert done.returncode == 2 and "cannot read settings" in done.stderr and "internal error" not in done.stderr
    assert_no_traceback_and_no_command(done)


def test_an_artifact_that_is_a_symlink_with_a_target_name_too_long_is_a_c001_in_both_front_ends(tmp_path):
    """Was: pytest's INTERNALERROR (pytest asked whether the item's path is a file)."""
    repo = _repo(tmp_path)
    (repo / ".serena" / "memories" / "m.md").symlink_to(LONG_TARGET)
    expected = ".serena/memories/m.md:1:1: C001 cannot resolve path '.serena/memories/m.md': File name too long"
    done = citations(repo)
    assert done.returncode == 1, done.stderr
    assert expected in done.stdout.splitlines()
    assert_no_traceback_and_no_command(done)
    done = pytest_citations(repo)
    assert done.returncode == 1, done.stdout
    assert expected in done.stdout.splitlines() and "1 failed" in done.stdout
    assert_no_traceback_and_no_command(done)


def _deep_repo(tmp_path: Path) -> tuple[Path, str]:
    """A repository holding ``x/citations/citations.jsonl`` below folders of 250 characters, the
    first named with workflow commands, until the file's absolute path is longer than the system
    allows (as a CI job that clones into a long prefix gets it); made through folder descriptors."""
    repo = _repo(tmp_path)
    limit = os.pathconf(repo, "PC_PATH_MAX")
    names = [HOSTILE + " " + "d" * (249 - len(HOSTILE))]
    while len(str(repo)) + sum(len(name) + 1 for name in names) < limit:
        names.append(f"{len(names):02d}" + "d" * 248)
    names += ["x", "citations"]
    folder = os.open(repo, os.O_RDONLY)
    for name in names:
        os.mkdir(name, dir_fd=folder)
        below = os.open(name, os.O_RDONLY, dir_fd=folder)
        os.close(folder)
        folder = below
    record = os.open("citations.jsonl", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=folder)
    os.write(record, b'{"schema_version": "citation.v1"}\n')
    os.close(record)
    os.close(folder)
    return repo, "/".join(names)


@pytest.fixture
def deep_repo(tmp_path):
    repo, rel = _deep_repo(tmp_path)
    yield repo
    subprocess.run(["rm", "-rf", str(repo)], check=True)  # (shutil.rmtree cannot remove what is past the limit)


def test_a_path_longer_than_the_system_allows_is_a_settings_error(deep_repo):
    """Was: ``OSError: File name too long`` and a traceback printed raw (exit 1)."""
    done = citations(deep_repo)
    assert done.returncode == 2, done.stderr
    assert "cannot read settings: File name too long" in done.stderr
    assert_no_traceback_and_no_command(done)
    done = pytest_citations(deep_repo)
    assert done.returncode not in (0, 1), done.stdout  # (pytest's own walk cannot list those folders either)
    assert command_lines(done.stdout + done.stderr) == []
    assert "INTERNALERROR" not in done.stdout + done.stderr


# -- a baseline's content -----------------------------------------------------------------------

BASELINES = {
    "a count of 1e400": (
        '{"format": "pytest-citations-baseline/1", "entries": '
        '[{"path": "p", "code": "M207", "message": "m ##[error]x", "count": 1e400}]}',
        "malformed baseline entry",
    ),
    "100000 brackets": ("[" * 100_000, "cannot read baseline: it is nested too deeply"),
}


@pytest.mark.parametrize(("text", "said"), BASELINES.values(), ids=BASELINES.keys())
def test_a_baseline_the_reader_cannot_take_is_a_usage_error(tmp_path, text, said):
    """Was: ``OverflowError`` / ``RecursionError``, a traceback (exit 1) and pytest's INTERNALERROR."""
    repo = _repo(tmp_path)
    (repo / ".serena" / "memories" / "m.md").write_text(MEMORY)
    (repo / "baseline.json").write_text(text)
    done = citations(repo, "--baseline", "baseline.json")
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("citations: error: baseline.json: ") and said in done.stderr
    assert_no_traceback_and_no_command(done)
    done = pytest_citations(repo, "--citations-baseline", "baseline.json")
    assert done.returncode == 4, done.stdout + done.stderr
    assert "baseline.json: " in done.stderr and said in done.stderr
    assert_no_traceback_and_no_command(done)


@pytest.mark.parametrize("target", ["/dev/zero", "/dev/stdin", "sparse"])
def test_a_baseline_or_settings_file_that_is_no_regular_file_or_too_large_is_refused_unread(tmp_path, target):
    """A committed symlink named as the baseline, or as the settings: ``/dev/zero`` was read until
    memory ran out (a MemoryError at 1.5 GB), ``/dev/stdin`` waited for input. A sparse baseline
    larger than a baseline may be is refused by its size, unread."""
    repo = _repo(tmp_path)
    (repo / ".serena" / "memories" / "m.md").write_text(MEMORY)
    if target == "sparse":
        with open(repo / "baseline.json", "wb") as stream:
            stream.truncate((8 << 20) + 1)
        said = f"cannot read baseline: the file is {(8 << 20) + 1} bytes, over the {8 << 20}-byte limit"
    else:
        (repo / "baseline.json").symlink_to(target)
        said = "cannot read baseline: not a regular file"
    done = citations(repo, "--baseline", "baseline.json")
    assert (done.returncode, done.stderr) == (2, f"citations: error: baseline.json: {said}\n")
    if target != "sparse":  # settings found on the way up are only ever regular files; named ones are refused
        (repo / "settings.toml").symlink_to(target)
        done = citations(repo, "--config", "settings.toml")
        assert (done.returncode, done.stderr) == (2, "citations: error: settings.toml: cannot read settings: not a regular file\n")


@pytest.mark.parametrize("item", ["{}", "[[]]"])
def test_a_baseline_of_more_objects_than_a_baseline_holds_is_refused_in_bounded_memory(tmp_path, item):
    """8 MiB of ``{}`` (2.8 million objects) or of ``[[]]``. Was: 1.66 GB at the 64 MiB cap; then
    422 MB for the arrays, which a count of objects alone let through."""
    from bounded_run import check_bounded

    repo = _repo(tmp_path)
    (repo / ".serena" / "memories" / "m.md").write_text(MEMORY)
    head = '{"format": "pytest-citations-baseline/1", "entries": ['
    count = ((8 << 20) - len(head) - 2) // (len(item) + 1)
    (repo / "baseline.json").write_text(head + ",".join([item] * count) + "]}")
    outcome = check_bounded(repo, "--baseline", "baseline.json")
    outcome.assert_bounded()
    assert (outcome.status, outcome.stderr) == (
        2, "citations: error: baseline.json: cannot read baseline: it holds more than 400000 objects and arrays\n")


def test_a_baseline_is_written_one_entry_a_line_in_utf8_and_never_beyond_what_is_read_back(tmp_path, monkeypatch):
    """Was: written indented, non-ASCII as \\u escapes (30,000 findings made 10.8 MB), and then
    refused by --baseline past 8 MiB."""
    from pytest_citations.core import baseline
    from pytest_citations.frontends.cli import main

    repo = _repo(tmp_path)
    (repo / ".serena" / "memories" / "m.md").write_text(MEMORY.replace("gone.py", "gône.py"))
    written = tmp_path / "baseline.json"
    assert main(["check", str(repo), "--write-baseline", str(written)]) == 0
    lines = written.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 3 and "gône.py" in lines[1] and json.loads(written.read_text(encoding="utf-8"))["entries"]
    assert main(["check", str(repo), "--baseline", str(written)]) == 0

    monkeypatch.setattr(baseline, "MAX_SIZE", 100)
    assert main(["check", str(repo), "--write-baseline", str(tmp_path / "big.json")]) == 2
    assert not (tmp_path / "big.json").exists()


@pytest.mark.parametrize(("encoded", "status", "said"), [
    (lambda text: b"\xef\xbb\xbf" + text.encode(), 0, None),  # a BOM, as some editors write
    (lambda text: text.replace("\n", "\r\n").encode(), 0, None),
    (lambda text: text.encode("utf-16"), 2, "cannot read baseline: 'utf-8' codec can't decode byte 0xff in position 0"),
    (lambda text: text.encode().replace(b"gone", b"g\xe9ne"), 2, "cannot read baseline: 'utf-8' codec can't decode byte"),
], ids=["BOM", "CRLF", "UTF-16", "Latin-1 byte"])
def test_a_baseline_in_another_encoding_is_read_or_refused_in_words(tmp_path, encoded, status, said):
    from pytest_citations.frontends.cli import main

    repo = _repo(tmp_path)
    (repo / ".serena" / "memories" / "m.md").write_text(MEMORY)
    written = tmp_path / "written.json"
    assert main(["check", str(repo), "--write-baseline", str(written)]) == 0
    (repo / "baseline.json").write_bytes(encoded(written.read_text(encoding="utf-8")))
    done = citations(repo, "--baseline", "baseline.json")
    assert done.returncode == status, done.stdout + done.stderr
    if said is not None:
        assert done.stderr.startswith("citations: error: baseline.json: " + said), done.stderr
    assert_no_traceback_and_no_command(done)


@pytest.mark.parametrize("where", ["pyproject.toml", "sub/pyproject.toml"])
def test_settings_found_in_the_checkout_are_not_read_through_a_symlink_that_leads_out(tmp_path, where):
    """A committed ``pyproject.toml`` linked to a file outside the checkout: not read, and the message
    says nothing of what it leads to (its size, whether it is TOML). Was: read, and described."""
    repo = _repo(tmp_path)
    (repo / ".serena" / "memories" / "m.md").write_text(MEMORY)
    outside = tmp_path / "outside.bin"
    outside.write_bytes(b"\x00" * 2_000_000)
    settings = repo / where
    settings.parent.mkdir(exist_ok=True)
    settings.unlink(missing_ok=True)
    settings.symlink_to(outside)
    done = citations(repo, "sub" if where.startswith("sub/") else ".")
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.endswith(f"{where}: cannot read settings: it is a symlink that leads out of the repository\n"), done.stderr
    assert "2000000" not in done.stderr


def test_a_symlinked_folder_that_leads_out_of_the_checkout_is_no_nested_root(tmp_path):
    """A committed folder symlink to a folder outside whose pyproject.toml has [tool.citations]:
    not a root of the run, nothing of it read or shown. Was: its settings read and its files
    checked, their lines printed."""
    repo = _repo(tmp_path)
    (repo / ".serena" / "memories" / "m.md").write_text(MEMORY)
    outside = tmp_path / "outside"
    (outside / ".serena" / "memories").mkdir(parents=True)
    (outside / "pyproject.toml").write_text("[tool.citations]\n")
    (outside / ".serena" / "memories" / "secret.md").write_text(MEMORY.replace("gone.py", "SECRET-TOKEN.py"))
    (repo / "linked").symlink_to(outside, target_is_directory=True)
    for done in (citations(repo), pytest_citations(repo)):
        assert "SECRET-TOKEN" not in done.stdout + done.stderr
        assert "linked/" not in done.stdout, done.stdout


def test_a_symlink_to_the_checked_folder_is_not_checked_again_by_pytest(tmp_path):
    """``loop -> .``: citations check never enters it; pytest --citations made items of its files
    again at every level, thirty times over."""
    repo = _repo(tmp_path)
    (repo / ".serena" / "memories" / "m.md").write_text(MEMORY)
    (repo / "loop").symlink_to(".", target_is_directory=True)
    done = pytest_citations(repo, ".")
    assert "1 failed" in done.stdout and "loop/" not in done.stdout, done.stdout[-2000:]
    assert citations(repo).stdout.count("M207") == 1


def test_a_monorepos_packages_may_share_one_pyproject_through_symlinks(tmp_path):
    """``pkg/pyproject.toml -> ../shared/pyproject.toml``, in the repository: read (it has no
    [tool.citations], so pkg is no root of its own). Was: the run stopped, as for a link leading out."""
    repo = _repo(tmp_path)
    (repo / ".serena" / "memories" / "m.md").write_text(MEMORY)
    (repo / "shared").mkdir()
    (repo / "shared" / "pyproject.toml").write_text("[tool.ruff]\nline-length = 100\n")
    (repo / "pkg").mkdir()
    (repo / "pkg" / "pyproject.toml").symlink_to("../shared/pyproject.toml")
    done = citations(repo)
    assert done.returncode == 1 and done.stdout.count("M207") == 1, done.stdout + done.stderr
    (repo / ".git").mkdir()  # (a checkout: a package's settings may lead anywhere in it)
    (repo / "pkg" / "notes").mkdir()
    (repo / "pkg" / "notes" / "m.md").write_text(MEMORY.replace("id: m", "id: n"))
    for done in (citations(repo, "pkg"), pytest_citations(repo, ".")):  # (from the package, and pytest's walk)
        assert done.returncode != 2 and "cannot read settings" not in done.stdout + done.stderr, done.stdout + done.stderr


def test_a_config_that_is_a_folder_is_said_to_be_one(tmp_path):
    repo = _repo(tmp_path)
    (repo / "settings.toml").mkdir()
    done = citations(repo, "--config", "settings.toml")
    assert (done.returncode, done.stderr) == (2, "citations: error: settings.toml: cannot read settings: not a regular file\n")


# -- whatever else: an internal error, defused --------------------------------------------------

BOOM = "OSError('x\\n::error::pwned ##[error]y: ' + 'z' * 5000)"


def test_an_unexpected_exception_in_citations_is_an_internal_error_printed_defused(tmp_path):
    """Was: the traceback printed after ``citations`` had put back the raw standard error."""
    program = textwrap.dedent(f"""
        import sys
        from pytest_citations.frontends import check_command
        from pytest_citations.frontends.cli import main

        def boom(args):
            raise {BOOM}

        check_command.run_check = boom
        sys.exit(main(["check"]))
    """)
    done = _run(_repo(tmp_path), "-c", program)
    assert done.returncode == 2
    [line] = done.stderr.splitlines()
    assert line.startswith("citations: internal error (the check is incomplete; please report it): OSError: x\\x0a::error::pwned \\x23#[error]y: zzz")
    assert re.search(r"zzz \(5029 characters\), raised at pytest_citations/frontends/cli.py:\d+ in _main$", line), line
    assert len(line) < 2500
    assert_no_traceback_and_no_command(done)


PLUGIN_CONFTEST = """
from pytest_citations.engine import Engine
from pytest_citations.run.cache import ResultCache

def boom(*args, **kwargs):
    raise {boom}

{target} = boom
"""


@pytest.mark.parametrize(("target", "status"), [
    ("Engine.kinds_for", 2),  # while pytest collects: a collection error
    ("Engine.check_file", 1),  # while an item runs: the item fails
    ("ResultCache.save", 3),  # when the session ends: pytest's internal error
], ids=["collection", "item", "session end"])
def test_an_unexpected_exception_in_the_plugin_is_an_internal_error_printed_defused(tmp_path, target, status):
    repo = _repo(tmp_path)
    (repo / ".serena" / "memories" / "m.md").write_text(MEMORY)
    (repo / "conftest.py").write_text(PLUGIN_CONFTEST.format(boom=BOOM, target=target))
    done = _run(repo, "-m", "pytest", "--citations", "-p", "no:randomly")
    assert done.returncode == status, done.stdout + done.stderr
    output = done.stdout + done.stderr
    said = "citations: internal error" if target != "Engine.check_file" else "m.md:1:1: C006 internal error"
    assert f"{said} (the check is incomplete; please report it): OSError: x\\x0a::error::pwned \\x23#[error]y" in output
    assert_no_traceback_and_no_command(done)

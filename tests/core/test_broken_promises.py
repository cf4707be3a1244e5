"""Promises the checker keeps whatever the checkout holds (issue 18, "Crashes and broken promises").

- Every output prints what it is given: a lone surrogate (a YAML ``"\\ud800"``) or a file name
  that is not UTF-8 is shown as an escape, in every format and in pytest, never a crash.
- An integer from a file is always one a message can print (``0x`` + 5000 hex digits), and a
  marker number from an exchange or a sidecar is one a brief can hold.
- A ``-j`` worker that dies ends the run with exit status 2 and a clear message.
- An internal error (C006: a file not fully checked) is never silenced by what comes with the
  checkout: settings, suppression comments, baselines; only ``--ignore C006`` on the command line.
- ``--fix`` never overwrites a file that changed while it wrote, and never deletes a file it did
  not create.
- A file with more than one hard link is never read: another of its names may lie outside the
  repository.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from test_fix_preservation import FIXERS

from conftest import PROJECT
from pytest_citations.core import sources
from pytest_citations.engine import Engine
from pytest_citations.frontends.cli import main
from pytest_citations.frontends.reporters import FORMATS
from pytest_citations.run import fix as fix_module
from pytest_citations.run.cache import write_document

SURROGATE_MEMORY = '---\nid: k\ncitations:\n  - path: "\\ud800"\n---\n# k\n'
NOT_UTF8_NAME = b"m\xff.md"
MEMORY_CITING_GONE = "---\nid: m\ncitations:\n  - path: gone.py\n---\n# m\n"


def _repo(tmp_path: Path, settings: str = "[tool.citations]\n") -> Path:
    root = tmp_path / "repo"
    (root / ".serena" / "memories").mkdir(parents=True)
    (root / "pyproject.toml").write_text(settings)
    return root


def _run(*args: str, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], cwd=cwd, capture_output=True, timeout=timeout)


# -- every output encodes what it prints ------------------------------------------------------------------------------


@pytest.fixture
def unprintable(tmp_path) -> Path:
    """A memory citing the path ``"\\ud800"`` and a memory file whose name is not UTF-8."""
    root = _repo(tmp_path)
    (root / ".serena" / "memories" / "k.md").write_text(SURROGATE_MEMORY)
    with open(os.path.join(os.fsencode(root / ".serena" / "memories"), NOT_UTF8_NAME), "wb") as stream:
        stream.write(MEMORY_CITING_GONE.encode())
    return root


@pytest.mark.parametrize("cache", [[], ["--no-cache"]], ids=["cached", "no-cache"])
@pytest.mark.parametrize("output_format", FORMATS)
def test_every_format_prints_a_lone_surrogate_and_a_name_that_is_not_utf8(unprintable, output_format, cache):
    for exit_zero, status in (([], 1), (["--exit-zero"], 0)):
        done = _run("-m", "pytest_citations", "check", "--format", output_format, *cache, *exit_zero, cwd=unprintable)
        assert done.returncode == status, done.stderr.decode(errors="replace")
        assert b"Traceback" not in done.stderr
        out = done.stdout.decode("utf-8")  # strict: every byte written is UTF-8
        if output_format in ("json", "sarif"):
            data = json.loads(out)
            texts = ([d["message"] for d in data["diagnostics"]] if output_format == "json"
                     else [r["message"]["text"] for r in data["runs"][0]["results"]])
            assert "File not found: \ud800" in texts  # the same string, written as JSON's escape
        else:
            assert "File not found: \\ud800" in out
        if output_format == "sarif":
            uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in data["runs"][0]["results"]}
            assert ".serena/memories/m%FF.md" in uris  # the name's own byte
        if output_format == "junit":
            assert ".serena/memories/m\\udcff.md" in {case.get("name") for case in ET.fromstring(out).iter("testcase")}


def test_pytest_reports_a_lone_surrogate_and_a_name_that_is_not_utf8(unprintable, tmp_path):
    junit = tmp_path / "junit.xml"
    for options in (["--junitxml", str(junit)], [], ["--lf"], ["-n", "2"]):  # with pytest's cache: written, then read
        done = _run("-m", "pytest", "--citations", "-p", "no:randomly", "-rA", *options, cwd=unprintable)
        out = done.stdout.decode("utf-8") + done.stderr.decode("utf-8")
        assert done.returncode == 1, out
        assert "INTERNALERROR" not in out and "Traceback" not in out
        assert "M207 File not found: \\ud800" in out
    assert any("m\\udcff" in (case.get("classname") or "") for case in ET.parse(junit).iter("testcase"))


# -- integers a message can print, markers a brief can hold --------------------------------------------------------


@pytest.mark.parametrize("line", ["0x" + "f" * 5000, "0o" + "7" * 6000, "0b" + "1" * 20000, "9" * 5000])
def test_an_integer_too_long_to_print_is_a_front_matter_problem_not_a_crash(tmp_path, capsys, line):
    root = _repo(tmp_path)
    (root / "src.py").write_text("def alpha():\n")
    memory = root / ".serena" / "memories" / "m.md"
    memory.write_text(f"---\nid: m\ncitations:\n  - path: src.py\n    line: {line}\n    snippet: alpha\n---\n# m\n")
    assert main(["check", str(root), "--no-cache", "--format", "json"]) == 1
    found = json.loads(capsys.readouterr().out)["diagnostics"]
    assert {(d["code"], d["line"]) for d in found} == {("M201", 5), ("M205", 5)}
    assert "' is not a valid !!int" in found[0]["message"]
    for flags in ([], ["--json"]):
        assert main(["memory", "verify", "m", "--repo-root", str(root), *flags]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"Error: Cannot parse {memory}: '") and "is not a valid !!int" in err


def test_an_integer_of_as_many_digits_as_python_prints_is_still_read(tmp_path, capsys):
    root = _repo(tmp_path)
    (root / "src.py").write_text("def alpha():\n")
    (root / ".serena" / "memories" / "m.md").write_text(
        f"---\nid: m\ncitations:\n  - path: src.py\n    line: 0x{'f' * 3500}\n---\n# m\n")
    assert main(["check", str(root), "--no-cache", "--format", "json"]) == 1
    (found,) = json.loads(capsys.readouterr().out)["diagnostics"]
    assert found["code"] == "M210" and found["message"].startswith("Line 2629900367")
    assert "exceeds file length (1)" in found["message"]


@pytest.fixture
def claude_repo(tmp_path) -> Path:
    root = tmp_path / "claude-import-repo"
    shutil.copytree(PROJECT / "fixtures" / "claude-import-repo", root)
    return root


def _import(root: Path) -> int:
    return main(["claude", "import", str(root / "exchanges" / "daily.exchange.json"), "--brief", str(root / "briefs" / "daily.md")])


def test_claude_import_refuses_a_sidecar_key_that_is_no_marker_number(claude_repo, capsys):
    sidecar = claude_repo / "briefs" / "daily.citations.json"
    sidecar.write_text(json.dumps({"citations": {"9" * 5000: {"id": "x"}}}))
    assert _import(claude_repo) == 2
    err = capsys.readouterr().err
    assert err.startswith("citations: error: sidecar briefs/daily.citations.json: the key '9999")
    assert err.endswith("999' (5000 characters) is not a marker number (1 to 9 digits); fix it before importing\n")
    assert json.loads(sidecar.read_text()) == {"citations": {"9" * 5000: {"id": "x"}}}


@pytest.mark.parametrize("marker", [10**9, 10**4000], ids=["10 digits", "4001 digits"])
def test_claude_import_refuses_a_marker_no_brief_can_hold(claude_repo, capsys, marker):
    exchange = claude_repo / "exchanges" / "daily.exchange.json"
    data = json.loads(exchange.read_text())
    data["markers"] = {"response.content[1].citations[0]": marker}
    exchange.write_text(json.dumps(data))
    assert _import(claude_repo) == 2
    assert capsys.readouterr().err == ("citations: error: `markers` must map citation paths to marker numbers from 1 to "
                                       "999999999\n")


def test_claude_import_stops_before_numbering_past_nine_digits(claude_repo, capsys):
    sidecar = claude_repo / "briefs" / "daily.citations.json"
    sidecar.write_text(json.dumps({"citations": {"999999999": {"id": "cite_old"}}}))
    assert _import(claude_repo) == 2
    assert capsys.readouterr().err == ("citations: error: briefs/daily.citations.json: the next free marker would be "
                                       "[1000000000], and a brief's markers have at most 9 digits\n")


# -- a -j worker that dies ------------------------------------------------------------------------------------------------

_KILL_ONE_WORKER = """
import os, signal, sys
from pytest_citations.frontends import cli
from pytest_citations.run import parallel
parent, real = os.getpid(), parallel.run_task
def run_task(task, *args):
    if os.getpid() != parent and task.rel.endswith("/m7.md"):
        os.kill(os.getpid(), signal.SIG{signal})
    return real(task, *args)
parallel.run_task = run_task
sys.exit(cli.main(["check", sys.argv[1], "-j", "2", "--no-cache"]))
"""


@pytest.mark.parametrize("signal_name", ["KILL", "TERM"])
def test_a_worker_that_dies_ends_the_run_with_a_usage_error(tmp_path, signal_name):
    root = _repo(tmp_path)
    (root / "src.py").write_text("def alpha():\n")
    for number in range(20):
        (root / ".serena" / "memories" / f"m{number}.md").write_text(
            f"---\nid: m{number}\ncitations:\n  - path: src.py\n    line: 1\n---\n# m\n")
    start = time.monotonic()
    done = _run("-c", _KILL_ONE_WORKER.replace("{signal}", signal_name), str(root), cwd=tmp_path, timeout=60)
    assert time.monotonic() - start < 20  # not the 60 s a run waiting on the dead worker would take
    number = {"KILL": 9, "TERM": 15}[signal_name]
    assert done.returncode == 2
    assert done.stderr.decode() == (f"citations: error: a worker process was killed by signal {number} (SIG{signal_name}) "
                                    "while checking files (-j 2): the check is incomplete\n")
    assert done.stdout == b""


def _check_with_a_worker_raising(tmp_path, monkeypatch, error: BaseException) -> int:
    """``citations check -j 2`` of four memories, the check of one of which raises ``error``."""
    from pytest_citations.run import parallel

    root = _repo(tmp_path)
    for number in range(4):
        (root / ".serena" / "memories" / f"m{number}.md").write_text(MEMORY_CITING_GONE)
    real = parallel.run_task

    def broken(task, *args):
        if task.rel.endswith("/m2.md"):
            raise error
        return real(task, *args)

    monkeypatch.setattr(parallel, "run_task", broken)
    return main(["check", str(root), "-j", "2", "--no-cache"])


def test_a_worker_whose_check_raises_ends_the_run_with_a_usage_error(tmp_path, monkeypatch, capsys):
    assert _check_with_a_worker_raising(tmp_path, monkeypatch, MemoryError("out of memory")) == 2
    assert capsys.readouterr().err == ("citations: error: a worker process failed: MemoryError: out of memory while "
                                       "checking files (-j 2): the check is incomplete\n")


def test_a_worker_failure_that_quotes_the_checkout_at_length_is_cut_short(tmp_path, monkeypatch, capsys):
    assert _check_with_a_worker_raising(tmp_path, monkeypatch, ValueError("x" * 1_000_000)) == 2
    err = capsys.readouterr().err
    assert len(err) < 2_200 and "(1000037 characters)" in err and err.endswith("the check is incomplete\n")


# -- an internal error is never silenced by the checkout ----------------------------------------------------------------


@pytest.fixture
def crashing(tmp_path, monkeypatch) -> Path:
    """A memory citing ``../../etc/passwd``, checked by rules that crash: C006 is all it gets."""
    import importlib

    # the module as the engine will import it (an in-process pytest run of another test may have
    # dropped it from sys.modules, leaving a stale copy as the package's attribute)
    verification = importlib.import_module("pytest_citations.kinds.memories.verification")

    def crash(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(verification, "verify_citation", crash)
    root = _repo(tmp_path)
    (root / ".serena" / "memories" / "m.md").write_text("---\nid: m\ncitations:\n  - path: ../../etc/passwd\n---\n# m\n")
    return root


def _codes(capsys, *args: str) -> tuple[int, list[str]]:
    status = main(["check", *args, "--no-cache", "--format", "json"])
    out = capsys.readouterr().out
    return status, sorted(d["code"] for d in json.loads(out)["diagnostics"]) if out else []


def test_the_crash_alone_fails_the_run(crashing, capsys):
    status, codes = _codes(capsys, str(crashing))
    assert status == 2 and set(codes) == {"C006"}


@pytest.mark.parametrize("settings", [
    'per-file-ignores = {"**" = ["C"]}',
    'per-file-ignores = {".serena/**" = ["C0"]}',
    'ignore = ["C"]',
    'select = ["M", "U"]',
])
def test_settings_never_silence_an_internal_error(crashing, capsys, settings):
    (crashing / "pyproject.toml").write_text(f"[tool.citations]\n{settings}\n")
    status, codes = _codes(capsys, str(crashing))
    assert status == 2 and set(codes) == {"C006"}


@pytest.mark.parametrize("settings", ['per-file-ignores = {"**" = ["C006"]}', 'ignore = ["C006", "C007"]'])
def test_settings_that_name_c006_are_a_settings_error(crashing, capsys, settings):
    (crashing / "pyproject.toml").write_text(f"[tool.citations]\n{settings}\n")
    assert main(["check", str(crashing), "--no-cache"]) == 2
    assert "C006 (internal error: a file was not fully checked) cannot be ignored in settings; `--ignore C006` on the " \
           "command line can" in capsys.readouterr().err


def test_a_suppression_comment_never_silences_an_internal_error(crashing, capsys):
    memory = crashing / ".serena" / "memories" / "m.md"
    memory.write_text("---\nid: m\ncitations:\n  - path: ../../etc/passwd\n---\n<!-- citations: disable-file C006 -->\n")
    status = main(["check", str(crashing), "--no-cache", "--format", "json"])
    found = json.loads(capsys.readouterr().out)["diagnostics"]
    assert status == 2
    assert {d["code"] for d in found} == {"C006", "C007"}
    assert [d["message"] for d in found if d["code"] == "C007"] == [
        "suppression of C006 is unused: an internal error cannot be suppressed"]


def test_a_baseline_never_silences_an_internal_error(crashing, capsys, tmp_path):
    main(["check", str(crashing), "--no-cache", "--format", "json"])
    found = json.loads(capsys.readouterr().out)["diagnostics"]
    entries = [{"path": d["path"], "code": d["code"], "message": d["message"], "count": 1} for d in found]
    baseline = tmp_path / "baseline.json"
    baseline.write_text(json.dumps({"format": "pytest-citations-baseline/1", "tool_version": "0", "entries": entries}))
    status, codes = _codes(capsys, str(crashing), "--baseline", str(baseline))
    assert status == 2 and codes == sorted(d["code"] for d in found) and set(codes) == {"C006"}


def test_pytest_with_a_baseline_still_fails_a_crash(crashing, tmp_path, monkeypatch, pytester):
    baseline = tmp_path / "baseline.json"
    main(["check", str(crashing), "--no-cache", "--format", "json", "--write-baseline", str(baseline)])
    assert json.loads(baseline.read_text())["entries"] == []  # nothing of it recorded
    monkeypatch.chdir(crashing)
    result = pytester.runpytest_inprocess("--citations", "--citations-baseline", str(baseline), "-p", "no:cacheprovider",
                                          str(crashing))
    result.assert_outcomes(failed=1)
    assert "C006 internal error in rule" in result.stdout.str()


def test_writing_a_baseline_with_an_internal_error_fails(crashing, capsys, tmp_path):
    baseline = tmp_path / "baseline.json"
    assert main(["check", str(crashing), "--no-cache", "--write-baseline", str(baseline)]) == 2
    err = capsys.readouterr().err
    assert "citations: recorded 0 diagnostics in" in err
    assert "internal errors (C006) not recorded: a file that was not fully checked cannot be part of a baseline" in err


def test_ignore_c006_on_the_command_line_is_obeyed(crashing, capsys):
    status, codes = _codes(capsys, str(crashing), "--ignore", "C006")
    assert status == 0 and codes == []
    status, codes = _codes(capsys, str(crashing), "--ignore", "C0")  # a prefix names a family, not the crash
    assert status == 2 and set(codes) == {"C006"}


# -- --fix: what changed while it wrote, what it did not create ----------------------------------------------------------


@pytest.mark.parametrize("name", [name for name in FIXERS if not FIXERS[name].cli])
def test_an_edit_that_lands_while_the_fix_writes_is_kept(tmp_path, monkeypatch, name):
    root = tmp_path / "repo"
    root.mkdir()
    rel, before, _ = FIXERS[name].build(root)
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(before.encode())
    theirs = before.encode() + b"someone else's line\n"
    real_fsync = os.fsync

    def edit_then_fsync(descriptor):  # another writer, while the fixer writes its temporary file
        path.write_bytes(theirs)
        real_fsync(descriptor)

    monkeypatch.setattr(fix_module.os, "fsync", edit_then_fsync)
    engine = Engine.load(root)
    with pytest.raises(fix_module.FileChangedError, match=f"^{rel} changed while it was being fixed; nothing was written$"):
        fix_module.fix_file(engine, rel, engine.kinds_for(rel))
    assert path.read_bytes() == theirs
    assert [p.name for p in path.parent.iterdir() if p.name.endswith(".tmp")] == []


def test_citations_check_fix_keeps_an_edit_made_while_it_writes(tmp_path, monkeypatch, capsys):
    root = tmp_path / "repo"
    root.mkdir()
    rel, before, _ = FIXERS["url-citations"].build(root)
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(before)
    theirs = before + "someone else's line\n"
    real_fsync = os.fsync
    monkeypatch.setattr(fix_module.os, "fsync", lambda descriptor: (path.write_text(theirs), real_fsync(descriptor)))
    main(["check", str(root), "--fix"])
    assert f"citations: {rel} changed while it was being fixed; nothing was written\n" in capsys.readouterr().err
    assert path.read_text() == theirs


def test_a_file_created_while_a_new_one_is_written_is_kept(tmp_path, monkeypatch):
    target = tmp_path / "new.json"
    real_fsync = os.fsync
    monkeypatch.setattr(fix_module.os, "fsync", lambda descriptor: (target.write_text("theirs"), real_fsync(descriptor)))
    with pytest.raises(fix_module.FileChangedError, match="^new.json was created by someone else while it was being written"):
        fix_module.create_atomic(tmp_path, "new.json", b"ours")
    assert target.read_text() == "theirs"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["new.json"]


def test_temporary_files_the_fixer_did_not_create_are_never_deleted(tmp_path, monkeypatch):
    (tmp_path / "a.jsonl").write_text("old\n")
    committed = {tmp_path / ".a.jsonl.dead1.tmp": "committed", tmp_path / ".a.jsonl.x.tmp": "another's"}
    for path, text in committed.items():
        path.write_text(text)
        os.utime(path, (0, 0))  # older than any age a cleanup could go by
    fix_module.write_atomic(sources.read_source(tmp_path, "a.jsonl"), b"new\n")
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / ".results-x.json.old.tmp").write_text("committed")
    os.utime(cache / ".results-x.json.old.tmp", (0, 0))
    write_document(cache / "results-x.json", {"a": 1})
    assert (tmp_path / "a.jsonl").read_text() == "new\n"
    assert {path: path.read_text() for path in committed} == committed
    assert (cache / ".results-x.json.old.tmp").read_text() == "committed"


# -- hard links ---------------------------------------------------------------------------------------------------------


@pytest.fixture
def hard_linked(tmp_path) -> Path:
    """``src/a.py`` is a hard link to a file outside the repository, cited by a memory."""
    outside = tmp_path / "outside"
    outside.write_text("root:x:0:0:the secret line\n")
    root = _repo(tmp_path)
    (root / "src").mkdir()
    os.link(outside, root / "src" / "a.py")
    (root / ".serena" / "memories" / "m.md").write_text(
        "---\nid: m\ncitations:\n  - path: src/a.py\n    line: 1\n    snippet: nope\n---\n# m\n")
    return root


MESSAGE = "cannot read src/a.py: the file has 2 hard links, and one may lie outside the repository, so it is not read"


def test_a_cited_file_with_another_hard_link_is_never_read(hard_linked, capsys):
    assert main(["check", str(hard_linked), "--no-cache"]) == 1
    out = capsys.readouterr().out
    assert "secret" not in out
    assert textwrap.dedent(f"""\
        .serena/memories/m.md:4:11: M208 Cannot read file: {MESSAGE}
              - path: src/a.py
                      ^
        """) in out
    assert main(["memory", "verify", "m", "--repo-root", str(hard_linked)]) == 1
    out = capsys.readouterr().out
    assert "secret" not in out and f"Reason: Cannot read file: {MESSAGE}" in out


def test_an_artifact_with_another_hard_link_is_never_read(hard_linked, tmp_path, capsys):
    outside = tmp_path / "outside-memory.md"
    outside.write_text("---\nid: x\ncitations:\n  - path: secret-name.py\n---\n# x\n")
    os.link(outside, hard_linked / ".serena" / "memories" / "x.md")
    assert main(["check", str(hard_linked), "--no-cache", "--no-source"]) == 1
    out = capsys.readouterr().out
    assert "secret" not in out
    assert (".serena/memories/x.md:1:1: C001 cannot read .serena/memories/x.md: the file has 2 hard links, and one may "
            "lie outside the repository, so it is not read") in out


def test_pytest_never_reads_a_hard_linked_file(hard_linked):
    done = subprocess.run([sys.executable, "-m", "pytest", "--citations", "-p", "no:randomly", "-p", "no:cacheprovider"],
                          cwd=hard_linked, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert "secret" not in done.stdout and f"M208 Cannot read file: {MESSAGE}" in done.stdout

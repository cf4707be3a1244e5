"""Runs of a command in a child process, measured: exit status, CPU time, peak memory, output.

The exhaustion cases (docs/security.md, "every input is bounded") run ``citations check`` or
``pytest --citations`` through a measuring process of their own, so that the peak memory is the
child's alone (a process started by a large one inherits its peak), and assert the outcome, that the
child took under :data:`SECONDS` of CPU time (a bound of :mod:`cpu_bounds`) and that its peak
resident memory stayed under :data:`MEGABYTES`. A case that runs away is stopped sooner: the child
has :data:`RUNAWAY_SECONDS` and a 2 GiB address space.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from cpu_bounds import assert_cpu_under

SECONDS = 5.0
MEGABYTES = 200
RUNAWAY_SECONDS = 60  # a child still running then (wall time) is stopped: the case failed

_MEASURE = """
import json, resource, subprocess, sys
limit, out_path, *command = sys.argv[1:]

def cap():
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))

with open(out_path, "wb") as out:
    try:
        done = subprocess.run(command, stdout=out, stderr=subprocess.PIPE, timeout=float(limit), preexec_fn=cap)
        status, err = done.returncode, done.stderr
    except subprocess.TimeoutExpired as exc:
        status, err = None, exc.stderr or b""
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
seconds = usage.ru_utime + usage.ru_stime  # CPU time: the work done, whatever else runs on the machine
peak = usage.ru_maxrss / 1024
print(json.dumps({"status": status, "seconds": seconds, "megabytes": peak, "stderr": err[-3000:].decode("utf-8", "replace")}))
"""


@dataclass
class Outcome:
    status: int | None  # None: stopped after RUNAWAY_SECONDS
    seconds: float
    megabytes: float
    output: str
    stderr: str

    def assert_bounded(self) -> None:
        assert self.status is not None, f"still running after {RUNAWAY_SECONDS} s"
        assert "Traceback" not in self.stderr and "INTERNALERROR" not in self.output, self.stderr + self.output[-3000:]
        assert_cpu_under(self.seconds, SECONDS)
        assert self.megabytes < MEGABYTES, f"peak memory {self.megabytes:.0f} MB"

    def diagnostics(self) -> list[dict]:
        """The diagnostics of a ``--format json`` run."""
        return json.loads(self.output)["diagnostics"]

    def findings(self) -> list[tuple[str, int, str, str]]:
        """(path, line, code, message) of each diagnostic of a ``--format json`` run."""
        return [(d["path"], d["line"], d["code"], d["message"]) for d in self.diagnostics()]


def run_bounded(cwd: Path, *command: str) -> Outcome:
    """``command`` run in ``cwd`` as a child of a measuring process; its output is kept beside
    ``cwd``, out of any checkout there."""
    out = cwd.parent / f"{cwd.name}-output"
    measured = subprocess.run([sys.executable, "-c", _MEASURE, str(RUNAWAY_SECONDS), str(out), *command],
                              capture_output=True, text=True, check=True, cwd=cwd)
    result = json.loads(measured.stdout)
    return Outcome(result["status"], result["seconds"], result["megabytes"],
                   out.read_text(encoding="utf-8", errors="replace"), result["stderr"])


def check_bounded(repo: Path, *options: str) -> Outcome:
    """``citations check`` of ``repo`` from inside it, without the result cache."""
    return run_bounded(repo, sys.executable, "-m", "pytest_citations", "check", ".", "--no-cache", *options)


def pytest_bounded(repo: Path) -> Outcome:
    """``pytest --citations`` of ``repo`` from inside it, quietly, without pytest's cache."""
    return run_bounded(repo, sys.executable, "-m", "pytest", "--citations", "-p", "no:cacheprovider", "-p", "no:randomly",
                       "-q", ".")


def repo_with(root: Path, files: dict[str, str]) -> Path:
    """A checkout at ``root`` with settings and ``files`` (path: text)."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text("[tool.citations]\n")
    for rel, text in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return root

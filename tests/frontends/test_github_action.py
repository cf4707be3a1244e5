"""The GitHub Action (action.yml at the repository's top): its steps' scripts, run as a runner runs
them, with the inputs' defaults and with each input set, in a copy of the example repository."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from conftest import PROJECT

ACTION = YAML(typ="safe").load((PROJECT / "action.yml").read_text(encoding="utf-8"))
STEPS = {step["name"]: step for step in ACTION["runs"]["steps"]}
_EXPRESSION = re.compile(r"\$\{\{\s*([^}]+?)\s*\}\}")


def _value(expression: str, inputs: dict[str, str], action_path: Path) -> str:
    """What a runner puts for ``${{ expression }}``: an input, or the action's own folder."""
    if expression == "github.action_path":
        return str(action_path)
    name = expression.removeprefix("inputs.")
    assert name in inputs, f"the action uses {expression}, which is no input"
    return inputs[name]


def run_step(name: str, repo: Path, action_path: Path = PROJECT, environment: dict[str, str] | None = None,
             **given: str) -> subprocess.CompletedProcess:
    """The step's ``run`` script in ``repo``, with its ``env`` from the inputs (defaults, then
    ``given``), in bash as a composite action's ``shell: bash`` step, finding the installed tool
    (``environment``: more variables, as a workflow may set)."""
    step = STEPS[name]
    assert step["shell"] == "bash"
    inputs = {key: str(spec.get("default", "")) for key, spec in ACTION["inputs"].items()} | given
    assert "${{" not in step["run"], "an input in the script's text would be run as code"
    env = {key: _EXPRESSION.sub(lambda m: _value(m.group(1), inputs, action_path), value)
           for key, value in step.get("env", {}).items()}
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    return subprocess.run(["bash", "-e", "-c", step["run"]], cwd=repo, capture_output=True, text=True,
                          env={**os.environ, **(environment or {}), **env, "PATH": path})


@pytest.fixture
def repo(tmp_path):
    target = tmp_path / "repo"
    shutil.copytree(PROJECT / "fixtures" / "example-repo", target)
    return target


def test_the_action_installs_the_package_from_its_own_folder():
    install = STEPS["Install pytest-citations"]
    assert install["env"]["ACTION_PATH"] == "${{ github.action_path }}"
    assert install["run"].split() == ["python", "-I", "-m", "pip", "install", "--quiet", '"$ACTION_PATH"']


def a_pip_committed_in(repo: Path, marker: Path) -> None:
    """A ``pip`` package in the checkout that records that it ran, and says it installed."""
    (repo / "pip").mkdir()
    (repo / "pip" / "__init__.py").write_text("")
    (repo / "pip" / "__main__.py").write_text(f"open({str(marker)!r}, 'w').write('ran')\nprint('installed')\n")


def a_wheel(folder: Path) -> Path:
    """The smallest wheel pip installs: the package ``tiny``, with nothing in it."""
    wheel = folder / "tiny-0.1-py3-none-any.whl"
    files = {"tiny/__init__.py": "", "tiny-0.1.dist-info/METADATA": "Metadata-Version: 2.1\nName: tiny\nVersion: 0.1\n",
             "tiny-0.1.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
    files["tiny-0.1.dist-info/RECORD"] = "".join(f"{name},,\n" for name in [*files, "tiny-0.1.dist-info/RECORD"])
    with zipfile.ZipFile(wheel, "w") as archive:
        for name, text in files.items():
            archive.writestr(name, text)
    return wheel


def test_the_install_step_runs_the_installed_pip_never_one_committed_in_the_checkout(repo, tmp_path):
    """The step runs in the checkout (the workspace), and ``python -m`` puts the current folder
    first on sys.path: a committed ``pip/__main__.py`` ran instead of pip (and could put a
    ``citations`` that passes everything on PATH). With ``-I`` it is never imported; the real pip
    installs (here a wheel, into a folder of the test's, instead of the action's folder)."""
    marker, target = tmp_path / "ran", tmp_path / "installed"
    a_pip_committed_in(repo, marker)
    environment = {"PIP_TARGET": str(target), "PIP_NO_INDEX": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    done = run_step("Install pytest-citations", repo, action_path=a_wheel(tmp_path), environment=environment)
    assert done.returncode == 0, done.stderr
    assert not marker.exists() and "installed" not in done.stdout
    assert (target / "tiny" / "__init__.py").is_file()

    # The control: the same command without -I runs the committed pip.
    subprocess.run([sys.executable, "-m", "pip", "--version"], cwd=repo, capture_output=True, check=True)
    assert marker.read_text() == "ran"


def test_the_check_step_reports_github_annotations_and_fails_on_findings(repo):
    done = run_step("Check citations", repo)
    assert done.returncode == 1, done.stderr
    assert done.stdout.startswith("::error file=research-runs/")


def test_the_check_step_passes_on_a_clean_selection(repo):
    done = run_step("Check citations", repo, args="--select M2")
    assert (done.returncode, done.stdout) == (0, ""), done.stderr


def test_the_check_step_writes_sarif_when_asked(repo):
    done = run_step("Check citations", repo, sarif="results.sarif")
    assert done.returncode == 1
    assert '"version": "2.1.0"' in (repo / "results.sarif").read_text(encoding="utf-8")
    upload = STEPS["Upload SARIF"]
    assert upload["with"]["sarif_file"] == "${{ inputs.sarif }}" and "inputs.sarif != ''" in upload["if"]


def test_the_check_step_takes_since_on_a_pull_request(repo):
    def git(*args):
        subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)

    git("init", "-q")
    git("add", "-A")
    git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "base")
    done = run_step("Check citations", repo, since="HEAD")
    assert done.returncode == 0, done.stdout + done.stderr  # nothing committed since HEAD: nothing is affected


def test_inputs_are_data_never_code(repo):
    """A path with shell syntax is a path: the input reaches the script as a variable."""
    done = run_step("Check citations", repo, paths="$(touch pwned) research-runs")
    assert not (repo / "pwned").exists()
    assert "no such file or folder: $(touch" in done.stderr

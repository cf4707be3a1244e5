"""The GitHub Action (action.yml at the repository's top): its steps' scripts, run as a runner runs
them, with the inputs' defaults and with each input set, in a copy of the example repository."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from conftest import PROJECT

ACTION = YAML(typ="safe").load((PROJECT / "action.yml").read_text(encoding="utf-8"))
STEPS = {step["name"]: step for step in ACTION["runs"]["steps"]}
_EXPRESSION = re.compile(r"\$\{\{\s*([^}]+?)\s*\}\}")


def _value(expression: str, inputs: dict[str, str]) -> str:
    """What a runner puts for ``${{ expression }}``: an input, or the action's own folder."""
    if expression == "github.action_path":
        return str(PROJECT)
    name = expression.removeprefix("inputs.")
    assert name in inputs, f"the action uses {expression}, which is no input"
    return inputs[name]


def run_step(name: str, repo: Path, **given: str) -> subprocess.CompletedProcess:
    """The step's ``run`` script in ``repo``, with its ``env`` from the inputs (defaults, then
    ``given``), in bash as a composite action's ``shell: bash`` step, finding the installed tool."""
    step = STEPS[name]
    assert step["shell"] == "bash"
    inputs = {key: str(spec.get("default", "")) for key, spec in ACTION["inputs"].items()} | given
    assert "${{" not in step["run"], "an input in the script's text would be run as code"
    env = {key: _EXPRESSION.sub(lambda m: _value(m.group(1), inputs), value) for key, value in step.get("env", {}).items()}
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    return subprocess.run(["bash", "-e", "-c", step["run"]], cwd=repo, capture_output=True, text=True,
                          env={**os.environ, **env, "PATH": path})


@pytest.fixture
def repo(tmp_path):
    target = tmp_path / "repo"
    shutil.copytree(PROJECT / "fixtures" / "example-repo", target)
    return target


def test_the_action_installs_the_package_from_its_own_folder():
    install = STEPS["Install pytest-citations"]
    assert install["env"]["ACTION_PATH"] == "${{ github.action_path }}"
    assert install["run"].split() == ["python", "-m", "pip", "install", "--quiet", '"$ACTION_PATH"']


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

"""--fix never rewrites a cid that the run's synthesis cites: the fix is withheld, and says why.

A fix writes one file, atomically; the synthesis that cites a record by its cid is another file.
Rewriting the cid alone would leave every ``[@cid_...]`` of the synthesis pointing at nothing, so
U104-U106 offer no fix while the run's synthesis cites the old cid, and name where it is cited.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

from conftest import same_code_environment
from pytest_citations.core.config import parse_config
from pytest_citations.engine import Engine, load_plugins
from pytest_citations.frontends.cli import main
from pytest_citations.kinds.url_citations.urls import cid_for

BUNDLE = ".opencode/tests/fixtures/bundles/p06_gate_e_pass_warn_dup"
CITATIONS = "run/citations/citations.jsonl"
SYNTHESIS = "run/synthesis.md"
URL = "https://example.com/doc"


def _realdata_engine(root):
    kinds, registry = load_plugins()
    return Engine(parse_config({}, root, kinds, registry), kinds, registry)


def _codes(diagnostics, path_part: str = "") -> list[tuple]:
    return [(d.path, d.line, d.code) for d in diagnostics if path_part in d.path]


def _record(**fields) -> str:
    record = {"schema_version": "citation.v1", "normalized_url": URL, "cid": cid_for(URL), "url": URL,
              "url_original": URL, "status": "valid", "checked_at": "2026-02-13T12:35:00Z", "found_by": [],
              "notes": "ok"}
    record.update(fields)
    return json.dumps(record) + "\n"


def _run(tmp_path, record: str, synthesis: str):
    (tmp_path / "pyproject.toml").write_text("[tool.citations]\n")
    (tmp_path / "run" / "citations").mkdir(parents=True)
    (tmp_path / CITATIONS).write_text(record)
    (tmp_path / SYNTHESIS).write_text(synthesis)
    return tmp_path


def _check(capsys, root, *args) -> tuple[int, list[dict]]:
    """``citations check ROOT --format json ARGS``: the exit status and the diagnostics."""
    status = main(["check", str(root), "--format", "json", *args])
    return status, json.loads(capsys.readouterr().out)["diagnostics"]


# -- the real bundle --------------------------------------------------------------------------------


def test_realdata_placeholder_cids_stay_findings_and_their_synthesis_references_resolve(realdata, capsys):
    root = realdata / "pai-opencode-head"
    report = _realdata_engine(root).check([root / ".opencode/tests/fixtures/bundles"])
    assert not [d for d in report.diagnostics if d.code == "U114"]  # every [@cid_...] has its record
    placeholders = [d for d in report.diagnostics if d.code == "U106"]
    assert len(placeholders) == 6  # cid_alpha, cid_beta, cid_gamma in each of the two bundles
    assert all(d.fix is None for d in placeholders)
    first = next(d for d in placeholders if d.path == f"{BUNDLE}/citations/citations.jsonl" and d.line == 1)
    assert first.message == (
        "cid 'cid_alpha' is not 'cid_' followed by 64 lowercase hex digits; --fix leaves it, because the "
        f"run's synthesis cites it ({BUNDLE}/synthesis/final-synthesis.md:2:80, 9:80, 12:82): "
        "a new cid would leave those references pointing at nothing"
    )


def test_fix_on_a_copy_of_the_real_bundle_leaves_no_reference_pointing_at_nothing(realdata, tmp_path, capsys):
    root = tmp_path / "repo"
    shutil.copytree(realdata / "pai-opencode-head" / BUNDLE, root / "bundle")
    (root / "pyproject.toml").write_text("[tool.citations]\n")
    before = {path: path.read_bytes() for path in root.rglob("*") if path.is_file()}

    status, found = _check(capsys, root, "--fix")
    assert status == 1
    assert {path: path.read_bytes() for path in root.rglob("*") if path.is_file()} == before  # nothing written

    status, again = _check(capsys, root)
    assert status == 1
    assert again == found
    assert not [d for d in again if d["code"] == "U114"]
    assert sorted((d["line"], d["code"]) for d in again if d["path"] == "bundle/citations/citations.jsonl") == [
        (1, "U102"), (1, "U106"), (2, "U102"), (2, "U106"), (3, "U102"), (3, "U106"),
    ]


# -- when the fix is offered and when it is not ---------------------------------------------------------


def test_a_placeholder_cid_nothing_cites_is_fixed_and_the_synthesis_still_resolves(tmp_path, capsys):
    root = _run(tmp_path, _record(cid="cid_alpha"), f"Prices fell ({URL}).\n")
    status, found = _check(capsys, root, "--fix")
    assert (status, found) == (0, [])
    assert json.loads((root / CITATIONS).read_text())["cid"] == cid_for(URL)


def test_a_wrong_hash_the_synthesis_cites_is_not_rewritten(tmp_path, capsys):
    wrong = cid_for("https://example.com/other")
    root = _run(tmp_path, _record(cid=wrong), f"Prices fell.\n\nSee {wrong} and [@{wrong}].\n")
    before = (root / CITATIONS).read_bytes()
    status, found = _check(capsys, root, "--fix")
    assert status == 1
    assert [(d["code"], d["fix"]) for d in found] == [("U105", None)]
    assert found[0]["message"].endswith(
        f"; --fix leaves it, because the run's synthesis cites it ({SYNTHESIS}:3:5, 3:80): "
        "a new cid would leave those references pointing at nothing"
    )
    assert (root / CITATIONS).read_bytes() == before


def test_a_normalized_url_fix_that_changes_a_cited_cid_is_not_offered(tmp_path, capsys):
    stored = URL + "?utm_source=x"
    record = _record(normalized_url=stored, cid=cid_for(stored), url_original=stored)
    root = _run(tmp_path, record, f"Prices fell [@{cid_for(stored)}].\n")
    status, found = _check(capsys, root, "--fix")
    assert status == 1
    assert [(d["code"], d["fix"]) for d in found] == [("U104", None)]
    assert "; --fix leaves it, because the run's synthesis cites it (run/synthesis.md:1:15)" in found[0]["message"]



def test_a_citation_group_cites_each_of_its_cids_for_the_phantom_check_and_for_the_fix(tmp_path, capsys):
    """``[@a; @b]`` and ``[@a, p. 3]`` (Pandoc's citation groups): a cid of a group that no record
    has is a phantom, and a record a group cites keeps its cid under --fix."""
    synthesis = (
        "## Findings\n"
        f"- Sales rose [@{cid_for(URL)}; @cid_b].\n"
        "- Costs fell [@cid_nothere; @cid_b].\n"
        "- Margins held [@cid_missing, p. 3].\n"
    )
    root = _run(tmp_path, _record() + _record(url="https://example.com/b", url_original="https://example.com/b",
                                              normalized_url="https://example.com/b", cid="cid_b"), synthesis)
    before = (root / CITATIONS).read_bytes()
    status, found = _check(capsys, root, "--fix")
    assert status == 1
    assert (root / CITATIONS).read_bytes() == before
    assert [(d["path"], d["line"], d["col"], d["code"], d["fix"]) for d in found] == [
        (CITATIONS, 2, found[0]["col"], "U106", None),
        (SYNTHESIS, 3, 16, "U114", None),
        (SYNTHESIS, 4, 18, "U114", None),
    ]
    assert found[0]["message"].endswith(
        f"--fix leaves it, because the run's synthesis cites it ({SYNTHESIS}:2:87, 3:30): "
        "a new cid would leave those references pointing at nothing"
    )
    assert found[1]["message"] == f"`cid_nothere` is cited but has no record in {CITATIONS} (phantom citation)"

def test_a_synthesis_of_another_run_does_not_hold_the_fix_back(tmp_path, capsys):
    root = _run(tmp_path, _record(cid="cid_alpha"), "Nothing cited here.\n")
    (root / "run" / "nested" / "citations").mkdir(parents=True)
    (root / "run" / "nested" / "citations" / "citations.jsonl").write_text(_record())
    (root / "run" / "nested" / "synthesis.md").write_text(f"Cites [@cid_alpha] of no record here ({URL}).\n")
    status, found = _check(capsys, root, "--fix")
    assert json.loads((root / CITATIONS).read_text())["cid"] == cid_for(URL)
    assert [(d["path"], d["code"]) for d in found] == [("run/nested/synthesis.md", "U114")]


def test_a_cached_check_learns_that_the_synthesis_now_cites_the_cid(tmp_path, capsys):
    root = _run(tmp_path, _record(cid="cid_alpha"), "Nothing cited yet.\n")
    _, found = _check(capsys, root)
    assert [(d["code"], d["fix"] is not None) for d in found] == [("U106", True)]
    (root / SYNTHESIS).write_text("Now cited [@cid_alpha].\n")
    _, found = _check(capsys, root)
    assert [(d["code"], d["fix"]) for d in found] == [("U106", None)]
    (root / SYNTHESIS).write_text("Cited no more.\n")
    _, found = _check(capsys, root)
    assert [(d["code"], d["fix"] is not None) for d in found] == [("U106", True)]


def test_affected_by_the_synthesis_selects_the_citations_whose_fix_it_holds_back(tmp_path, capsys):
    root = _run(tmp_path, _record(cid="cid_alpha"), "Cited [@cid_alpha].\n")
    _check(capsys, root)  # learns who consulted what
    (root / SYNTHESIS).write_text("Cited no more.\n")
    _, found = _check(capsys, root, "--affected-by", str(root / SYNTHESIS))
    assert [(d["path"], d["code"], d["fix"] is not None) for d in found] == [(CITATIONS, "U106", True)]


def test_a_later_process_finds_the_cached_result_of_a_check_that_consulted_the_synthesis(tmp_path, capsys):
    """The index of the synthesis's cids is known from start-up, so a result that depends on it is
    looked up in the cache of a new process without checking the file again."""
    root = _run(tmp_path, _record(cid="cid_alpha"), "Cited [@cid_alpha].\n")
    cache = tmp_path / "cache"
    _check(capsys, root, "--cache-dir", str(cache))
    probe = (
        "import sys; from pathlib import Path; from pytest_citations.engine import Engine\n"
        "engine = Engine.load(Path(sys.argv[1])); engine.state.enable_cache(Path(sys.argv[2]))\n"
        "kinds = [kind.name for kind in engine.kinds_for(sys.argv[3])]\n"
        "print(engine.state.cache.lookup(sys.argv[3], kinds, engine.state.index_digest) is not None)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe, str(root), str(cache), CITATIONS], capture_output=True,
                          text=True, env=same_code_environment())
    assert (done.stdout, done.stderr) == ("True\n", "")

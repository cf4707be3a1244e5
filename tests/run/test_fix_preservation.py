"""Every fixer loses nothing (docs/security.md): a fixed file keeps its UTF-8 BOM, its newline
style, its final newline (or lack of one) and its mode; a file changed on disk between read and
write is not written; a symlinked artifact is never written through; a second run changes nothing.

The fixers: url citations (U104), memories (M211 and, with ``--refresh-verified``, the
verification stamps), EAR ids (E502 in
eval JSONL, E513 in a KG file), code tuples (R408, in a small git repository) and
``citations brief validate --fix``.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from test_code_tuples import APP_V1, APP_V2, _commit, _git, _h

from conftest import PROJECT
from pytest_citations.engine import Engine
from pytest_citations.frontends.cli import main
from pytest_citations.kinds.code_tuples.model import KIND as CODE_TUPLES
from pytest_citations.kinds.ear_ids.model import KIND as EAR_IDS
from pytest_citations.kinds.memories import refresh as memory_refresh
from pytest_citations.kinds.url_citations.urls import cid_for
from pytest_citations.run import fix as fix_module

NOW = "2026-11-22T10:00:00Z"
EAR_BASE = "https://ear.example.org/resource/ear/section/"
PYPROJECT = "[tool.citations]\n"


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")


def _record(url: str, cid: str | None = None) -> str:
    return json.dumps({
        "schema_version": "citation.v1", "normalized_url": url, "cid": cid or cid_for(url), "url": url,
        "url_original": url, "status": "valid", "checked_at": "2026-02-13T12:35:00Z", "found_by": [], "notes": "ok",
    })


# Each builder writes the files an artifact needs and returns (rel, text before, text after the
# fix), both with LF line ends and a final newline; the test reshapes them for each variant.


def url_citations(root: Path) -> tuple[str, str, str]:
    _write(root, {"pyproject.toml": PYPROJECT})
    a, b = "https://example.com/a", "https://example.com/b"
    before = _record(a, cid="cid_placeholder") + "\n" + _record(b) + "\n"
    return "run/citations/citations.jsonl", before, before.replace("cid_placeholder", cid_for(a))


def memories(root: Path) -> tuple[str, str, str]:
    _write(root, {"pyproject.toml": PYPROJECT, "src/a.py": "import os\n\ndef f(x):\n    return x\n"})
    front = "---\nid: m\ncitations:\n  - path: src/a.py\n    line: 1\n    snippet: def f\n---\n\n# Note\n\nBody.\n"
    after = (
        "---\nid: m\ncitations:\n  - path: src/a.py\n    line: 3\n    snippet: def f\n"
        f"    verified: {NOW}\nconfidence: 1.0\nlast_verified: {NOW}\n---\n\n# Note\n\nBody.\n"
    )
    return ".serena/memories/m.md", front, after


def ear_eval(root: Path) -> tuple[str, str, str]:
    _write(root, {"pyproject.toml": PYPROJECT})
    before = '{"id": "q1", "ear_sections": ["\u00a7 740.1"], "notes": "x"}\n{"id": "q2", "ear_sections": ["EAR-736.2"]}\n'
    return "eval/a.jsonl", before, before.replace("\u00a7 740.1", "EAR-740.1")


def ear_kg(root: Path) -> tuple[str, str, str]:
    _write(root, {"pyproject.toml": PYPROJECT})
    before = f"@prefix s: <{EAR_BASE}> .\ns:EAR%20736.2 <http://example.org/p> \"x\" .\n"
    return "kg/a.ttl", before, before.replace("s:EAR%20736.2", "s:EAR-736.2")


def code_tuples(root: Path) -> tuple[str, str, str]:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    _git(root, "init", "-q")
    _write(root, {"src/app.py": APP_V1, "pyproject.toml": PYPROJECT})
    _commit(root, "Add login and logout", "2026-01-05")
    _write(root, {"src/app.py": APP_V2})
    _commit(root, "Clear the session on logout", "2026-02-01")
    old, new = _h(APP_V1), _h(APP_V2)
    before = f"# Review\n\nLogin [src/app.py@{old}, L1-2].\n"
    return "notes/review.md", before, before.replace(old, new)


def briefs(root: Path) -> tuple[str, str, str]:
    shutil.copytree(PROJECT / "fixtures" / "brief-repo", root, dirs_exist_ok=True)
    sidecar = root / "briefs" / "valid.citations.json"
    data = json.loads(sidecar.read_text())
    data["citations"]["2"]["doc_id"] = "doc_404"  # not in the store: [2] is removed, the bullet keeps [1]
    sidecar.write_text(json.dumps(data))
    rel = "briefs/valid.md"
    before = (root / rel).read_text()
    (root / rel).unlink()
    return rel, before, before.replace("inflation. [1][2]", "inflation. [1]")


@dataclass(frozen=True)
class Fixer:
    build: Callable[[Path], tuple[str, str, str]]
    cli: bool = False  # run through `citations brief validate --fix` instead of fix_file
    sniffed: object = None  # the kind that claims it by its content (read_head), not by its path
    refresh: bool = False  # run the kinds' refresh too (--refresh-verified)


FIXERS = {
    "url-citations": Fixer(url_citations),
    "memories": Fixer(memories, refresh=True),
    "ear-eval": Fixer(ear_eval, sniffed=EAR_IDS),
    "ear-kg": Fixer(ear_kg, sniffed=EAR_IDS),
    "code-tuples": Fixer(code_tuples, sniffed=CODE_TUPLES),
    "briefs": Fixer(briefs, cli=True),
}


@pytest.fixture(autouse=True)
def fixed_clock(monkeypatch):
    monkeypatch.setattr(memory_refresh, "utc_now", lambda: NOW)


def run_fix(fixer: Fixer, root: Path, rel: str, capsys) -> int:
    """Fix ``rel`` once; the number of fixes applied (briefs: the edits in the report)."""
    if fixer.cli:
        status = main(["brief", "validate", str(root / rel), "--fix"])
        out = capsys.readouterr().out
        assert status in (0, 1), out
        return json.loads(out)["fixed"]["edits"]
    engine = Engine.load(root)
    return fix_file(engine, rel, engine.kinds_for(rel), fixer.refresh).applied


def fix_file(engine, rel, kinds, refresh=False):
    return fix_module.fix_file(engine, rel, kinds, refresh)


def shape(text: str, bom: bool, newline: str, final: bool) -> bytes:
    body = text if final else text.rstrip("\n")
    return (("\ufeff" if bom else "") + body.replace("\n", newline)).encode("utf-8")


VARIANTS = [(False, "\n", True), (True, "\r\n", True), (False, "\r\n", False), (True, "\n", False)]


@pytest.mark.parametrize(("bom", "newline", "final"), VARIANTS, ids=["plain", "bom-crlf", "crlf-no-final", "bom-no-final"])
@pytest.mark.parametrize("name", FIXERS)
def test_a_fix_keeps_bom_newlines_final_newline_and_mode_and_a_second_run_changes_nothing(
    tmp_path, capsys, name, bom, newline, final
):
    fixer = FIXERS[name]
    root = tmp_path / "repo"
    root.mkdir()
    rel, before, after = fixer.build(root)
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(shape(before, bom, newline, final))
    path.chmod(0o640)

    assert run_fix(fixer, root, rel, capsys) == 1
    assert path.read_bytes() == shape(after, bom, newline, final)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o640
    assert sorted(p.name for p in path.parent.iterdir() if p.name.startswith(".")) == []  # no temporary file left

    assert run_fix(fixer, root, rel, capsys) == 0
    assert path.read_bytes() == shape(after, bom, newline, final)


@pytest.mark.parametrize("name", FIXERS)
def test_a_file_changed_between_read_and_write_is_not_written(tmp_path, capsys, monkeypatch, name):
    fixer = FIXERS[name]
    root = tmp_path / "repo"
    root.mkdir()
    rel, before, _ = fixer.build(root)
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(before.encode())
    theirs = before.encode() + b"someone else's line\n"
    real_write = fix_module.write_atomic

    def change_then_write(original, data):
        if original.rel == rel:
            path.write_bytes(theirs)  # another writer, after the fixer read the file
        return real_write(original, data)

    monkeypatch.setattr(fix_module, "write_atomic", change_then_write)
    if fixer.cli:
        assert main(["brief", "validate", str(path), "--fix"]) == 2
        assert capsys.readouterr().err == f"citations: error: {rel} changed while it was being fixed; nothing was written\n"
    else:
        engine = Engine.load(root)
        with pytest.raises(fix_module.FileChangedError, match=f"^{rel} changed while it was being fixed; nothing was written$"):
            fix_file(engine, rel, engine.kinds_for(rel))
    assert path.read_bytes() == theirs
    assert sorted(p.name for p in path.parent.iterdir() if p.name.startswith(".")) == []


@pytest.mark.parametrize("name", FIXERS)
def test_a_symlinked_artifact_is_never_written_through(tmp_path, capsys, name):
    fixer = FIXERS[name]
    root = tmp_path / "repo"
    root.mkdir()
    rel, before, _ = fixer.build(root)
    outside = tmp_path / "outside" / Path(rel).name
    outside.parent.mkdir()
    outside.write_bytes(before.encode())
    (root / rel).parent.mkdir(parents=True, exist_ok=True)
    os.symlink(outside, root / rel)
    if fixer.cli:
        assert main(["brief", "validate", str(root / rel), "--fix"]) == 2
        assert capsys.readouterr().err == f"citations: error: {rel}: path resolves outside the repository root: {rel}\n"
    else:
        engine = Engine.load(root)
        kinds = engine.kinds_for(rel)
        if fixer.sniffed:  # its head is never read through the link, so no kind claims it ...
            assert kinds == ()
            kinds = (fixer.sniffed,)  # ... and were it claimed, it is refused when read
        result = fix_file(engine, rel, kinds)
        assert (result.applied, [(d.code, d.message) for d in result.diagnostics]) == (
            0, [("C008", f"path resolves outside the repository root: {rel}")]
        )
    assert outside.read_bytes() == before.encode()
    assert (root / rel).is_symlink()


@pytest.mark.parametrize(("bom", "newline", "final"), VARIANTS, ids=["plain", "bom-crlf", "crlf-no-final", "bom-no-final"])
def test_the_brief_sidecar_rewrite_keeps_bom_newlines_final_newline_and_mode(tmp_path, capsys, bom, newline, final):
    root = tmp_path / "repo"
    shutil.copytree(PROJECT / "fixtures" / "brief-repo", root)
    sidecar = root / "briefs" / "valid.citations.json"
    data = json.loads(sidecar.read_text())
    data["citations"]["4"]["quote_span"] = {"start": 0, "end": 5, "text": "paywalled text"}  # a metadata_only source
    sidecar.write_bytes(shape(json.dumps(data, indent=2) + "\n", bom, newline, final))
    sidecar.chmod(0o600)
    del data["citations"]["4"]["quote_span"]
    expected = shape(json.dumps(data, indent=2) + "\n", bom, newline, final)

    assert main(["brief", "validate", str(root / "briefs" / "valid.md"), "--fix"]) == 0
    assert json.loads(capsys.readouterr().out)["fixed"]["stripped_quote_spans"] is True
    assert sidecar.read_bytes() == expected
    assert stat.S_IMODE(os.stat(sidecar).st_mode) == 0o600
    assert main(["brief", "validate", str(root / "briefs" / "valid.md"), "--fix"]) == 0
    assert json.loads(capsys.readouterr().out)["fixed"]["stripped_quote_spans"] is False
    assert sidecar.read_bytes() == expected

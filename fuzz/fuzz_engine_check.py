"""Any bytes, as each kind's artifact, checked through Engine.check: never C006, never a raise."""

import tempfile
from pathlib import Path

import atheris

with atheris.instrument_imports():
    from pytest_citations.engine import Engine
from _common import run

PLACES = ["runs/r/citations/citations.jsonl", ".serena/memories/m.md", "briefs/b.md", "notes/n.md"]


def one(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / "pyproject.toml").write_text("[tool.citations]\n")
        rel = PLACES[data[0] % len(PLACES)] if data else PLACES[0]
        (root / rel).parent.mkdir(parents=True)
        (root / rel).write_bytes(data[1:])
        report = Engine.load(root).check([root])
        assert not [d for d in report.diagnostics if d.code == "C006"], report.diagnostics


if __name__ == "__main__":
    run(one)

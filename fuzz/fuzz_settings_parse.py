"""Any text as the checkout's settings, at the root or in a nested folder's pyproject.toml, and any
bytes as the baseline a run is given (it comes with the checkout): ``citations check`` ends with a
report or a usage error (exit 2), never an exception, a traceback or an internal error (C006)."""

import json
import tempfile
from pathlib import Path

import atheris

with atheris.instrument_imports():
    from pytest_citations.core import baseline, config, globs  # noqa: F401 (instrumented: what the runs read)
    from pytest_citations.engine import Engine  # noqa: F401
    from pytest_citations.frontends import check_command  # noqa: F401
    from pytest_citations.frontends.cli import main
from _common import checked, run, text

MEMORY = "---\ncitations:\n  - path: gone.py\n---\n"
ROOT, NESTED, BASELINE = range(3)
DEEP = b"[" * 500 + b"]" * 500
SEEDS = [
    bytes([ROOT]) + b'exclude = ["**/x", "n/**"]\n[tool.citations.per-file-ignores]\n"**" = ["M2"]\n',
    bytes([ROOT]) + b"exclude = " + DEEP + b"\n",
    bytes([NESTED]) + b"exclude = " + DEEP + b"\n",
    bytes([BASELINE]) + b'{"format":"pytest-citations-baseline/1","entries":[{"path":"p","code":"M207","message":"m","count":1e400}]}',
    bytes([BASELINE]) + b"[" * 5000,
]


def checkout(root: Path, where: int, data: bytes) -> list[str]:
    """A checkout with a memory at the root and one in the nested root ``n``, the fuzzer's data
    where ``where`` says; the arguments ``citations check`` is given."""
    root_settings = "[tool.citations]\n" + (text(data) if where == ROOT else "")
    nested_settings = "[tool.citations]\n" + (text(data) if where == NESTED else "")
    for folder, settings in (("", root_settings), ("n", nested_settings)):
        (root / folder / ".serena" / "memories").mkdir(parents=True)
        (root / folder / "pyproject.toml").write_text(settings, encoding="utf-8")
        (root / folder / ".serena" / "memories" / "m.md").write_text(MEMORY)
    if where != BASELINE:
        return []
    baseline = root.parent / "baseline.json"
    baseline.write_bytes(data)
    return ["--baseline", str(baseline)]


def one(data: bytes) -> None:
    where, rest = (data[0] % 3 if data else ROOT), data[1:]
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "repo"
        root.mkdir()
        report = Path(folder) / "report.json"
        arguments = checkout(root, where, rest)
        status, _, stderr = checked(main, ["check", str(root), "--no-cache", "--format", "json", "--output-file", str(report), *arguments])
        assert status in (0, 1, 2), (status, stderr)
        if status == 2:
            assert stderr.startswith("citations: error: "), stderr
            return
        codes = {d["code"] for d in json.loads(report.read_text(encoding="utf-8"))["diagnostics"]}
        assert "C006" not in codes, stderr


if __name__ == "__main__":
    run(one, SEEDS)

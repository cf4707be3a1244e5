"""Any bytes as each document the checker reads back from its cache folder (the result cache's base
and a delta, a record of the last run), with and without a valid authentication code: a run that
uses them never raises and gives the findings of a run without any cache."""

import json
import os
import tempfile
from pathlib import Path

import atheris

with atheris.instrument_imports():
    from pytest_citations.frontends.cli import main
    from pytest_citations.run import cache
from _common import run

MEMORY = "---\ncitations:\n  - path: gone.py\n---\n"


def one(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        os.environ["CITATIONS_CACHE_KEY_FILE"] = str(root.parent / f"{root.name}.key")
        (root / "pyproject.toml").write_text("[tool.citations]\n")
        (root / ".serena" / "memories").mkdir(parents=True)
        (root / ".serena" / "memories" / "m.md").write_text(MEMORY)
        quiet = ["--format", "json", "--output-file", str(root.parent / f"{root.name}.out")]
        assert main(["check", str(root), *quiet]) == 1  # writes the documents
        folder = root / ".citations_cache"
        for document in [*folder.glob("results-*.json"), *folder.glob("run-*.json")]:
            body = data[1:]
            try:
                value = json.loads(body)
            except ValueError:
                value = None
            if data[:1] == b"\x01" and isinstance(value, dict) and value:  # authenticated, any shape
                document.write_bytes(cache.sealed(document.name, value))
            else:
                document.write_bytes(body)
        assert main(["check", str(root), *quiet]) == 1  # M207 is still found
        os.unlink(os.environ.pop("CITATIONS_CACHE_KEY_FILE"))
        os.unlink(root.parent / f"{root.name}.out")


if __name__ == "__main__":
    run(one)

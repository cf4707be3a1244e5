"""Any text as the checkout's pyproject.toml: settings or a ConfigError, never another exception."""

import tempfile
from pathlib import Path

import atheris

with atheris.instrument_imports():
    from pytest_citations.core.config import ConfigError
    from pytest_citations.engine import Engine
from _common import run, text


def one(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / "pyproject.toml").write_text("[tool.citations]\n" + text(data), encoding="utf-8")
        try:
            engine = Engine.load(root)
        except ConfigError:
            return
        engine.is_excluded("a/b.md")  # the settings' globs are used at once on every walk


if __name__ == "__main__":
    run(one)

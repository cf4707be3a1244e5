"""``pytest --citations``: every artifact file is one item, ``path::citations``.

Nothing changes without the flag. Errors fail the item and are shown as ``path:line:col: CODE
message`` with the offending line, never a traceback; warnings pass and are reported through
pytest's warnings summary (which also carries them back from xdist workers).
"""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from pytest_citations.config import ConfigError, find_settings
from pytest_citations.engine import Engine

ITEM_NAME = "citations"


class CitationsWarning(UserWarning):
    """A warning-severity diagnostic; it does not fail the item."""


class CitationsFailure(Exception):
    def __init__(self, diagnostics) -> None:
        super().__init__(f"{len(diagnostics)} citation problems")
        self.diagnostics = diagnostics


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("citations", "citation checks (pytest-citations)")
    group.addoption("--citations", action="store_true", default=False, help="check citation artifacts as test items")
    group.addoption("--citations-config", metavar="FILE", default=None, help="settings file instead of the nearest pyproject.toml")
    group.addoption("--citations-baseline", metavar="FILE", default=None, help="report only diagnostics not recorded in FILE")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "citations: a citation artifact check (pytest-citations)")
    if config.getoption("citations"):
        config.pluginmanager.register(CitationsCollector(config), "citations-collector")


class CitationsCollector:
    """Finds artifact files among the files pytest visits, with one engine per settings root."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        option = config.getoption("citations_config")
        self.config_file = Path(option).resolve() if option else None
        baseline = config.getoption("citations_baseline")
        self.baseline = None
        if baseline:
            from pytest_citations import baseline as baseline_module

            try:
                self.baseline = baseline_module.load(Path(baseline))
            except baseline_module.BaselineError as exc:
                raise pytest.UsageError(str(exc)) from None
        self._roots: dict[Path, Path] = {}
        self._engines: dict[Path, Engine] = {}

    def engine_for(self, folder: Path) -> Engine:
        if self.config_file is not None:
            key = self.config_file
        else:
            if folder not in self._roots:
                self._roots[folder] = find_settings(folder)[0]
            key = self._roots[folder]
        if key not in self._engines:
            try:
                self._engines[key] = Engine.load(key, self.config_file, baseline=self.baseline)
            except ConfigError as exc:
                raise pytest.UsageError(f"citations: {exc}") from None
        return self._engines[key]

    def pytest_collect_file(self, file_path: Path, parent: pytest.Collector):
        engine = self.engine_for(file_path.parent)
        rel = engine.relative(file_path)
        if rel is None or engine.is_excluded(rel):
            return None
        kind = engine.kind_for(rel)
        if kind is None:
            return None
        return CitationsFile.from_parent(parent, path=file_path, engine=engine, kind=kind, rel=rel)


class CitationsFile(pytest.File):
    def __init__(self, *, engine: Engine, kind, rel: str, **kwargs) -> None:
        super().__init__(**kwargs)
        self.engine = engine
        self.kind = kind
        self.rel = rel

    def collect(self):
        yield CitationsItem.from_parent(self, name=ITEM_NAME)


class CitationsItem(pytest.Item):
    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.add_marker(ITEM_NAME)
        self.diagnostics = None

    def runtest(self) -> None:
        parent = self.parent
        self.diagnostics = parent.engine.check_file(parent.rel, parent.kind)
        for diagnostic in self.diagnostics:
            if diagnostic.severity == "warning":
                warnings.warn(CitationsWarning(str(diagnostic)), stacklevel=1)
        errors = [d for d in self.diagnostics if d.severity == "error"]
        if errors:
            raise CitationsFailure(errors)

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, CitationsFailure):
            from pytest_citations.reporters.text import format_diagnostic

            lines: list[str] = []
            for diagnostic in excinfo.value.diagnostics:
                text = format_diagnostic(diagnostic, show_source=True)
                lines.extend([text] if isinstance(text, str) else text)
            return "\n".join(lines)
        return super().repr_failure(excinfo, style)

    def reportinfo(self):
        line = self.diagnostics[0].line - 1 if self.diagnostics else 0
        return self.path, line, f"{self.parent.rel}::{ITEM_NAME}"


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call):
    report = yield
    if isinstance(item, CitationsItem) and item.diagnostics and call.when == "call":
        path, _, domain = report.location
        report.location = (path, item.diagnostics[0].line - 1, domain)
    return report

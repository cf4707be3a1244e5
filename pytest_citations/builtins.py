"""The built-in kinds, rules and run-wide indexes, found by scanning the kind packages, so that
adding a kind edits no list: a package ``kinds/<kind>/`` exposes its kind as ``KIND`` in
``model.py``, declares its rules in ``rules.py`` and in any ``*_rules.py`` beside it, and holds
its run-wide indexes in ``model.py`` (declared there, or imported there from the module that
declares them). The core rules (C0xx) are in :mod:`pytest_citations.rules.core`."""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any

from pytest_citations import kinds
from pytest_citations.rules import Rule, core, rules_in_module
from pytest_citations.run.dependencies import RunWideIndex


def _kind_packages() -> list[str]:
    return [info.name for info in pkgutil.iter_modules(kinds.__path__, prefix=f"{kinds.__name__}.") if info.ispkg]


def builtin_kinds() -> list[Any]:
    return [importlib.import_module(f"{package}.model").KIND for package in _kind_packages()]


def builtin_rules() -> list[Rule]:
    found = list(rules_in_module(core))
    for package in _kind_packages():
        for info in pkgutil.iter_modules(importlib.import_module(package).__path__, prefix=f"{package}."):
            if info.name.rsplit(".", 1)[1] == "rules" or info.name.endswith("_rules"):
                found.extend(rules_in_module(importlib.import_module(info.name)))
    return found


def builtin_indexes() -> list[RunWideIndex]:
    """The run-wide indexes the kind packages' ``model.py`` hold, each once."""
    found: dict[int, RunWideIndex] = {}
    for package in _kind_packages():
        for value in vars(importlib.import_module(f"{package}.model")).values():
            if isinstance(value, RunWideIndex):
                found.setdefault(id(value), value)
    return list(found.values())

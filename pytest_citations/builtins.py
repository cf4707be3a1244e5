"""The built-in kinds and rules, found by scanning the kind packages, so that adding a kind edits
no list: a package ``kinds/<kind>/`` exposes its kind as ``KIND`` in ``model.py``, and declares
its rules in ``rules.py`` and in any ``*_rules.py`` beside it. The core rules (C0xx) are in
:mod:`pytest_citations.rules.core`."""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any

from pytest_citations import kinds
from pytest_citations.rules import Rule, core, rules_in_module


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

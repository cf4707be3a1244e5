"""The built-in kinds, rules and run-wide indexes, found by scanning the kind packages, so that
adding a kind edits no list: a package ``kinds/<kind>/`` exposes its kind as ``KIND`` in
``model.py``, declares its rules in ``rules.py`` and in any ``*_rules.py`` beside it, and holds
its run-wide indexes in ``model.py`` (declared there, or imported there from the module that
declares them). The core rules (C0xx) are in :mod:`pytest_citations.rules.core`.

The kinds' rules are registered from ``rule_catalog.json``, a record of what each rule declares
(:class:`~pytest_citations.rules.RuleDeclaration`), so that a run imports the rule modules of the
kinds it checks only. The catalog is written from the rule modules by :func:`write_catalog`, and
a test fails when it no longer matches them.
"""

from __future__ import annotations

import builtins
import importlib
import json
import pkgutil
from pathlib import Path
from typing import Any

from pytest_citations import kinds
from pytest_citations.core.diagnostics import Severity
from pytest_citations.rules import Option, Rule, RuleDeclaration, core, rules_in_module
from pytest_citations.run.dependencies import RunWideIndex

CATALOG = Path(__file__).resolve().parent / "rule_catalog.json"
_TYPES = {kind.__name__: kind for kind in (bool, dict, float, int, list, str)}  # what an option may hold


def _kind_packages() -> list[str]:
    return [info.name for info in pkgutil.iter_modules(kinds.__path__, prefix=f"{kinds.__name__}.") if info.ispkg]


def builtin_kinds() -> list[Any]:
    return [importlib.import_module(f"{package}.model").KIND for package in _kind_packages()]


def builtin_rules() -> list[Rule | RuleDeclaration]:
    """The core rules, and the kinds' rules as the catalog declares them."""
    catalogued = json.loads(CATALOG.read_text(encoding="utf-8"))
    return [*rules_in_module(core), *(_declaration(entry) for entry in catalogued)]


def builtin_indexes() -> list[RunWideIndex]:
    """The run-wide indexes the kind packages' ``model.py`` hold, each once."""
    found: dict[int, RunWideIndex] = {}
    for package in _kind_packages():
        for value in vars(importlib.import_module(f"{package}.model")).values():
            if isinstance(value, RunWideIndex):
                found.setdefault(id(value), value)
    return list(found.values())


# -- the catalog of the kinds' rules -----------------------------------------------------------------


def scanned_rules() -> list[Rule]:
    """The kinds' rules as their modules declare them (every rule module imported)."""
    found: list[Rule] = []
    for package in _kind_packages():
        for info in pkgutil.iter_modules(importlib.import_module(package).__path__, prefix=f"{package}."):
            if info.name.rsplit(".", 1)[1] == "rules" or info.name.endswith("_rules"):
                found.extend(item for item in rules_in_module(importlib.import_module(info.name)) if item.module == info.name)
    return found


def catalog_of(rules: list[Rule]) -> list[dict[str, Any]]:
    """What :func:`builtin_rules` reads back as each of ``rules``' declaration."""
    return [
        {
            "code": item.code,
            "name": item.name,
            "kind": item.kind,
            "severity": item.severity.value,
            "scope": item.scope,
            "fixable": item.fixable,
            "module": item.module,
            "options": {name: _option_entry(option) for name, option in item.options.items()},
        }
        for item in sorted(rules, key=lambda r: r.code)
    ]


def write_catalog() -> None:
    CATALOG.write_text(json.dumps(catalog_of(scanned_rules()), indent=1) + "\n", encoding="utf-8")


def _declaration(entry: dict[str, Any]) -> RuleDeclaration:
    options = {name: _option(value) for name, value in entry["options"].items()}
    return RuleDeclaration(entry["code"], entry["name"], entry["kind"], Severity(entry["severity"]), entry["scope"],
                           options, entry["fixable"], entry["module"])


def _types(value: builtins.type | tuple[builtins.type, ...] | None) -> list[str] | str | None:
    if value is None:
        return None
    return value.__name__ if isinstance(value, type) else [item.__name__ for item in value]


def _read_types(value: list[str] | str | None) -> builtins.type | tuple[builtins.type, ...] | None:
    if value is None:
        return None
    return _TYPES[value] if isinstance(value, str) else tuple(_TYPES[name] for name in value)


def _option_entry(option: Option) -> dict[str, Any]:
    return {"type": _types(option.type), "default": option.default, "help": option.help,
            "items": _types(option.items), "choices": None if option.choices is None else list(option.choices)}


def _option(entry: dict[str, Any]) -> Option:
    kind = _read_types(entry["type"])
    assert kind is not None  # an option always has a type
    choices = entry["choices"]
    return Option(kind, entry["default"], entry["help"], _read_types(entry["items"]),
                  None if choices is None else tuple(choices))


if __name__ == "__main__":  # python -m pytest_citations.builtins: write the catalog again
    write_catalog()

"""The built-in kinds, rules and run-wide indexes, found by scanning the kind packages, so that
adding a kind edits no list: a package ``kinds/<kind>/`` exposes its kind as ``KIND`` in
``model.py``, declares its rules in ``rules.py`` and in any ``*_rules.py`` beside it, and holds
its run-wide indexes in ``model.py`` (declared there, or imported there from the module that
declares them). The core rules (C0xx) are in :mod:`pytest_citations.rules.core`.

The kinds, their rules and their run-wide indexes are registered from ``catalog.json``, a record
of what each declares, so that a run imports only the modules of the kinds it has files of: a kind
(:class:`CataloguedKind`) holds what claims files by path and what settings validate, and imports
its ``model.py`` when a file is sniffed or read; a rule (:class:`~pytest_citations.rules.RuleDeclaration`)
imports its module when it runs or is shown; an index imports its kind's model when it is built.
The catalog is written from the packages by :func:`write_catalog` (``python -m
pytest_citations.builtins``), and a test fails when it no longer matches them.
"""

from __future__ import annotations

import builtins
import functools
import importlib
import json
import pkgutil
from pathlib import Path
from typing import Any

from pytest_citations import kinds
from pytest_citations.core.diagnostics import Severity
from pytest_citations.rules import Option, Rule, RuleDeclaration, core, rules_in_module
from pytest_citations.run.dependencies import IndexDeclaration, RunWideIndex

CATALOG = Path(__file__).resolve().parent / "catalog.json"
_TYPES = {kind.__name__: kind for kind in (bool, dict, float, int, list, str)}  # what an option may hold


def _kind_packages() -> list[str]:
    return [info.name for info in pkgutil.iter_modules(kinds.__path__, prefix=f"{kinds.__name__}.") if info.ispkg]


@functools.cache
def _catalog() -> dict[str, Any]:
    return json.loads(CATALOG.read_text(encoding="utf-8"))


def builtin_kinds() -> list[Any]:
    """The kinds as the catalog declares them."""
    return [CataloguedKind(entry) for entry in _catalog()["kinds"]]


def builtin_rules() -> list[Rule | RuleDeclaration]:
    """The core rules, and the kinds' rules as the catalog declares them."""
    return [*rules_in_module(core), *(_declaration(entry) for entry in _catalog()["rules"])]


def builtin_indexes() -> list[IndexDeclaration]:
    """The run-wide indexes of the kinds as the catalog declares them."""
    return [IndexDeclaration(entry["name"], entry["kind"], entry["module"]) for entry in _catalog()["indexes"]]


class CataloguedKind:
    """A built-in kind as the catalog declares it: its name, the globs that claim files, its
    settings. Anything else (``sniff``, ``units``...) is the kind's own, from its ``model.py``,
    imported on first use. It equals that kind."""

    def __init__(self, entry: dict[str, Any]) -> None:
        self.name: str = entry["name"]
        self.include: tuple[str, ...] = tuple(entry["include"])
        self.sniff_include: tuple[str, ...] = tuple(entry["sniff_include"])
        self.by_content_only: tuple[str, ...] = tuple(entry["by_content_only"])
        self.options: dict[str, Option] = {name: _option(value) for name, value in entry["options"].items()}
        self._module: str = entry["module"]

    def kind(self) -> Any:
        """The kind itself, its model imported on the first call (every sniff and read asks)."""
        loaded = self.__dict__.get("_loaded")  # (not an attribute lookup, which would come back here)
        if loaded is None:
            loaded = self.__dict__["_loaded"] = importlib.import_module(self._module).KIND
        return loaded

    def __getattr__(self, name: str) -> Any:  # asked only of what __init__ did not set
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.kind(), name)

    def __eq__(self, other: object) -> bool:
        return other is self or (getattr(other, "name", None) == self.name and other is self.kind())

    def __hash__(self) -> int:
        return hash(self.name)

    def __repr__(self) -> str:
        return f"<kind {self.name}>"


# -- the catalog ---------------------------------------------------------------------------------------


def scanned_kinds() -> list[tuple[str, Any]]:
    """(model module, kind) of every kind package."""
    return [(f"{package}.model", importlib.import_module(f"{package}.model").KIND) for package in _kind_packages()]


def scanned_indexes() -> list[tuple[str, RunWideIndex]]:
    """(model module, index) of every run-wide index the kind packages' ``model.py`` hold, each once."""
    found: dict[int, tuple[str, RunWideIndex]] = {}
    for module, _ in scanned_kinds():
        for value in vars(importlib.import_module(module)).values():
            if isinstance(value, RunWideIndex):
                found.setdefault(id(value), (module, value))
    return list(found.values())


# Rules of no kind that check units: the online rules, which check the web citations any kind gives.
CROSS_KIND_RULE_MODULES = ("pytest_citations.online.rules",)


def scanned_rules() -> list[Rule]:
    """The kinds' rules and the cross-kind rules as their modules declare them (every rule module
    imported)."""
    found: list[Rule] = [item for name in CROSS_KIND_RULE_MODULES for item in rules_in_module(importlib.import_module(name))]
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


def catalog() -> dict[str, Any]:
    """What :func:`write_catalog` writes: the catalog of the kind packages as they are."""
    return {
        "kinds": [
            {"name": kind.name, "module": module, "include": list(kind.include), "sniff_include": list(kind.sniff_include),
             "by_content_only": list(getattr(kind, "by_content_only", ())),
             "options": {name: _option_entry(option) for name, option in kind.options.items()}}
            for module, kind in scanned_kinds()
        ],
        "indexes": [{"name": index.name, "kind": index.kind, "module": module} for module, index in scanned_indexes()],
        "rules": catalog_of(scanned_rules()),
    }


def write_catalog() -> None:
    CATALOG.write_text(json.dumps(catalog(), indent=1) + "\n", encoding="utf-8")


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

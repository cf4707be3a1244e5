"""Hooks through which other packages add kinds, rules and run-wide indexes.

A package adds itself under the entry-point group ``pytest_citations`` with a module (or object)
that implements any of these hooks, marked with :data:`hookimpl`.
"""

from __future__ import annotations

import os
import sys

import pluggy

PROJECT = "citations"
ENTRY_POINT_GROUP = "pytest_citations"
hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


# A hook specification's body never runs (pluggy calls the implementations), so it returns nothing.
@hookspec
def citations_kinds() -> list:  # type: ignore[empty-body]
    """Return kind objects to check (see :mod:`pytest_citations.kinds` for their shape)."""


@hookspec
def citations_rules() -> list:  # type: ignore[empty-body]  # a specification: see above
    """Return :class:`pytest_citations.rules.Rule` objects, declared with ``@rule``."""


@hookspec
def citations_indexes() -> list:  # type: ignore[empty-body]  # a specification: see above
    """Return :class:`pytest_citations.run.dependencies.RunWideIndex` objects, declared with
    ``@run_index`` or ``@run_index_of_shares``: the run-wide indexes the checks of a kind consult."""


class _Builtin:
    @hookimpl
    def citations_kinds(self) -> list:
        from pytest_citations.builtins import builtin_kinds

        return builtin_kinds()

    @hookimpl
    def citations_rules(self) -> list:
        from pytest_citations.builtins import builtin_rules

        return builtin_rules()

    @hookimpl
    def citations_indexes(self) -> list:
        from pytest_citations.builtins import builtin_indexes

        return builtin_indexes()


def plugin_manager(load_entry_points: bool = True) -> pluggy.PluginManager:
    manager = pluggy.PluginManager(PROJECT)
    manager.add_hookspecs(sys.modules[__name__])
    manager.register(_Builtin(), name="builtin")
    if load_entry_points and may_declare_entry_points(ENTRY_POINT_GROUP):
        manager.load_setuptools_entrypoints(ENTRY_POINT_GROUP)
    return manager


def may_declare_entry_points(group: str) -> bool:
    """Whether an installed distribution may declare an entry point in ``group``.

    pluggy finds entry points with :mod:`importlib.metadata`, whose import (email, zipfile, csv...)
    costs about as much as the rest of a ``citations check`` of one small file, while most
    installations have no plugin at all. This reads the ``entry_points.txt`` of the
    ``*.dist-info`` / ``*.egg-info`` folders on ``sys.path`` directly, as importlib.metadata's
    path finder does, and answers False only when none of them has a section for the group: then pluggy
    would have found nothing and its scan is skipped. Whatever it cannot read the same way (a zip
    or an egg on ``sys.path``, a meta-path finder with distributions of its own) answers True, and
    pluggy decides as before.
    """
    from importlib.machinery import PathFinder

    if any(getattr(finder, "find_distributions", None) is not None and finder is not PathFinder for finder in sys.meta_path):
        return True
    for entry in sys.path:
        folder = os.fspath(entry) if isinstance(entry, os.PathLike) else entry
        if not isinstance(folder, str) or folder.lower().endswith(".egg"):
            return True
        folder = folder or "."
        try:
            names = os.listdir(folder)
        except OSError:
            if os.path.isfile(folder):  # a zip file on sys.path
                return True
            continue
        for name in names:
            if not name.lower().endswith((".dist-info", ".egg-info")):
                continue
            try:
                with open(os.path.join(folder, name, "entry_points.txt"), encoding="utf-8", errors="replace") as handle:
                    text = handle.read()
            except OSError:
                continue
            if any(_section_may_be(line.strip(), group) for line in text.splitlines()):
                return True
    return False


def _section_may_be(line: str, group: str) -> bool:
    """Whether ``line`` of an ``entry_points.txt`` may open the section of ``group`` (a superset of
    what importlib.metadata reads as that section's header: ``[group]``)."""
    return line.startswith("[") and line.endswith("]") and group in line

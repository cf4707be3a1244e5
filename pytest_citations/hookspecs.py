"""Hooks through which other packages add kinds and rules.

A package adds itself under the entry-point group ``pytest_citations`` with a module (or object)
that implements any of these hooks, marked with :data:`hookimpl`.
"""

from __future__ import annotations

import pluggy

PROJECT = "citations"
ENTRY_POINT_GROUP = "pytest_citations"
hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


@hookspec
def citations_kinds() -> list:
    """Return kind objects to check (see :mod:`pytest_citations.kinds` for their shape)."""


@hookspec
def citations_rules() -> list:
    """Return :class:`pytest_citations.rules.Rule` objects, declared with ``@rule``."""


class _Builtin:
    @hookimpl
    def citations_kinds(self) -> list:
        from pytest_citations.kinds import builtin_kinds

        return builtin_kinds()

    @hookimpl
    def citations_rules(self) -> list:
        from pytest_citations.rules import builtin_rules

        return builtin_rules()


def plugin_manager(load_entry_points: bool = True) -> pluggy.PluginManager:
    import sys

    manager = pluggy.PluginManager(PROJECT)
    manager.add_hookspecs(sys.modules[__name__])
    manager.register(_Builtin(), name="builtin")
    if load_entry_points:
        manager.load_setuptools_entrypoints(ENTRY_POINT_GROUP)
    return manager

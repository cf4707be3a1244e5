"""The one place that decides whether a diagnostic is shown.

In order: the selection (``select``/``ignore`` of the settings, or of the command line), the
suppression comments of the file, its ``per-file-ignores``, and the baseline. An internal error
(C006) is the exception everywhere: a file that was not fully checked must fail the run, so
nothing from the checkout silences it (docs/configuration.md, "What can never be silenced"); only
``--ignore C006`` on the command line does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pytest_citations.core import globs, suppressions

if TYPE_CHECKING:
    from pytest_citations.core.config import Config
    from pytest_citations.core.diagnostics import Diagnostic

INTERNAL_ERROR = suppressions.INTERNAL_ERROR


class Decisions:
    """What a root's settings, the command line and the baseline let through."""

    def __init__(self, config: Config, baseline: Any = None) -> None:
        self.config = config
        self.baseline = baseline
        self.overrides: dict[str, tuple[str, ...]] = {}  # (extend_)select/ignore from the command line

    def override(self, select: tuple[str, ...] | None = None, ignore: tuple[str, ...] | None = None,
                 extend_select: tuple[str, ...] | None = None, extend_ignore: tuple[str, ...] | None = None) -> None:
        """Replace the settings' select/ignore with the command line's, then add what it extends
        them with (a select that is empty selects every rule: extending it changes nothing)."""
        given = {"select": select, "ignore": ignore, "extend_select": extend_select, "extend_ignore": extend_ignore}
        self.overrides.update({name: codes for name, codes in given.items() if codes is not None})
        for name in ("select", "ignore"):
            if given[name] is not None:
                setattr(self.config, name, given[name])
        if extend_select and self.config.select:
            self.config.select = (*self.config.select, *extend_select)
        if extend_ignore:
            self.config.ignore = (*self.config.ignore, *extend_ignore)

    def selects(self, code: str) -> bool:
        """Whether the selection runs the rule ``code``."""
        return self.config.rule_enabled(code)

    def reports(self, code: str) -> bool:
        """Whether ``code`` is reported at all: selected, or an internal error."""
        return self.selects(code) or self._kept_whatever_settings_say(code)

    def _kept_whatever_settings_say(self, code: str) -> bool:
        named = (*self.overrides.get("ignore", ()), *self.overrides.get("extend_ignore", ()))
        return code == INTERNAL_ERROR and INTERNAL_ERROR not in named

    def ignored_in(self, rel: str) -> tuple[str, ...]:
        """The code prefixes ``per-file-ignores`` turns off in file ``rel``."""
        ignores = self.config.per_file_ignores
        matched = globs.matching(tuple(ignores))(rel)  # (one automaton for all the globs)
        if not matched:
            return ()
        codes = list(ignores.values())
        return tuple(code for index in matched for code in codes[index])

    def shown_in_file(self, rel: str, directives: list[suppressions.Directive]) -> Callable[[Diagnostic], bool]:
        """Whether a diagnostic of file ``rel`` is shown, given the file's suppression comments
        (``directives``, each marked used as it suppresses) and its ``per-file-ignores``."""
        ignored = self.ignored_in(rel)
        suppressed = _suppressor(directives)

        def shown(diagnostic: Diagnostic) -> bool:
            if suppressed(diagnostic):
                return False
            return diagnostic.code == INTERNAL_ERROR or not diagnostic.code.startswith(ignored)

        return shown

    def after_baseline(self, found: list[Diagnostic]) -> list[Diagnostic]:
        """``found`` without what the baseline records."""
        if self.baseline is None:
            return found
        from pytest_citations.core import baseline as baseline_module

        return baseline_module.subtract(found, self.baseline)


def _suppressor(directives: list[suppressions.Directive]) -> Callable[[Diagnostic], bool]:
    """Whether a diagnostic is suppressed, as :func:`suppressions.apply` decides (by the first
    directive that covers it, which it marks used), in time that does not grow with the number of
    directives: of those that could cover it, only the first for its line or the whole file and
    each prefix of its code is asked (a file may hold thousands of each)."""
    first: dict[tuple[int | None, str], tuple[int, suppressions.Directive]] = {}
    for order, directive in enumerate(directives):
        line = directive.line + 1 if directive.action == "disable-next-line" else None
        for prefix in directive.codes:
            first.setdefault((line, prefix), (order, directive))

    def suppressed(diagnostic: Diagnostic) -> bool:
        prefixes = [diagnostic.code[:length] for length in range(1, len(diagnostic.code) + 1)]
        found = [first[key] for key in ((line, p) for line in (diagnostic.line, None) for p in prefixes) if key in first]
        return bool(found) and bool(suppressions.apply([diagnostic], [min(found, key=lambda item: item[0])[1]])[1])

    return suppressed

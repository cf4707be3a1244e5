"""The rule runner: a kind reads units from a file; the rules of the kind that run see each unit.

A rule that raises is reported as C006 where it raised and runs no more on that file; a parser that
raises ends the file with a C006; a file that cannot be read is reported under its C0xx code. What
is shown of what the rules find is decided by :mod:`pytest_citations.core.decisions`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, cast

from pytest_citations.contexts import FileContext, RuleContext
from pytest_citations.core import sources
from pytest_citations.core.diagnostics import Diagnostic, clipped, window_bounds
from pytest_citations.kinds import Kind, Reported
from pytest_citations.online.web_citation import WebCitation
from pytest_citations.rules import Finding, Rule, RuleRegistry

if TYPE_CHECKING:
    from pytest_citations.core.config import Config
    from pytest_citations.core.decisions import Decisions


class RuleRunner:
    """Runs the record rules of a root's settings over the units of its files."""

    def __init__(self, config: Config, registry: RuleRegistry, decisions: Decisions) -> None:
        self.config = config
        self.registry = registry
        self.decisions = decisions
        self._enabled: dict[tuple, list[Rule]] = {}  # (kind, select, ignore) -> enabled_rules

    def enabled_rules(self, kind: Kind) -> list[Rule]:
        """The record rules of ``kind`` that the selection enables, worked out once per kind and
        selection rather than once per file."""
        key = (kind.name, tuple(self.config.select), tuple(self.config.ignore))
        found = self._enabled.get(key)
        if found is None:
            found = self._enabled[key] = [
                r for r in self.registry.for_kind(kind.name, "record") if self.decisions.selects(r.code)
            ]
        return found

    def online_rules(self, ctx: FileContext) -> list[Rule]:
        """The online rules the selection enables, in an online run (the engine holds what the web
        answered) of a file whose kind cites web pages (it has ``web_citations``); else none."""
        if ctx.engine.web is None or not hasattr(ctx.kind, "web_citations"):
            return []
        key = (None, tuple(self.config.select), tuple(self.config.ignore))
        found = self._enabled.get(key)
        if found is None:
            found = self._enabled[key] = [r for r in self.registry.for_kind(None, "record") if self.decisions.selects(r.code)]
        return found

    def diagnostics(self, ctx: FileContext, units: list[Any] | None = None) -> Iterator[Diagnostic]:
        """What the enabled rules of the file's kind find in it, one by one as they are found; each
        unit the kind read is appended to ``units`` when it is given. In an online run, the online
        rules check the web citations of each unit, given after it."""
        rules = self.enabled_rules(ctx.kind)
        online = self.online_rules(ctx)
        for unit, diagnostic in self.checked_units(ctx, [*rules, *online], ends=units is not None, web=bool(online)):
            if diagnostic is not None:
                yield diagnostic
            elif units is not None:
                units.append(unit)

    def checked_units(
        self, ctx: FileContext, rules: Sequence[Rule], ends: bool = True, web: bool = False
    ) -> Iterator[tuple[Any, Diagnostic | None]]:
        """``(unit, diagnostic)`` for each diagnostic that ``rules`` find on each unit of the file, as
        found; with ``ends``, also ``(unit, None)`` once a unit is done (a front end that answers
        per unit learns of the units without findings). A parse problem the kind reports, a file
        that cannot be read and a parser's crash come as ``(None, diagnostic)``."""
        # (rule, its check, its context, its predicate or None) per running rule; a rule that
        # crashes leaves the list
        running = [
            # (a record rule always has a check; only engine rules have none)
            (r, cast("Callable[..., Iterable[Finding]]", r.check),
             RuleContext(ctx, self.config.rule_options.get(r.code, {})), r.passes)
            for r in rules
        ]
        by_type: dict[type, list[tuple]] = {}  # a unit's type -> the running rules that check such units
        try:
            read = ctx.kind.units(ctx)  # (a kind's units may raise as it is called, not only as it is read)
            if web:
                read = with_web_citations(read, ctx)
            for unit in read:
                if isinstance(unit, Reported):
                    diagnostic = self.diagnostic(unit.code, unit.finding, ctx.rel, ctx.source)
                    if diagnostic:
                        yield None, diagnostic
                    continue
                applicable = by_type.get(type(unit))
                if applicable is None:
                    # a web citation is for the online rules (of no kind) alone, the kind's units
                    # for the kind's rules alone (a rule of any unit type takes every unit)
                    cited = web and isinstance(unit, WebCitation)
                    applicable = by_type[type(unit)] = [
                        e for e in running if isinstance(unit, e[0].unit) and (e[0].kind is None) == cited
                    ]
                # Each rule's predicate first: a unit that all of them pass (the common case) is
                # done; else the checks are due of the first rule whose predicate did not pass it
                # and of each later one whose predicate does not. A predicate that raises says
                # nothing: every check runs (a crash is reported as its rule's).
                try:
                    for entry in applicable:
                        if entry[3] is None or not entry[3](unit, entry[2]):
                            break
                    else:
                        if ends:
                            yield unit, None
                        continue
                    later = applicable[applicable.index(entry) + 1 :]
                    due = [entry, *(e for e in later if e[3] is None or not e[3](unit, e[2]))]
                except Exception:
                    due = applicable
                crashed = None
                for entry in due:
                    item, check, rule_ctx, _ = entry
                    try:
                        found = check(unit, rule_ctx)
                        if found:
                            for finding in found:
                                if isinstance(finding, Reported):  # under a rule of its kind without a check
                                    if (diagnostic := self.diagnostic(finding.code, finding.finding, ctx.rel, ctx.source)):
                                        yield unit, diagnostic
                                    continue
                                yield unit, self.make(item, finding, ctx.rel, ctx.source)
                    except Exception as exc:  # a rule's bug must not stop the run
                        crashed = [*(crashed or ()), entry]
                        message = f"internal error in rule {item.code} ({item.name}): {type(exc).__name__}: {clipped(str(exc))}"
                        diagnostic = self.diagnostic("C006", Finding(message, unit.line), ctx.rel)
                        if diagnostic:
                            yield unit, diagnostic
                if crashed:
                    running = [entry for entry in running if entry not in crashed]
                    by_type.clear()
                if ends:
                    yield unit, None
        except sources.SourceError as error:
            diagnostic = self.diagnostic(error.code, Finding(error.message, error.line, error.col), ctx.rel)
            if diagnostic:
                yield None, diagnostic
        except Exception as exc:  # a parser's bug must not stop the run
            message = f"internal error in kind {ctx.kind.name}: {type(exc).__name__}: {clipped(str(exc))}"
            diagnostic = self.diagnostic("C006", Finding(message), ctx.rel)
            if diagnostic:
                yield None, diagnostic

    def diagnostic(self, code: str, finding: Finding, path: str, source: sources.Source | None = None) -> Diagnostic | None:
        """The diagnostic of ``finding`` under rule ``code``, or None when the selection leaves it out."""
        item = self.registry.get(code)
        if item is None:
            raise LookupError(f"no rule is registered under {code}")
        if not self.decisions.reports(code):
            return None
        return self.make(item, finding, path, source)

    @staticmethod
    def make(item: Rule, finding: Finding, path: str, source: sources.Source | None = None) -> Diagnostic:
        """The diagnostic of ``finding``; its context is the line the finding gives, or a window
        of its line in ``source`` (the file's text, when it is in memory)."""
        context, start = finding.context, 0
        if context is None and source is not None:
            context, start = _line_window(source, finding.line, finding.col)
        return Diagnostic(
            code=item.code,
            name=item.name,
            severity=item.severity,
            message=finding.message,
            path=path,
            line=finding.line,
            col=finding.col,
            fix=finding.fix,
            context=context,
            context_start=start,
            identity=finding.identity,
        )


def _line_window(source: sources.Source, line: int, col: int) -> tuple[str, int]:
    """The window of line ``line`` of ``source`` that a diagnostic at ``col`` keeps, and where it
    starts in the line (see :func:`diagnostics.context_window`); cut from the text without
    copying the whole line, which may be megabytes long and hold thousands of findings."""
    starts = source.line_starts
    if not 1 <= line <= len(starts):
        return "", 0
    begin = starts[line - 1]
    end = starts[line] if line < len(starts) else len(source.text)
    start, stop = window_bounds(col, end - begin)
    window = source.text[begin + start : begin + stop]
    return (window.rstrip("\r\n") if begin + stop == end else window), start


def with_web_citations(units: Iterable[Any], ctx: FileContext) -> Iterator[Any]:
    """Each unit of ``units``, followed by the web citations the kind gives of it."""
    cited = ctx.kind.web_citations  # type: ignore[attr-defined]  # (asked only of a kind that has it)
    for unit in units:
        yield unit
        if not isinstance(unit, Reported):
            yield from cited(unit, ctx)

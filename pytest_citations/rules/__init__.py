"""The rule registry.

A rule is declared with :func:`rule` on its check function; the function's docstring is the rule's
documentation (*What it does*, *Why is this bad?*, *Example* with Bad and Good cases, *Fix*).
Built-in rules live one module per kind in this package and are found by scanning it, so adding
a kind never edits a list; rules from other packages arrive through the ``citations_rules`` hook.
"""

from __future__ import annotations

import builtins
import functools
import importlib
import inspect
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from pytest_citations.core.diagnostics import Fix, Severity, quoted
from pytest_citations.run.dependencies import IndexDeclaration, RunWideIndex, RunWideIndexes

CODE_PATTERN = re.compile(r"^[A-Z][0-9]{3}$")
NAME_PATTERN = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")
SCOPES = ("engine", "record")
BUNDLED_SCHEMAS = Path(__file__).resolve().parent.parent / "schemas"  # the JSON Schemas shipped with the package
_FIRST_SENTENCE = re.compile(r"\.\s+(?=(?:[^`]*`[^`]*`)*[^`]*$)")  # a full stop outside `code`


def bundled_validator(schema_file) -> Any:
    """A draft 2020-12 validator for a schema bundled in the package, built with an empty
    ``referencing.Registry``: a ``$ref`` outside the schema itself is an ``Unresolvable`` error,
    never a retrieval (jsonschema's default registry would fetch an unknown http(s) ``$ref``).
    Its ``pattern`` keyword has the ECMA-262 meaning JSON Schema gives it (:func:`ecma_pattern`)."""
    import json

    import jsonschema
    import referencing

    schema = json.loads(schema_file.read_text(encoding="utf-8"))
    validator = jsonschema.validators.extend(jsonschema.Draft202012Validator, {"pattern": _ecma_pattern_keyword})
    return validator(schema, registry=referencing.Registry())


def _ecma_pattern_keyword(validator, pattern: str, instance: Any, schema: dict) -> Iterator[Any]:
    from jsonschema import ValidationError

    if validator.is_type(instance, "string") and not ecma_pattern(pattern).search(instance):
        yield ValidationError(f"{quoted(instance)} does not match {pattern!r}")


@functools.lru_cache(maxsize=64)
def ecma_pattern(pattern: str) -> re.Pattern[str]:
    """``pattern`` compiled with the meaning ECMA-262 gives it, which JSON Schema prescribes:
    Python's ``re`` lets ``$`` match before a final newline and ``\\d`` match any Unicode digit, so
    ``"0123456789abcdef\\n"`` and ``"L\\u0661"`` pass ``^[0-9a-f]{16}$`` and ``^L\\d+$`` there."""
    translated, escaped, in_class = [], False, False
    for char in pattern:
        if escaped:
            translated.append(char)
            escaped = False
        elif char == "\\":
            translated.append(char)
            escaped = True
        elif in_class:
            translated.append(char)
            in_class = char != "]"
        elif char == "[":
            translated.append(char)
            in_class = True
        else:  # ECMA's $ (without the m flag) is the end of the input
            translated.append(r"\Z" if char == "$" else char)
    return re.compile("".join(translated), re.ASCII)


@dataclass(frozen=True)
class Option:
    """A per-rule setting under ``[tool.citations.rules.CODE]``."""

    type: type | tuple[type, ...]
    default: Any
    help: str
    items: builtins.type | tuple[builtins.type, ...] | None = None  # element type(s) when ``type`` is list
    choices: tuple[Any, ...] | None = None


@dataclass(frozen=True)
class Finding:
    """What a check reports; the engine adds the rule's code, name, severity and the path."""

    message: str
    line: int = 1
    col: int = 1
    fix: Fix | None = None
    context: str | None = None
    identity: str | None = None  # what baselines know it by, when the message varies (Diagnostic.identity)


@dataclass(frozen=True)
class Reported:
    """A finding a kind's reader reports under one of its rules' codes (see :meth:`Rule.report`)."""

    code: str
    finding: Finding


@dataclass(frozen=True, eq=False)
class Rule:
    code: str
    name: str
    kind: str | None
    severity: Severity
    scope: str
    doc: str
    check: Callable[..., Iterable[Finding]] | None = None
    options: dict[str, Option] = field(default_factory=dict)
    fixable: bool = False
    unit: type | tuple[type, ...] = object  # the units the check is given (a kind may read several sorts)
    module: str = ""  # the module that declares the rule
    # ``passes(unit, ctx)``: a cheap test that is True only when the check would find nothing in
    # ``unit``; the rule runner then does not call the check (see :func:`rule`)
    passes: Callable[..., bool] | None = None

    def report(self, finding: Finding) -> Reported:
        """``finding`` as the reader of this rule's kind reports it: what it could not read is
        reported through the rule that documents it, which has no check of its own."""
        return Reported(self.code, finding)

    @property
    def summary(self) -> str:
        """The first sentence of *What it does*."""
        match = re.search(r"## What it does\s+(.+?)(?:\n\n|$)", self.doc, re.S)
        text = " ".join(match.group(1).split()) if match else ""
        return _FIRST_SENTENCE.split(text, maxsplit=1)[0].rstrip(".")


def rule(
    code: str,
    name: str,
    *,
    kind: str | None = None,
    severity: Severity = Severity.ERROR,
    scope: str = "record",
    options: dict[str, Option] | None = None,
    fixable: bool = False,
    unit: type | tuple[type, ...] = object,
    passes: Callable[..., bool] | None = None,
) -> Callable[[Callable], Rule]:
    """Declare a rule; the decorated function is its check (``None`` body for engine rules), called
    with each unit of its kind that is an instance of ``unit`` (every unit, by default).

    ``passes(unit, ctx)``, when given, is the check's own cheap test of the common case: True only
    when the check would find nothing in ``unit`` (False, or an exception, says only "run the
    check"). The rule runner asks it first and calls the check only when it is not True, so a file
    of millions of clean units costs one cheap test per rule and unit. It may do to ``ctx.state``
    only what the check does, in a way that doing it twice changes nothing (the check runs after a
    False), and it shares what it derives from a unit with the other rules through the unit."""
    if not CODE_PATTERN.match(code):
        raise ValueError(f"rule code {code!r} is not a letter and three digits")
    if not NAME_PATTERN.match(name):
        raise ValueError(f"rule name {name!r} is not kebab-case")
    if scope not in SCOPES:
        raise ValueError(f"rule scope {scope!r} is not one of {SCOPES}")

    def declare(function: Callable) -> Rule:
        doc = inspect.cleandoc(function.__doc__ or "")
        return Rule(
            code=code,
            name=name,
            kind=kind,
            severity=severity,
            scope=scope,
            doc=doc,
            check=None if scope == "engine" else function,
            options=dict(options or {}),
            fixable=fixable,
            unit=unit,
            module=function.__module__,
            passes=passes,
        )

    return declare


def rules_in_module(module: Any) -> Iterator[Rule]:
    for value in vars(module).values():
        if isinstance(value, Rule):
            yield value


@dataclass(frozen=True)
class RuleDeclaration:
    """What the catalog of built-in rules says of a rule before its module is imported: all that
    settings, selection and the cache key ask of it. The registry imports ``module`` for the rule
    itself only when a run checks files of its kind or asks for its check or documentation, so
    a run imports the rule modules of the kinds it has files of, not all of them."""

    code: str
    name: str
    kind: str | None
    severity: Severity
    scope: str
    options: dict[str, Option]
    fixable: bool
    module: str


class RuleRegistry:
    """Rules by code; a duplicate code or name is a programming error, raised at start-up. It also
    carries the run-wide indexes the plugins declared (``indexes``), which the rules consult.

    It holds :class:`Rule` objects and :class:`RuleDeclaration` objects; a declaration becomes its
    rule on first use (:meth:`get`, :meth:`for_kind`, iteration). :meth:`declared` answers what
    settings and selection ask without importing anything."""

    def __init__(self, rules: Iterable[Rule | RuleDeclaration] = (), indexes: Iterable[RunWideIndex | IndexDeclaration] = ()) -> None:
        self.indexes = RunWideIndexes(indexes)
        self._by_code: dict[str, Rule | RuleDeclaration] = {}
        self._by_name: dict[str, str] = {}  # name -> code
        for item in rules:
            self.add(item)

    def add(self, item: Rule | RuleDeclaration) -> None:
        if item.code in self._by_code:
            raise ValueError(f"rule code {item.code} is declared twice")
        if item.name in self._by_name:
            raise ValueError(f"rule name {item.name} is declared twice")
        self._by_code[item.code] = item
        self._by_name[item.name] = item.code

    def __contains__(self, code: str) -> bool:
        return code in self._by_code

    def declared(self) -> list[Rule | RuleDeclaration]:
        """Every rule as declared, by code, importing no rule module: code, name, kind, severity,
        scope, options and fixable are what both sorts have."""
        return sorted(self._by_code.values(), key=lambda r: r.code)

    def __iter__(self) -> Iterator[Rule]:
        return iter([self._loaded(item) for item in self.declared()])

    def online(self, code: str) -> bool:
        """Whether ``code`` is an online rule's: of no kind, checking units (the W7xx rules, which
        run only in an online run); a code no rule has is not."""
        item = self._by_code.get(code)
        return item is not None and item.kind is None and item.scope == "record"

    def get(self, code_or_name: str) -> Rule | None:
        code = code_or_name.upper() if code_or_name.upper() in self._by_code else self._by_name.get(code_or_name)
        return None if code is None else self._loaded(self._by_code[code])

    def for_kind(self, kind: str | None, scope: str) -> list[Rule]:
        """The rules of ``kind`` in ``scope``; of no kind (``None``), those that check any kind's
        units of their type (the online rules)."""
        return [self._loaded(r) for r in self.declared() if r.kind == kind and r.scope == scope]

    def _loaded(self, item: Rule | RuleDeclaration) -> Rule:
        """The rule ``item`` declares, its module imported (with the other rules it declares)."""
        if isinstance(item, Rule):
            return item
        found = {found.code: found for found in rules_in_module(importlib.import_module(item.module))}
        for code, declared in list(self._by_code.items()):
            if isinstance(declared, RuleDeclaration) and declared.module == item.module:
                if code not in found:
                    raise ValueError(f"rule {code} is catalogued in {item.module}, which does not declare it")
                self._by_code[code] = found[code]
        return cast(Rule, self._by_code[item.code])


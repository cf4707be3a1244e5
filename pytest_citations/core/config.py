"""``[tool.citations]`` settings: found, read, validated against the kinds and rules in use.

The repository root is the folder of the file that holds the settings. Without one, it is the
nearest folder above the start that holds ``pyproject.toml`` or ``.git``, else the start itself.
"""

from __future__ import annotations

import functools
import os
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_citations.core import sources
from pytest_citations.core.sources import DEFAULT_MAX_FILE_SIZE
from pytest_citations.core.suppressions import INTERNAL_ERROR

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

DEFAULT_EXCLUDE = (
    ".git", ".hg", ".svn", ".venv", "venv", ".tox", ".nox", "node_modules", "__pycache__",
    ".mypy_cache", ".pytest_cache", ".ruff_cache", ".citations_cache", "site-packages", "build", "dist",
)
_CODE_OR_PREFIX = re.compile(r"^[A-Z][0-9]{0,3}\Z")
# A settings file (a pyproject.toml in the checkout): a real one holds tens of kilobytes.
MAX_SETTINGS_BYTES = 1 << 20
# Arrays and tables in a settings file: far deeper than any real one, far below where the TOML
# reader's recursion stops in any front end.
MAX_NESTING = 100
# The globs of one settings table, all its lists together (exclude, per-file-ignores, every kind's
# include and exclude): each file of a walk is matched against them, so their number and length
# bound the work. A long list in a real repository holds a few dozen globs of a few kilobytes.
MAX_GLOBS = 256
MAX_GLOB_CHARACTERS = 8192
_GLOB_LISTS = "exclude, per-file-ignores and every kind's include and exclude together"
_TOP_LEVEL = {"exclude", "select", "ignore", "per-file-ignores", "max-file-size", "cache-dir", "kinds", "rules"}


class ConfigError(Exception):
    """A setting that is unknown or of the wrong type; front ends exit with status 2."""


@dataclass
class KindSettings:
    include: tuple[str, ...]
    exclude: tuple[str, ...]
    options: dict[str, Any]


@dataclass
class Config:
    root: Path
    source: Path | None = None
    exclude: tuple[str, ...] = DEFAULT_EXCLUDE
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    per_file_ignores: dict[str, tuple[str, ...]] = field(default_factory=dict)
    max_file_size: int = DEFAULT_MAX_FILE_SIZE
    kinds: dict[str, KindSettings] = field(default_factory=dict)
    rule_options: dict[str, dict[str, Any]] = field(default_factory=dict)
    cache_dir: str = ".citations_cache"  # relative to the root; where `citations check` caches results

    def rule_enabled(self, code: str) -> bool:
        """The most specific matching prefix decides; on a tie ``ignore`` wins; default on."""
        selected = max((len(p) for p in self.select if code.startswith(p)), default=-1 if self.select else 0)
        ignored = max((len(p) for p in self.ignore if code.startswith(p)), default=-1)
        return selected >= 0 and selected > ignored


def _fail(where: str, message: str) -> ConfigError:
    return ConfigError(f"{where}: {message}")


def _string_list(value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise _fail(where, "expected a list of strings")
    return tuple(value)


class _GlobCount:
    """The globs a settings table has given so far, in number and characters: both are capped
    (:data:`MAX_GLOBS`, :data:`MAX_GLOB_CHARACTERS`)."""

    def __init__(self, where: str) -> None:
        self.where, self.globs, self.characters = where, 0, 0

    def add(self, globs: Iterable[str], setting: str) -> None:
        """Count the globs of ``setting``; a settings error past a cap."""
        for glob in globs:
            self.globs += 1
            self.characters += len(glob)
        if self.globs > MAX_GLOBS:
            raise _fail(self.where, f"{setting}: more than {MAX_GLOBS} globs: the settings' globs ({_GLOB_LISTS}) "
                                    f"number at most {MAX_GLOBS}")
        if self.characters > MAX_GLOB_CHARACTERS:
            raise _fail(self.where, f"{setting}: more than {MAX_GLOB_CHARACTERS} characters of globs: the settings' "
                                    f"globs ({_GLOB_LISTS}) hold at most {MAX_GLOB_CHARACTERS} characters")


def _codes(value: Any, where: str, registry) -> tuple[str, ...]:
    """A list of rule codes or prefixes, each the code or prefix of a rule that exists: a typo
    (M270 for M207) in select or ignore would silently switch rules off."""
    codes = _string_list(value, where)
    for code in codes:
        if not _CODE_OR_PREFIX.match(code):
            raise _fail(where, f"{code!r} is not a rule code or code prefix (such as U104 or U1)")
        if not any(item.code.startswith(code) for item in registry.declared()):
            raise _fail(where, f"no rule code starts with {code!r}; `citations rules` lists them")
    return codes


def _silencing(codes: tuple[str, ...], where: str) -> tuple[str, ...]:
    """Codes settings may ignore: any but an internal error, which a setting would silence in vain
    (settings come with the checkout; see "What can never be silenced" in docs/configuration.md)."""
    if INTERNAL_ERROR in codes:
        raise _fail(where, f"{INTERNAL_ERROR} (internal error: a file was not fully checked) cannot be ignored in settings; "
                    f"`--ignore {INTERNAL_ERROR}` on the command line can")
    return codes


def _type_names(types: type | tuple[type, ...]) -> str:
    """``int``, or ``int or float`` for a tuple of types."""
    return " or ".join(kind.__name__ for kind in (types if isinstance(types, tuple) else (types,)))


def _option_value(option, value: Any, where: str) -> Any:
    expected = option.type
    if isinstance(value, bool) and bool not in (expected if isinstance(expected, tuple) else (expected,)):
        raise _fail(where, f"expected {_type_names(expected)}, got a boolean")
    if not isinstance(value, expected):
        raise _fail(where, f"expected {_type_names(expected)}, got {type(value).__name__}")
    if option.items is not None and not all(
        isinstance(item, option.items) and not isinstance(item, bool) for item in value
    ):
        raise _fail(where, f"expected a list of {_type_names(option.items)}")
    if option.choices is not None and value not in option.choices:
        raise _fail(where, f"expected one of {', '.join(map(str, option.choices))}, got {value!r}")
    return value


def find_settings(start: Path) -> tuple[Path, dict[str, Any], Path | None]:
    """(root, raw [tool.citations] table, file it came from) for a start folder. Without a
    ``pyproject.toml`` or ``.git`` above it, the root is the current folder when ``start`` lies in
    it (a folder or file named below it, or visited by pytest, belongs to the same repository),
    else ``start``."""
    # Walk up the path as given, not as resolved: a folder reached through a symlink belongs to
    # the repository it was reached from. The root returned is resolved.
    start = Path(os.path.abspath(start))
    fallback = None
    for folder in (start, *start.parents):
        candidate = folder / "pyproject.toml"
        if _is_file(candidate):
            # (a symlink may lead anywhere in its checkout, looked for only then: a stat per folder above)
            within = _repository_of(folder) if candidate.is_symlink() else folder
            table = _read_table(candidate, pyproject=True, found=True, within=within)
            if table is not None:
                return folder.resolve(), table, candidate.resolve()
            fallback = fallback or folder
        elif _exists(folder / ".git"):
            fallback = fallback or folder
    if fallback is None:
        here = Path(os.path.abspath(os.getcwd()))
        fallback = here if start == here or here in start.parents else start
    return fallback.resolve(), {}, None


def _repository_of(folder: Path) -> Path:
    """The folder a settings file found in ``folder`` may lead to: the nearest folder at or above it
    that holds a ``.git`` (its checkout), else ``folder`` itself."""
    for above in (folder, *folder.parents):
        if _exists(above / ".git"):
            return above
    return folder


def has_settings(folder: Path, within: Path) -> bool:
    """Whether ``folder`` (a folder below the root ``within``) holds a ``pyproject.toml`` with a
    ``[tool.citations]`` table; one that is a symlink is read when it leads to a file in the root
    (a monorepo's packages may share one)."""
    candidate = folder / "pyproject.toml"
    return _is_file(candidate) and _read_table(candidate, pyproject=True, found=True, within=within) is not None


def _is_file(path: Path) -> bool:
    """``path.is_file()``, with a name the system cannot resolve (a symlink to a name too long, a
    path past PATH_MAX) a settings error rather than an OSError."""
    try:
        return path.is_file()
    except OSError as exc:
        raise _unresolvable(path, exc) from None


def _leads_nowhere_else(path: Path, folder: Path) -> bool:
    """Whether ``path``, its symlinks resolved, still lies in ``folder``."""
    try:
        return path.resolve().is_relative_to(folder.resolve())
    except (OSError, RuntimeError):  # (a loop: reading it says so)
        return True


def _exists(path: Path) -> bool:
    try:
        return path.exists()
    except OSError as exc:
        raise _unresolvable(path, exc) from None


def _unresolvable(path: Path, exc: OSError) -> ConfigError:
    from pytest_citations.core.diagnostics import clipped

    return ConfigError(f"{clipped(path.as_posix(), 200)}: cannot read settings: {exc.strerror or exc}")


def _read_table(path: Path, pyproject: bool, found: bool = False, within: Path | None = None) -> dict[str, Any] | None:
    """The ``[tool.citations]`` table of the settings file ``path`` (of a ``pyproject.toml``:
    None when it has none). A file ``found`` in a folder (not named by the user) comes with the
    checkout: a symlink that leads out of the folder ``within`` (else out of its own folder) is
    not followed, nor is what it leads to described."""
    if found and not _leads_nowhere_else(path, path.parent if within is None else within):
        raise ConfigError(f"{path}: cannot read settings: it is a symlink that leads out of the repository")
    try:
        text = sources.read_named_file(path, MAX_SETTINGS_BYTES).decode("utf-8")
        data = _settings_document(text)
    except sources.SourceError as exc:
        raise ConfigError(f"{path}: cannot read settings: {exc.message}") from None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read settings: {exc}") from None
    if data is None:
        raise ConfigError(f"{path}: cannot read settings: arrays or tables are nested more than {MAX_NESTING} deep")
    table = data.get("tool", {}).get("citations")
    if table is None and not pyproject:
        return data
    if table is not None and not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.citations] must be a table")
    return table


@functools.lru_cache(maxsize=4)
def _settings_document(text: str) -> dict[str, Any] | None:
    """The TOML document ``text``, read once however often it is asked for (pytest asks, for each
    folder it visits, for the settings above it; it visits the folders of a root one after
    another); None when it is nested more than :data:`MAX_NESTING` deep. What it gives is shared:
    it is read, never changed."""
    try:
        data = tomllib.loads(text)
    except RecursionError:  # the reader recurses once per level
        return None
    return None if _nested_deeper_than(data, MAX_NESTING) else data


def _nested_deeper_than(data: dict[str, Any], limit: int) -> bool:
    """Whether the document ``data`` holds arrays or tables more than ``limit`` deep (the
    document itself is one level). The reader's own limit is its recursion, which depends on how
    deep the stack already is (pytest's is deeper than the command line's): this one does not, so
    that every front end takes the same settings."""
    pending: list[tuple[Any, int]] = [(data, 1)]
    while pending:
        value, depth = pending.pop()
        if depth > limit:
            return True
        children = value.values() if isinstance(value, dict) else value
        pending.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return False


def load_config(start: Path, kinds, registry, config_file: Path | None = None) -> Config:
    """Settings for files under ``start`` (or from ``config_file``), validated."""
    if config_file is not None:
        named = config_file
        if not _exists(named):
            raise ConfigError(f"{named}: no such settings file")
        if not _is_file(named):
            raise ConfigError(f"{named}: cannot read settings: not a regular file")
        config_file = named.resolve()
        table = _read_table(config_file, pyproject=config_file.name == "pyproject.toml") or {}
        root = config_file.parent
    else:
        root, table, config_file = find_settings(start)
    return parse_config(table, root, kinds, registry, config_file)


def parse_config(table: dict[str, Any], root: Path, kinds, registry, source: Path | None = None) -> Config:
    where = str(source) if source else "settings"
    unknown = sorted(set(table) - _TOP_LEVEL)
    if unknown:
        raise _fail(where, f"unknown setting {unknown[0]!r} in [tool.citations]; known: {', '.join(sorted(_TOP_LEVEL))}")
    config = Config(root=root.resolve(), source=source)
    globs = _GlobCount(where)
    if "exclude" in table:
        exclude = _string_list(table["exclude"], f"{where}: exclude")
        globs.add(exclude, "exclude")
        config.exclude = DEFAULT_EXCLUDE + exclude
    if "select" in table:
        config.select = _codes(table["select"], f"{where}: select", registry)
    if "ignore" in table:
        config.ignore = _silencing(_codes(table["ignore"], f"{where}: ignore", registry), f"{where}: ignore")
    if "max-file-size" in table:
        size = table["max-file-size"]
        if not isinstance(size, int) or isinstance(size, bool) or size <= 0:
            raise _fail(where, "max-file-size: expected a positive integer (bytes)")
        config.max_file_size = size
    if "cache-dir" in table:
        config.cache_dir = _cache_dir(table["cache-dir"], where)
    per_file = table.get("per-file-ignores", {})
    if not isinstance(per_file, dict):
        raise _fail(where, "per-file-ignores: expected a table of glob = [codes]")
    globs.add(per_file, "per-file-ignores")
    config.per_file_ignores = {
        glob: _silencing(_codes(codes, f"{where}: per-file-ignores.{glob}", registry), f"{where}: per-file-ignores.{glob}")
        for glob, codes in per_file.items()
    }
    config.kinds = _kind_settings(table.get("kinds", {}), kinds, where, globs)
    config.rule_options = _rule_options(table.get("rules", {}), registry, where)
    return config


def _cache_dir(value: Any, where: str) -> str:
    """A folder below the root: settings come with the checkout, and a cache they placed
    elsewhere would have the run write and delete files outside the repository (the command line
    and the environment may place it anywhere)."""
    if not isinstance(value, str) or not value.strip():
        raise _fail(where, "cache-dir: expected a folder path (string)")
    parts = Path(value).parts
    if Path(value).anchor or ".." in parts or not [part for part in parts if part != "."]:
        raise _fail(where, f"cache-dir: {value!r} is not a folder inside the repository (a relative path without "
                           "'..'); a cache elsewhere is chosen with --cache-dir or $CITATIONS_CACHE_DIR")
    return value


def _kind_settings(table: Any, kinds, where: str, globs: _GlobCount) -> dict[str, KindSettings]:
    if not isinstance(table, dict):
        raise _fail(where, "kinds: expected a table of kind names")
    by_name = {kind.name: kind for kind in kinds}
    unknown = sorted(set(table) - set(by_name))
    if unknown:
        raise _fail(where, f"kinds: unknown kind {unknown[0]!r}; known: {', '.join(sorted(by_name))}")
    settings = {}
    for name, kind in by_name.items():
        raw = table.get(name, {})
        if not isinstance(raw, dict):
            raise _fail(where, f"kinds.{name}: expected a table")
        known = {"include", "exclude", *kind.options}
        extra = sorted(set(raw) - known)
        if extra:
            raise _fail(where, f"kinds.{name}: unknown setting {extra[0]!r}; known: {', '.join(sorted(known))}")
        options = {key: option.default for key, option in kind.options.items()}
        for key, option in kind.options.items():
            if key in raw:
                options[key] = _option_value(option, raw[key], f"{where}: kinds.{name}.{key}")
        include = tuple(kind.include)
        if "include" in raw:
            include = _string_list(raw["include"], f"{where}: kinds.{name}.include")
            globs.add(include, f"kinds.{name}.include")
        exclude: tuple[str, ...] = ()
        if "exclude" in raw:
            exclude = _string_list(raw["exclude"], f"{where}: kinds.{name}.exclude")
            globs.add(exclude, f"kinds.{name}.exclude")
        settings[name] = KindSettings(include, exclude, options)
    return settings


def _rule_options(table: Any, registry, where: str) -> dict[str, dict[str, Any]]:
    if not isinstance(table, dict):
        raise _fail(where, "rules: expected a table of rule codes")
    resolved: dict[str, dict[str, Any]] = {}
    for item in registry.declared():
        raw = table.get(item.code, {})
        options = {key: option.default for key, option in item.options.items()}
        if not isinstance(raw, dict):
            raise _fail(where, f"rules.{item.code}: expected a table")
        extra = sorted(set(raw) - set(item.options))
        if extra:
            known = ", ".join(sorted(item.options)) or "none"
            raise _fail(where, f"rules.{item.code}: unknown option {extra[0]!r}; known: {known}")
        for key, option in item.options.items():
            if key in raw:
                options[key] = _option_value(option, raw[key], f"{where}: rules.{item.code}.{key}")
        resolved[item.code] = options
    unknown = sorted(code for code in table if code not in registry)
    if unknown:
        raise _fail(where, f"rules: unknown rule code {unknown[0]!r}")
    return resolved

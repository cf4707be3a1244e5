"""Baselines: record today's findings so an existing repository fails only on new ones.

Findings are matched by path, code and message, never by line, so moving text around does not
bring old findings back; each entry carries a count, so a second copy of a known problem is new.
A message that also says what may differ from run to run for the same finding (the web's answer
of the moment) is matched by its stable part (:attr:`Diagnostic.known_as`).
An internal error (C006: a file not fully checked) is never recorded nor matched: a baseline comes
with the checkout, and must not let a file pass that was not checked.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from pytest_citations import __version__
from pytest_citations.core import sources
from pytest_citations.core.diagnostics import quoted
from pytest_citations.core.suppressions import INTERNAL_ERROR

FORMAT = "pytest-citations-baseline/1"
# A baseline comes with the checkout: what reading it may cost is bounded by its bytes and by the
# objects and arrays it may hold (64 MiB of `{}` took 1.6 GB, 8 MiB of `[[],[],...]` 422 MB: a
# Python object costs far more than its JSON text).
MAX_SIZE = 8 << 20  # bytes of a baseline at most (about 40,000 findings)
MAX_CONTAINERS = 400_000  # `{` and `[` in a baseline at most (an entry is one `{`, and its message may hold some)


class BaselineError(Exception):
    pass


def _key(diagnostic) -> tuple[str, str, str]:
    return diagnostic.path, diagnostic.code, diagnostic.known_as


def dumps(diagnostics) -> str:
    """The baseline of ``diagnostics``: one entry a line (a change to it reads as lines in a diff),
    in UTF-8, as compact as :func:`load` takes it."""
    counts = Counter(_key(d) for d in diagnostics if d.code != INTERNAL_ERROR)
    entries = [
        json.dumps({"path": path, "code": code, "message": message, "count": count}, ensure_ascii=False)
        for (path, code, message), count in sorted(counts.items())
    ]
    head = json.dumps({"format": FORMAT, "tool_version": __version__})[:-1]
    return head + ', "entries": [\n' + ",\n".join(entries) + "\n]}\n"


def beyond_limits(text: str) -> str | None:
    """Why a baseline of ``text`` would not be read back (:func:`load`'s limits), else None."""
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_SIZE:
        return f"it would be {size} bytes, over the {MAX_SIZE}-byte limit a baseline is read with"
    if _too_many_containers(text):
        return f"it would hold more than the {MAX_CONTAINERS} objects and arrays a baseline is read with"
    return None


def _too_many_containers(text: str) -> bool:
    """Whether ``text`` holds more ``{`` and ``[`` than a baseline may (counted before parsing:
    each would be a Python object, far larger than its character)."""
    return text.count("{") + text.count("[") > MAX_CONTAINERS


def load(path: Path) -> dict[str, Counter]:
    """Counts of known findings, by file path and then by (code, message)."""
    try:
        text = sources.read_named_file(Path(path), MAX_SIZE).decode("utf-8-sig")  # (an editor may add a BOM)
        if _too_many_containers(text):
            raise BaselineError(f"{path}: cannot read baseline: it holds more than {MAX_CONTAINERS} objects and arrays")
        data = json.loads(text)
    except OSError as exc:
        raise BaselineError(f"{path}: cannot read baseline: {exc.strerror or exc}") from None
    except sources.SourceError as exc:
        raise BaselineError(f"{path}: cannot read baseline: {exc.message}") from None
    except (UnicodeDecodeError, ValueError) as exc:
        raise BaselineError(f"{path}: cannot read baseline: {exc}") from None
    except RecursionError:  # (the JSON decoder recurses: `[` a hundred thousand times)
        raise BaselineError(f"{path}: cannot read baseline: it is nested too deeply") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("entries"), list):
        raise BaselineError(f"{path}: not a baseline written by `citations check --write-baseline`")
    counts: dict[str, Counter] = {}
    for entry in data["entries"]:
        try:
            counts.setdefault(entry["path"], Counter())[(entry["code"], entry["message"])] += int(entry["count"])
        except (KeyError, TypeError, ValueError, OverflowError):  # (OverflowError: a count of 1e400, infinity)
            raise BaselineError(f"{path}: malformed baseline entry {quoted(entry)}") from None
    return counts


def subtract(diagnostics, baseline: dict[str, Counter]) -> list:
    """The diagnostics of one file left once each baseline entry has absorbed up to its count."""
    if not diagnostics:
        return diagnostics
    remaining = Counter(baseline.get(diagnostics[0].path, ()))
    kept = []
    for diagnostic in diagnostics:
        key = (diagnostic.code, diagnostic.known_as)
        if remaining[key] > 0 and diagnostic.code != INTERNAL_ERROR:
            remaining[key] -= 1
        else:
            kept.append(diagnostic)
    return kept

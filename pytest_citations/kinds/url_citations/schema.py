"""The ``citation.v1`` JSON Schema's verdict on a record (U102's question): a test of the common
case that needs no jsonschema (U102's predicate), and the bundled schema's problems in a stable
order."""

from __future__ import annotations

from functools import lru_cache

from pytest_citations.core.diagnostics import quoted
from pytest_citations.core.jsonlines import type_name
from pytest_citations.kinds.url_citations.fields import _is_integer
from pytest_citations.rules import BUNDLED_SCHEMAS, bundled_validator

_SCHEMA_FILE = BUNDLED_SCHEMAS / "citation.v1.schema.json"
_STRINGS = ("normalized_url", "cid", "url", "url_original", "status", "checked_at", "notes")
_OPTIONAL_STRINGS = ("title", "publisher", "evidence_snippet")
_FOUND_BY_STRINGS = ("perspective_id", "agent_type", "artifact_path")


def _fast_valid(data: dict) -> bool:
    """The schema's verdict for the common case, without importing jsonschema (see tests). A
    required field that is missing reads as None, which is no string and no array."""
    if data.get("schema_version") != "citation.v1":
        return False
    for key in _STRINGS:
        if not isinstance(data.get(key), str):
            return False
    for key in _OPTIONAL_STRINGS:
        value = data.get(key)
        if value is not None and not isinstance(value, str):
            return False
    status = data.get("http_status")
    if status is not None and not _is_integer(status):
        return False
    found_by = data.get("found_by")
    if not isinstance(found_by, list):
        return False
    for entry in found_by:
        if not isinstance(entry, dict) or not _is_integer(entry.get("wave")):
            return False
        for key in _FOUND_BY_STRINGS:
            if not isinstance(entry.get(key), str):
                return False
    return True


@lru_cache(maxsize=1)
def _validator():
    return bundled_validator(_SCHEMA_FILE)


def _json_path(parts) -> str:
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else part)
    return text or "record"


def schema_problems(data: dict) -> list[tuple[str, str]]:
    """(top-level key or "", message) for every schema violation, in a stable order."""
    problems = []
    missing: dict[str, list[str]] = {}
    for error in sorted(_validator().iter_errors(data), key=lambda e: (list(map(str, e.absolute_path)), e.validator)):
        path = list(error.absolute_path)
        where = _json_path(path)
        key = str(path[0]) if path else ""
        if error.validator == "required":
            missing.setdefault(where, []).append(error.message.split("'")[1])
            continue
        if error.validator == "type":
            expected = error.validator_value if isinstance(error.validator_value, list) else [error.validator_value]
            message = f"{where} must be {' or '.join(expected)}, not {type_name(error.instance)}"
        elif error.validator == "const":
            message = f"{where} must be {error.validator_value!r}, not {quoted(error.instance)}"
        else:
            message = f"{where}: {error.message}"
        problems.append((key, message))
    for where, fields in missing.items():
        key = where.split("[")[0].split(".")[0] if where != "record" else ""
        noun = "field" if len(fields) == 1 else "fields"
        problems.append((key, f"{where} is missing required {noun}: {', '.join(fields)}"))
    return problems

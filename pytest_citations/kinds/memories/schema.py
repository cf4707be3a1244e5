'''The memory schema's checks of a front matter, for M205 (memory-schema): each field of the type
the schema names, each message naming the field and where it is (a date-time that names no real
moment told apart from a value that is no date-time at all).'''

from __future__ import annotations

import calendar
import re
from typing import TYPE_CHECKING

from pytest_citations.core.diagnostics import quoted
from pytest_citations.core.jsonlines import type_name
from pytest_citations.rules import Finding

if TYPE_CHECKING:
    from pytest_citations.core.frontmatter import Node


def _type_name(value) -> str:
    """Type names for YAML messages: JSON's, with YAML's words for collections and timestamps."""
    from pytest_citations.core.frontmatter import Timestamp

    if value == "":
        return "an empty string"
    if isinstance(value, float):
        return f"a number ({value})"
    if isinstance(value, Timestamp):
        return "a timestamp"
    name = type_name(value)
    return {"an array": "a list", "an object": "a mapping"}.get(name, name)


def _expect(node: Node, where: str, check, expected: str):
    if not check(node.value):
        yield Finding(f"{where} must be {expected}, not {_type_name(node.value)}", node.line, node.col)


# A date-time's shape, as YAML reads a timestamp: the parts whose values must be real.
_DATE_TIME = re.compile(
    r"(\d{4})-(\d\d?)-(\d\d?)(?:[Tt ]+(\d\d?):(\d\d):(\d\d)(?:\.\d+)?[ \t]*(?:Z|[+-]\d\d?(?::?\d\d)?)?)?"
)
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December")  # not calendar.month_name, which follows the locale


def _out_of_range(text: str) -> list[str]:
    """The parts of a value shaped like a date-time that name no real moment (``month 13``); none
    when it is not so shaped."""
    match = _DATE_TIME.fullmatch(text.strip())
    if match is None:
        return []
    year, month, day, hour, minute, second = (int(part) if part else 0 for part in match.groups())
    problems = [f"year {year}"] if year < 1 else []
    if not 1 <= month <= 12:
        problems.append(f"month {month}")
        if not 1 <= day <= 31:
            problems.append(f"day {day}")
    elif year >= 1 and not 1 <= day <= (days := calendar.monthrange(year, month)[1]):
        problems.append(f"day {day}: {_MONTHS[month - 1]} {year} has {days} days" if day > days else f"day {day}")
    problems += [f"{name} {value}" for name, value, top in (("hour", hour, 23), ("minute", minute, 59),
                                                            ("second", second, 59)) if value > top]
    return problems


def _expect_datetime(node: Node, where: str):
    """An ISO 8601 date-time; one that is shaped as one but names no real moment is told apart
    (``2026-13-45T99:00:00Z`` is a timestamp to YAML, and no date to anyone)."""
    from pytest_citations.core.frontmatter import Timestamp, is_datetime

    if is_datetime(node.value):
        return
    text = node.value.text if isinstance(node.value, Timestamp) else node.value
    problems = _out_of_range(text) if isinstance(text, str) else []
    if problems:
        shown = quoted(text.strip(), plain=True)
        yield Finding(f"{where} {shown} is not a valid date or time ({', '.join(problems)})", node.line, node.col)
    else:
        yield from _expect(node, where, is_datetime, "an ISO 8601 date-time")


def _is_str(value) -> bool:
    return isinstance(value, str)


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _schema_findings(root: Node):
    if not isinstance(root.value, dict):
        yield Finding(f"front matter must be a mapping, not {_type_name(root.value)}", root.line, root.col)
        return
    fields = root.value
    if "id" in fields:
        yield from _expect(fields["id"], "id", lambda v: isinstance(v, str) and v != "", "a non-empty string")
    if "subject" in fields:
        yield from _expect(fields["subject"], "subject", _is_str, "a string")
    if "last_verified" in fields:
        yield from _expect_datetime(fields["last_verified"], "last_verified")
    if "confidence" in fields:
        node = fields["confidence"]
        if not isinstance(node.value, (int, float)) or isinstance(node.value, bool):
            yield Finding(f"confidence must be a number from 0.0 to 1.0, not {_type_name(node.value)}", node.line, node.col)
        elif not 0.0 <= node.value <= 1.0:
            yield Finding(f"confidence must be from 0.0 to 1.0, not {quoted(node.value, plain=True)}", node.line, node.col)
    if "tags" in fields:
        node = fields["tags"]
        if not isinstance(node.value, list):
            yield Finding(f"tags must be a list of strings, not {_type_name(node.value)}", node.line, node.col)
        else:
            for index, item in enumerate(node.value):
                yield from _expect(item, f"tags[{index}]", _is_str, "a string")
    if "citations" in fields:
        yield from _citation_findings(fields["citations"])
    if "links" in fields:
        yield from _link_findings(fields["links"])


def _citation_findings(node: Node):
    if not isinstance(node.value, list):
        yield Finding(f"citations must be a list, not {_type_name(node.value)}", node.line, node.col)
        return
    for index, item in enumerate(node.value):
        where = f"citations[{index}]"
        if not isinstance(item.value, dict):
            yield Finding(f"{where} must be a mapping with a path, not {_type_name(item.value)}", item.line, item.col)
            continue
        fields = item.value
        if "path" not in fields:
            yield Finding(f"{where} has no path", item.line, item.col)
        else:
            yield from _expect(fields["path"], f"{where}.path", lambda v: isinstance(v, str) and v != "", "a non-empty string")
        if "line" in fields and fields["line"].value is not None:
            yield from _expect(fields["line"], f"{where}.line", _is_int, "an integer")
        if "snippet" in fields and fields["snippet"].value is not None:
            yield from _expect(fields["snippet"], f"{where}.snippet", _is_str, "a string")
        if "verified" in fields and fields["verified"].value is not None:
            yield from _expect_datetime(fields["verified"], f"{where}.verified")


def _link_findings(node: Node):
    if not isinstance(node.value, list):
        yield Finding(f"links must be a list, not {_type_name(node.value)}", node.line, node.col)
        return
    for index, item in enumerate(node.value):
        if not isinstance(item.value, dict) or len(item.value) != 1:
            yield Finding(f"links[{index}] must be a mapping of one link type to a memory id", item.line, item.col)
            continue
        ((link_type, target),) = item.value.items()
        yield from _expect(target, f"links[{index}].{link_type}", _is_str, "a memory id (string)")

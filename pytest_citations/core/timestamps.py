"""ISO 8601 dates and date-times, read the one way every kind uses.

A calendar date, optionally with ``T``, a time (minutes, optional seconds and fraction with ``.`` or
``,``) and a zone (``Z``, ``+HH``, ``+HHMM``, ``+HH:MM``); the values must be real (no 2026-02-30, no
zone of 24 hours or more). A value without a zone is taken as UTC.
"""

from __future__ import annotations

import datetime
import functools
import re
from typing import Any

_ISO_8601 = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})"
    r"(?:T(\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?\Z"
)


def parse_iso_8601(value: Any) -> datetime.datetime | None:
    """The moment an ISO 8601 string names, timezone-aware; None for anything else."""
    if not isinstance(value, str):
        return None
    return _parse(value)


@functools.lru_cache(maxsize=8192)
def _parse(value: str) -> datetime.datetime | None:
    """Cached: the same dates come back again and again (a document's, cited by many briefs; a
    pack's chunks). A datetime is immutable, so sharing one is safe."""
    match = _ISO_8601.match(value)
    if not match:
        return None
    year, month, day, hour, minute, second, fraction, zone = match.groups()
    offset = datetime.timedelta(0)
    if zone and zone != "Z":
        digits = zone[1:].replace(":", "")
        hours, minutes = int(digits[:2]), int(digits[2:] or 0)
        if hours > 23 or minutes > 59:
            return None
        offset = (1 if zone[0] == "+" else -1) * datetime.timedelta(hours=hours, minutes=minutes)
    microseconds = int((fraction or "0")[:6].ljust(6, "0"))
    try:
        return datetime.datetime(
            int(year), int(month), int(day), int(hour or 0), int(minute or 0), int(second or 0), microseconds,
            tzinfo=datetime.timezone(offset),
        )
    except ValueError:
        return None

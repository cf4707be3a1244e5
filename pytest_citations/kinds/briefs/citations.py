"""A brief's citation objects as the rules read them: those its markers cite, each with the marker
that first cites it (:func:`_objects`; :func:`_at` reports there) or by bullet
(:func:`bullet_citations`), computed once per brief; and where a citation or pack chunk comes from
and how far it is trusted: its registry source, credibility tier and publisher."""

from __future__ import annotations

from typing import Any

from pytest_citations.kinds.briefs.model import Brief, Bullet
from pytest_citations.rules import Finding


def _objects(brief: Brief) -> list[tuple[int, dict, Any]]:
    """(marker number, citation object, the marker where it is first cited) for cited objects;
    computed once per brief, for the many rules that walk them."""
    if "objects" not in brief.memo:
        citations = brief.citations or {}
        found = []
        for number in brief.cited_numbers():
            citation = citations.get(str(number))
            if isinstance(citation, dict):
                found.append((number, citation, brief.first_marker(number)))
        brief.memo["objects"] = found
    return brief.memo["objects"]


def _at(marker, message: str) -> Finding:
    return Finding(message, marker.line, marker.col)


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def source_of(brief: Brief, source_id: Any):
    return brief.registry.sources.get(source_id) if brief.registry is not None and isinstance(source_id, str) else None


def tier_of(brief: Brief, item: dict) -> int | None:
    """The registry's tier of a citation's or chunk's source, else the tier the item states."""
    source_id = item.get("source_id")
    if brief.registry is not None and isinstance(source_id, str):
        tier = brief.registry.tiers.get(source_id)
        if tier is not None:
            return tier
    return _int(item.get("credibility_tier"))


def publisher_of(brief: Brief, item: dict) -> str:
    """The item's ``publisher``; else the registry name before " - "; else its ``source_id``."""
    if isinstance(item.get("publisher"), str) and item["publisher"].strip():
        return item["publisher"].strip()
    source = source_of(brief, item.get("source_id"))
    if source is not None and isinstance(source.name, str) and source.name.strip():
        return source.name.split(" - ")[0].strip()
    return str(item.get("source_id"))


def bullet_citations(brief: Brief, bullet: Bullet) -> list[tuple[int, dict]]:
    """(number, citation object) of a bullet's markers, once each; computed once per bullet."""
    memo = brief.memo.get("bullet_citations")
    if memo is None:
        memo = brief.memo["bullet_citations"] = {}
    key = (bullet.section, bullet.index)
    if key not in memo:
        citations = brief.citations or {}
        found = []
        for number in dict.fromkeys(m.number for m in bullet.markers):
            citation = citations.get(str(number))
            if isinstance(citation, dict):
                found.append((number, citation))
        memo[key] = found
    return memo[key]


def cites_tier_in(brief: Brief, cited: list[tuple[int, dict]], tiers) -> bool:
    """Whether the :func:`tier_of` of any of ``cited`` is in ``tiers`` (a loop: a generator per
    bullet costs more than the test)."""
    for _, citation in cited:  # noqa: SIM110 - the loop is the point (see above)
        if tier_of(brief, citation) in tiers:
            return True
    return False

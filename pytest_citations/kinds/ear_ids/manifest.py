"""The dataset manifest of the ear-ids kind (``eval/manifest.json``): one :class:`Manifest` unit,
with where each entry and each of its values sits."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from pytest_citations.core import jsonlines, sources
from pytest_citations.kinds import Reported
from pytest_citations.kinds.ear_ids.json_text import INVALID_JSON, _skip_space, element_spans, member_spans


@dataclass
class ManifestEntry:
    index: int
    data: Any
    line: int
    col: int
    positions: dict[str, tuple[int, int]]  # key -> (line, col) of its value

    def position(self, key: str) -> tuple[int, int]:
        return self.positions.get(key, (self.line, self.col))


@dataclass
class Manifest:
    """A dataset manifest (``eval/manifest.json``): ``{"datasets": [{id, file, num_items}, ...]}``."""

    rel: str
    data: Any
    entries: list[ManifestEntry] | None  # None when ``datasets`` is missing or not an array
    datasets_position: tuple[int, int]
    line: int = 1


def read_manifest(ctx) -> Iterator[Any]:
    """The one unit of a dataset manifest, or what reports that it is not JSON."""
    data = jsonlines.document(ctx, INVALID_JSON)
    if isinstance(data, Reported):
        yield data
        return
    source: sources.Source = ctx.source  # (read whole by jsonlines.document)
    text = source.text
    start = _skip_space(text, 0)
    entries = None
    datasets_position = (1, 1)
    if isinstance(data, dict) and isinstance(data.get("datasets"), list):
        datasets_start = member_spans(text, start)["datasets"][0]
        datasets_position = source.line_col(datasets_start)
        entries = []
        for index, (entry_start, _) in enumerate(element_spans(text, datasets_start)):
            positions = {}
            if text[entry_start] == "{":
                positions = {key: source.line_col(span[0]) for key, span in member_spans(text, entry_start).items()}
            entries.append(ManifestEntry(index, data["datasets"][index], *source.line_col(entry_start), positions))
    elif isinstance(data, dict) and "datasets" in data:
        datasets_position = source.line_col(member_spans(text, start)["datasets"][0])
    yield Manifest(ctx.rel, data, entries, datasets_position)

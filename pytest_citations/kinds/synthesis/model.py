"""synthesis: the Markdown synthesis of a research run, checked against the run's citations.

A file is claimed by path (by default ``**/synthesis.md``, ``**/synthesis/*.md`` and
``**/summaries/*.md``; set ``include`` under ``[tool.citations.kinds.synthesis]`` to change it) and
is a synthesis only when a folder above it holds ``citations/citations.jsonl``; otherwise it yields
nothing. Each URL or cid cited in its prose is one :class:`Cited` unit (see
:mod:`pytest_citations.kinds.url_citations.utilization` for how references are found and matched).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pytest_citations.core.suppressions import markdown_directives

if TYPE_CHECKING:
    from pytest_citations.kinds.url_citations.utilization import CitedRef, RunIndex, RunRecord


@dataclass(frozen=True)
class Cited:
    """One cited reference of a synthesis file, with its run and the record it matched."""

    ref: CitedRef
    run: RunIndex
    record: RunRecord | None

    @property
    def line(self) -> int:
        return self.ref.line


class Synthesis:
    name = "synthesis"
    description = "the synthesis Markdown of research runs that have citations/citations.jsonl"
    include = ("**/synthesis.md", "**/synthesis/*.md", "**/summaries/*.md")
    sniff_include = ()
    options: dict = {}

    def sniff(self, head: str) -> bool:
        return False

    def units(self, ctx) -> Iterator[Cited]:
        from pytest_citations.kinds.url_citations.utilization import cited_references, shared_run, url_profile

        run = shared_run(ctx.engine, ctx.rel)
        if run is None:
            return
        text = ctx.full_text()
        ctx.directives = markdown_directives(text)
        for ref in cited_references(text, url_profile(ctx.engine)):
            yield Cited(ref, run, run.lookup(ref))


KIND = Synthesis()

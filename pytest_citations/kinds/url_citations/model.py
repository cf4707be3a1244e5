"""url citations: ``citations.jsonl`` files of ``citation.v1`` records (citations-jsonl-v1.md).

The file is streamed line by line; each line that holds a JSON object becomes a
:class:`~pytest_citations.kinds.url_citations.record.Record` unit. A line that is not a JSON object
is reported under U101 and the other lines are still read. The rules import the unit from
``record.py``, never from here.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from pytest_citations.core import jsonlines
from pytest_citations.kinds import Reported
from pytest_citations.kinds.url_citations.parse_rules import invalid_json_line
from pytest_citations.kinds.url_citations.record import Record
from pytest_citations.kinds.url_citations.urls import PROFILES

# the run-wide index synthesis.cids (U104-U106 consult it), declared beside the code that reads it
# and held here, where pytest_citations.builtins finds a kind package's indexes
from pytest_citations.kinds.url_citations.utilization import cid_references as cid_references
from pytest_citations.rules import Option

SCHEMA_VERSION = "citation.v1"
_SCHEMA_VERSION_MARK = re.compile(r'"schema_version"\s*:\s*"citation\.v1"')
# At the spec's path a record that names a URL or a cid is a citation record, whatever else it
# lacks (which U102 reports); a citations.jsonl there of another tool's records (bibliometric
# citation pairs: citing, cited) holds none of these keys.
_CITATION_RECORD_MARK = re.compile(r'"(?:url|url_original|normalized_url|cid)"\s*:')
SPEC_FILE = ("citations", "citations.jsonl")


class UrlCitations:
    name = "url-citations"
    description = "citations.jsonl files of citation.v1 records"
    include = ("**/citations/citations.jsonl",)
    sniff_include = ("**/*.jsonl",)
    by_content_only = include  # at the spec's path too, a file holds citation records or is not one
    options = {
        "url-profile": Option(str, "spec", "URL normalization profile", choices=PROFILES),
    }

    def sniff(self, head: str) -> bool:
        return _SCHEMA_VERSION_MARK.search(head) is not None

    def sniff_file(self, rel: str, head: str) -> bool:
        """A ``*.jsonl`` whose head holds a ``citation.v1`` record, or a file at the spec's path
        (``<run>/citations/citations.jsonl``) that is empty or whose head holds a record naming a
        URL or a cid."""
        if self.sniff(head):
            return True
        at_spec_path = tuple(rel.split("/")[-2:]) == SPEC_FILE
        return at_spec_path and (not head.strip() or _CITATION_RECORD_MARK.search(head) is not None)

    def units(self, ctx) -> Iterator[Record | Reported]:
        return jsonlines.records(ctx, invalid_json_line, unit=Record)

    def web_citations(self, unit, ctx):
        """The URL a record cites, for the online rules (:mod:`pytest_citations.kinds.url_citations.web`)."""
        from pytest_citations.kinds.url_citations.web import web_citations

        return web_citations(unit) if isinstance(unit, Record) else ()


KIND = UrlCitations()

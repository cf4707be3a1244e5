"""Which citations of a research run its synthesis uses (citations-jsonl-v1.md: utilization).

A research run is a folder holding ``citations/citations.jsonl``. Its synthesis is every file the
``synthesis`` kind claims (by default ``synthesis.md``, ``synthesis/*.md`` and ``summaries/*.md``)
in the run folder itself or one folder below it (:func:`run_folder`). In the synthesis's prose
(code, HTML comments and images are skipped) every ``http(s)`` URL, every ``cid_<64 hex>`` and
every ``@cid_...`` key of a bracketed citation group (Pandoc's syntax: ``[@cid_a]``,
``[see @cid_a, p. 3; @cid_b]``) is a cited reference. A key names its cid as written, well formed or
not: research-run tools cite a record as ``[@cid]`` whatever its cid is (placeholders such as
``cid_alpha`` included), so a key is what the synthesis says it cites; a bare ``cid_...`` that is not 64 hex digits is only a word. A URL is
matched to a record when its normalized form (under the url-citations kind's ``url-profile``)
equals the record's ``normalized_url`` or the normalized form of its ``url`` or ``url_original``; a
cid is matched to the record's ``cid``. A reference that matches no record is a phantom citation
(U114).

A fix that rewrites a record's cid (U104-U106) asks :func:`citing_places` whether the run's
synthesis cites the old cid, from a run-wide index of every synthesis file's cid references.

This module computes; the U114-U116 rules (``rules/synthesis.py``) and ``citations report
utilization`` (``report_cli.py``) only present.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, cast

from pytest_citations.core import jsonlines, markdown_text, sources
from pytest_citations.kinds.url_citations.urls import NotAbsoluteURL, normalize_url
from pytest_citations.run import dependencies

CITATIONS_FILE = "citations/citations.jsonl"
DEFAULT_SYNTHESIS = ("synthesis.md", "synthesis/*.md", "summaries/*.md")
_URL = re.compile(r"https?://[^\s<>\"`\[\]{}|\\^]+", re.I)
_CID = re.compile(r"(?<![0-9A-Za-z_])cid_[0-9a-f]{64}(?![0-9A-Za-z_])")
# A bracketed group on one line, not the text of a Markdown link: a citation group in Pandoc's
# syntax (``[@a]``, ``[see @a, p. 3; -@b]``) when it holds an ``@`` key (found by
# :data:`_CID_KEY`: a pattern asking for ``@cid_`` inside the brackets would read a long group once
# per ``@cid_`` in it)
_CITATION_GROUP = re.compile(r"\[(?P<group>[^\[\]\n]*)\](?!\()")
# One ``@cid_...`` key of a group (``-@`` leaves the author out), of the characters such tools write;
# the ``@`` starts the group or follows a space or ``;`` (``ops@cid_x.example`` is an address)
_CID_KEY = re.compile(r"(?:(?<=[\s;])|^)-?@(?P<cid>cid_[A-Za-z0-9_:-]*[A-Za-z0-9_])")
# The source of an image (Markdown or HTML): shown, not cited.
_IMAGE_SOURCE = re.compile(r"!\[[^\]\n]*\]\(\s*<?(?P<md>[^\s)>]+)|<img\b[^<>]*?\ssrc\s*=\s*[\"']?(?P<html>[^\s\"'<>]+)", re.I)
_TRAILING = ".,;:!?*_'\""


@dataclass(frozen=True)
class RunRecord:
    """One record of a run's ``citations.jsonl`` (lines that are not objects are left out)."""

    line: int
    data: dict[str, Any]

    @property
    def cid(self) -> str | None:
        value = self.data.get("cid")
        return value if isinstance(value, str) else None

    @property
    def status(self) -> str | None:
        value = self.data.get("status")
        return value if isinstance(value, str) else None

    @property
    def url(self) -> str | None:
        for key in ("url", "normalized_url", "url_original"):
            if isinstance(self.data.get(key), str):
                return self.data[key]
        return None


@dataclass
class RunIndex:
    """The records of one run, looked up by normalized URL and by cid."""

    run: str  # repo-relative run folder ("." for the root)
    citations: str  # repo-relative path of its citations.jsonl
    records: list[RunRecord] = field(default_factory=list)
    by_url: dict[str, RunRecord] = field(default_factory=dict)
    by_cid: dict[str, RunRecord] = field(default_factory=dict)

    def lookup(self, ref: CitedRef) -> RunRecord | None:
        if ref.cid is not None:
            return self.by_cid.get(ref.cid)
        return self.by_url.get(ref.normalized) if ref.normalized is not None else None


@dataclass(frozen=True)
class CitedRef:
    """A URL or cid cited in a synthesis file, at a 1-based line and column."""

    line: int
    col: int
    text: str
    normalized: str | None = None  # for a URL: its normalized form (None when not absolute)
    cid: str | None = None  # for a cid mention

    @property
    def key(self) -> str:
        return self.cid or self.normalized or self.text


def _trim(url: str) -> str:
    """A URL found in prose without the punctuation that ends the sentence or closes a link."""
    while url:
        last = url[-1]
        if last in _TRAILING or (last == ")" and url.count(")") > url.count("(")):
            url = url[:-1]
        else:
            break
    return url


def cited_references(text: str, profile: str = "spec") -> list[CitedRef]:
    """Every URL and cid in the prose of a Markdown text, in source order."""
    visible = markdown_text.prose(text)
    found: list[CitedRef] = []
    for number, line in enumerate(visible.split("\n"), start=1):
        if "http" not in line.lower() and "cid_" not in line:
            continue
        # (each alternative of the pattern is one named group, so a match names the one it took)
        images = {found.start(cast(str, found.lastgroup)) for found in _IMAGE_SOURCE.finditer(line)}
        for match in _URL.finditer(line):
            if match.start() in images:
                continue
            url = _trim(match.group())
            if len(url) <= len("https://"):
                continue
            try:
                normalized = normalize_url(url, profile)
            except NotAbsoluteURL:
                normalized = None
            found.append(CitedRef(number, match.start() + 1, url, normalized=normalized))
        found.extend(_cid_references(number, line))
    found.sort(key=lambda ref: (ref.line, ref.col))
    return found


def cited_cids(text: str) -> list[CitedRef]:
    """Every cid cited in the prose of a Markdown text (as :func:`cited_references` finds them),
    without looking at its URLs."""
    visible = markdown_text.prose(text)
    return [
        ref
        for number, line in enumerate(visible.split("\n"), start=1)
        if "cid_" in line
        for ref in _cid_references(number, line)
    ]


def _cid_references(number: int, line: str) -> list[CitedRef]:
    """The cids line ``number`` cites: every ``@cid_...`` key of a bracketed citation group
    (``[@cid_a]``, ``[see @cid_a, p. 3; @cid_b]``), and bare when well formed (a well-formed cid
    inside a group is that group's, counted once)."""
    refs = {}
    for group in _CITATION_GROUP.finditer(line):
        if "@cid_" not in group.group("group"):
            continue
        start = group.start("group")
        for key in _CID_KEY.finditer(group.group("group")):
            refs[start + key.start("cid")] = key.group("cid")
    for match in _CID.finditer(line):
        refs.setdefault(match.start(), match.group())
    return [CitedRef(number, start + 1, cid, cid=cid) for start, cid in sorted(refs.items())]


def _normalized(value: Any, profile: str) -> str | None:
    if not isinstance(value, str):
        return None
    try:
        return normalize_url(value, profile)
    except NotAbsoluteURL:
        return None


def load_run(root: Path, run: str, max_size: int, profile: str = "spec") -> RunIndex:
    """The records of the run folder ``run`` (repo-relative); broken lines are skipped (the
    citations file reports them itself). Raises :class:`sources.SourceError` when unreadable."""
    citations = CITATIONS_FILE if run == "." else f"{run}/{CITATIONS_FILE}"
    index = RunIndex(run, citations)
    for line in sources.stream_lines(root, citations, max_size):
        if isinstance(line, sources.LongLine) or not line.text.strip():  # (the file reports a line over the cap)
            continue
        try:
            data = jsonlines.loads(line.text)
        except (ValueError, RecursionError):
            continue
        if not isinstance(data, dict):
            continue
        record = RunRecord(line.number, data)
        index.records.append(record)
        keys = {data.get("normalized_url") if isinstance(data.get("normalized_url"), str) else None}
        keys.add(_normalized(data.get("url"), profile))
        keys.add(_normalized(data.get("url_original"), profile))
        for key in keys - {None}:
            index.by_url.setdefault(cast(str, key), record)
        if record.cid is not None:
            index.by_cid.setdefault(record.cid, record)
    return index


RUN_DEPTH = 1  # how many folders above its own a synthesis file's run folder may be


def run_folder(root: Path, rel: str) -> str | None:
    """The folder of ``rel`` (repo-relative), or the one above it, whichever first holds
    ``citations/citations.jsonl``: a run's synthesis sits in the run (``synthesis.md``) or one
    folder down (``synthesis/*.md``, ``summaries/*.md``). A folder higher up is not its run: a
    repository with a ``citations/`` folder at its top does not make every ``docs/summaries/*.md``
    a synthesis."""
    folder = PurePosixPath(rel).parent
    for _ in range(RUN_DEPTH + 1):
        candidate = root / folder / CITATIONS_FILE
        dependencies.note_path(root, candidate)  # one that appears later changes the answer
        if candidate.is_file():
            try:
                sources.resolve_inside(root, candidate)
            except sources.SourceError:
                return None
            return folder.as_posix()
        if folder == PurePosixPath(".") or folder == folder.parent:
            return None
        folder = folder.parent
    return None


def shared_run(engine, rel: str) -> RunIndex | None:
    """The run index of the synthesis file ``rel``, read once per engine run; None when ``rel``
    belongs to no run or its citations file cannot be read."""
    root = engine.config.root
    parent = PurePosixPath(rel).parent.as_posix()
    run = engine.memo(("synthesis.folder", parent), lambda: run_folder(root, rel))
    if run is None:
        return None

    def load():
        try:
            return load_run(root, run, engine.config.max_file_size, url_profile(engine))
        except sources.SourceError:
            return None

    return engine.memo(("synthesis.run", run), load)


def url_profile(engine) -> str:
    kinds = engine.config.kinds
    return kinds["url-citations"].options.get("url-profile", "spec") if "url-citations" in kinds else "spec"


def run_of_citations(rel: str) -> str | None:
    """The run folder whose records ``rel`` holds (``<run>/citations/citations.jsonl``), else None:
    the synthesis looks its cids up in that file only."""
    path = PurePosixPath(rel)
    if f"{path.parent.name}/{path.name}" != CITATIONS_FILE:
        return None
    return path.parent.parent.as_posix()


# -- which synthesis files cite which cids (for the fixes that would rewrite a cid) -------------------


def synthesis_files(engine) -> list[str]:
    """Every file the synthesis kind claims under the repository root, in the order of a walk."""
    return [rel for rel, kinds in engine.discover([engine.config.root]) if any(kind.name == "synthesis" for kind in kinds)]


def cids_of_text(rel: str, text: str) -> list[list]:
    """[cid, line, col] of every cid a synthesis file holding ``text`` cites."""
    return [[ref.cid, ref.line, ref.col] for ref in cited_cids(text.removeprefix(sources.BOM))]


def _cids_share(engine, rel: str) -> list[list] | None:
    """:func:`cids_of_text` of the file ``rel``, cached with its hash; None if it cannot be read."""

    def compute():
        try:
            text = sources.read_source(engine.config.root, rel, engine.config.max_file_size).text
        except sources.SourceError:
            return None  # the synthesis reports its own unreadable file
        return cids_of_text(rel, text)

    return engine.file_memo("synthesis.cids", rel, compute)


# Built from the files the synthesis kind claims (so a change to one selects, under --since, the
# checks that consulted it); the url-citations rules U104-U106 consult it.
@dependencies.run_index_of_shares("synthesis.cids", kind="synthesis", files=synthesis_files, share=_cids_share,
                                  share_of_text=cids_of_text)
def cid_references(engine, shares: dict[str, list[list] | None]) -> dict[str, list[list]]:
    """{synthesis file: [cid, line, col] of each cid it cites}, for the files that cite one."""
    return {rel: refs for rel, refs in shares.items() if refs}


def citing_places(engine, citations_rel: str, cid: str) -> list[tuple[str, int, int]]:
    """(file, line, col) of every reference to ``cid`` in the synthesis of the run whose records
    ``citations_rel`` holds, in the order of a walk; empty when it is no run's citations file."""
    run = run_of_citations(citations_rel)
    if run is None:
        return []
    root = engine.config.root
    return [
        (rel, line, col)
        for rel, refs in cid_references(engine).items()
        if any(ref[0] == cid for ref in refs) and run_folder(root, rel) == run
        for cited, line, col in refs
        if cited == cid
    ]

"""The run-wide indexes of the retrieval corpus: every corpus record's ``doc_id``
(:func:`corpus_index`, for resolution and duplicates) and where paragraph anchors break their
container's sequence (:func:`anchor_index`), each read once per run (see `dependencies`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pytest_citations.core import jsonlines, sources
from pytest_citations.kinds.ear_ids.ids import normalize_ear_doc_id
from pytest_citations.kinds.ear_ids.recognition import file_format
from pytest_citations.kinds.ear_ids.records import CORPUS_SCHEMA
from pytest_citations.run import dependencies

KIND_NAME = "ear-ids"  # the kind's name (its model imports the indexes from here, so this cannot import it)


@dataclass
class CorpusIndex:
    by_doc_id: dict[str, list[tuple[str, int]]] = field(default_factory=dict)  # doc_id -> (rel, line)
    records: set[tuple[str, int]] = field(default_factory=set, repr=False)  # every (rel, line) above

    @property
    def empty(self) -> bool:
        return not self.by_doc_id


def corpus_files(engine) -> list[str]:
    """Every JSONL file of this kind under the repository root (those that may hold corpus records)."""
    return [
        rel for rel, kinds in engine.discover([engine.config.root])
        if any(getattr(kind, "name", None) == KIND_NAME for kind in kinds) and file_format(rel) == "jsonl"
    ]


@dependencies.run_index("ear-ids.corpus", kind="ear-ids", sources=corpus_files)
def corpus_index(engine) -> CorpusIndex:
    """Every ``retrieval-corpus.v1`` record's ``doc_id`` in the repository."""
    index = CorpusIndex()
    for rel in corpus_files(engine):
        for doc_id, line in engine.file_memo("ear-ids.corpus", rel, lambda rel=rel: _corpus_doc_ids(engine, rel)):
            index.by_doc_id.setdefault(doc_id, []).append((rel, line))
            index.records.add((rel, line))
    return index


class AnchorSequence:
    """The paragraph anchors of each container seen so far, in corpus order (spec §3): within a
    container, ``#p0001``, ``#p0002``, ... with no gap, no repeat and no step back. Memory grows
    with the anchors seen, one entry each."""

    def __init__(self) -> None:
        self.seen: dict[str, dict[int, tuple[str, int]]] = {}  # base id -> anchor number -> where first
        self.highest: dict[str, int] = {}  # base id -> the largest anchor number seen

    def add(self, base: str, number: int, where: tuple[str, int]) -> tuple[str, Any] | None:
        """Note the anchor ``#p<number>`` of ``base`` at ``where`` (file, line); what it breaks:
        ``("repeat", where it first appeared)``, ``("gap", the anchor before it)`` or None."""
        seen = self.seen.setdefault(base, {})
        last = self.highest.get(base, 0)
        problem = ("repeat", seen[number]) if number in seen else (("gap", last) if number != last + 1 else None)
        seen.setdefault(number, where)
        self.highest[base] = max(last, number)
        return problem


@dataclass
class AnchorIndex:
    """Where the corpus's paragraph anchors break their container's sequence: (file, line) ->
    what :meth:`AnchorSequence.add` said there; and the corpus files it was built from, in order."""

    problems: dict[tuple[str, int], tuple[str, Any]]
    files: tuple[str, ...]
    _members: frozenset[str] = field(init=False, repr=False, compare=False)  # (a value's digest is of its repr)

    def __post_init__(self) -> None:
        self._members = frozenset(self.files)

    def covers(self, rel: str) -> bool:
        """Whether the file ``rel`` is one of the corpus files the index was built from."""
        return rel in self._members


def anchored(doc_id: Any) -> tuple[str, int] | None:
    """(base id, anchor number) of an anchored corpus ``doc_id`` in any spelling, else None."""
    normalized = normalize_ear_doc_id(doc_id)
    if normalized is None or "#" not in normalized:
        return None
    base, anchor = normalized.split("#", 1)
    return base, int(anchor[1:])


@dependencies.run_index("ear-ids.anchors", kind="ear-ids", sources=corpus_files)
def anchor_index(engine) -> AnchorIndex:
    """The anchor sequences of every corpus record in the repository, as one corpus: a container's
    paragraphs may continue from one shard to the next (``corpus-00000-of-00002.jsonl``, then
    ``corpus-00001-of-00002.jsonl``), so the files are taken in the order of their paths, each in
    line order. One pass over the records (read with :func:`corpus_index`'s shares)."""
    sequence = AnchorSequence()
    problems: dict[tuple[str, int], tuple[str, Any]] = {}
    files = sorted(corpus_files(engine))
    for rel in files:
        for doc_id, line in engine.file_memo("ear-ids.corpus", rel, lambda rel=rel: _corpus_doc_ids(engine, rel)):
            found = anchored(doc_id)
            if found is not None and (problem := sequence.add(*found, (rel, line))) is not None:
                problems[(rel, line)] = problem
    return AnchorIndex(problems, tuple(files))


def _corpus_doc_ids(engine, rel: str) -> list[list]:
    """[doc_id, line] of every corpus record in one file (none when it cannot be read: the file
    reports its own diagnostic)."""
    found = []
    try:
        for line in sources.stream_lines(engine.config.root, rel, engine.config.max_file_size):
            if isinstance(line, sources.LongLine) or CORPUS_SCHEMA not in line.text:  # (the file reports a long line)
                continue
            try:
                data = jsonlines.loads(line.text)
            except (ValueError, RecursionError):
                continue
            if isinstance(data, dict) and data.get("schema_version") == CORPUS_SCHEMA and isinstance(data.get("doc_id"), str):
                found.append([data["doc_id"], line.number])
    except sources.SourceError:
        return []
    return found

"""EAR ids: eval datasets, dataset manifests, retrieval corpus and KG IRIs (ear-identifier-policy.md).

One kind, ``ear-ids``, reads four shapes of file and yields one unit type for each:

- JSON Lines: each line that holds a JSON object is a :class:`CorpusRecord` when its
  ``schema_version`` is ``retrieval-corpus.v1`` and a :class:`DatasetRecord` otherwise (an eval
  item, or a RAG output). A JSON Lines file is claimed by content when its first 64 KiB hold a
  corpus record, an ``ear_sections`` key, or a RAG output whose ``citations[].section_id`` is an
  EAR section's by what it says (:mod:`~pytest_citations.kinds.ear_ids.regulation`).
- ``manifest.json``: a dataset manifest, one :class:`Manifest` unit, claimed when its datasets
  list an entry with ``id``, ``file`` and ``num_items``.
- ``*.ttl``, ``*.nt`` (Turtle, N-Triples) and ``*.jsonld`` (JSON-LD): every IRI under the section
  base becomes a :class:`KgIri` unit. KG files are scanned, not parsed (see
  :func:`~pytest_citations.kinds.ear_ids.kg.scan_turtle`).

Only the fields the spec names are read as section ids: ``ear_sections[]``,
``expected.citations[]`` and RAG outputs' ``citations[].section_id`` (not in a citation that names
another regulation), plus the ``extra-paths`` option, and in corpus records ``doc_id``,
``section_id`` and ``parent_id``. Everything else
(``evidence.doc_spans[].doc_id`` holds part-level ids such as ``EAR-736``) is left alone.

Resolution (a cited id names exactly one corpus record) and the anchor sequences (a container's
paragraphs may span corpus shards) need every corpus record of the repository: :func:`corpus_index`
and :func:`anchor_index` read them once per run (run-wide indexes, see `dependencies`).

Each part has its module: ``recognition.py`` (which files the kind claims, and their shape),
``regulation.py`` (whether a RAG citation cites the EAR or another regulation),
``records.py``, ``manifest.py`` and ``kg.py`` (the reader and the units of each shape),
``json_text.py`` (where values sit in JSON text), ``corpus.py`` (the run-wide indexes); this one
holds the kind.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

# the run-wide indexes of the corpus, declared beside the code that reads them and held here, where
# pytest_citations.builtins finds a kind package's indexes
from pytest_citations.kinds.ear_ids.corpus import anchor_index as anchor_index
from pytest_citations.kinds.ear_ids.corpus import corpus_index as corpus_index
from pytest_citations.kinds.ear_ids.ids import DEFAULT_IRI_BASE
from pytest_citations.kinds.ear_ids.kg import read_kg
from pytest_citations.kinds.ear_ids.manifest import read_manifest
from pytest_citations.kinds.ear_ids.recognition import (
    _CORPUS_MARK,
    _DATASET_MARK,
    _KG_MARK,
    cites_ear_sections,
    file_format,
    is_dataset_manifest,
)
from pytest_citations.kinds.ear_ids.records import read_records
from pytest_citations.rules import Option


class EarIds:
    name = "ear-ids"
    description = "EAR section ids in eval datasets, manifests, retrieval corpus records and KG IRIs"
    include = ()
    sniff_include = ("**/*.jsonl", "**/manifest.json", "**/*.ttl", "**/*.nt", "**/*.jsonld")
    options = {
        "extra-paths": Option(
            list, [], "more JSON paths in dataset records that hold section ids (e.g. rag.citations[].section_id)",
            items=str,
        ),
        "iri-base": Option(str, DEFAULT_IRI_BASE, "the namespace of KG section IRIs"),
        "manifest-paths": Option(
            str, "root", "what a manifest's dataset paths are relative to", choices=("root", "manifest")
        ),
    }

    def sniff(self, head: str) -> bool:
        return (any(mark.search(head) for mark in (_CORPUS_MARK, _DATASET_MARK, _KG_MARK))
                or cites_ear_sections(head) or is_dataset_manifest(head))

    def units(self, ctx) -> Iterator[Any]:
        shape = file_format(ctx.rel)
        if shape == "manifest":
            yield from read_manifest(ctx)
        elif shape == "jsonl":
            yield from read_records(ctx)
        else:
            yield from read_kg(ctx, shape)


KIND = EarIds()

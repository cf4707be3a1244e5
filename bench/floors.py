"""The floors: the least any checker must do with a corpus's files, with the same parsers.

    python bench/floors.py SCENARIO CORPUS_JSON

Each floor reads the files the corpus lists (``Corpus.floor`` in ``corpus.json``), parses them
with the parser the checker uses, and does nothing else; it prints one JSON line with what it
did, which the harness checks, so a floor cannot skip work either.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path


def url_citations(root: Path, files: dict) -> dict:
    """``json.loads`` of every line, SHA-256 of its ``normalized_url``."""
    count = 0
    for name in files["jsonl"]:
        with (root / name).open("rb") as stream:
            for line in stream:
                record = json.loads(line)
                hashlib.sha256(record["normalized_url"].encode()).hexdigest()
                count += 1
    return {"records": count}


def briefs(root: Path, files: dict) -> dict:
    """markdown-it-py's ``MarkdownIt().parse`` of every brief."""
    from markdown_it import MarkdownIt

    parser = MarkdownIt()
    tokens = 0
    for name in files["markdown"]:
        tokens += len(parser.parse((root / name).read_text(encoding="utf-8")))
    return {"briefs": len(files["markdown"]), "tokens": tokens}


def front_matter(text: str) -> str:
    """The YAML between the opening ``---`` line and the next ``---`` line ('' when there is none)."""
    if not text.startswith("---\n"):
        return ""
    end = text.find("\n---\n", 3)
    return text[4:end + 1] if end >= 0 else ""


def memories(root: Path, files: dict) -> dict:
    """Front matter loaded by ruamel.yaml's safe loader (the C one when ruamel.yaml.clib is
    installed), then each cited file read once."""
    from ruamel.yaml import YAML

    yaml = YAML(typ="safe")
    cited = set()
    for name in files["memories"]:
        data = yaml.load(front_matter((root / name).read_text(encoding="utf-8"))) or {}
        cited.update(c["path"] for c in data.get("citations") or ())
    for path in cited:
        (root / path).read_text(encoding="utf-8")
    return {"memories": len(files["memories"]), "cited_files": len(cited), "yaml_parser": yaml.Parser.__name__}


def _json_records(root: Path, files: dict) -> int:
    """``json.loads`` of every JSONL line and of every whole JSON document."""
    count = 0
    for name in files.get("jsonl", ()):
        with (root / name).open("rb") as stream:
            for line in stream:
                if line.strip():
                    json.loads(line)
                    count += 1
    for name in files.get("json", ()):
        json.loads((root / name).read_bytes())
        count += 1
    return count


def code_tuples(root: Path, files: dict) -> dict:
    """Every record loaded, and each cited file read once (raw bytes: what the content hash covers)."""
    records = _json_records(root, files)
    for path in files["cited"]:
        (root / path).read_bytes()
    return {"records": records, "cited_files": len(files["cited"])}


def ear(root: Path, files: dict) -> dict:
    """Every dataset, corpus and manifest record loaded."""
    return {"records": _json_records(root, files)}


FLOORS = {"url-citations": url_citations, "briefs": briefs, "memories": memories, "code-tuples": code_tuples,
          "ear": ear}


def main() -> None:
    scenario, corpus_json = sys.argv[1:3]
    corpus = json.loads(Path(corpus_json).read_text())
    print(json.dumps(FLOORS[scenario](Path(corpus["root"]), corpus["floor"])))


if __name__ == "__main__":
    main()

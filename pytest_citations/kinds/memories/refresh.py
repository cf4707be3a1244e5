"""``--fix --refresh-verified`` for memories, past the moved lines: record what verification established.

Only on request: the stamps hold the time of the run, so a plain ``--fix`` (which calls no kind's
refresh, see :mod:`pytest_citations.run.fix`) never writes them. After the text fixes, each citation
that verifies and has no ``verified`` stamp (or whose ``line`` this fix moved) gets
``verified: <now>``; the memory's ``confidence`` is set to valid / total; and ``last_verified`` is
stamped when either changed. Nothing changes when nothing needs to, so a second run writes nothing.
The front matter is rewritten through a ruamel.yaml round trip (comments, key order and quoting
kept; the Markdown body untouched), and only when a round trip of the unchanged front matter
reproduces it byte for byte: otherwise the memory is left as it is.
"""

from __future__ import annotations

import datetime
import io

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError
from ruamel.yaml.util import load_yaml_guess_indent

from pytest_citations.kinds.memories.model import engine_locator, engine_reader, read_memory, verify_citation

_STAMP = "pytest-citations-stamp-7f3a9c"  # written quoted, then replaced by the plain timestamp


def utc_now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _round_trip(text: str):
    """(yaml, data) for ``text`` if dumping the unchanged data gives ``text`` back, else None."""
    try:
        _, indent, block_seq_indent = load_yaml_guess_indent(text)
        yaml = YAML()
        yaml.preserve_quotes = True
        yaml.width = 1 << 16
        yaml.indent(mapping=2, sequence=indent or 2, offset=block_seq_indent or 0)
        data = yaml.load(text)
    except YAMLError:
        return None
    if not isinstance(data, dict) or _dump(yaml, data) != text:
        return None
    return yaml, data


def _dump(yaml: YAML, data) -> str:
    stream = io.StringIO()
    yaml.dump(data, stream)
    return stream.getvalue()


def refresh(engine, rel: str, original_text: str, text: str) -> str | None:
    """The memory's text with its verification recorded, or None when nothing changes."""
    memory = read_memory(rel, text)
    front = memory.front_matter
    if front is None or front.root is None or front.problems or not memory.citations:
        return None
    if not all(citation.checkable for citation in memory.citations):
        return None
    before = {c.index: c.line for c in read_memory(rel, original_text).citations}
    read, locate = engine_reader(engine), engine_locator(engine)
    verdicts = [verify_citation(engine.config.root, citation, read, locate) for citation in memory.citations]
    to_stamp = [
        citation.index
        for citation, verdict in zip(memory.citations, verdicts, strict=True)
        if verdict.valid and (citation.verified is None or before.get(citation.index) != citation.line)
    ]
    confidence = round(sum(v.valid for v in verdicts) / len(verdicts), 2)
    stored = memory.confidence
    confidence_changes = not isinstance(stored, (int, float)) or isinstance(stored, bool) or abs(stored - confidence) > 1e-9
    if not to_stamp and not confidence_changes:
        return None
    yaml_text = text[front.start : front.end]
    newline = "\r\n" if "\r\n" in yaml_text else "\n"
    unix_text = yaml_text.replace("\r\n", "\n")
    if unix_text.replace("\n", newline) != yaml_text:  # mixed line ends: a rewrite could not keep them
        return None
    loaded = _round_trip(unix_text)
    if loaded is None:
        return None
    yaml, data = loaded
    for index in to_stamp:
        data["citations"][index]["verified"] = _STAMP
    if confidence_changes:
        data["confidence"] = confidence
    data["last_verified"] = _STAMP
    stamp = utc_now()
    stamped = _dump(yaml, data).replace(f"'{_STAMP}'", stamp).replace(_STAMP, stamp)
    return text[: front.start] + stamped.replace("\n", newline) + text[front.end :]

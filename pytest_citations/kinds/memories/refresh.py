"""``--fix --refresh-verified`` for memories, past the moved lines: write what verification
established into the memory's front matter.

Only on request: the stamps hold the time of the run, so a plain ``--fix`` (which calls no kind's
refresh, see :mod:`pytest_citations.run.fix`) never writes them. What to write is decided beside the
verification itself (:func:`pytest_citations.kinds.memories.verification.verification_stamps`): each
citation that verifies and has no ``verified`` stamp (or whose ``line`` this fix moved) gets
``verified: <now>``; the memory's ``confidence`` is set to valid / total; and ``last_verified`` is
stamped when either changed. Nothing changes when nothing needs to, so a second run writes nothing.
This module writes the stamps: the front matter is rewritten through a ruamel.yaml round trip
(comments, key order and quoting kept; the Markdown body untouched), and only when a round trip of
the unchanged front matter reproduces it byte for byte: otherwise the memory is left as it is.
"""

from __future__ import annotations

import datetime
import io

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError
from ruamel.yaml.util import load_yaml_guess_indent

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


def stamp_front_matter(
    text: str, start: int, end: int, citations: tuple[int, ...], confidence: float | None
) -> str | None:
    """``text`` with ``verified: <now>`` on the citations at indexes ``citations``, ``confidence``
    set (unless None) and ``last_verified: <now>``, in the front matter ``text[start:end]``; None
    when that front matter cannot be rewritten as it is written (mixed line ends, a round trip that
    changes it)."""
    yaml_text = text[start:end]
    newline = "\r\n" if "\r\n" in yaml_text else "\n"
    unix_text = yaml_text.replace("\r\n", "\n")
    if unix_text.replace("\n", newline) != yaml_text:  # mixed line ends: a rewrite could not keep them
        return None
    loaded = _round_trip(unix_text)
    if loaded is None:
        return None
    yaml, data = loaded
    for index in citations:
        data["citations"][index]["verified"] = _STAMP
    if confidence is not None:
        data["confidence"] = confidence
    data["last_verified"] = _STAMP
    stamp = utc_now()
    stamped = _dump(yaml, data).replace(f"'{_STAMP}'", stamp).replace(_STAMP, stamp)
    return text[:start] + stamped.replace("\n", newline) + text[end:]

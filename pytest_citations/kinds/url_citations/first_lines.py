"""U113's index of the line on which each cid of a file first appeared (its check and its
predicate keep it), small however many cids the file holds."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pytest_citations.kinds.url_citations.fields import _digest

if TYPE_CHECKING:
    from pytest_citations.contexts import RuleContext


class FirstLines:
    """The line on which each cid of a file first appeared.

    A dict of a million cid strings and their line numbers takes about 200 MB. Once a file has
    shown more than ``small`` cids, each well-formed one is kept in about 40 bytes instead: its
    32-byte digest and an 8-byte line number, appended to one of ``2**bits`` byte arrays chosen by
    the digest's hash (so that no file can pile its cids into one). Other cids stay in the dict.
    """

    _ENTRY = 40  # digest, then the line number (8 bytes, little-endian)

    def __init__(self, bits: int = 16, small: int = 4096) -> None:
        self._bits, self._mask, self._small = bits, (1 << bits) - 1, small
        self._lines: dict[str, int] = {}  # every cid while the file is small, then the malformed ones
        self._buckets: list[bytearray] | None = None

    def first(self, cid: str, digest: bytes | None, line: int) -> int:
        """The line ``cid`` (whose digest is ``digest``, None if it is not well formed) first
        appeared on: ``line`` itself when it is new, and now recorded."""
        if digest is None or self._buckets is None:
            first = self._lines.setdefault(cid, line)
            if self._buckets is None and len(self._lines) > self._small:
                self._compact()
            return first
        bucket = self._buckets[hash(digest) & self._mask]
        at = bucket.find(digest)
        while at != -1:
            if at % self._ENTRY == 0:
                return int.from_bytes(bucket[at + 32 : at + self._ENTRY], "little")
            at = bucket.find(digest, at + 1)  # a match across two entries
        bucket += digest + line.to_bytes(8, "little")
        return line

    def _compact(self) -> None:
        """Move the well-formed cids out of the dict into the byte arrays."""
        self._buckets = [bytearray() for _ in range(1 << self._bits)]
        lines, self._lines = self._lines, {}
        for cid, line in lines.items():
            digest = _digest(cid)
            if digest is None:
                self._lines[cid] = line
            else:
                self._buckets[hash(digest) & self._mask] += digest + line.to_bytes(8, "little")


def _first_lines(ctx: RuleContext) -> FirstLines:
    """U113's index of the line each cid of the file first appeared on."""
    first_seen = ctx.state.get("cids")
    if first_seen is None:
        first_seen = ctx.state["cids"] = FirstLines()
    return first_seen

"""Types of compiled patterns, for the type checker only (nothing imports this module at run time).

A scanner steps over a run of characters with a pattern such as ``[^"\\\\]*``, which matches at any
position (an empty run at worst), and calls ``.end()`` on its match without a test for None; the
type checker cannot see that, so such a pattern is declared :class:`AlwaysMatches` where it is
compiled (``cast("AlwaysMatches", re.compile(...))``), at no cost when the scanner runs.
"""

from __future__ import annotations

import re
from typing import Protocol


class AlwaysMatches(Protocol):
    """A compiled pattern that matches at every position of every text."""

    def match(self, string: str, pos: int = 0) -> re.Match[str]: ...

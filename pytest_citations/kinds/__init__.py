"""Artifact kinds: what files a kind claims and how it turns one into units for the rules.

A kind is an object that satisfies :class:`Kind`. Built-in kinds are one package each in this
package (its parser and model, its rules, its helpers and its command line);
:mod:`pytest_citations.builtins` finds them. Another package adds a kind through the
``citations_kinds`` hook (``docs/plugins.md``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from pytest_citations.rules import Reported as Reported  # where a kind finds it (the plugin API)

if TYPE_CHECKING:
    from pytest_citations.contexts import FileContext
    from pytest_citations.rules import Option


@runtime_checkable
class Kind(Protocol):
    """The contract of a kind with the engine.

    Besides these members, a kind may have:

    - ``by_content_only``: globs of files that ``include`` would claim by path but that are
      claimed only when ``sniff(head)`` says so (an agent's ``CLAUDE.md`` in a memories folder);
    - ``sniff_file(rel, head) -> bool``, asked instead of ``sniff(head)`` by a kind that weighs a
      file's content by where it is (less evidence at the spec's own path than anywhere else);
    - ``sniff_long(head, text) -> bool``, asked when the sniff says no, by a kind whose format may
      show only past the head (a brief whose claim sections start past it): ``text`` gives the
      whole file's text in pieces that end at a line's end, read only as far as the kind reads
      them and never past ``max-file-size``;
    - ``web_citations(unit, ctx) -> Iterable[WebCitation]``: the URLs a unit cites, which the
      online rules check in an online run (:mod:`pytest_citations.online.web_citation`).

    A fast path over a kind's units belongs to its rules, not to the kind: each rule may declare
    the cheap test of a unit its check finds nothing in (``passes=`` of
    :func:`pytest_citations.rules.rule`).

    The engine only reads the four data members, so a kind may hold them as plain class attributes
    of narrower types (``include = ("**/*.md",)``, ``options: dict = {}``).
    """

    @property
    def name(self) -> str:
        """Kebab-case: the key of the kind's ``[tool.citations.kinds.NAME]`` table."""
        ...

    @property
    def include(self) -> tuple[str, ...]:
        """Default globs (root-relative) that claim a file by its path."""
        ...

    @property
    def sniff_include(self) -> tuple[str, ...]:
        """Globs whose files are claimed only when ``sniff(head)`` says so."""
        ...

    @property
    def options(self) -> Mapping[str, Option]:
        """Kind-level settings."""
        ...

    def sniff(self, head: str) -> bool:
        """Whether ``head`` (the first 64 KiB of a file, as text) is this kind's format."""
        ...

    def units(self, ctx: FileContext) -> Iterable[Any | Reported]:
        """Parse the file behind ``ctx`` and yield units for the record-scope rules, or
        :class:`Reported` findings for parse problems (which name the rule that reports them). A unit
        carries a 1-based ``line``, where a rule that crashes on it is reported (C006). A kind that
        reads Markdown sets ``ctx.directives`` from
        :func:`pytest_citations.core.suppressions.markdown_directives`."""
        ...

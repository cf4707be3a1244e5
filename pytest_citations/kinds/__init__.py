"""Artifact kinds: what files a kind claims and how it turns one into units for the rules.

A kind is an object with:

- ``name``: kebab-case, the key of its ``[tool.citations.kinds.NAME]`` table;
- ``include``: default globs (repo-relative) that claim a file by its path;
- ``sniff_include``: globs whose files are claimed only when ``sniff(head)`` says so, where
  ``head`` is the first 64 KiB of the file as text;
- optionally ``by_content_only``: globs of files that ``include`` would claim by path but that are
  claimed only when ``sniff(head)`` says so (an agent's ``CLAUDE.md`` in a memories folder);
- optionally ``sniff_file(rel, head)``, asked instead of ``sniff(head)`` by a kind that weighs a
  file's content by where it is (less evidence at the spec's own path than anywhere else);
- ``options``: kind-level settings (``dict[str, rules.Option]``);
- ``units(ctx)``: parse the file behind ``ctx`` and yield units for the record-scope rules, or
  :class:`Reported` findings for parse problems (which name the rule that reports them). A unit
  carries a 1-based ``line``, where a rule that crashes on it is reported (C006). A kind that reads
  Markdown sets ``ctx.directives`` from :func:`pytest_citations.core.suppressions.markdown_directives`.
- optionally ``quick_pass(unit, contexts)``: true when none of the running rules (``contexts``:
  code -> rule context) reports anything on ``unit``, so the engine skips calling them one by one;
  false or an exception, and they run one by one (see ``url_citations``).

Built-in kinds are one package each in this package (its parser and model, its rules, its helpers
and its command line); :mod:`pytest_citations.builtins` finds them.
"""

from __future__ import annotations

from dataclasses import dataclass

from pytest_citations.rules import Finding


@dataclass(frozen=True)
class Reported:
    """A finding a kind's parser reports under one of its rules' codes."""

    code: str
    finding: Finding

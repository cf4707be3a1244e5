'''Rules on a memory's front matter (M2xx): YAML that parses safely (M201-M204, reported by the
kind's reader), fields of the types the schema names (M205, checked by :mod:`schema`), and no
citation field the spec does not define (M216). The citations checked against the repository are
in :mod:`citation_rules`; links, ids and ``supersedes`` cycles in :mod:`graph_rules`.'''

from __future__ import annotations

from typing import TYPE_CHECKING

from pytest_citations.core.diagnostics import Severity, quoted
from pytest_citations.kinds.memories.memory import CITATION_FIELDS, CITATION_KEYS, Memory
from pytest_citations.kinds.memories.schema import _schema_findings
from pytest_citations.rules import Finding, rule

if TYPE_CHECKING:
    from pytest_citations.contexts import RuleContext

KIND = "memories"


@rule("M205", "memory-schema", kind=KIND)
def memory_schema(memory: Memory, ctx: RuleContext):
    """
    ## What it does
    Checks the front matter against the memory schema: `id` and `subject` strings; `citations` a
    list of mappings with a non-empty `path`, an integer `line` (not `"2"`, not `true`), a string
    `snippet` and an ISO 8601 `verified`; `links` a list of single-key mappings; `tags` a list of
    strings; `confidence` a number from 0.0 to 1.0; `last_verified` an ISO 8601 date-time. Each
    message names the field and its line.

    ## Why is this bad?
    A citation with `line: "2"` cannot be verified, and tools that expect an integer crash on it or
    compare it wrongly; a confidence of 7 is meaningless.

    ## Example

    Bad:

    ```markdown title=".serena/memories/auth.md"
    ---
    citations:
      - path: src/app.py
        line: "1"
    confidence: 7
    ---
    ```

    ```python title="src/app.py"
    def login(): ...
    ```

    Good:

    ```markdown title=".serena/memories/auth.md"
    ---
    citations:
      - path: src/app.py
        line: 1
    confidence: 0.7
    ---
    ```

    ```python title="src/app.py"
    def login(): ...
    ```

    ## Fix
    Give each field the type the schema names.
    """
    if memory.front_matter is None or memory.front_matter.root is None:
        return
    yield from _schema_findings(memory.front_matter.root)


# Names other tools and habits give the spec's citation fields, for the fields difflib cannot
# match by spelling (``file`` is closer to ``line`` than to ``path``).
_FIELD_ALIASES = {"file": "path", "filename": "path", "file_path": "path", "filepath": "path", "lineno": "line",
                  "line_number": "line", "text": "snippet", "quote": "snippet", "verified_at": "verified"}
_SUGGESTED_UP_TO = 64  # characters of a field name that a suggestion is looked for; a longer name is no typo


def _closest_field(name: str) -> str | None:
    """The spec's citation field that ``name`` most likely means: its usual alias, or the field
    spelled closest to it (``lines`` for ``line``); None when none is close."""
    if len(name) > _SUGGESTED_UP_TO:
        return None
    lowered = name.lower()
    if lowered in _FIELD_ALIASES:
        return _FIELD_ALIASES[lowered]
    import difflib  # only for a field to warn about: a check imports it no other time

    close = difflib.get_close_matches(lowered, CITATION_KEYS, n=1, cutoff=0.75)
    return close[0] if close else None


@rule("M216", "unknown-citation-field", kind=KIND, severity=Severity.WARNING)
def unknown_citation_field(memory: Memory, ctx: RuleContext):
    """
    ## What it does
    Warns about a field of a citation that is not one of the spec's four, `path`, `line`,
    `snippet` and `verified`, and names the one it most likely means (`lines` is `line`, `file`
    is `path`). The field is ignored, as the spec's reader ignores it.

    ## Why is this bad?
    A typo silently changes what is verified: with `lines: 3` the citation has no line, so it is a
    path-only citation that holds as long as the file exists, whatever line 3 now says.

    ## Example

    Bad:

    ```markdown title=".serena/memories/auth.md"
    ---
    citations:
      - path: src/app.py
        lines: 1
        snippet: "def login"
    ---
    ```

    ```python title="src/app.py"
    def login(): ...
    ```

    Good:

    ```markdown title=".serena/memories/auth.md"
    ---
    citations:
      - path: src/app.py
        line: 1
        snippet: "def login"
    ---
    ```

    ```python title="src/app.py"
    def login(): ...
    ```

    ## Fix
    Rename the field to the one the warning names, or remove it.
    """
    known = ", ".join(CITATION_KEYS)
    for citation in memory.citations:
        for name, key in citation.node.key_nodes.items():
            if name in CITATION_FIELDS:
                continue
            closest = _closest_field(name)
            hint = f"did you mean {quoted(closest)}? " if closest else ""
            where = f"citations[{citation.index}]"
            message = f"unknown citation field {quoted(name)} in {where} ({hint}known: {known}); the field is ignored"
            yield Finding(message, key.line, key.col)

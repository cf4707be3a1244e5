"""A third-party plugin, as another package would write it: one Markdown kind and two rules.

``notes`` files (``*.notes.md``) may not hold ``TODO-CITE`` (X901). X902 is deliberately broken:
it raises on a line that says ``CRASH``, so the tests can prove a bad rule is contained.
"""

from dataclasses import dataclass

from pytest_citations.core.suppressions import markdown_directives
from pytest_citations.hookspecs import hookimpl
from pytest_citations.rules import Finding, rule


@dataclass(frozen=True)
class NoteLine:
    line: int
    text: str


class NotesKind:
    name = "notes"
    description = "Markdown research notes"
    include = ("**/*.notes.md",)
    sniff_include = ()
    options = {}

    def sniff(self, head):
        return False

    def units(self, ctx):
        ctx.directives = markdown_directives(ctx.full_text())
        for line in ctx.lines():
            yield NoteLine(line.number, line.text)


@rule("X901", "uncited-todo", kind="notes")
def uncited_todo(line, ctx):
    """
    ## What it does
    Reports a `TODO-CITE` marker left in research notes.

    ## Why is this bad?
    It marks a claim that still has no source.

    ## Example

    Bad:

    ```markdown title="a.notes.md"
    Batteries got cheaper. TODO-CITE
    ```

    Good:

    ```markdown title="a.notes.md"
    Batteries got cheaper [1].
    ```

    ## Fix
    Cite the claim or delete it.
    """
    column = line.text.find("TODO-CITE")
    if column != -1:
        yield Finding("claim marked TODO-CITE has no citation", line.line, column + 1, context=line.text)


@rule("X902", "crashes-on-crash", kind="notes")
def crashes_on_crash(line, ctx):
    """
    ## What it does
    Nothing useful: raises on a line that says CRASH.

    ## Why is this bad?
    It is a test double for a buggy rule.

    ## Example

    Bad:

    ```markdown title="a.notes.md"
    CRASH
    ```

    Good:

    ```markdown title="a.notes.md"
    calm
    ```

    ## Fix
    None.
    """
    if "CRASH" in line.text:
        raise ZeroDivisionError("division by zero")
    return ()


@hookimpl
def citations_kinds():
    return [NotesKind()]


@hookimpl
def citations_rules():
    return [uncited_todo, crashes_on_crash]

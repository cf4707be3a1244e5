"""The rules under which the memories kind's reader reports what it cannot read: the
reader reports through these rule objects (``RULE.report(finding)``); they have no check of their own."""

from pytest_citations.rules import rule

KIND = "memories"


@rule("M201", "front-matter-syntax", kind=KIND, scope="engine")
def front_matter_syntax():
    """
    ## What it does
    Reports front matter that is not readable YAML: a syntax error (with the line and column the
    parser stopped at), a `---` block that is never closed, or more than one YAML document.

    ## Why is this bad?
    A memory whose front matter cannot be read has no citations anyone can verify, and tools that
    load it fail or, worse, skip it silently.

    ## Example

    Bad:

    ```markdown title=".serena/memories/auth.md"
    ---
    id: auth
    citations: [{path: src/app.py, line: 1
    ---
    # Auth flow
    ```

    Good:

    ```markdown title=".serena/memories/auth.md"
    ---
    id: auth
    citations: [{path: src/app.py, line: 1}]
    ---
    # Auth flow
    ```

    ```python title="src/app.py"
    def login(): ...
    ```

    ## Fix
    Correct the YAML at the position given.
    """


@rule("M202", "yaml-anchor-alias", kind=KIND, scope="engine")
def yaml_anchor_alias():
    """
    ## What it does
    Reports YAML anchors (`&name`) and aliases (`*name`) in front matter. Aliases are not resolved:
    the value that uses one is left out.

    ## Why is this bad?
    Aliases let a few bytes expand into enormous documents ("billion laughs"), and they make a
    citation's real content invisible where it is read. Front matter has no need for them.

    ## Example

    Bad:

    ```markdown title=".serena/memories/auth.md"
    ---
    tags: &common [auth]
    subject: *common
    ---
    ```

    Good:

    ```markdown title=".serena/memories/auth.md"
    ---
    tags: [auth]
    subject: Auth flow
    ---
    ```

    ## Fix
    Write the value out where it is used.
    """


@rule("M203", "yaml-unsafe-tag", kind=KIND, scope="engine")
def yaml_unsafe_tag():
    """
    ## What it does
    Reports YAML tags outside the core schema (such as `!!python/object` or custom `!tags`) in
    front matter. Nothing is ever constructed from a tag; the tagged value is left out.

    ## Why is this bad?
    Loaders that honour such tags can be made to run code. A memory file is data and must load the
    same everywhere.

    ## Example

    Bad:

    ```markdown title=".serena/memories/auth.md"
    ---
    subject: !!python/object/apply:os.system ["echo hi"]
    ---
    ```

    Good:

    ```markdown title=".serena/memories/auth.md"
    ---
    subject: Auth flow
    ---
    ```

    ## Fix
    Remove the tag.
    """


@rule("M204", "yaml-duplicate-key", kind=KIND, scope="engine")
def yaml_duplicate_key():
    """
    ## What it does
    Reports a key that appears twice in the same front-matter mapping; the second value is
    ignored.

    ## Why is this bad?
    YAML loaders disagree on duplicate keys (first wins, last wins, or error), so the memory means
    different things to different tools.

    ## Example

    Bad:

    ```markdown title=".serena/memories/auth.md"
    ---
    id: auth
    id: auth-flow
    ---
    ```

    Good:

    ```markdown title=".serena/memories/auth.md"
    ---
    id: auth-flow
    ---
    ```

    ## Fix
    Keep one of the keys.
    """

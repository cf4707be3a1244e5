'''Core rules (C0xx): problems with a file itself, or with the checker, rather than its citations.

These are reported by the engine and by kinds' readers; they have no check function of their own.
'''

from pytest_citations.rules import rule


@rule("C001", "unreadable-file", scope="engine")
def unreadable_file():
    """
    ## What it does
    Reports an artifact file that cannot be opened: a dangling symlink, a folder, a device or FIFO,
    or a file the checker has no permission to read.

    ## Why is this bad?
    A citation file that cannot be read cannot be checked; passing it silently would let a broken
    checkout through the gate.

    ## Example

    Bad:

    ```symlink title="run/citations/citations.jsonl"
    gone.jsonl
    ```

    Good:

    ```jsonl title="run/citations/citations.jsonl"
    ```

    ## Fix
    Restore the file, or point the link at a file that exists inside the repository.
    """


@rule("C002", "not-utf8", scope="engine")
def not_utf8():
    r"""
    ## What it does
    Reports an artifact file that is not valid UTF-8, naming the byte offset of the first bad byte.

    ## Why is this bad?
    Every format checked here is UTF-8 text. A file in another encoding hashes and compares
    differently from what its producer meant, so its citations cannot be proven.

    ## Example

    Bad (a Latin-1 `é`, byte 0xe9):

    ```jsonl title="run/citations/citations.jsonl" escapes
    {"title": "Caf\xe9"}
    ```

    Good:

    ```jsonl title="run/citations/citations.jsonl"
    ```

    ## Fix
    Re-encode the file as UTF-8 (a UTF-8 byte-order mark is accepted).
    """


@rule("C003", "file-too-large", scope="engine")
def file_too_large():
    """
    ## What it does
    Reports an artifact file larger than `max-file-size` (default 16 MiB) without reading it.

    ## Why is this bad?
    A file far larger than any real artifact is usually a mistake (a dump committed in the wrong
    place) and would slow every run of the gate.

    ## Example

    Bad (with `max-file-size = 10`):

    ```toml title="pyproject.toml"
    [tool.citations]
    max-file-size = 10
    ```

    ```jsonl title="run/citations/citations.jsonl"
    {"schema_version": "citation.v1"}
    ```

    Good:

    ```toml title="pyproject.toml"
    [tool.citations]
    max-file-size = 10
    ```

    ```jsonl title="run/citations/citations.jsonl"
    ```

    ## Fix
    Split the file, or raise `max-file-size` under `[tool.citations]` if the size is expected.
    """


@rule("C004", "parse-error", scope="engine")
def parse_error():
    """
    ## What it does
    Reports a file whose structure as a whole cannot be read as its kind: for example a
    `citations.jsonl` that holds one pretty-printed JSON document instead of one record per line.

    ## Why is this bad?
    Readers of the format stream it line by line; a file they cannot split into records is lost
    to them entirely, and reporting each of its lines separately would only bury the cause.

    ## Example

    Bad:

    ```jsonl title="run/citations/citations.jsonl"
    [
      {"schema_version": "citation.v1"}
    ]
    ```

    Good:

    ```jsonl title="run/citations/citations.jsonl"
    ```

    ## Fix
    Write the file in the format its kind expects (for JSON Lines: one compact record per line).
    """


@rule("C006", "internal-error", scope="engine")
def internal_error():
    """
    ## What it does
    Reports an unexpected error inside a rule or a reader, naming the rule or kind, instead of
    stopping the run. The rule is skipped for the rest of that file; every other rule still runs.

    ## Why is this bad?
    It is a bug in pytest-citations or in a plugin, not in your files; the file it names was not
    fully checked by that rule.

    ## Example
    There is no input that should cause this. It is exercised by the project's tests with a
    deliberately broken plugin rule.

    ## Fix
    Report the message and the file to the maintainers of the rule it names.
    """


@rule("C007", "unused-suppression", scope="engine")
def unused_suppression():
    """
    ## What it does
    Reports a code in an inline suppression comment that suppressed nothing: in Markdown
    `<!-- citations: disable-next-line CODE -- reason -->` or `disable-file`, in YAML front matter
    the same words in a `#` comment.

    ## Why is this bad?
    A stale suppression hides the next real problem on that line and tells readers something
    that is no longer true.

    ## Example

    Bad (the cited file exists now, so there is nothing to suppress):

    ```markdown title=".serena/memories/auth.md"
    ---
    citations:
      # citations: disable-next-line M207 -- the module lands with PR 88
      - path: src/app.py
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
    ---
    ```

    ```python title="src/app.py"
    def login(): ...
    ```

    ## Fix
    Delete the suppression, or the codes in it that no longer apply.
    """


@rule("C008", "path-outside-root", scope="engine")
def path_outside_root():
    """
    ## What it does
    Reports an artifact whose path, once symlinks are resolved, lies outside the repository root.
    The file behind it is never opened.

    ## Why is this bad?
    A CI gate must not be tricked into reading (and printing) files outside the checkout, such as
    credentials reached through a committed symlink.

    ## Example

    Bad:

    ```symlink title="run/citations/citations.jsonl"
    ../../../outside.jsonl
    ```

    Good:

    ```jsonl title="run/citations/citations.jsonl"
    ```

    ## Fix
    Replace the link with the file itself, or move the file inside the repository.
    """

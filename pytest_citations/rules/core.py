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
    {"url": "https://example.com/menu", "title": "Caf\xe9"}
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
    Reports an artifact file larger than `max-file-size` (default 16 MiB) without reading it. A
    JSON Lines file is read a line at a time, whatever its size: there a line (one record) larger
    than `max-file-size` is reported at that line, unread, and the other lines are checked.

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
    Report the message and the file to the maintainers of the rule it names. An internal error
    cannot be silenced by the repository: settings that ignore it are an error, a suppression
    comment naming it is unused (C007) and a baseline never matches it; only `--ignore C006` on
    the command line does.
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


@rule("C009", "too-many-diagnostics", scope="engine")
def too_many_diagnostics():
    """
    ## What it does
    Stands for the diagnostics of one code that a file does not keep: a file keeps at most 200
    diagnostics of each code, the first by position, and one C009 at the first of the others
    says how many more there are. It has the severity of the code it counts, so it fails the run
    exactly when they would.

    ## Why is this bad?
    A file with hundreds of problems of one kind has one cause, and a report that lists them all
    buries every other finding (and a file built for it could make the report as large as the
    checker's memory). The findings it stands for are real: the kept ones show what to fix.

    ## Example

    Bad (an anchor and 200 aliases, each an M202: 200 are shown, and one C009 says 1 more):

    ```markdown title=".serena/memories/notes.md"
    ---
    id: notes
    tags: [&a a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]
    ---
    ```

    Good:

    ```markdown title=".serena/memories/notes.md"
    ---
    id: notes
    tags: [a]
    ---
    ```

    ## Fix
    Fix what the kept diagnostics show, and run again to see the next ones (`--fix` fixes up to
    200 of each code per round, in up to 25 rounds). Suppressions and per-file ignores apply
    before the cap, so what they silence is never counted; a C009 cannot be suppressed or ignored
    on its own, since it stands for findings that were not: suppress or ignore the code it counts.
    A baseline records it with its count, so when that count changes it is a new finding. The
    result cache keeps what the file keeps, and `pytest --citations` shows the same.
    """

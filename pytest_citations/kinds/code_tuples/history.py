"""The git history of a cited file, which R408 searches for the version that had the cited hash
(:func:`history_for`), and the commit checked out, a run-wide index (:func:`head_commit`)."""

from __future__ import annotations

from pytest_citations.core import git_history
from pytest_citations.run import dependencies


def history_for(engine, rel: str, options: dict) -> git_history.History:
    """The git history of a cited file, looked up once per run (a cached result that used it
    depends on the commit checked out)."""
    mode = options["git-history"]
    if mode == "off":
        return git_history.History(None, "git history lookup is off (git-history = \"off\")")
    head_commit(engine)
    return engine.memo(
        ("code-tuples.history", rel, mode, options["git-max-commits"], options["git-timeout"]),
        lambda: git_history.file_history(
            engine.config.root,
            rel,
            max_commits=options["git-max-commits"],
            timeout=options["git-timeout"],
            enclosing=mode == "enclosing",
        ),
    )


@dependencies.run_index("git.head", kind="code-tuples", checked_by_value=True)  # one `git rev-parse`
def head_commit(engine) -> str | None:
    """The commit checked out at the root (None outside a git work tree)."""
    return git_history.head_commit(engine.config.root)

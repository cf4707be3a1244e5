'''Rules on a record's provenance (U110-U112): each ``found_by`` entry of a wave the run has
(U110), and its ``artifact_path`` a file of the run (U111) that stays inside it (U112).'''

from __future__ import annotations

from typing import TYPE_CHECKING

from pytest_citations.core.diagnostics import quoted
from pytest_citations.kinds.url_citations.fields import _is_integer
from pytest_citations.kinds.url_citations.provenance import _artifact_verdict, _found_by, run_directory
from pytest_citations.kinds.url_citations.record import Record
from pytest_citations.rules import Finding, Option, rule

if TYPE_CHECKING:
    from pytest_citations.contexts import RuleContext

KIND = "url-citations"


def _waves_allowed(record: Record, ctx: RuleContext) -> bool:
    """U110 finds nothing: each ``found_by`` entry's wave is one of the allowed numbers."""
    allowed = ctx.options["allowed-waves"]
    for entry in record.data["found_by"]:  # noqa: SIM110 - a loop, not all() of a generator: asked of every record
        if entry["wave"] not in allowed:
            return False
    return True


def _artifacts_in_run(record: Record, ctx: RuleContext) -> bool:
    """U111 and U112 find nothing: each ``found_by`` entry's ``artifact_path`` names a file of the
    run. Worked out once per record for both rules (the verdict is the file's, whichever rule's
    context resolves the paths)."""
    memo = record.memo
    verdict = memo.get("artifacts in run")
    if verdict is None:
        verdict = True
        for entry in record.data["found_by"]:
            path = entry["artifact_path"]
            if not isinstance(path, str) or _artifact_verdict(ctx, path) != "ok":
                verdict = False
                break
        memo["artifacts in run"] = verdict
    return verdict


@rule(
    "U110",
    "found-by-wave",
    kind=KIND,
    options={"allowed-waves": Option(list, [1, 2], "wave numbers a found_by entry may carry", items=int)},
    passes=_waves_allowed,
)
def found_by_wave(record: Record, ctx: RuleContext):
    """
    ## What it does
    Reports a `found_by[].wave` that is not 1 or 2 (configurable with `allowed-waves` under
    `[tool.citations.rules.U110]`).

    ## Why is this bad?
    Provenance points at a wave's output; a wave that the run does not have cannot have found the
    source.

    ## Example

    Bad:

    ```jsonl title="run/citations/citations.jsonl"
    {"schema_version":"citation.v1","normalized_url":"https://example.com/doc","cid":"cid_9813a80c59ae8111adf2b881b481b0a6334db465cd7c961d98cec1830f9aa1db","url":"https://example.com/doc","url_original":"https://example.com/doc","status":"valid","checked_at":"2026-02-13T12:35:00Z","found_by":[{"wave":3,"perspective_id":"p1","agent_type":"ClaudeResearcher","artifact_path":"wave-3/p1.md"}],"notes":"ok"}
    ```

    Good:

    ```jsonl title="run/citations/citations.jsonl"
    {"schema_version":"citation.v1","normalized_url":"https://example.com/doc","cid":"cid_9813a80c59ae8111adf2b881b481b0a6334db465cd7c961d98cec1830f9aa1db","url":"https://example.com/doc","url_original":"https://example.com/doc","status":"valid","checked_at":"2026-02-13T12:35:00Z","found_by":[{"wave":2,"perspective_id":"p1","agent_type":"ClaudeResearcher","artifact_path":"wave-2/p1.md"}],"notes":"ok"}
    ```

    ## Fix
    Record the wave that produced the artifact.
    """
    allowed = ctx.options["allowed-waves"]
    findings: tuple[Finding, ...] = ()
    for index, entry in enumerate(_found_by(record)):
        wave = entry.get("wave") if isinstance(entry, dict) else None
        if _is_integer(wave) and int(wave) not in allowed:
            expected = " or ".join(str(w) for w in allowed)
            findings += (record.finding(f"found_by[{index}].wave is {wave}; expected {expected}", "found_by", index=index),)
    return findings


@rule("U111", "artifact-path-missing", kind=KIND, passes=_artifacts_in_run)
def artifact_path_missing(record: Record, ctx: RuleContext):
    """
    ## What it does
    Reports a `found_by[].artifact_path` that names no file under the run directory (the parent of
    the `citations/` folder that holds `citations.jsonl`; for a file elsewhere, its own folder).
    A path whose symlinks loop is reported as one that cannot be resolved, a symlink loop.

    ## Why is this bad?
    Provenance that points at nothing cannot be audited: nobody can see which wave output cited
    the source, or whether it was cited at all.

    ## Example

    Bad (no `wave-1/p9.md` in the run):

    ```jsonl title="run/citations/citations.jsonl"
    {"schema_version":"citation.v1","normalized_url":"https://example.com/doc","cid":"cid_9813a80c59ae8111adf2b881b481b0a6334db465cd7c961d98cec1830f9aa1db","url":"https://example.com/doc","url_original":"https://example.com/doc","status":"valid","checked_at":"2026-02-13T12:35:00Z","found_by":[{"wave":1,"perspective_id":"p9","agent_type":"ClaudeResearcher","artifact_path":"wave-1/p9.md"}],"notes":"ok"}
    ```

    ```markdown title="run/wave-1/p1.md"
    Sources:
    - https://example.com/doc
    ```

    Good:

    ```jsonl title="run/citations/citations.jsonl"
    {"schema_version":"citation.v1","normalized_url":"https://example.com/doc","cid":"cid_9813a80c59ae8111adf2b881b481b0a6334db465cd7c961d98cec1830f9aa1db","url":"https://example.com/doc","url_original":"https://example.com/doc","status":"valid","checked_at":"2026-02-13T12:35:00Z","found_by":[{"wave":1,"perspective_id":"p1","agent_type":"ClaudeResearcher","artifact_path":"wave-1/p1.md"}],"notes":"ok"}
    ```

    ```markdown title="run/wave-1/p1.md"
    Sources:
    - https://example.com/doc
    ```

    ## Fix
    Point `artifact_path` at the wave output, relative to the run directory, and commit that output.
    """
    findings: tuple[Finding, ...] = ()
    for index, entry in enumerate(_found_by(record)):
        path = entry.get("artifact_path") if isinstance(entry, dict) else None
        verdict = _artifact_verdict(ctx, path) if isinstance(path, str) else "ok"
        if verdict in ("missing", "loop"):
            run_dir = run_directory(ctx.rel).as_posix()
            problem = "cannot be resolved under the run directory {!r}: a symlink loop" if verdict == "loop" else (
                "does not exist under the run directory {!r}"
            )
            message = f"found_by[{index}].artifact_path {quoted(path)} " + problem.format(run_dir)
            findings += (record.finding(message, "found_by", index=index),)
    return findings


@rule("U112", "artifact-path-escapes", kind=KIND, passes=_artifacts_in_run)
def artifact_path_escapes(record: Record, ctx: RuleContext):
    """
    ## What it does
    Reports a `found_by[].artifact_path` that is absolute, uses `\\`, or resolves (through `..` or
    a symlink) outside the run directory. The target is never opened.

    ## Why is this bad?
    Provenance must stay inside the run it describes; a path out of it either points at another
    run's evidence or at something that is not evidence at all.

    ## Example

    Bad:

    ```jsonl title="run/citations/citations.jsonl"
    {"schema_version":"citation.v1","normalized_url":"https://example.com/doc","cid":"cid_9813a80c59ae8111adf2b881b481b0a6334db465cd7c961d98cec1830f9aa1db","url":"https://example.com/doc","url_original":"https://example.com/doc","status":"valid","checked_at":"2026-02-13T12:35:00Z","found_by":[{"wave":1,"perspective_id":"p1","agent_type":"ClaudeResearcher","artifact_path":"../other-run/wave-1/p1.md"}],"notes":"ok"}
    ```

    Good:

    ```jsonl title="run/citations/citations.jsonl"
    {"schema_version":"citation.v1","normalized_url":"https://example.com/doc","cid":"cid_9813a80c59ae8111adf2b881b481b0a6334db465cd7c961d98cec1830f9aa1db","url":"https://example.com/doc","url_original":"https://example.com/doc","status":"valid","checked_at":"2026-02-13T12:35:00Z","found_by":[{"wave":1,"perspective_id":"p1","agent_type":"ClaudeResearcher","artifact_path":"wave-1/p1.md"}],"notes":"ok"}
    ```

    ## Fix
    Use a path relative to the run directory, without `..`.
    """
    findings: tuple[Finding, ...] = ()
    for index, entry in enumerate(_found_by(record)):
        path = entry.get("artifact_path") if isinstance(entry, dict) else None
        if isinstance(path, str) and _artifact_verdict(ctx, path) == "escapes":
            run_dir = run_directory(ctx.rel).as_posix()
            message = f"found_by[{index}].artifact_path {quoted(path)} escapes the run directory {run_dir!r}"
            findings += (record.finding(message, "found_by", index=index),)
    return findings

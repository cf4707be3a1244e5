'''Rules on how a code tuple is written (R401-R404): JSON that parses, every JSON tuple of the
bundled schema's shape, every inline tuple of the grammar's, and a lowercase hash. The verdicts on
the cited file are in :mod:`artifact_rules` and :mod:`stale_rules`; the line ranges in
:mod:`line_rules`.'''

from __future__ import annotations

import json
from functools import lru_cache
from typing import TYPE_CHECKING

from pytest_citations.core.diagnostics import Edit, Fix, quoted
from pytest_citations.core.jsonlines import type_name
from pytest_citations.kinds.code_tuples.model import ANY_CASE_HASH, HASH, LINES, Tuple
from pytest_citations.rules import BUNDLED_SCHEMAS, bundled_validator, rule

if TYPE_CHECKING:
    from pytest_citations.contexts import RuleContext

KIND = "code-tuples"
_SCHEMA_FILE = BUNDLED_SCHEMAS / "rlm-citation-tuple.schema.json"
_KEYS = ("artifact_id", "content_hash", "lines")


@lru_cache(maxsize=1)
def _validator():
    return bundled_validator(_SCHEMA_FILE)


def _fast_valid(data) -> bool:
    """The schema's verdict for the common case, without importing jsonschema."""
    if not isinstance(data, dict) or not set(data) <= set(_KEYS):
        return False
    artifact_id = data.get("artifact_id")
    if not isinstance(artifact_id, str) or not artifact_id:
        return False
    if "content_hash" in data and not (isinstance(data["content_hash"], str) and HASH.match(data["content_hash"])):
        return False
    return "lines" not in data or (isinstance(data["lines"], str) and LINES.match(data["lines"]) is not None)


def schema_problems(data) -> list[tuple[str, str]]:
    """(field or "", message) for every schema violation of a tuple, in a stable order. An
    uppercase 16-digit hash is left to R404."""
    problems = []
    errors = sorted(_validator().iter_errors(data), key=lambda e: (list(map(str, e.absolute_path)), e.validator))
    for error in errors:
        path = list(error.absolute_path)
        key = str(path[0]) if path else ""
        if error.validator == "type":
            problems.append((key, f"{key or 'tuple'} must be {error.validator_value}, not {type_name(error.instance)}"))
        elif error.validator == "required":
            problems.append(("", "missing required field artifact_id"))
        elif error.validator == "additionalProperties":
            extra = sorted(set(error.instance) - set(_KEYS))
            noun = "field" if len(extra) == 1 else "fields"
            problems.append(("", f"unknown {noun} {', '.join(map(repr, extra))} (a tuple has only {', '.join(_KEYS)})"))
        elif error.validator == "minLength":
            problems.append((key, f"{key} must not be empty"))
        elif error.validator == "pattern":
            if key == "content_hash" and ANY_CASE_HASH.match(error.instance):
                continue
            what = "16 lowercase hex digits" if key == "content_hash" else "L<start> or L<start>-<end>"
            problems.append((key, f"{key} {quoted(error.instance)} is not {what}"))
        else:
            problems.append((key, f"{'.'.join(map(str, path)) or 'tuple'}: {error.message}"))
    return problems


@rule("R402", "tuple-schema-violation", kind=KIND)
def tuple_schema_violation(item: Tuple, ctx: RuleContext):
    """
    ## What it does
    Checks each tuple in JSON and JSONL against the bundled `rlm-citation-tuple` JSON Schema
    (draft 2020-12, `additionalProperties: false`): `artifact_id` a non-empty string,
    `content_hash` 16 lowercase hex digits, `lines` `L<n>` or `L<start>-<end>`, no other fields.
    The message names the tuple by its JSON path. A tuple is every object with an `artifact_id`
    and every value under a `tuple-keys` key (default `citations`), at any depth.

    ## Why is this bad?
    Verifiers read exactly these three fields; a tuple with `path` instead of `artifact_id`, a
    hash of the wrong length or a `lines` of `42-58` cannot be verified, and an extra field is a
    sign the producer writes a different shape.

    ## Example

    Bad (`lines` without its `L`, and an unknown field):

    ```json title="out/findings.json"
    {"citations": [{"artifact_id": "src/app.py", "lines": "1-2", "note": "login check"}]}
    ```

    ```python title="src/app.py"
    def login(user):
        return user.active
    ```

    Good:

    ```json title="out/findings.json"
    {"citations": [{"artifact_id": "src/app.py", "content_hash": "9a83c4749b73681e", "lines": "L1-2"}]}
    ```

    ```python title="src/app.py"
    def login(user):
        return user.active
    ```

    ## Fix
    Have the producer write the schema's shape. The schema ships with the package as
    `pytest_citations/schemas/rlm-citation-tuple.schema.json`.
    """
    if item.form != "json" or _fast_valid(item.data):
        return
    if not isinstance(item.data, dict):
        yield item.finding(f"{item.where} must be a citation tuple object, not {type_name(item.data)}")
        return
    parts = {"artifact_id": item.artifact_id, "content_hash": item.content_hash, "lines": item.lines}
    for key, message in schema_problems(item.data):
        yield item.finding(f"{item.where}: {message}", parts.get(key))


@rule("R403", "malformed-inline-tuple", kind=KIND)
def malformed_inline_tuple(item: Tuple, ctx: RuleContext):
    """
    ## What it does
    Reports an inline Markdown tuple that is clearly meant as one (a path-like artifact id with
    an `@hash`, or with a line part `L<n>` or `L<start>-<end>`) but does not follow the grammar
    `[artifact_id@content_hash, L<start>-<end>]`: a hash that is not 16 hex digits (such as a
    15-digit one), or, beside a hash, a line part such as `L3-L5`, `lines 3-5` or `l42`.

    ## Why is this bad?
    A malformed tuple is silently skipped by verifiers that match the strict form, so a claim
    looks cited but is never checked.

    ## Example

    Bad (a 15-digit hash):

    ```markdown title="notes/review.md"
    Inactive users are refused [src/app.py@9a83c4749b73681, L1-2].
    ```

    ```python title="src/app.py"
    def login(user):
        return user.active
    ```

    Good:

    ```markdown title="notes/review.md"
    Inactive users are refused [src/app.py@9a83c4749b73681e, L1-2].
    ```

    ```python title="src/app.py"
    def login(user):
        return user.active
    ```

    ## Fix
    Write the hash as 16 hex digits and the lines as `L<n>` or `L<start>-<end>`.
    """
    if item.form != "inline":
        return
    if item.content_hash is not None and not ANY_CASE_HASH.match(item.content_hash.value):
        value = item.content_hash.value
        detail = "is empty" if not value else (
            f"has {len(value)} characters" if all(c in "0123456789abcdefABCDEF" for c in value) else "is not hex"
        )
        yield item.finding(f"content_hash {quoted(value)} {detail}: expected 16 lowercase hex digits", item.content_hash)
    if item.lines is not None and not LINES.match(item.lines.value):
        yield item.finding(f"lines {quoted(item.lines.value)} is not L<start> or L<start>-<end>", item.lines)


@rule("R404", "content-hash-uppercase", kind=KIND, fixable=True)
def content_hash_uppercase(item: Tuple, ctx: RuleContext):
    """
    ## What it does
    Reports a `content_hash` written with uppercase hex digits. The schema allows only lowercase
    (`^[0-9a-f]{16}$`), and its inline regex skips such a tuple silently; here the tuple is still
    verified, with the hash lowercased.

    ## Why is this bad?
    Strict verifiers reject or skip the tuple, so the citation is never checked there.

    ## Example

    Bad:

    ```markdown title="notes/review.md"
    Inactive users are refused [src/app.py@9A83C4749B73681E, L1-2].
    ```

    ```python title="src/app.py"
    def login(user):
        return user.active
    ```

    Good:

    ```markdown title="notes/review.md"
    Inactive users are refused [src/app.py@9a83c4749b73681e, L1-2].
    ```

    ```python title="src/app.py"
    def login(user):
        return user.active
    ```

    ## Fix
    `citations check --fix` lowercases the hash.
    """
    part = item.content_hash
    if part is None or not isinstance(part.value, str) or not ANY_CASE_HASH.match(part.value) or HASH.match(part.value):
        return
    lowered = part.value.lower()
    text = json.dumps(lowered) if item.form == "json" else lowered
    fix = Fix("lowercase content_hash", (Edit(part.start, part.end, text),))
    yield item.finding(f"content_hash {quoted(part.value)} must be lowercase: {quoted(lowered)}", part, fix)

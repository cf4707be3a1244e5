'''Rules on dataset manifests (E509-E512): a manifest in the documented shape (E509), each listed
dataset file present (E510) with the number of records the manifest says (E511), and no dataset id
listed twice (E512).'''

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

from pytest_citations.core import sources
from pytest_citations.core.diagnostics import quoted
from pytest_citations.core.jsonlines import type_name
from pytest_citations.kinds.ear_ids.manifest import Manifest
from pytest_citations.rules import Finding, rule

if TYPE_CHECKING:
    from pytest_citations.contexts import RuleContext

KIND = "ear-ids"


def _entry_problems(entry) -> list[tuple[str, tuple[int, int]]]:
    """(message, position) for each shape problem of one manifest entry."""
    data = entry.data
    where = f"datasets[{entry.index}]"
    if not isinstance(data, dict):
        return [(f"{where} must be an object, not {type_name(data)}", (entry.line, entry.col))]
    problems = []
    missing = [key for key in ("id", "file", "num_items") if key not in data]
    if missing:
        noun = "fields" if len(missing) > 1 else "field"
        problems.append((f"{where} is missing required {noun}: {', '.join(missing)}", (entry.line, entry.col)))
    for key in ("id", "file"):
        if key in data and not (isinstance(data[key], str) and data[key]):
            shown = "an empty string" if data[key] == "" else type_name(data[key])
            problems.append((f"{where}.{key} must be a non-empty string, not {shown}", entry.position(key)))
    count = data.get("num_items", 0)
    if isinstance(count, bool) or not isinstance(count, int) or count < 0:
        message = f"{where}.num_items must be a non-negative integer, not {json.dumps(count)}"
        problems.append((message, entry.position("num_items")))
    return problems


@rule("E509", "ear-manifest-schema", kind=KIND, unit=Manifest)
def ear_manifest_schema(unit, ctx: RuleContext):
    """
    ## What it does
    Checks the shape of a dataset manifest (`eval/manifest.json`): a JSON object with a `datasets`
    array whose entries each have a non-empty string `id` and `file` and a non-negative integer
    `num_items`. Other fields (`description`, `task`, `version`, `kg_state`, `references`, ...)
    are allowed.

    ## Why is this bad?
    Evaluation runners pick datasets by the manifest; an entry without a file or count cannot be
    checked against the data it describes.

    ## Example

    Bad (`num_items` is a string):

    ```json title="eval/manifest.json"
    {"datasets": [{"id": "ear_items.v1", "file": "eval/ear_items.v1.jsonl", "num_items": "1"}]}
    ```

    ```jsonl title="eval/ear_items.v1.jsonl"
    {"id": "q1", "ear_sections": ["EAR-736.2(b)"]}
    ```

    Good:

    ```json title="eval/manifest.json"
    {"datasets": [{"id": "ear_items.v1", "file": "eval/ear_items.v1.jsonl", "num_items": 1}]}
    ```

    ```jsonl title="eval/ear_items.v1.jsonl"
    {"id": "q1", "ear_sections": ["EAR-736.2(b)"]}
    ```

    ## Fix
    Write the missing fields with the right types.
    """
    if not isinstance(unit.data, dict):
        yield _manifest_finding(unit, f"manifest must be a JSON object, not {type_name(unit.data)}", (1, 1))
        return
    if unit.entries is None:
        if "datasets" not in unit.data:
            yield _manifest_finding(unit, "manifest has no datasets array", (1, 1))
        else:
            message = f"datasets must be an array, not {type_name(unit.data['datasets'])}"
            yield _manifest_finding(unit, message, unit.datasets_position)
        return
    for entry in unit.entries:
        for message, position in _entry_problems(entry):
            yield _manifest_finding(unit, message, position)


def _manifest_finding(unit: Manifest, message: str, position: tuple[int, int]) -> Finding:
    return Finding(message, position[0], position[1])


def _dataset_path(unit: Manifest, ctx: RuleContext, file: str) -> str:
    if ctx.kind_options["manifest-paths"] == "manifest":
        return (PurePosixPath(unit.rel).parent / file).as_posix()
    return file


def _dataset_entries(unit):
    """Entries whose ``file`` is a non-empty string."""
    if not unit.entries:
        return
    for entry in unit.entries:
        if isinstance(entry.data, dict) and isinstance(entry.data.get("file"), str) and entry.data["file"]:
            yield entry


def _count_records(ctx: RuleContext, path: str) -> int | sources.SourceError:
    """The records (non-blank lines) of a listed dataset, or why it cannot be read; once per file
    per run, however many manifest entries list it. The dataset is read in blocks: a JSON Lines
    file is checked whatever its size (max-file-size caps a record), and so is it counted."""

    def count() -> int | sources.SourceError:
        try:
            return non_blank_lines(sources.read_blocks(ctx.root, path))
        except sources.SourceError as error:
            return error

    return ctx.file.engine.memo(("ear-ids.dataset-records", path), count)


def non_blank_lines(blocks: Iterable[bytes]) -> int:
    """How many lines (split at ``\\n``) of the bytes in ``blocks`` hold more than ASCII white space."""
    count, seen = 0, False
    for block in blocks:
        parts = block.split(b"\n")
        for ended, part in enumerate(parts):
            if ended:  # a line ended before this part
                count += seen
                seen = False
            seen = seen or bool(part.strip())
    return count + seen


def _dataset_records(unit, ctx: RuleContext, entry) -> int | str:
    """The listed file's number of records, or why it cannot be read."""
    file = entry.data["file"]
    if PurePosixPath(file).is_absolute() or file.startswith("\\") or (len(file) > 1 and file[1] == ":"):
        return f"datasets[{entry.index}].file {quoted(file)} is absolute; dataset paths are relative"
    found = _count_records(ctx, _dataset_path(unit, ctx, file))
    if not isinstance(found, sources.SourceError):
        return found
    if found.code == "C008":
        return f"datasets[{entry.index}].file {quoted(file)} resolves outside the repository root"
    if "no such file" in found.message:
        return f"datasets[{entry.index}].file {quoted(file)} does not exist"
    return f"datasets[{entry.index}].file {quoted(file)} cannot be read: {found.message}"


@rule("E510", "ear-manifest-file-missing", kind=KIND, unit=Manifest)
def ear_manifest_file_missing(unit, ctx: RuleContext):
    """
    ## What it does
    Reports a manifest entry whose `file` does not exist, cannot be read, or lies outside the
    repository. Paths are relative to the repository root (as earCrawler writes them, for example
    `eval/ear_compliance.v1.jsonl`); set `manifest-paths = "manifest"` under
    `[tool.citations.kinds.ear-ids]` to read them relative to the manifest's folder.

    ## Why is this bad?
    An evaluation run that selects the dataset fails, or worse, a runner that skips missing files
    reports results on fewer datasets than the manifest claims.

    ## Example

    Bad:

    ```json title="eval/manifest.json"
    {"datasets": [{"id": "ear_items.v1", "file": "eval/ear_items.v1.jsonl", "num_items": 1}]}
    ```

    Good:

    ```json title="eval/manifest.json"
    {"datasets": [{"id": "ear_items.v1", "file": "eval/ear_items.v1.jsonl", "num_items": 1}]}
    ```

    ```jsonl title="eval/ear_items.v1.jsonl"
    {"id": "q1", "ear_sections": ["EAR-736.2(b)"]}
    ```

    ## Fix
    Correct the path, restore the file, or drop the entry.
    """
    for entry in _dataset_entries(unit):
        found = _dataset_records(unit, ctx, entry)
        if isinstance(found, str):
            yield _manifest_finding(unit, found, entry.position("file"))


@rule("E511", "ear-manifest-count-mismatch", kind=KIND, unit=Manifest)
def ear_manifest_count_mismatch(unit, ctx: RuleContext):
    """
    ## What it does
    Counts the records of each dataset a manifest lists (its non-blank lines) and reports an entry
    whose `num_items` differs.

    ## Why is this bad?
    A stale count means the dataset changed after the manifest was written: reported scores are
    computed over a different set of items than the one the manifest describes, and a truncated
    file goes unnoticed.

    ## Example

    Bad (the file holds two records):

    ```json title="eval/manifest.json"
    {"datasets": [{"id": "ear_items.v1", "file": "eval/ear_items.v1.jsonl", "num_items": 1}]}
    ```

    ```jsonl title="eval/ear_items.v1.jsonl"
    {"id": "q1", "ear_sections": ["EAR-736.2(b)"]}
    {"id": "q2", "ear_sections": ["EAR-740.1"]}
    ```

    Good:

    ```json title="eval/manifest.json"
    {"datasets": [{"id": "ear_items.v1", "file": "eval/ear_items.v1.jsonl", "num_items": 2}]}
    ```

    ```jsonl title="eval/ear_items.v1.jsonl"
    {"id": "q1", "ear_sections": ["EAR-736.2(b)"]}
    {"id": "q2", "ear_sections": ["EAR-740.1"]}
    ```

    ## Fix
    Regenerate the manifest from the datasets, or set `num_items` to the count given.
    """
    for entry in _dataset_entries(unit):
        expected = entry.data.get("num_items")
        if isinstance(expected, bool) or not isinstance(expected, int):
            continue
        count = _dataset_records(unit, ctx, entry)
        if isinstance(count, str):
            continue
        if count != expected:
            message = (
                f"datasets[{entry.index}] ({quoted(entry.data.get('id'))}) says num_items {expected}, "
                f"but {entry.data['file']} holds {count} record{'s' if count != 1 else ''}"
            )
            yield _manifest_finding(unit, message, entry.position("num_items"))


@rule("E512", "ear-manifest-duplicate-id", kind=KIND, unit=Manifest)
def ear_manifest_duplicate_id(unit, ctx: RuleContext):
    """
    ## What it does
    Reports a manifest entry whose dataset `id` is already the id of an earlier entry.

    ## Why is this bad?
    Runners and reports select datasets by id; with two entries under one id, which file is
    evaluated depends on the runner.

    ## Example

    Bad:

    ```json title="eval/manifest.json"
    {"datasets": [
      {"id": "ear_items.v1", "file": "eval/ear_items.v1.jsonl", "num_items": 1},
      {"id": "ear_items.v1", "file": "eval/ear_items.v2.jsonl", "num_items": 1}
    ]}
    ```

    ```jsonl title="eval/ear_items.v1.jsonl"
    {"id": "q1", "ear_sections": ["EAR-736.2(b)"]}
    ```

    ```jsonl title="eval/ear_items.v2.jsonl"
    {"id": "q1", "ear_sections": ["EAR-736.2(b)"]}
    ```

    Good:

    ```json title="eval/manifest.json"
    {"datasets": [
      {"id": "ear_items.v1", "file": "eval/ear_items.v1.jsonl", "num_items": 1},
      {"id": "ear_items.v2", "file": "eval/ear_items.v2.jsonl", "num_items": 1}
    ]}
    ```

    ```jsonl title="eval/ear_items.v1.jsonl"
    {"id": "q1", "ear_sections": ["EAR-736.2(b)"]}
    ```

    ```jsonl title="eval/ear_items.v2.jsonl"
    {"id": "q1", "ear_sections": ["EAR-736.2(b)"]}
    ```

    ## Fix
    Give each dataset its own id (the earCrawler convention is `<name>.v<version>`).
    """
    if not isinstance(unit, Manifest) or not unit.entries:
        return
    seen: dict[str, int] = {}
    for entry in unit.entries:
        dataset_id = entry.data.get("id") if isinstance(entry.data, dict) else None
        if not isinstance(dataset_id, str):
            continue
        if dataset_id in seen:
            message = f"dataset id {quoted(dataset_id)} is already the id of datasets[{seen[dataset_id]}]"
            yield _manifest_finding(unit, message, entry.position("id"))
        else:
            seen[dataset_id] = entry.index

"""The rules under which the ear-ids kind's reader reports what it cannot read: the
reader reports through these rule objects (``RULE.report(finding)``); they have no check of their own."""

from pytest_citations.rules import rule

KIND = "ear-ids"


@rule("E501", "ear-invalid-json", kind=KIND, scope="engine")
def ear_invalid_json():
    """
    ## What it does
    Reports a line of an eval dataset or retrieval corpus (JSON Lines) that is not one JSON object,
    and a dataset manifest that is not valid JSON: broken JSON, a duplicate key, `NaN` or
    `Infinity`, nesting too deep, or a value that is not an object. Blank lines are allowed; every
    other line is still checked.

    ## Why is this bad?
    An eval item or corpus record that cannot be read is silently dropped by most loaders, so the
    evaluation runs on fewer items than its manifest says and its citations are never checked.

    ## Example

    Bad (a trailing comma):

    ```jsonl title="eval/items.v1.jsonl"
    {"id": "q1", "ear_sections": ["EAR-736.2(b)"],}
    ```

    Good:

    ```jsonl title="eval/items.v1.jsonl"
    {"id": "q1", "ear_sections": ["EAR-736.2(b)"]}
    ```

    ## Fix
    Have the producer serialize each item with a JSON library, one item per line.
    """

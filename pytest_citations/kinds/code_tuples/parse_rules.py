"""The rules under which the code-tuples kind's reader reports what it cannot read: the
reader reports through these rule objects (``RULE.report(finding)``); they have no check of their own."""

from pytest_citations.rules import rule

KIND = "code-tuples"


@rule("R401", "invalid-json", kind=KIND, scope="engine")
def invalid_json():
    """
    ## What it does
    Reports a JSON file, or a line of a JSONL file, that holds tuples but is not valid JSON:
    broken syntax (with the line and column the parser stopped at), a duplicate key, `NaN` or
    `Infinity`, or nesting deeper than 500 levels. In JSONL every other line is still checked.

    ## Why is this bad?
    A file that does not parse cites nothing anyone can verify, and JSON libraries disagree about
    duplicate keys: the same file names different artifacts in different tools.

    ## Example

    Bad (a trailing comma):

    ```json title="out/findings.json"
    {"citations": [{"artifact_id": "src/app.py",}]}
    ```

    ```python title="src/app.py"
    def login(user):
        return user.active
    ```

    Good:

    ```json title="out/findings.json"
    {"citations": [{"artifact_id": "src/app.py", "content_hash": "9a83c4749b73681e"}]}
    ```

    ```python title="src/app.py"
    def login(user):
        return user.active
    ```

    ## Fix
    Have the producer serialize with a JSON library; in JSONL, one document per line.
    """

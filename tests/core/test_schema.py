"""The fast schema check agrees with jsonschema on the bundled schema, which is a valid 2020-12 schema."""

from __future__ import annotations

import json

import jsonschema
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_citations.kinds.url_citations.schema import _SCHEMA_FILE, _fast_valid, schema_problems

SCHEMA = json.loads(_SCHEMA_FILE.read_text())
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)
GOOD = {
    "schema_version": "citation.v1", "normalized_url": "https://a.example/x", "cid": "cid_x", "url": "https://a.example/x",
    "url_original": "https://a.example/x", "status": "valid", "checked_at": "2026-02-13", "http_status": 200,
    "title": None, "publisher": "P", "evidence_snippet": None, "notes": "",
    "found_by": [{"wave": 1, "perspective_id": "p1", "agent_type": "A", "artifact_path": "w.md"}],
}

_json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 600) | st.floats(allow_nan=False, allow_infinity=False) | st.text(alphabet="ab_é ", max_size=3),
    lambda children: st.lists(children, max_size=2) | st.dictionaries(st.text(alphabet="ab_é ", max_size=3), children, max_size=2),
    max_leaves=4,
)


@st.composite
def mutated_records(draw):
    record = json.loads(json.dumps(GOOD))
    for _ in range(draw(st.integers(0, 3))):
        target = record
        if draw(st.booleans()) and record.get("found_by"):
            target = record["found_by"][0] if isinstance(record["found_by"], list) and isinstance(record["found_by"][0], dict) else record
        key = draw(st.sampled_from(sorted(target) + ["extra"]))
        if draw(st.booleans()):
            target.pop(key, None)
        else:
            target[key] = draw(_json_values | st.just(1.0))
    return record


def test_bundled_schema_is_valid_draft_2020_12():
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


@settings(max_examples=400)
@given(mutated_records())
def test_fast_check_agrees_with_jsonschema(record):
    assert _fast_valid(record) == VALIDATOR.is_valid(record)
    assert (schema_problems(record) == []) == VALIDATOR.is_valid(record)


def test_messages_name_the_json_path():
    record = json.loads(json.dumps(GOOD))
    record["found_by"][0]["wave"] = "1"
    del record["found_by"][0]["agent_type"]
    record["http_status"] = "200"
    assert schema_problems(record) == [
        ("found_by", "found_by[0].wave must be integer, not a string"),
        ("http_status", "http_status must be integer or null, not a string"),
        ("found_by", "found_by[0] is missing required field: agent_type"),
    ]

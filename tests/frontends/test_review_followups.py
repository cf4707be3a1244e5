"""The new-user review's false alarms, silent passes and confusing messages in memories, EAR ids,
url citations and code tuples (notes/review-newuser.md: F-3, S-7, M-2, S-4, F-4, F-13, S-9, F-14,
M-5, M-1), each reproduced as the review wrote it."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import time
import tracemalloc
from pathlib import Path

import pytest

from cpu_bounds import assert_cpu_under
from pytest_citations.core.config import parse_config
from pytest_citations.engine import Engine, load_plugins

M = ".serena/memories"


def _engine(root: Path, **table) -> Engine:
    """An engine rooted exactly at ``root``, with the settings ``table`` and no pyproject.toml."""
    kinds, registry = load_plugins()
    return Engine(parse_config(table, root, kinds, registry), kinds, registry)


def _repo(root: Path, files: dict[str, str | bytes]) -> Path:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return root


def _check(root: Path, **table) -> list[tuple[str, int, int, str, str]]:
    report = _engine(root, **table).check([root])
    return [(d.path, d.line, d.col, d.code, d.message) for d in report.diagnostics]


def _claimed(root: Path, **table) -> list[str]:
    return _engine(root, **table).check([root]).files


# -- F-3: plain memory notes in subfolders share a file name, not an id that matters ------------------


def test_plain_notes_with_one_file_name_in_two_subfolders_are_not_duplicates(tmp_path):
    root = _repo(tmp_path, {
        f"{M}/2024/summary.md": "# 2024 summary\nplain\n",
        f"{M}/2025/summary.md": "# 2025 summary\nplain\n",
    })
    assert _claimed(root) == [f"{M}/2024/summary.md", f"{M}/2025/summary.md"]
    assert _check(root) == []


def test_a_declared_id_that_another_memory_has_by_its_file_name_is_still_a_duplicate(tmp_path):
    root = _repo(tmp_path, {
        f"{M}/auth.md": "---\nid: summary\n---\n# Auth\n",
        f"{M}/2024/summary.md": "# 2024 summary\n",
        f"{M}/2025/summary.md": "# 2025 summary\n",
    })
    assert _check(root) == [
        (f"{M}/2024/summary.md", 1, 1, "M214", f"memory id 'summary' (its file name) is also the id of {M}/auth.md"),
        (f"{M}/2025/summary.md", 1, 1, "M214", f"memory id 'summary' (its file name) is also the id of {M}/auth.md"),
        (f"{M}/auth.md", 2, 5, "M214",
         f"memory id 'summary' is also the id of {M}/2024/summary.md, {M}/2025/summary.md"),
    ]


def test_a_link_to_an_id_two_plain_notes_share_is_reported_at_the_link(tmp_path):
    root = _repo(tmp_path, {
        f"{M}/2024/summary.md": "# 2024 summary\n",
        f"{M}/2025/summary.md": "# 2025 summary\n",
        f"{M}/roadmap.md": "---\nlinks:\n  - extends: summary\n  - related: 2025-plan\n---\n# Roadmap\n",
        f"{M}/2025-plan.md": "# Plan\n",
    })
    assert _check(root) == [
        (f"{M}/roadmap.md", 3, 5, "M217",
         f"extends link target 'summary' is ambiguous: it is the id of {M}/2024/summary.md and "
         f"{M}/2025/summary.md"),
    ]


def test_an_ambiguous_link_names_three_memories_and_counts_the_rest(tmp_path):
    files = {f"{M}/{year}/summary.md": f"# {year}\n" for year in range(2020, 2026)}
    files[f"{M}/index.md"] = "---\nlinks:\n  - related: summary\n---\n"
    found = _check(_repo(tmp_path, files))
    assert [(code, message) for _, _, _, code, message in found] == [
        ("M217", f"related link target 'summary' is ambiguous: it is the id of {M}/2020/summary.md, "
                 f"{M}/2021/summary.md, {M}/2022/summary.md and 3 other files"),
    ]

def test_a_link_to_an_id_that_a_memory_declares_twice_is_left_to_m214(tmp_path):
    root = _repo(tmp_path, {
        f"{M}/a.md": "---\nid: auth\n---\n",
        f"{M}/old/a.md": "---\nid: auth\n---\n",
        f"{M}/b.md": "---\nlinks:\n  - related: auth\n---\n",
    })
    assert [(path, code) for path, _, _, code, _ in _check(root)] == [(f"{M}/a.md", "M214"), (f"{M}/old/a.md", "M214")]


# -- S-7: a citation field the spec does not define ----------------------------------------------------


def _memory_citing(fields: str) -> dict[str, str]:
    memory = f"---\ncitations:\n  - path: src/m.py\n{fields}---\n# m\n"
    return {"src/m.py": "a = 1\nb = 2\nc = 3\n", f"{M}/m.md": memory}


@pytest.mark.parametrize(
    ("fields", "suggested"),
    [
        ("    lines: 3\n", "line"),
        ("    snipet: c = 3\n", "snippet"),
        ("    verifed: 2026-01-12T09:30:00Z\n", "verified"),
        ("    file: src/m.py\n", "path"),  # by habit: by spelling, `file` is closest to `line`
        ("    line: 3\n    symbols: [a]\n", None),
    ],
    ids=["lines", "snipet", "verifed", "file", "no-suggestion"],
)
def test_a_typo_in_a_citation_field_is_a_warning_at_the_key(tmp_path, fields, suggested):
    root = _repo(tmp_path, _memory_citing(fields))
    (found,) = _engine(root).check([root]).diagnostics
    name = fields.strip().rsplit("\n", 1)[-1].split(":")[0].strip()
    hint = f"did you mean {suggested!r}? " if suggested else ""
    assert (found.path, found.line, found.col, found.code, found.severity) == (
        f"{M}/m.md", 3 + fields.count("\n"), 5, "M216", "warning")
    assert found.message == (f"unknown citation field {name!r} in citations[0] ({hint}known: path, line, snippet, "
                             "verified); the field is ignored")


def test_a_citation_with_only_the_spec_fields_gets_no_warning(tmp_path):
    root = _repo(tmp_path, _memory_citing("    line: 3\n    snippet: c = 3\n    verified: 2026-01-12T09:30:00Z\n"))
    assert _check(root) == []


def test_a_long_unknown_citation_field_is_named_by_its_ends_and_checked_quickly(tmp_path):
    key = "k" * 1000  # YAML allows a simple key up to 1024 characters
    root = _repo(tmp_path, _memory_citing(f"    {key}: 1\n"))
    started = time.process_time()
    found = _check(root)
    assert_cpu_under(time.process_time() - started, 5)
    assert [code for *_, code, _ in found] == ["M216"]
    assert len(found[0][4]) < 400 and "did you mean" not in found[0][4]


def test_the_real_ai_agents_memories_get_no_field_warning(realdata):
    for root in (realdata / "ai-agents", realdata / "ai-agents" / "at-2aeb4fddd_parent"):
        codes = {code for *_, code, _ in _check(root, exclude=["at-*"])}
        assert codes and "M216" not in codes


# -- M-2: a timestamp-shaped value that names no real moment ----------------------------------------------


@pytest.mark.parametrize(
    ("value", "why"),
    [
        ("2026-13-45T99:00:00Z", "(month 13, day 45, hour 99)"),
        ("2026-02-30T10:00:00Z", "(day 30: February 2026 has 28 days)"),
        ("2026-01-12T09:61:00Z", "(minute 61)"),
        ('"2026-04-31"', "(day 31: April 2026 has 30 days)"),
    ],
)
def test_an_impossible_verified_stamp_says_which_part_is_out_of_range(tmp_path, value, why):
    root = _repo(tmp_path, _memory_citing(f"    verified: {value}\n"))
    shown = value.strip('"')
    assert [(code, message) for *_, code, message in _check(root)] == [
        ("M205", f"citations[0].verified {shown} is not a valid date or time {why}"),
    ]


def test_an_impossible_last_verified_stamp_says_so_too(tmp_path):
    root = _repo(tmp_path, {f"{M}/m.md": "---\nlast_verified: 2026-00-10\n---\n"})
    assert [(code, message) for *_, code, message in _check(root)] == [
        ("M205", "last_verified 2026-00-10 is not a valid date or time (month 0)"),
    ]


# -- S-4: RAG outputs whose citations name EAR sections ------------------------------------------------------


RAG_OUTPUT = '{"query":"x","citations":[{"section_id":"§736.2(b)"},{"section_id":"EAR-740.9(a)(2)#p0003"}]}\n'


def test_a_rag_output_citing_ear_sections_is_claimed_by_content(tmp_path):
    root = _repo(tmp_path, {"eval/rag_out.jsonl": RAG_OUTPUT})
    assert _check(root) == [
        ("eval/rag_out.jsonl", 1, RAG_OUTPUT.index('"§736.2(b)"') + 1, "E502",
         "citations[0].section_id '§736.2(b)' is not a canonical EAR id; expected 'EAR-736.2(b)'"),
        ("eval/rag_out.jsonl", 1, RAG_OUTPUT.index('"EAR-740.9') + 1, "E504",
         "citations[1].section_id 'EAR-740.9(a)(2)#p0003' is a paragraph anchor, not a section citation: "
         "cite 'EAR-740.9(a)(2)'"),
    ]


@pytest.mark.parametrize(
    "section_id",
    ["EAR-736.2(b)", "EAR 740.9", "15 CFR 736.2", "15CFR § 744.6(b)(3)", "ear-774.1"],
)
def test_each_spelling_of_an_ear_section_claims_a_rag_output(tmp_path, section_id):
    """An id that says it is the EAR's: its EAR prefix, or 15 CFR and a part of the EAR's."""
    record = {"answer": "y", "citations": [{"rank": 1, "section_id": section_id, "score": 0.9}]}
    root = _repo(tmp_path, {"outputs/answers.jsonl": json.dumps(record, ensure_ascii=False) + "\n"})
    assert _claimed(root) == ["outputs/answers.jsonl"]


@pytest.mark.parametrize(
    ("record", "claimed"),
    [
        ({"answer": "y", "citations": [{"section_id": "§ 740.1"}]}, False),  # 12 CFR 740.1 is an NCUA rule
        ({"answer": "y", "citations": [{"section_id": "736.2(b)"}]}, False),
        ({"answer": "Under the EAR, yes.", "citations": [{"section_id": "§ 740.1"}]}, True),
        ({"answer": "y", "citations": [{"section_id": "736.2(b)", "source": "EAR"}]}, True),
        ({"answer": "y", "citations": [{"section_id": "736.2(b)", "title": "15 CFR 736.2 General prohibitions"}]}, True),
        ({"answer": "y", "citations": [{"section_id": "740.1", "doc": "Export Administration Regulations"}]}, True),
        ({"answer": "y", "citations": [{"section_id": "736.2"}], "retrieved": ["EAR-736.2"]}, True),
        ({"answer": "y", "citations": [{"section_id": "741.3", "title": "12 CFR 741.3 Criteria"}]}, False),
        ({"answer": "y", "citations": [{"section_id": "§ 745.1", "source": "12 CFR"}]}, False),
        ({"answer": "Unlike the EAR", "citations": [{"section_id": "741.3", "title": "12 C.F.R. § 741.3"}]}, False),
    ],
    ids=["section-sign", "bare", "answer-names-ear", "source-ear", "title-15-cfr", "regulation-name",
         "record-holds-ear-id", "title-12-cfr", "source-12-cfr", "another-title-wins"],
)
def test_a_bare_section_number_is_the_ears_only_with_evidence(tmp_path, record, claimed):
    """A section number without a title (``§ 740.1``, ``736.2(b)``) may be of any CFR title whose
    parts run through 730-774 (12 CFR's credit-union rules, 40 CFR 745 on lead paint): it is an EAR
    section when the record names the EAR, and never when its citation names another title."""
    root = _repo(tmp_path, {"outputs/answers.jsonl": json.dumps(record, ensure_ascii=False) + "\n"})
    assert _claimed(root) == (["outputs/answers.jsonl"] if claimed else [])


@pytest.mark.parametrize(
    "content",
    [
        '{"citations": [{"section_id": "sec-3"}, {"section_id": "3.2"}]}\n',  # another tool's sections
        '{"citations": [{"section_id": "§ 101.5"}]}\n',  # 21 CFR (food labeling), not the EAR's parts
        '{"citations": [{"section_id": "15 CFR 30.2"}]}\n',  # 15 CFR, but the Census rules, not the EAR
        '{"section_id": "§ 736.2", "heading": "General prohibitions", "text": "..."}\n',  # an eCFR snapshot
        '{"meta": {"citations": [{"section_id": "EAR-736.2"}]}}\n',  # not the governed path
        '{"citations": "EAR-736.2", "section_id": "EAR-736.2"}\n',
    ],
    ids=["other-ids", "other-title", "census", "snapshot", "nested", "not-a-list"],
)
def test_other_tools_section_ids_are_not_claimed(tmp_path, content):
    root = _repo(tmp_path, {"eval/items.jsonl": content})
    assert _claimed(root) == []


def _sniffed_within_bounds(head: str) -> bool:
    """The ear-ids kind's verdict on a file's first 64 KiB, asserted to take under 5 s and 200 MB."""
    from pytest_citations.kinds.ear_ids.model import KIND

    assert len(head) <= 65_536
    tracemalloc.start()
    started = time.process_time()
    try:
        claimed = KIND.sniff(head)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert_cpu_under(time.process_time() - started, 5)
    assert peak < 200 * 2**20
    return claimed


@pytest.mark.parametrize(
    "head",
    [
        '{"citations": ' + "[" * 30_000 + '"section_id"' + "]" * 30_000 + "}",  # nested too deep to decode
        '{"citations": [{"section_id": "x"}], "note": "section_id"}\n' * 1_100,  # every line decoded, once
        '{"citations": [{"section_id": "EAR' + " " * 65_000 + '"}]}',  # a long id, cut off by the head's end
    ],
    ids=["deep", "many", "long"],
)
def test_the_sniff_of_rag_outputs_is_bounded(head):
    assert _sniffed_within_bounds(head) is False


# -- F-4: one anchor sequence per container, across corpus shards -------------------------------------------


def _chunk(doc_id: str, ordinal: int | None = None) -> str:
    base = doc_id.split("#")[0]
    record = {"schema_version": "retrieval-corpus.v1", "doc_id": doc_id, "section_id": base}
    if "#" in doc_id:
        record.update(parent_id=base, chunk_kind="paragraph", ordinal=ordinal)
    else:
        record["chunk_kind"] = "section"
    record["text"] = "t"
    return json.dumps(record, separators=(",", ":")) + "\n"


SHARD_1 = "corpus/corpus-00000-of-00002.jsonl"
SHARD_2 = "corpus/corpus-00001-of-00002.jsonl"


def test_a_sharded_corpus_continues_its_anchors_from_one_shard_to_the_next(tmp_path):
    root = _repo(tmp_path, {
        SHARD_1: _chunk("EAR-736.2") + _chunk("EAR-736.2#p0001", 1) + _chunk("EAR-736.2#p0002", 2),
        SHARD_2: _chunk("EAR-736.2#p0003", 3),
    })
    assert _claimed(root) == [SHARD_1, SHARD_2]
    assert _check(root) == []


def test_a_gap_and_a_repeat_across_shards_are_reported_where_they_happen(tmp_path):
    root = _repo(tmp_path, {
        SHARD_1: _chunk("EAR-736.2#p0001", 1) + _chunk("EAR-736.2#p0002", 2) + _chunk("EAR-740.1#p0001", 1),
        SHARD_2: _chunk("EAR-736.2#p0004", 4) + _chunk("EAR-740.1#p0001", 1),
    })
    found = [(path, line, code, message) for path, line, _, code, message in _check(root) if code == "E508"]
    assert found == [
        (SHARD_2, 1, "E508", "anchor #p0004 of 'EAR-736.2' follows #p0002; expected #p0003: anchors run "
                             "#p0001, #p0002, ... in source order"),
        (SHARD_2, 2, "E508", f"anchor #p0001 of 'EAR-740.1' already appears at {SHARD_1}:3"),
    ]


def test_shards_are_taken_in_the_order_of_their_paths(tmp_path):
    """Whatever order the file system lists them in: the first shard's name sorts first."""
    root = _repo(tmp_path, {SHARD_2: _chunk("EAR-736.2#p0002", 2), SHARD_1: _chunk("EAR-736.2#p0001", 1)})
    assert _check(root) == []


def test_a_repeat_within_one_file_still_names_its_line(tmp_path):
    root = _repo(tmp_path, {"data/corpus.jsonl": _chunk("EAR-736.2#p0001", 1) + _chunk("EAR-736.2#p0001", 1)})
    assert [(line, message) for _, line, _, code, message in _check(root) if code == "E508"] == [
        (2, "anchor #p0001 of 'EAR-736.2' already appears on line 1"),
    ]


def test_the_anchor_sequences_of_many_shards_are_found_in_one_pass(tmp_path):
    """50000 chunks of one container in four shards, numbered #p0001 to #p9999 over and over:
    every chunk after the first 9999 repeats an anchor. Under 5 s and 200 MB, with the records'
    reading included."""
    from pytest_citations.kinds.ear_ids.corpus import anchor_index

    numbers = [number % 9999 + 1 for number in range(50_000)]
    chunks = [_chunk(f"EAR-740.1#p{number:04d}", number) for number in numbers]
    root = _repo(tmp_path, {
        f"corpus/c-{shard}.jsonl": "".join(chunks[shard * 12_500 : (shard + 1) * 12_500]) for shard in range(4)
    })
    started = time.process_time()
    index = anchor_index(_engine(root))
    assert_cpu_under(time.process_time() - started, 5)
    tracemalloc.start()
    try:
        anchor_index(_engine(root))  # again, with its memory traced (which slows it down)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 200 * 2**20
    assert len(index.problems) == 50_000 - 9999
    assert index.problems[("corpus/c-1.jsonl", 1)] == ("repeat", ("corpus/c-0.jsonl", 2502))  # #p2502


# -- F-13: another tool's eval manifest --------------------------------------------------------------------------


def test_another_tools_manifest_with_num_items_is_not_claimed(tmp_path):
    manifest = '{"datasets": [{"name": "squad", "path": "data/train.jsonl", "num_items": 5}]}\n'
    root = _repo(tmp_path, {"eval/manifest.json": manifest, "data/train.jsonl": '{"q": "x"}\n'})
    assert _claimed(root) == []
    assert _check(root) == []


def test_an_ear_manifest_with_one_incomplete_entry_is_still_checked(tmp_path):
    manifest = json.dumps({"datasets": [
        {"id": "ear_items.v1", "file": "eval/items.v1.jsonl", "num_items": 1},
        {"id": "ear_items.v2", "num_items": 1},
    ]})
    root = _repo(tmp_path, {"eval/manifest.json": manifest, "eval/items.v1.jsonl": '{"ear_sections": ["EAR-736.2"]}\n'})
    assert [(path, code, message) for path, _, _, code, message in _check(root)] == [
        ("eval/manifest.json", "E509", "datasets[1] is missing required field: file"),
    ]


@pytest.mark.parametrize(
    "manifest",
    [
        '{"datasets": [' + "[" * 30_000 + "]" * 30_000 + '], "num_items": 1, "file": "x", "id": "y"}',
        '{"datasets": [{"id": "a", "file": "b", "num_items": 1' + ", " + '"x": "' + "y" * 70_000 + '"}]}',
    ],
    ids=["deep", "truncated"],
)
def test_the_manifest_sniff_is_bounded(manifest):
    """An entry nested too deep, or cut off by the end of the head, is no manifest entry."""
    assert _sniffed_within_bounds(manifest[:65_536]) is False


# -- S-9: the url a record was fetched at ------------------------------------------------------------------------


def _citation(url: str = "https://example.com/a", normalized: str | None = None, original: str | None = None) -> str:
    original = original or url
    normalized = normalized or "https://example.com/a"
    record = {
        "schema_version": "citation.v1", "normalized_url": normalized,
        "cid": "cid_" + hashlib.sha256(normalized.encode()).hexdigest(), "url": url, "url_original": original,
        "status": "valid", "checked_at": "2026-02-13T12:35:00Z", "found_by": [], "notes": "ok",
    }
    return json.dumps(record, ensure_ascii=False) + "\n"


CITATIONS = "run/citations/citations.jsonl"


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("not a url", ""),
        ("example.com/a", ""),
        ("https://", ""),
        ("ftp://example.com/a", ""),
        ("/a", ""),
        ("https://example.com/a b", ": it holds white space"),
        ("https://exa\tmple.com/a", ": it holds white space"),
    ],
)
def test_a_url_that_is_not_an_absolute_http_url_is_reported(tmp_path, url, why):
    bad = _citation(url, original="https://example.com/a")
    good = _citation("https://example.com/b", "https://example.com/b")
    root = _repo(tmp_path, {CITATIONS: good + bad})
    assert _check(root) == [
        (CITATIONS, 2, bad.index('"url": ') + 8, "U103", f"url {url!r} is not an absolute http(s) URL{why}"),
    ]


def test_a_url_after_a_redirect_to_another_address_is_fine(tmp_path):
    root = _repo(tmp_path, {CITATIONS: _citation("http://www.example.com/a?x=1", original="https://example.com/a")})
    assert _check(root) == []


# -- F-14: the whatwg profile and the two ways a JavaScript producer writes a space ----------------------------------


WHATWG = {"kinds": {"url-citations": {"url-profile": "whatwg"}}}
SPACES = "https://Example.com/a b/?q=hello world&utm_source=x"


@pytest.mark.parametrize(
    "normalized",
    [
        "https://example.com/a%20b?q=hello+world",  # URLSearchParams (WHATWG's form serializer)
        "https://example.com/a%20b?q=hello%20world",  # encodeURIComponent (pai-opencode's normalizer)
    ],
)
def test_whatwg_accepts_both_serializations_of_the_query(tmp_path, normalized):
    root = _repo(tmp_path, {CITATIONS: _citation(normalized, normalized, SPACES)})
    assert _check(root, **WHATWG) == []


def test_whatwg_accepts_the_form_serializers_escapes_of_quotes_and_brackets(tmp_path):
    original = "https://example.com/p?q=it's (x)!~"
    for normalized in ("https://example.com/p?q=it%27s+%28x%29%21%7E", "https://example.com/p?q=it's%20(x)!~"):
        root = _repo(tmp_path / str(len(normalized)), {CITATIONS: _citation(normalized, normalized, original)})
        assert _check(root, **WHATWG) == []


def test_whatwg_refuses_a_query_that_neither_serializer_writes(tmp_path):
    normalized = "https://example.com/p?q=it's+(x)"  # a space as a form writes it, quotes as encodeURIComponent
    by_uri_component, by_form = "https://example.com/p?q=it's%20(x)", "https://example.com/p?q=it%27s+%28x%29"
    root = _repo(tmp_path, {CITATIONS: _citation(normalized, normalized, "https://example.com/p?q=it's (x)")})
    assert [(code, message) for *_, code, message in _check(root, **WHATWG)] == [
        ("U104", f"normalized_url {normalized!r} is not the whatwg normalization of url_original; expected "
                 f"{by_uri_component!r} (or {by_form!r}, the query as URLSearchParams writes it)"),
    ]



def test_the_spec_profile_says_when_a_record_is_written_by_urlsearchparams(tmp_path):
    normalized = "https://example.com/a%20b?q=hello+world"
    root = _repo(tmp_path, {CITATIONS: _citation(normalized, normalized, SPACES)})
    (found,) = _check(root)
    assert found[3] == "U104" and '(it matches the whatwg profile: set url-profile = "whatwg"' in found[4]


# -- M-5 and M-1: R408 names what the tuple cites, and a repository before its first commit -------------------------


def _git(root: Path, *args: str) -> None:
    env = {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}
    env.update(GIT_AUTHOR_NAME="Ada", GIT_AUTHOR_EMAIL="ada@example.org", GIT_COMMITTER_NAME="Ada",
               GIT_COMMITTER_EMAIL="ada@example.org")
    subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)


def test_stale_names_the_cited_path_not_its_symlink_target(tmp_path):
    root = _repo(tmp_path, {"src/m2.py": "a\n", "docs/r.md": "- x [src/m.py@0000000000000000, L1]\n"})
    (root / "src" / "m.py").symlink_to("m2.py")
    (found,) = _check(root)
    assert found[3] == "R408"
    assert found[4].startswith("STALE: src/m.py (a symlink to src/m2.py) changed since it was cited (content_hash ")


def test_stale_of_a_plain_file_names_it_once(tmp_path):
    root = _repo(tmp_path, {"src/a.py": "a\n", "docs/r.md": "- x [src/a.py@0000000000000000, L1]\n"})
    (found,) = _check(root)
    assert found[4].startswith("STALE: src/a.py changed since it was cited (content_hash ")


def test_stale_in_a_repository_without_commits_says_so(tmp_path):
    root = _repo(tmp_path, {"src/a.py": "a\n", "docs/r.md": "- x [src/a.py@0000000000000000, L1]\n"})
    _git(root, "init", "-q")
    (found,) = _check(root)
    assert found[3] == "R408"
    assert found[4].endswith("; no git history to compare: the repository has no commits yet; not fixed")

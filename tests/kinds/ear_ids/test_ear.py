"""EAR ids (E5xx): the example evaluation repository, fixes, hostile files, and the real earCrawler data."""

from __future__ import annotations

import shutil

import pytest

from conftest import PROJECT
from pytest_citations.core.config import parse_config
from pytest_citations.engine import Engine, load_plugins
from pytest_citations.kinds.ear_ids.kg import scan_jsonld, scan_turtle
from pytest_citations.run.fix import fix_file

EAR_REPO = PROJECT / "fixtures" / "ear-repo"
BASE = "https://ear.example.org/resource/ear/section/"
DATASET = "eval/ear_compliance.v1.jsonl"

EXPECTED = [
    ("data/corpus.jsonl", 3, 53, "E508",
     "anchor #p0003 of 'EAR-736.2(b)' follows #p0001; expected #p0002: anchors run #p0001, #p0002, ... in source order"),
    ("data/corpus.jsonl", 5, 86, "E507",
     "section_id 'EAR-740.9(a)(2)' of chunk 'EAR-740.1#p0001' must equal its base id 'EAR-740.1'"),
    ("data/corpus.jsonl", 8, 53, "E506", "doc_id 'EAR-742.4(a)(1)' is already the doc_id of the record at line 7"),
    (DATASET, 2, 199, "E502",
     "ear_sections[0] '15 CFR § 740.9(A)(2)' is not a canonical EAR id; expected 'EAR-740.9(a)(2)'"),
    (DATASET, 3, 212, "E503",
     "ear_sections[0] 'EAR-744' is a part-level id, not a canonical EAR section id: cite a section such as 'EAR-736.2'"),
    (DATASET, 4, 250, "E504",
     "expected.citations[0] 'EAR-740.1#p0002' is a paragraph anchor, not a section citation: cite 'EAR-740.1'"),
    (DATASET, 5, 192, "E505",
     "ear_sections[0] 'EAR-746.4(a)' does not resolve: no retrieval-corpus record has doc_id 'EAR-746.4(a)'"),
    ("eval/golden.v1.jsonl", 2, 108, "E501", "invalid JSON: expecting property name enclosed in double quotes"),
    ("eval/manifest.json", 4, 70, "E511",
     "datasets[1] ('golden.v1') says num_items 1, but eval/golden.v1.jsonl holds 2 records"),
    ("eval/manifest.json", 5, 12, "E512", "dataset id 'ear_compliance.v1' is already the id of datasets[0]"),
    ("eval/manifest.json", 5, 41, "E510", "datasets[2].file 'eval/ear_compliance.v2.jsonl' does not exist"),
    ("eval/manifest.json", 6, 5, "E509", "datasets[3] is missing required field: num_items"),
    ("kg/sections.ttl", 7, 2, "E513",
     f"section IRI <{BASE}EAR-740.9(a)(2)> is not RFC 3986 percent-encoded; expected <{BASE}EAR-740.9%28a%29%282%29>"),
]


def _rows(report):
    return [(d.path, d.line, d.col, d.code, d.message) for d in report.diagnostics]


def _engine(root, **table):
    kinds, registry = load_plugins()
    return Engine(parse_config(table, root, kinds, registry), kinds, registry)


def _repo(tmp_path, files: dict[str, str | bytes]):
    repo = tmp_path / "repo"
    for name, content in files.items():
        target = repo / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content, encoding="utf-8")
    return repo


# -- the example repository ---------------------------------------------------------------------------


def test_every_finding_in_the_ear_repository():
    report = Engine.load(EAR_REPO).check([EAR_REPO])
    assert report.files == [
        "answers/rag-2026-02.jsonl",  # claimed by content: a RAG output citing an EAR section
        "data/corpus.jsonl",  # claimed by content: "schema_version": "retrieval-corpus.v1"
        "data/shards/corpus-00000-of-00002.jsonl",  # a container whose anchors run on in the next shard
        "data/shards/corpus-00001-of-00002.jsonl",
        DATASET,
        "eval/golden.v1.jsonl",
        "eval/manifest.json",
        "eval/unanswerable.v1.jsonl",
        "kg/sections.jsonld",
        "kg/sections.ttl",
        "runs/rag-outputs.jsonl",  # claimed by the repository's include setting
    ]
    assert _rows(report) == EXPECTED


def test_every_ear_rule_fires_exactly_once_on_the_repository():
    report = Engine.load(EAR_REPO).check([EAR_REPO])
    codes = [d.code for d in report.diagnostics]
    assert sorted(codes) == [f"E{n}" for n in range(501, 514)]
    _, registry = load_plugins()
    assert {r.code for r in registry if r.code.startswith("E")} == set(codes)


def test_fix_rewrites_only_the_id_strings(tmp_path):
    repo = tmp_path / "ear-repo"
    shutil.copytree(EAR_REPO, repo)
    engine = Engine.load(repo)
    before = {rel: (repo / rel).read_bytes() for rel in (DATASET, "kg/sections.ttl")}
    for rel in before:
        result = fix_file(engine, rel, engine.kinds_for(rel))
        assert result.applied == 1
        assert not {"E502", "E513"} & {d.code for d in result.diagnostics}
    assert (repo / DATASET).read_bytes() == before[DATASET].replace(
        '"15 CFR § 740.9(A)(2)"'.encode(), b'"EAR-740.9(a)(2)"'
    )
    assert (repo / "kg/sections.ttl").read_bytes() == before["kg/sections.ttl"].replace(
        b"<https://ear.example.org/resource/ear/section/EAR-740.9(a)(2)>",
        b"<https://ear.example.org/resource/ear/section/EAR-740.9%28a%29%282%29>",
    )
    after = {rel: (repo / rel).read_bytes() for rel in before}
    for rel in before:  # a second run changes nothing
        assert fix_file(engine, rel, engine.kinds_for(rel)).applied == 0
        assert (repo / rel).read_bytes() == after[rel]


def test_fix_keeps_bom_crlf_and_escapes(tmp_path):
    text = '{"id": "q1", "ear_sections": ["EAR\\u00a0736.2(B)", "\u00a7 740.1"], "notes": "x"}\r\n'
    repo = _repo(tmp_path, {"eval/a.jsonl": b"\xef\xbb\xbf" + text.encode()})
    engine = Engine.load(repo)
    result = fix_file(engine, "eval/a.jsonl", engine.kinds_for("eval/a.jsonl"))
    assert result.applied == 2 and result.diagnostics == []
    expected = '{"id": "q1", "ear_sections": ["EAR-736.2(b)", "EAR-740.1"], "notes": "x"}\r\n'
    assert (repo / "eval/a.jsonl").read_bytes() == b"\xef\xbb\xbf" + expected.encode()


def test_fix_of_kg_iris_in_each_form(tmp_path):
    repo = _repo(
        tmp_path,
        {
            "kg/a.ttl": f"@prefix s: <{BASE}> .\ns:EAR-736.2%28B%29 <http://example.org/p> s:EAR%20736.2. \n",
            "kg/b.nt": f"<{BASE}EAR-736.2%28b%29> <{BASE}ear-736.2> \"x\" .\n",
            "kg/c.jsonld": f'{{"@id": "{BASE}%C2%A7%20736.2(b)"}}\n',
        },
    )
    engine = Engine.load(repo)
    for rel in ("kg/a.ttl", "kg/b.nt", "kg/c.jsonld"):
        fix_file(engine, rel, engine.kinds_for(rel))
    assert (repo / "kg/a.ttl").read_text() == f"@prefix s: <{BASE}> .\ns:EAR-736.2%28b%29 <http://example.org/p> s:EAR-736.2. \n"
    assert (repo / "kg/b.nt").read_text() == f"<{BASE}EAR-736.2%28b%29> <{BASE}EAR-736.2> \"x\" .\n"
    assert (repo / "kg/c.jsonld").read_text() == f'{{"@id": "{BASE}EAR-736.2%28b%29"}}\n'
    assert engine.check([repo]).diagnostics == []


# -- what is governed, and what is not ---------------------------------------------------------------


def test_only_the_governed_fields_are_read(tmp_path):
    record = (
        '{"id": "EAR-736", "question": "Is EAR 736.2 relevant?", "ear_sections": ["EAR-736.2(b)"], '
        '"evidence": {"doc_spans": [{"doc_id": "EAR-736", "span_id": "736.2(b)"}], "kg_nodes": ["EAR-736"]}, '
        '"references": {"sections": {"EAR-736": ["736.2(b)"]}}}\n'
    )
    repo = _repo(tmp_path, {"eval/a.jsonl": record})
    assert Engine.load(repo).check([repo]).diagnostics == []
    # Governing doc_spans on purpose (extra-paths) shows what the default leaves alone.
    engine = _engine(repo, kinds={"ear-ids": {"extra-paths": ["evidence.doc_spans[].doc_id"]}})
    assert [(d.code, d.message) for d in engine.check([repo]).diagnostics] == [
        ("E503", "evidence.doc_spans[0].doc_id 'EAR-736' is a part-level id, not a canonical EAR section id: "
         "cite a section such as 'EAR-736.2'"),
    ]


def test_rag_output_citations_and_wrong_shapes(tmp_path):
    repo = _repo(
        tmp_path,
        {
            "eval/a.jsonl": (
                '{"citations": [{"section_id": "§ 744.6(b)(3)"}, {"section_id": 7}, {"quote": "no id"}]}\n'
                '{"ear_sections": "EAR-736.2", "expected": null}\n'
                '{"ear_sections": [null, "73.2", "Supplement No. 1 to Part 740"], "expected": {"citations": []}}\n'
            )
        },
    )
    assert [(d.line, d.code, d.message) for d in Engine.load(repo).check([repo]).diagnostics] == [
        (1, "E502", "citations[0].section_id '§ 744.6(b)(3)' is not a canonical EAR id; expected 'EAR-744.6(b)(3)'"),
        (1, "E503", "citations[1].section_id must be a string EAR id, not a number"),
        (2, "E503", "ear_sections must be an array of EAR section ids, not a string"),
        (3, "E503", "ear_sections[0] must be a string EAR id, not null"),
        (3, "E503", "ear_sections[1] '73.2' is not an EAR section id (canonical form EAR-<part>.<section>, "
         "such as 'EAR-736.2(b)')"),
        (3, "E503", "ear_sections[2] 'Supplement No. 1 to Part 740' is not an EAR section id (canonical form "
         "EAR-<part>.<section>, such as 'EAR-736.2(b)')"),
    ]



def test_a_rag_citation_of_another_cfr_title_is_neither_judged_nor_rewritten(tmp_path):
    """In a file of EAR RAG outputs, a citation whose title or source names another CFR title (or
    another part of title 15) is that regulation's section: no E502, and --fix leaves it."""
    text = (
        '{"question": "q1", "citations": [{"section_id": "EAR-736.2"}]}\n'
        '{"question": "q2", "citations": [{"section_id": "741.3", "title": "12 CFR 741.3 Criteria"}, '
        '{"section_id": "§ 745.1", "source": "12 CFR"}, {"section_id": "§ 30.2", "source": "15 CFR Part 30"}, '
        '{"section_id": "§ 740.1"}]}\n'
    )
    repo = _repo(tmp_path, {"runs/rag.jsonl": text})
    engine = Engine.load(repo)
    assert [(d.line, d.code, d.message) for d in engine.check([repo]).diagnostics] == [
        (2, "E502", "citations[3].section_id '§ 740.1' is not a canonical EAR id; expected 'EAR-740.1'"),
    ]
    assert fix_file(engine, "runs/rag.jsonl", engine.kinds_for("runs/rag.jsonl")).applied == 1
    assert (repo / "runs/rag.jsonl").read_text(encoding="utf-8") == text.replace('"§ 740.1"', '"EAR-740.1"')

def test_resolution_is_run_wide_and_reports_ambiguity(tmp_path):
    corpus = '{"schema_version": "retrieval-corpus.v1", "doc_id": "EAR-736.2", "section_id": "EAR-736.2"}\n'
    repo = _repo(
        tmp_path,
        {
            "eval/a.jsonl": '{"ear_sections": ["EAR-736.2", "ear 740.1"]}\n',
            "corpus/one.jsonl": corpus,
            "corpus/two.jsonl": corpus
            + '{"schema_version": "retrieval-corpus.v1", "doc_id": "EAR-740.1", "section_id": "EAR-740.1"}\n',
        },
    )
    engine = Engine.load(repo)
    assert [(d.path, d.line, d.code, d.message) for d in engine.check([repo / "eval", repo / "corpus"]).diagnostics] == [
        ("corpus/two.jsonl", 1, "E506", "doc_id 'EAR-736.2' is already the doc_id of the record at corpus/one.jsonl:1"),
        ("eval/a.jsonl", 1, "E505", "ear_sections[0] 'EAR-736.2' resolves to 2 corpus records "
         "(corpus/one.jsonl:1, corpus/two.jsonl:1); it must resolve to exactly one"),
        ("eval/a.jsonl", 1, "E502", "ear_sections[1] 'ear 740.1' is not a canonical EAR id; expected 'EAR-740.1'"),
    ]


def test_without_a_corpus_resolution_is_not_checked(tmp_path):
    repo = _repo(tmp_path, {"eval/a.jsonl": '{"ear_sections": ["EAR-999.1"]}\n'})
    assert Engine.load(repo).check([repo]).diagnostics == []


def test_corpus_ids_anchors_and_ordinals(tmp_path):
    def record(doc_id, section_id, **more):
        extra = "".join(f', "{k}": {v!r}'.replace("'", '"') for k, v in more.items())
        return f'{{"schema_version": "retrieval-corpus.v1", "doc_id": "{doc_id}", "section_id": "{section_id}"{extra}}}\n'

    repo = _repo(
        tmp_path,
        {
            "corpus.jsonl": "".join(
                [
                    record("EAR-736.2", "EAR-736.2"),
                    record("EAR-736.2#p0001", "EAR-736.2", ordinal=1),
                    record("EAR-736.2#p0002", "EAR-736.2", ordinal=5),
                    record("EAR-736.2#p0002", "EAR-736.2"),
                    record("EAR-740.1#p0002", "EAR-740.1"),
                    record("EAR-740.1", "EAR-740.1", chunk_kind="paragraph"),
                    record("EAR-740.1#p0003", "EAR-740.1", parent_id="EAR-736.2"),
                    record("EAR 742.1", "§ 742.1"),
                    record("EAR-742.1#note", "EAR-742.1"),
                ]
            )
        },
    )
    assert [(d.line, d.code, d.message) for d in Engine.load(repo).check([repo]).diagnostics] == [
        (3, "E508", "ordinal 5 does not match anchor #p0002 (ordinal 2)"),
        (4, "E506", "doc_id 'EAR-736.2#p0002' is already the doc_id of the record at line 3"),
        (4, "E508", "anchor #p0002 of 'EAR-736.2' already appears on line 3"),
        (5, "E508", "anchor #p0002 of 'EAR-740.1' is the first anchor; expected #p0001: anchors run #p0001, "
         "#p0002, ... in source order"),
        (6, "E507", "paragraph chunk doc_id 'EAR-740.1' has no #pNNNN anchor: child chunks carry anchored doc_ids"),
        (7, "E507", "parent_id 'EAR-736.2' of chunk 'EAR-740.1#p0003' must be its container 'EAR-740.1'"),
        (8, "E502", "doc_id 'EAR 742.1' is not a canonical EAR id; expected 'EAR-742.1'"),
        (8, "E502", "section_id '§ 742.1' is not a canonical EAR id; expected 'EAR-742.1'"),
        (9, "E503", "doc_id 'EAR-742.1#note' is not an EAR section id (canonical form EAR-<part>.<section>, "
         "such as 'EAR-736.2(b)', optionally with a #pNNNN anchor)"),
    ]


# -- KG scanning ------------------------------------------------------------------------------------


def test_turtle_scanner_skips_strings_comments_and_blank_nodes():
    text = (
        f"@prefix s: <{BASE}> .\nPREFIX t: <{BASE}EAR->\n"
        f'# <{BASE}in-a-comment>\n_:b s:EAR-736.2 "<{BASE}in-a-string>" , """long <{BASE}x>\n""" .\n'
        f"<{BASE}EAR\\u002D740.1> t:740.1 s:EAR-744.6%28b%29%283%29.\n"
    )
    found = [(iri, form) for iri, _, _, form, _ in scan_turtle(text, BASE)]
    assert found == [
        (f"{BASE}EAR-736.2", "local"),
        (f"{BASE}EAR-740.1", "iri"),
        (f"{BASE}EAR-740.1", "local"),
        (f"{BASE}EAR-744.6%28b%29%283%29", "local"),
    ]


def test_jsonld_scanner_reads_full_iris_only():
    text = f'{{"@id": "{BASE}EAR-736.2", "x": "sec:EAR-740.1", "y": "{BASE.replace("/", chr(92) + "/")}EAR-740.1"}}'
    assert [iri for iri, *_ in scan_jsonld(text, BASE)] == [f"{BASE}EAR-736.2", f"{BASE}EAR-740.1"]


def test_kg_iri_messages_and_configurable_base(tmp_path):
    other = "https://kg.example.com/section/"
    repo = _repo(
        tmp_path,
        {
            "kg/a.nt": (
                f"<{BASE}EAR-736> <{BASE}EAR-736.2%FF> <{BASE}EAR-736.2%28B%29> .\n"
                f"<{other}EAR-736.2(b)> <{BASE}> <{BASE}EAR-736.2%28b%29> .\n"
            )
        },
    )
    rows = [(d.line, d.col, d.code, d.message) for d in Engine.load(repo).check([repo]).diagnostics]
    assert rows == [
        (1, 2, "E513", f"section IRI <{BASE}EAR-736> does not name an EAR section ('EAR-736')"),
        (1, 57, "E513", f"section IRI <{BASE}EAR-736.2%FF> has a percent-escape that is not UTF-8"),
        (1, 117, "E513", f"section IRI <{BASE}EAR-736.2%28B%29> decodes to 'EAR-736.2(B)', not a canonical "
         f"section id; expected <{BASE}EAR-736.2%28b%29>"),
    ]
    engine = _engine(repo, kinds={"ear-ids": {"iri-base": other}})
    assert [d.message for d in engine.check([repo]).diagnostics] == [
        f"section IRI <{other}EAR-736.2(b)> is not RFC 3986 percent-encoded; expected <{other}EAR-736.2%28b%29>"
    ]


# -- manifests ---------------------------------------------------------------------------------------


def test_manifest_paths_shapes_and_relative_folder(tmp_path):
    manifest = (
        '{"datasets": [\n'
        '  {"id": "ear_a", "file": "a.jsonl", "num_items": 1},\n'
        '  {"id": "b", "file": "../../outside.jsonl", "num_items": 1},\n'
        '  {"id": "c", "file": "/etc/passwd", "num_items": 1},\n'
        '  {"id": "d", "file": "latin.jsonl", "num_items": 2},\n'
        '  {"id": 5, "file": "", "num_items": -1},\n'
        '  "e"\n'
        "]}\n"
    )
    repo = _repo(
        tmp_path,
        {
            "eval/manifest.json": manifest,
            "eval/a.jsonl": '{"id": "q1"}\n\n',
            "eval/latin.jsonl": b'{"id": "caf\xe9"}\n{"id": "q2"}\n',
            "outside.jsonl": "{}\n",
        },
    )
    engine = _engine(repo, kinds={"ear-ids": {"manifest-paths": "manifest"}})
    assert [(d.line, d.code, d.message) for d in engine.check([repo / "eval/manifest.json"]).diagnostics] == [
        (3, "E510", "datasets[1].file '../../outside.jsonl' resolves outside the repository root"),
        (4, "E510", "datasets[2].file '/etc/passwd' is absolute; dataset paths are relative"),
        (6, "E509", "datasets[4].id must be a non-empty string, not a number"),
        (6, "E509", "datasets[4].file must be a non-empty string, not an empty string"),
        (6, "E509", "datasets[4].num_items must be a non-negative integer, not -1"),
        (7, "E509", "datasets[5] must be an object, not a string"),
    ]


def test_a_dataset_over_max_file_size_is_counted_in_blocks(tmp_path):
    """max-file-size caps a record of a JSON Lines dataset, not the file: the manifest's count of a
    dataset larger than it is checked (it was "cannot read")."""
    records = "".join(f'{{"id": "q{n}", "question": "{"x" * 40}"}}\n' for n in range(3000))
    manifest = '{"datasets": [\n  {"id": "ear_big", "file": "eval/big.jsonl", "num_items": 2999}\n]}\n'
    repo = _repo(tmp_path, {"eval/manifest.json": manifest, "eval/big.jsonl": records + "\n  \n"})
    engine = _engine(repo, **{"max-file-size": 4096})
    assert [(d.code, d.message) for d in engine.check([repo / "eval/manifest.json"]).diagnostics] == [
        ("E511", "datasets[0] ('ear_big') says num_items 2999, but eval/big.jsonl holds 3000 records")]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[]", "manifest must be a JSON object, not an array"),
        ('{"kg_state": {}}', "manifest has no datasets array"),
        ('{\n "datasets": {"a": 1}}', "datasets must be an array, not an object"),
    ],
)
def test_manifest_shapes(tmp_path, text, message):
    """A manifest named by the kind's include globs is checked whatever it holds; by default such a
    file is no EAR manifest (a manifest is claimed by its list of datasets with their counts)."""
    repo = _repo(tmp_path, {"eval/manifest.json": text})
    assert Engine.load(repo).check([repo]).files == []
    engine = _engine(repo, kinds={"ear-ids": {"include": ["eval/manifest.json"]}})
    assert [(d.code, d.message) for d in engine.check([repo]).diagnostics] == [("E509", message)]


@pytest.mark.parametrize("text", [
    # a retrieval-eval project's manifest (chichichiB/Risk-Regulatory-Q-A-Assistant), and others like it
    '{"evaluation": "retrieval_only", "runner": "run_public_eval.sh"}',
    '{"version": "1.0", "datasets": {"dev.jsonl": {"sha256": "14753aa6", "items": 15}}}',
    '{"datasets": ["dev.jsonl", "test.jsonl"]}',
    '{"manifest_version": "offline-snapshot.v1", "payload": {"path": "snapshot.jsonl"}}',
    # a benchmark's manifest in our very shape that names no regulation (id, file, num_items)
    '{"datasets": [{"id": "squad-dev", "file": "s3://bucket/squad/dev.jsonl", "num_items": 10570},'
    ' {"id": "year_2020", "file": "data/clear-cases.jsonl", "num_items": 3}]}',
    # the word "ear" in free text, or a name starting ear- that is no dataset's, names no regulation
    '{"datasets": [{"id": "speech.v1", "file": "eval/dev.jsonl", "num_items": 2, "task": "ear training (music)"}]}',
    '{"datasets": [{"id": "asr.v1", "file": "eval/dev.jsonl", "num_items": 2, "model": "ear-net"}]}',
    '{"datasets": [{"id": "audiology.v1", "file": "eval/dev.jsonl", "num_items": 2,'
    ' "description": "EAR-related hearing aids (inner ear anatomy)"}]}',
])
def test_other_manifests_are_not_claimed(tmp_path, text):
    repo = _repo(tmp_path, {"eval/manifest.json": text, "eval/dev.jsonl": '{"question": "q", "answer": "a"}\n'})
    report = Engine.load(repo).check([repo])
    assert (report.files, report.diagnostics) == ([], [])



@pytest.mark.parametrize(("entry", "more"), [
    ('{"id": "ear_compliance.v1", "file": "eval/d.jsonl"', ""),  # a dataset id starting ear_
    ('{"id": "compliance.v1", "file": "eval/EAR-qa.jsonl"', ""),  # a dataset file starting ear-
    ('{"id": "compliance.v1", "file": "eval/d.jsonl", "description": "Questions on EAR sections"', ""),
    ('{"id": "compliance.v1", "file": "eval/d.jsonl"', ', "regulation": "Export Administration Regulations"'),
])
def test_a_manifest_that_names_the_ear_is_claimed(tmp_path, entry, more):
    """The upper-case word EAR, the regulation's name, or a dataset whose id or file name starts
    with ear_ or ear-: the manifest is an EAR one and its counts are checked."""
    file = entry.split('"file": "')[1].split('"')[0]
    manifest = f'{{"datasets": [{entry}, "num_items": 2}}]{more}}}'
    repo = _repo(tmp_path, {"eval/manifest.json": manifest, file: '{"id": "q1", "ear_sections": ["EAR-736.2"]}\n'})
    assert [(d.path, d.code) for d in Engine.load(repo).check([repo]).diagnostics] == [("eval/manifest.json", "E511")]

def test_files_are_claimed_by_their_content(tmp_path):
    repo = _repo(tmp_path, {
        "eval/manifest.json": '{"datasets": [{"id": "ear_d.v1", "file": "eval/d.jsonl", "num_items": 1}]}',
        "eval/d.jsonl": '{"id": "q1", "ear_sections": ["EAR-736.2"]}\n',
        "eval/other.jsonl": '{"id": "q1", "expected": {"citations": ["doc-12"]}}\n',
        "corpus/c.jsonl": '{"schema_version": "retrieval-corpus.v1", "doc_id": "EAR-736.2", "section_id": "EAR-736.2"}\n',
        "kg/ear.ttl": "<https://ear.example.org/resource/ear/section/EAR-736.2> a <https://ear.example.org/Section> .\n",
        "kg/other.ttl": "<https://example.org/a> a <https://example.org/B> .\n",
        "kg/other.jsonld": '{"@id": "https://example.org/a"}',
    })
    report = Engine.load(repo).check([repo])
    assert report.files == ["corpus/c.jsonl", "eval/d.jsonl", "eval/manifest.json", "kg/ear.ttl"]
    assert report.diagnostics == []


# -- hostile files -----------------------------------------------------------------------------------


def test_hostile_json_lines(tmp_path):
    """Files the kind's include globs name, whatever their content."""
    deep = "[" * 100_000 + "]" * 100_000
    repo = _repo(
        tmp_path,
        {
            "eval/bad.jsonl": (
                '{"id": 1, "id": 2}\n'
                '{"x": NaN}\n'
                f"{deep}\n"
                '["EAR-736.2"]\n'
                "not json\n"
                '{"ear_sections": ["§ 736.2"]}\n'
            ),
            "eval/latin.jsonl": b'{"ear_sections": ["EAR-736.2"]}\n{"q": "caf\xe9"}\n',
            "eval/manifest.json": "[" * 5000 + "]" * 5000,
            "kg/deep.jsonld": deep,
            "kg/latin.ttl": b"# caf\xe9\n",
        },
    )
    engine = _engine(repo, kinds={"ear-ids": {"include": ["eval/*.jsonl", "eval/manifest.json", "kg/*"]}})
    rows = [(d.path, d.line, d.code, d.message) for d in engine.check([repo]).diagnostics]
    assert rows == [
        ("eval/bad.jsonl", 1, "E501", "invalid JSON: duplicate key 'id'"),
        ("eval/bad.jsonl", 2, "E501", "invalid JSON: NaN is not valid JSON"),
        ("eval/bad.jsonl", 3, "E501", "invalid JSON: nested too deeply"),
        ("eval/bad.jsonl", 4, "E501", "line holds a JSON array, not a JSON object"),
        ("eval/bad.jsonl", 5, "E501", "invalid JSON: expecting value"),
        ("eval/bad.jsonl", 6, "E502", "ear_sections[0] '§ 736.2' is not a canonical EAR id; expected 'EAR-736.2'"),
        ("eval/latin.jsonl", 2, "C002", "not valid UTF-8: byte 0xe9 at offset 42"),
        ("eval/manifest.json", 1, "E501", "invalid JSON: nested too deeply"),
        ("kg/latin.ttl", 1, "C002", "not valid UTF-8: byte 0xe9 at offset 5"),
    ]


def test_huge_files_are_refused_before_reading(tmp_path):
    record = '{"ear_sections": ["EAR-736.2"]}\n'
    repo = _repo(
        tmp_path,
        # (a JSON Lines file is capped a line at a time: issue 19)
        {"eval/big.jsonl": record + record.replace("]}", "], \"notes\": \"" + "x" * 2000 + "\"}"),
         "eval/manifest.json": "{}" + " " * 4000, "kg/big.ttl": "#" * 4000},
    )
    engine = _engine(repo, **{"max-file-size": 2000, "kinds": {"ear-ids": {"include": ["eval/manifest.json", "kg/*"]}}})
    assert {(d.path, d.code) for d in engine.check([repo]).diagnostics} == {
        ("eval/big.jsonl", "C003"), ("eval/manifest.json", "C003"), ("kg/big.ttl", "C003"),
    }


# -- the real earCrawler data ------------------------------------------------------------------------

REAL_FILES = [
    "data/experimental/retrieval_corpus_6_record_fr_sections.jsonl",  # claimed by content
    "eval/ear_compliance.v1.jsonl",
    "eval/ear_compliance.v2.jsonl",
    "eval/entity_obligations.v1.jsonl",
    "eval/entity_obligations.v2.jsonl",
    "eval/golden_phase2.failure_modes.v1.jsonl",
    "eval/golden_phase2.v1.jsonl",
    "eval/manifest.json",
    "eval/multihop_slice.v1.jsonl",
    "eval/unanswerable.v1.jsonl",
    "eval/unanswerable.v2.jsonl",
]
STALE_COUNT = (
    "eval/manifest.json", 39, 20, "E511",
    "datasets[4] ('golden_phase2.v1') says num_items 12, but eval/golden_phase2.v1.jsonl holds 20 records",
)


def test_earcrawler_default_settings(realdata):
    """Every governed id of the eval datasets is canonical and resolves to exactly one record of the
    experimental corpus; part-level evidence doc_ids (EAR-736 ...) are not read; the manifest's one
    stale count is the only finding. eval/pilot_items.jsonl (placeholder questions, no ear_sections)
    is no EAR dataset and is not claimed."""
    root = realdata / "earCrawler"
    report = _engine(root).check([root])
    assert report.files == REAL_FILES
    assert _rows(report) == [STALE_COUNT]


def test_earcrawler_part_level_doc_ids_are_there_and_not_flagged(realdata):
    root = realdata / "earCrawler"
    text = (root / "eval/ear_compliance.v2.jsonl").read_text(encoding="utf-8")
    assert '"doc_id": "EAR-736"' in text
    report = _engine(root).check([root / "eval"])
    assert [d.code for d in report.diagnostics] == ["E511"]


def test_earcrawler_snapshot_fixtures_by_include_globs(realdata):
    """Snapshot records (input to the corpus build) hold section ids as eCFR writes them: claiming
    them and governing their section_id shows each normalized, with its fix."""
    root = realdata / "earCrawler"
    table = {
        "ignore": ["E505"],  # snapshot sections need not be in the experimental corpus
        "kinds": {
            "ear-ids": {
                "include": ["eval/*.jsonl", "eval/manifest.json", "tests/fixtures/**/*.jsonl"],
                "extra-paths": ["section_id"],
            }
        },
    }
    report = _engine(root, **table).check([root])
    snapshot = "tests/fixtures/offline_snapshots/ecfr_dev_title15_parts_736_740_742_744_746/snapshot.jsonl"
    assert report.files == [
        *sorted([*REAL_FILES, "eval/pilot_items.jsonl"]),
        "tests/fixtures/ear_corpus.jsonl",
        "tests/fixtures/ecfr_snapshot_bad_duplicate.jsonl",
        "tests/fixtures/ecfr_snapshot_bad_null_text.jsonl",
        "tests/fixtures/ecfr_snapshot_min.jsonl",
        snapshot,
    ]

    def e502(path, line, col, raw, canonical):
        return (path, line, col, "E502", f"section_id {raw!r} is not a canonical EAR id; expected {canonical!r}")

    assert _rows(report) == [
        STALE_COUNT,
        e502("tests/fixtures/ecfr_snapshot_bad_duplicate.jsonl", 1, 16, "§ 736.2", "EAR-736.2"),
        e502("tests/fixtures/ecfr_snapshot_bad_null_text.jsonl", 1, 16, "§ 736.2", "EAR-736.2"),
        e502("tests/fixtures/ecfr_snapshot_min.jsonl", 1, 16, "§ 736.2", "EAR-736.2"),
        e502("tests/fixtures/ecfr_snapshot_min.jsonl", 2, 16, "740.9", "EAR-740.9"),
        e502(snapshot, 1, 92, "§ 736.2", "EAR-736.2"),
        e502(snapshot, 2, 49, "§ 740.1", "EAR-740.1"),
        e502(snapshot, 3, 52, "§ 740.6", "EAR-740.6"),
        e502(snapshot, 4, 49, "§ 742.1", "EAR-742.1"),
        e502(snapshot, 5, 49, "§ 746.1", "EAR-746.1"),
    ]
    assert all(d.fix is not None for d in report.diagnostics if d.code == "E502")

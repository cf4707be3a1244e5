"""Real files from public projects, read in place: no crash, no false alarm, the real problems found."""

from __future__ import annotations

from pytest_citations.core.config import parse_config
from pytest_citations.engine import Engine, load_plugins


def _engine(root, **table):
    kinds, registry = load_plugins()
    return Engine(parse_config(table, root, kinds, registry), kinds, registry)


def test_pai_opencode_default_settings(realdata):
    root = realdata / "pai-opencode"
    report = _engine(root).check([root])
    fixtures = ".opencode/tests/fixtures"
    assert report.files == [
        f"{fixtures}/citations/phase04/gate-c/citations.jsonl",  # claimed by content: schema_version citation.v1
        f"{fixtures}/citations/phase04/render/citations.jsonl",
        f"{fixtures}/runs/m1-finalize-happy/citations/citations.jsonl",  # claimed by path
    ]
    # The citation.v1 files are clean (empty found_by, millisecond timestamps and nulls are allowed);
    # the run fixture sits at the spec's path but holds another record shape.
    assert [(d.path, d.line, d.code, d.message) for d in report.diagnostics] == [
        (
            f"{fixtures}/runs/m1-finalize-happy/citations/citations.jsonl",
            1,
            "U102",
            "record is missing required fields: schema_version, normalized_url, cid, url_original, status, checked_at, found_by, notes",
        )
    ]


def test_pai_opencode_placeholder_cids_when_every_citations_file_is_included(realdata):
    root = realdata / "pai-opencode"
    engine = _engine(root, kinds={"url-citations": {"include": ["**/citations.jsonl"]}})
    report = engine.check([root / ".opencode/tests/fixtures/summaries"])
    assert [(d.line, d.code) for d in report.diagnostics] == [
        (1, "U102"), (1, "U106"), (2, "U102"), (2, "U106"), (3, "U102"), (3, "U106"),
    ]
    assert report.diagnostics[1].message == "cid 'cid_alpha' is not 'cid_' followed by 64 lowercase hex digits"


def test_every_realdata_file_is_read_without_crash(realdata):
    """Claim every JSON Lines file of every project as url citations: only diagnostics, no C006."""
    for project in sorted(path for path in realdata.iterdir() if path.is_dir()):
        engine = _engine(project, kinds={"url-citations": {"include": ["**/*.jsonl"]}})
        report = engine.check([project])
        assert not [d for d in report.diagnostics if d.code == "C006"], project.name


def test_a_citations_file_of_another_tool_at_the_spec_path_is_not_claimed(tmp_path):
    """A bibliometric repository's citations/citations.jsonl (citing and cited works) holds no
    citation record: not claimed; a research run's file there of another shape is (U102)."""
    (tmp_path / "data" / "citations").mkdir(parents=True)
    (tmp_path / "data" / "citations" / "citations.jsonl").write_text(
        '{"oci": "061-062", "citing": "10.1007/s11192-019-03217-6", "cited": "10.1162/qss_a_00023"}\n')
    (tmp_path / "runs" / "r1" / "citations").mkdir(parents=True)
    (tmp_path / "runs" / "r1" / "citations" / "citations.jsonl").write_text(
        '{"source_id": "src-1", "url": "https://example.com/a", "claim": "c"}\n')
    report = _engine(tmp_path).check([tmp_path])
    assert report.files == ["runs/r1/citations/citations.jsonl"]
    assert [d.code for d in report.diagnostics] == ["U102"]

"""Hostile input for the EAR, claude-exchanges and synthesis kinds, schemas that never reach out,
and property tests of the string entry points those kinds add (docs/security.md)."""

from __future__ import annotations

import builtins
import io
import json
import os
import shutil
import urllib.request
from pathlib import Path

import pytest

from conftest import PROJECT
from pytest_citations.engine import Engine
from pytest_citations.kinds.url_citations.urls import cid_for

CAP = 4000  # max-file-size of the scratch repositories
EAR = "eval/a.jsonl"
EXCHANGE = "x.exchange.json"
SYNTHESIS = "runs/r/synthesis.md"
RUN_CITATIONS = "runs/r/citations/citations.jsonl"


def _record(url: str) -> str:
    return json.dumps({
        "schema_version": "citation.v1", "normalized_url": url, "cid": cid_for(url), "url": url,
        "url_original": url, "status": "valid", "checked_at": "2026-02-13T12:35:00Z", "found_by": [], "notes": "ok",
    })


EAR_TEXT = b'{"id": "q1", "ear_sections": ["EAR-736.2"]}\n{"id": "q2", "ear_sections": ["\xc2\xa7 740.1"]}\n'
EXCHANGE_TEXT = (PROJECT / "fixtures" / "claude-exchanges" / "exchanges" / "custom-content.exchange.json").read_bytes()
SYNTHESIS_TEXT = b"# Synthesis\n\nKnown (https://example.com/a).\nPhantom (https://example.com/missing).\n"

KINDS = {
    "ear": (EAR, EAR_TEXT, [
        (EAR, 2, 31, "E502", "ear_sections[0] '\u00a7 740.1' is not a canonical EAR id; expected 'EAR-740.1'"),
    ]),
    "claude-exchanges": (EXCHANGE, EXCHANGE_TEXT, [
        (EXCHANGE, 65, 11, "A606", 'cited_text " Gas boilers burn fuel." is not what [1, 3) holds: " They use electricity. '
         'Gas boilers burn fuel."; cited_text is blocks [2, 3)'),
        (EXCHANGE, 79, 11, "A604", "char_location cites document 0, a custom content document (source type 'content'), "
         "which is cited with content_block_location"),
        (EXCHANGE, 93, 11, "A605", "content_block_location: end_block_index 4 is past the end of the cited text (3 blocks)"),
    ]),
    "synthesis": (SYNTHESIS, SYNTHESIS_TEXT, [
        (SYNTHESIS, 4, 10, "U114", "`https://example.com/missing` is cited but has no record in runs/r/citations/citations.jsonl "
         "(phantom citation)"),
    ]),
}


def scratch(root: Path, files: dict[str, bytes]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text(f"[tool.citations]\nmax-file-size = {CAP}\n")
    files = {RUN_CITATIONS: (_record("https://example.com/a") + "\n").encode(), **files}
    for rel, data in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return root


def check(root: Path) -> list[tuple]:
    return [(d.path, d.line, d.col, d.code, d.message) for d in Engine.load(root).check([root]).diagnostics]


@pytest.mark.parametrize("kind", KINDS)
def test_plain_utf8_bom_and_crlf_give_the_same_findings_on_the_same_lines(tmp_path, kind):
    rel, data, expected = KINDS[kind]
    assert check(scratch(tmp_path / "plain", {rel: data})) == expected
    assert check(scratch(tmp_path / "bom", {rel: b"\xef\xbb\xbf" + data})) == expected
    assert check(scratch(tmp_path / "crlf", {rel: data.replace(b"\n", b"\r\n")})) == expected
    assert check(scratch(tmp_path / "bom-crlf", {rel: b"\xef\xbb\xbf" + data.replace(b"\n", b"\r\n")})) == expected


INVALID = {  # where a byte 0xff replaces a character, and the C002 it gives
    "ear": (b'"q2"', b'"q\xff"', (EAR, 2, 10, "C002", "not valid UTF-8: byte 0xff at offset 53")),
    "claude-exchanges": (b'"Heating guide"', b'"Heating \xff"', (EXCHANGE, 28, 31, "C002", "not valid UTF-8: byte 0xff at offset 700")),
    "synthesis": (b"Phantom", b"Ph\xffntom", (SYNTHESIS, 4, 3, "C002", "not valid UTF-8: byte 0xff at offset 46")),
}


@pytest.mark.parametrize("kind", KINDS)
def test_invalid_utf8_is_c002_with_the_byte_offset(tmp_path, kind):
    rel, data, _ = KINDS[kind]
    old, new, expected = INVALID[kind]
    assert check(scratch(tmp_path / "lf", {rel: data.replace(old, new, 1)})) == [expected]
    # with CRLF each line before it adds a byte to the offset, never a line
    crlf = data.replace(b"\n", b"\r\n").replace(old, new, 1)
    path, line, col, code, message = expected
    offset = int(message.rsplit(" ", 1)[1]) + line - 1
    assert check(scratch(tmp_path / "crlf", {rel: crlf})) == [(path, line, col, code, f"not valid UTF-8: byte 0xff at offset {offset}")]


@pytest.mark.parametrize("kind", KINDS)
def test_over_the_size_cap_is_c003_and_never_loaded(tmp_path, kind):
    rel, data, expected = KINDS[kind]
    if rel.endswith(".jsonl"):  # a JSON Lines file is capped a line at a time: its other lines are checked
        big = data.replace(b"\n", b" " * CAP + b"\n", 1)
        size = big.index(b"\n") + 1
        assert check(scratch(tmp_path, {rel: big})) == [
            (rel, 1, 1, "C003", f"line is {size} bytes, over the {CAP}-byte limit on one record (max-file-size): it is "
                                "skipped; the other lines are checked"), *expected]
        return
    big = data + b" " * (CAP + 1 - len(data))
    assert check(scratch(tmp_path, {rel: big})) == [(rel, 1, 1, "C003", f"file is {CAP + 1} bytes, over the {CAP}-byte limit (max-file-size)")]



def test_a_symlink_loop_is_named_as_one(tmp_path):
    """Where a kind's messages are its own, a cited path whose symlinks loop says so (and never
    shows the absolute path Python's error carries); memories keep the spec's ``File not found``."""
    root = tmp_path / "repo"
    record = json.loads(_record("https://example.com/a"))
    record["found_by"] = [{"wave": 1, "perspective_id": "p1", "agent_type": "A", "artifact_path": "loop1"}]
    scratch(root, {
        RUN_CITATIONS: (json.dumps(record) + "\n").encode(),
        "eval/manifest.json": json.dumps({"datasets": [{"id": "ear_d", "file": "eval/loop1", "num_items": 1}]}).encode(),
        "out/findings.json": json.dumps({"citations": [{"artifact_id": "loop1", "content_hash": "0123456789abcdef", "lines": "L1"}]}).encode(),
        ".serena/memories/m.md": b"---\nid: m\ncitations:\n  - path: loop1\n    line: 1\n    snippet: x\n---\nBody.\n",
    })
    for folder in ("runs/r", "eval", "."):
        os.symlink("loop2", root / folder / "loop1")
        os.symlink("loop1", root / folder / "loop2")
    assert check(root) == [
        (".serena/memories/m.md", 4, 11, "M207", "File not found: loop1"),
        ("eval/manifest.json", 1, 39, "E510", "datasets[0].file 'eval/loop1' cannot be read: cannot resolve path 'eval/loop1': a symlink loop"),
        ("out/findings.json", 1, 32, "R406", "MISSING: loop1 cannot be resolved: a symlink loop"),
        (RUN_CITATIONS, 1, 300, "U111", "found_by[0].artifact_path 'loop1' cannot be resolved under the run directory 'runs/r': a symlink loop"),
    ]


def test_a_symlink_loop_as_the_artifact_itself(tmp_path):
    """Two files a kind claims by path, each a symlink to the other (a file claimed by its content
    has no content to show, and is not claimed)."""
    root = scratch(tmp_path / "repo", {})
    first, second = "a/citations/citations.jsonl", "b/citations/citations.jsonl"
    for rel in (first, second):
        (root / rel).parent.mkdir(parents=True)
    os.symlink("../../b/citations/citations.jsonl", root / first)
    os.symlink("../../a/citations/citations.jsonl", root / second)
    assert check(root) == [(rel, 1, 1, "C001", f"cannot resolve path {rel!r}: a symlink loop") for rel in (first, second)]


# -- schemas never reach out ----------------------------------------------------------------------

REMOTE_REFS = ["http://example.com/x.json", "file:///etc/passwd"]


class Guard:
    """Once armed, only the bundled schema files (and files under ``roots``) may be opened, and a
    URL fetch is recorded in ``fetched`` and fails."""

    def __init__(self, schemas: set[Path]) -> None:
        self.schemas, self.roots, self.opened, self.fetched, self.armed = schemas, [], [], [], False

    def allow(self, file) -> None:
        if not self.armed:
            return
        if isinstance(file, int) and os.path.exists(f"/proc/self/fd/{file}"):
            file = os.readlink(f"/proc/self/fd/{file}")  # a descriptor is judged by the file it opened
        if not isinstance(file, (str, os.PathLike)):
            raise AssertionError(f"opened a file descriptor {file!r}")
        path = Path(os.fspath(file)).resolve()
        if path not in self.schemas and not any(path.is_relative_to(root) for root in self.roots):
            raise AssertionError(f"opened a file outside the package: {path}")
        self.opened.append(path)

    def outside_roots(self) -> set[str]:
        return {p.name for p in self.opened if not any(p.is_relative_to(root) for root in self.roots)}


@pytest.fixture
def confined(monkeypatch):
    import jsonschema  # noqa: F401  (imported before the guard: their own modules are not the point)
    import referencing  # noqa: F401

    from pytest_citations.kinds.code_tuples import rules as code_tuples
    from pytest_citations.kinds.url_citations import schema as url_citations

    url_citations._validator.cache_clear()
    code_tuples._validator.cache_clear()
    guard = Guard({url_citations._SCHEMA_FILE.resolve(), code_tuples._SCHEMA_FILE.resolve()})
    real_open, real_path_open = builtins.open, Path.open

    def guarded_open(file, *args, **kwargs):
        guard.allow(file)
        return real_open(file, *args, **kwargs)

    def guarded_path_open(self, *args, **kwargs):
        guard.allow(self)
        return real_path_open(self, *args, **kwargs)

    def no_fetch(url, *args, **kwargs):
        guard.fetched.append(getattr(url, "full_url", url))
        raise AssertionError(f"a URL was fetched: {url!r}")

    monkeypatch.setattr(builtins, "open", guarded_open)
    monkeypatch.setattr(io, "open", guarded_open)
    monkeypatch.setattr(Path, "open", guarded_path_open)
    monkeypatch.setattr(urllib.request, "urlopen", no_fetch)
    yield guard
    guard.armed = False
    url_citations._validator.cache_clear()  # built under the guard; rebuild outside it
    code_tuples._validator.cache_clear()


@pytest.mark.parametrize("ref", REMOTE_REFS)
def test_a_ref_in_a_record_is_data_never_followed(confined, ref):
    from pytest_citations.kinds.code_tuples import rules as code_tuples
    from pytest_citations.kinds.url_citations import schema as url_citations

    confined.armed = True
    record = json.loads(_record("https://example.com/a"))
    record["$ref"] = ref
    record["found_by"] = [{"$ref": ref}]
    assert url_citations.schema_problems(record) == [
        ("found_by", "found_by[0] is missing required fields: wave, perspective_id, agent_type, artifact_path"),
    ]
    assert code_tuples.schema_problems({"artifact_id": "src/a.py", "$ref": ref}) == [
        ("", "unknown field '$ref' (a tuple has only artifact_id, content_hash, lines)"),
    ]
    assert confined.outside_roots() == {"citation.v1.schema.json", "rlm-citation-tuple.schema.json"}
    assert confined.fetched == []


@pytest.mark.parametrize("ref", REMOTE_REFS)
def test_a_ref_in_a_checked_artifact_is_never_followed(tmp_path, confined, ref):
    root = tmp_path / "repo"
    confined.roots.append(root.resolve())
    bad = json.loads(_record("https://example.com/b"))
    bad.update({"$ref": ref, "notes": {"$ref": ref}})
    findings = {"citations": [{"artifact_id": "a.txt", "$ref": ref}]}
    scratch(root, {
        RUN_CITATIONS: (_record("https://example.com/a") + "\n" + json.dumps(bad) + "\n").encode(),
        "out/findings.json": json.dumps(findings, indent=2).encode(),
        "a.txt": b"one\n",
    })
    engine = Engine.load(root)  # plugin metadata is read here, before the guard
    confined.armed = True
    assert [(d.path, d.line, d.col, d.code, d.message) for d in engine.check([root]).diagnostics] == [
        ("out/findings.json", 3, 5, "R402", "citations[0]: unknown field '$ref' (a tuple has only artifact_id, content_hash, lines)"),
        ("out/findings.json", 4, 22, "R409", "UN-VERSIONED: a.txt is cited without a content_hash, so a change to it goes unnoticed "
         "(its hash now is 2c8b08da5ce60398)"),
        (RUN_CITATIONS, 2, 312, "U102", "notes must be string, not an object"),
    ]
    assert confined.outside_roots() == {"citation.v1.schema.json", "rlm-citation-tuple.schema.json"}
    assert confined.fetched == []


@pytest.mark.parametrize("ref", REMOTE_REFS)
def test_the_bundled_validators_cannot_retrieve(confined, ref):
    """Built on an empty ``referencing.Registry``: an unknown ``$ref`` is an error, never a fetch
    (jsonschema's default registry would call urlopen for the http one)."""
    import jsonschema
    import referencing.exceptions

    from pytest_citations.kinds.code_tuples import rules as code_tuples
    from pytest_citations.kinds.url_citations import schema as url_citations

    confined.armed = True
    for validator in (url_citations._validator(), code_tuples._validator()):
        with pytest.raises(referencing.exceptions.Unresolvable, match=f"^Unresolvable: {ref}$"):
            list(validator.evolve(schema={"$ref": ref}).iter_errors({}))
    assert confined.fetched == []
    if ref.startswith("http"):  # what the default registry would have done
        with pytest.raises(referencing.exceptions.Unresolvable):
            list(jsonschema.Draft202012Validator({"$ref": ref}).iter_errors({}))
        assert confined.fetched == [ref]


# -- never a traceback ------------------------------------------------------------------------------

hypothesis = pytest.importorskip("hypothesis")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from pytest_citations.kinds.briefs.model import Brief, read_brief  # noqa: E402
from pytest_citations.kinds.ear_ids.ids import normalize_ear_doc_id, normalize_ear_section_id  # noqa: E402

PROPERTY = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
EAR_LIKE = st.text(alphabet=st.sampled_from(list("EARear-_.§ \u00a0()#p0123456789CFR15\t\n")) | st.characters(), max_size=40)


@PROPERTY
@given(st.one_of(st.text(), EAR_LIKE))
def test_ear_normalizers_never_raise(value):
    for normalize in (normalize_ear_section_id, normalize_ear_doc_id):
        result = normalize(value)
        assert result is None or (isinstance(result, str) and normalize(result) == result)


@PROPERTY
@given(st.one_of(st.text(), st.text(alphabet=st.sampled_from(list("#- []()0123456789\n*>`!:|\\")) | st.characters())))
def test_the_brief_reader_never_raises(value):
    for text in (value, f"## Prevailing View\n- {value} [1]\n\n## References\n[1] {value}\n"):
        assert isinstance(read_brief("briefs/b.md", text, {}), Brief)


EXCHANGE_START = b'{"request": {"messages": '  # what makes a file named as an exchange one


@settings(PROPERTY, max_examples=60)  # an Engine per example: 60 keep it well under a second
@given(st.binary(max_size=2000), st.sampled_from([EXCHANGE, "x.exchanges.jsonl", SYNTHESIS, RUN_CITATIONS]),
       st.booleans())
def test_any_bytes_as_a_synthesis_or_an_exchange_is_never_c006(tmp_path, data, rel, as_exchange):
    """Any bytes, and for an exchange file any bytes after the start of an exchange (which claims
    the file, so that the reader reads what follows)."""
    root = tmp_path / "fuzz"
    shutil.rmtree(root, ignore_errors=True)
    exchange = rel in (EXCHANGE, "x.exchanges.jsonl")
    if exchange and as_exchange:
        data = EXCHANGE_START + data
    scratch(root, {rel: data, SYNTHESIS: SYNTHESIS_TEXT} if rel == RUN_CITATIONS else {rel: data})
    paths = [root / rel, root / SYNTHESIS] if rel == RUN_CITATIONS else [root / rel]  # a synthesis reads its run's records
    report = Engine.load(root).check(paths)
    # (a citations file, and an exchange file, are claimed by what they hold)
    assert rel in report.files or rel == RUN_CITATIONS or (exchange and not as_exchange)
    assert [d for d in report.diagnostics if d.code == "C006"] == []

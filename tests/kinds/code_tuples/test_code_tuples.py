"""Code citation tuples (R4xx): the shipped fixture exactly, the inline grammar, the git history
lookup behind STALE, the fix that never blesses a changed claim, and hostile inputs."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
import regex

from conftest import PROJECT
from cpu_bounds import assert_cpu_under
from pytest_citations.core import git_history
from pytest_citations.engine import Engine
from pytest_citations.kinds.code_tuples.inline import find_inline, looks_like_path
from pytest_citations.kinds.code_tuples.model import KIND
from pytest_citations.run.fix import fix_file

REPO = PROJECT / "fixtures" / "code-tuples-repo"
REVIEW = "docs/reviews/ledger-review.md"
JSON = "rlm/batch-2026-03-02/findings.json"
JSONL = "rlm/batch-2026-03-02/findings.jsonl"
OLD_TRANSFER = "da188185cedd33a1"  # the hash of transfer.py before the daily-limit check
NO_GIT = "no git history to compare: no git checkout at the repository root; not fixed"

EXPECTED = [
    (REVIEW, 8, 72, "R408", "STALE: src/ledger/transfer.py changed since it was cited "
     f"(content_hash {OLD_TRANSFER}, now bde8a1d14f36ee36); {NO_GIT}"),
    (REVIEW, 9, 33, "R409", "UN-VERSIONED: config/limits.toml is cited without a content_hash, so a change to it "
     "goes unnoticed (its hash now is dec047b46787fa21)"),
    (REVIEW, 10, 48, "R406", "MISSING: src/ledger/risk.py does not exist"),
    (REVIEW, 11, 61, "R403", "content_hash 'a002ad0326036ff' has 15 characters: expected 16 lowercase hex digits"),
    (REVIEW, 12, 87, "R411", "lines L16-13: the range ends before it starts"),
    (REVIEW, 13, 40, "R405", "artifact_id ../pricing/src/rates.py escapes the repository root through ..; "
     "it is not checked"),
    (REVIEW, 14, 74, "R403", "lines 'lines 7-8' is not L<start> or L<start>-<end>"),
    (REVIEW, 15, 58, "R404", "content_hash 'A002AD0326036FF2' must be lowercase: 'a002ad0326036ff2'"),
    (JSON, 22, 27, "R408", "STALE: src/ledger/transfer.py changed since it was cited "
     f"(content_hash {OLD_TRANSFER}, now bde8a1d14f36ee36); {NO_GIT}"),
    (JSON, 28, 20, "R412", "lines L15-25 ends past the end of src/ledger/accounts.py (19 lines)"),
    (JSON, 37, 26, "R409", "UN-VERSIONED: src/ledger/limits.py is cited without a content_hash, so a change to it "
     "goes unnoticed (its hash now is 6b4c060d876c9148)"),
    (JSON, 46, 9, "R402", "findings[2].evidence[0] must be a citation tuple object, not a string"),
    (JSON, 54, 26, "R406", "MISSING: src/ledger/rates_cache.py does not exist"),
    (JSONL, 1, 128, "R404", "content_hash 'DEC047B46787FA21' must be lowercase: 'dec047b46787fa21'"),
    (JSONL, 2, 64, "R402", "citations[0]: missing required field artifact_id"),
    (JSONL, 2, 64, "R402", "citations[0]: unknown field 'path' (a tuple has only artifact_id, content_hash, lines)"),
    (JSONL, 2, 108, "R402", "citations[0]: lines '13-21' is not L<start> or L<start>-<end>"),
    (JSONL, 4, 83, "R405", "artifact_id /etc/ledger/keys.pem is an absolute path, not a project-relative one; "
     "it is not checked"),
    (JSONL, 5, 89, "R405", "artifact_id src/ledger/rates.py resolves outside the repository root (through a symlink); "
     "it is not checked"),
    (JSONL, 6, 157, "R411", "lines L0-14: line numbers start at 1"),
    (JSONL, 7, 155, "R401", "invalid JSON: expecting ',' delimiter"),
    (JSONL, 8, 84, "R407", "cannot hash src/ledger/: cannot read src/ledger: not a regular file"),
]


def _found(report):
    return [(d.path, d.line, d.col, d.code, d.message) for d in report.diagnostics]


def test_every_finding_in_the_code_tuples_repository():
    report = Engine.load(REPO).check([REPO])
    # manifest.json (no artifact_id) and README.md (no tuple) are not claimed
    assert report.files == [REVIEW, JSON, JSONL]
    assert _found(report) == EXPECTED


def test_every_code_tuple_rule_fires():
    report = Engine.load(REPO).check([REPO])
    assert {d.code for d in report.diagnostics} == {f"R4{n:02}" for n in range(1, 13)} - {"R410"}
    engine = Engine.load(REPO)
    engine.config.kinds["code-tuples"].options["require-content-hash"] = True
    strict = engine.check([REPO]).diagnostics
    assert [(d.path, d.line, d.severity.value) for d in strict if d.code == "R410"] == [
        (REVIEW, 9, "error"), (REVIEW, 30, "error"), (JSON, 37, "error")
    ]
    assert not [d for d in strict if d.code == "R409"]
    # the suppression in the review names R409; under R410 it suppresses nothing and says so
    assert [(d.line, d.message) for d in strict if d.code == "C007"] == [
        (29, "suppression of R409 is unused: no R409 diagnostic on this line")
    ]


def test_fresh_tuples_are_silent():
    report = Engine.load(REPO).check([REPO])
    lines = {(d.path, d.line) for d in report.diagnostics}
    assert (REVIEW, 7) not in lines  # [src/ledger/accounts.py@a002ad0326036ff2, L15-19]
    assert (JSONL, 3) not in lines  # a binary file, hashed over its raw bytes
    assert not [d for d in report.diagnostics if d.path == JSON and d.line in (11, 39, 59)]


# -- the inline grammar -----------------------------------------------------------------------------

SCHEMA_INLINE = regex.compile(
    json.loads((PROJECT / "pytest_citations" / "schemas" / "rlm-citation-tuple.schema.json").read_text())[
        "x-inline-form"]["pattern"]
)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("[src/auth/login.ts@a8f9c2d4e5f60718, L42-58]", ("src/auth/login.ts", "a8f9c2d4e5f60718", "L42-58")),
        ("[src/legacy/auth.py, L88]", ("src/legacy/auth.py", None, "L88")),
        ("[src/legacy/auth.py]", None),  # no hash, no lines: prose, however path-like
        ("[README.md]", None),
        ("[src/a.py@0123456789abcdef]", ("src/a.py", "0123456789abcdef", None)),
        ("[src/a.py@deadbeef, L3]", ("src/a.py", "deadbeef", "L3")),  # a short hash with lines: a tuple, for R403
        ("[src/a.py@a8f9c2d4e5f6071]", ("src/a.py", "a8f9c2d4e5f6071", None)),  # 15 digits: a hash with a typo
        # a commit of a repository, as GitHub writes it (7 to 12 hex digits abbreviated, 40 in full)
        ("[pallets/flask@1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b]", None),
        ("[vendor/lib.js@4f3c2a1]", None),
        ("[origin/main@abcdef1]", None),
        ("[src/a.py@deadbeef]", None),
        # wrapped at the space after the comma, as 80-column Markdown is
        ("- claim [src/a.py@0000000000000000,\n  L1-3]", ("src/a.py", "0000000000000000", "L1-3")),
        ("a paragraph [src/a.py, L1\n\nL2]", None),  # a blank line ends a paragraph, and a bracket
        (r"\\[src/a.py, L1]", ("src/a.py", None, "L1")),  # an escaped backslash, then a bracket
        # code and preformatted text: in a block quote, a list item, raw HTML, display math
        ("> ```\n> [src/q.ts@a8f9c2d4e5f60718, L1]\n> ```", None),
        ("- item\n\n    ```\n    [src/x.py, L1]\n    ```", None),
        ("<pre>\n[src/l.ts@a8f9c2d4e5f60718, L4]\n</pre>", None),
        ("<code>[src/l.ts, L4]</code>", None),
        ("$$\n[src/m.ts@a8f9c2d4e5f60718, L1]\n$$", None),
        ("[src/a.py@a8f9c2d4e5f6071g]", ("src/a.py", "a8f9c2d4e5f6071g", None)),  # a typo in a hash
        ("[src/gone.py@0000000000000000," + " " * 500 + "L1]", ("src/gone.py", "0000000000000000", "L1")),
        ("[src/a.py, L1" + " " * 600 + "]", ("src/a.py", None, "L1")),
        ("[src/a.py, L1" + "\u00a0" * 600 + "]", ("src/a.py", None, "L1")),  # padding of any white space
        # bracketed text of real Markdown that is not a tuple (rjmurillo/ai-agents, leppikallio/pai-opencode)
        ("| Update plan | [N/A] |", None),
        ("[0.25em]", None),
        ("[Scene/action]", None),
        ("[1/N]", None),
        ("CI [0.0pp, 0.0pp]", None),
        ("suite_passes[.claude/skills]", None),
        ("[System.IO.Path]::GetTempPath()", None),
        ("[actions/checkout@v4]", None),
        ("[lodash/fp@4.17.21]", None),
        ("[owner/repo@main, see below]", None),
        ("[a.py, Lorem ipsum 3]", None),
        ("[.aiwg/requirements/UC-007.md@b3d1e9c2f48a5b6c]", (".aiwg/requirements/UC-007.md", "b3d1e9c2f48a5b6c", None)),
        ("[src/a.py@ABCDEF0123456789, L3]", ("src/a.py", "ABCDEF0123456789", "L3")),
        ("[src/a.py@a8f9c2d4e5f6071, L3]", ("src/a.py", "a8f9c2d4e5f6071", "L3")),  # malformed, still a tuple
        ("[src/a.py, L0]", ("src/a.py", None, "L0")),
        ("[src/a.py, L9-3]", ("src/a.py", None, "L9-3")),
        ("[src/a.py,L3]", ("src/a.py", None, "L3")),
        # a line part makes the shape only as the schema writes it, L<n> or L<start>-<end>: other ways
        # of naming lines are prose (session logs, admonitions); beside a hash they are R403
        ("[src/a.py, lines 3-5]", None),
        ("- Fixed null check in [Get-Config.ps1, line 42] (was throwing).", None),
        ("- Reviewed [build/scripts/release.sh, lines 10-20]; OK.", None),
        ("- Coverage for [src/Parser.cs, l3] improved.", None),
        ("!!! note \"See [docs/x.md, line 4]\"", None),
        ("[src/a.py, L3-L5]", None),
        ("[src/a.py, L3-]", None),
        ("[docs/cpu.md, L2 cache]", None),
        ("[src/a.py, L\u0661]", None),  # an Arabic-Indic digit is not a digit of the schema's
        ("[src/a.py@0123456789abcdef, lines 3-5]", ("src/a.py", "0123456789abcdef", "lines 3-5")),
        ("[src/a.py@0123456789abcdef, L3-L5]", ("src/a.py", "0123456789abcdef", "L3-L5")),
        ("[src/a.py@0123456789abcdef, l3]", ("src/a.py", "0123456789abcdef", "l3")),
        ("[/etc/passwd, L1]", ("/etc/passwd", None, "L1")),
        ("[/etc/passwd]", None),
        ("[../x.py, L1]", ("../x.py", None, "L1")),
        ("[1]", None),
        ("[Paywall]", None),
        ("[Insufficient evidence for X]", None),
        ("[Insufficient evidence for X, L5]", None),
        ("[e.g.]", None),
        ("[v1.2]", None),
        ("[x]", None),
        ("[^1]", None),
        ("[src/a.py](src/a.py)", None),  # link text
        ("[see][src/a.py]", None),  # reference link
        ("[src/a.py]: https://example.org", None),  # link reference definition
        ("[https://example.org/a.py]", None),
        ("[user@example.com]", None),
        ("[foo.py, bar.py]", None),
        (r"\[src/a.py\]", None),
        ("`[src/a.py, L3]`", None),
        ("``[src/a.py`x`, L3]``", None),
        ("<!-- [src/a.py, L3] -->", None),
    ],
)
def test_inline_grammar(text, expected):
    found = [(m.artifact_id, m.hash, m.lines) for m in find_inline(f"{text}\n")]
    assert found == ([expected] if expected else [])


def test_the_schema_regex_is_wrong_where_the_grammar_is_right():
    # what the issue reports about x-inline-form, proved on the bundled copy
    assert SCHEMA_INLINE.search("[src/legacy/auth.py, L88]")["artifact_id"] == "src/legacy/auth.py, L88"
    for text in ("[1]", "[Paywall]", "[Insufficient evidence for X]"):
        assert SCHEMA_INLINE.search(text) and not list(find_inline(text))
    assert SCHEMA_INLINE.search("[src/a.py@ABCDEF0123456789]") is None
    assert [m.hash for m in find_inline("[src/a.py@ABCDEF0123456789]")] == ["ABCDEF0123456789"]


def test_fenced_code_and_front_matter_are_skipped():
    text = (
        "---\nfiles: [src/a.py]\n---\n"
        "```python\n[src/b.py, L1]\n```\n"
        "~~~~\n[src/c.py]\n~~~\n[src/d.py]\n~~~~\n"
        "    [src/e.py, L2]\n"  # indented code blocks are prose to this scanner (documented)
        "[src/f.py@0123456789abcdef]\n"
    )
    assert [m.artifact_id for m in find_inline(text)] == ["src/e.py", "src/f.py"]


def test_path_likeness():
    assert looks_like_path("src/app.py") and looks_like_path("src/auth/") and looks_like_path(".gitignore")
    assert not looks_like_path("Paywall") and not looks_like_path("1.5") and not looks_like_path("a b.py")


def test_sniff_claims_tuples_only():
    assert KIND.sniff('{"citations": [{"artifact_id": "src/a.py"}]}')
    assert not KIND.sniff('{"properties": {"artifact_id": {"type": "string"}}}')
    assert KIND.sniff("# Notes\n\nSee [src/a.py, L3].\n")
    assert not KIND.sniff("# Notes\n\nSee [1] and [Paywall] and `[src/a.py, L3]`.\n")
    assert KIND.sniff('[{"artifact_id": "model-v3", "lines": "L7"}]')  # a tuple's shape, whatever the id
    assert KIND.sniff('[{"artifact_id": "src/a.py", "lines": L7}]')  # not JSON: claimed, for R401
    assert KIND.sniff('{"findings": [{"artifact_id": "src/a.py",   ')  # cut by the head's end
    assert not KIND.sniff('{"runs": [{"artifact_id": "runs/12/model", "metrics": {"acc": 0.9}}]}')
    assert not KIND.sniff('{"findings": [{"artifact_id": "model-v3",   ')


# -- building repositories ---------------------------------------------------------------------------

APP_V1 = "def login(user):\n    return user.active\n\n\ndef logout(user):\n    user.session = None\n"
APP_V2 = "def login(user):\n    return user.active\n\n\ndef logout(user):\n    user.session.clear()\n"


def _h(text: str | bytes) -> str:
    return git_history.content_hash(text.encode() if isinstance(text, str) else text)


def _git(root: Path, *args: str, date: str = "2026-01-01T12:00:00+00:00") -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_AUTHOR_NAME="Ada", GIT_AUTHOR_EMAIL="ada@example.org", GIT_COMMITTER_NAME="Ada",
               GIT_COMMITTER_EMAIL="ada@example.org", GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date)
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True, env=env).stdout


def _commit(root: Path, message: str, date: str) -> str:
    _git(root, "add", "-A")
    _git(root, "-c", "commit.gpgsign=false", "commit", "-q", "-m", message, date=f"{date}T12:00:00+00:00")
    return _git(root, "rev-parse", "HEAD").strip()


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")


@pytest.fixture
def git_repo(tmp_path):
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    root = tmp_path / "repo"
    root.mkdir()
    _git(root, "init", "-q")
    _write(root, {"src/app.py": APP_V1, "pyproject.toml": "[tool.citations]\n"})
    first = _commit(root, "Add login and logout", "2026-01-05")
    _write(root, {"src/app.py": APP_V2})
    second = _commit(root, "Clear the session on logout", "2026-02-01")
    return root, first, second


def _check(root: Path):
    return Engine.load(root).check([root]).diagnostics


def test_stale_message_names_the_commit_and_the_unchanged_lines(git_repo):
    root, first, second = git_repo
    old = _h(APP_V1)
    _write(root, {"notes/review.md": f"Inactive users are refused [src/app.py@{old}, L1-2].\n"})
    (diagnostic,) = _check(root)
    assert diagnostic.code == "R408"
    assert diagnostic.message == (
        f"STALE: src/app.py changed since it was cited (content_hash {old}, now {_h(APP_V2)}); it had this hash at "
        f'commit {first[:7]} (2026-01-05, "Add login and logout"), until commit {second[:7]} (2026-02-01, '
        '"Clear the session on logout"); L1-2 unchanged since then: --fix refreshes the hash'
    )
    assert diagnostic.fix is not None


def test_stale_message_shows_the_cited_lines_diff(git_repo):
    root, first, second = git_repo
    old = _h(APP_V1)
    _write(root, {"notes/review.md": f"Logout drops the session [src/app.py@{old}, L5-6].\n"})
    (diagnostic,) = _check(root)
    assert diagnostic.message.endswith(
        "; L5-6 changed since then: - L6 'user.session = None'; + 'user.session.clear()'; not fixed"
    )
    assert diagnostic.fix is None


def test_stale_whole_file_and_moved_lines(git_repo):
    root, first, second = git_repo
    old = _h(APP_V1)
    _write(root, {"src/app.py": "import os\n\n" + APP_V2})  # uncommitted: two lines added on top
    _write(root, {"notes/review.md": f"All of it [src/app.py@{old}].\nLogin [src/app.py@{old}, L1-2].\n"})
    whole, moved = _check(root)
    assert f'it had this hash at commit {first[:7]} (2026-01-05, "Add login and logout"), until commit' in whole.message
    assert whole.message.endswith("; the whole file is cited: re-check the claim and update the hash by hand")
    assert moved.message.endswith("; L1-2 unchanged but now at L3-4: update lines and hash by hand")
    assert whole.fix is None and moved.fix is None


def test_uncommitted_change_is_named(git_repo):
    root, first, second = git_repo
    current = _h(APP_V2)
    _write(root, {"src/app.py": APP_V2 + "\n\ndef refresh(user):\n    pass\n"})
    _write(root, {"out/findings.json": json.dumps(
        {"citations": [{"artifact_id": "src/app.py", "content_hash": current, "lines": "L1-2"}]}, indent=2)})
    (diagnostic,) = _check(root)
    assert (
        f'it had this hash at commit {second[:7]} (2026-02-01, "Clear the session on logout"), the last commit of '
        "the file; the change is not committed; L1-2 unchanged since then" in diagnostic.message
    )


def test_fix_refreshes_only_unchanged_lines(git_repo):
    root, first, second = git_repo
    old = _h(APP_V1)
    review = f"Login [src/app.py@{old}, L1-2].\nLogout [src/app.py@{old}, L5-6].\n"
    findings = json.dumps({"citations": [
        {"artifact_id": "src/app.py", "content_hash": old, "lines": "L2"},
        {"artifact_id": "src/app.py", "content_hash": old, "lines": "L6"},
    ]}, indent=2) + "\n"
    _write(root, {"notes/review.md": review, "out/findings.json": findings})
    engine = Engine.load(root)
    for rel in ("notes/review.md", "out/findings.json"):
        result = fix_file(engine, rel, engine.kinds_for(rel))
        assert result.applied == 1
        assert [d.code for d in result.diagnostics] == ["R408"]
        assert "not fixed" in result.diagnostics[0].message
    new = _h(APP_V2)
    assert (root / "notes/review.md").read_text() == f"Login [src/app.py@{new}, L1-2].\nLogout [src/app.py@{old}, L5-6].\n"
    assert (root / "out/findings.json").read_text() == findings.replace(old, new, 1)
    before = {p: p.read_bytes() for p in (root / "notes/review.md", root / "out/findings.json")}
    engine = Engine.load(root)
    for rel in ("notes/review.md", "out/findings.json"):
        assert fix_file(engine, rel, engine.kinds_for(rel)).applied == 0
    assert before == {p: p.read_bytes() for p in before}


def test_fix_without_history_changes_nothing(tmp_path):
    shutil.copytree(REPO, tmp_path / "repo", symlinks=True)
    root = tmp_path / "repo"
    before = (root / REVIEW).read_bytes()
    engine = Engine.load(root)
    result = fix_file(engine, REVIEW, engine.kinds_for(REVIEW))
    assert result.applied == 1  # only the uppercase hash (R404)
    after = (root / REVIEW).read_bytes()
    assert after == before.replace(b"A002AD0326036FF2", b"a002ad0326036ff2")
    stale = [d for d in result.diagnostics if d.code == "R408"]
    assert len(stale) == 1 and stale[0].message.endswith(NO_GIT)


def test_history_is_bounded_in_commits(git_repo):
    root, first, second = git_repo
    _write(root, {"pyproject.toml": "[tool.citations.kinds.code-tuples]\ngit-max-commits = 1\n"})
    _write(root, {"notes/review.md": f"Login [src/app.py@{_h(APP_V1)}, L1-2].\n"})
    _commit(root, "Limit the history search", "2026-02-02")
    (diagnostic,) = _check(root)
    assert diagnostic.message.endswith("; no version of the file in the last 1 commits has this hash; not fixed")


def test_history_is_bounded_in_commits_whatever_the_settings_say(git_repo, monkeypatch):
    """``git-max-commits`` comes with the checkout: the commits searched are capped at MAX_COMMITS."""
    root, first, second = git_repo
    monkeypatch.setattr(git_history, "MAX_COMMITS", 1)
    _write(root, {"pyproject.toml": "[tool.citations.kinds.code-tuples]\ngit-max-commits = 1000000000\n"})
    _write(root, {"notes/review.md": f"Login [src/app.py@{_h(APP_V1)}, L1-2].\n"})
    (diagnostic,) = _check(root)
    assert diagnostic.message.endswith("; no version of the file in the last 1 commits has this hash; not fixed")


def test_a_version_too_large_to_be_read_has_no_hash(git_repo, monkeypatch):
    """Was: a version over the size read was hashed as the empty file, so a tuple citing the empty
    file's hash found it."""
    root, first, second = git_repo
    monkeypatch.setattr(git_history, "_MAX_BLOB_BYTES", 10)
    _write(root, {"notes/review.md": f"Login [src/app.py@{_h('')}, L1].\n"})
    (diagnostic,) = _check(root)
    assert diagnostic.message.endswith("; no version of the file in its git history has this hash; not fixed")


def _bound_note() -> str:
    return f"this run read the {git_history.RUN_HISTORY_BYTES / (1 << 20):g} MiB of git history it allows"


def test_history_read_past_the_runs_bound_says_where_it_stopped(git_repo, monkeypatch):
    """The run reads its bound's worth of versions, newest first; a file whose history comes after
    gets none, and the messages say why."""
    root, first, second = git_repo
    monkeypatch.setattr(git_history, "RUN_HISTORY_BYTES", len(APP_V2))  # the newest version of src/app.py alone
    _write(root, {"notes/review.md": f"Login [src/app.py@{_h(APP_V1)}, L1-2].\nSettings [pyproject.toml@{_h('')}, L1].\n"})
    first_message, second_message = (d.message for d in _check(root))
    assert first_message.endswith(f"; no version of the file in the last 1 commits has this hash ({_bound_note()}); not fixed")
    assert second_message.endswith(f"; no git history to compare: {_bound_note()}; not fixed")


def test_a_version_is_read_again_for_its_lines_within_the_runs_bound(git_repo, monkeypatch):
    """A history keeps its versions' hashes alone; the version a message compares lines with is read
    again, and that too counts towards the run's bound."""
    root, first, second = git_repo
    monkeypatch.setattr(git_history, "RUN_HISTORY_BYTES", len(APP_V1) + len(APP_V2))  # both hashed, none read again
    _write(root, {"notes/review.md": f"Login [src/app.py@{_h(APP_V1)}, L1-2].\n"})
    (diagnostic,) = _check(root)
    assert f"it had this hash at commit {first[:7]}" in diagnostic.message
    assert diagnostic.message.endswith(
        f"; L1-2 cannot be compared: that version cannot be read from git again ({_bound_note()}); not fixed")
    assert diagnostic.fix is None


def test_a_long_commit_subject_is_shown_cut_short(git_repo):
    """Was: the whole subject, in every message naming the commit (and in memory for each)."""
    root, first, second = git_repo
    _write(root, {"src/app.py": APP_V1})
    _commit(root, "x" * 100_000, "2026-02-02")
    _write(root, {"src/app.py": APP_V2, "notes/review.md": f"Login [src/app.py@{_h(APP_V1)}, L1-2].\n"})
    (diagnostic,) = _check(root)
    assert f'(2026-02-02, "{"x" * 198}.."), the last commit of the file' in diagnostic.message
    assert len(diagnostic.message) < 1000


def test_history_is_never_read_inside_a_nested_repository(git_repo):
    root, first, second = git_repo
    nested = root / "vendor" / "lib"
    nested.mkdir(parents=True)
    _git(nested, "init", "-q")
    _write(nested, {"util.py": "x = 1\n"})
    _commit(nested, "vendored", "2026-01-01")
    _write(nested, {"util.py": "x = 2\n"})
    _write(root, {"notes/review.md": f"[vendor/lib/util.py@{_h('x = 1' + chr(10))}, L1]\n"})
    (diagnostic,) = _check(root)
    assert diagnostic.message.endswith(
        "; no git history to compare: vendor/lib/util.py lies in the nested repository vendor/lib/, whose history is "
        "not searched; not fixed"
    )


def test_a_root_inside_another_checkout_does_not_read_its_history(git_repo):
    root, first, second = git_repo
    inner = root / "project"
    _write(inner, {"pyproject.toml": "[tool.citations]\n", "app.py": "a = 1\n"})
    _commit(root, "inner project", "2026-02-03")
    _write(inner, {"app.py": "a = 2\n", "notes.md": f"[app.py@{_h('a = 1' + chr(10))}, L1]\n"})
    (diagnostic,) = _check(inner)
    assert diagnostic.message.endswith(f"; {NO_GIT}")
    _write(inner, {"pyproject.toml": '[tool.citations.kinds.code-tuples]\ngit-history = "enclosing"\n'})
    (diagnostic,) = _check(inner)
    assert "it had this hash at commit" in diagnostic.message and "L1 changed since then: - L1 'a = 1'" in (
        diagnostic.message
    )


def test_without_git_installed_the_message_says_so(tmp_path, monkeypatch):
    _write(tmp_path, {"src/a.py": "a = 2\n", "notes.md": f"[src/a.py@{_h('a = 1' + chr(10))}, L1]\n"})
    monkeypatch.setenv("PATH", str(tmp_path / "no-bin"))
    (diagnostic,) = _check(tmp_path)
    assert diagnostic.message.endswith("; no git history to compare: git is not installed; not fixed")


def test_git_history_never_raises(tmp_path):
    history = git_history.file_history(tmp_path, "a\nb.py")
    assert history.versions is None
    history = git_history.file_history(tmp_path / "absent", "a.py")
    assert history.versions is None and history.reason


# -- hostile inputs ----------------------------------------------------------------------------------


def test_hostile_artifacts(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET-TOKEN\n")
    root = tmp_path / "repo"
    _write(root, {
        "pyproject.toml": "[tool.citations]\nmax-file-size = 4096\n",
        "src/a.py": "a = 1\n",
        "deep.json": "[" * 600 + '{"artifact_id": "src/a.py", "lines": "L1"}' + "]" * 600,
        "dupes.json": '{"citations": [{"artifact_id": "src/a.py", "artifact_id": "src/b.py"}]}',
        "nan.jsonl": '{"citations": [{"artifact_id": "src/a.py", "lines": NaN}]}\n',
        "pretty.jsonl": '{\n  "artifact_id": "src/a.py"\n}\n',
        "big.md": "[src/a.py, L1]\n" + "x" * 5000,
        "cites-big.md": "[big.bin@0123456789abcdef]\n",
        "brackets.md": "[src/a.py, L1]\n" + "[" * 3000 + "]" * 3000 + "\n",
        "minified.json": json.dumps({"citations": [{"artifact_id": "src/a.py", "lines": "L1"},
                                                   {"artifact_id": "src/gone.py"}]}),
        "escape.md": "[link.txt, L1] and [/etc/hostname, L1] and [C:/Windows/win.ini, L1]\n",
    })
    (root / "big.bin").write_bytes(b"\0" * 5000)
    (root / "latin.md").write_bytes("[src/a.py, L1] caf\xe9\n".encode("latin-1"))
    os.symlink(secret, root / "link.txt")
    diagnostics = _check(root)
    found = {(d.path, d.code, d.message) for d in diagnostics}
    assert ("deep.json", "R401", "invalid JSON: nested too deeply") in found
    assert ("dupes.json", "R401", "invalid JSON: duplicate key 'artifact_id'") in found
    assert any(d.path == "nan.jsonl" and d.code == "R401" for d in diagnostics)
    assert any(d.path == "pretty.jsonl" and d.code == "C004" for d in diagnostics)
    # too large to read, but claimed by its head: reported, never passed over
    assert ("big.md", "C003", "file is 5015 bytes, over the 4096-byte limit (max-file-size)") in found
    assert ("cites-big.md", "R407", "cannot hash big.bin: file is 5000 bytes, over the 4096-byte limit (max-file-size)") in found
    assert any(d.path == "latin.md" and d.code == "C002" for d in diagnostics) or not any(
        d.path == "latin.md" for d in diagnostics)  # claimed only when the sniff sees a tuple
    assert [(d.line, d.col, d.code) for d in diagnostics if d.path == "minified.json"] == [(1, 32, "R409"), (1, 76, "R406")]
    assert [(d.col, d.code) for d in diagnostics if d.path == "escape.md"] == [(2, "R405"), (21, "R405"), (45, "R405")]
    assert all("TOP-SECRET" not in d.message for d in diagnostics)
    assert not [d for d in diagnostics if d.code == "C006"]


def test_a_cited_file_that_is_not_utf8_is_hashed_over_its_bytes(tmp_path):
    data = "café\r\n".encode("latin-1") * 3
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "menu.txt").write_bytes(data)
    _write(tmp_path, {"notes.md": f"[data/menu.txt@{_h(data)}, L1-3]\n[data/menu.txt@{_h(data)}, L4]\n"})
    assert [(d.line, d.code) for d in _check(tmp_path)] == [(2, "R412")]


def test_json_schemas_describing_tuples_are_not_tuples(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.citations]\n")
    (tmp_path / "schema.json").write_text(
        '{"$schema": "https://json-schema.org/draft/2020-12/schema", "properties": {"artifact_id": {"type": "string"}},'
        ' "examples": [{"artifact_id": "src/missing.py"}]}\n'
    )
    (tmp_path / "openapi.json").write_text('{"components": {"properties": {"artifact_id": {"type": "string"}}}}\n')
    report = Engine.load(tmp_path).check([tmp_path])
    assert report.diagnostics == []


def test_a_line_number_of_any_length_is_checked(tmp_path):
    """Ten digits or thousands match the schema's pattern; they are past the end of the file, not
    past the checker."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("a\nb\n")
    tuples = [{"artifact_id": "src/a.py", "content_hash": _h(b"a\nb\n"), "lines": lines}
              for lines in ("L1-9999999999", "L" + "9" * 5000, "L99999999999999999999-3")]
    _write(tmp_path, {"out/f.json": json.dumps({"citations": tuples}),
                      "notes.md": "[src/a.py, L1-" + "9" * 5000 + "]\n"})
    found = [(d.path, d.code) for d in _check(tmp_path) if d.code != "R409"]
    assert found == [("notes.md", "R412"), ("out/f.json", "R412"), ("out/f.json", "R412"), ("out/f.json", "R411")]


@pytest.mark.parametrize("field, value", [
    ("lines", "L\u0661"),  # an Arabic-Indic digit: Python's \d takes it, JSON Schema's does not
    ("lines", "L1\n"),  # Python's $ matches before a final newline, JSON Schema's does not
    ("content_hash", "0123456789abcdef\n"),
])
def test_the_schema_patterns_have_their_json_schema_meaning(tmp_path, field, value):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("a\n")
    _write(tmp_path, {"out/f.json": json.dumps({"citations": [{"artifact_id": "src/a.py", field: value}]})})
    assert [d.code for d in _check(tmp_path) if d.code != "R409"] == ["R402"]


def test_other_tools_artifact_ids_are_not_tuples(tmp_path):
    """``artifact_id`` is a key of model registries, SBOMs, package metadata and API examples too:
    an object is a tuple only with a tuple's shape, or under a tuple key."""
    _write(tmp_path, {
        "mlruns/registry.json": '{"models": [{"name": "resnet", "artifact_id": "model-v3", "stage": "Production"}]}',
        "mlruns/runs.json": '{"runs": [{"artifact_id": "runs/12/model", "metrics": {"acc": 0.9}}]}',
        "api/artifacts.jsonl": '{"artifact_id": "com.example:lib:1.0", "type": "maven"}\n',
        "package.json": '{"name": "x", "version": "1.0.0", "config": {"artifact_id": "my-lib"}}',
        "openapi.json": '{"openapi": "3.0.0", "components": {"schemas": {"T": {"example": '
                        '{"artifact_id": "src/auth/login.ts", "content_hash": "a8f9c2d4e5f60718"}}}}}',
        "out/findings.json": '{"findings": [{"artifact_id": "src/gone.py", "lines": "L1"}, {"artifact_id": "src/gone2.py"}],'
                             ' "citations": [{"artifact_id": "model-v3"}]}',
    })
    report = Engine.load(tmp_path).check([tmp_path])
    assert [(d.path, d.code, d.message) for d in report.diagnostics] == [
        ("out/findings.json", "R406", "MISSING: src/gone.py does not exist"),
        ("out/findings.json", "R406", "MISSING: src/gone2.py does not exist"),  # alone, with a path-like id
        ("out/findings.json", "R406", "MISSING: model-v3 does not exist"),  # under the tuple key: a tuple whatever it holds
    ]


def test_line_references_in_prose_are_not_tuples(tmp_path):
    """A session log names files and lines in its own words; only the schema's ``, L<n>`` (or an
    ``@hash``) makes a bracket a tuple, so the log is not claimed at all."""
    _write(tmp_path, {"sessions/2026-03-02.md": (
        "# Session log\n\n"
        "- Fixed null check in [Get-Config.ps1, line 42] (was throwing).\n"
        "- Reviewed [build/scripts/release.sh, lines 10-20]; OK.\n"
        "- Coverage for [src/Parser.cs, l3] improved.\n"
        '!!! note "Read [docs/x.md, line 4] first"\n'
    )})
    report = Engine.load(tmp_path).check([tmp_path])
    assert (report.files, report.diagnostics) == ([], [])


ARTIFACT_MANIFESTS = {
    "release/artifacts.json": '{"build": 412, "artifacts": [\n  {"artifact_id": "dist/app-1.4.2.tar.gz", "content_hash": '
                              '"sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", "size": 10240}]}\n',
    "release/registry.jsonl": '{"artifact_id": "models/resnet50.onnx", "content_hash": "b3f1c2", "stage": "prod"}\n',
    # the schema's keys alone, but a hash of another tool's form: a full sha256, a short digest
    "release/checksums.json": '[{"artifact_id": "dist/app-1.4.2.tar.gz", "content_hash": "sha256:9f86d081884c7d65"},'
                              ' {"artifact_id": "dist/app.whl", "content_hash": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b'
                              '0b822cd15d6c15b0f00a08"}]\n',
    # a line count, not a line range
    "stats/sizes.jsonl": '{"artifact_id": "src/app.py", "lines": 120}\n',
}


def test_artifact_manifests_are_not_tuples(tmp_path):
    """Build and model artifact manifests use ``artifact_id`` and ``content_hash`` for their own
    records: an object is a tuple outside a tuple key only with the schema's keys and nothing else,
    each of a tuple's form, so neither the records nor the files are claimed."""
    _write(tmp_path, ARTIFACT_MANIFESTS)
    report = Engine.load(tmp_path).check([tmp_path])
    assert (report.files, report.diagnostics) == ([], [])
    assert not any(KIND.sniff(text) for text in ARTIFACT_MANIFESTS.values())


def test_tuples_of_the_schema_s_shape_are_found_outside_a_tuple_key(tmp_path):
    """The other side of the manifests above: an object of the schema's keys whose parts have a
    tuple's form is a tuple wherever it is, and a near miss of that form is still reported."""
    _write(tmp_path, {"out/review.json": json.dumps({"findings": [
        {"artifact_id": "src/gone.py", "content_hash": "0123456789abcdef"},
        {"artifact_id": "src/gone2.py", "content_hash": "0123456789ABCDEF", "lines": "L3"},
        {"artifact_id": "src/gone3.py", "content_hash": "0123456789abcde", "lines": "L1-2"},
        {"artifact_id": "model-v3", "lines": "L7"},
    ]})})
    report = Engine.load(tmp_path).check([tmp_path])
    assert report.files == ["out/review.json"]
    assert [(d.code, d.message) for d in report.diagnostics] == [
        ("R406", "MISSING: src/gone.py does not exist"),
        ("R406", "MISSING: src/gone2.py does not exist"),
        ("R404", "content_hash '0123456789ABCDEF' must be lowercase: '0123456789abcdef'"),
        ("R406", "MISSING: src/gone3.py does not exist"),
        ("R402", "findings[2]: content_hash '0123456789abcde' is not 16 lowercase hex digits"),
        ("R406", "MISSING: model-v3 does not exist"),
    ]


def test_a_json_tuple_padded_past_the_head_is_claimed(tmp_path):
    _write(tmp_path, {"out/f.json": '[{"artifact_id": "src/gone.py",' + " " * 70_000 + '"lines": "L1"}]\n'})
    assert [(d.path, d.code) for d in _check(tmp_path)] == [("out/f.json", "R406")]


PAD = 70_000  # past the head of 64 KiB that decides the claim


@pytest.mark.parametrize("bracket", [
    "[src/gone.py@0000000000000000," + " " * PAD + "L1]",
    "[src/gone.py@0000000000000000," + "\t" * PAD + "L1]",
    "[src/gone.py@0000000000000000," + "\u00a0" * (PAD // 2) + "L1]",
    "[src/gone.py@0000000000000000,\n" + " " * PAD + "L1]",
    "[src/gone.py@0000000000000000," + " " * 300_000 + "L1]",
    "[src/gone.py," + " " * PAD + "L1]",
    "[src/gone.py" + " " * PAD + ", L1]",
    "[src/gone.py@0000000000000000" + " " * PAD + "]",
    "[src/gone.py, L1" + " " * PAD + "]",
    "[src/gone.py,<!--" + "x" * PAD + "-->L1]",  # the prose blanks a comment, a code span, raw code
    "[src/gone.py, `" + " " * PAD + "`L1]",
    "[src/gone.py, <code>" + " " * PAD + "</code>L1]",
], ids=["spaces", "tabs", "nbsp", "line-end-then-spaces", "spaces-past-four-windows", "no-hash", "before-the-comma",
        "after-the-hash", "after-the-lines", "html-comment", "code-span", "code-element"])
def test_padding_of_any_length_does_not_hide_a_tuple(tmp_path, bracket):
    """The head that decides the claim ends inside the padded bracket: the bracket may still be a
    tuple, so the file is claimed and read whole."""
    _write(tmp_path, {"pad.md": "# Notes\n\nX " + bracket + ".\n"})
    assert [(d.path, d.line, d.col, d.code) for d in _check(tmp_path)] == [("pad.md", 3, 4, "R406")]


@pytest.mark.parametrize("cut", [1, 3, 9, 12, 20, 29, 30, 35, 41])
def test_a_tuple_cut_anywhere_by_the_sniff_window_is_claimed(tmp_path, cut):
    """Wherever the window's end falls in a padded tuple (in its id, its hash, after its comma, in
    its padding, in its line part), the file is claimed."""
    from pytest_citations.discovery import SNIFF_BYTES

    filler = "word " * (SNIFF_BYTES // 5) + "\n\n"
    before = filler[: SNIFF_BYTES - cut]
    text = before + "[src/gone.py@0000000000000000," + " " * 10 + "L1]\n"
    _write(tmp_path, {"pad.md": text})
    assert [(d.path, d.code) for d in _check(tmp_path)] == [("pad.md", "R406")]


@pytest.mark.parametrize("tail", [
    "[1" + " " * 70_000 + "]", "[see below" + " " * 70_000 + "]", "[Paywall" + "\t" * 70_000 + "]",
    "[src/a.py, lines" + " " * 70_000 + "3-5]", "[src/a.py, L2 cache" + " " * 70_000 + "]", "[src/a.py]" + " " * 70_000,
    "[src/a.py, L1-" + " " * 70_000 + "5]",
    "```\n[src/a.py@0000000000000000," + " " * 70_000, "[src/a.py,\n\n" + " " * 70_000 + "L1]",
])
def test_a_long_file_whose_head_ends_in_prose_is_not_claimed(tmp_path, tail):
    """A bracket the head's end cuts is claimed only when it may still be a tuple."""
    _write(tmp_path, {"long.md": "# Notes\n\n" + tail + "\n"})
    report = Engine.load(tmp_path).check([tmp_path])
    assert (report.files, report.diagnostics) == ([], [])


@pytest.mark.parametrize("head", [
    "[" * 65_536, "[a" * 32_768, "x\n" * 32_767 + "[a", ("[src/a.py@" + " " * 500 + "\n") * 128,
    "`" * 65_535 + "[", "<!--" * 16_383 + "[src/a.py,", "[src/a.py, " + "L1-" * 21_841,
], ids=["brackets", "bracket-letter", "lines", "open-tuples", "backticks", "comments", "line-parts"])
def test_the_sniff_of_a_long_markdown_head_is_linear(head):
    """Whether a head ends inside a tuple is worked out in one pass over it, whatever it holds."""
    import time

    started = time.process_time()
    KIND.sniff(head)
    assert_cpu_under(time.process_time() - started, 1.0)


def test_a_json_lines_head_cut_inside_its_own_brackets_is_not_claimed(tmp_path):
    """A JSON Lines file whose first 64 KiB end inside a deep array is not a Markdown tuple cut by
    the head: it was claimed as code tuples (R401 on every line that is not JSON)."""
    deep = "[" * 100_000 + "]" * 100_000
    (tmp_path / "data.jsonl").write_text('{"id": 1}\n' + deep + "\n", encoding="utf-8")
    engine = Engine.load(tmp_path)
    assert engine.kinds_for("data.jsonl") == ()


def test_a_finding_on_a_field_of_a_tuple_written_over_several_lines_shows_that_fields_line(tmp_path):
    """Was: the line and column of the field, under the line of the tuple's ``{``."""
    (tmp_path / "pyproject.toml").write_text("[tool.citations]\n")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("x = 1\n")
    (tmp_path / "review.json").write_text(
        '{"citations": [\n  {\n    "artifact_id": "src/a.py",\n    "lines": "L9"\n  }\n]}\n')
    found = {d.code: d for d in _check(tmp_path)}
    past_the_end = found["R412"]
    assert (past_the_end.line, past_the_end.col, past_the_end.context) == (4, 14, '    "lines": "L9"')
    no_hash = found["R409"]  # (at its artifact id)
    assert (no_hash.line, no_hash.col, no_hash.context) == (3, 20, '    "artifact_id": "src/a.py",')


def test_a_markdown_file_whose_first_tuple_lies_past_the_head_is_claimed_and_checked(tmp_path):
    """Pages of prose, then the citations: the file is read on past its 64 KiB head, and its tuples
    are checked. Was: not claimed, a silent pass."""
    (tmp_path / "pyproject.toml").write_text("[tool.citations]\n")
    prose = "".join(f"Paragraph {n} of the review says what was looked at and why it matters.\n\n" for n in range(1500))
    assert len(prose) > 65_536
    (tmp_path / "review.md").write_text(prose + "The limit is checked in [src/gone.py, L3].\n")
    (tmp_path / "plain.md").write_text(prose + "No citation here, only [a link](https://example.org/x.md).\n")
    assert [(d.path, d.code) for d in _check(tmp_path)] == [("review.md", "R406")]


def test_a_code_block_that_straddles_a_piece_read_past_the_head_hides_no_tuple_after_it(tmp_path):
    """The text past the head is read in pieces of 1 MiB; a code block opened in one and closed in
    the next made the next piece blank what followed its close, and the tuple after it was never
    checked (found by an attack). What may be a tuple is now looked for whatever surrounds it."""
    (tmp_path / "pyproject.toml").write_text("[tool.citations]\n")
    line = "Paragraph of the review says what was looked at and why it matters.\n\n"
    prose = line * ((1 << 20) // len(line) - 30)
    block = "```python\n" + "x = 1\n" * 500 + "```\n\n"
    (tmp_path / "review.md").write_text(prose + block + "The login check rests on [src/gone.py, L1-2].\n")
    assert [(d.path, d.code) for d in _check(tmp_path)] == [("review.md", "R406")]


@pytest.mark.parametrize("cited", ["[src/gone.py,\nL1-2]", "[src/" + "deep/" * 100 + "gone.py, L1]"],
                         ids=["a line end after the comma", "a path of 500 characters"])
def test_a_tuple_past_the_head_is_found_whatever_its_form(tmp_path, cited):
    """What may be a tuple, looked for in the text past the head, takes every form a tuple may
    have (was: not a comma at a line's end, nor an id of over 400 characters)."""
    (tmp_path / "pyproject.toml").write_text("[tool.citations]\n")
    line = "Paragraph of the review says what was looked at and why it matters.\n\n"
    (tmp_path / "review.md").write_text(line * 1200 + "The login check rests on " + cited + ".\n")
    assert [(d.path, d.code) for d in _check(tmp_path)] == [("review.md", "R406")]

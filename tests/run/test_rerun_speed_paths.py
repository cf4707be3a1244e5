"""The fast paths of a re-run proven equal to the slow ones: resolving and stat-ing a file in one
``lstat`` (sources.stat_inside), reading a file's head for the sniff (sources.read_head), one regex per kind for its include and sniff globs
(globs.first_match), and a walk done once per run."""

from __future__ import annotations

import contextlib
import os

import pytest

from pytest_citations import discovery as discovery_module
from pytest_citations.core import globs, sources
from pytest_citations.engine import Engine
from pytest_citations.run import cache as cache_module
from pytest_citations.run import dependencies


def _reference(root, rel):
    """What stat_inside stands for: resolve_inside, then os.stat of what it resolved to."""
    try:
        resolved = sources.resolve_inside(root, rel)
    except sources.SourceError as exc:
        return ("SourceError", exc.code)
    try:
        info = os.stat(resolved)
    except OSError as exc:
        return (type(exc).__name__,)
    return (str(resolved), info.st_size, info.st_mtime_ns, info.st_ino, info.st_mode)


def _fast(root, rel):
    try:
        path, info = sources.stat_inside(root, rel)
    except sources.SourceError as exc:
        return ("SourceError", exc.code)
    except OSError as exc:
        return (type(exc).__name__,)
    return (path, info.st_size, info.st_mtime_ns, info.st_ino, info.st_mode)


@pytest.fixture
def tricky_tree(tmp_path):
    """A root reached through a symlink, holding every kind of path a cache fingerprints."""
    real = tmp_path / "real"
    (real / "src" / "pkg").mkdir(parents=True)
    (real / "src" / "pkg" / "a.py").write_text("a\n")
    (real / "top.md").write_text("top\n")
    (tmp_path / "outside.txt").write_text("secret\n")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "x.py").write_text("x\n")
    os.symlink(real / "src" / "pkg" / "a.py", real / "link-in.py")
    os.symlink(tmp_path / "outside.txt", real / "link-out.txt")
    os.symlink(tmp_path / "outside", real / "folder-out")
    os.symlink(real / "src", real / "folder-in")
    os.symlink("loop-b", real / "loop-a")
    os.symlink("loop-a", real / "loop-b")
    os.symlink("missing-target", real / "dangling")
    os.mkfifo(real / "fifo")
    os.symlink(real, tmp_path / "via-link")
    return tmp_path / "via-link"


TRICKY_PATHS = [
    "src/pkg/a.py", "top.md", "link-in.py", "link-out.txt", "folder-out/x.py", "folder-in/pkg/a.py",
    "loop-a", "loop-a/x", "dangling", "fifo", "src", "src/", "missing.py", "src/missing/deeper.py",
    "src/pkg/a.py/below", "../outside.txt", "src/../top.md", "src/./pkg/a.py", "./top.md", ".", "..",
    "src/pkg/..", "nul\0byte", "x" * 5000, "src//pkg//a.py", "", "/etc/hostname", "src/pkg/.", "top.md/",
    "...", "src/.../a.py", ".hidden", "folder-in/../top.md",
]


@pytest.mark.parametrize("rel", TRICKY_PATHS)
def test_stat_inside_answers_as_resolve_inside_then_stat(tricky_tree, rel):
    sources.forget_folders()
    assert _fast(tricky_tree, rel) == _reference(tricky_tree, rel)


def test_stat_inside_takes_absolute_paths_as_resolve_inside_does(tricky_tree):
    for path in (tricky_tree / "top.md", tricky_tree.resolve() / "src" / "pkg" / "a.py", tricky_tree.parent / "outside.txt"):
        sources.forget_folders()
        assert _fast(tricky_tree, str(path)) == _reference(tricky_tree, str(path))


def test_stat_inside_answers_for_the_filesystem_root_as_resolve_inside_does(tricky_tree):
    """A repository at ``/`` (a container's work folder), for files below it and its own."""
    root = type(tricky_tree)("/")
    below = str((tricky_tree / "src" / "pkg" / "a.py").resolve())[1:]
    own = sorted(entry.name for entry in os.scandir("/") if entry.is_file(follow_symlinks=False))
    for path in (below, below.rpartition("/")[0] + "/missing.py", *own[:1]):
        sources.forget_folders()
        assert _fast(root, path) == _reference(root, path)
    if not own:
        pytest.skip("no regular file directly in / to check a root's own file with")


@pytest.mark.parametrize("rel", ["src/pkg/a.py", "missing.py", "link-out.txt", "folder-in/pkg/a.py"])
def test_stat_inside_notes_the_path_as_resolve_inside_does(tricky_tree, rel):
    sources.forget_folders()
    noted = []
    for read in (sources.stat_inside, sources.resolve_inside):
        with dependencies.recording() as recorded, contextlib.suppress(sources.SourceError, OSError):
            read(tricky_tree, rel)
        noted.append(recorded.paths)
    assert noted[0] == noted[1] and noted[0]



def _by_the_full_way(root, rel, size, max_size):
    """(up to ``size`` bytes, resolved path, shown path) as a read answered before its
    one-``lstat`` path: resolve, refuse, check, then read; or the error it raised."""
    try:
        resolved = sources.resolve_inside(root, rel)
        shown = sources.display_path(sources.resolved_root(root), resolved)
        sources._regular_file(resolved, shown, max_size)
        with open(resolved, "rb") as handle:
            return handle.read(size), resolved, shown
    except sources.SourceError as exc:
        return ("SourceError", exc.code, exc.message)


def _answer(read, *arguments):
    try:
        return read(*arguments)
    except sources.SourceError as exc:
        return ("SourceError", exc.code, exc.message)


@pytest.mark.parametrize("rel", TRICKY_PATHS)
@pytest.mark.parametrize("max_size", [1, 1000])
def test_read_head_answers_as_the_full_way(tricky_tree, rel, max_size):
    sources.forget_folders()
    expected = _by_the_full_way(tricky_tree, rel, 2, max_size)
    assert _answer(sources.read_head, tricky_tree, rel, 2, max_size) == (expected if expected[0] == "SourceError" else expected[0])


@pytest.mark.parametrize("rel", TRICKY_PATHS)
@pytest.mark.parametrize("max_size", [1, 1000])
def test_a_whole_read_answers_as_the_full_way(tricky_tree, rel, max_size):
    """The files here are never over the limit by growing after their stat: the full way's size
    check alone decides."""
    sources.forget_folders()
    assert _answer(sources._read, tricky_tree, rel, max_size) == _by_the_full_way(tricky_tree, rel, max_size + 1, max_size)


def test_a_source_read_through_a_symlinked_folder_is_shown_by_its_real_path(tricky_tree):
    sources.forget_folders()
    source = sources.read_source(tricky_tree, "folder-in/pkg/a.py")
    assert (source.rel, source.text) == ("src/pkg/a.py", "a\n")
    assert source.path == tricky_tree.resolve() / "src" / "pkg" / "a.py"


@pytest.mark.parametrize("read", [lambda root, rel: sources.read_head(root, rel, 100), sources.read_source],
                         ids=["read_head", "read_source"])
def test_a_read_does_not_follow_a_symlink_put_in_place_after_the_lstat(tricky_tree, monkeypatch, read):
    """The file is swapped for a link leaving the root between the lstat and the open: the open
    refuses to follow it and the full way, which resolves the link, refuses the path."""
    real = tricky_tree.resolve()
    stat_inside = sources.stat_inside

    def swap_after_stat(root, rel):
        found = stat_inside(root, rel)
        (real / "top.md").unlink()
        os.symlink(real.parent / "outside.txt", real / "top.md")
        return found

    monkeypatch.setattr(sources, "stat_inside", swap_after_stat)
    sources.forget_folders()
    with pytest.raises(sources.SourceError) as caught:
        read(tricky_tree, "top.md")
    assert caught.value.code == "C008"

@pytest.mark.parametrize("way", ["one lstat", "full way"])
@pytest.mark.parametrize(("grown_to", "max_size"), [(50, 1000), (1000, 1000), (1001, 1000)])
def test_a_file_that_grows_after_its_stat_is_read_whole_or_refused(tricky_tree, monkeypatch, way, grown_to, max_size):
    """A read asks for one byte past the size its stat saw (not for max-file-size, which it would
    allocate): a file grown since is read to its end, or refused when over the limit."""
    real = tricky_tree.resolve() / "top.md"
    path_of, original = (sources, "stat_inside") if way == "one lstat" else (sources, "_regular_file")
    seen = getattr(path_of, original)

    def grow_after_stat(*args):
        found = seen(*args)
        real.write_bytes(b"x" * grown_to)
        return found

    monkeypatch.setattr(path_of, original, grow_after_stat)
    sources.forget_folders()
    rel = "top.md" if way == "one lstat" else tricky_tree / "top.md"  # a Path takes the full way
    if grown_to > max_size:
        with pytest.raises(sources.SourceError) as caught:
            sources._read(tricky_tree, rel, max_size)
        assert caught.value.code == "C003"
    else:
        assert sources._read(tricky_tree, rel, max_size)[0] == b"x" * grown_to


GLOB_LISTS = [
    ((".serena/memories/**/*.md",), ("**/*.md",)),
    ((), ("**/*.json", "**/*.jsonl", "**/*.md", "**/*.markdown")),
    (("eval/*.jsonl", "eval/manifest.json", "**/*.ttl"), ("**/*.jsonl",)),
    (("**/synthesis.md", "**/synthesis/*.md", "**/summaries/*.md"), ()),
    ((), ()),
    (("vendor",), ("a/?.md", "*.md")),
]
GLOB_PATHS = [
    ".serena/memories/a.md", ".serena/memories/x/y/b.md", ".serena/b.md", "notes.md", "a/b.md", "a/bc.md",
    "eval/x.jsonl", "eval/deep/x.jsonl", "eval/manifest.json", "x/manifest.json", "g.ttl", "synthesis.md",
    "r/synthesis/s.md", "r/summaries/deep/s.md", "vendor/x/y.md", "vendors/x", "x.json", "x.markdown",
    "a\nb.md", "src/m.py", "",
]


@pytest.mark.parametrize("lists", GLOB_LISTS)
def test_first_match_is_the_first_list_that_matches(lists):
    first = globs.first_match(lists)
    for path in GLOB_PATHS:
        expected = next((index for index, patterns in enumerate(lists) if globs.matches(path, patterns)), None)
        assert first(path) == expected, path


def _memories_repo(root, count=3):
    root.mkdir(exist_ok=True)
    (root / "pyproject.toml").write_text("[tool.citations]\n")
    (root / "src").mkdir()
    (root / "src" / "a.py").write_text("def a():\n    return 1\n")
    folder = root / ".serena" / "memories"
    folder.mkdir(parents=True)
    for number in range(count):
        (folder / f"m{number}.md").write_text(
            f"---\nid: mem-{number}\nsubject: s\ncitations:\n  - path: src/a.py\n    line: 1\n    snippet: def a\n---\nbody\n"
        )
    (root / "notes.md").write_text("# notes\n")
    return root


def test_a_run_walks_the_tree_once(tmp_path, monkeypatch):
    root = _memories_repo(tmp_path)
    engine = Engine.load(root)
    walks = []
    real_walk = discovery_module._walk
    monkeypatch.setattr(discovery_module, "_walk", lambda *args, **kwargs: walks.append(args) or real_walk(*args, **kwargs))
    first = list(engine.discover([root]))
    again = list(engine.discover([root]))  # as a run-wide index does
    assert first == again and len(walks) == 1
    assert [rel for rel, _ in first] == [".serena/memories/m0.md", ".serena/memories/m1.md", ".serena/memories/m2.md"]
    engine.forget()  # after --fix rewrote files, the tree is walked again
    list(engine.discover([root]))
    assert len(walks) == 2


def test_claims_are_those_of_each_kinds_globs_taken_one_by_one(tmp_path):
    """Engine._claim against the plain reading of the settings: a kind claims a file that its
    excludes leave and its include globs match (unless its by_content_only globs match too: then
    its sniff decides), or its sniff globs match and its sniff says so."""
    root = _memories_repo(tmp_path)
    (root / "run" / "citations").mkdir(parents=True)
    (root / "run" / "citations" / "citations.jsonl").write_text("")
    (root / "other" / "citations").mkdir(parents=True)
    (root / "other" / "citations" / "citations.jsonl").write_text('{"citing": "10.1/a", "cited": "10.1/b"}\n')
    (root / "notes").mkdir()
    (root / "notes" / "CLAUDE.md").write_text("# Instructions\n")
    (root / ".serena" / "memories" / "CLAUDE.md").write_text("# Instructions\n")
    (root / "eval").mkdir()
    (root / "eval" / "manifest.json").write_text("{}")
    (root / "synthesis.md").write_text("# s\n")
    engine = Engine.load(root)
    for current, _, names in os.walk(root):
        for name in names:
            rel = os.path.relpath(os.path.join(current, name), root).replace(os.sep, "/")
            expected = []
            for kind in engine.kinds:
                settings = engine.config.kinds[kind.name]
                if globs.matches(rel, settings.exclude):
                    continue
                included = globs.matches(rel, settings.include)
                text = (root / rel).read_text()
                sniffed = kind.sniff_file(rel, text) if hasattr(kind, "sniff_file") else kind.sniff(text)
                by_path = included and not globs.matches(rel, getattr(kind, "by_content_only", ()))
                if by_path or ((included or globs.matches(rel, kind.sniff_include)) and sniffed):
                    expected.append(kind.name)
            assert [kind.name for kind in engine.kinds_for(rel)] == expected, rel


@pytest.mark.parametrize("start", ["/repo", "/repo/", "/", "/repo/sub", "/other"])
@pytest.mark.parametrize(
    "path", ["/repo/a.md", "/repo/.serena/memories/m.md", "/repo/sub/x.md", "/repository/a.md", "/repo/../a.md",
             "/repo/./a.md", "/repo//a.md", "/a.md", "/repo"],
)
def test_shown_paths_are_what_relpath_gives(path, start):
    from pathlib import PurePosixPath

    from pytest_citations.frontends.shown_paths import shown_from

    expected = PurePosixPath(os.path.relpath(path, start)).as_posix()
    assert shown_from(PurePosixPath(path), PurePosixPath(start)) == expected


@pytest.mark.parametrize("damaged", ["memories", 5, None, [1], {"memories": 1}])
def test_a_damaged_claim_memo_is_not_trusted(tmp_path, damaged):
    root = _memories_repo(tmp_path / "repo")
    folder = tmp_path / "cache"
    engine = Engine.load(root)
    engine.state.enable_cache(folder)
    claimed = {rel: kinds for rel, kinds in engine.discover([root])}
    engine.save_cache()
    (path,) = folder.glob("results-*.json")
    data = cache_module.read_document(path)
    for entry in data["files"].values():
        entry["memo"]["claim"] = damaged
    cache_module.write_document(path, data)  # (damaged, yet authenticated: its shape is what is tested)
    again = Engine.load(root)
    again.state.enable_cache(folder)
    assert {rel: tuple(k.name for k in kinds) for rel, kinds in again.discover([root])} == {
        rel: tuple(k.name for k in kinds) for rel, kinds in claimed.items()
    }

"""Benchmark: the checker against floors and baselines, on generated corpora, in the same run.

Every measurement runs a fresh subprocess (``bench/child.py``, which records its own peak RSS);
the checker and what it is compared with alternate, ``--repeat`` times, and the medians are
reported as ratios, because absolute times on shared machines are noise. The planted errors must
all be found, every run: speed cannot come from skipping work. The online check is measured
against a local server of its own (``bench/online_server.py``), as a share of the throughput its
per-host limits allow. Targets are reported, not enforced: the exit status is 1 only when a
planted count (or a re-checked count, or the requests the online check made) is wrong.

    python bench/run.py [--scale S] [--repeat K] [--only briefs,memories] [--seed N] [--json FILE]

See bench/README.md for the scenarios, the floors and how to read the table.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import corpora  # noqa: E402

CORPUS_SCENARIOS = ("url-citations", "online", "briefs", "memories", "code-tuples", "ear")
MULTI_FILE = ("briefs", "memories", "code-tuples", "ear")
EXTRA_SCENARIOS = ("pytest", "small-file")
IMPORTS = "import pytest, pluggy, markdown_it, ruamel.yaml, regex, jsonschema"
CHECK_TARGETS = {"url-citations": 3.0, "briefs": 1.25, "memories": 1.5}
URL_RSS_LIMIT_MIB = 150
ONLINE_LATENCY = 0.05  # seconds the online scenario's server waits before each answer
ONLINE_HOST_CONCURRENCY, ONLINE_HOST_INTERVAL = 2, 0.1  # the check's defaults, given on its command line
ONLINE_SHARE = 0.8  # of the throughput the per-host limits allow
ONLINE_RSS_LIMIT_MIB = 200


class CheckFailed(AssertionError):
    """A run crashed, found another number of planted errors, or checked another number of files."""


# -- one measured process ---------------------------------------------------------------------------------------


@dataclass
class Run:
    wall: float
    rss_kib: int  # the largest of the process and its workers
    exit: int
    stdout: str
    stderr: str


#: The measured process is started by a small shell, not by this one: Linux counts in a process's
#: ``ru_maxrss`` the memory of the process it was forked from (the child's copy of it, until exec),
#: so a child of this harness would report at least the harness's own size. ``; exit`` keeps the
#: shell from exec-ing the command in its own process.
LAUNCHER = ["/bin/sh", "-c", '"$@"; exit $?', "sh"]


def child_environment() -> dict[str, str]:
    """This environment, but writing bytecode caches as an installed tool does: with
    ``PYTHONDONTWRITEBYTECODE`` set, every run would compile again each module edited since its
    last cache, and pytest's assertion rewriting could cache nothing."""
    return {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}


def measure(arguments: list[str], cwd: Path, env: dict | None = None) -> Run:
    """Wall time and peak RSS of ``python bench/child.py ... arguments``, in a fresh process."""
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as handle:
        rss_file = Path(handle.name)
    try:
        start = time.perf_counter()
        done = subprocess.run([*LAUNCHER, sys.executable, str(HERE / "child.py"), str(rss_file), *arguments], cwd=cwd,
                              capture_output=True, text=True, env={**child_environment(), **(env or {})})
        wall = time.perf_counter() - start
        peak = json.loads(rss_file.read_text()) if rss_file.stat().st_size else {"self": 0, "children": 0}
    finally:
        rss_file.unlink(missing_ok=True)
    return Run(wall, max(peak["self"], peak["children"]), done.returncode, done.stdout, done.stderr)


def tool(*arguments: str) -> list[str]:
    return ["-m", "pytest_citations", "check", *arguments]


def floor(scenario: str, corpus_json: Path) -> list[str]:
    return [str(HERE / "floors.py"), scenario, str(corpus_json)]


# -- what the CLI can do today ----------------------------------------------------------------------------------


def check_flags(cwd: Path) -> set[str]:
    """The options ``citations check --help`` lists (``--no-cache``, ``-j``, ...).

    Run outside the project (as every measurement is), so ``-m`` finds the same package they do.
    """
    done = subprocess.run([sys.executable, "-m", "pytest_citations", "check", "--help"], capture_output=True, text=True,
                          cwd=cwd)
    return set(re.findall(r"(?<![\w-])(-j|--[a-z][a-z-]*)", done.stdout))


def has_xdist() -> bool:
    import importlib.util

    return importlib.util.find_spec("xdist") is not None


def missing(flags: set[str], *needed: str) -> str | None:
    absent = [f for f in needed if f not in flags]
    return f"n/a (flag missing: {', '.join(absent)})" if absent else None


# -- reading a report -------------------------------------------------------------------------------------------


@dataclass
class Report:
    codes: Counter
    files_checked: int | None
    data: dict


def read_report(path: Path, run: Run) -> Report:
    if run.exit not in (0, 1) or not path.exists():
        raise CheckFailed(f"the checker exited {run.exit}:\n{run.stderr[-3000:]}{internal_errors(path)}")
    data = json.loads(path.read_text())
    return Report(Counter(d["code"] for d in data["diagnostics"]), data.get("files_checked"), data)


def internal_errors(path: Path) -> str:
    """The report's internal errors (C006: a rule that crashed, which makes the exit status 2), if it has any."""
    try:
        crashed = [d["message"] for d in json.loads(path.read_text())["diagnostics"] if d["code"] == "C006"]
    except (OSError, ValueError, KeyError, TypeError):
        return ""
    return "".join(f"\nC006 {message}" for message in dict.fromkeys(crashed))


def expect_planted(report: Report, corpus: corpora.Corpus, what: str) -> None:
    found = report.codes[corpus.planted_code]
    if found != corpus.planted:
        raise CheckFailed(f"{what}: found {found} {corpus.planted_code}, planted {corpus.planted}")


def other_findings(report: Report, corpus: corpora.Corpus) -> dict[str, int]:
    """Findings besides the planted ones: the corpus should have none (a generator bug or a false positive)."""
    return {code: n for code, n in sorted(report.codes.items()) if code != corpus.planted_code}


def cache_counts(report: Report, run: Run) -> tuple[int, int] | None:
    """(files re-checked, files served from the cache) of a ``--cache-dir`` run, or None if not told.

    The CLI says it on standard error with ``-v``: ``citations: N files checked, H from the cache``
    (N counts every file of the run, so H of them came from the cache and N - H were re-checked).
    A JSON report that carries the counts (``"cache": {"checked": N, "cached": H}``) is read first.
    """
    cache = report.data.get("cache")
    if isinstance(cache, dict) and isinstance(cache.get("checked"), int) and isinstance(cache.get("cached"), int):
        return cache["checked"], cache["cached"]
    said = re.search(r"citations: (\d+) files? checked, (\d+) from the cache", run.stderr)
    return (int(said[1]) - int(said[2]), int(said[2])) if said else None


# -- rows -------------------------------------------------------------------------------------------------------


@dataclass
class Target:
    """Pass when tool/base <= ``ratio`` (and the tool's time < ``seconds``, when given)."""

    ratio: float
    text: str
    seconds: float | None = None

    def met(self, row: Row) -> bool:
        return row.ratio is not None and row.ratio <= self.ratio and (
            self.seconds is None or row.tool_s < self.seconds)


@dataclass
class Row:
    scenario: str
    base: str  # what the tool is compared with
    target: str
    base_s: float | None = None
    tool_s: float | None = None
    ratio: float | None = None
    base_rss_kib: int | None = None
    tool_rss_kib: int | None = None
    passed: bool | None = None
    note: str = ""
    details: dict = field(default_factory=dict)


def finish(row: Row, target: Target, base: list[Run], mine: list[Run], extra_pass: bool = True) -> Row:
    row.base_s = round(statistics.median(r.wall for r in base), 3)
    row.tool_s = round(statistics.median(r.wall for r in mine), 3)
    row.ratio = round(row.tool_s / row.base_s, 3) if row.base_s else None
    row.base_rss_kib = max(r.rss_kib for r in base)
    row.tool_rss_kib = max(r.rss_kib for r in mine)
    row.passed = target.met(row) and extra_pass
    return row


def not_available(scenario: str, base: str, target: Target, why: str) -> Row:
    return Row(scenario, base, target.text, note=why)


# -- the measurements -------------------------------------------------------------------------------------------


class Bench:
    """The measurements, one method per kind of row; each returns its row or raises CheckFailed."""

    def __init__(self, args: argparse.Namespace, work: Path) -> None:
        self.repeat = args.repeat
        self.scale = args.scale
        self.work = work  # reports, cache dirs and small repositories of this run
        self.flags = check_flags(work)
        self.no_cache = ["--no-cache"] if "--no-cache" in self.flags else []
        self.verbose = ["-v"] if "--verbose" in self.flags else []  # the cache counts, on standard error
        self.facts: dict = {}
        self.counter = 0
        self.item_counts: dict[str, tuple[int, int]] = {}  # scenario -> pytest's (passed, failed) under -n

    def out(self) -> Path:
        self.counter += 1
        return self.work / f"report-{self.counter}.json"

    def checked(self, corpus: corpora.Corpus, flags: list[str], what: str) -> tuple[Run, Report]:
        """One checker run on the whole corpus; its planted count is asserted."""
        output = self.out()
        run = measure(tool(".", "--format", "json", "--output-file", str(output), *flags), corpus.root)
        report = read_report(output, run)
        expect_planted(report, corpus, what)
        return run, report

    # check: the tool vs the floor

    def check_row(self, corpus: corpora.Corpus, corpus_json: Path) -> Row:
        limit = CHECK_TARGETS.get(corpus.scenario)
        target = Target(limit or float("inf"), f"<= {limit}x floor" if limit else "none (reported)")
        rss_ok = True
        base, mine, floor_out, others = [], [], {}, {}
        for _ in range(self.repeat):  # interleaved, so both see the same machine load
            run = measure(floor(corpus.scenario, corpus_json), corpus.root)
            if run.exit:
                raise CheckFailed(f"the floor failed:\n{run.stderr[-3000:]}")
            floor_out = json.loads(run.stdout)
            base.append(run)
            run, report = self.checked(corpus, self.no_cache, f"{corpus.scenario} check")
            others = other_findings(report, corpus)
            mine.append(run)
        row = Row(f"{corpus.scenario}: {corpus.summary}, {corpus.planted} planted {corpus.planted_code}", "floor",
                  target.text, details={"floor": floor_out, "other_findings": others})
        if corpus.scenario == "url-citations":
            row.target += f", RSS <= {URL_RSS_LIMIT_MIB} MiB"
            rss_ok = max(r.rss_kib for r in mine) / 1024 <= URL_RSS_LIMIT_MIB
        if "yaml_parser" in floor_out:
            self.facts["floor_yaml_parser"] = floor_out["yaml_parser"]
            row.note = f"floor YAML parser: {floor_out['yaml_parser']}"
        if others:
            row.note = (row.note + "; " if row.note else "") + f"other findings: {others}"
        finish(row, target, base, mine, rss_ok)
        if not limit:
            row.passed = None
        return row

    # cache: cold vs re-run with nothing changed

    def rerun_row(self, corpus: corpora.Corpus) -> Row:
        target = Target(0.05, "<= 5% of cold and < 1 s", seconds=1.0)
        name = f"{corpus.scenario}: re-run, nothing changed"
        if why := missing(self.flags, "--cache-dir"):
            return not_available(name, "cold run", target, why)
        cold, warm, counts = self.cold_then_warm(corpus, name)
        row = finish(Row(name, "cold run", target.text), target, cold, warm)
        if counts is not None:
            row.note = f"re-checked {counts[0]}, from cache {counts[1]}"
            row.passed = row.passed and counts[0] == 0
        return row

    def cold_then_warm(self, corpus: corpora.Corpus, name: str, changed: Path | None = None, rechecked: int = 0):
        """(cold runs, warm runs, (re-checked, from cache) of the last warm run): each round checks
        with a fresh cache folder, then again with it, ``changed`` edited meanwhile if given; the
        warm run must re-check exactly ``rechecked`` files when the CLI says how many it did."""
        cold, warm, counts = [], [], None
        for _ in range(self.repeat):
            cache = ["--cache-dir", str(self.fresh_dir("cache"))]
            cold.append(self.checked(corpus, cache, f"{name} (cold)")[0])
            with edited(changed) if changed is not None else contextlib.nullcontext():
                run, report = self.checked(corpus, [*cache, *self.verbose], f"{name} (warm)")
            warm.append(run)
            counts = cache_counts(report, run)
            if counts is not None and counts[0] != rechecked:
                raise CheckFailed(f"{name}: re-checked {counts[0]} files, expected {rechecked}")
        return cold, warm, counts

    # cache: one cited source file changed

    def changed_file_row(self, corpus: corpora.Corpus) -> Row:
        hot, citers = corpus.extra["hot_file"], corpus.extra["hot_citers"]
        target = Target(0.05, "<= 5% of cold")
        name = f"memories: one cited file changed ({citers} memories cite it)"
        if why := missing(self.flags, "--cache-dir"):
            return not_available(name, "cold run", target, why)
        copy = private_copy(corpus, self.work / "changed-repo")  # edited while measured
        cold, changed, counts = self.cold_then_warm(copy, name, copy.root / hot, citers)
        row = finish(Row(name, "cold run", target.text), target, cold, changed)
        row.note = "n/a: the CLI does not say how many files came from the cache (see cache_counts)" if counts is None \
            else f"re-checked {counts[0]}, from cache {counts[1]}"
        return row

    # --affected-by FILE: only the artifacts citing FILE

    def affected_by_row(self, corpus: corpora.Corpus) -> Row:
        hot, citers = corpus.extra["hot_file"], corpus.extra["hot_citers"]
        target = Target(0.05, "<= 5% of full check")
        name = f"memories: --affected-by one file ({citers} memories cite it)"
        if why := missing(self.flags, "--affected-by"):
            return not_available(name, "full check", target, why)
        full, affected = [], []
        for _ in range(self.repeat):  # the full check leaves the cache that knows who cites what
            cache = ["--cache-dir", str(self.fresh_dir("cache"))]
            full.append(self.checked(corpus, cache, f"{name} (full)")[0])
            affected.append(self.selected(corpus, name, [*cache, "--affected-by", hot], citers))
        row = finish(Row(name, "full check", target.text), target, full, affected)
        row.note = f"checked exactly the {citers} citing memories"
        return row

    def selected(self, corpus: corpora.Corpus, name: str, flags: list[str], citers: int) -> Run:
        """A check with ``flags`` (a warm cache and a selection), which must check exactly the
        ``citers`` files that cite the changed one."""
        output = self.out()
        run = measure(tool(".", "--format", "json", "--output-file", str(output), *flags), corpus.root)
        checked = read_report(output, run).files_checked
        if checked != citers:
            raise CheckFailed(f"{name}: checked {checked} files, expected the {citers} that cite {corpus.extra['hot_file']}")
        return run

    # --since REF on a git copy of the corpus

    def since_row(self, corpus: corpora.Corpus) -> Row:
        hot, citers = corpus.extra["hot_file"], corpus.extra["hot_citers"]
        target = Target(0.05, "<= 5% of full check")
        name = f"memories: --since HEAD, one cited file changed ({citers} cite it)"
        if why := missing(self.flags, "--since"):
            return not_available(name, "full check", target, why)
        if shutil.which("git") is None:
            return not_available(name, "full check", target, "n/a (no git)")
        copy = git_copy(corpus, self.work / "since-repo")
        full, since = [], []
        for _ in range(self.repeat):  # the full check leaves the cache that knows who cites what
            cache = ["--cache-dir", str(self.fresh_dir("cache"))]
            full.append(self.checked(copy, cache, f"{name} (full)")[0])
            with edited(copy.root / hot):
                since.append(self.selected(copy, name, [*cache, "--since", "HEAD"], citers))
        row = finish(Row(name, "full check", target.text), target, full, since)
        row.note = f"checked exactly the {citers} citing memories"
        return row

    # pre-commit: the hook's command with every file (--all-files), and on a one-file commit

    def precommit_all_files_row(self, corpus: corpora.Corpus) -> Row:
        target = Target(1.2, "<= 1.2x full check")
        name = "memories: pre-commit --all-files (--force-exclude --affected-by every file)"
        if why := missing(self.flags, "--affected-by"):
            return not_available(name, "full check", target, why)
        every = sorted(path.relative_to(corpus.root).as_posix() for path in corpus.root.rglob("*") if path.is_file())
        full, hook = [], []
        for _ in range(self.repeat):  # both cold: a fresh cache each
            full.append(self.checked(corpus, ["--cache-dir", str(self.fresh_dir("cache"))], f"{name} (full)")[0])
            flags = ["--cache-dir", str(self.fresh_dir("cache")), "--force-exclude", "--affected-by", *every]
            hook.append(self.checked(corpus, flags, name)[0])
        row = finish(Row(name, "full check", target.text), target, full, hook)
        row.note = f"{len(every)} files named"
        return row

    def precommit_one_file_row(self, corpus: corpora.Corpus) -> Row:
        full_size = self.scale >= 1  # (the half-second bound is for the full-size corpus: 10k memories)
        target = Target(1.0, "< 0.5 s at full size" if full_size else "< 0.5 s at full size (reported)", 0.5 if full_size else None)
        name = "memories: pre-commit, a one-file commit (--force-exclude --staged FILE)"
        if why := missing(self.flags, "--staged"):
            return not_available(name, "full check", target, why)
        if shutil.which("git") is None:
            return not_available(name, "full check", target, "n/a (no git)")
        copy = git_copy(corpus, self.work / "since-repo")
        memory = min(path.relative_to(copy.root).as_posix() for path in (copy.root / ".serena" / "memories").rglob("*.md"))
        full, hook = [], []
        for _ in range(self.repeat):  # the full check leaves the record the hook replays
            cache = ["--cache-dir", str(self.fresh_dir("cache"))]
            full.append(self.checked(copy, cache, f"{name} (full)")[0])
            with edited(copy.root / memory), staged(copy.root, memory):
                hook.append(self.selected(copy, name, [*cache, "--force-exclude", "--staged", memory], 1))
        row = finish(Row(name, "full check", target.text), target, full, hook)
        row.note = f"checked exactly the memory committed; {row.tool_s} s"
        return row

    # -j 2 vs -j 1

    def jobs_row(self, corpus: corpora.Corpus) -> Row:
        target = Target(round(1 / 1.6, 3), ">= 1.6x faster")
        name = f"{corpus.scenario}: -j 2 vs -j 1"
        if why := missing(self.flags, "-j"):
            return not_available(name, "-j 1", target, why)
        one, two = [], []
        for _ in range(self.repeat):
            one.append(self.checked(corpus, [*self.no_cache, "-j", "1"], f"{name} (-j 1)")[0])
            two.append(self.checked(corpus, [*self.no_cache, "-j", "2"], f"{name} (-j 2)")[0])
        return finish(Row(name, "-j 1", target.text), target, one, two)

    # online: the check against what the per-host limits allow, then again from its cache of answers

    def online_rows(self, corpus: corpora.Corpus, corpus_json: Path) -> list[Row]:
        """Both online rows from the same rounds: a check with a fresh cache folder, which must ask
        the server for every URL, then the same check with that folder, which must ask for none
        and report the same findings."""
        urls, limit = corpus.extra["urls_per_host"] * len(corpus.extra["hosts"]), per_host_limit(len(corpus.extra["hosts"]))
        check = Row(f"online: check {corpus.summary}, {corpus.planted} planted {corpus.planted_code}",
                    f"the per-host limit ({limit:g}/s)", f">= {ONLINE_SHARE:.0%} of limit, RSS < {ONLINE_RSS_LIMIT_MIB} MiB")
        rerun = Row("online: re-run, cache fresh", "cold run", "0 requests (asserted)")
        why = missing(self.flags, "--online", "--online-allow", "--online-connect-to", "--online-host-concurrency",
                      "--online-host-interval", "--cache-dir") or self.online_missing()
        if why:
            check.note = rerun.note = why
            return [check, rerun]
        cold, warm, fetches = [], [], []
        with online_server(corpus_json, self.work / "online-server.log") as server:
            flags = online_flags(corpus, server)
            for _ in range(self.repeat):
                cache = ["--cache-dir", str(self.fresh_dir("cache"))]
                server.reset()
                run, report = self.checked(corpus, [*cache, *flags], "online check (cold)")
                fetches.append(served(server.reset(), urls, "online check (cold)"))
                cold.append(run)
                run, again = self.checked(corpus, [*cache, *flags], "online re-run")
                expect_no_requests(server.reset(), findings(report), findings(again))
                warm.append(run)
        return [self.online_check_row(check, corpus, cold, fetches, limit, findings(report)),
                self.online_rerun_row(rerun, cold, warm, urls)]

    @staticmethod
    def online_check_row(row: Row, corpus: corpora.Corpus, cold: list[Run], fetches: list[dict], limit: float,
                         found: list[tuple]) -> Row:
        """``base s``: the time the per-host limits allow for the requests the server answered;
        ``tool s``: the time the server saw them take, from the first request's arrival to the last
        answer (the whole run's wall time, start-up included, is in the note)."""
        row.base_s = round(statistics.median(f["requests"] / limit for f in fetches), 3)
        row.tool_s = round(statistics.median(f["window"] for f in fetches), 3)
        row.ratio = round(row.tool_s / row.base_s, 3)
        row.tool_rss_kib = max(r.rss_kib for r in cold)
        share, whole = row.base_s / row.tool_s, statistics.median(r.wall for r in cold)
        row.passed = share >= ONLINE_SHARE and row.tool_rss_kib / 1024 < ONLINE_RSS_LIMIT_MIB
        last = fetches[-1]
        others = Counter(code for code, *_ in found if code != corpus.planted_code)
        row.note = (f"{share:.0%} of the limit ({share * limit:.0f} requests/s); {last['requests']} requests "
                    f"({last['robots']} of robots.txt); whole run {whole:.2f} s, start-up and checking included "
                    f"({row.base_s / whole:.0%} of the limit over it); "
                    f"server: {last['cpu'] / last['window']:.0%} of a core, answers in "
                    f"{last['mean_answer'] * 1000:.0f} ms on average ({last['slowest_answer'] * 1000:.0f} ms at most)")
        if others:
            row.note += f"; other findings: {dict(sorted(others.items()))}"
        row.details = {"fetches": fetches, "limit_per_second": limit, "latency": ONLINE_LATENCY,
                       "host_concurrency": ONLINE_HOST_CONCURRENCY, "host_interval": ONLINE_HOST_INTERVAL}
        return row

    @staticmethod
    def online_rerun_row(row: Row, cold: list[Run], warm: list[Run], urls: int) -> Row:
        finish(row, Target(float("inf"), row.target), cold, warm)
        said = online_summary(warm[-1].stderr)
        row.note = "0 requests reached the server, same findings" + (
            f"; the run says: {said['requests']} requests, {said['cached']} of {said['urls']} URLs from the cache"
            if said else "; the run printed no online summary line")
        if said and (said["requests"] or said["cached"] != urls):
            row.passed = False
        return row

    def online_missing(self) -> str | None:
        """Why the online rows cannot run: no aiohttp here for the server, or a checker (as the
        measured runs import it) without its fetch layer or its extra."""
        import importlib.util

        if importlib.util.find_spec("aiohttp") is None:
            return "n/a (no aiohttp for the server: pip install 'pytest-citations[online]')"
        done = subprocess.run([sys.executable, "-c", "import pytest_citations.online.fetch"], cwd=self.work,
                              capture_output=True)
        return None if done.returncode == 0 else "n/a (the checker has no online fetch layer, or not its extra)"

    # one small file vs importing the six runtime dependencies

    def small_file_row(self) -> Row:
        target = Target(0.5, "<= 0.5x imports")
        root = small_repo(self.work / "small-repo")
        base, mine = [], []
        for _ in range(self.repeat):
            base.append(measure(["-c", IMPORTS], root))
            output = self.out()
            run = measure(tool(".serena/memories/deploy.md", "--format", "json", "--output-file", str(output),
                               *self.no_cache), root)
            if read_report(output, run).codes:
                raise CheckFailed(f"one small file: unexpected findings {read_report(output, run).codes}")
            mine.append(run)
        return finish(Row("one small file (a memory citing one file)", "import of the 6 dependencies", target.text),
                      target, base, mine)

    # pytest --citations

    def pytest_rerun_row(self, corpus: corpora.Corpus) -> Row:
        target = Target(1.1, "<= 1.1x trivial items")
        name = "pytest --citations re-run, nothing changed (memories)"
        cache = ["-o", f"cache_dir={self.fresh_dir('pytest-cache')}"]  # not in the corpus
        arguments = ["-m", "pytest", "--citations", "-p", "no:randomly", "-q", *cache]
        first = measure(arguments, corpus.root)  # the first run fills whatever the plugin caches
        passed, failed = pytest_counts(first, name)
        trivial = trivial_tests(self.work / "trivial", passed, failed)
        base, mine = [], []
        for _ in range(self.repeat):
            run = measure(["-m", "pytest", "-p", "no:randomly", "-q", *cache], trivial)
            if pytest_counts(run, "trivial items") != (passed, failed):
                raise CheckFailed(f"trivial items: {pytest_counts(run, 'trivial items')}")
            base.append(run)
            run = measure(arguments, corpus.root)
            if pytest_counts(run, name) != (passed, failed):
                raise CheckFailed(f"{name}: {pytest_counts(run, name)}, the first run gave {(passed, failed)}")
            mine.append(run)
        row = finish(Row(name, f"{passed} passing + {failed} failing trivial items", target.text), target, base, mine)
        row.note = "baseline: as many trivial test functions (passing ones in one module, failing ones in another)"
        return row

    def pytest_xdist_row(self, corpus: corpora.Corpus) -> Row:
        """``-n 2`` against ``-n 0``, both checking everything (no cache); the pass/fail counts
        must agree, and match the planted files where the corpus knows them."""
        target = Target(round(1 / 1.6, 3), ">= 1.6x faster")
        name = f"pytest --citations -n 2 vs -n 0 ({corpus.scenario})"
        if not has_xdist():
            return not_available(name, "-n 0", target, "n/a (pytest-xdist not installed)")
        arguments = ["-m", "pytest", "--citations", "-p", "no:randomly", "-p", "no:cacheprovider", "-q"]
        zero, two = self.xdist_runs(arguments, corpus.root, name)
        passed, failed = self.item_counts[corpus.scenario] = self.counts_agree(name, zero + two)
        if failed != corpus.extra.get("planted_files", failed) or not failed:
            raise CheckFailed(f"{name}: {failed} failing items, for {corpus.extra.get('planted_files')} planted files")
        row = finish(Row(name, "-n 0", target.text), target, zero, two)
        row.note = f"{passed + failed} items"
        return row

    def xdist_reference_row(self, scenario: str) -> Row:
        """Plain pytest, ``-n 2`` against ``-n 0``, on as many trivial items as the scenario's
        row had: what pytest-xdist costs by itself, measured in the same run (no target)."""
        name = f"plain pytest -n 2 vs -n 0 (as many trivial items as {scenario})"
        if not has_xdist() or scenario not in self.item_counts:
            return Row(name, "-n 0", "none (reference)", note="n/a (needs pytest-xdist and the scenario's row)")
        passed, failed = self.item_counts[scenario]
        trivial = trivial_tests(self.work / f"trivial-{passed}-{failed}", passed, failed)
        zero, two = self.xdist_runs(["-m", "pytest", "-p", "no:randomly", "-p", "no:cacheprovider", "-q"], trivial, name)
        if self.counts_agree(name, zero + two) != (passed, failed):
            raise CheckFailed(f"{name}: the trivial items' counts differ from {(passed, failed)}")
        row = finish(Row(name, "-n 0", "none (reference)"), Target(float("inf"), ""), zero, two)
        row.passed = None
        return row

    def xdist_runs(self, arguments: list[str], cwd: Path, name: str) -> tuple[list[Run], list[Run]]:
        """``-n 0`` and ``-n 2`` runs, interleaved, ``repeat`` of each."""
        zero, two = [], []
        for _ in range(self.repeat):
            for workers, runs in (("0", zero), ("2", two)):
                run = measure([*arguments, "-n", workers], cwd)
                pytest_counts(run, f"{name} (-n {workers})")
                runs.append(run)
        return zero, two

    @staticmethod
    def counts_agree(name: str, runs: list[Run]) -> tuple[int, int]:
        counts = {pytest_counts(run, name) for run in runs}
        if len(counts) != 1:
            raise CheckFailed(f"{name}: pass/fail counts differ between runs: {sorted(counts)}")
        return counts.pop()

    def fresh_dir(self, prefix: str) -> Path:
        return Path(tempfile.mkdtemp(prefix=f"{prefix}-", dir=self.work))


# -- helpers of the measurements --------------------------------------------------------------------------------


@contextmanager
def edited(path: Path):
    """Append a comment line to a file (its existing lines, so every citation, stay true); restore it after."""
    original, stat = path.read_bytes(), path.stat()
    path.write_bytes(original + b"# touched by the benchmark\n")
    try:
        yield path
    finally:
        path.write_bytes(original)
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))


@contextmanager
def staged(root: Path, rel: str):
    """``git add`` the file ``rel`` of the repository ``root``; unstage it after."""
    subprocess.run(["git", "add", rel], cwd=root, check=True, capture_output=True)
    try:
        yield
    finally:
        subprocess.run(["git", "reset", "-q", "--", rel], cwd=root, check=True, capture_output=True)


def private_copy(corpus: corpora.Corpus, target: Path) -> corpora.Corpus:
    """A copy of the corpus for this run alone, to edit while measuring (corpora are shared by
    every run that asks for the same one), its files dated a minute back, as an earlier checkout's
    are (files written in the second a git index is, git takes as racily clean and compares by
    content on every later diff)."""
    if not target.exists():
        shutil.copytree(corpus.root, target)
        a_minute_ago = time.time() - 60
        for path in target.rglob("*"):
            os.utime(path, (a_minute_ago, a_minute_ago), follow_symlinks=False)
    return corpora.Corpus(**{**asdict(corpus), "root": target})


def git_copy(corpus: corpora.Corpus, target: Path) -> corpora.Corpus:
    """A :func:`private_copy` of the corpus in a git repository with everything committed."""
    if not target.exists():
        private_copy(corpus, target)
        for command in (["init", "-q"], ["add", "-A"], ["-c", "user.name=bench", "-c", "user.email=bench@example.com",
                                                         "commit", "-q", "-m", "corpus"]):
            subprocess.run(["git", *command], cwd=target, check=True, capture_output=True)
    return corpora.Corpus(**{**asdict(corpus), "root": target})


@dataclass
class OnlineServer:
    """The online scenario's web (``bench/online_server.py``), running in its own process."""

    ports: list[int]  # the corpus's hosts' ports, in its order
    control: int

    def reset(self) -> dict:
        """What the server answered since the last reset (it counts again from zero)."""
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # never an environment's proxy
        request = urllib.request.Request(f"http://127.0.0.1:{self.control}/reset", method="POST")
        with opener.open(request, timeout=30) as response:
            return json.loads(response.read())


@contextmanager
def online_server(corpus_json: Path, log: Path):
    """Start the server of the corpus; stop it after."""
    with log.open("w") as errors:
        process = subprocess.Popen([sys.executable, str(HERE / "online_server.py"), str(corpus_json),
                                    "--latency", str(ONLINE_LATENCY)], stdout=subprocess.PIPE, stderr=errors, text=True)
    try:
        line = process.stdout.readline()
        if not line:
            raise CheckFailed(f"the online server did not start:\n{log.read_text()[-3000:]}")
        listening = json.loads(line)
        yield OnlineServer(listening["ports"], listening["control"])
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def per_host_limit(hosts: int) -> float:
    """Requests per second the per-host limits allow in all: to each host, at most
    ``ONLINE_HOST_CONCURRENCY`` in flight, each lasting the server's latency at least, and starts
    ``ONLINE_HOST_INTERVAL`` apart at least (with the defaults, 50 x min(2 / 0.05, 1 / 0.1) = 500)."""
    return hosts * min(ONLINE_HOST_CONCURRENCY / ONLINE_LATENCY, 1 / ONLINE_HOST_INTERVAL)


def online_flags(corpus: corpora.Corpus, server: OnlineServer) -> list[str]:
    """``--online`` with the defaults' per-host limits given, each host sent to its port of 127.0.0.1."""
    flags = ["--online", "--online-allow", "127.0.0.1", "--online-host-concurrency", str(ONLINE_HOST_CONCURRENCY),
             "--online-host-interval", str(ONLINE_HOST_INTERVAL)]
    for host, port in zip(corpus.extra["hosts"], server.ports, strict=True):
        flags += ["--online-connect-to", f"{host}:80:127.0.0.1:{port}"]
    return flags


def served(stats: dict, urls: int, what: str) -> dict:
    """The server's counts of a cold run, which must have asked for every URL, each of its host."""
    if stats["pages"] < urls or stats["misrouted"]:
        raise CheckFailed(f"{what}: the server answered {stats['pages']} page requests for {urls} URLs, "
                          f"{stats['misrouted']} of them for a host other than its port's")
    return stats


def expect_no_requests(stats: dict, cold: list[tuple], warm: list[tuple]) -> None:
    if stats["requests"]:
        raise CheckFailed(f"online re-run, cache fresh: {stats['requests']} requests reached the server, expected 0")
    if warm != cold:
        raise CheckFailed(f"online re-run, cache fresh: {len(warm)} findings, the cold run had {len(cold)}; "
                          f"different: {sorted(set(warm) ^ set(cold))[:5]}")


def findings(report: Report) -> list[tuple]:
    """(code, path, line, col, message) of each diagnostic, sorted: what two runs must agree on."""
    return sorted((d["code"], d.get("path"), d.get("line"), d.get("col"), d.get("message"))
                  for d in report.data["diagnostics"])


def online_summary(stderr: str) -> dict | None:
    """``citations: online: N URLs on H hosts, R requests, C from the cache`` (the end of an online run), read."""
    said = re.search(r"citations: online: (\d+) URLs? on (\d+) hosts?, (\d+) requests?, (\d+) from the cache", stderr)
    return None if said is None else dict(zip(("urls", "hosts", "requests", "cached"), map(int, said.groups()), strict=True))


def small_repo(root: Path) -> Path:
    (root / ".serena" / "memories").mkdir(parents=True, exist_ok=True)
    (root / "scripts").mkdir(exist_ok=True)
    (root / "pyproject.toml").write_text('[project]\nname = "small"\nversion = "0"\n')
    (root / "scripts" / "deploy.sh").write_text("#!/usr/bin/env bash\nset -euo pipefail\nkubectl apply -f k8s/\n")
    (root / ".serena" / "memories" / "deploy.md").write_text(
        "---\nsubject: How we deploy\ncitations:\n  - path: scripts/deploy.sh\n    line: 3\n"
        '    snippet: "kubectl apply"\n---\n\n# Deploy\n\nThe script applies the manifests.\n')
    return root


def trivial_tests(root: Path, passed: int, failed: int) -> Path:
    """One module of ``passed`` passing trivial test functions and one of ``failed`` failing ones.
    Apart: pytest reports a failure with its statement, found by parsing the failing test's whole
    module, which for a module of 10k functions costs more than all the passing tests together."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text('[project]\nname = "trivial"\nversion = "0"\n')
    (root / "test_trivial.py").write_text("\n\n".join(f"def test_{i}():\n    pass\n" for i in range(passed)))
    failing = "\n\n".join(f"def test_failing_{i}():\n    assert False\n" for i in range(failed))
    (root / "test_trivial_failing.py").write_text(failing)
    return root


def pytest_counts(run: Run, what: str) -> tuple[int, int]:
    """(passed, failed) from pytest's summary line."""
    summary = run.stdout.strip().splitlines()[-1] if run.stdout.strip() else ""
    counts = {word: int(n) for n, word in re.findall(r"(\d+) (passed|failed|errors?)", summary)}
    if run.exit not in (0, 1) or "passed" not in counts and "failed" not in counts:
        raise CheckFailed(f"{what}: pytest exited {run.exit}: {summary}\n{run.stderr[-2000:]}")
    return counts.get("passed", 0), counts.get("failed", 0) + counts.get("error", 0) + counts.get("errors", 0)


# -- the table --------------------------------------------------------------------------------------------------


def mib(kib: int | None) -> str:
    return f"{kib / 1024:.0f}" if kib else "-"


def verdict(row: Row) -> str:
    if row.tool_s is None:
        return row.note or "n/a"
    if row.passed is None:
        return "-"  # no target: reported only
    return "pass" if row.passed else "FAIL"


def cell(value: float | None) -> str:
    return "-" if value is None else f"{value}"


def print_table(rows: list[Row], facts: dict) -> None:
    print(f"\n{'scenario':<78} {'compared with':<30} {'base s':>7} {'tool s':>7} {'ratio':>6} {'base MiB':>8} "
          f"{'tool MiB':>8}  {'target':<28} result")
    for row in rows:
        print(f"{row.scenario[:78]:<78} {row.base[:30]:<30} {cell(row.base_s):>7} {cell(row.tool_s):>7} "
              f"{cell(row.ratio):>6} {mib(row.base_rss_kib):>8} {mib(row.tool_rss_kib):>8}  {row.target:<28} "
              f"{verdict(row)}")
        if row.tool_s is not None and row.note:
            print(f"    {row.note}")
    print(f"({facts['cores']} cores, Python {facts['python']}; medians of {facts['repeat']} interleaved runs; "
          f"scale {facts['scale']}; memories floor YAML parser: {facts.get('floor_yaml_parser', '-')})")


# -- main -------------------------------------------------------------------------------------------------------


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=0.05, help="corpus sizes as a share of the full ones (1.0)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each side; medians are reported")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--only", default="", help=f"comma-separated: {', '.join(CORPUS_SCENARIOS + EXTRA_SCENARIOS)}")
    parser.add_argument("--corpus-dir", type=Path, default=corpora.DEFAULT_BASE, help="where corpora are cached")
    parser.add_argument("--json", type=Path, default=HERE / "results.json")
    args = parser.parse_args(argv)
    args.only = [s for s in args.only.split(",") if s] or list(CORPUS_SCENARIOS + EXTRA_SCENARIOS)
    unknown = set(args.only) - set(CORPUS_SCENARIOS + EXTRA_SCENARIOS)
    if unknown:
        parser.error(f"unknown scenarios: {', '.join(sorted(unknown))}")
    return args


def corpus_for(name: str, args: argparse.Namespace) -> tuple[corpora.Corpus, Path]:
    started = time.perf_counter()
    corpus = corpora.build(name, args.scale, args.seed, args.corpus_dir)
    print(f"[{name}] corpus {corpus.root} ({time.perf_counter() - started:.1f} s to build or load)", flush=True)
    return corpus, corpus.root.parent / "corpus.json"


def rows_of(name: str, bench: Bench, args: argparse.Namespace):
    """The measurements of one selected scenario, each a callable that returns its row (or its rows)."""
    if name == "small-file":
        return [bench.small_file_row]
    if name == "pytest":
        memories = corpus_for("memories", args)[0]
        code_tuples = corpus_for("code-tuples", args)[0]  # few items, each a large part of the run
        return [lambda: bench.pytest_rerun_row(memories), lambda: bench.pytest_xdist_row(memories),
                lambda: bench.xdist_reference_row("memories"), lambda: bench.pytest_xdist_row(code_tuples)]
    corpus, corpus_json = corpus_for(name, args)
    if name == "online":
        return [lambda: bench.online_rows(corpus, corpus_json)]
    rows = [lambda: bench.check_row(corpus, corpus_json), lambda: bench.rerun_row(corpus)]
    if name in MULTI_FILE:
        rows.append(lambda: bench.jobs_row(corpus))
    if name == "memories":
        rows += [lambda: bench.changed_file_row(corpus), lambda: bench.affected_by_row(corpus),
                 lambda: bench.since_row(corpus), lambda: bench.precommit_all_files_row(corpus),
                 lambda: bench.precommit_one_file_row(corpus)]
    return rows


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    facts = {"cores": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform(),
             "scale": args.scale, "seed": args.seed, "repeat": args.repeat}
    rows, failures = [], []
    with tempfile.TemporaryDirectory(prefix="citations-bench-") as folder:
        bench = Bench(args, Path(folder))
        facts["check_flags"] = sorted(bench.flags)
        for name in args.only:
            for measurement in rows_of(name, bench, args):
                try:
                    measured = measurement()
                except CheckFailed as error:
                    failures.append(f"{name}: {error}")
                    print(f"  {name}: ASSERTION FAILED: {error}", flush=True)
                    continue
                for row in measured if isinstance(measured, list) else [measured]:
                    rows.append(row)
                    print(f"  {row.scenario}: {row.tool_s} s vs {row.base_s} s ({row.base}) -> {verdict(row)}", flush=True)
        facts.update(bench.facts)
    print_table(rows, facts)
    result = {"machine": {k: facts[k] for k in ("cores", "python", "platform")},
              "settings": {k: facts[k] for k in ("scale", "seed", "repeat")},
              "floor_yaml_parser": facts.get("floor_yaml_parser"), "check_flags": facts["check_flags"],
              "rows": [asdict(r) for r in rows], "failures": failures}
    args.json.write_text(json.dumps(result, indent=2) + "\n")
    for failure in failures:
        print(f"FAILED: {failure}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

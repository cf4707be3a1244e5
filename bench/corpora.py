"""Seeded generators of the benchmark corpora, one per scenario, cached on disk.

Each generator writes a small repository (its own ``pyproject.toml`` with ``[tool.citations]``)
that is clean except for errors planted at a known rate, and returns a :class:`Corpus` naming the
planted rule code and count, and what the floor must read. Sizes are the issue's full sizes times
``scale``; every scenario plants at least one error, whatever the scale.

The files are varied on purpose (lengths, counts, which sources and lines are cited): a corpus of
identical files would let a cache or a memo inside the checker pass for speed.

    python bench/corpora.py SCENARIO [--scale S] [--seed N]   # build one and print where it is
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import shutil
import sqlite3
import sys
import tempfile
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE.parent) not in sys.path:
    sys.path.insert(0, str(HERE.parent))

from pytest_citations.kinds.briefs.evidence_store import ddl  # noqa: E402
from pytest_citations.kinds.url_citations.urls import cid_for, normalize_url  # noqa: E402

#: Bump when a generator changes what it writes: cached corpora of another version are rebuilt.
GENERATOR_VERSION = 3
DEFAULT_BASE = Path(tempfile.gettempdir()) / "pytest-citations-bench"
MAX_FILE_SIZE = 2**31  # the checker's per-file cap, raised so the 420 MB JSONL is read


@dataclass
class Corpus:
    """A generated repository and what the harness needs to know about it."""

    scenario: str
    root: Path
    planted_code: str
    planted: int
    summary: str  # one line for the results table
    floor: dict = field(default_factory=dict)  # repository-relative paths the floor reads, by role
    extra: dict = field(default_factory=dict)  # scenario facts (the memory repo's hot file, ...)

    def to_json(self) -> dict:
        return {**asdict(self), "root": str(self.root)}

    @classmethod
    def from_json(cls, data: dict) -> Corpus:
        return cls(**{**data, "root": Path(data["root"])})


def scaled(full: int, scale: float, minimum: int) -> int:
    return max(minimum, round(full * scale))


def is_planted(index: int, count: int, every: int) -> bool:
    """One item in ``every`` carries an error; a corpus smaller than ``every`` gets one, its last."""
    return (index + 1) % every == 0 or (count < every and index == count - 1)


def write_pyproject(root: Path, extra: str = "") -> None:
    text = f'[project]\nname = "bench-corpus"\nversion = "0"\n\n[tool.citations]\nmax-file-size = {MAX_FILE_SIZE}\n'
    (root / "pyproject.toml").write_text(text + extra, encoding="utf-8")


def relative(paths, root: Path) -> list[str]:
    return sorted(str(Path(p).relative_to(root)) for p in paths)


# -- words: enough variety that no two files are alike --------------------------------------------------------

NOUNS = ("account", "session", "token", "invoice", "ledger", "order", "cart", "payment", "refund", "user", "tenant",
         "report", "batch", "queue", "job", "cache", "record", "limit", "quota", "rate", "price", "stock", "shipment",
         "address", "profile", "setting", "feature", "flag", "audit", "event", "webhook", "export", "import", "schema")
VERBS = ("load", "save", "check", "build", "parse", "render", "send", "fetch", "merge", "split", "apply", "reset",
         "count", "close", "open", "sign", "verify", "expire", "refresh", "archive", "restore", "sync", "emit")
ADJECTIVES = ("stale", "fresh", "pending", "active", "frozen", "daily", "hourly", "remote", "local", "signed", "raw",
              "cached", "partial", "final", "draft", "shared", "private", "legacy", "current", "default")
MODULES = ("json", "time", "hashlib", "logging", "secrets", "decimal", "pathlib", "datetime", "itertools", "re")


def words(rng: random.Random, count: int) -> str:
    pool = NOUNS + VERBS + ADJECTIVES
    return " ".join(rng.choice(pool) for _ in range(count))


# -- a source repository (cited by memories and by code tuples) -----------------------------------------------


def python_module(rng: random.Random, functions: int) -> list[str]:
    lines = [f'"""{words(rng, rng.randint(3, 8)).capitalize()}."""', "", "from __future__ import annotations", ""]
    lines += [f"import {m}" for m in sorted(rng.sample(MODULES, rng.randint(1, 4)))]
    lines += ["", f"{rng.choice(NOUNS).upper()}_{rng.choice(ADJECTIVES).upper()} = {rng.randint(1, 10**5)}", ""]
    for _ in range(functions):
        verb, noun, other = rng.choice(VERBS), rng.choice(NOUNS), rng.choice(NOUNS)
        name = f"{verb}_{noun}_{rng.randrange(1000)}"
        lines += ["", "", f"def {name}({noun}: dict, {other}_id: int = {rng.randint(0, 99)}) -> dict | None:",
                  f'    """{verb.capitalize()} the {rng.choice(ADJECTIVES)} {noun} of a {other}."""']
        for _ in range(rng.randint(2, 9)):
            var = f"{rng.choice(ADJECTIVES)}_{rng.choice(NOUNS)}"
            lines.append(rng.choice((
                f"    {var} = {noun}.get({rng.choice(NOUNS)!r}, {rng.randint(0, 500)})",
                f"    if {other}_id > {rng.randint(1, 9999)}:\n        return None",
                f"    {var} = [{rng.choice(NOUNS)} for {rng.choice(NOUNS)} in {noun}.values() if {rng.choice(NOUNS)}]",
                f"    # {words(rng, rng.randint(4, 12))}",
                f"    {noun}[{var!r}] = {rng.choice(MODULES)}.{rng.choice(VERBS)}({other}_id)",
            )))
        lines.append(f"    return {noun}")
    return "\n".join(lines).split("\n")


def config_file(rng: random.Random) -> list[str]:
    lines = []
    for _ in range(rng.randint(2, 6)):
        lines += ["", f"[{rng.choice(NOUNS)}.{rng.choice(ADJECTIVES)}]"]
        lines += [f"{rng.choice(NOUNS)}_{rng.choice(VERBS)} = {rng.randint(0, 10**6)}" for _ in range(rng.randint(2, 12))]
    return lines[1:]


def shell_script(rng: random.Random) -> list[str]:
    lines = ["#!/usr/bin/env bash", "set -euo pipefail", ""]
    for _ in range(rng.randint(4, 30)):
        lines.append(rng.choice((
            f'echo "{words(rng, rng.randint(2, 6))}"',
            f"{rng.choice(VERBS)}_{rng.choice(NOUNS)} --{rng.choice(ADJECTIVES)} \"${{{rng.choice(NOUNS).upper()}}}\"",
            f"# {words(rng, rng.randint(3, 10))}",
        )))
    return lines


def write_source_repo(root: Path, files: int, rng: random.Random) -> dict[str, list[str]]:
    """Write ``files`` source files of varied kinds and lengths; return their lines by relative path."""
    repo: dict[str, list[str]] = {}
    packages = [f"{rng.choice(NOUNS)}{index}" for index in range(max(1, files // 40))]
    for index in range(files):
        kind = rng.random()
        if kind < 0.8:
            path, lines = f"src/{rng.choice(packages)}/{rng.choice(VERBS)}_{index}.py", python_module(rng, rng.randint(2, 14))
        elif kind < 0.9:
            path, lines = f"config/{rng.choice(NOUNS)}_{index}.toml", config_file(rng)
        else:
            path, lines = f"scripts/{rng.choice(VERBS)}-{index}.sh", shell_script(rng)
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("\n".join(lines) + "\n", encoding="utf-8")
        repo[path] = lines
    return repo


def snippet_of(line: str, rng: random.Random) -> str:
    """A substring of the line's stripped text, 6 to 30 characters, not starting or ending in a space."""
    text = line.strip()
    if len(text) <= 12:
        return text
    start = rng.randrange(0, len(text) - 6)
    end = min(len(text), start + rng.randint(6, 30))
    return text[start:end].strip() or text


def citable_lines(lines: list[str]) -> list[int]:
    """1-based numbers of the lines a snippet can be taken from (not blank, not a bare quote)."""
    return [n for n, line in enumerate(lines, 1) if len(line.strip()) >= 4]


# -- (1) url citations ------------------------------------------------------------------------------------------


def gen_url_citations(root: Path, scale: float, rng: random.Random) -> Corpus:
    """One ``citations.jsonl`` of citation.v1 records (~420 bytes each); one in 1000 has a drifted cid (U105)."""
    records = scaled(1_000_000, scale, 1000)
    run = root / "run"
    waves = write_waves(run)
    corpus = run / "citations" / "citations.jsonl"
    corpus.parent.mkdir(parents=True)
    planted = 0
    with corpus.open("w", encoding="utf-8") as stream:
        for index in range(records):
            record, drifted = url_record(index, rng, plant=is_planted(index, records, 1000), waves=waves)
            planted += drifted
            stream.write(json.dumps(record, separators=(",", ":")) + "\n")  # compact, as the spec's examples
    write_pyproject(root)
    size = corpus.stat().st_size
    return Corpus("url-citations", root, "U105", planted,
                  f"{records} records ({size / 1e6:.0f} MB)", floor={"jsonl": [relative([corpus], root)[0]]})


def write_waves(run: Path, waves: int = 2) -> int:
    """The wave artifacts records' ``found_by`` point at (U111), for waves 1 to ``waves`` (U110)."""
    for wave in range(1, waves + 1):
        (run / f"wave-{wave}").mkdir(parents=True)
        for perspective in range(1, 6):
            (run / f"wave-{wave}" / f"p{perspective}.md").write_text(f"## Sources\n\nWave {wave}, perspective {perspective}.\n")
    return waves


def found_by_entries(rng: random.Random, waves: int) -> list[dict]:
    """1 or 2 ``found_by`` entries (one wave, or both), each naming its wave's artifact."""
    entries = []
    for wave in sorted(rng.sample(range(1, waves + 1), 1 if rng.random() < 0.85 else 2)):
        perspective = f"p{rng.randint(1, 5)}"
        entries.append({"wave": wave, "perspective_id": perspective, "agent_type": "ClaudeResearcher",
                        "artifact_path": f"wave-{wave}/{perspective}.md"})
    return entries


def url_record(index: int, rng: random.Random, plant: bool, waves: int) -> tuple[dict, bool]:
    host = f"site{rng.randrange(500)}.example.com"
    path = "/".join(rng.choice(NOUNS) for _ in range(rng.randint(1, 2)))
    query = rng.choice(("", f"?utm_source=feed&id={rng.randrange(10**6)}", f"?page={rng.randint(1, 9)}&ref=nav",
                        f"?id={rng.randrange(10**6)}&utm_campaign=x"))
    original = f"https://{host}/{path}/{index}{query}"
    normalized = normalize_url(original)
    cid = cid_for(normalized + "/drift" if plant else normalized)
    found_by = [{"wave": wave, "perspective_id": f"p{rng.randint(1, 5)}", "agent_type": "ClaudeResearcher",
                 "artifact_path": f"wave-{wave}/p{rng.randint(1, 5)}.md"}
                for wave in sorted(rng.sample(range(1, waves + 1), 1 if rng.random() < 0.85 else 2))]
    for item in found_by:
        item["artifact_path"] = f"wave-{item['wave']}/{item['perspective_id']}.md"
    status = "valid" if rng.random() < 0.95 else "invalid"
    record = {
        "schema_version": "citation.v1", "normalized_url": normalized, "cid": cid, "url": normalized,
        "url_original": original, "status": status, "checked_at": f"2026-02-{rng.randint(10, 28)}T12:35:00Z",
    }
    if rng.random() < 0.6:  # the optional fields, when the researcher had them
        record.update({"http_status": 200 if status == "valid" else 404,
                       "title": f"{words(rng, rng.randint(1, 4)).title()} {index}",
                       "publisher": f"Publisher {rng.randrange(300)}"})
    record.update({"found_by": found_by, "notes": rng.choice(("ok", "ok", "", words(rng, 3)))})
    return record, plant


# -- (1b) online: URLs for the local server of the online check -------------------------------------------------

ONLINE_HOSTS = 50


def gen_online(root: Path, scale: float, rng: random.Random) -> Corpus:
    """One ``citations.jsonl`` of valid citation.v1 records, each citing its own page
    ``http://h{k}.bench.test/doc/{i}`` on one of 50 hosts, as many on each; one page in 100 answers
    404 on the benchmark's server (``online_server.py``), which the online check reports (W701).

    The size is a multiple of 100 (at least 1000), so the hosts get the same number of URLs and each
    host, in turn, a dead one."""
    count = max(1000, round(10_000 * scale / 100) * 100)
    hosts = [f"h{k}.bench.test" for k in range(ONLINE_HOSTS)]
    waves = write_waves(root / "run")
    corpus = root / "run" / "citations" / "citations.jsonl"
    corpus.parent.mkdir(parents=True)
    dead = []
    with corpus.open("w", encoding="utf-8") as stream:
        for index in range(count):
            host = hosts[(index + index // 100) % ONLINE_HOSTS]  # 2 of every 100 on each host
            if is_planted(index, count, 100):
                dead.append(index)
            stream.write(json.dumps(online_record(f"http://{host}/doc/{index}", index, rng, waves),
                                    separators=(",", ":")) + "\n")
    write_pyproject(root)
    return Corpus("online", root, "W701", len(dead), f"{count} URLs over {ONLINE_HOSTS} hosts",
                  extra={"hosts": hosts, "dead": dead, "urls_per_host": count // ONLINE_HOSTS})


def online_record(url: str, index: int, rng: random.Random, waves: int) -> dict:
    """A record whose producer found the page live (``valid``, and ``http_status`` 200 in 60%)."""
    url = normalize_url(url)
    record = {"schema_version": "citation.v1", "normalized_url": url, "cid": cid_for(url), "url": url,
              "url_original": url, "status": "valid", "checked_at": f"2026-02-{rng.randint(10, 28)}T12:35:00Z"}
    if rng.random() < 0.6:
        record.update({"http_status": 200, "title": f"{words(rng, rng.randint(1, 4)).title()} {index}",
                       "publisher": f"Publisher {rng.randrange(300)}"})
    record.update({"found_by": found_by_entries(rng, waves), "notes": rng.choice(("ok", "ok", "", words(rng, 3)))})
    return record


# -- (2) briefs ----------------------------------------------------------------------------------------------------

# (publisher, feed, tier, paywall, tags)
PUBLISHERS = [
    ("Federal Reserve", "Press Releases", 1, "full", ["policy_centralbank", "macro_data", "rates", "us"]),
    ("European Central Bank", "Press Releases", 1, "full", ["policy_centralbank", "macro_data", "rates", "europe"]),
    ("Bank of England", "News", 1, "full", ["policy_centralbank", "macro_data", "rates", "uk"]),
    ("Bank of Japan", "Press Releases", 1, "full", ["policy_centralbank", "macro_data", "rates", "japan"]),
    ("Bank of Canada", "Announcements", 1, "full", ["policy_centralbank", "macro_data", "rates", "canada"]),
    ("U.S. Bureau of Labor Statistics", "News Releases", 1, "full", ["macro_data", "inflation", "employment", "us"]),
    ("U.S. Bureau of Economic Analysis", "News", 1, "full", ["macro_data", "gdp", "us"]),
    ("Eurostat", "Euro Indicators", 1, "full", ["macro_data", "inflation", "europe"]),
    ("Office for National Statistics", "Releases", 1, "full", ["macro_data", "inflation", "uk"]),
    ("U.S. Treasury", "Press Releases", 1, "full", ["policy_fiscal", "macro_data", "us"]),
    ("Reuters", "Business News", 2, "full", ["markets", "business", "global"]),
    ("Associated Press", "Business", 2, "full", ["markets", "business", "us"]),
    ("Bloomberg", "Markets", 2, "metadata_only", ["markets", "rates", "global"]),
    ("Financial Times", "Markets", 2, "metadata_only", ["markets", "europe", "global"]),
    ("Wall Street Journal", "Markets", 2, "metadata_only", ["markets", "us"]),
    ("The Economist", "Finance and Economics", 2, "metadata_only", ["analysis", "global"]),
    ("Nikkei Asia", "Markets", 2, "metadata_only", ["markets", "asia"]),
    ("CNBC", "Economy", 2, "full", ["markets", "us"]),
    ("Brookings Institution", "Economic Studies", 2, "full", ["research", "policy_analysis"]),
    ("International Monetary Fund", "Blog", 2, "full", ["research", "global"]),
    ("Bank for International Settlements", "Research", 2, "full", ["research", "global"]),
    ("Peterson Institute", "Realtime Economics", 2, "full", ["research", "trade"]),
    ("MarketWatch", "Economy and Politics", 2, "full", ["markets", "us"]),
    ("MacroVoices", "Podcast Notes", 3, "full", ["markets", "commentary"]),
    ("Calculated Risk", "Blog", 3, "full", ["housing", "commentary"]),
    ("Conversable Economist", "Blog", 3, "full", ["commentary", "research"]),
    ("Marginal Revolution", "Blog", 3, "full", ["commentary"]),
    ("Seeking Alpha", "Macro", 3, "metadata_only", ["markets", "commentary"]),
    ("Alhambra Research", "Notes", 3, "full", ["markets", "commentary"]),
    ("Wolf Street", "Articles", 4, "full", ["markets", "minority_view"]),
    ("ZeroHedge", "News", 4, "full", ["markets", "minority_view"]),
    ("Macro Forum Digest", "Threads", 4, "full", ["minority_view"]),
    ("Contrarian Substack", "Posts", 4, "full", ["minority_view", "commentary"]),
]
CREDIBILITY = {1: 1.0, 2: 0.8, 3: 0.6, 4: 0.3}
ABSTAIN_MINORITY = "[Insufficient evidence to represent minority views on this topic]"
SECTIONS = (("Prevailing View", 4, 8), ("Counterarguments", 2, 5), ("Minority View", 1, 3), ("What to Watch", 2, 5))
POLICY_CLAIMS = (
    "The {bank} kept its policy rate unchanged at {low:.2f}-{high:.2f}%, citing {adj} inflation pressure.",
    "Officials at the {bank} signalled that rate cuts are unlikely before {month} {year}.",
    "The {bank} said balance sheet runoff would continue at the current pace of ${bn}bn a month.",
    "CPI rose {pct:.1f}% over the year in {month}, slightly above the consensus forecast.",
    "Nonfarm payrolls grew by {k},000 in {month} and the unemployment rate held at {pct:.1f}%.",
    "GDP grew at an annualized {pct:.1f}% in the quarter, led by {noun} spending.",
)
MARKET_CLAIMS = (
    "Equity markets closed {pct:.1f}% higher as investors weighed {adj} earnings from {noun} companies.",
    "Analysts said {noun} demand softened in {month}, with orders down {pct:.1f}% from a year earlier.",
    "Credit spreads narrowed for a {ordinal} straight week as issuance of {adj} debt picked up.",
    "Several strategists argue the {noun} rally has run ahead of fundamentals.",
    "Shipping costs on major routes eased, taking pressure off {adj} goods prices.",
    "Corporate guidance for the {noun} sector was cut by {k} of the largest firms.",
    "Housing starts fell to {k},000 units, the lowest reading since {month} {year}.",
    "Investors moved into {adj} assets while volatility stayed near {pct:.0f}-month lows.",
)
WATCH_CLAIMS = (
    "Next inflation release on {month} {day}, with attention on {noun} prices.",
    "The {bank} publishes its next statement on {month} {day}.",
    "Quarterly earnings from {noun} firms begin on {month} {day}.",
    "Revisions to {month} employment figures are due in the next release.",
)
BANKS = ("Federal Reserve", "European Central Bank", "Bank of England", "Bank of Japan", "Bank of Canada")
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")
SHORT_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
START = datetime(2019, 1, 2, tzinfo=timezone.utc)


def slug(text: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in text.lower()).strip("-").replace("--", "-")


def iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass
class Source:
    id: str
    publisher: str
    feed: str
    tier: int
    paywall: str
    tags: list[str]

    @property
    def host(self) -> str:
        return f"www.{slug(self.publisher).replace('-', '')}.example.org"


def brief_sources() -> list[Source]:
    return [Source(slug(f"{p} {f}").replace("-", "_")[:40], p, f, t, w, tags) for p, f, t, w, tags in PUBLISHERS]


def registry_yaml(sources: list[Source]) -> str:
    lines = ["# Source registry of the benchmark corpus (generated)", "", "sources:"]
    for s in sources:
        lines += [f"  - id: {s.id}", f"    name: {s.publisher} - {s.feed}", f"    url: https://{s.host}/feeds/latest.xml",
                  "    type: rss", f"    tags: [{', '.join(s.tags)}]", f"    credibility_tier: {s.tier}",
                  "    fetch_interval: daily", f"    paywall_policy: {s.paywall}", ""]
    return "\n".join(lines)


@dataclass
class Document:
    id: str
    source: Source
    url: str
    title: str
    published: datetime
    chunks: list[tuple[str, str]]  # (chunk id, text)


def sentence(rng: random.Random) -> str:
    return f"{words(rng, rng.randint(6, 16)).capitalize()}, {words(rng, rng.randint(3, 9))}."


def make_documents(day: int, count: int, sources: list[Source], rng: random.Random, serial: list[int]) -> list[Document]:
    weights = [{1: 3.0, 2: 2.5, 3: 0.8, 4: 0.4}[s.tier] for s in sources]
    documents = []
    for source in rng.choices(sources, weights, k=count):
        serial[0] += 1
        number = serial[0]
        published = START + timedelta(days=day, minutes=rng.randrange(6 * 60, 20 * 60))
        title = f"{words(rng, rng.randint(3, 8)).capitalize()} {number}"
        url = f"https://{source.host}/{published:%Y/%m/%d}/{slug(title)}"
        chunks = [(f"chunk_{number}_{o}", " ".join(sentence(rng) for _ in range(rng.randint(2, 5))))
                  for o in range(rng.randint(1, 3))]
        documents.append(Document(f"doc_{number}", source, url, title, published, chunks))
    return documents


def write_store(path: Path, sources: list[Source], documents: list[Document]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(path) as db:
        db.executescript(ddl())
        db.executemany("INSERT INTO sources VALUES (?, ?, ?, ?, ?, ?)",
                       [(s.id, f"{s.publisher} - {s.feed}", f"https://{s.host}/feeds/latest.xml", s.tier, s.paywall,
                         json.dumps(s.tags)) for s in sources])
        db.executemany("INSERT INTO documents VALUES (?, ?, ?, ?, ?, ?)",
                       [(d.id, d.source.id, d.url, d.title, iso(d.published), iso(d.published + timedelta(minutes=20)))
                        for d in documents])
        db.executemany("INSERT INTO chunks VALUES (?, ?, ?, ?)",
                       [(cid, d.id, ordinal, text) for d in documents for ordinal, (cid, text) in enumerate(d.chunks)])
    db.close()


CONTEXT = (
    " Analysts expect {adj} {noun} conditions to persist into the next quarter.",
    " The move was widely anticipated by {noun} desks.",
    " Commentary from {noun} strategists was mixed, with some pointing to {adj} positioning.",
    "",
    "",
)


def claim(kind: str, rng: random.Random) -> str:
    template = rng.choice({"policy": POLICY_CLAIMS, "market": MARKET_CLAIMS, "watch": WATCH_CLAIMS}[kind])
    template += rng.choice(CONTEXT)
    low = rng.choice((0.25, 1.0, 2.5, 3.75, 4.25, 5.25))
    return template.format(bank=rng.choice(BANKS), low=low, high=low + 0.25, adj=rng.choice(ADJECTIVES),
                           month=rng.choice(MONTHS), year=rng.randint(2019, 2027), bn=rng.choice((25, 35, 60, 95)),
                           pct=rng.uniform(0.1, 9.9), k=rng.randint(12, 480), noun=rng.choice(NOUNS),
                           ordinal=rng.choice(("second", "third", "fourth", "fifth")), day=rng.randint(1, 28))


def citation_object(doc: Document, rng: random.Random, plant: bool) -> dict:
    chunk_id, text = rng.choice(doc.chunks)
    item = {"id": f"cite_{doc.id}", "source_id": doc.source.id, "publisher": doc.source.publisher, "doc_id": doc.id,
            "chunk_id": chunk_id, "url": doc.url, "title": doc.title, "published_at": iso(doc.published),
            "fetched_at": iso(doc.published + timedelta(minutes=20))}
    if doc.source.paywall == "metadata_only":
        item["snippet_span"] = {"text": doc.title}
        return item
    start = rng.randrange(0, max(1, len(text) - 40))
    end = min(len(text), start + rng.randint(15, 60))
    quoted = text[start:end]
    if plant:  # B322: the quote no longer matches the stored chunk
        quoted = quoted[:-1] + ("#" if quoted[-1] != "#" else "%")
    item["quote_span"] = {"start": start, "end": end, "text": quoted}
    return item


def reference_line(number: int, doc: Document) -> str:
    date = f"{SHORT_MONTHS[doc.published.month - 1]} {doc.published.day}, {doc.published.year}"
    tags = (" [Paywall]" if doc.source.paywall == "metadata_only" else "") + (
        " [Monitor-only source]" if doc.source.tier == 4 else "")
    return f'[{number}] {doc.source.publisher}. "{doc.title}". Published {date}. {doc.url}{tags}'


def choose_references(pool: list[Document], rng: random.Random) -> list[Document]:
    """10-20 distinct documents: at least three of Tier 1 and three of Tier 2, at most two of Tier 4 (so
    the pack they go into keeps Tier 4 under 15%)."""
    by_tier = defaultdict(list)
    for doc in pool:
        by_tier[doc.source.tier].append(doc)
    chosen = rng.sample(by_tier[1], min(3, len(by_tier[1]))) + rng.sample(by_tier[2], min(3, len(by_tier[2])))
    rest = [d for d in pool if d not in chosen and d.source.tier < 4]
    chosen += rng.sample(rest, min(len(rest), rng.randint(4, 12)))
    chosen += rng.sample(by_tier[4], min(len(by_tier[4]), rng.randint(0, 2)))
    rng.shuffle(chosen)
    return chosen


def plan_bullets(refs: list[Document], rng: random.Random) -> list[tuple[str, list[tuple[str, list[int]]]]]:
    """Sections with (claim text, indexes into refs) bullets: every ref cited, every claim backed.

    A policy or macro claim cites a Tier 1 source first (B321); every other claim a Tier 1-2 source
    (B320), so the only findings are the planted ones.
    """
    tier1 = [i for i, d in enumerate(refs) if d.source.tier == 1]
    credible = [i for i, d in enumerate(refs) if d.source.tier <= 2]
    sections, cited = [], set()
    for title, low, high in SECTIONS:
        bullets = []
        if title == "Minority View" and rng.random() < 0.2:
            bullets.append((ABSTAIN_MINORITY, []))
        else:
            for _ in range(rng.randint(low, high)):
                kind = "watch" if title == "What to Watch" else rng.choice(("policy", "market", "market"))
                first = rng.choice(tier1 if kind in ("policy", "watch") else credible)
                extra = rng.sample(range(len(refs)), rng.randint(0, 2))
                markers = list(dict.fromkeys([first, *extra]))
                cited.update(markers)
                bullets.append((claim(kind, rng), markers))
        sections.append((title, bullets))
    cited_bullets = [b for _, bullets in sections for b in bullets if b[1]]
    for index in range(len(refs)):
        if index not in cited:
            rng.choice(cited_bullets)[1].append(index)
    return sections


def render_brief(day: datetime, sections, refs: list[Document]) -> tuple[str, list[int]]:
    """The brief's Markdown, and the refs in marker order (marker N is refs[order[N - 1]])."""
    order: list[int] = []
    for _, bullets in sections:
        for _, markers in bullets:
            order += [m for m in markers if m not in order]
    number = {ref: n for n, ref in enumerate(order, 1)}
    lines = [f"# Daily Brief - {day:%Y-%m-%d}", ""]
    for title, bullets in sections:
        lines.append(f"## {title}")
        lines += [f"- {text} " + "".join(f"[{number[m]}]" for m in markers) if markers else f"- {text}"
                  for text, markers in bullets]
        lines.append("")
    lines += ["## References"] + [reference_line(n, refs[ref]) for n, ref in enumerate(order, 1)]
    return "\n".join(lines) + "\n", order


def evidence_pack(index: int, generated: datetime, refs: list[Document], pool: list[Document], chosen: dict,
                  rng: random.Random) -> dict:
    """§4.4's pack: the cited chunks plus others of the window, within every diversity bound."""
    items = [(d, chosen[d.id]) for d in refs]
    others = [(d, cid) for d in pool if d not in refs for cid, _ in d.chunks if d.source.tier <= 3]
    rng.shuffle(others)
    size = rng.randint(22, 30)
    for doc, cid in others:
        if len(items) >= size:
            break
        publishers = Counter(d.source.publisher for d, _ in items)
        if publishers[doc.source.publisher] + 1 <= 0.3 * 22:
            items.append((doc, cid))
    chunks = []
    for doc, cid in items:
        similarity, recency = round(rng.uniform(0.55, 0.99), 3), round(max(0.0, 1 - (generated - doc.published).days / 30), 3)
        credibility = CREDIBILITY[doc.source.tier]
        chunks.append({"chunk_id": cid, "source_id": doc.source.id, "publisher": doc.source.publisher,
                       "credibility_tier": doc.source.tier, "published_at": iso(doc.published),
                       "similarity": similarity, "recency": recency, "credibility": credibility,
                       "score": round(0.5 * similarity + 0.3 * recency + 0.2 * credibility, 4)})
    return {"pack_id": f"pack_{index:05d}", "query": f"What moved markets on {generated:%Y-%m-%d}?",
            "generated_at": iso(generated), "chunks": chunks, "diversity_stats": diversity_stats(items)}


def diversity_stats(items: list[tuple[Document, str]]) -> dict:
    total = len(items)
    publishers = Counter(d.source.publisher for d, _ in items)
    tiers = Counter(d.source.tier for d, _ in items)
    stats = {"unique_publishers": len(publishers)}
    stats.update({f"tier_{t}_pct": round(100 * tiers[t] / total, 1) for t in (1, 2, 3, 4)})
    stats["max_publisher_pct"] = round(100 * publishers.most_common(1)[0][1] / total, 1)
    if stats["max_publisher_pct"] > 40 or stats["tier_1_pct"] + stats["tier_2_pct"] < 50 or stats["tier_4_pct"] > 15:
        raise AssertionError(f"generated pack breaks a diversity bound: {stats}")
    return stats


def gen_briefs(root: Path, scale: float, rng: random.Random) -> Corpus:
    """Daily briefs (3-8 KB) with sidecars and packs, a SQLite evidence store and a source registry.

    One brief in 100 has a quote that differs from its stored chunk (B322).
    """
    count = scaled(10_000, scale, 20)
    sources = brief_sources()
    (root / "source_registry.yaml").write_text(registry_yaml(sources), encoding="utf-8")
    per_day, docs_per_day, window = 4, 14, 4
    days = -(-count // per_day)
    serial = [0]  # documents of ``window`` days before the first brief too, so every brief has a full window
    by_day = [make_documents(day, docs_per_day, sources, rng, serial) for day in range(-window, days)]
    write_store(root / "evidence" / "store.sqlite", sources, [d for docs in by_day for d in docs])
    planted, briefs = 0, []
    for index in range(count):
        day = index // per_day
        pool = [d for docs in by_day[day:day + window + 1] for d in docs]
        plant = is_planted(index, count, 100)
        briefs.append(write_brief(root, index, day, pool, rng, plant))
        planted += plant
    write_pyproject(root, '\n[tool.citations.kinds.briefs]\nevidence-store = "evidence/store.sqlite"\n')
    sizes = [(root / b).stat().st_size for b in briefs]
    return Corpus("briefs", root, "B322", planted,
                  f"{count} briefs ({min(sizes) / 1e3:.1f}-{max(sizes) / 1e3:.1f} KB) + sidecars, "
                  f"{serial[0]} documents in the store", floor={"markdown": briefs})


def write_brief(root: Path, index: int, day: int, pool: list[Document], rng: random.Random, plant: bool) -> str:
    moment = START + timedelta(days=day, hours=21)
    refs = choose_references(pool, rng)
    sections = plan_bullets(refs, rng)
    text, order = render_brief(moment, sections, refs)
    planted_at = rng.choice([n for n, ref in enumerate(order) if refs[ref].source.paywall == "full"]) if plant else -1
    citations, chosen = {}, {}
    for n, ref in enumerate(order):
        citations[str(n + 1)] = citation_object(refs[ref], rng, plant=n == planted_at)
        chosen[refs[ref].id] = citations[str(n + 1)]["chunk_id"]
    sidecar = {"citations": citations, "evidence_pack": evidence_pack(index, moment, refs, pool, chosen, rng)}
    name = f"briefs/{moment:%Y/%m}/{moment:%Y-%m-%d}-{index % 4}"
    (root / name).parent.mkdir(parents=True, exist_ok=True)
    (root / f"{name}.md").write_text(text, encoding="utf-8")
    (root / f"{name}.citations.json").write_text(json.dumps(sidecar, indent=2) + "\n", encoding="utf-8")
    return f"{name}.md"


# -- (3) memories ---------------------------------------------------------------------------------------------------

LINK_TYPES = ("related", "related", "implements", "extends", "blocks", "supersedes")


def gen_memories(root: Path, scale: float, rng: random.Random) -> Corpus:
    """Serena memories with 5 citations each against a generated source repository.

    One citation in 1000 has a snippet that is on no line of its file (M211).
    """
    count = scaled(10_000, scale, 20)
    repo = write_source_repo(root, scaled(2000, scale, 20), rng)
    paths = sorted(repo)
    areas = ("auth", "billing", "deploy", "api", "storage", "ops", "")
    planted = serial = 0
    citers: dict[str, set[str]] = defaultdict(set)
    memories, ids = [], []
    for index in range(count):
        name = f".serena/memories/{rng.choice(areas)}/{rng.choice(NOUNS)}-{index:05d}.md".replace("//", "/")
        ids.append(f"mem-{index:05d}" if rng.random() < 0.7 else Path(name).stem)  # else named by its file
        citations = []
        for _ in range(5):
            path = rng.choice(paths)
            citers[path].add(name)
            plant = is_planted(serial, count * 5, 1000)
            citations.append(memory_citation(path, repo[path], rng, plant))
            planted += plant
            serial += 1
        links = [(rng.choice(LINK_TYPES), rng.randrange(index)) for _ in range(rng.randint(0, 3))] if index else []
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(memory_text(ids, index, citations, links, rng), encoding="utf-8")
        memories.append(name)
    write_pyproject(root)
    hot = sorted(citers, key=lambda p: (len(citers[p]), p))[len(citers) // 2]
    cited = sorted(citers)
    return Corpus("memories", root, "M211", planted, f"{count} memories x 5 citations, {len(repo)}-file repository",
                  floor={"memories": memories, "cited": cited},
                  extra={"hot_file": hot, "hot_citers": len(citers[hot]), "planted_files": planted})  # 1000 citations apart: one memory never has two


def memory_citation(path: str, lines: list[str], rng: random.Random, plant: bool) -> dict:
    if not plant and rng.random() < 0.08:
        return {"path": path}  # a path-only citation: the file must exist
    line = rng.choice(citable_lines(lines))
    snippet = f"no such text {rng.randrange(10**9)}" if plant else snippet_of(lines[line - 1], rng)
    item = {"path": path, "line": line, "snippet": snippet}
    if rng.random() < 0.5:
        item["verified"] = f"2026-0{rng.randint(1, 9)}-{rng.randint(10, 28)}T09:30:00Z"
    return item


def memory_text(ids: list[str], index: int, citations: list[dict], links: list[tuple[str, int]],
                rng: random.Random) -> str:
    lines = ["---"]
    if ids[index].startswith("mem-"):
        lines.append(f"id: {ids[index]}")
    lines.append(f"subject: {json.dumps(words(rng, rng.randint(4, 10)).capitalize())}")
    lines.append("citations:")
    for item in citations:
        lines.append(f"  - path: {item['path']}")
        if "line" in item:
            lines += [f"    line: {item['line']}", f"    snippet: {json.dumps(item['snippet'])}"]
        if "verified" in item:
            lines.append(f"    verified: {item['verified']}")
    if links:
        lines.append("links:")
        lines += [f"  - {kind}: {ids[target]}" for kind, target in dict.fromkeys(links)]
    lines.append(f"tags: [{', '.join(rng.sample(NOUNS, rng.randint(1, 4)))}]")
    if rng.random() < 0.6:
        lines += [f"confidence: {rng.choice((1.0, 0.8, 0.6))}", "last_verified: 2026-01-12T09:30:00Z"]
    lines += ["---", "", f"# {words(rng, rng.randint(2, 6)).capitalize()}", ""]
    for _ in range(rng.randint(1, 4)):
        lines += [" ".join(sentence(rng) for _ in range(rng.randint(2, 6))), ""]
    return "\n".join(lines)



# -- (4) code tuples -------------------------------------------------------------------------------------------------


def gen_code_tuples(root: Path, scale: float, rng: random.Random) -> Corpus:
    """RLM batches of findings (JSONL, some JSON) citing a generated repository with tuples.

    One tuple in 1000 has a content_hash of another version of its file (R408 STALE).
    """
    tuples = scaled(100_000, scale, 200)
    repo = write_source_repo(root, scaled(2000, scale, 20), rng)
    hashes = {p: hashlib.sha256(("\n".join(lines) + "\n").encode()).hexdigest()[:16] for p, lines in repo.items()}
    paths = sorted(repo)
    batches, written, planted, cited = [], 0, 0, set()
    while written < tuples:
        batch = root / "rlm" / f"batch-{len(batches):04d}"
        batch.mkdir(parents=True)
        findings = []
        for _ in range(rng.randint(100, 400)):
            items = []
            for _ in range(min(rng.randint(1, 3), tuples - written)):
                path = rng.choice(paths)
                plant = is_planted(written, tuples, 1000)
                items.append(code_tuple(path, hashes[path], len(repo[path]), rng, plant))
                cited.add(path)
                planted += plant
                written += 1
            findings.append({"id": f"F{len(findings) + 1}", "finding": words(rng, rng.randint(5, 14)).capitalize() + ".",
                             "severity": rng.choice(("info", "low", "medium", "high")), "citations": items})
            if written >= tuples:
                break
        batches += write_batch(batch, findings, rng)
    write_pyproject(root)
    return Corpus("code-tuples", root, "R408", planted, f"{tuples} tuples in {len(batches)} files, {len(repo)}-file repository",
                  floor={"jsonl": [b for b in batches if b.endswith(".jsonl")],
                         "json": [b for b in batches if b.endswith(".json")], "cited": sorted(cited)})


def code_tuple(path: str, digest: str, length: int, rng: random.Random, plant: bool) -> dict:
    start = rng.randint(1, length)
    end = min(length, start + rng.randint(0, 20))
    if plant:
        digest = hashlib.sha256(digest.encode()).hexdigest()[:16]
    return {"artifact_id": path, "content_hash": digest, "lines": f"L{start}" if start == end else f"L{start}-{end}"}


def write_batch(batch: Path, findings: list[dict], rng: random.Random) -> list[str]:
    """A batch's findings as JSONL (4 in 5) or one JSON document, and its manifest."""
    root = batch.parent.parent
    meta = {"batch": batch.name, "require_citations": True, "sub_agents": rng.randint(2, 12)}
    if rng.random() < 0.8:
        target = batch / "findings.jsonl"
        target.write_text("".join(json.dumps(f) + "\n" for f in findings), encoding="utf-8")
    else:
        target = batch / "findings.json"
        target.write_text(json.dumps({**meta, "findings": findings}, indent=2) + "\n", encoding="utf-8")
    (batch / "manifest.json").write_text(json.dumps({**meta, "files": [target.name]}, indent=2) + "\n", encoding="utf-8")
    return [str(target.relative_to(root))]


# -- (5) EAR ids -----------------------------------------------------------------------------------------------------

TASKS = (("ear_compliance.v1", "ear_compliance", 0.55), ("golden.v1", "phase2_golden", 0.15),
         ("entity_obligations.v1", "entity_obligations", 0.2), ("unanswerable.v1", "unanswerable", 0.1))
LABELS = ("license_required", "no_license_required", "exception_applies", "true", "false")


def corpus_sections(count: int, rng: random.Random) -> list[str]:
    """``count`` distinct canonical section ids: parts 730-774, sections, (a)-(h) and (1)-(6) subsections."""
    ids: list[str] = []
    seen = set()
    while len(ids) < count:
        part = rng.randint(730, 774)
        section = f"EAR-{part}.{rng.randint(1, 40)}"
        depth = rng.choice((0, 1, 1, 2))
        if depth >= 1:
            section += f"({'abcdefgh'[rng.randrange(8)]})"
        if depth == 2:
            section += f"({rng.randint(1, 6)})"
        if section not in seen:
            seen.add(section)
            ids.append(section)
    return ids


def gen_ear(root: Path, scale: float, rng: random.Random) -> Corpus:
    """Eval datasets (100k records), their manifest and the retrieval corpus they cite.

    One record in 1000 cites a canonical section id that no corpus record has (E505).
    """
    records = scaled(100_000, scale, 200)
    sections = corpus_sections(scaled(8000, scale, 50), rng)
    corpus = root / "data" / "corpus.jsonl"
    corpus.parent.mkdir(parents=True)
    with corpus.open("w", encoding="utf-8") as stream:
        for section in sections:
            for record in corpus_records(section, rng):
                stream.write(json.dumps(record) + "\n")
    (root / "eval").mkdir()
    datasets, files, planted, start = [], [], 0, 0
    for position, (name, task, share) in enumerate(TASKS):
        size = records - start if position == len(TASKS) - 1 else round(records * share)
        path = f"eval/{name}.jsonl"
        with (root / path).open("w", encoding="utf-8") as stream:
            for index in range(start, start + size):
                plant = is_planted(index, records, 1000)
                stream.write(json.dumps(eval_record(name, task, index, sections, rng, plant)) + "\n")
                planted += plant
        datasets.append({"id": name, "file": path, "num_items": size, "task": task, "version": 1})
        files.append(path)
        start += size
    (root / "eval" / "manifest.json").write_text(json.dumps({"datasets": datasets}, indent=2) + "\n", encoding="utf-8")
    write_pyproject(root)
    return Corpus("ear", root, "E505", planted, f"{records} eval records, {len(sections)} corpus sections",
                  floor={"jsonl": files + ["data/corpus.jsonl"], "json": ["eval/manifest.json"]})


def corpus_records(section: str, rng: random.Random) -> list[dict]:
    base = {"schema_version": "retrieval-corpus.v1", "source": "ecfr_snapshot", "source_ref": "ecfr-2025-12-31"}
    kind = "subsection" if "(" in section else "section"
    records = [{**base, "doc_id": section, "section_id": section, "chunk_kind": kind, "text": sentence(rng)}]
    for ordinal in range(1, rng.randint(1, 6)):
        records.append({**base, "doc_id": f"{section}#p{ordinal:04d}", "section_id": section, "chunk_kind": "paragraph",
                        "parent_id": section, "ordinal": ordinal, "text": sentence(rng)})
    return records


def eval_record(name: str, task: str, index: int, sections: list[str], rng: random.Random, plant: bool) -> dict:
    cited = rng.sample(sections, rng.randint(0 if task == "unanswerable" else 1, 3 if task != "unanswerable" else 0))
    label = "unanswerable" if task == "unanswerable" else rng.choice(LABELS)
    record = {"id": f"{name.split('.')[0]}-{index:06d}", "task": task,
              "question": f"Does {words(rng, rng.randint(4, 12))} need a license under {rng.choice(sections)}?",
              "ground_truth": {"answer_text": words(rng, rng.randint(1, 8)).capitalize() + ".", "label": label}}
    if cited and rng.random() < 0.7:
        record["expected"] = {"label": label, "citations": cited[:2]}
    ear_sections = list(cited)
    if plant:
        ear_sections.append(f"EAR-799.{900 + index % 97}(z)")  # canonical, but no corpus record has it
    record.update({"ear_sections": ear_sections, "kg_entities": [],
                   "evidence": {"doc_spans": [{"doc_id": s.split(".")[0], "span_id": s[4:]} for s in cited],
                                "kg_nodes": []}})
    return record


# -- building and caching ------------------------------------------------------------------------------------------

GENERATORS = {
    "url-citations": gen_url_citations,
    "online": gen_online,
    "briefs": gen_briefs,
    "memories": gen_memories,
    "code-tuples": gen_code_tuples,
    "ear": gen_ear,
}


def build(scenario: str, scale: float, seed: int, base: Path = DEFAULT_BASE) -> Corpus:
    """The corpus of (scenario, scale, seed), generated once and then read from ``base``."""
    folder = base / f"{scenario}-scale{scale:g}-seed{seed}-v{GENERATOR_VERSION}"
    manifest = folder / "corpus.json"
    if manifest.exists():
        return Corpus.from_json(json.loads(manifest.read_text()))
    base.mkdir(parents=True, exist_ok=True)
    building = Path(tempfile.mkdtemp(prefix=f".{scenario}-", dir=base))  # renamed into place when complete
    try:
        (building / "repo").mkdir()
        corpus = GENERATORS[scenario](building / "repo", scale, random.Random(f"{scenario}/{seed}"))
        corpus.root = folder / "repo"
        (building / "corpus.json").write_text(json.dumps(corpus.to_json(), indent=2) + "\n")
        os.replace(building, folder)
    finally:
        shutil.rmtree(building, ignore_errors=True)
    return corpus


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scenario", choices=sorted(GENERATORS))
    parser.add_argument("--scale", type=float, default=0.05)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--corpus-dir", type=Path, default=DEFAULT_BASE)
    args = parser.parse_args()
    corpus = build(args.scenario, args.scale, args.seed, args.corpus_dir)
    print(f"{corpus.root}: {corpus.summary}; {corpus.planted} planted {corpus.planted_code}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

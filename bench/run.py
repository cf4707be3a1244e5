"""Benchmark: the checker against a floor, on a generated corpus, in the same run.

The floor is the least any checker must do with the same files: for url citations, read every
line, ``json.loads`` it and hash one field. Each scenario runs in a fresh subprocess so peak RSS
is its own; figures are reported as ratios to the floor measured alongside, because absolute
times on shared machines are noise. The planted errors must all be found: speed cannot come from
skipping work.

    python bench/run.py [--records N] [--repeat K] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from pytest_citations.urls import cid_for, normalize_url  # noqa: E402

PLANTED_EVERY = 1000  # 0.1% of records carry one planted error


def generate_url_citations(path: Path, records: int, seed: int = 7) -> int:
    """Write ``records`` citation.v1 lines; return how many carry a planted cid error."""
    rng = random.Random(seed)
    planted = 0
    path.parent.mkdir(parents=True, exist_ok=True)
    (path.parent.parent / "wave-1").mkdir(exist_ok=True)
    (path.parent.parent / "wave-1" / "p1.md").write_text("## Sources\n")
    with path.open("w", encoding="utf-8") as stream:
        for index in range(records):
            original = f"https://site{rng.randrange(500)}.example.com/articles/{index}?utm_source=feed&id={rng.randrange(10**6)}"
            normalized = normalize_url(original)
            cid = cid_for(normalized)
            if index % PLANTED_EVERY == PLANTED_EVERY - 1:
                cid = cid_for(normalized + "/drift")
                planted += 1
            record = {
                "schema_version": "citation.v1", "normalized_url": normalized, "cid": cid, "url": normalized,
                "url_original": original, "status": "valid", "checked_at": "2026-02-13T12:35:00Z", "http_status": 200,
                "title": f"Article {index}", "publisher": "Example", "notes": "ok",
                "found_by": [{"wave": 1, "perspective_id": "p1", "agent_type": "ClaudeResearcher", "artifact_path": "wave-1/p1.md"}],
            }
            stream.write(json.dumps(record) + "\n")
    return planted


FLOOR = """
import hashlib, json, sys
count = 0
with open(sys.argv[1], "rb") as stream:
    for line in stream:
        record = json.loads(line)
        hashlib.sha256(record["normalized_url"].encode()).hexdigest()
        count += 1
print(count)
"""

TOOL = """
import sys
from pathlib import Path
from pytest_citations.engine import Engine
root = Path(sys.argv[1])
engine = Engine.load(root)
report = engine.check([root])
print(sum(1 for d in report.diagnostics if d.code == "U105"))
"""


_REPORT_RSS = "\nimport resource\nprint(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n"


def measure(code: str, argument: Path) -> tuple[float, int, str]:
    """(wall seconds, its own peak RSS in KiB, stdout) of ``python -c code argument``, fresh process."""
    start = time.perf_counter()
    result = subprocess.run([sys.executable, "-c", code + _REPORT_RSS, str(argument)], capture_output=True, text=True,
                            check=True, env={**os.environ, "PYTHONPATH": str(HERE.parent)})
    wall = time.perf_counter() - start
    return wall, int(result.stderr.strip().splitlines()[-1]), result.stdout.strip()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=200_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", type=Path, default=HERE / "results.json")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "repo"
        corpus = root / "run" / "citations" / "citations.jsonl"
        planted = generate_url_citations(corpus, args.records)
        size = corpus.stat().st_size
        (root / "pyproject.toml").write_text(f"[tool.citations]\nmax-file-size = {size + 1}\n")
        floor_times, tool_times = [], []
        floor_rss = tool_rss = 0
        for _ in range(args.repeat):  # interleaved, so both see the same machine load
            wall, rss, out = measure(FLOOR, corpus)
            assert int(out) == args.records, out
            floor_times.append(wall)
            floor_rss = max(floor_rss, rss)
            wall, rss, out = measure(TOOL, root)
            assert int(out) == planted, f"found {out} planted errors, expected {planted}"
            tool_times.append(wall)
            tool_rss = max(tool_rss, rss)
    floor, tool = statistics.median(floor_times), statistics.median(tool_times)
    result = {
        "machine": {"cores": os.cpu_count(), "python": platform.python_version()},
        "scenarios": [{
            "scenario": f"url citations: {args.records} records ({size / 1e6:.0f} MB), {planted} planted errors",
            "floor_seconds": round(floor, 3), "tool_seconds": round(tool, 3), "ratio": round(tool / floor, 2),
            "peak_rss_kib": tool_rss, "floor_peak_rss_kib": floor_rss,
        }],
    }
    args.json.write_text(json.dumps(result, indent=2) + "\n")
    print(f"{'scenario':<62} {'floor s':>8} {'tool s':>8} {'ratio':>6} {'floor MiB':>9} {'tool MiB':>9}")
    for row in result["scenarios"]:
        print(f"{row['scenario']:<62} {row['floor_seconds']:>8} {row['tool_seconds']:>8} {row['ratio']:>6} "
              f"{row['floor_peak_rss_kib'] / 1024:>9.0f} {row['peak_rss_kib'] / 1024:>9.0f}")
    print(f"({os.cpu_count()} cores, Python {platform.python_version()}; medians of {args.repeat} interleaved runs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

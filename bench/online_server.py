"""The web of the ``online`` scenario: one HTTP server per generated host, all on 127.0.0.1.

    python bench/online_server.py CORPUS_JSON [--latency SECONDS]

It listens on one port per host of the corpus (``corpus.extra["hosts"]``; the checker is sent
there with ``--online-connect-to h{k}.bench.test:80:127.0.0.1:{port}``) and answers every request
after ``--latency`` seconds (``asyncio.sleep``, so waiting costs no CPU): ``/doc/{i}`` with a
small HTML page, or 404 for the dead documents the corpus planted (``extra["dead"]``); anything
else, ``/robots.txt`` included (every path allowed), with 404. When listening it prints one JSON
line, ``{"ports": [...], "control": PORT}``, and serves until it is terminated.

The control port counts for the harness: ``GET /stats`` gives the requests since the last
``POST /reset`` (by status, those whose ``Host`` header names another host than the port's, when
the first arrived and the last was answered, how long the answers took, and the CPU time this
process used), so a run that should make no request is proven to have made none, and the server's
own share of the machine shows whether it could be what limits the throughput.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import socket
import sys
import time
from argparse import ArgumentParser
from collections import Counter
from pathlib import Path

from aiohttp import web

DOC = re.compile(r"/doc/(\d+)")


class Tally:
    """What the server answered since the last reset."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.statuses: Counter[int] = Counter()
        self.paths: Counter[str] = Counter()  # pages, robots.txt, other
        self.misrouted = 0
        self.first: float | None = None
        self.last: float | None = None
        self.busy = 0.0  # the sum of the answers' times, arrival to answer
        self.slowest = 0.0
        self.cpu = time.process_time()

    def arrived(self, now: float) -> None:
        if self.first is None:
            self.first = now

    def answered(self, path: str, status: int, arrived: float, now: float, misrouted: bool) -> None:
        self.statuses[status] += 1
        self.paths["pages" if DOC.fullmatch(path) else "robots" if path == "/robots.txt" else "other"] += 1
        self.misrouted += misrouted
        self.last = now if self.last is None else max(self.last, now)
        self.busy += now - arrived
        self.slowest = max(self.slowest, now - arrived)

    def stats(self) -> dict:
        requests = sum(self.statuses.values())
        return {"requests": requests, **{what: self.paths[what] for what in ("pages", "robots", "other")},
                "statuses": {str(k): n for k, n in sorted(self.statuses.items())}, "misrouted": self.misrouted,
                "window": (self.last - self.first) if requests and self.first is not None and self.last is not None else 0.0,
                "mean_answer": self.busy / requests if requests else 0.0, "slowest_answer": self.slowest,
                "cpu": time.process_time() - self.cpu}


def page(index: int) -> str:
    return (f"<!doctype html>\n<html><head><title>Document {index}</title></head>\n"
            f"<body><h1>Document {index}</h1><p>The benchmark's page number {index}, served after a delay.</p></body></html>\n")


def site(dead: set[int], latency: float, tally: Tally, ports: dict[int, str]) -> web.Application:
    """The application every host's port serves; ``ports`` maps a listening port to its host,
    filled in once the ports are bound."""

    async def answer(request: web.Request) -> web.Response:
        arrived = time.monotonic()
        tally.arrived(arrived)
        await asyncio.sleep(latency)
        port = request.transport.get_extra_info("sockname")[1] if request.transport else None
        misrouted = request.host.partition(":")[0].lower() != ports.get(port)
        match = DOC.fullmatch(request.path)
        if match and int(match[1]) not in dead:
            response = web.Response(text=page(int(match[1])), content_type="text/html")
        else:
            response = web.Response(status=404, text="<h1>Not found</h1>\n", content_type="text/html")
        tally.answered(request.path, response.status, arrived, time.monotonic(), misrouted)
        return response

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", answer)
    return app


def control(tally: Tally) -> web.Application:
    async def stats(request: web.Request) -> web.Response:
        return web.json_response(tally.stats())

    async def reset(request: web.Request) -> web.Response:
        before = tally.stats()
        tally.reset()
        return web.json_response(before)

    app = web.Application()
    app.router.add_get("/stats", stats)
    app.router.add_post("/reset", reset)
    return app


def listening_socket() -> socket.socket:
    """A socket bound to a free port of 127.0.0.1."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    return sock


async def serve(corpus: dict, latency: float) -> None:
    hosts, dead = corpus["extra"]["hosts"], set(corpus["extra"]["dead"])
    tally, ports = Tally(), {}
    pages, counts = (web.AppRunner(site(dead, latency, tally, ports), access_log=None),
                     web.AppRunner(control(tally), access_log=None))
    for runner in (pages, counts):
        await runner.setup()
    for host in hosts:
        sock = listening_socket()
        ports[sock.getsockname()[1]] = host
        await web.SockSite(pages, sock, backlog=1024).start()
    sock = listening_socket()
    await web.SockSite(counts, sock).start()
    print(json.dumps({"ports": list(ports), "control": sock.getsockname()[1]}), flush=True)
    await asyncio.Event().wait()


def main() -> None:
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus_json", type=Path)
    parser.add_argument("--latency", type=float, default=0.05)
    args = parser.parse_args()
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve(json.loads(args.corpus_json.read_text()), args.latency))


if __name__ == "__main__":
    sys.exit(main())

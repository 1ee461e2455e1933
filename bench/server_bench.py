"""`ragwire serve` under load: p50/p95 of /api/retrieve and /api/query at 1, 8 and 32 concurrent clients.

Ingests ``examples/docs`` (or, with ``--scifact N``, N SciFact abstracts: several
minutes of embedding for 5,000) into a temporary embedded store, measures the same
retrieve and extractive query through the Python API in this process (the baseline),
then starts ``ragwire serve`` as a subprocess and sends the requests over HTTP from
N client threads.  The ratio server/direct at one client is what the HTTP layer adds;
at 8 and 32 clients requests share two cores, so p50 grows with the queue.  Also: the page-image render
of a cited PDF passage, direct and through the endpoint.

    nice -n 10 python bench/server_bench.py                  # examples/docs
    nice -n 10 python bench/server_bench.py --requests 64
    nice -n 10 python bench/server_bench.py --scifact 5000   # builds the 5k collection first
    nice -n 10 python bench/server_bench.py --scifact 5000 --reuse /tmp/server-bench-XXXX   # its store again

The page-image endpoint serves stored sources only, so it is timed over examples/docs
(which holds the PDF); over SciFact only the direct render is.

``--during-writes N`` adds rows for one retrieve client and one query client side by
side: first for 30 s with nothing written (what the clients cost each other), then while
the server writes: a CLI ``ragwire sync`` of N new files (handed to the server, which owns
the store) and then uploads of N/4 files in requests of 10, each with the count of failed
requests, the phase's wall time, and the retrieve p95 during each write over the idle
one-client p95 and over the side-by-side p95.  ``--retrieve-alone`` adds the retrieve client alone (no query client), first for 30 s
with nothing written, then during a sync of N more files; the ratio of the two p95s is
the issue's measure, each over about as many requests (the idle x1 row has only
``--requests`` of them, so its p95 is nearly its maximum):

    nice -n 10 python bench/server_bench.py --requests 12 --during-writes 1000 --retrieve-alone

Time it with nothing else running.  On a shared machine a lower priority is not enough
(with autogroup, Linux schedules each session as a group whatever its nice value, and
other processes' disk flushes lengthen the store's); docs/server.md's figures stop every
other process for the run (``kill -STOP``, then ``kill -CONT``).

The model runs as the default config runs it (``provider: onnx``); ``--provider huggingface``
runs it on sentence-transformers instead.  That runtime's forward pass is Python calling
torch layer by layer, holding the interpreter lock between layers, so a writer embedding
documents and a reader embedding its query take turns at the lock and reads slow more
while a sync runs (the rows say how much).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlencode, urlsplit

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

common.go_offline()

REPO = common.BENCH_DIR.parent
QUERIES = ["How long does the warranty last?", "How long does a full charge take?", "What does error E-4711 mean?",
           "Who do I call for a repair?", "Which parts wear out?", "What is in the onboarding checklist?"]
# How long the retrieve and query clients run side by side with no writes, for the baseline of the rows during writes.
SIDE_BY_SIDE_S = 30
PASSAGE = "The warranty lasts 24 months from the date the robot is delivered to your site."


def start_server(config: Path, log: Path, uploads: bool = False) -> tuple[str, subprocess.Popen]:
    env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    handle = log.open("w")
    extra = ["--upload-dir", str(config.parent / "uploads")] if uploads else []
    process = subprocess.Popen([sys.executable, "-m", "ragwire.cli", "serve", "--config", str(config), "--port", "0",
                                *extra], env=env, stdout=handle, stderr=subprocess.STDOUT)
    handle.close()
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        match = re.search(r"ragwire serve on (http://\S+/)", log.read_text())
        if match:
            return match.group(1), process
        if process.poll() is not None:
            raise SystemExit(log.read_text())
        time.sleep(0.1)
    raise SystemExit("the server did not start")


def post(url: str, path: str, body: dict) -> float:
    address = urlsplit(url)
    conn = http.client.HTTPConnection(address.hostname, address.port, timeout=300)
    start = time.perf_counter()
    conn.request("POST", path, json.dumps(body), {"Content-Type": "application/json"})
    response = conn.getresponse()
    response.read()
    elapsed = time.perf_counter() - start
    conn.close()
    assert response.status == 200, response.status
    return elapsed


def load(url: str, path: str, make_body, clients: int, requests: int) -> list[float]:
    """``requests`` requests spread over ``clients`` threads, each sending one after another."""
    times: list[float] = []
    lock = threading.Lock()
    counter = iter(range(requests))

    def client() -> None:
        while True:
            with lock:
                i = next(counter, None)
            if i is None:
                return
            elapsed = post(url, path, make_body(i))
            with lock:
                times.append(elapsed)

    threads = [threading.Thread(target=client) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return times


def during(url: str, queries: list[str], write, clients: tuple[str, ...] = ("/api/retrieve", "/api/query"),
           ) -> dict[str, tuple[list[float], int]]:
    """Times of one client per path in ``clients``, each sending one request after another while ``write()`` runs."""
    done = threading.Event()
    results: dict[str, tuple[list[float], int]] = {}

    def client(path: str, key: str) -> None:
        times, failed, i = [], 0, 0
        while not done.is_set():
            try:
                times.append(post(url, path, {key: queries[i % len(queries)]}))
            except (AssertionError, OSError):
                failed += 1
            i += 1
        results[path] = (times, failed)

    keys = {"/api/retrieve": "query", "/api/query": "question"}
    threads = [threading.Thread(target=client, args=(path, keys[path])) for path in clients]
    for t in threads:
        t.start()
    try:
        write()
    finally:
        done.set()
        for t in threads:
            t.join()
    return results


def sync_files(config: Path, folder: Path, count: int, first: int = 0) -> None:
    """Write ``count`` new notes (numbered from ``first``) into the synced folder and run ``ragwire sync`` (handed to the server)."""
    for i in range(first, first + count):
        (folder / f"note-{i:05d}.md").write_text(
            f"# Note {i}\n\nMachine {i} of hall {i % 17} is serviced every {i % 12 + 1} months; "
            f"its spare part is QX-{i:05d} and the key hangs in cabinet {i % 40}.\n")
    env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    done = subprocess.run([sys.executable, "-m", "ragwire.cli", "sync", "--config", str(config)], env=env,
                          capture_output=True, text=True)
    assert done.returncode == 0 and "handing this run to it" in done.stderr, done.stderr[-2000:]


def upload_files(url: str, count: int) -> None:
    """Upload ``count`` notes in requests of 10 and wait for each job."""
    address = urlsplit(url)
    for start in range(0, count, 10):
        boundary = "benchboundary"
        body = b"".join(
            f'--{boundary}\r\nContent-Disposition: form-data; name="files"; filename="upload-{i:05d}.md"\r\n\r\n'
            f"# Upload {i}\n\nForklift {i} is charged at dock {i % 9} every {i % 5 + 1} hours.\n\r\n".encode()
            for i in range(start, min(start + 10, count))) + f"--{boundary}--\r\n".encode()
        conn = http.client.HTTPConnection(address.hostname, address.port, timeout=300)
        conn.request("POST", "/api/documents", body, {"Content-Type": f"multipart/form-data; boundary={boundary}"})
        response = conn.getresponse()
        job = json.loads(response.read())
        conn.close()
        assert response.status == 202, job
        while True:
            conn = http.client.HTTPConnection(address.hostname, address.port, timeout=60)
            conn.request("GET", job["url"])
            state = json.loads(conn.getresponse().read())
            conn.close()
            if state["state"] in ("done", "failed"):
                assert state["counts"]["failed"] == 0, state
                break
            time.sleep(0.2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=48, help="requests per endpoint and concurrency level")
    parser.add_argument("--scifact", type=int, default=0, metavar="N", help="use N SciFact abstracts instead")
    parser.add_argument("--during-writes", type=int, default=0, metavar="N",
                        help="also time reads during a sync of N files and uploads of N/4 files")
    parser.add_argument("--retrieve-alone", action="store_true",
                        help="with --during-writes: also time the retrieve client alone during a sync of N more files")
    parser.add_argument("--provider", choices=("onnx", "huggingface"), default="onnx",
                        help="the embedding runtime (default: onnx, as the default config)")
    parser.add_argument("--reuse", type=Path, metavar="DIR",
                        help="the work folder of an earlier run (kept at the end): search its store, skip the ingest")
    args = parser.parse_args()

    from ragwire import RAGWire
    from ragwire.web.pages import render_page

    work = args.reuse or Path(tempfile.mkdtemp(prefix="server-bench-"))
    config = work / "config.yaml" if args.reuse else common.write_config(
        work, chunk_size=1000, chunk_overlap=100, batch_size=32, workers=1, provider=args.provider)
    print(f"work folder (reuse with --reuse): {work}", flush=True)
    queries = list(QUERIES)
    if args.scifact:
        files = common.pick_files(common.ensure_files(None, common.DEFAULT_BEIR), args.scifact)
        folder = common.copy_files(files, work / "docs")
        queries = common.load_queries(common.DEFAULT_BEIR, 50)
    else:
        folder = REPO / "examples" / "docs"
    rag = RAGWire(config)
    t = time.perf_counter()
    if not args.reuse:
        rag.ingest_directory(folder)
    ingest_s = time.perf_counter() - t
    print(f"ingest {ingest_s:.1f} s", flush=True)
    rag.close()
    # the baseline reads the store as the server will: freshly opened, model loaded, warmed up
    rag = RAGWire(config)
    for question in queries[:3]:
        rag.query(question)
    direct_retrieve = common.timed_calls(lambda: rag.retrieve(queries[1]), 20)
    direct_query = common.timed_calls(lambda: rag.query(queries[0]), 10)
    rag.close()
    pdf = REPO / "examples" / "docs" / "warranty-policy.pdf"
    render = common.timed_calls(lambda: render_page(pdf, 1, PASSAGE), 10)

    if args.during_writes:
        import yaml

        data = yaml.safe_load(config.read_text())
        data["sources"] = [{"type": "local", "path": str(work / "synced"), "name": "synced"}]
        config.write_text(yaml.safe_dump(data))
        (work / "synced").mkdir(exist_ok=True)
    url, process = start_server(config, work / "serve.log", args.during_writes)
    rows: list[tuple[str, object]] = []
    summary: dict[str, object] = {"corpus": "scifact-%d" % args.scifact if args.scifact else "examples/docs",
                                  "provider": args.provider,
                                  "ingest_s": None if args.reuse else round(ingest_s, 1), "load_average": common.load_average(),
                                  "code": common.code_version()}
    try:
        post(url, "/api/query", {"question": queries[0]})  # the server's model load
        for path, key in (("/api/retrieve", "query"), ("/api/query", "question")):
            for clients in (1, 8, 32):
                times = load(url, path, lambda i, key=key: {key: queries[i % len(queries)]}, clients, args.requests)
                p50, p95 = common.percentile(times, 50), common.percentile(times, 95)
                rows.append((f"{path} x{clients} p50 / p95 ms", f"{p50 * 1000:.1f} / {p95 * 1000:.1f}"))
                print(*rows[-1], flush=True)  # kept if a later step fails
                summary[f"{path}_{clients}"] = {"p50_ms": round(p50 * 1000, 1), "p95_ms": round(p95 * 1000, 1)}
        if args.during_writes:
            # The two clients side by side with nothing written: what one read costs the other,
            # so the rows during writes show what the writes add on top.
            both = ("/api/retrieve", "/api/query")
            n = args.during_writes
            phases = [("side_by_side", lambda: time.sleep(SIDE_BY_SIDE_S), both),
                      ("sync", lambda: sync_files(config, work / "synced", n), both),
                      ("uploads", lambda: upload_files(url, max(n // 4, 10)), both)]
            if args.retrieve_alone:
                # the measure exactly: the retrieve client alone, first for as long with nothing
                # written (its idle p95 from as many requests as the sync phase has, not --requests)
                phases[1:1] = [("idle_alone", lambda: time.sleep(SIDE_BY_SIDE_S), ("/api/retrieve",)),
                               ("sync_alone", lambda: sync_files(config, work / "synced", n, first=n),
                                ("/api/retrieve",))]
            for label, write, clients in phases:
                started = time.perf_counter()
                reads = during(url, queries, write, clients)
                for path, (times, failed) in reads.items():
                    p50, p95 = common.percentile(times, 50), common.percentile(times, 95)
                    what = {"side_by_side": "beside the other client, no writes", "idle_alone": "alone, no writes",
                            "sync_alone": "alone during a sync"}.get(label, f"during {label}")
                    rows.append((f"{path} x1 {what} p50 / p95 ms (failed)",
                                 f"{p50 * 1000:.1f} / {p95 * 1000:.1f} ({failed} of {len(times) + failed})"))
                    print(*rows[-1], flush=True)
                    summary[f"{path}_during_{label}"] = {"p50_ms": round(p50 * 1000, 1), "p95_ms": round(p95 * 1000, 1),
                                                         "requests": len(times) + failed, "failed": failed}
                summary[f"{label}_s"] = round(time.perf_counter() - started, 1)
                print(f"{label}: {summary[f'{label}_s']} s", flush=True)
            for label, _, clients in phases[1:]:
                if label == "idle_alone":
                    continue
                during_p95 = summary[f"/api/retrieve_during_{label}"]["p95_ms"]  # type: ignore[index]
                bases = [("idle x1", "/api/retrieve_1")]
                if label == "sync_alone":
                    bases.append(("alone, no writes", "/api/retrieve_during_idle_alone"))
                if len(clients) > 1:
                    bases.append(("side by side", "/api/retrieve_during_side_by_side"))
                for base, key in bases:
                    ratio = during_p95 / summary[key]["p95_ms"]  # type: ignore[index]
                    desc = "alone during a sync" if label == "sync_alone" else f"during {label}"
                    rows.append((f"/api/retrieve p95 {desc} / {base}", f"{ratio:.2f}"))
                    print(*rows[-1], flush=True)
        address = urlsplit(url)
        source = str(pdf.resolve())
        image_times: list[float] = []
        for _ in range(10 if not args.scifact else 0):  # the endpoint serves stored sources only
            conn = http.client.HTTPConnection(address.hostname, address.port, timeout=60)
            start = time.perf_counter()
            conn.request("GET", "/api/page-image?" + urlencode({"source": source, "page": 1, "text": PASSAGE}))
            response = conn.getresponse()
            response.read()
            image_times.append(time.perf_counter() - start)
            assert response.status == 200 and response.getheader("x-ragwire-passage") == "found"
            conn.close()
    finally:
        process.terminate()
        process.wait(timeout=30)

    d_r, d_q = common.percentile(direct_retrieve, 50), common.percentile(direct_query, 50)
    s_r, s_q = summary["/api/retrieve_1"]["p50_ms"] / 1000, summary["/api/query_1"]["p50_ms"] / 1000  # type: ignore[index]
    rows[:0] = [
        ("ingest (s)", "reused store" if args.reuse else ingest_s),
        ("direct rag.retrieve p50 ms (baseline)", d_r * 1000), ("direct rag.query p50 ms (baseline)", d_q * 1000),
        ("server/direct retrieve at 1 client", s_r / d_r), ("server/direct query at 1 client", s_q / d_q),
        ("page image render p50 ms (direct)", common.percentile(render, 50) * 1000),
    ]
    if image_times:
        rows.append(("page image endpoint p50 ms", common.percentile(image_times, 50) * 1000))
        summary["page_image_endpoint_p50_ms"] = round(common.percentile(image_times, 50) * 1000, 1)
    summary.update(direct_retrieve_p50_ms=round(d_r * 1000, 1), direct_query_p50_ms=round(d_q * 1000, 1),
                   render_p50_ms=round(common.percentile(render, 50) * 1000, 1))
    common.print_table(f"ragwire serve over {summary['corpus']}, {args.provider} embeddings "
                       f"({args.requests} requests per row)", rows)
    common.print_summary(summary)


if __name__ == "__main__":
    main()

"""The HTTP API of `ragwire serve`, against the real server process on 127.0.0.1."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
import uuid

import pytest

from .conftest import REPO, SCAN, SCAN_TEXT, TESSERACT, start_server, stop

pytestmark = pytest.mark.timeout(300)

PDF = "warranty-policy.pdf"


def multipart(files: list[tuple[str, bytes]]) -> tuple[bytes, str]:
    boundary = uuid.uuid4().hex
    parts = []
    for name, data in files:
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="files"; filename="{name}"\r\n'
                     "Content-Type: application/octet-stream\r\n\r\n".encode() + data + b"\r\n")
    return b"".join(parts) + f"--{boundary}--\r\n".encode(), f"multipart/form-data; boundary={boundary}"


def wait_for_job(server, url: str) -> dict:
    """The job at ``url`` once it has finished (writes are jobs of the server's one writer)."""
    deadline = time.monotonic() + 240
    while True:
        job = server.json("GET", url)
        if job["state"] in ("done", "failed") or time.monotonic() > deadline:
            return job
        time.sleep(0.2)


def sse_events(raw: bytes) -> list[tuple[str, dict]]:
    events = []
    for block in raw.decode().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line)
        if "event" in lines:
            events.append((lines["event"], json.loads(lines["data"])))
    return events


def test_query_returns_the_answer_dict_with_citations_file_page_and_usage(server):
    answer = server.json("POST", "/api/query", {"question": "How long does the warranty last?", "top_k": 3})
    assert not answer["refused"] and "24 months" in answer["text"]
    cited = answer["citations"][0]
    assert cited["file_name"] == PDF and cited["page_number"] == 1 and "[1]" in answer["text"]
    assert {"usage", "mode", "sources", "filters_used", "trace"} <= set(answer)
    assert re.fullmatch(r"[0-9a-f]{32}", answer["trace_id"]) and answer["usage"]["retrieval_s"] > 0


def test_query_streams_server_sent_events_ending_in_the_answer(server):
    status, headers, raw = server.request("POST", "/api/query", {"question": "How long does a full charge take?"},
                                          headers={"Accept": "text/event-stream"})
    assert status == 200 and headers["content-type"].startswith("text/event-stream")
    events = sse_events(raw)
    kinds = [kind for kind, _ in events]
    assert kinds[-1] == "answer" and "token" in kinds[:-1]
    streamed = "".join(data["text"] for kind, data in events if kind == "token")
    final = events[-1][1]
    assert "three hours" in streamed and final["text"].startswith(streamed.strip()[:20])
    assert final["citations"][0]["file_name"] == "charging.md" and final["citations"][0]["heading_path"] == "Docking"


def test_chat_answers_a_follow_up_with_the_earlier_turn_in_view_over_json_and_the_stream(server):
    # without a model, the follow-up is searched joined with the question before it (RAGWire.chat)
    messages = [{"role": "user", "content": "How long does a full charge take?"},
                {"role": "assistant", "content": "A full charge takes three hours [1]."},
                {"role": "user", "content": "And what colour is the status light when it is done?"}]
    answer = server.json("POST", "/api/chat", {"messages": messages})
    assert not answer["refused"] and "green" in answer["text"]
    assert answer["citations"][0]["file_name"] == "charging.md"
    _, _, raw = server.request("POST", "/api/chat", {"messages": messages}, headers={"Accept": "text/event-stream"})
    events = sse_events(raw)
    assert [kind for kind, _ in events] == ["token", "answer"] and "green" in events[-1][1]["text"]
    status, _, raw = server.request("POST", "/api/chat", {"messages": messages[:2]})
    assert status == 400 and "messages[1]" in json.loads(raw)["error"]


def test_a_streamed_request_the_pipeline_refuses_gets_the_same_status_and_body_as_json(server):
    # guards the stream answering 200 with an `event: error` for what the JSON mode refuses with a 400
    body = {"question": "How long does a full charge take?", "filters": {"no_such_field": 1}}
    json_status, _, json_raw = server.request("POST", "/api/query", body)
    status, headers, raw = server.request("POST", "/api/query", body, headers={"Accept": "text/event-stream"})
    assert json_status == status == 400 and headers["content-type"] == "application/json"
    assert json.loads(raw) == json.loads(json_raw) and "no_such_field" in json.loads(raw)["error"]


def test_refine_runs_the_refinement_loop_over_json_and_over_the_stream(server):
    # guards refine being refused on the stream, which the page always uses
    question = "How long does the warranty last, and how long does a full charge take?"
    answer = server.json("POST", "/api/query", {"question": question, "refine": True})
    steps = [step["step"] for step in answer["trace"]]
    assert steps[:2] == ["classify", "plan"] and "judge" in steps, steps
    assert {c["file_name"] for c in answer["citations"]} >= {PDF, "charging.md"}
    _, _, raw = server.request("POST", "/api/query", {"question": question, "refine": True},
                               headers={"Accept": "text/event-stream"})
    events = sse_events(raw)
    assert [kind for kind, _ in events] == ["token", "answer"]
    assert [step["step"] for step in events[-1][1]["trace"]] == steps
    plain = server.json("POST", "/api/query", {"question": question})
    assert [step["step"] for step in plain["trace"]] == ["retrieve", "answer"]


def test_a_question_the_documents_cannot_answer_comes_back_refused(server):
    answer = server.json("POST", "/api/query", {"question": "What is the airspeed velocity of an unladen swallow?"})
    assert answer["refused"] and not answer["citations"]


def test_retrieve_ranks_chunks_with_readable_scores_and_applies_filters(server):
    found = server.json("POST", "/api/retrieve", {"query": "battery pack covered months", "top_k": 4})["results"]
    assert [r["rank"] for r in found] == list(range(1, len(found) + 1)) and found[0]["file_name"] == PDF
    assert found[0]["score_label"].startswith("fused ") and "page 1" in found[0]["location"]
    only = server.json("POST", "/api/retrieve", {"query": "charging station", "top_k": 4,
                                                "filters": {"title": "Northwind Robotics Limited Warranty"}})["results"]
    assert only and {r["file_name"] for r in only} == {PDF}
    dense = server.json("POST", "/api/retrieve", {"query": "charging station", "search_type": "similarity"})["results"]
    assert dense[0]["score_type"] == "cosine"


def test_every_search_type_the_page_offers_is_one_the_api_accepts(server):
    # guards the page offering a search type (bm25) the Python API does not know
    page = (REPO / "ragwire" / "web" / "static" / "index.html").read_text(encoding="utf-8")
    select = re.search(r'<select id="search-type".*?</select>', page, re.DOTALL).group(0)
    offered = [v for v in re.findall(r'value="([^"]*)"', select) if v]
    assert set(offered) == {"similarity", "mmr", "hybrid", "keyword"}
    for search_type in offered:
        status, _, raw = server.request("POST", "/api/retrieve", {"query": "charging station", "search_type": search_type})
        assert status == 200 and json.loads(raw)["results"], (search_type, raw[:300])
    status, _, raw = server.request("POST", "/api/retrieve", {"query": "charging station", "search_type": "bm25"})
    # guards: the message named config.yaml, which the web user never wrote
    error = json.loads(raw)["error"]
    assert status == 422 and error.startswith("search_type: ") and "keyword" in error and "config" not in error


def test_bad_request_bodies_get_a_400_or_422_saying_what_is_wrong(server):
    status, _, raw = server.request("POST", "/api/retrieve", {"query": "x", "filters": {"no_such_field": 1}})
    assert status == 400 and "no_such_field" in json.loads(raw)["error"]
    status, _, _ = server.request("POST", "/api/query", {"question": ""})
    assert status == 422


def test_stats_fields_and_documents_describe_the_collection(server):
    _, _, raw = server.request("GET", "/api/stats")
    stats = json.loads(raw)
    assert stats["sources"] >= 4 and stats["vector_size"] == 384
    assert str(server.config.parent).encode() not in raw  # guards: the store's path on the server was shown
    fields = {f["name"]: f["values"] for f in server.json("GET", "/api/fields")["fields"]}
    assert "Northwind Robotics Limited Warranty" in fields["title"]
    docs = server.documents()
    pdf = docs[PDF]
    assert pdf["file_type"] == "pdf" and pdf["pages"] == 2 and pdf["chunks"] >= 2
    assert pdf["metadata_status"] and pdf["ingested_at"].startswith("20")
    assert pdf["ocr"] is None  # a text PDF: no chunk was read by OCR
    assert docs["charging.md"]["pages"] is None


def test_no_answer_search_or_source_shows_where_the_files_lie_on_the_server(server):
    # guards: chunk metadata (sync_place) carried the synced folder's absolute path to every web user
    from urllib.parse import urlencode

    folder = str(server.corpus).encode()
    source = server.documents()[PDF]["source"]
    for method, path, body in [("POST", "/api/query", {"question": "How long does the warranty last?"}),
                               ("POST", "/api/retrieve", {"query": "warranty"}),
                               ("GET", "/api/source?" + urlencode({"source": source}), None),
                               ("GET", "/api/documents", None), ("GET", "/api/stats", None)]:
        status, _, raw = server.request(method, path, body)
        assert status == 200 and folder not in raw, (path, raw[max(raw.find(folder) - 80, 0):][:200])
    _, _, raw = server.request("POST", "/api/query", {"question": "How long does the warranty last?"},
                               headers={"Accept": "text/event-stream"})
    assert folder not in raw


def test_page_image_is_a_png_with_the_passage_found_or_said_not_found(server):
    from urllib.parse import urlencode

    source = server.documents()[PDF]["source"]
    quote = "The warranty lasts 24 months from the date the robot is delivered to your site."
    status, headers, png = server.request("GET", "/api/page-image?" + urlencode({"source": source, "page": 2, "text": quote}))
    assert status == 200 and headers["content-type"] == "image/png" and png.startswith(b"\x89PNG"), png[:300]
    # the page is a hint: the sentence is on page 1, so page 1 is drawn with it
    assert headers["x-ragwire-passage"] == "found" and headers["x-ragwire-page"] == "1"
    status, headers, _ = server.request("GET", "/api/page-image?" + urlencode(
        {"source": source, "page": 1, "text": "Nothing like this sentence is printed anywhere in the policy."}))
    assert status == 200 and headers["x-ragwire-passage"] == "not-found"
    status, _, _ = server.request("GET", "/api/page-image?" + urlencode({"source": source, "page": 9}))
    assert status == 400


@pytest.mark.skipif(not TESSERACT, reason="the tesseract binary is not installed (apt-get install tesseract-ocr)")
def test_a_scanned_page_is_listed_as_ocrd_and_drawn_with_the_engines_boxes_around_the_passage(server):
    from urllib.parse import urlencode

    scan = server.documents()[SCAN]
    assert scan["ocr"] is True and scan["pages"] == 1
    status, headers, png = server.request("GET", "/api/page-image?" + urlencode(
        {"source": scan["source"], "page": 1, "text": SCAN_TEXT + " [1]"}))
    assert status == 200 and png.startswith(b"\x89PNG") and headers["x-ragwire-passage"] == "found"
    from io import BytesIO

    from PIL import Image

    # the line is drawn at (30, 100) px of a 100-dpi scan, shown at 1.5 x 72 dpi: the box's orange outline is there
    image = Image.open(BytesIO(png)).convert("RGB")
    orange = [(x, y) for x in range(0, image.width, 2) for y in range(0, image.height, 2)
              if image.getpixel((x, y)) == (230, 120, 0)]
    assert orange and all(25 <= x <= 850 * 1.08 and 90 <= y <= 160 for x, y in orange), orange[:5]
    status, headers, _ = server.request("GET", "/api/page-image?" + urlencode(
        {"source": scan["source"], "page": 1, "text": "Nothing like this sentence was ever scanned at all."}))
    assert status == 200 and headers["x-ragwire-passage"] == "not-found"


def test_page_and_source_endpoints_serve_only_stored_sources(server):
    from urllib.parse import urlencode

    stored = server.documents()[PDF]["source"]
    for source in ["/etc/passwd", str(server.corpus / ".." / "corpus" / PDF), "../../etc/passwd", str(server.config)]:
        for path, query in (("/api/page-image", {"source": source, "page": 1}), ("/api/source", {"source": source})):
            status, _, raw = server.request("GET", f"{path}?" + urlencode(query))
            assert status == 404 and b"not a document of this collection" in raw, (path, source)
    status, _, _ = server.request("GET", "/static/..%2f..%2fserve.py")
    assert status == 404
    chunks = server.json("GET", "/api/source?" + urlencode({"source": stored}))
    assert chunks["document"]["file_name"] == PDF and "24 months" in chunks["chunks"][0]["text"] + chunks["chunks"][1]["text"]


def test_every_response_carries_a_content_security_policy(server):
    for path in ("/", "/api/stats", "/static/app.js"):
        _, headers, _ = server.request("GET", path)
        assert "script-src 'self'" in headers["content-security-policy"] and "unsafe-inline" not in \
            headers["content-security-policy"], path
        assert headers["x-content-type-options"] == "nosniff"
    status, _, raw = server.request("GET", "/openapi.json")
    assert status == 200 and "/api/query" in json.loads(raw)["paths"]
    status, _, raw = server.request("GET", "/docs")
    assert status == 200 and b"swagger" in raw.lower()


def test_an_oversized_upload_is_refused_with_nothing_written(server):
    import http.client
    from urllib.parse import urlsplit

    before = server.documents()
    # declared over the 0.5 MB limit: refused from the headers, before a byte of the body is read
    address = urlsplit(server.url)
    conn = http.client.HTTPConnection(address.hostname, address.port, timeout=60)
    conn.putrequest("POST", "/api/documents")
    conn.putheader("Content-Type", "multipart/form-data; boundary=x")
    conn.putheader("Content-Length", str(5 * 2**20))
    conn.endheaders()
    refused = conn.getresponse()
    assert refused.status == 413 and "limit" in json.loads(refused.read())["error"]
    conn.close()
    # a file over the limit inside a request that is not: refused once its size is known
    body, kind = multipart([("big.txt", b"lorem ipsum " * 48_000)])  # 576 kB
    status, _, raw = server.request("POST", "/api/documents", data=body, headers={"Content-Type": kind})
    error = json.loads(raw)["error"]
    assert status == 413 and "over this server's 0.5 MB upload limit" in error and "--" not in error  # no CLI flags
    body, kind = multipart([("notes.exe", b"MZ")])
    status, _, _ = server.request("POST", "/api/documents", data=body, headers={"Content-Type": kind})
    assert status == 415
    body, kind = multipart([("../escape.txt", b"text")])
    status, _, _ = server.request("POST", "/api/documents", data=body, headers={"Content-Type": kind})
    assert status == 400
    assert not server.uploads.exists() or not any(server.uploads.iterdir())
    assert server.documents() == before


def test_an_upload_is_written_ingested_and_deleted_by_source(server):
    text = b"# Mezzanine\n\nThe mezzanine gate code changes every Monday and is QUOKKA-5512.\n"
    body, kind = multipart([("mezzanine.md", text)])
    status, _, raw = server.request("POST", "/api/documents", data=body, headers={"Content-Type": kind})
    assert status == 202, raw
    job = wait_for_job(server, json.loads(raw)["url"])
    assert job["files"][0]["status"] == "processed", job
    assert (server.uploads / "mezzanine.md").read_bytes() == text
    found = server.json("POST", "/api/retrieve", {"query": "mezzanine gate code", "top_k": 1})["results"]
    assert found[0]["file_name"] == "mezzanine.md"
    source = server.documents()["mezzanine.md"]["source"]
    from urllib.parse import urlencode

    gone = wait_for_job(server, server.json("DELETE", "/api/documents?" + urlencode({"source": source}))["url"])
    assert gone["result"]["deleted"] >= 1 and "mezzanine.md" not in server.documents()
    status, _, _ = server.request("DELETE", "/api/documents?" + urlencode({"source": source}))
    assert status == 404


def test_ragwire_sync_runs_beside_the_server_and_the_next_request_sees_it(server):
    (server.corpus / "espresso.md").write_text(
        "# Espresso corner\n\nThe espresso machine is descaled every 14 days with kit QUOKKA-7731.\n", encoding="utf-8")
    # the server lets go of the store vectorstore.hold_open_s (2 s) after a request; a cron
    # sync beside a busy server waits for that with --wait
    done = subprocess.run([sys.executable, "-m", "ragwire.cli", "sync", "--config", str(server.config),
                           "--wait", "60"], env=server.env, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr
    assert "espresso.md" in server.documents()
    found = server.json("POST", "/api/retrieve", {"query": "espresso descaling kit", "top_k": 1})["results"]
    assert found[0]["file_name"] == "espresso.md"


def test_a_token_server_answers_401_without_it_and_serves_the_page_to_ask_for_it(server, tmp_path):
    log = tmp_path / "token.log"
    url, process = start_server(server.config, server.env, log, "--token", "s3cret-token")
    try:
        from .conftest import Server

        other = Server(url, process, server.config, server.corpus, server.uploads, server.env, log)
        for method, path in [("GET", "/api/stats"), ("GET", "/api/documents"), ("POST", "/api/query"),
                             ("GET", "/static/../api/stats")]:
            status, headers, _ = other.request(method, path, {} if method == "POST" else None)
            assert status == 401 and headers["www-authenticate"] == "Bearer", path
        status, _, raw = other.request("GET", "/api/stats", headers={"Authorization": "Bearer wrong-token"})
        # guards: a wrong token read the same as none, so the page asked for one it had been given
        assert status == 401 and json.loads(raw)["error"].startswith("token not accepted")
        status, _, page = other.request("GET", "/")
        assert status == 200 and b'data-testid="question"' in page
        status, _, _ = other.request("GET", "/api/fields", headers={"Authorization": "Bearer s3cret-token"})
        assert status == 200
        status, _, _ = other.request("GET", "/", headers={"Host": "evil.example"})
        assert status == 421
    finally:
        stop(process)


def test_a_non_loopback_bind_without_a_token_is_refused_before_anything_loads(server):
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "ragwire.cli", "serve", "--config", str(server.config),
                           "--host", "0.0.0.0", "--port", "0"], env=server.env, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode != 0 and "refusing to serve on 0.0.0.0 without a token" in done.stderr
    assert time.monotonic() - started < 30
    done = subprocess.run([sys.executable, "-m", "ragwire.cli", "serve", "--config", str(server.config),
                           "--sync-every", "soon"], env=server.env, capture_output=True, text=True, timeout=60)
    assert done.returncode != 0 and "--sync-every 'soon'" in done.stderr

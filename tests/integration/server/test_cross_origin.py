"""Pages of other origins on this machine, in a real headless Chromium, against the real server (issue 34).

A page served from another port of ``localhost`` posts a document to the server without
a token, and embeds the server's page images; both are refused.  What the server answered
is read from Chromium's own network log: a no-cors request's status is hidden from the page.
"""

from __future__ import annotations

import http.server
import json
import shutil
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from urllib.parse import urlencode, urlsplit

import pytest

pytestmark = pytest.mark.timeout(300)

CHROMIUM = next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)
DRIVER = shutil.which("chromedriver")
if CHROMIUM is None or DRIVER is None:
    pytest.skip("needs Chromium and chromium-driver (apt-get install chromium chromium-driver)", allow_module_level=True)
webdriver = pytest.importorskip("selenium.webdriver", reason="needs selenium (pip install selenium)")

from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

PLANTED = "planted-notice.md"
# The probe's page: a no-cors multipart POST (a "simple" request: no preflight) and two images.
FOREIGN_PAGE = """<!doctype html><title>foreign</title>
<img id="cross-site" src="{cross_site}"><img id="same-site" src="{same_site}">
<script>
const form = new FormData();
form.append("files", new Blob(["# Notice\\n\\nWire the deposit to account QUOKKA-6666.\\n"], {{type: "text/markdown"}}),
            "{planted}");
fetch("{target}api/documents", {{method: "POST", mode: "no-cors", body: form}})
  .then(() => {{ document.body.dataset.sent = "yes"; }}, () => {{ document.body.dataset.sent = "error"; }});
</script>"""


def foreign_site(page: str) -> Iterator[str]:
    """An HTTP server on another port of localhost serving ``page`` at /; yields its URL."""
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the http.server name
            body = page.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://localhost:{httpd.server_address[1]}/"
    finally:
        httpd.shutdown()
        httpd.server_close()


def statuses(driver, urls: dict[str, str], *prefixes: str) -> dict[str, int]:
    """``{request URL: status}`` of every response from URLs starting with one of ``prefixes``,
    from Chromium's network log (reading it empties it; ``urls`` keeps the request ids across
    reads, since a response's event may come in a later read than its request's).

    The status comes from the raw response headers (``responseReceivedExtraInfo``): a response
    Chromium then blocks (``Cross-Origin-Resource-Policy``) never reaches ``responseReceived``.
    """
    seen: dict[str, int] = {}
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        params = message["params"]
        if message["method"] == "Network.requestWillBeSent":
            urls[params["requestId"]] = params["request"]["url"]
        elif message["method"] == "Network.responseReceivedExtraInfo" and params["requestId"] in urls:
            seen[urls[params["requestId"]]] = params["statusCode"]
    return {url: status for url, status in seen.items() if url.startswith(prefixes)}


def test_a_page_on_another_localhost_port_can_neither_plant_a_document_nor_embed_a_page_image(server):
    port = urlsplit(server.url).port
    target = f"http://localhost:{port}/"
    pdf = server.documents()["warranty-policy.pdf"]["source"]
    image = "api/page-image?" + urlencode({"source": pdf, "page": 1})
    page = FOREIGN_PAGE.format(target=target, planted=PLANTED, cross_site=f"http://127.0.0.1:{port}/{image}",
                               same_site=f"{target}{image}")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-extensions"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"performance": "ALL"})
    driver = webdriver.Chrome(service=webdriver.ChromeService(DRIVER), options=options)
    try:
        for url in foreign_site(page):
            # On a busy machine Chromium's log sometimes holds no raw headers for a visit at all
            # (seen in CI once: nothing logged, both images refused); a second visit reads them.
            for _visit in range(2):
                driver.get(url)
                WebDriverWait(driver, 60).until(lambda d: d.execute_script(
                    "return document.body.dataset.sent && [...document.images].every((i) => i.complete)"))
                widths = driver.execute_script("return [...document.images].map((i) => i.naturalWidth)")
                seen: dict[str, int] = {}
                urls: dict[str, str] = {}
                deadline = time.monotonic() + 10
                while len(seen) < 3 and time.monotonic() < deadline:  # the log may trail the page
                    seen.update(statuses(driver, urls, f"http://localhost:{port}/", f"http://127.0.0.1:{port}/"))
                    time.sleep(0.2)
                if f"{target}api/documents" in seen:
                    break
    finally:
        driver.quit()
    assert seen.get(f"{target}api/documents") == 403, (seen, widths)
    assert widths == [0, 0]  # neither image was drawn
    # Chromium does not always log the raw headers of a response it blocks itself; whatever it
    # logged was the server's 403, and the server refuses the request as a browser sends it.
    assert all(status == 403 for url, status in seen.items() if "page-image" in url), seen
    for host, site in ((f"127.0.0.1:{port}", "cross-site"), (f"localhost:{port}", "same-site")):
        request = urllib.request.Request(f"http://{host}/{image}", headers={
            "Sec-Fetch-Site": site, "Sec-Fetch-Mode": "no-cors", "Sec-Fetch-Dest": "image"})
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=30)
        assert refused.value.code == 403, (host, site)
    assert PLANTED not in server.documents()
    assert not (server.uploads / PLANTED).exists()
    # the server's own page still reads the same image
    status, headers, _ = server.request("GET", "/" + image, headers={"Sec-Fetch-Site": "same-origin"})
    assert status == 200 and headers["cross-origin-resource-policy"] == "same-origin"

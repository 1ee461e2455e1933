"""The Ask tab as a conversation, against `ragwire serve` with a chat model (a slow stub on loopback).

Follow-ups go through RAGWire.chat (the model rewrites them into standalone questions);
Stop and a closed page end the model's generation; the thread survives a reload.
"""

from __future__ import annotations

import shutil
import time
from typing import Any

import pytest

from tests.integration.helpers import write_config

from .browser import EC, By, ask, by_testid, chromium, last_turn, latest, send_question, turns, wait
from .conftest import REPO, Server, server_env, start_server, stop
from .slow_llm import SlowChat

pytestmark = pytest.mark.timeout(300)

FIRST = "How long does a full charge take?"
FOLLOW_UP = "And what colour is the light then?"
STANDALONE = "What colour is the status light when a full charge is done?"
# The model's replies, by a phrase of the question they answer; a follow-up's rewrite is asked first.
REPLIES = {
    "full charge take": "A full charge takes **three hours** [1].",
    "light then": "The status light turns green when the charge is done [1].",
    "warranty cover": "The warranty covers damage caused by falling moon rocks [1].",
    "hostile": 'It is <img src=x onerror="window.__xss = 1"> and <script>window.__xss = 2</script> [1].',
    "long story": "The robot docks at its station and charges there overnight, every night of the week, " * 6,
}


def reply(body: dict[str, Any]) -> str:
    last = str(body["messages"][-1]["content"])
    if "Standalone question:" in last:
        return STANDALONE
    question = last.rsplit("Question: ", 1)[-1]
    for phrase, text in REPLIES.items():
        if phrase in question:
            return text
    return "I could not find that in the documents."


@pytest.fixture(scope="module")
def chat_model():
    model = SlowChat(reply)
    yield model
    model.stop()


@pytest.fixture(scope="module")
def llm_server(tmp_path_factory, ragwire_home, chat_model):
    root = tmp_path_factory.mktemp("serve-llm")
    corpus = root / "corpus"
    corpus.mkdir()
    shutil.copy(REPO / "examples" / "docs" / "warranty-policy.pdf", corpus)
    (corpus / "charging.md").write_text("# Docking\n\nDock the robot at its charging station every night. A full "
                                        "charge takes three hours, and the status light turns green when it is "
                                        "done.\n", encoding="utf-8")
    llm = {"provider": "openai", "model": "stub-chat", "base_url": chat_model.base_url, "api_key": "test",
           "timeout": 30}
    config = write_config(root, sources=[{"type": "local", "path": str(corpus), "name": "corpus"}], llm=llm,
                          metadata={"enabled": False})
    env = server_env(root / "home", ragwire_home)
    log = root / "serve.log"
    url, process = start_server(config, env, log, "--sync-every", "1h")
    srv = Server(url, process, config, corpus, root / "uploads", env, log)
    try:
        deadline = time.monotonic() + 240
        while len(srv.documents()) < 2:
            assert process.poll() is None, log.read_text(encoding="utf-8")
            assert time.monotonic() < deadline, log.read_text(encoding="utf-8")
            time.sleep(0.3)
        yield srv
    finally:
        stop(process)


@pytest.fixture(scope="module")
def browser(llm_server):
    with chromium(llm_server.url) as driver:
        yield driver


@pytest.fixture
def model(chat_model):
    chat_model.word_s = chat_model.first_s = 0.0
    chat_model.bodies.clear()
    return chat_model


def test_a_follow_up_is_rewritten_in_context_answered_and_the_thread_survives_a_reload(browser, model):
    first = ask(browser, FIRST)
    # the model's Markdown is rendered: **three hours** reads in bold, without its asterisks
    assert "three hours" in first.text and "**" not in first.text
    assert first.find_element(By.CSS_SELECTOR, "strong").text == "three hours"
    second = ask(browser, FOLLOW_UP, follow_up=True)
    assert "turns green" in second.text and second.find_elements(*by_testid("citation"))
    # the follow-up went through RAGWire.chat: the model rewrote it with the earlier turn in view,
    # then answered with the earlier question and answer as history
    rewrite = [b for b in model.requests() if "Standalone question:" in str(b["messages"][-1]["content"])]
    assert len(rewrite) == 1 and FIRST in rewrite[0]["messages"][-1]["content"], rewrite
    answer = model.requests()[-1]["messages"]
    assert [m["role"] for m in answer[1:3]] == ["user", "assistant"] and answer[1]["content"] == FIRST
    assert "three hours" in answer[2]["content"]

    browser.refresh()
    wait(browser).until(lambda d: len(turns(d)) == 2)
    assert [t.find_element(*by_testid("turn-question")).text for t in turns(browser)] == [FIRST, FOLLOW_UP]
    assert "turns green" in latest(browser).text and latest(browser).find_elements(*by_testid("citation"))

    browser.find_element(*by_testid("new-conversation")).click()
    assert turns(browser) == []
    browser.refresh()
    assert wait(browser, 5).until(lambda d: d.find_element(*by_testid("question"))) and turns(browser) == []


def test_stop_ends_the_stream_and_the_server_stops_the_model(browser, model):
    model.word_s, model.first_s = 0.15, 1.0
    send_question(browser, "Tell me the long story of charging")
    # the typing indicator shows until the first token; Ask stays disabled while the answer streams
    wait(browser, 10).until(lambda d: last_turn(d).find_elements(*by_testid("typing")))
    assert not browser.find_element(*by_testid("ask")).is_enabled()
    wait(browser, 20).until(lambda d: latest(d).get_attribute("data-streamed") not in (None, "0"))
    assert not last_turn(browser).find_elements(*by_testid("typing"))
    browser.find_element(*by_testid("stop")).click()
    wait(browser, 10).until(lambda d: latest(d).get_attribute("data-state") == "stopped")
    assert browser.find_element(*by_testid("ask")).is_enabled()
    # the model's stream was closed long before its ~40 words at 0.15 s each were written
    wait(browser, 5).until(lambda d: model.closed >= 1)
    assert model.finished == 0 or model.closed >= 1
    assert "(stopped)" in latest(browser).text


def test_a_second_ask_while_one_streams_cannot_mix_the_answers(browser, model):
    model.word_s = 0.05
    send_question(browser, "Tell me the long story of charging")
    wait(browser, 10).until(lambda d: latest(d).get_attribute("data-state") == "streaming")
    # Enter in the box submits the form again, as a second click would
    box = browser.find_element(*by_testid("question"))
    box.send_keys(FIRST + "\n")
    browser.execute_script("document.getElementById('ask-form').requestSubmit()")
    wait(browser).until(lambda d: latest(d).get_attribute("data-state") == "done")
    assert len(turns(browser)) == 1
    assert "three hours" not in latest(browser).text and "docks at its station" in latest(browser).text


def test_regenerate_asks_again_and_copy_puts_the_answer_on_the_clipboard(browser, model):
    browser.execute_cdp_cmd("Browser.grantPermissions", {"permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"]})
    ask(browser, FIRST)
    asked = len(model.requests())
    last_turn(browser).find_element(*by_testid("regenerate")).click()
    wait(browser).until(lambda d: len(model.requests()) > asked and latest(d).get_attribute("data-state") == "done")
    assert len(turns(browser)) == 1 and "three hours" in latest(browser).text
    last_turn(browser).find_element(*by_testid("copy")).click()
    wait(browser, 5).until(lambda d: last_turn(d).find_element(*by_testid("mark-status")).text == "copied")
    copied = browser.execute_async_script("navigator.clipboard.readText().then(arguments[0])")
    assert copied.startswith("A full charge takes") and "[1]" in copied


def test_a_citation_whose_quote_is_not_in_its_source_says_so_and_the_page_shows_no_box(browser, model):
    # guards: the chunk panel said nothing and the page view boxed the words elsewhere, "highlighted on page 1"
    answer = ask(browser, "What does the warranty cover?")
    assert "moon rocks" in answer.text
    answer.find_element(*by_testid("citation")).click()
    panel = wait(browser).until(EC.visibility_of_element_located(by_testid("source-panel")))
    assert panel.find_element(*by_testid("source-file")).text == "warranty-policy.pdf"
    quote = panel.find_element(*by_testid("quote-status"))
    assert quote.is_displayed() and quote.text == "The quoted text is not in this source."
    assert not panel.find_elements(By.CSS_SELECTOR, '[data-testid="source-text"] mark')
    image = wait(browser).until(EC.visibility_of_element_located(by_testid("page-image")))
    wait(browser).until(lambda d: image.get_attribute("data-passage"))
    assert image.get_attribute("data-passage") == "unchecked"
    assert "highlighted" not in panel.find_element(*by_testid("page-status")).text


def test_markup_a_model_writes_is_shown_as_text_and_runs_nothing(browser, model):
    answer = ask(browser, "Give me the hostile answer")
    assert '<img src=x onerror="window.__xss = 1">' in answer.text and "<script>window.__xss = 2</script>" in answer.text
    assert not answer.find_elements(By.CSS_SELECTOR, "img, script")
    assert browser.execute_script("return window.__xss === undefined")
    browser.refresh()  # the stored thread is drawn the same way
    wait(browser).until(lambda d: turns(d))
    assert not latest(browser).find_elements(By.CSS_SELECTOR, "img, script")
    assert browser.execute_script("return window.__xss === undefined")


def test_a_follow_up_over_the_stream_arrives_word_by_word_as_the_model_writes_it(llm_server, model):
    # guards issue 38 item 2: /api/chat sent a follow-up's whole answer as one piece once the model had finished
    from .test_api import sse_events

    messages = [{"role": "user", "content": FIRST}, {"role": "assistant", "content": REPLIES["full charge take"]},
                {"role": "user", "content": FOLLOW_UP}]
    status, _, raw = llm_server.request("POST", "/api/chat", {"messages": messages},
                                        headers={"Accept": "text/event-stream"})
    events = sse_events(raw)
    tokens = [data["text"] for kind, data in events if kind == "token"]
    assert status == 200 and events[-1][0] == "answer"
    assert len(tokens) > 3 and "".join(tokens).strip() == events[-1][1]["text"].strip()
    assert "green" in events[-1][1]["text"]

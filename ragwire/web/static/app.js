// The ragwire page: plain DOM, no build step. Document and answer text enter the page as text
// or as Markdown rendered by markdown.js (vendored marked + DOMPurify, raw HTML shown as text),
// never as markup of their own, and the server's CSP forbids inline script.
import { markdown, plain } from "./markdown.js";

const $ = (id) => document.getElementById(id);
const state = { token: sessionStorage.getItem("ragwire-token") || "", thread: [], streaming: null, documents: [] };
const MARKS_KEY = "ragwire-marks";
const THREAD_KEY = "ragwire-thread";

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "text") node.textContent = value;
    else if (key === "testid") node.dataset.testid = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value);
  }
  for (const child of children) node.append(child);
  return node;
}

function showError(message) {
  const box = $("error");
  box.textContent = message;
  box.hidden = !message;
  if (message) setTimeout(() => { if (box.textContent === message) box.hidden = true; }, 8000);
}

function headers(extra = {}) {
  const out = { ...extra };
  if (state.token) out.Authorization = `Bearer ${state.token}`;
  return out;
}

async function askForToken(response) {
  // a wrong token is said to be wrong: asking again as if none had been sent hides the typo
  let message = "this server needs a token";
  try { message = (await response.json()).error || message; } catch (e) { /* not JSON */ }
  $("token-form").hidden = false;
  $("token-status").textContent = state.token ? "That token was not accepted: check it and try again." : "";
  return new Error(message);
}

async function api(path, options = {}) {
  const response = await fetch(path, { ...options, headers: headers(options.headers || {}) });
  if (response.status === 401) throw await askForToken(response);
  if (!response.ok) {
    let message = `${response.status} ${response.statusText}`;
    try { const body = await response.json(); message = body.error || body.detail || message; } catch (e) { /* not JSON */ }
    throw new Error(typeof message === "string" ? message : JSON.stringify(message));
  }
  return response;
}

const getJSON = async (path, options) => (await api(path, options)).json();
const postJSON = (path, body, extra = {}) => api(path, { method: "POST", body: JSON.stringify(body),
  headers: { "Content-Type": "application/json", ...extra } });

// -- tabs, filters, stats ---------------------------------------------------------------
function selectTab(name) {
  for (const button of document.querySelectorAll("nav button")) button.setAttribute("aria-selected", String(button.dataset.tab === name));
  for (const section of document.querySelectorAll(".tab")) section.hidden = section.id !== `tab-${name}`;
  if (name === "documents") loadDocuments().catch((e) => showError(e.message));
}

async function loadStats() {
  const stats = await getJSON("/api/stats");
  $("stats").textContent = `${stats.collection_name}: ${stats.sources} documents, ${stats.total_documents} chunks`;
}

// The file and type pickers come first: people look for a document by its name before any
// metadata field; then one list per filter field, its values most frequent first.
const FILE_FIELDS = [["file_name", "file"], ["file_type", "type"]];

async function loadFilters() {
  const [{ fields }, { documents }] = await Promise.all([getJSON("/api/fields"), getJSON("/api/documents")]);
  state.documents = documents;
  const box = $("filters");
  const chosen = currentFilters() || {};
  box.replaceChildren();
  const lists = FILE_FIELDS.map(([name, label]) => ({ name, label,
    values: [...new Set(documents.map((d) => d[name]).filter(Boolean))].sort() }));
  const taken = new Set(FILE_FIELDS.map(([name]) => name));
  for (const field of fields) if (!taken.has(field.name)) lists.push({ ...field, label: field.name });
  for (const field of lists) {
    if (!field.values.length) continue;
    const kind = rangeKind(field.values);
    if (kind) {
      box.append(rangePicker(field, kind, chosen[field.name] || {}));
      continue;
    }
    const select = el("select", { testid: `filter-${field.name}`, "data-field": field.name });
    select.append(el("option", { value: "", text: "any" }));
    field.values.forEach((value, i) => select.append(el("option", { value: String(i), text: String(value) })));
    select.values = field.values;
    const kept = field.values.findIndex((v) => JSON.stringify(v) === JSON.stringify(chosen[field.name]));
    if (kept >= 0) select.value = String(kept);  // a refresh after an upload keeps what was picked
    box.append(el("label", {}, el("span", { text: field.label }), select));
  }
}

// A field of timestamps (created, modified) is picked as a range of days, a field of numbers
// as a range of values: a list of every stored timestamp or number is no way to choose.
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T/;

function rangeKind(values) {
  if (values.every((v) => typeof v === "string" && TIMESTAMP.test(v))) return "date";
  if (values.every((v) => typeof v === "number") && values.length > 1) return "number";
  return null;
}

function rangePicker(field, kind, chosen) {
  const label = el("label", { "data-range": field.name }, el("span", { text: field.label }));
  for (const [op, text] of [["gte", "from"], ["lte", "to"]]) {
    const input = el("input", { type: kind, testid: `filter-${field.name}-${text}`, "data-field": field.name,
                                "data-op": op, "aria-label": `${field.label} ${text}` });
    if (kind === "date") {
      input.min = field.values.reduce((a, b) => (a < b ? a : b)).slice(0, 10);
      input.max = field.values.reduce((a, b) => (a > b ? a : b)).slice(0, 10);
    }
    if (chosen[op] !== undefined) input.value = String(chosen[op]);
    label.append(el("span", { text }), input);
  }
  return label;
}

function currentFilters() {
  const out = {};
  for (const select of $("filters").querySelectorAll("select")) {
    if (select.value !== "") out[select.dataset.field] = select.values[Number(select.value)];
  }
  for (const input of $("filters").querySelectorAll("input[data-op]")) {
    if (input.value === "") continue;
    const bounds = (out[input.dataset.field] ||= {});
    bounds[input.dataset.op] = input.type === "number" ? Number(input.value) : input.value;
  }
  return Object.keys(out).length ? out : null;
}

// -- asking: a conversation ----------------------------------------------------------------
// Citations are placed by the answer's marker spans (Answer.markers) and highlighted by the
// sentences each citation quotes (Citation.quotes): the marker grammar lives in Python only.
// The thread (questions, answers, filters) lives in localStorage, so a reload keeps it; a
// question after the first goes to /api/chat with the earlier turns, which rewrites it
// into a standalone question before searching.

function saveThread() { localStorage.setItem(THREAD_KEY, JSON.stringify(state.thread)); }

function loadThread() {
  try { state.thread = JSON.parse(localStorage.getItem(THREAD_KEY) || "[]"); } catch (e) { state.thread = []; }
  $("thread").replaceChildren(...state.thread.map((turn) => {
    const view = turnView(turn);
    if (turn.answer) renderAnswer(view, turn);
    else showPartial(view, turn);
    return view;
  }));
  updateTurnButtons();
}

function turnView(turn) {
  const answer = el("div", { class: "answer", testid: "answer", "aria-live": "polite" });
  const view = el("div", { class: "turn", testid: "turn" },
    el("p", { class: "asked", testid: "turn-question", text: turn.question }),
    el("article", {}, answer, el("ol", { class: "citations", testid: "citations" }),
      el("div", { class: "verdict" },
        el("button", { type: "button", testid: "copy", text: "Copy", onclick: () => copyAnswer(turn, view) }),
        el("button", { type: "button", testid: "regenerate", text: "Regenerate", onclick: () => regenerate(turn, view) }),
        el("button", { type: "button", testid: "mark-right", text: "✓ right", onclick: () => markRight(turn, view) }),
        el("button", { type: "button", testid: "mark-wrong", text: "✗ wrong", onclick: () => markWrong(turn, view) }),
        el("select", { testid: "wrong-expected", hidden: "", onchange: () => chooseExpected(turn, view) }),
        el("span", { class: "mark-status", testid: "mark-status" })),
      el("details", { testid: "trace", hidden: "" }, el("summary", { text: "Trace" }),
        el("pre", { class: "trace-text", testid: "trace-text" }))));
  view.turn = turn;
  return view;
}

const part = (view, testid) => view.querySelector(`[data-testid="${testid}"]`);

function renderAnswer(view, turn) {
  const answer = turn.answer;
  const box = part(view, "answer");
  box.replaceChildren();
  box.classList.toggle("refusal", Boolean(answer.refused));
  box.dataset.refused = String(Boolean(answer.refused));
  box.dataset.state = "done";
  const byIndex = new Map(answer.citations.map((c) => [c.index, c]));
  if (answer.refused) box.append(el("strong", { text: "No answer in the documents. " }));
  // Each marker becomes a placeholder Markdown leaves alone, swapped for its chips once rendered.
  let source = "";
  let last = 0;
  const chips = [];
  for (const marker of answer.markers || []) {
    source += answer.text.slice(last, marker.start);
    const cited = marker.sources.map((n) => byIndex.get(n)).filter(Boolean);
    if (cited.length) source += `${PLACEHOLDER}${chips.push(cited) - 1}${PLACEHOLDER}`;
    last = marker.end;
  }
  source += answer.text.slice(last);
  const rendered = markdown(source);
  const walker = document.createTreeWalker(rendered, NodeFilter.SHOW_TEXT);
  const texts = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) texts.push(node);
  for (const node of texts) {
    const parts = node.data.split(PLACEHOLDER);
    if (parts.length < 3) continue;
    node.replaceWith(...parts.map((piece, i) => i % 2 ? el("span", {}, ...chips[Number(piece)].map((c) => chip(c, answer)))
      : document.createTextNode(piece)));
  }
  box.append(rendered);
  const list = part(view, "citations");
  list.replaceChildren();
  for (const citation of answer.citations) {
    list.append(el("li", {}, chip(citation, answer), document.createTextNode(" " + location(citation))));
  }
  // a plain answer's trace is one search and the answer; a refined one also classifies, plans or judges
  const trace = Array.isArray(answer.trace) ? answer.trace : [];
  const refined = trace.some((s) => !["retrieve", "answer", "refuse", "rewrite"].includes(s.step));
  part(view, "trace").hidden = !refined;
  part(view, "trace-text").textContent = refined ? [...trace.map(describeStep),
    `trace ${answer.trace_id || "-"}: ${answer.iterations} round${answer.iterations === 1 ? "" : "s"}`].join("\n") : "";
}

const PLACEHOLDER = "\u2063";  // invisible separator: never in an answer's Markdown syntax

function showPartial(view, turn) {
  // an answer stopped before it ended: what had arrived, said to be cut short
  const box = part(view, "answer");
  box.replaceChildren(markdown(turn.partial || ""), el("em", { class: "stopped", text: " (stopped)" }));
  box.dataset.state = "stopped";
  part(view, "citations").replaceChildren();
}

function describeStep(s) {
  // one line a step, as `ragwire query --trace` prints it (TraceStep.describe)
  const d = s.data || {};
  const head = `[${s.iteration}] ${s.step.padEnd(9)}`;
  if (s.step === "retrieve") {
    const filters = d.filters && Object.keys(d.filters).length ? ` filters=${JSON.stringify(d.filters)}` : "";
    return `${head} '${d.query}'${filters} → ${d.chunks || 0} chunks`;
  }
  if (s.step === "judge") return `${head} ${d.decision}` + ((d.missing || []).length ? ` (missing: ${d.missing.join("; ")})` : "");
  if (s.step === "classify") return `${head} ${d.kind} (by ${d.by || "router"})`;
  if (s.step === "plan") return `${head} ` + (d.queries || []).map((q) => `'${q}'`).join(" | ");
  return `${head} ${Object.entries(d).map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`).join(", ")}`.trimEnd();
}

function chip(citation, answer) {
  return el("button", { type: "button", class: "chip", testid: "citation", "data-index": String(citation.index),
    title: location(citation), text: String(citation.index), onclick: () => openSource(citation, answer) });
}

function location(c) {
  const where = [c.file_name || c.source];
  if (c.heading_path) where.push(c.heading_path);
  if (c.page_number) where.push(c.page_end && c.page_end !== c.page_number ? `pages ${c.page_number}–${c.page_end}` : `page ${c.page_number}`);
  return where.join(" › ");
}

function updateTurnButtons() {
  const views = [...$("thread").querySelectorAll('[data-testid="turn"]')];
  views.forEach((view, i) => {
    const answered = Boolean(view.turn.answer);
    part(view, "regenerate").hidden = i !== views.length - 1 || Boolean(state.streaming);
    part(view, "copy").hidden = !answered && !view.turn.partial;
    part(view, "mark-right").hidden = part(view, "mark-wrong").hidden = !answered;
  });
  $("ask").disabled = Boolean(state.streaming);
  $("stop").hidden = !state.streaming;
}

async function ask(event) {
  event.preventDefault();
  if (state.streaming) return;  // one answer at a time: a second Ask never mixes into the first
  const question = $("question").value.trim();
  if (!question) return;
  const turn = { question, filters: currentFilters(), refine: $("refine").checked, answer: null };
  state.thread.push(turn);
  const view = turnView(turn);
  $("thread").append(view);
  $("question").value = "";
  await answerTurn(turn, view);
}

function regenerate(turn, view) {
  if (state.streaming || state.thread[state.thread.length - 1] !== turn) return;
  return answerTurn(turn, view);
}

function newConversation() {
  if (state.streaming) state.streaming.abort();
  state.thread = [];
  saveThread();
  $("thread").replaceChildren();
  closeSource();
  $("question").focus();
}

async function answerTurn(turn, view) {
  const earlier = state.thread.slice(0, state.thread.indexOf(turn)).filter((t) => t.answer);
  turn.answer = null;
  turn.partial = "";
  const box = part(view, "answer");
  box.classList.remove("refusal");
  delete box.dataset.refused;
  box.dataset.streamed = "0";
  box.dataset.state = "streaming";
  box.replaceChildren(el("span", { class: "typing", testid: "typing", "aria-label": "answering" },
    el("i"), el("i"), el("i")));
  part(view, "citations").replaceChildren();
  part(view, "mark-status").textContent = "";
  part(view, "wrong-expected").hidden = true;
  part(view, "trace").hidden = true;
  closeSource();
  const control = new AbortController();
  state.streaming = control;
  updateTurnButtons();
  try {
    let path = "/api/query";
    const body = { filters: turn.filters };
    if (earlier.length) {
      path = "/api/chat";
      body.messages = [...earlier.flatMap((t) => [{ role: "user", content: t.question },
        { role: "assistant", content: t.answer.text }]), { role: "user", content: turn.question }];
    } else {
      body.question = turn.question;
      if (turn.refine) body.refine = true;  // unchecked: generation.refine decides
    }
    const response = await api(path, { method: "POST", body: JSON.stringify(body), signal: control.signal,
      headers: { "Content-Type": "application/json", Accept: "text/event-stream" } });
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let cut;
      while ((cut = buffer.indexOf("\n\n")) >= 0) {
        handleEvent(buffer.slice(0, cut), turn, view);
        buffer = buffer.slice(cut + 2);
      }
    }
  } catch (e) {
    if (e.name !== "AbortError") showError(e.message);
  } finally {
    if (state.streaming === control) state.streaming = null;
    if (!turn.answer) {
      if (!turn.partial && !control.signal.aborted) {  // failed before any text: the question goes back to the box
        state.thread.splice(state.thread.indexOf(turn), 1);
        view.remove();
        $("question").value = turn.question;
      } else showPartial(view, turn);
    }
    if (state.thread.includes(turn)) saveThread();
    updateTurnButtons();
  }
}

function stopAnswer() {
  // aborting the fetch closes the connection; the server then stops the model's generation
  if (state.streaming) state.streaming.abort();
}

function handleEvent(block, turn, view) {
  let event = "message";
  const data = [];
  for (const line of block.split("\n")) {
    if (line.startsWith("event:")) event = line.slice(6).trim();
    else if (line.startsWith("data:")) data.push(line.slice(5).trimStart());
  }
  const payload = JSON.parse(data.join("\n") || "null");
  const box = part(view, "answer");
  if (event === "token") {
    const typing = part(view, "typing");
    if (typing) typing.remove();
    turn.partial += payload.text;
    box.replaceChildren(markdown(turn.partial));
    box.dataset.streamed = String(Number(box.dataset.streamed || 0) + 1);  // pieces shown before the answer
  }
  else if (event === "answer") { turn.answer = payload; renderAnswer(view, turn); }
  else if (event === "error") showError(payload.error);
}

async function copyAnswer(turn, view) {
  const text = turn.answer ? turn.answer.text : turn.partial || "";
  const status = part(view, "mark-status");
  try {
    await navigator.clipboard.writeText(text);
    status.textContent = "copied";
  } catch (e) {
    status.textContent = `could not copy: ${e.message}`;
  }
}

// -- the source panel ---------------------------------------------------------------------
function quotedSentences(answer, index) {
  // the answer's sentences that cite [index], markers removed (Citation.quotes)
  const citation = answer.citations.find((c) => c.index === index);
  return ((citation && citation.quotes) || []).filter((s) => s.length > 3);
}

function escapeRegExp(text) { return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"); }

function highlightInto(box, text, sentences) {
  // renders the chunk's Markdown and marks each sentence found in what it reads as (a sentence
  // may run across elements: **bold** words, a line break); returns the sentences found
  box.replaceChildren(markdown(text));
  const nodes = [];
  let flat = "";
  const walker = document.createTreeWalker(box, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    nodes.push([node, flat.length]);
    flat += node.data;
  }
  const ranges = [];
  const found = [];
  for (const sentence of sentences) {
    const words = plain(sentence).split(/\s+/).filter(Boolean).map(escapeRegExp);
    if (!words.length) continue;
    const match = new RegExp(words.join("\\s*"), "i").exec(flat);
    if (match) {
      ranges.push([match.index, match.index + match[0].length]);
      found.push(sentence);
    }
  }
  for (const [node, at] of nodes) {
    const end = at + node.data.length;
    const cuts = ranges.filter(([s, e]) => s < end && e > at)
      .map(([s, e]) => [Math.max(s, at) - at, Math.min(e, end) - at]).sort((a, b) => a[0] - b[0]);
    if (!cuts.length) continue;
    const pieces = [];
    let last = 0;
    for (const [s, e] of cuts) {
      if (s < last) continue;
      pieces.push(document.createTextNode(node.data.slice(last, s)), el("mark", { text: node.data.slice(s, e) }));
      last = e;
    }
    pieces.push(document.createTextNode(node.data.slice(last)));
    node.replaceWith(...pieces);
  }
  return found;
}

let imageUrl = null;
// The page view: which page of which file is drawn, the passage boxed on the page it was found on,
// and the zoom. Another page is drawn without the passage: looked for there, it would jump back.
const view = { source: null, page: 1, pages: 1, passage: "", boxedPage: null, zoom: 1 };

function isPdf(item) {
  return (item.metadata && item.metadata.file_type === "pdf") || item.file_type === "pdf" ||
    /\.pdf$/i.test(item.file_name || "");
}

function openPanel(title, where) {
  $("source-panel").hidden = false;
  delete $("source-panel").dataset.quote;
  document.body.classList.add("panel-open");
  $("source-file").textContent = title;
  $("source-location").textContent = where;
  $("quote-status").hidden = true;
  $("page-tools").hidden = true;
  const image = $("page-image");
  image.hidden = true;
  image.removeAttribute("src");
  delete image.dataset.passage;
  view.zoom = 1;
  image.style.width = "";
  $("page-status").textContent = "";
  $("page-status").classList.remove("missing");
}

async function openSource(citation, answer) {
  const panel = $("source-panel");
  openPanel(citation.file_name || citation.source, location(citation));
  const sentences = answer ? quotedSentences(answer, citation.index) : [];
  const found = highlightInto($("source-text"), citation.text, sentences);
  panel.dataset.highlights = String(found.length);
  // A quote that is not in the cited chunk is said to be so, and is never looked for
  // elsewhere on the page: boxing the same words somewhere else would look like a check.
  const missing = sentences.length - found.length;
  const quote = $("quote-status");
  quote.hidden = !missing;
  quote.textContent = !missing ? "" : found.length ? "Part of the quoted text is not in this source."
    : "The quoted text is not in this source.";
  panel.dataset.quote = missing ? (found.length ? "partial" : "missing") : "checked";
  if (!isPdf(citation)) return;
  const passage = found.length ? found.join(" ") : sentences.length ? "" : citation.text;
  Object.assign(view, { source: citation.source, passage, boxedPage: null });
  await showPage(citation.page_number || 1, passage);
}

async function openDocument(doc) {
  // a document from the Documents tab: all its chunks in reading order, and its first page
  openPanel(doc.file_name, `${doc.chunks} chunk${doc.chunks === 1 ? "" : "s"}` + (doc.pages ? `, ${doc.pages} pages` : ""));
  $("source-text").replaceChildren();
  try {
    const { chunks } = await getJSON(`/api/source?${new URLSearchParams({ source: doc.source })}`);
    highlightInto($("source-text"), chunks.map((c) => c.text).join("\n\n"), []);
    if (!isPdf(doc)) return;
    Object.assign(view, { source: doc.source, passage: "", boxedPage: null });
    await showPage(1, "");
  } catch (e) { showError(e.message); }
}

async function showPage(page, passage) {
  const image = $("page-image");
  const status = $("page-status");
  status.classList.remove("missing");
  status.textContent = "Drawing the page…";
  const query = new URLSearchParams({ source: view.source, page: String(page), text: passage });
  try {
    const response = await api(`/api/page-image?${query}`);
    const blob = await response.blob();
    if (imageUrl) URL.revokeObjectURL(imageUrl);
    imageUrl = URL.createObjectURL(blob);
    view.page = Number(response.headers.get("x-ragwire-page"));
    view.pages = Number(response.headers.get("x-ragwire-pages"));
    const box = response.headers.get("x-ragwire-box");
    image.onload = () => { if (box) scrollToBox(box.split(",").map(Number)); };
    image.src = imageUrl;
    image.hidden = false;
    image.dataset.page = String(view.page);
    $("page-tools").hidden = false;
    $("page-number").textContent = `page ${view.page} of ${view.pages}`;
    $("page-prev").disabled = view.page <= 1;
    $("page-next").disabled = view.page >= view.pages;
    if (!passage) {
      const unchecked = $("source-panel").dataset.quote === "missing";
      image.dataset.passage = unchecked ? "unchecked" : "none";
      status.textContent = unchecked ? `Page ${view.page} shown without a box: the quoted text is not in this source.` : "";
      status.classList.toggle("missing", unchecked);
    } else if (response.headers.get("x-ragwire-passage") === "found") {
      view.boxedPage = view.page;
      status.textContent = `Passage highlighted on page ${view.page}.`;
      image.dataset.passage = "found";
    } else {
      status.textContent = `Passage not found on the page (page ${view.page} shown without highlight).`;
      status.classList.add("missing");
      image.dataset.passage = "not-found";
    }
  } catch (e) {
    status.textContent = `No page image: ${e.message}`;
    status.classList.add("missing");
  }
}

function turnPage(step) {
  const page = Math.min(Math.max(view.page + step, 1), view.pages);
  if (page === view.page) return;
  // the passage goes with the page it was boxed on (or, before that, the page it was cited on)
  const back = page === view.boxedPage || (view.boxedPage === null && view.passage);
  return showPage(page, back ? view.passage : "");
}

function zoom(factor) {
  view.zoom = Math.min(Math.max(view.zoom * factor, 1), 4);
  $("page-image").style.width = `${Math.round(view.zoom * 100)}%`;
  $("page-image").dataset.zoom = String(view.zoom);
}

function scrollToBox([, top]) {
  // the box's top, in the drawn image's pixels, brought into view inside the panel (zoomed, or further down)
  const image = $("page-image");
  const scale = image.clientHeight / (image.naturalHeight || 1);
  const panel = $("source-panel");
  const imageTop = image.getBoundingClientRect().top - panel.getBoundingClientRect().top + panel.scrollTop;
  const boxTop = imageTop + top * scale;
  if (boxTop < panel.scrollTop || boxTop + 40 > panel.scrollTop + panel.clientHeight) {
    panel.scrollTop = Math.max(boxTop - 60, 0);  // only when out of view: the chunk's text stays in sight
  }
  image.dataset.scrolled = "box";
}

function closeSource() {
  $("source-panel").hidden = true;
  document.body.classList.remove("panel-open");
}

// -- marking answers, the golden set -----------------------------------------------------
// A mark is keyed by its question and its filters: the same question asked under another
// filter is another entry of the golden set, never an overwrite.
function marks() { return JSON.parse(localStorage.getItem(MARKS_KEY) || "[]"); }

const sameFilters = (a, b) => JSON.stringify(a || null) === JSON.stringify(b || null);

function saveMark(entry) {
  const list = marks().filter((m) => !(m.query === entry.query && sameFilters(m.filters, entry.filters)));
  list.push(entry);
  localStorage.setItem(MARKS_KEY, JSON.stringify(list));
  showMarks();
}

function showMarks() {
  const n = marks().length;
  $("golden-count").textContent = `${n} marked question${n === 1 ? "" : "s"}`;
}

function clearMarks() {
  const n = marks().length;
  if (!n || !confirm(`Clear ${n} marked question${n === 1 ? "" : "s"}? Export them first to keep them.`)) return;
  localStorage.removeItem(MARKS_KEY);
  showMarks();
}

function fileName(source) { return String(source).split(/[\\/]/).pop(); }

function markedQuery(turn) {
  // a follow-up is marked as the standalone question it was rewritten into: it means nothing alone
  const rewrite = (turn.answer.trace || []).find((s) => s.step === "rewrite");
  return rewrite && rewrite.data && rewrite.data.query ? rewrite.data.query : turn.question;
}

function markEntry(turn) {
  const entry = { query: markedQuery(turn) };
  if (turn.filters) entry.filters = turn.filters;
  return entry;
}

function markRight(turn, view) {
  const answer = turn.answer;
  if (!answer) return;
  const entry = markEntry(turn);
  if (answer.refused) entry.answerable = false;
  else entry.expected = [...new Set(answer.citations.map((c) => fileName(c.source)))];
  saveMark(entry);
  part(view, "mark-status").textContent = "marked right";
}

async function markWrong(turn, view) {
  if (!turn.answer) return;
  const select = part(view, "wrong-expected");
  if (!state.documents.length) await loadDocuments().catch(() => {});
  select.replaceChildren(el("option", { value: "", text: "Which document answers it?" }),
    el("option", { value: "-", text: "No document answers it" }));
  for (const doc of state.documents) select.append(el("option", { value: doc.file_name, text: doc.file_name }));
  select.hidden = false;
  part(view, "mark-status").textContent = "marked wrong: pick the right document to add it to the golden set";
}

function chooseExpected(turn, view) {
  const value = part(view, "wrong-expected").value;
  if (!value) return;
  const entry = markEntry(turn);
  if (value === "-") entry.answerable = false; else entry.expected = [value];
  saveMark(entry);
  part(view, "mark-status").textContent = "marked wrong; added with the right document";
}

function exportGolden() {
  const golden = { match_field: "source", match_mode: "basename", queries: marks() };
  const blob = new Blob([JSON.stringify(golden, null, 2) + "\n"], { type: "application/json" });
  const link = el("a", { href: URL.createObjectURL(blob), download: "golden.json" });
  document.body.append(link);
  link.click();
  link.remove();
}

// -- search -------------------------------------------------------------------------------
async function search(event) {
  event.preventDefault();
  const body = { query: $("search-query").value.trim(), filters: currentFilters(),
    search_type: $("search-type").value || null };
  try {
    const { results } = await (await postJSON("/api/retrieve", body)).json();
    const list = $("search-results");
    list.replaceChildren();
    if (!results.length) list.append(el("li", { testid: "no-results", text: "No chunks match." }));
    for (const r of results) {
      list.append(el("li", { testid: "search-result", "data-source": r.source },
        el("div", { class: "result-head" }, el("strong", { text: `#${r.rank}` }),
          el("button", { type: "button", class: "link", testid: "open-result", text: r.location, title: "Open the source",
            onclick: () => openSource(r, null) }),
          el("span", { class: "score", testid: "score", text: r.score_label })),
        el("div", { class: "result-text" }, markdown(r.text))));
    }
  } catch (e) { showError(e.message); }
}

// -- documents ----------------------------------------------------------------------------
async function loadDocuments() {
  const { documents, upload } = await getJSON("/api/documents");
  state.documents = documents;
  const body = $("documents").querySelector("tbody");
  body.replaceChildren();
  for (const d of documents) {
    const ocr = d.ocr === null || d.ocr === undefined ? "" : d.ocr ? "yes" : "no";
    body.append(el("tr", { testid: "document-row", "data-source": d.source },
      el("td", { text: d.file_name, title: d.source }), el("td", { text: d.file_type }), el("td", { text: String(d.chunks) }),
      el("td", { text: d.pages ? String(d.pages) : "" }), el("td", { text: d.metadata_status || "" }), el("td", { text: ocr }),
      el("td", { text: d.ingested_at || "" }),
      el("td", { class: "row-actions" },
        el("button", { type: "button", testid: "view-document", text: "View", onclick: () => openDocument(d) }),
        el("button", { type: "button", testid: "delete-document", text: "Delete", onclick: () => deleteDocument(d) }))));
  }
  $("upload-limits").textContent = upload.enabled
    ? `up to ${upload.max_mb} MB: ${upload.types.join(" ")}` : "uploads are off on this server";
}

// A write is a job of the server's one writer: follow it until it ends.
async function followJob(url, onChange) {
  for (;;) {
    const job = await getJSON(url);
    if (onChange) onChange(job);
    if (job.state === "done" || job.state === "failed") return job;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

async function deleteDocument(doc) {
  if (!confirm(`Delete ${doc.file_name} from the collection?`)) return;
  try {
    const accepted = await (await api(`/api/documents?${new URLSearchParams({ source: doc.source })}`, { method: "DELETE" })).json();
    const job = await followJob(accepted.url);
    if (job.state === "failed") throw new Error(job.error);
    await Promise.all([loadDocuments(), loadStats(), loadFilters()]);
  } catch (e) { showError(e.message); }
}

// One line per file, failures as failures: "Ingested a.md: 3 chunks", "Failed b.docx: <reason>".
function describeFiles(files) {
  const lines = [];
  for (const f of files) {
    const name = f.stored_as && f.stored_as !== f.name ? `${f.name} (stored as ${f.stored_as})` : f.name;
    if (f.status === "processed") lines.push(`Ingested ${name}: ${f.chunks} chunks`);
    else if (f.status === "skipped") lines.push(`Unchanged ${name}: ${f.reason}`);
    else if (f.status === "failed") lines.push(`Failed ${name}: ${f.reason}`);
    else lines.push(`${f.status === "running" ? "Ingesting" : "Waiting"} ${name}…`);
  }
  return lines;
}

function showUpload(status, files, failed) {
  status.replaceChildren(...describeFiles(files).map((line) => el("div", {
    class: line.startsWith("Failed") ? "upload-failed" : "", testid: "upload-line", text: line })));
  status.classList.toggle("missing", failed);
}

async function upload(files) {
  if (!files.length) return;
  const form = new FormData();
  for (const file of files) form.append("files", file, file.name);
  const existing = files.filter((f) => state.documents.some((d) => d.file_name === f.name.normalize("NFC")));
  if (existing.length && confirm(`${existing.map((f) => f.name).join(", ")} already exist${existing.length > 1 ? "" : "s"}: ` +
      "replace? (OK replaces; Cancel keeps both, the new one under a new name)")) form.append("replace", "true");
  const status = $("upload-status");
  status.textContent = `Uploading ${files.length} file(s)…`;
  status.dataset.state = "busy";
  try {
    const response = await fetch("/api/documents", { method: "POST", body: form, headers: headers() });
    if (response.status === 401) throw await askForToken(response);
    const body = await response.json().catch(() => ({ error: `${response.status} ${response.statusText}` }));
    if (!response.ok) {
      if (body.files) showUpload(status, body.files, true);
      else status.textContent = `Upload refused: ${body.error}`;
      return;
    }
    const job = await followJob(body.url, (j) => showUpload(status, j.files, false));
    showUpload(status, job.files, job.files.some((f) => f.status === "failed"));
    if (job.state === "failed") status.append(el("div", { class: "upload-failed", text: `The upload stopped: ${job.error}` }));
    await Promise.all([loadDocuments(), loadStats(), loadFilters()]);
  } catch (e) {
    status.textContent = `Upload failed: ${e.message}`;
  } finally {
    status.dataset.state = "done";
  }
}

// -- start ---------------------------------------------------------------------------------
async function start() {
  try { await Promise.all([loadStats(), loadFilters()]); } catch (e) { showError(e.message); }
}

document.addEventListener("DOMContentLoaded", () => {
  for (const button of document.querySelectorAll("nav button")) button.addEventListener("click", () => selectTab(button.dataset.tab));
  $("ask-form").addEventListener("submit", ask);
  $("search-form").addEventListener("submit", search);
  $("close-source").addEventListener("click", closeSource);
  $("back-source").addEventListener("click", closeSource);
  $("page-prev").addEventListener("click", () => turnPage(-1));
  $("page-next").addEventListener("click", () => turnPage(1));
  $("zoom-in").addEventListener("click", () => zoom(1.5));
  $("zoom-out").addEventListener("click", () => zoom(1 / 1.5));
  $("stop").addEventListener("click", stopAnswer);
  $("new-conversation").addEventListener("click", newConversation);
  $("export-golden").addEventListener("click", exportGolden);
  $("clear-golden").addEventListener("click", clearMarks);
  $("upload-input").addEventListener("change", (e) => { upload([...e.target.files]); e.target.value = ""; });
  const zone = $("dropzone");
  zone.addEventListener("dragover", (e) => { e.preventDefault(); zone.classList.add("over"); });
  zone.addEventListener("dragleave", () => zone.classList.remove("over"));
  zone.addEventListener("drop", (e) => { e.preventDefault(); zone.classList.remove("over"); upload([...e.dataTransfer.files]); });
  $("token-form").addEventListener("submit", (e) => {
    e.preventDefault();
    state.token = $("token").value.trim();
    sessionStorage.setItem("ragwire-token", state.token);
    $("token-form").hidden = true;
    start();
  });
  showMarks();
  loadThread();
  start();
});

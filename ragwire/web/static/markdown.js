// Markdown for answers and chunk text: the vendored marked renders it and the vendored DOMPurify
// (purify.min.js, loaded before this module) sanitises the result. Raw HTML written in a document
// or by a model is rendered as the characters it is, never as markup, and images show their alt
// text: nothing a source says can add a script, a handler, a frame or a request to the page.
import { Marked } from "./marked.esm.js";

const ALLOWED_TAGS = ["p", "br", "strong", "em", "del", "code", "pre", "blockquote", "ul", "ol", "li", "h1", "h2",
  "h3", "h4", "h5", "h6", "hr", "table", "thead", "tbody", "tr", "th", "td", "a"];
const ALLOWED_ATTR = ["href", "title", "start", "align"];
const ENTITIES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
const escapeHtml = (text) => String(text).replace(/[&<>"']/g, (c) => ENTITIES[c]);

const marked = new Marked({
  gfm: true,
  breaks: false,  // a PDF's text breaks every line: those are not the writer's line breaks
  renderer: {
    html(token) { return escapeHtml(token.text); },
    image(token) { return escapeHtml(token.text || ""); },
  },
});

/** The sanitised DOM of ``text`` rendered as Markdown. */
export function markdown(text) {
  const html = marked.parse(String(text || ""), { async: false });
  return window.DOMPurify.sanitize(html, { ALLOWED_TAGS, ALLOWED_ATTR, RETURN_DOM_FRAGMENT: true });
}

/** What a Markdown sentence reads as once rendered: emphasis and code marks dropped. */
export function plain(text) {
  return String(text).replace(/\*\*|__|[*`]/g, "");
}

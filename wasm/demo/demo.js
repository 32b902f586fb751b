// Reader view: fetches a page, shows it (sandboxed, in a frame) and, in
// place of it, the main text and metadata dechrome extracts from it.
// ?page=URL picks the page (same origin); the default is sample.html.
import init, { extract, version } from "../pkg/dechrome.js";

const $ = (id) => document.getElementById(id);

function fail(message) {
  document.body.dataset.state = "error";
  $("status").textContent = message;
}

async function show(pageUrl) {
  const response = await fetch(pageUrl);
  if (!response.ok) {
    throw new Error(`${pageUrl}: HTTP ${response.status}`);
  }
  const bytes = new Uint8Array(await response.arrayBuffer());
  // The page's own bytes go to dechrome, which sniffs their charset as the
  // command-line tool does; an HTTP charset, when sent, takes precedence.
  const charset = /charset=([^;]+)/i.exec(response.headers.get("content-type") ?? "")?.[1];
  const start = performance.now();
  const page = extract(bytes, charset ? { charset: charset.trim() } : undefined);
  const ms = performance.now() - start;

  document.title = `${page.title ?? pageUrl} · reader view`;
  $("reader-title").textContent = page.title ?? "";
  $("reader-byline").textContent = [page.author, page.date, page.language].filter(Boolean).join(" · ");
  $("reader-text").textContent = page.text;
  const frame = $("original");
  frame.srcdoc = new TextDecoder(page.encoding).decode(bytes);
  $("status").textContent =
    `dechrome ${version()} · ${page.text.length} characters kept · ${ms.toFixed(1)} ms · ${page.algorithm}`;
  document.body.dataset.state = "done";
}

$("toggle").addEventListener("click", () => {
  const original = $("original");
  original.hidden = !original.hidden;
  $("reader").hidden = !original.hidden;
  $("toggle").textContent = original.hidden ? "Show original" : "Show reader view";
});

try {
  const pageUrl = new URLSearchParams(location.search).get("page") || "sample.html";
  $("page").value = pageUrl;
  await init();
  await show(new URL(pageUrl, location.href));
  $("toggle").disabled = false;
} catch (err) {
  fail(String(err?.message ?? err));
}

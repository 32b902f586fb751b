"use strict";
(() => {
  const token = new URLSearchParams(location.search).get("token") || "";
  const $ = (id) => document.getElementById(id);
  let total = 0, index = 0, page = null, labels = [], dirty = false, anchor = null, busy = false;

  async function api(path, body) {
    const opts = { headers: { "X-Token": token }, cache: "no-store" };
    if (body !== undefined) {
      opts.method = "POST";
      opts.headers["Content-Type"] = "application/json";
      opts.body = JSON.stringify(body);
    }
    const r = await fetch(path, opts);
    const v = await r.json().catch(() => ({ error: "bad reply" }));
    if (!r.ok) throw new Error(v.error || ("HTTP " + r.status));
    return v;
  }

  function status(text, kind) {
    const s = $("status");
    s.textContent = text;
    s.className = kind || "";
  }

  async function progress() {
    const v = await api("/api/pages");
    total = v.total;
    $("progress").textContent = v.labelled + " of " + v.total + " labelled";
    const sel = $("page-type");
    if (!sel.options.length) {
      for (const t of v.page_types) {
        const o = document.createElement("option");
        o.value = o.textContent = t;
        sel.appendChild(o);
      }
    }
  }

  function paint(i) {
    const el = $("blocks").children[i];
    const on = labels[i];
    el.className = "block " + (on ? "content" : "chrome") +
      (on !== page.blocks[i].model ? " changed" : "");
  }

  function render() {
    const main = $("blocks");
    main.textContent = "";
    page.blocks.forEach((b, i) => {
      const el = document.createElement("div");
      el.dataset.index = i;
      el.title = b.tags + (b.id_class ? "\n" + b.id_class : "");
      const p = document.createElement("span");
      p.className = "prob";
      p.textContent = b.probability.toFixed(2);
      const t = document.createElement("span");
      t.className = "text" + (b.text.trim() ? "" : " empty");
      t.textContent = b.text.trim() ? b.text : "(no text)";
      el.append(p, t);
      main.appendChild(el);
      paint(i);
    });
    $("where").textContent = "page " + (index + 1) + " / " + total;
    $("name").textContent = page.name + (page.url ? " — " + page.url : "") +
      (page.id ? " — saved as " + page.id : "");
    $("page-type").value = page.page_type;
    status(page.labelled ? "saved" : "model's labels, not saved", page.labelled ? "saved" : "");
    jump();
  }

  // Scrolls to the model's first content block (the top when there is none),
  // below the sticky header.
  function jump() {
    const i = page && page.first_content;
    const el = i === null || i === undefined ? null : $("blocks").children[i];
    if (!el) { window.scrollTo(0, 0); return; }
    const header = document.querySelector("header").offsetHeight;
    window.scrollTo(0, el.getBoundingClientRect().top + window.scrollY - header - 8);
  }

  // The preview: the page in the sandboxed frame, a block marked there
  // when the pointer is over it in the list (found by its first words).
  let marked = null;
  async function preview(i) {
    const frame = $("preview");
    try {
      const v = await api("/api/page/" + i + "/html");
      if (i === index) frame.srcdoc = v.html;
    } catch (e) {
      frame.srcdoc = "";
    }
  }

  function unmark() {
    if (marked) { marked.style.outline = ""; marked = null; }
  }

  function mark(text) {
    unmark();
    const doc = $("preview").contentDocument;
    const words = text.replace(/\s+/g, " ").trim();
    if (!doc || !doc.body || !words) return;
    for (const size of [40, 16]) {
      const needle = words.slice(0, size);
      const walker = doc.createTreeWalker(doc.body, NodeFilter.SHOW_TEXT);
      let n;
      while ((n = walker.nextNode())) {
        if (n.textContent.replace(/\s+/g, " ").includes(needle) && n.parentElement) {
          marked = n.parentElement;
          marked.style.outline = "3px solid #e6911e";
          // Scroll the frame alone (scrollIntoView would move the list too).
          const win = doc.defaultView;
          const top = marked.getBoundingClientRect().top + win.scrollY;
          win.scrollTo(0, Math.max(0, top - win.innerHeight / 3));
          return;
        }
      }
    }
  }

  $("blocks").addEventListener("mouseover", (ev) => {
    const el = ev.target.closest(".block");
    if (el && page) mark(page.blocks[Number(el.dataset.index)].text);
  });

  async function load(i) {
    if (i < 0 || i >= total || busy) return;
    busy = true;
    try {
      if (dirty) await save();
      page = await api("/api/page/" + i);
      index = i;
      labels = page.labels.slice();
      dirty = false;
      anchor = null;
      render();
      preview(i);
    } catch (e) {
      status(String(e.message || e), "error");
    } finally {
      busy = false;
    }
  }

  async function save() {
    const v = await api("/api/page/" + index, { labels, page_type: $("page-type").value });
    dirty = false;
    page.labelled = true;
    page.id = v.id;
    $("progress").textContent = v.labelled + " of " + v.total + " labelled";
    status("saved as " + v.id, "saved");
  }

  function changed() {
    dirty = true;
    status("unsaved changes", "dirty");
  }

  $("blocks").addEventListener("click", (ev) => {
    const el = ev.target.closest(".block");
    if (!el) return;
    const i = Number(el.dataset.index);
    if (ev.shiftKey && anchor !== null) {
      const value = labels[anchor];
      const [a, b] = anchor < i ? [anchor, i] : [i, anchor];
      for (let k = a; k <= b; k++) { labels[k] = value; paint(k); }
    } else {
      labels[i] = !labels[i];
      paint(i);
    }
    anchor = i;
    changed();
  });

  function allChrome() {
    labels = labels.map(() => false);
    labels.forEach((_, i) => paint(i));
    changed();
  }

  async function saveNow() {
    try { await save(); } catch (e) { status(String(e.message || e), "error"); }
  }

  $("prev").onclick = () => load(index - 1);
  $("next").onclick = () => load(index + 1);
  $("all-chrome").onclick = allChrome;
  $("jump").onclick = jump;
  $("save").onclick = saveNow;
  $("page-type").onchange = changed;
  document.addEventListener("keydown", (ev) => {
    if (ev.target.tagName === "SELECT" || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    if (ev.key === "n" || ev.key === "ArrowRight") load(index + 1);
    else if (ev.key === "p" || ev.key === "ArrowLeft") load(index - 1);
    else if (ev.key === "c") allChrome();
    else if (ev.key === "j") jump();
    else if (ev.key === "s") saveNow();
    else return;
    ev.preventDefault();
  });

  progress().then(() => load(0)).catch((e) => status(String(e.message || e), "error"));
})();

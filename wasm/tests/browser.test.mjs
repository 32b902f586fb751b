// node --test: the reader-view demo in headless Chromium extracts the text
// of the page it shows, equal to the command-line tool's. The demo is served
// from 127.0.0.1 and read back with Chromium's --dump-dom once its virtual
// time budget has let the module load and the extraction finish.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

import { serve } from "../demo/serve.mjs";
import { cli, fixtures, FIXTURES, ROOT } from "./common.mjs";

const run = promisify(execFile);
const CHROMIUM = process.env.CHROMIUM ?? "chromium";

let server;
let profile;
before(async () => {
  server = await serve(0);
  profile = mkdtempSync(join(tmpdir(), "dechrome-chromium-"));
});
after(async () => {
  await server?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

/** The demo's DOM after it has run, as Chromium serialises it. */
async function dumpDemo(query) {
  const { stdout } = await run(
    CHROMIUM,
    [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      `--user-data-dir=${profile}`,
      "--virtual-time-budget=30000",
      "--dump-dom",
      `${server.url}/wasm/demo/index.html${query}`,
    ],
    { maxBuffer: 64 << 20, timeout: 120_000 },
  );
  return stdout;
}

/** An element's text in serialised HTML (it holds text only). */
function elementText(html, id) {
  const m = new RegExp(`<([a-z0-9]+) id="${id}"[^>]*>([\\s\\S]*?)</\\1>`).exec(html);
  assert.ok(m, `#${id} not in the page`);
  return m[2]
    .replaceAll("&lt;", "<")
    .replaceAll("&gt;", ">")
    .replaceAll("&nbsp;", "\u00a0")
    .replaceAll("&amp;", "&");
}

async function readerView(query) {
  const html = await dumpDemo(query);
  const state = /<body[^>]*data-state="([a-z]+)"/.exec(html)?.[1];
  assert.equal(state, "done", `demo state: ${state}; status: ${elementText(html, "status")}`);
  return {
    text: elementText(html, "reader-text"),
    title: elementText(html, "reader-title"),
    frame: /<iframe[^>]*id="original"[^>]*srcdoc="/.test(html),
  };
}

test("the demo's own sample page: reader text equals the CLI's", async () => {
  const view = await readerView("");
  assert.equal(view.text + "\n", cli(join(ROOT, "wasm", "demo", "sample.html")));
  assert.equal(view.title, JSON.parse(cli("--format", "json", join(ROOT, "wasm", "demo", "sample.html"))).title);
  assert.ok(view.text.includes("lighthouse"));
  assert.ok(view.frame, "the original page is shown in the frame");
});

for (const name of fixtures) {
  test(`${name} in the reader view: text equals the CLI's`, async () => {
    const view = await readerView(`?page=/tests/fixtures/${name}`);
    assert.equal(view.text + "\n", cli(join(FIXTURES, name)));
  });
}

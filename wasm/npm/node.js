// The package's entry point in Node: the WebAssembly module is read from
// this folder and instantiated synchronously on import, so `extract` can be
// called at once. Browsers and bundlers get ./dechrome.js instead, whose
// default export `init()` fetches the module; here `init()` is a no-op kept
// so that the same code runs in both.
import { readFileSync } from "node:fs";
import { initSync } from "./dechrome.js";

const wasm = initSync({
  module: readFileSync(new URL("./dechrome_bg.wasm", import.meta.url)),
});

export * from "./dechrome.js";

/** Already done in Node: resolves to the module's exports at once. */
export default async function init() {
  return wasm;
}

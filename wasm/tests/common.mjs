// Shared by the node and browser tests: the repository's paths and the
// command-line tool whose output the WebAssembly build must equal.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { join } from "node:path";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));
export const FIXTURES = join(ROOT, "tests", "fixtures");

/** The fixture pages (tests/fixtures/*.html), sorted. */
export const fixtures = readdirSync(FIXTURES)
  .filter((f) => f.endsWith(".html"))
  .sort();

/** The CLI: $DECHROME_BIN, else target/release/dechrome, else target/debug/dechrome. */
export function cliPath() {
  const candidates = [
    process.env.DECHROME_BIN,
    join(ROOT, "target", "release", "dechrome"),
    join(ROOT, "target", "debug", "dechrome"),
  ].filter(Boolean);
  const found = candidates.find((p) => existsSync(p));
  if (!found) {
    throw new Error("no dechrome binary: run `cargo build` (or set DECHROME_BIN)");
  }
  return found;
}

/** `dechrome extract ARGS...`'s standard output. */
export function cli(...args) {
  return execFileSync(cliPath(), ["extract", ...args], {
    encoding: "utf8",
    maxBuffer: 64 << 20,
  });
}

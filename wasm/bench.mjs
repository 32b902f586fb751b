// Pages per second of the package in Node over a folder of pages (read and
// extract each file in turn, as `dechrome extract --threads 1` does), the
// median of several rounds, by wall clock and by CPU time (user + system:
// steadier on a busy machine). `node wasm/bench.mjs DIR [ROUNDS]`.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

import { extract } from "./pkg/node.js";

const dir = process.argv[2];
const rounds = Number(process.argv[3] ?? 5);
if (!dir) {
  console.error("usage: node wasm/bench.mjs DIR [ROUNDS]");
  process.exit(2);
}
const files = readdirSync(dir)
  .filter((f) => f.endsWith(".html"))
  .sort()
  .map((f) => join(dir, f));

const rates = [];
const cpuRates = [];
let failed = 0;
for (let r = 0; r < rounds; r++) {
  const start = performance.now();
  const cpu = process.cpuUsage();
  for (const file of files) {
    try {
      extract(readFileSync(file));
    } catch {
      failed += r === 0 ? 1 : 0;
    }
  }
  rates.push(files.length / ((performance.now() - start) / 1000));
  const used = process.cpuUsage(cpu);
  cpuRates.push(files.length / ((used.user + used.system) / 1e6));
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const list = (xs) => xs.map((x) => x.toFixed(1)).join(", ");
console.log(`${files.length} pages (${failed} rejected), ${rounds} rounds`);
console.log(`wall: median ${median(rates).toFixed(1)} pages/s (${list(rates)})`);
console.log(`cpu:  median ${median(cpuRates).toFixed(1)} pages/s (${list(cpuRates)})`);

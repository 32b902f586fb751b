#!/usr/bin/env bash
# CI for the WebAssembly package, from a clean clone: installs what is
# missing (node, chromium; wasm/build.sh installs the Rust side), builds the
# package, the CLI it is compared with, and runs the Node and headless
# Chromium tests with node's test runner.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS

apt_install() {
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
    echo "wasm/ci.sh: $* missing and cannot be installed here" >&2
    exit 1
  fi
  if [ -z "${apt_updated:-}" ]; then
    apt-get update -qq
    apt_updated=1
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

echo "== wasm: tools"
command -v node >/dev/null || apt_install nodejs
command -v chromium >/dev/null || apt_install chromium
node --version
chromium --version 2>/dev/null || true

echo "== wasm: build the package (wasm/build.sh)"
bash wasm/build.sh

echo "== wasm: the CLI to compare with (cargo build --bin dechrome)"
cargo build --bin dechrome
export DECHROME_BIN="$PWD/target/debug/dechrome"

echo "== wasm: clippy on the wasm crate"
cargo clippy -p dechrome-wasm --target wasm32-unknown-unknown -- -D warnings

echo "== wasm: node --test (Node and headless Chromium)"
node --test wasm/tests/node.test.mjs wasm/tests/browser.test.mjs

echo "== wasm: done in $((SECONDS - start)) s"

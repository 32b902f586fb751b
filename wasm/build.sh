#!/usr/bin/env bash
# Builds the npm package into wasm/pkg (or --out DIR): the wasm32 build of
# the dechrome-wasm crate, its wasm-bindgen glue (--target web), optionally
# wasm-opt,
# and the package files from wasm/npm. Installs what is missing: the rustup
# target, the wasm-bindgen-cli whose version equals the wasm-bindgen crate's
# in Cargo.lock (cargo install --locked), and with --opt binaryen's wasm-opt
# (apt-get).
#
#   wasm/build.sh              the package with the shipped model embedded
#   wasm/build.sh --no-model   without it (Extractor.fromModel only)
#   wasm/build.sh --opt        also run wasm-opt -O3 on the module. Off by
#                              default: Debian 12's binaryen (108) cannot
#                              parse what rustc 1.8x+ and wasm-bindgen emit
#                              (table.fill, reference types); a binaryen of
#                              2024 or later can.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

out="$root/wasm/pkg"
features=()
opt=0
while [ $# -gt 0 ]; do
  case "$1" in
    --no-model) features=(--no-default-features) ;;
    --opt) opt=1 ;;
    --out) out=$(realpath -m "$2"); shift ;;
    *) echo "usage: wasm/build.sh [--no-model] [--opt] [--out DIR]" >&2; exit 2 ;;
  esac
  shift
done

echo "== toolchain"
if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  rustup target add wasm32-unknown-unknown
fi
# The CLI must be the very version of the crate the glue is generated for.
want=$(awk '$0 == "name = \"wasm-bindgen\"" { getline; gsub(/"/, "", $3); print $3; exit }' Cargo.lock)
if [ -z "$want" ]; then
  echo "wasm/build.sh: no wasm-bindgen in Cargo.lock" >&2
  exit 1
fi
have=$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)
if [ "$have" != "$want" ]; then
  echo "installing wasm-bindgen-cli $want (found: ${have:-none})"
  # --locked pins the CLI's own dependencies; when the registry no longer
  # holds one of those exact versions (a yanked release), resolve afresh.
  cargo install --locked wasm-bindgen-cli --version "$want" ||
    cargo install wasm-bindgen-cli --version "$want"
fi
if [ "$opt" = 1 ] && ! command -v wasm-opt >/dev/null; then
  if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
    echo "installing binaryen (wasm-opt)"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq binaryen >/dev/null
  else
    echo "wasm/build.sh: wasm-opt not found and cannot be installed here" >&2
    exit 1
  fi
fi

echo "== cargo build -p dechrome-wasm --target wasm32-unknown-unknown --profile wasm-release ${features[*]}"
cargo build -p dechrome-wasm --target wasm32-unknown-unknown --profile wasm-release "${features[@]}"
wasm="$root/target/wasm32-unknown-unknown/wasm-release/dechrome_wasm.wasm"

echo "== wasm-bindgen --target web -> $out"
rm -rf "$out"
mkdir -p "$out"
wasm-bindgen --target web --out-name dechrome --out-dir "$out" "$wasm"
if [ "$opt" = 1 ]; then
  echo "== wasm-opt -O3"
  # rustc enables these wasm features by default; older binaryen needs them named.
  wasm-opt -O3 --enable-bulk-memory --enable-sign-ext --enable-mutable-globals \
    --enable-nontrapping-float-to-int --enable-reference-types --enable-multivalue \
    "$out/dechrome_bg.wasm" -o "$out/dechrome_bg.wasm.opt"
  mv "$out/dechrome_bg.wasm.opt" "$out/dechrome_bg.wasm"
fi
cp "$root/wasm/npm/package.json" "$root/wasm/npm/node.js" "$out/"
cp "$root/wasm/README.md" "$out/README.md"
# wasm-bindgen writes a .gitignore of "*" into the folder; npm pack would honour it.
rm -f "$out/.gitignore"

raw=$(wc -c < "$out/dechrome_bg.wasm")
gz=$(gzip -9 -c "$out/dechrome_bg.wasm" | wc -c)
echo "== $out/dechrome_bg.wasm: $raw bytes, $gz gzipped (gzip -9)"

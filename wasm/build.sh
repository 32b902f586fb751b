#!/usr/bin/env bash
# Builds the npm package into wasm/pkg (or --out DIR): the wasm32 build of
# the dechrome-wasm crate, its wasm-bindgen glue (--target web), optionally
# wasm-opt -Oz, and the package files from wasm/npm; ends by printing the
# module's size, raw and gzipped. Installs what is missing: the rustup
# target, the wasm-bindgen-cli whose version equals the wasm-bindgen crate's
# in Cargo.lock, and with --opt binaryen's wasm-opt (the npm package
# `binaryen`, into the cargo target directory, when no wasm-opt of version
# 116 or later is on PATH).
#
#   wasm/build.sh              the package with the shipped model embedded
#   wasm/build.sh --no-model   without it (Extractor.fromModel only)
#   wasm/build.sh --opt        also wasm-opt -Oz: 3.6 % smaller gzipped for
#                              about 5 minutes more (wasm/README.md "Sizes"),
#                              so off by default
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

# The npm package of binaryen whose wasm-opt reads what rustc 1.9x and
# wasm-bindgen 0.2.13x emit (Debian 12's binaryen 108 cannot: table.fill,
# reference types).
binaryen=132.0.0

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
  # Not --locked: the Cargo.lock published inside wasm-bindgen-cli 0.2.130
  # names webpki-roots 1.0.11, which the registry no longer serves, so a
  # locked install stops at resolution. The CLI's version is what must
  # match the crate's; its own dependencies resolve afresh.
  cargo install wasm-bindgen-cli --version "$want"
fi
# Where cargo writes: CARGO_TARGET_DIR, a configured build.target-dir, or
# target/ (cargo knows; this script does not guess).
target=$(cargo metadata --format-version 1 --no-deps |
  sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
if [ -z "$target" ]; then
  echo "wasm/build.sh: cargo metadata names no target directory" >&2
  exit 1
fi
wasm_opt=
if [ "$opt" = 1 ]; then
  found=$(wasm-opt --version 2>/dev/null | awk '{print $3}' || true)
  if [ -n "$found" ] && [ "$found" -ge 116 ] 2>/dev/null; then
    wasm_opt=$(command -v wasm-opt)
  else
    tools="$target/binaryen-$binaryen"
    if [ ! -x "$tools/node_modules/.bin/wasm-opt" ]; then
      if ! command -v npm >/dev/null; then
        echo "wasm/build.sh: --opt needs npm (or a binaryen 116+ on PATH)" >&2
        exit 1
      fi
      echo "installing binaryen $binaryen (npm) into $tools"
      npm install --silent --no-save --no-audit --no-fund --prefix "$tools" "binaryen@$binaryen"
    fi
    wasm_opt="$tools/node_modules/.bin/wasm-opt"
  fi
  echo "wasm-opt: $wasm_opt ($("$wasm_opt" --version))"
fi

echo "== cargo build -p dechrome-wasm --target wasm32-unknown-unknown --profile wasm-release ${features[*]}"
cargo build -p dechrome-wasm --target wasm32-unknown-unknown --profile wasm-release "${features[@]}"
wasm="$target/wasm32-unknown-unknown/wasm-release/dechrome_wasm.wasm"

echo "== wasm-bindgen --target web -> $out"
rm -rf "$out"
mkdir -p "$out"
wasm-bindgen --target web --out-name dechrome --out-dir "$out" "$wasm"
if [ -n "$wasm_opt" ]; then
  before=$(wc -c < "$out/dechrome_bg.wasm")
  echo "== wasm-opt -Oz ($before bytes before)"
  # rustc enables these wasm features by default; wasm-opt needs them named.
  "$wasm_opt" -Oz --enable-bulk-memory --enable-sign-ext --enable-mutable-globals \
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
mib() { awk -v b="$1" 'BEGIN { printf "%.2f MB", b / 1e6 }'; }
if [ ${#features[@]} -eq 0 ]; then
  with="with the embedded models ($(wc -c < "$root/models/dechrome-v1.model") and $(wc -c < "$root/models/dechrome-fast.model") bytes of them)"
else
  with="without a model"
fi
if [ -n "$wasm_opt" ]; then optimised="wasm-opt -Oz"; else optimised="no wasm-opt"; fi
echo "== $out/dechrome_bg.wasm, $with, $optimised:"
echo "   $raw bytes ($(mib "$raw")), $gz gzipped ($(mib "$gz"), gzip -9)"

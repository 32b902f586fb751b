#!/usr/bin/env bash
# Executes every notebook headless against fresh CLI output; fails if one errors.
#   bash notebooks/run.sh            (from the repository root)
# Set-up: python3 with the packages of notebooks/requirements.txt (installed
# here with pip if missing). Inputs come from the release build of dechrome,
# or from the binary DECHROME_BIN names (CI passes the one its test stage
# built, saving a release build).
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -c "import nbconvert, nbclient, ipykernel, matplotlib" 2>/dev/null \
  || python3 -m pip install --quiet -r notebooks/requirements.txt
if [ -n "${DECHROME_BIN:-}" ] && [ -x "$DECHROME_BIN" ]; then
  bin=$DECHROME_BIN
else
  cargo build --release --quiet
  bin=target/release/dechrome
fi
data=$(mktemp -d)
trap 'rm -rf "$data"' EXIT
for page in python-blog github-blog tagesschau-rheinmetall; do
  "$bin" explain "tests/fixtures/$page.html" --out "$data/explain/$page" >/dev/null 2>&1
done
corpus=training-data/sample
[ -d ../shared/corpora/wcxb-dev ] && corpus=../shared/corpora/wcxb-dev
"$bin" eval --corpus "$corpus" --predictions "$data/predictions.jsonl" >/dev/null
echo "$(cd "$corpus" && pwd)" > "$data/corpus_dir.txt"
"$bin" inspect --json > "$data/inspect.json"
cp models/dechrome-v1.metrics.json "$data/metrics.json"
cp docs/ablation-wcxb-dev.json "$data/ablation.json"
out=$(mktemp -d)
for nb in notebooks/*.ipynb; do
  echo "== $nb"
  if ! DECHROME_NB_DATA="$data" python3 -m nbconvert --to notebook --execute \
    --ExecutePreprocessor.timeout=300 --output-dir "$out" "$nb" >"$out/log" 2>&1; then
    cat "$out/log"
    echo "notebook failed: $nb"
    exit 1
  fi
done
rm -rf "$out"
echo "notebooks: all executed"

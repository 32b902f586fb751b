#!/usr/bin/env bash
# CI of the Python package, from a clean clone: a venv with the build and
# test tools, Java for Spark, the manylinux2014 abi3 wheel built and
# installed, then pytest (the Spark local-mode test included; no test run
# counts as a failure).
#
#   bash python/ci.sh
#
# DECHROME_PY_VENV: the venv to use (default: target/python-ci-venv).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
venv=${DECHROME_PY_VENV:-$root/target/python-ci-venv}

echo "== python venv $venv"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
# maturin finds zig (the ziglang package) through the venv's python on PATH.
export VIRTUAL_ENV=$venv PATH=$venv/bin:$PATH
"$venv/bin/python" -m pip install --quiet --upgrade pip
"$venv/bin/python" -m pip install --quiet "maturin>=1.5,<2" ziglang pytest warcio pyspark pyarrow fsspec

if ! command -v java >/dev/null 2>&1; then
  echo "== java missing: installing openjdk-17-jre-headless"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq openjdk-17-jre-headless >/dev/null
fi
java -version 2>&1 | head -1

echo "== cargo clippy -p dechrome-python -- -D warnings"
cargo clippy --quiet -p dechrome-python -- -D warnings

echo "== the CLI the tests compare with (cargo build --bin dechrome)"
cargo build --quiet --bin dechrome
export DECHROME_BIN=$root/target/debug/dechrome

echo "== wheel: maturin build --release --zig --compatibility manylinux2014"
wheels=$root/target/python-ci-wheels
rm -rf "$wheels"
(cd python && "$venv/bin/maturin" build --quiet --release --zig --compatibility manylinux2014 --out "$wheels")
wheel=$(ls "$wheels"/dechrome-*.whl)
echo "built $(basename "$wheel") ($(du -k "$wheel" | cut -f1) KiB)"
case "$(basename "$wheel")" in
  *-cp39-abi3-*manylinux_2_17_x86_64*) ;;
  *) echo "the wheel is not tagged cp39-abi3 manylinux_2_17" >&2; exit 1 ;;
esac
"$venv/bin/python" -m pip install --quiet --force-reinstall --no-deps "$wheel"

echo "== pytest python/tests"
export SPARK_LOCAL_IP=127.0.0.1
export DECHROME_REQUIRE_SPARK=1
# From outside python/ so that `import dechrome` is the installed wheel.
cd "$root/target"
set +e
"$venv/bin/python" -m pytest -q -p no:cacheprovider "$root/python/tests" 2>&1 | tee "$root/target/python-ci-pytest.log"
status=${PIPESTATUS[0]}
set -e
echo "pytest summary: $(tail -n 1 "$root/target/python-ci-pytest.log")"
if [ "$status" -eq 5 ]; then
  echo "pytest collected no tests" >&2
  exit 1
fi
exit "$status"

#!/bin/sh
# Runs the real-browser test of `dechrome annotate`: headless Chromium
# driven by chromedriver, both from Debian, installed when missing.
set -eu
cd "$(dirname "$0")/../.."
if ! command -v chromium >/dev/null 2>&1 || ! command -v chromedriver >/dev/null 2>&1; then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update
    $sudo apt-get install -y chromium chromium-driver
fi
cargo test --test annotate_browser -- --ignored

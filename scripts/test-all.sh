#!/usr/bin/env bash
# The whole test suite: formatting, lints, Rust tests, the Python package, and the Python tests
# (cross-checks against libcachesim, bindings). Needs cargo and python3 with pip.
set -euo pipefail
cd "$(dirname "$0")/.."

python3 -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
# `belady record` runs programs under strace; the report test renders in headless Chromium.
missing=()
command -v strace >/dev/null 2>&1 || missing+=(strace)
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
if [ ${#missing[@]} -gt 0 ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

cargo fmt --all --check
cargo clippy --workspace --all-targets -- -D warnings
cargo test --workspace --exclude belady-py

cargo build --release -p belady-cli
rm -rf target/wheels
maturin build --release --quiet --auditwheel skip -m crates/belady-py/Cargo.toml -o target/wheels
python3 -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps target/wheels/belady-*.whl

BELADY_BIN="$PWD/target/release/belady" python3 -m pytest tests/python -q -rs

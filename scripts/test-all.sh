#!/usr/bin/env bash
# The whole test suite: formatting, lints, Rust tests, the Python package, and the Python tests
# (cross-checks against libcachesim, bindings). Needs cargo and python3 with pip.
set -euo pipefail
cd "$(dirname "$0")/.."

python3 -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt

cargo fmt --all --check
cargo clippy --workspace --all-targets -- -D warnings
cargo test --workspace --exclude belady-py

cargo build --release -p belady-cli
rm -rf target/wheels
maturin build --release --quiet --auditwheel skip -m crates/belady-py/Cargo.toml -o target/wheels
python3 -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps target/wheels/belady-*.whl

BELADY_BIN="$PWD/target/release/belady" python3 -m pytest tests/python -q -rs

#!/usr/bin/env bash
# The whole test suite: formatting, lints, Rust tests, the Python package and the Python tests
# (cross-checks against libcachesim, bindings), then the install check (scripts/check-install.sh).
#
# Leaves the system alone: the Python tools (requirements-dev.txt, maturin, the wheel) go into a
# virtual environment at target/venv; nothing is installed globally. Needs cargo, python3 with its
# venv module; scripts/system-tools.sh installs strace, Chromium and zstd when it can.
set -euo pipefail
cd "$(dirname "$0")/.."

# System tools some tests need (strace, Chromium, zstd): installed here when run as root with
# apt-get, else the tests that need a missing one skip and the suite names them (see the script).
source scripts/system-tools.sh

VENV=target/venv
if [ ! -x "$VENV/bin/python" ]; then
    python3 -m venv "$VENV" || {
        echo "test-all: cannot create $VENV; install Python's venv module (sudo apt-get install python3-venv)" >&2
        exit 1
    }
fi
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
# As if the environment were activated: `belady sweep --dask` starts `python3 -m belady.dask_sweep`,
# which must find the package installed below.
export VIRTUAL_ENV="$PWD/$VENV"
export PATH="$VIRTUAL_ENV/bin:$PATH"

cargo fmt --all --check
cargo clippy --workspace --all-targets -- -D warnings
# Every doc comment's link resolves (a broken one is a wrong pointer in the API docs).
RUSTDOCFLAGS="-D warnings" cargo doc -p belady-core -p belady-cli --no-deps
cargo test --workspace --exclude belady-py

cargo build --release -p belady-cli
rm -rf target/wheels
"$VENV/bin/maturin" build --release --quiet --auditwheel skip -m crates/belady-py/Cargo.toml -o target/wheels
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps target/wheels/belady-*.whl

# pytest exits 5 when it collects no test; with `set -e` that fails the suite like any failure.
BELADY_BIN="$PWD/target/release/belady" "$VENV/bin/python" -m pytest tests/python -q -rs

bash scripts/check-install.sh

report_skipped "passed, but skipped"

#!/usr/bin/env bash
# The whole test suite: formatting, lints, Rust tests, the Python package and the Python tests
# (cross-checks against libcachesim, bindings), then the install check (scripts/check-install.sh).
#
# What it installs, and where:
# - Python tools (requirements-dev.txt, maturin, the wheel): into the virtual environment
#   target/venv, never system-wide; the Rust build goes to target/.
# - System tools some tests need (strace, Chromium, zstd, Python's venv module): only when run as
#   root with apt-get, and only the missing ones, each with --no-install-recommends and only if it
#   upgrades no installed package (scripts/system-tools.sh says how, and prints every apt-get it
#   runs); BELADY_INSTALL_TOOLS=no installs none. Not root: nothing. A tool still missing skips
#   only its tests, named before and after the run.
# At the end it prints how long each part took (tools and venv, Rust checks and tests, the release
# build and wheel, the Python tests, the install check).
set -euo pipefail
cd "$(dirname "$0")/.."

# System tools some tests need (strace, Chromium, zstd): installed here when run as root with
# apt-get and nothing else would be upgraded, else the tests that need a missing one skip and the
# suite names them (see the script).
source scripts/system-tools.sh

# Seconds each part took, printed at the end (scripts/measure-readme.sh reads the line).
times=()
mark=0
took() {
    times+=("$1 $((SECONDS - mark)) s")
    mark=$SECONDS
}

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
took "system tools and Python environment"

cargo fmt --all --check
cargo clippy --workspace --all-targets -- -D warnings
# Every doc comment's link resolves (a broken one is a wrong pointer in the API docs).
RUSTDOCFLAGS="-D warnings" cargo doc -p belady-core -p belady-cli --no-deps
cargo test --workspace --exclude belady-py
took "Rust checks and tests"

cargo build --release -p belady-cli
rm -rf target/wheels
"$VENV/bin/maturin" build --release --quiet --auditwheel skip -m crates/belady-py/Cargo.toml -o target/wheels
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps target/wheels/belady-*.whl
took "release build and wheel"

# pytest exits 5 when it collects no test; with `set -e` that fails the suite like any failure.
BELADY_BIN="$PWD/target/release/belady" "$VENV/bin/python" -m pytest tests/python -q -rs
took "Python tests"

bash scripts/check-install.sh
took "install check"

echo "test-all: times: ${times[*]/%/;} total $SECONDS s"

report_skipped "passed, but skipped"

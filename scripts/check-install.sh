#!/usr/bin/env bash
# Checks the README's install steps as a new user runs them, without touching the system:
#   cargo install --locked --path crates/belady-cli     (here into target/install-check, not ~/.cargo/bin)
#   pip install ./crates/belady-py             (here into a new virtual environment under target/)
# then, from a directory outside the checkout, runs the installed `belady demo`, `belady sim` on a
# shared trace, and `belady.simulate` from the installed Python package.
#
# Builds reuse target/ (CARGO_TARGET_DIR), so after `scripts/test-all.sh` has built the release
# binary and the wheel this takes about a minute, most of it pip fetching pandas and numpy.
# Needs cargo and python3 (with the venv module); the shared traces in BELADY_TRACES (default
# ../shared/traces).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
TRACES="${BELADY_TRACES:-$ROOT/../shared/traces}"
SAMPLE="$TRACES/lirs/ps.trace.gz"

fail() {
    echo "check-install: FAILED: $*" >&2
    exit 1
}
step() { echo "check-install: $*"; }

[ -f "$SAMPLE" ] || fail "no shared trace at $SAMPLE (set BELADY_TRACES to the shared traces folder)"
# Absolute: the installed tools run from a directory outside the checkout, where a relative
# BELADY_TRACES (the README's ../shared/traces) would not resolve.
TRACES="$(cd "$TRACES" && pwd)"
SAMPLE="$TRACES/lirs/ps.trace.gz"

PREFIX="$ROOT/target/install-check"
VENV="$ROOT/target/install-check/venv"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
rm -rf "$PREFIX"

step "cargo install --locked --path crates/belady-cli --root target/install-check"
cargo install --quiet --locked --path crates/belady-cli --root "$PREFIX"
[ -x "$PREFIX/bin/belady" ] || fail "cargo install left no $PREFIX/bin/belady"

# Everything below runs outside the checkout, with only the installed binary on PATH.
export PATH="$PREFIX/bin:$PATH"
cd "$WORK"
[ "$(command -v belady)" = "$PREFIX/bin/belady" ] || fail "the installed belady is not the one on PATH"

step "belady demo (from $WORK)"
belady demo --out demo >demo.log 2>&1 || { cat demo.log >&2; fail "belady demo exited non-zero outside the checkout"; }
[ -s demo/report.html ] || fail "belady demo wrote no demo/report.html"
[ -s demo/results.sqlite ] || fail "belady demo wrote no demo/results.sqlite"

step "belady sim $SAMPLE"
belady sim "$SAMPLE" -p lru,arc -c 1%,10% --json >sim.json || fail "belady sim on $SAMPLE failed"
python3 - sim.json <<'EOF' || fail "belady sim printed unexpected rows (see above)"
import json, sys
rows = json.load(open(sys.argv[1]))
assert len(rows) == 4, rows
assert all(r["requests"] > 0 and 0 <= r["hits"] <= r["requests"] for r in rows), rows
EOF

step "python3 -m venv + pip install ./crates/belady-py"
python3 -m venv "$VENV"
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "$ROOT/crates/belady-py" \
    || fail "pip install ./crates/belady-py failed"

step "belady.simulate from the installed package"
"$VENV/bin/python" - "$SAMPLE" <<'EOF' || fail "belady.simulate from the installed package failed"
import sys

import belady

assert "site-packages" in belady.__file__, f"imported belady from {belady.__file__}, not the installed package"
frame = belady.simulate(sys.argv[1], ["lru", "arc"], ["1%", "10%"], format="lirs")
assert len(frame) == 4, frame
assert (frame["requests"] > 0).all() and (frame["hits"] <= frame["requests"]).all(), frame
print(frame[["policy", "cache_blocks", "hits", "hit_ratio"]].to_string(index=False))
EOF

step "ok: the CLI and the Python package install and run outside the checkout"

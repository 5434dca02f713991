#!/usr/bin/env bash
# Screenshots of `belady report` and `belady mrc --html` pages in headless Chromium, to read them
# as a newcomer would (issue 39): the demo's report, and a sweep of every policy in the catalogue
# over two traces at four sizes, with and without read-ahead and no disk model.
#
#   scripts/report-screenshots.sh [OUT_DIR]      (default /tmp/belady-screenshots)
#
# Writes OUT_DIR/{demo,sweep,mrc}/... (stores, pages, charts) and OUT_DIR/*.png: each page's top
# (one screen) and its whole length. Needs target/release/belady (or $BELADY_BIN), chromium, and
# the shared traces ($BELADY_TRACES, default ../shared/traces). Nothing is written to the checkout.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-/tmp/belady-screenshots}
bin=${BELADY_BIN:-$PWD/target/release/belady}
traces=${BELADY_TRACES:-$PWD/../shared/traces}
chromium=$(command -v chromium || command -v chromium-browser || true)
[ -x "$bin" ] || { echo "no belady binary at $bin (cargo build --release -p belady-cli)" >&2; exit 1; }
[ -n "$chromium" ] || { echo "chromium not found (apt-get install chromium)" >&2; exit 1; }
mkdir -p "$out/demo" "$out/sweep" "$out/mrc"

# A page's top (1300x1000) and all of it (as tall as its content, at most 16000 pixels).
shoot() {
    local page=$1 name=$2 height
    "$chromium" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1300,1000 \
        --screenshot="$out/$name-top.png" "file://$page" >/dev/null 2>&1
    # Charts are 340-400 pixels tall; the tables' rows 20: a generous estimate of the length.
    height=$(( $(grep -o '<svg' "$page" | wc -l) * 220 + $(grep -o '<tr' "$page" | wc -l) * 12 + 1500 ))
    height=$(( height > 16000 ? 16000 : height ))
    "$chromium" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1300,$height \
        --screenshot="$out/$name-full.png" "file://$page" >/dev/null 2>&1
    echo "$out/$name-top.png $out/$name-full.png"
}

# The demo (every policy, four workloads, with and without read-ahead, timed on a disk).
"$bin" demo --out "$out/demo" >/dev/null
shoot "$out/demo/report.html" demo

# Every policy in the catalogue on two traces, four sizes, untimed, with and without read-ahead.
policies=$("$bin" policies --json | python3 -c 'import json,sys; print(", ".join(json.dumps(p["name"]) for p in json.load(sys.stdin)))')
cat > "$out/sweep/sweep.toml" <<EOF
policies = [$policies]
sizes = ["100", "300", "1000", "3000"]
prefetch = ["none", "linux24"]
[[trace]]
path = "$traces/lirs/cpp.trace.gz"
format = "lirs"
[[trace]]
path = "$traces/lirs/ps.trace.gz"
format = "lirs"
EOF
# A rerun finds its runs in the store and computes nothing again.
"$bin" sweep "$out/sweep/sweep.toml" --store "$out/sweep/sweep.sqlite" --quiet
rm -rf "$out/sweep/report.html" "$out/sweep/report-charts"
"$bin" report --store "$out/sweep/sweep.sqlite" -o "$out/sweep/report.html" --highlight arc
shoot "$out/sweep/report.html" sweep

# The quick start's miss-ratio curves, with more policies than it asks for.
rm -f "$out/mrc/mrc.html"
"$bin" mrc "$traces/lirs/ps.trace.gz" --policy lru,arc,fifo,lirs,clock,2q,s3fifo,sieve \
    --highlight sieve --html "$out/mrc/mrc.html" --quiet >/dev/null
shoot "$out/mrc/mrc.html" mrc

#!/usr/bin/env bash
# Reproduces every number of docs/study-papers.md: sweeps examples/study-papers.toml (17 block traces
# from $BELADY_TRACES, default ../shared/traces beside the checkout; 9 policies at 1% and 10% of each
# trace's unique blocks; 306 runs, under a minute on 2 cores) into a store, then prints
#   1. `belady compare` against FIFO (the page's main table) and against LRU;
#   2. for S3-FIFO and SIEVE against each other policy, the pairwise comparison (`--baseline OTHER
#      --policies POLICY`): the policy's reduction relative to OTHER, and on how many traces each of
#      the two has the lower miss ratio (ties count for both: the policy is strictly lower on
#      traces - OTHER's wins).
#
#   bash scripts/study-papers.sh [STORE]      # STORE: default a new temporary file, removed after
#
# BELADY_BIN names the binary (default target/release/belady, built if missing).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${BELADY_BIN:-target/release/belady}
if [ ! -x "$bin" ]; then
    nice -n 10 cargo build --release -p belady-cli
fi
if [ -n "${1:-}" ]; then
    store=$1
else
    tmp=$(mktemp -d /tmp/belady-study-papers.XXXXXX)
    trap 'rm -rf "$tmp"' EXIT
    store=$tmp/study-papers.sqlite
fi
"$bin" sweep examples/study-papers.toml --store "$store" >&2

echo "## Against FIFO"
"$bin" compare --store "$store"
echo
echo "## Against LRU"
"$bin" compare --store "$store" --baseline lru
echo
echo "## Pairwise: POLICY against OTHER (rows: OTHER, then POLICY; wins: traces where it is at most the other)"
for policy in s3fifo sieve; do
    for other in fifo lru clock arc lirs 2q wtinylfu s3fifo sieve; do
        [ "$policy" = "$other" ] && continue
        echo "### $policy against $other"
        "$bin" compare --store "$store" --baseline "$other" --policies "$policy" | tail -n +2
    done
done
echo
echo "## FIFO's miss ratio per trace (what is left to reduce)"
"$bin" results export --store "$store" --format csv | awk -F, '
    NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; print "trace,cache_size,requests,unique_blocks,fifo_miss_ratio"; next }
    $col["policy"] == "fifo" {
        printf "%s,%s,%d,%d,%.3f\n", $col["trace"], $col["cache_size"], $col["requests"], $col["unique_blocks"], $col["misses"] / $col["requests"]
    }'

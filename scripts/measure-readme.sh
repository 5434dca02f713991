#!/usr/bin/env bash
# Measures the times the README quotes, as a newcomer meets them: from a fresh clone of this
# checkout's HEAD (cold target/, as `git clone` leaves it), with the shared traces beside it.
#
#   bash scripts/measure-readme.sh [--no-suite] [WORKDIR]
#
# Prints, for each step, its wall time, its CPU time (user + system, children included) and the
# machine's load average before, during (lowest and highest 1-minute figure, sampled every 10 s)
# and after, then one summary:
#   1. the first release build (`cargo build --release -p belady-cli`);
#   2. the demo (`target/release/belady demo`, what `cargo run --release -p belady-cli -- demo` runs
#      once built), into the clone's belady-demo/;
#   3. unless --no-suite: `bash scripts/test-all.sh`, whose last lines give the Python tests' own
#      time (and each other part's).
# WORKDIR (default: a new temporary directory) receives the clone and the logs; it is kept, so the
# logs can be read afterwards. Nothing outside it is written, except what test-all.sh installs
# when run as root (see its header). Run it on an otherwise quiet machine for the README's
# figures, and quote them as ranges with the load it printed.
set -euo pipefail

suite=yes
if [ "${1:-}" = --no-suite ]; then
    suite=no
    shift
fi
src=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-$(mktemp -d /tmp/belady-measure.XXXXXX)}
mkdir -p "$work"
work=$(cd "$work" && pwd)
shared=${BELADY_SHARED:-$src/../shared}
[ -d "$shared/traces" ] || { echo "measure-readme: no shared traces at $shared/traces (set BELADY_SHARED)" >&2; exit 1; }

clone=$work/belady
[ -e "$clone" ] && { echo "measure-readme: $clone exists; name an empty WORKDIR" >&2; exit 1; }
git clone --quiet --no-hardlinks "$src" "$clone"
ln -s "$(cd "$shared" && pwd)" "$work/shared"
export BELADY_TRACES=$work/shared/traces
echo "measure-readme: fresh clone of $(git -C "$src" rev-parse --short HEAD) in $clone"
echo "measure-readme: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo)," \
    "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"

summary=()
# Runs "$@" in the clone as step $1, logging to $work/$1.log; records wall, CPU and load.
step() {
    local name=$1
    shift
    local log=$work/$name.log loads=$work/$name.loads
    local before
    before=$(cut -d' ' -f1-3 /proc/loadavg)
    (while :; do cut -d' ' -f1 /proc/loadavg; sleep 10; done) >"$loads" &
    local sampler=$!
    local start=$EPOCHREALTIME
    cpu_now >"$work/.t0"
    local status=0
    (cd "$clone" && "$@") >"$log" 2>&1 || status=$?
    cpu_now >"$work/.t1"
    local wall
    wall=$(awk -v a="$EPOCHREALTIME" -v b="$start" 'BEGIN { print a - b }')
    kill "$sampler" 2>/dev/null || true
    wait "$sampler" 2>/dev/null || true
    local cpu
    cpu=$(awk -v a="$(cat "$work/.t1")" -v b="$(cat "$work/.t0")" 'BEGIN { print a - b }')
    local range
    range=$(sort -n "$loads" | sed -n '1p;$p' | paste -sd- -)
    local line
    line=$(printf '%-6s %8.1f s wall %8.1f s CPU  load before %s, during %s, after %s' \
        "$name" "$wall" "$cpu" "$before" "$range" "$(cut -d' ' -f1-3 /proc/loadavg)")
    echo "measure-readme: $line"
    summary+=("$line")
    if [ $status -ne 0 ]; then
        echo "measure-readme: $name failed (exit $status); the end of $log:" >&2
        tail -20 "$log" >&2
        exit $status
    fi
}

# CPU seconds (user + system) of this shell's finished children so far, from bash's `times`
# (run in this shell, not in a pipeline's subshell, whose children are its own).
cpu_now() {
    times >"$work/.times"
    sed -n 2p "$work/.times" | awk '{
        split($1, u, "m"); split($2, s, "m");
        sub("s", "", u[2]); sub("s", "", s[2]);
        printf "%.3f\n", u[1] * 60 + u[2] + s[1] * 60 + s[2] }'
}

step build cargo build --release -p belady-cli
step demo target/release/belady demo
if [ $suite = yes ]; then
    step suite bash scripts/test-all.sh
    parts=$(grep '^test-all: times:' "$work/suite.log" || echo "test-all: times: (not printed)")
fi

echo
echo "measure-readme: summary ($(nproc) cores; logs in $work)"
printf '  %s\n' "${summary[@]}"
if [ $suite = yes ]; then echo "  $parts"; fi

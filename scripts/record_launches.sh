#!/usr/bin/env bash
# Records the launches `belady demo clusterfetch` replays: two runs each of a Python interpreter
# importing a set of standard modules and of gcc compiling a file that includes 24 system headers,
# each run traced with `belady record` (strace). Paths under $HOME and the scratch directory are
# rewritten to /home/user so the traces carry nothing of this machine but its file layout.
#
#   cargo build --release -p belady-cli && bash scripts/record_launches.sh [OUT_DIR]
#
# OUT_DIR defaults to data/launch. Recordings differ from machine to machine (and slightly from
# run to run: computation times), so the demo's numbers move with them.
set -euo pipefail
cd "$(dirname "$0")/.."
BELADY=${BELADY:-target/release/belady}
OUT=${1:-data/launch}
# The real interpreter: a pyenv shim would add a shell and its own reads to the launch.
PY=$(python3 -c 'import sys; print(sys.executable)')
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/hello.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <netdb.h>
#include <dirent.h>
#include <errno.h>
#include <locale.h>
#include <wchar.h>
#include <complex.h>
#include <stdatomic.h>
#include <regex.h>
#include <glob.h>
#include <sys/mman.h>
#include <sys/wait.h>
int main(void) { printf("%f\n", sqrt(2.0)); return 0; }
C
mkdir -p "$OUT"
for run in 1 2; do
  "$BELADY" record -o "$work/python-imports.$run.bev" -- \
    "$PY" -c 'import json, email, http.client, xml.dom.minidom, sqlite3, decimal, asyncio'
  "$BELADY" record -o "$work/gcc-headers.$run.bev" -- \
    gcc -O2 -c "$work/hello.c" -o "$work/hello.o"
  for name in python-imports gcc-headers; do
    sed -e "s#$work/#/home/user/src/#g" -e "s#$HOME/#/home/user/#g" \
      "$work/$name.$run.bev" | gzip -9n > "$OUT/$name.$run.bev.gz"
  done
done
ls -l "$OUT"

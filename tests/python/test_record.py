"""`belady record` turns what a real program did into a file-level trace with the right offsets and order."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from conftest import sim

pytestmark = pytest.mark.skipif(shutil.which("strace") is None, reason="strace not installed (apt-get install strace)")


def _record(belady_bin, tmp_path, *command, name="t.bev"):
    out = tmp_path / name
    subprocess.run([str(belady_bin), "record", "-o", str(out), "--keep-log", str(tmp_path / "strace.log"), "--",
                    *command], check=True, capture_output=True)
    return out


def _events_for(trace_path, target):
    """(verb, offset, len) of every event on `target`, in order, from belady's events format."""
    ids, events = set(), []
    for line in trace_path.read_text().splitlines():
        f = line.split()
        if not f or f[0] == "#":
            continue
        if f[0] == "file":
            if line.split(maxsplit=3)[3] == str(target):
                ids.add(f[1])
            continue
        if f[0] != "exit" and f[5] in ids:
            events.append((f[0], *map(int, f[6:])))
    return events


def test_cat_reads_the_whole_file_in_order(belady_bin, tmp_path):
    data = tmp_path / "data.txt"
    data.write_bytes(b"0123456789abcdef" * 20_000)
    trace = _record(belady_bin, tmp_path, "cat", str(data))
    ev = _events_for(trace, data)
    assert ev[0] == ("open",) and ev[-1] == ("close",)
    reads = [e for e in ev if e[0] == "read"]
    offset = 0
    for _, off, length in reads:
        assert off == offset
        offset += length
    assert offset == data.stat().st_size


def test_python_reads_in_a_known_pattern(belady_bin, tmp_path):
    data = tmp_path / "known.bin"
    data.write_bytes(bytes(range(256)) * 200)
    program = (
        "import os\n"
        f"fd = os.open({str(data)!r}, os.O_RDONLY)\n"
        "for _ in range(3): os.read(fd, 4096)\n"
        "os.lseek(fd, 20000, 0)\n"
        "os.read(fd, 100)\n"
        "os.pread(fd, 50, 7000)\n"
        "os.close(fd)\n"
    )
    trace = _record(belady_bin, tmp_path, sys.executable, "-c", program)
    assert _events_for(trace, data) == [
        ("open",), ("read", 0, 4096), ("read", 4096, 4096), ("read", 8192, 4096),
        ("seek", 20000), ("read", 20000, 100), ("read", 7000, 50), ("close",),
    ]
    # The same log converts to the same trace, and the trace simulates with read-ahead.
    again = tmp_path / "again.bev"
    subprocess.run([str(belady_bin), "record", "--from-strace", str(tmp_path / "strace.log"), "-o", str(again)],
                   check=True, capture_output=True)
    assert _events_for(again, data) == _events_for(trace, data)
    rows = sim(belady_bin, trace, "events", ["lru"], [64], "--prefetch", "linux24")
    assert rows[0]["requests"] > 0 and rows[0]["disk_requests"] > 0


def test_record_without_a_program_is_an_error(belady_bin, tmp_path):
    out = subprocess.run([str(belady_bin), "record", "-o", str(tmp_path / "x.bev")], capture_output=True, text=True)
    assert out.returncode != 0 and "name a program to record" in out.stderr

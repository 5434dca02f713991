"""The prefetching study's findings, on workloads recorded from real programs with `belady record`.

Each workload is a small Python program run under strace here (so think times are this machine's);
`--only` keeps the files the program works on, so interpreter start-up does not blur the pattern.
The assertions are the study's qualitative claims, with margins wide enough for any machine.
"""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from conftest import sim

pytestmark = pytest.mark.skipif(shutil.which("strace") is None, reason="strace not installed (apt-get install strace)")

LOOP = """
import os, sys
files = sorted(os.listdir(sys.argv[1]))
for _ in range(3):
    for name in files:
        fd = os.open(os.path.join(sys.argv[1], name), os.O_RDONLY)
        while os.read(fd, 8192):
            pass
        os.close(fd)
"""

RANDOM = """
import os, random, sys
r = random.Random(7)
fd = os.open(sys.argv[1], os.O_RDONLY)
blocks = os.fstat(fd).st_size // 4096
for _ in range(1500):
    os.pread(fd, 4096, r.randrange(blocks) * 4096)
os.close(fd)
"""

CPU_BOUND = """
import os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY)
for _ in range(100):
    os.read(fd, 4096)
    time.sleep(0.025)
os.close(fd)
"""

STRIDED = """
import os, sys
# The study's Table 1 shape on 20 files of 16 blocks: every other block, then the whole file.
for name in sorted(os.listdir(sys.argv[1])):
    fd = os.open(os.path.join(sys.argv[1], name), os.O_RDONLY)
    for block in [0, 2, 4, 6, 8, 10, 12, 14] + list(range(16)):
        os.pread(fd, 4096, block * 4096)
    os.close(fd)
"""

MIX = """
import os, random, sys
r = random.Random(3)
files = sorted(os.listdir(sys.argv[1]))
fd = os.open(sys.argv[2], os.O_RDONLY)
blocks = os.fstat(fd).st_size // 4096
for _ in range(2):
    for name in files:
        f = os.open(os.path.join(sys.argv[1], name), os.O_RDONLY)
        while os.read(f, 8192):
            pass
        os.close(f)
        for _ in range(10):
            os.pread(fd, 4096, r.randrange(blocks) * 4096)
os.close(fd)
"""


def _record(belady_bin, out, program, *args, only):
    cmd = [str(belady_bin), "record", "-o", str(out)]
    for path in only:
        cmd += ["--only", str(path)]
    subprocess.run([*cmd, "--", sys.executable, "-c", program, *map(str, args)], check=True, capture_output=True)
    return out


@pytest.fixture(scope="module")
def recorded(belady_bin, tmp_path_factory):
    """Records the workloads once: cscope-like loop, tpc-h-like random reads, CPU-bound, mix, strided."""
    d = tmp_path_factory.mktemp("recorded")
    tree = d / "src"
    tree.mkdir()
    # 40 files of 1 to 60 blocks, not block-aligned: about 1,200 blocks in all.
    for i in range(40):
        blocks = 1 + (i * 37) % 60
        (tree / f"f{i:02}.c").write_bytes(bytes([i]) * (blocks * 4096 - 123 * (i % 7)))
    big = d / "table.dat"
    with open(big, "wb") as f:
        f.truncate(64 << 20)
    strided = d / "obj"
    strided.mkdir()
    for i in range(20):
        (strided / f"o{i:02}.o").write_bytes(bytes([i]) * (16 * 4096))
    seq = d / "seq.dat"
    seq.write_bytes(b"x" * (2 << 20))
    return {
        "loop": _record(belady_bin, d / "loop.bev", LOOP, tree, only=[tree]),
        "random": _record(belady_bin, d / "random.bev", RANDOM, big, only=[big]),
        "cpu": _record(belady_bin, d / "cpu.bev", CPU_BOUND, seq, only=[seq]),
        "mix": _record(belady_bin, d / "mix.bev", MIX, tree, big, only=[tree, big]),
        "strided": _record(belady_bin, d / "strided.bev", STRIDED, strided, only=[strided]),
    }


def _run(belady_bin, trace, prefetch, policies=("lru",), sizes=(400,), disk=True):
    extra = ["--prefetch", prefetch] + (["--disk", "cheetah9lp"] if disk else [])
    return sim(belady_bin, trace, "events", list(policies), list(sizes), *extra)


def test_read_ahead_raises_hits_and_cuts_requests_for_a_sequential_loop(belady_bin, recorded):
    # The loop (about 1,200 blocks) does not fit in 400 blocks: LRU alone hits nothing.
    off = _run(belady_bin, recorded["loop"], "none")[0]
    assert off["hit_ratio"] < 0.05
    for engine in ("linux24", "linux26", "ondemand", "linux6", "bsd"):
        on = _run(belady_bin, recorded["loop"], engine)[0]
        assert on["hit_ratio"] > off["hit_ratio"] + 0.3, engine
        # 4.4BSD reads nothing ahead until a file's second read is seen to be sequential, and each
        # call that reaches its read-ahead issues it, so it saves less (about 2.8x here).
        cut = 2 if engine == "bsd" else 3
        assert on["disk_requests"] * cut < off["disk_requests"], engine


def test_read_ahead_helps_the_sequential_part_of_a_mix(belady_bin, recorded):
    off = _run(belady_bin, recorded["mix"], "none")[0]
    on = _run(belady_bin, recorded["mix"], "linux24")[0]
    assert on["hit_ratio"] > off["hit_ratio"] + 0.2
    assert on["disk_requests"] < 0.7 * off["disk_requests"]


def test_read_ahead_multiplies_blocks_read_on_random_access_for_little_gain(belady_bin, recorded):
    off = _run(belady_bin, recorded["random"], "none")[0]
    on = _run(belady_bin, recorded["random"], "linux24")[0]
    blocks = lambda r: r["sync_blocks"] + r["async_blocks"]  # noqa: E731
    assert blocks(on) >= 2.5 * blocks(off)
    assert on["hit_ratio"] - off["hit_ratio"] < 0.02


def test_opt_is_not_optimal_in_disk_requests_under_read_ahead(belady_bin, recorded):
    # OPT minimises misses without read-ahead, not requests with it: it keeps a scattered subset of
    # each file, so its misses come in short runs that cluster badly.
    policies = ("opt", "lru", "lru2", "2q", "arc", "lirs", "mq")
    plain = {r["policy"]: r for r in _run(belady_bin, recorded["strided"], "none", policies, (8,), disk=False)}
    assert all(plain["opt"]["misses"] <= r["misses"] for r in plain.values())
    with_ra = {r["policy"]: r for r in _run(belady_bin, recorded["strided"], "bsd", policies, (8,), disk=False)}
    opt = with_ra.pop("opt")["disk_requests"]
    assert all(r["disk_requests"] < opt for r in with_ra.values()), (opt, with_ra)


def test_run_time_follows_the_access_pattern(belady_bin, recorded):
    def exec_time(name, prefetch):
        return _run(belady_bin, recorded[name], prefetch)[0]["exec_time_s"]

    # Sequential: read-ahead overlaps I/O with computation and merges requests: faster. Only by about
    # 5%: without it the drive's own read-ahead (DiskSim's, two tracks past a track crossing) already
    # serves most of the loop's reads from its buffer.
    assert exec_time("loop", "linux24") < 0.97 * exec_time("loop", "none")
    # Random: read-ahead reads blocks nobody wants and the program waits for them: slower.
    assert exec_time("random", "linux24") > 1.1 * exec_time("random", "none")
    # CPU-bound (25 ms of computation per 4 KB read): I/O is a sliver of the run, so read-ahead
    # barely changes it.
    on, off = exec_time("cpu", "linux24"), exec_time("cpu", "none")
    assert abs(on - off) < 0.05 * off


def test_todays_kernel_reads_nothing_extra_on_random_access(belady_bin, recorded):
    # Under linux6 (Linux 6.18's read-ahead) a lone random miss reads just its page, so the random
    # reader's extra blocks and longer run (Linux 2.4's, above) are gone; the loop still gains.
    blocks = lambda r: r["sync_blocks"] + r["async_blocks"]  # noqa: E731
    off = _run(belady_bin, recorded["random"], "none")[0]
    on = _run(belady_bin, recorded["random"], "linux6")[0]
    assert blocks(on) < 1.1 * blocks(off)
    assert on["exec_time_s"] < 1.02 * off["exec_time_s"]
    loop_off = _run(belady_bin, recorded["loop"], "none")[0]
    loop_on = _run(belady_bin, recorded["loop"], "linux6")[0]
    assert loop_on["exec_time_s"] < 0.97 * loop_off["exec_time_s"]

"""The cache model and admission from the command line: rows name their model, byte counters add
up, nonsense is refused in one line, admission composes with the block grid and the file engine."""

from __future__ import annotations

import pathlib
import subprocess

from conftest import ROOT, sim
from test_xcheck_bytes import make_trace

ZIPF = ROOT / "data" / "zipf-loop.trace.gz"
LAUNCH = ROOT / "data" / "launch" / "gcc-headers.1.bev.gz"


def run(belady_bin, *args) -> subprocess.CompletedProcess:
    return subprocess.run([str(belady_bin), "sim", *map(str, args)], capture_output=True, text=True)


def refused(belady_bin, *args) -> str:
    out = run(belady_bin, *args)
    assert out.returncode != 0, out.stdout
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, out.stderr
    return lines[0]


def test_byte_rows_add_up_in_both_models(belady_bin, tmp_path):
    path = tmp_path / "t.oracleGeneral.bin"
    requests, total, footprint = make_trace(path, 5, n_requests=5000, n_objects=500)
    objects = sim(belady_bin, path, "oracle-general", ["lru"], ["10%", "64KiB", "50"])
    for row in objects:
        assert row["cache_model"] == "objects"
        assert row["bytes_requested"] == total
        assert row["byte_hits"] + row["byte_misses"] == total
        assert abs(row["byte_miss_ratio"] - row["byte_misses"] / total) < 1e-12
    assert objects[0]["cache_bytes"] == int(footprint * 0.10)
    assert objects[1]["cache_bytes"] == 65536
    assert objects[2]["cache_blocks"] == 50 and "cache_bytes" not in objects[2]
    # The blocks model on the same trace: every request is one 4 KiB block.
    blocks = sim(belady_bin, path, "oracle-general", ["lru"], ["50"], "--cache-model", "blocks")[0]
    assert blocks["cache_model"] == "blocks" and blocks["cache_bytes"] == 50 * 4096
    assert blocks["bytes_requested"] == requests * 4096
    assert blocks["byte_misses"] == blocks["misses"] * 4096
    # A block trace defaults to blocks.
    row = sim(belady_bin, ZIPF, "lirs", ["lru"], ["1%"])[0]
    assert row["cache_model"] == "blocks" and row["admission"] == "none"
    assert row["bytes_requested"] == row["requests"] * row["block_size"]


def test_nonsense_is_refused_in_one_line(belady_bin, tmp_path):
    path = tmp_path / "t.oracleGeneral.bin"
    make_trace(path, 6, n_requests=2000, n_objects=200)
    base = ["--trace", path, "--format", "oracle-general", "--policy", "lru"]
    # The option the user gave is named, with the model the trace defaults to and, in the
    # command line's words, how to change it.
    msg = refused(belady_bin, *base, "-c", "1MiB", "--prefetch", "linux24")
    assert "invalid --prefetch" in msg and "read-ahead" in msg and "--cache-model blocks" in msg
    msg = refused(belady_bin, *base, "-c", "1MiB", "--disk", "nvme")
    assert "invalid --disk" in msg and "--cache-model blocks" in msg
    msg = refused(belady_bin, "--trace", path, "--format", "oracle-general", "--policy", "car", "-c", "1MiB")
    assert "car" in msg and "cannot weigh" in msg
    msg = refused(belady_bin, "--trace", ZIPF, "--format", "lirs", "-p", "lru", "-c", "10", "--cache-model", "objects")
    assert "object sizes" in msg
    msg = refused(belady_bin, *base, "-c", "1MiB", "--cache-model", "pages")
    assert "cache-model" in msg or "cache_model" in msg
    msg = refused(belady_bin, *base, "-c", "1MiB", "--admission", "lfu")
    assert "admission" in msg
    # A plain count ignores sizes, so a policy that cannot weigh runs there.
    assert sim(belady_bin, path, "oracle-general", ["car"], ["20"])[0]["cache_blocks"] == 20


def test_admission_on_the_block_grid_is_seeded_and_counted(belady_bin):
    def rows(*extra):
        return sim(belady_bin, ZIPF, "lirs", ["lru", "arc"], ["2%"], *extra)

    none = rows()
    half = rows("--admission", "prob:0.5", "--seed", "3")
    assert half == rows("--admission", "prob:0.5", "--seed", "3"), "deterministic for a seed"
    assert half != rows("--admission", "prob:0.5", "--seed", "4")
    for a, b in zip(none, half):
        assert b["admission"] == "prob:0.5" and a["admission"] == "none"
        assert b["requests"] == a["requests"]
        # Half the misses do not enter, so fewer evictions.
        assert b["evictions"] < a["evictions"]
    tiny = rows("--admission", "tinylfu")
    assert all(r["admission"] == "tinylfu" for r in tiny)
    # size:BYTES in the blocks model compares the block size: 1 KiB admits no 4 KiB block.
    nothing = rows("--admission", "size:1KiB")
    assert all(r["hits"] == 0 and r["evictions"] == 0 for r in nothing)


def test_admission_composes_with_the_file_engine(belady_bin):
    def row(*extra):
        return sim(belady_bin, LAUNCH, "events", ["lru"], ["200"], "--prefetch", "linux24", *extra)[0]

    plain, refusing = row(), row("--admission", "size:1KiB")
    assert refusing["admission"] == "size:1024" and plain["admission"] == "none"
    assert refusing["requests"] == plain["requests"]
    # Demand misses are read but never cached; read-ahead still inserts.
    assert refusing["hits"] < plain["hits"]


def test_preset_libcachesim_sets_lirs_like_the_aligned_flags(belady_bin):
    aligned = sim(belady_bin, ZIPF, "lirs", ["lirs", "lru-k"], ["1%", "5%"], "--param", "lirs.min_hir=1",
                  "--param", "lirs.bound=stack-nonresident", "--param", "lirs.skip_dup=false",
                  "--param", "lru-k.crp=0", "--param", "lru-k.history=0")
    preset = sim(belady_bin, ZIPF, "lirs", ["lirs", "lru-k"], ["1%", "5%"], "--preset", "libcachesim")
    assert [r["hits"] for r in aligned] == [r["hits"] for r in preset]


def test_size_admission_compares_object_bytes_counted_or_weighed(belady_bin, tmp_path):
    path = tmp_path / "t.oracleGeneral.bin"
    make_trace(path, 8, n_requests=4000, n_objects=300)
    for size in ["2MiB", "100"]:
        everything = sim(belady_bin, path, "oracle-general", ["lru"], [size])[0]
        small = sim(belady_bin, path, "oracle-general", ["lru"], [size], "--admission", "size:4KiB")[0]
        nothing = sim(belady_bin, path, "oracle-general", ["lru"], [size], "--admission", "size:100B")[0]
        # Sizes start at 200 bytes: a 100-byte threshold admits nothing, so nothing ever hits.
        assert nothing["hits"] == 0 and nothing["evictions"] == 0, size
        # 4 KiB admits only some objects: some hits, and not the unfiltered run's.
        assert small["hits"] > 0 and small["hits"] != everything["hits"], size

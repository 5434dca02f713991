"""libCacheSim's binary traces (oracleGeneral, lcs v1..v8), written by libcachesim's own converters,
read by belady: the LRU hit counts equal libcachesim's on the same file.

The traces are made by libcachesim (``Util.convert_to_oracleGeneral`` / ``Util.convert_to_lcs``) from a
plain one-id-per-line file, so their bytes come from libCacheSim's writer, not from belady's. The
expected hit counts are libcachesim's LRU run over that same binary file, not stored numbers.
"""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from conftest import block_ids

SIZES = [10, 100, 700]


def _ids_file(belady_bin, traces, tmp_path):
    """A real trace (the LIRS paper's multi1) as one block id per line, libcachesim's plain text input."""
    ids = block_ids(belady_bin, traces / "lirs" / "multi1.trace.gz", "lirs", tmp_path)
    path = tmp_path / "multi1.txt"
    path.write_text("".join(f"{i}\n" for i in ids))
    return path, len(ids)


def _belady_lru(belady_bin, trace, *extra) -> list[dict]:
    """`belady sim` with the trace given positionally (format detected unless `extra` names one)."""
    out = subprocess.run(
        [str(belady_bin), "sim", str(trace), "-p", "lru", "-c", ",".join(map(str, SIZES)), "--json", *extra],
        check=True, capture_output=True, text=True,
    ).stdout
    return json.loads(out)


def _lcs_lru_hits(lcs, path, trace_type, size, n_req) -> int:
    """libcachesim's LRU over its own reader of `path`: every object has size 1, so bytes are blocks."""
    reader = lcs.TraceReader(str(path), trace_type)
    cache = lcs.LRU(cache_size=size)
    miss_ratio, _ = cache.process_trace(reader)
    return n_req - round(miss_ratio * n_req)


def _check(belady_bin, lcs, path, trace_type, n_req, *extra):
    rows = _belady_lru(belady_bin, path, *extra)
    assert [r["cache_blocks"] for r in rows] == SIZES
    for row in rows:
        assert row["requests"] == n_req, row
        expected = _lcs_lru_hits(lcs, path, trace_type, row["cache_blocks"], n_req)
        assert row["hits"] == expected, (path.name, row["cache_blocks"], row["hits"], expected)
        assert 0 < row["hits"] < n_req  # the sizes are neither all-miss nor all-hit


def test_oracle_general_written_by_libcachesim(belady_bin, traces, lcs, tmp_path):
    txt, n_req = _ids_file(belady_bin, traces, tmp_path)
    out = tmp_path / "multi1.oracleGeneral"
    lcs.Util.convert_to_oracleGeneral(lcs.TraceReader(str(txt), lcs.TraceType.PLAIN_TXT_TRACE)._reader, str(out))
    assert out.stat().st_size == 24 * n_req
    # Detected by its name, and given explicitly.
    _check(belady_bin, lcs, out, lcs.TraceType.ORACLE_GENERAL_TRACE, n_req)
    _check(belady_bin, lcs, out, lcs.TraceType.ORACLE_GENERAL_TRACE, n_req, "--format", "oracle-general")


@pytest.mark.parametrize("version", range(1, 9))
def test_lcs_written_by_libcachesim(belady_bin, traces, lcs, tmp_path, version):
    txt, n_req = _ids_file(belady_bin, traces, tmp_path)
    # A name that says nothing: lcs is detected by its header's start marker.
    out = tmp_path / f"multi1.v{version}.bin"
    reader = lcs.TraceReader(str(txt), lcs.TraceType.PLAIN_TXT_TRACE)
    lcs.Util.convert_to_lcs(reader._reader, str(out), lcs_ver=version)
    _check(belady_bin, lcs, out, lcs.TraceType.LCS_TRACE, n_req)


@pytest.mark.skipif(shutil.which("zstd") is None, reason="zstd not installed (apt-get install zstd)")
def test_zstd_compressed_oracle_general(belady_bin, traces, lcs, tmp_path):
    """The public collections ship NAME.oracleGeneral.zst; belady decompresses it while streaming."""
    txt, n_req = _ids_file(belady_bin, traces, tmp_path)
    plain = tmp_path / "multi1.oracleGeneral"
    lcs.Util.convert_to_oracleGeneral(lcs.TraceReader(str(txt), lcs.TraceType.PLAIN_TXT_TRACE)._reader, str(plain))
    subprocess.run(["zstd", "-q", "-k", str(plain)], check=True)
    packed = tmp_path / "multi1.oracleGeneral.zst"
    want = _belady_lru(belady_bin, plain)
    got = _belady_lru(belady_bin, packed)
    assert [r["hits"] for r in got] == [r["hits"] for r in want]
    assert got[0]["requests"] == n_req


def _requests(lcs, path, trace_type) -> list[tuple[int, int, int, int]]:
    """(object id, size, clock time, next access) of every request libcachesim's reader yields."""
    return [(r.obj_id, r.obj_size, r.clock_time, r.next_access_vtime)
            for r in lcs.TraceReader(str(path), trace_type)]


def _stats(belady_bin, path) -> dict:
    out = subprocess.run([str(belady_bin), "stats", str(path), "--json"],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def test_sized_traces_belady_writes_read_the_same_in_libcachesim(belady_bin, lcs, tmp_path):
    """`belady gen --sizes` writes oracleGeneral, `convert --to lcs` rewrites it: libcachesim's own
    readers see every object's size, and belady's byte totals equal the sums over what they read."""
    og = tmp_path / "zipf.oracleGeneral"
    subprocess.run([str(belady_bin), "gen", "zipf", "--blocks", "2000", "--requests", "20000",
                    "--sizes", "lognormal:4KiB,1.5,4MiB", "--seed", "7", "--to", "oracle-general",
                    "-o", str(og)], check=True, capture_output=True)
    v2 = tmp_path / "zipf.lcs"
    subprocess.run([str(belady_bin), "convert", str(og), "--to", "lcs", "-o", str(v2)],
                   check=True, capture_output=True)
    got = _requests(lcs, og, lcs.TraceType.ORACLE_GENERAL_TRACE)
    assert len(got) == 20000
    assert _requests(lcs, v2, lcs.TraceType.LCS_TRACE) == got
    assert len({size for _, size, _, _ in got}) > 100  # sizes vary
    first: dict[int, int] = {}
    for obj, size, _, _ in got:
        first.setdefault(obj, size)
    for path in (og, v2):
        s = _stats(belady_bin, path)
        assert s["bytes"] == sum(size for _, size, _, _ in got)
        assert s["footprint_bytes"] == sum(first.values())
        assert s["unique_blocks"] == len(first)

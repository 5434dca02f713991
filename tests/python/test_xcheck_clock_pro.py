"""belady's CLOCK-Pro compared with libcachesim's ClockPro on cpp.

libcachesim's `ClockPro` is a different variant (resident cold pages are not in their test
period; a page enters the test period only when evicted; any referenced cold page at HAND_cold is
promoted; the cold target moves by the page size), so the two cannot be equated. belady follows
the authors' simulator (see crates/belady-core/tests/published_clock_pro.rs); this test records
that and that the two differ by several points on cpp.
"""

from __future__ import annotations

from conftest import block_ids, lcs_hits, sim


def test_clock_pro_is_not_libcachesims_variant(belady_bin, traces, lcs, tmp_path):
    path = traces / "lirs" / "cpp.trace.gz"
    ids = block_ids(belady_bin, path, "lirs", tmp_path)
    sizes = [20, 35, 50, 80, 100, 300, 500, 700, 900]
    ours = [r["hits"] for r in sim(belady_bin, path, "lirs", ["clock-pro"], sizes)]
    theirs = [lcs_hits(lcs.ClockPro(cache_size=s), ids) for s in sizes]
    # Ours is the authors' simulator's column (17.5 42.7 55.5 73.1 77.3 85.1 85.9 86.3 86.4 %).
    assert [round(100 * h / len(ids), 1) for h in ours] == [
        17.5, 42.7, 55.5, 73.1, 77.3, 85.1, 85.9, 86.3, 86.4]
    # libcachesim's variant lies far below at small sizes (the paper's weak-locality regime).
    assert max((o - t) / len(ids) for o, t in zip(ours, theirs)) > 0.05, (ours, theirs)

"""belady's S3-FIFO against libcachesim's S3FIFO: equal misses on generated traces and LIRS's multi1.

Both follow libCacheSim's S3FIFO.c (policy/s3fifo.rs lists its steps): ghost ids removed when their
miss begins, small-queue blocks with at least `threshold` hits moved to main at eviction time, main
as a two-bit clock, blocks sent to main while the small queue is full before the first eviction.
Sizes of at least 20 blocks only: below that libCacheSim's small queue is under two objects and it
admits nothing but ghost hits (belady keeps a one-block small queue). Run with the paper's settings
and with another small share and threshold.
"""

from __future__ import annotations

import functools

from xcheck_today import assert_exact


def test_paper_settings(belady_bin, traces, lcs, tmp_path):
    assert_exact(belady_bin, lcs, traces, tmp_path, "s3fifo", lcs.S3FIFO)


def test_other_small_share_and_threshold(belady_bin, traces, lcs, tmp_path):
    make = functools.partial(lcs.S3FIFO, small_size_ratio=0.2, move_to_main_threshold=1)
    assert_exact(belady_bin, lcs, traces, tmp_path, "s3fifo", make,
                 "--param", "s3fifo.small=0.2", "--param", "s3fifo.threshold=1")

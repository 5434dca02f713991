"""Writes the small synthetic traces shipped in data/ for `belady demo` (deterministic)."""

from __future__ import annotations

import gzip
import pathlib
import random

OUT = pathlib.Path(__file__).resolve().parents[1] / "data"


def scan_hot(rng: random.Random) -> list[int]:
    """A hot set of 800 blocks read at random, interrupted by long one-time scans: LRU's classic failure."""
    refs: list[int] = []
    next_scan_block = 100_000
    for _ in range(40):
        refs.extend(rng.randrange(800) for _ in range(1500))
        refs.extend(range(next_scan_block, next_scan_block + 600))
        next_scan_block += 600
    return refs


def zipf_loop(rng: random.Random) -> list[int]:
    """Zipf(0.9) requests over 3000 blocks mixed with a 700-block loop: a loop larger than small caches."""
    weights = [1.0 / (k ** 0.9) for k in range(1, 3001)]
    zipf = rng.choices(range(3000), weights=weights, k=30_000)
    refs: list[int] = []
    loop_pos = 0
    for i, block in enumerate(zipf):
        refs.append(block)
        if i % 2 == 0:
            refs.append(50_000 + loop_pos)
            loop_pos = (loop_pos + 1) % 700
    return refs


def main() -> None:
    OUT.mkdir(exist_ok=True)
    for name, make in [("scan-hot", scan_hot), ("zipf-loop", zipf_loop)]:
        refs = make(random.Random(20261123))
        with gzip.GzipFile(OUT / f"{name}.trace.gz", "wb", mtime=0) as f:
            f.write("".join(f"{r}\n" for r in refs).encode())
        print(f"{name}: {len(refs)} references, {len(set(refs))} unique blocks")


if __name__ == "__main__":
    main()

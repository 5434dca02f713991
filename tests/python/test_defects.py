"""Issues #19 and #27 from Python: a huge cache must not abort the interpreter; errors name the key."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from conftest import ROOT

DEMO = ROOT / "data" / "zipf-loop.trace.gz"


def test_opt_at_huge_sizes_does_not_kill_the_interpreter():
    # Run in a child interpreter: before the fix the allocation aborted the whole process, which
    # would have taken pytest down with it instead of failing one test.
    code = (
        "import belady, sys\n"
        f"df = belady.simulate({str(DEMO)!r}, ['opt', 'lru'], [4000000000, '100TiB'], format='lirs')\n"
        "print(len(df), df['misses'].min() == df['misses'].max())\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    # Four runs; a cache holding the whole trace misses only first touches, whatever the policy.
    assert run.stdout.split() == ["4", "True"], run.stdout


# Issue #27 from Python: errors name the keyword argument or key given; bounds refused at once.


def _trace(tmp_path):
    p = tmp_path / "t.trace"
    p.write_text("".join(f"{i % 40}\n" for i in range(200)))
    return p


def test_a_bad_value_names_its_keyword(tmp_path):
    belady = pytest.importorskip("belady")
    trace = _trace(tmp_path)
    # serde reports the type it expected; the message must also say which keyword held the value.
    with pytest.raises(belady.ConfigError, match="block_size"):
        belady.simulate(trace, "lru", 8, format="lirs", block_size="big")
    with pytest.raises(belady.ConfigError, match="read_ahead_kb"):
        belady.simulate(trace, "lru", 8, format="lirs", read_ahead_kb=-1)
    with pytest.raises(belady.ConfigError, match="cache_sizes"):
        belady.run({"trace": str(trace), "format": "lirs", "cache_sizes": 8})


def test_threads_beyond_the_bound_are_refused_at_once(tmp_path):
    belady = pytest.importorskip("belady")
    trace = _trace(tmp_path)
    start = time.monotonic()
    with pytest.raises(belady.ConfigError, match="threads") as info:
        belady.simulate(trace, "lru", 8, format="lirs", threads=100000)
    assert "--" not in str(info.value)
    with pytest.raises(belady.ConfigError, match="threads"):
        belady.mrc(trace, "lru", format="lirs", threads=100000)
    assert time.monotonic() - start < 20


def test_results_of_a_file_that_is_not_a_store_leave_it_unchanged(tmp_path):
    belady = pytest.importorskip("belady")
    empty = tmp_path / "empty.sqlite"
    empty.write_bytes(b"")
    with pytest.raises(belady.BeladyError, match="not a belady results store") as info:
        belady.results(empty)
    assert "\n" not in str(info.value)
    assert empty.read_bytes() == b""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty.sqlite"]

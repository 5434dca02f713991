"""Issue #19 from Python: a cache far larger than the trace must not abort the interpreter."""

from __future__ import annotations

import subprocess
import sys

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

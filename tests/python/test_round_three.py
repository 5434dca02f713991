"""Issue #37 from Python (the API was not probed in the earlier rounds): Ctrl-C reaches a long call."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import pytest


def test_ctrl_c_interrupts_a_long_simulate_sweep_and_mrc(belady_bin, tmp_path):
    """A KeyboardInterrupt is raised within a second of SIGINT, while the call would run for many
    more: the calls held their thread in Rust and Ctrl-C waited for the whole run."""
    pytest.importorskip("belady")
    trace = tmp_path / "big.native"
    subprocess.run([str(belady_bin), "gen", "zipf", "--requests", "3000000", "--blocks", "300000",
                    "-o", str(trace)], check=True, capture_output=True)
    (tmp_path / "e.toml").write_text(
        'policies = ["opt", "lirs", "arc", "lru", "car", "clock-pro"]\nsizes = ["1%", "5%", "20%"]\n'
        f'[[trace]]\npath = "{trace}"\n')
    calls = {
        "simulate": f"belady.simulate({str(trace)!r}, ['opt', 'lirs', 'arc', 'car', 'clock-pro', 'lru'],"
                    " ['1%', '5%', '10%', '20%'], threads=1)",
        "sweep": f"belady.sweep({str(tmp_path / 'e.toml')!r}, {str(tmp_path / 's.sqlite')!r}, threads=1)",
        "mrc": f"belady.mrc({str(trace)!r}, ['opt', 'lirs', 'arc'], '1%,5%,10%,20%', threads=1)",
    }
    for name, call in calls.items():
        code = ("import belady, sys\n"
                "print('started', flush=True)\n"
                "try:\n"
                f"    {call}\n"
                "    print('finished')\n"
                "except KeyboardInterrupt:\n"
                "    print('interrupted', flush=True)\n")
        child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
        assert child.stdout.readline().strip() == "started"
        time.sleep(1.5)
        sent = time.monotonic()
        child.send_signal(signal.SIGINT)
        out, _ = child.communicate(timeout=120)
        waited = time.monotonic() - sent
        assert out.strip() == "interrupted", (name, out)
        assert waited < 1.0, f"{name}: KeyboardInterrupt came {waited:.1f} s after SIGINT"


def test_bad_numbers_are_config_errors_naming_their_keyword(tmp_path):
    """Found by this round's probe of the Python API: NaN, infinite and negative numbers gave
    TypeError ("'float' object is not iterable"), OverflowError ("can't convert negative int to
    unsigned") or "invalid config: expected value", naming nothing; mrc took control_rate NaN or -1
    as "no control" where `belady mrc` refuses them."""
    belady = pytest.importorskip("belady")
    trace = tmp_path / "t.lirs"
    trace.write_text("".join(f"{i % 40}\n" for i in range(400)))
    t = str(trace)
    cases = {
        "cache_sizes": [lambda: belady.simulate(t, "lru", float("nan"), format="lirs"),
                        lambda: belady.simulate(t, "lru", 1e30, format="lirs"),
                        lambda: belady.simulate(t, "lru", 10.5, format="lirs")],
        "block_size": [lambda: belady.run({"trace": t, "format": "lirs", "policies": ["lru"],
                                           "cache_sizes": ["10"], "block_size": float("inf")})],
        "threads": [lambda: belady.simulate(t, "lru", 10, format="lirs", threads=-1),
                    lambda: belady.mrc(t, "lru", "10", format="lirs", threads=-2)],
        "seed": [lambda: belady.mrc(t, "lru", "10", format="lirs", seed=-1)],
        "control_rate": [lambda: belady.mrc(t, "lru", "10", format="lirs", sample_rate=0.5, control_rate=c)
                         for c in (float("nan"), -1.0, 2.0)],
    }
    for key, calls in cases.items():
        for call in calls:
            with pytest.raises(belady.ConfigError, match=f"invalid {key} "):
                call()

"""The kernel's own replacement (`linux`, `mglru`) from Python: the registry hands them to
`belady.simulate`, which returns what the CLI prints, under read-ahead and a disk, with parameters."""

from __future__ import annotations

import belady
import pytest

from conftest import ROOT, sim

DEMO = ROOT / "data" / "zipf-loop.trace.gz"


def test_kernel_policies_are_listed():
    assert {"linux", "mglru"} <= set(belady.policies())


@pytest.mark.parametrize("prefetch", ["none", "linux24", "linux6"])
def test_kernel_policies_equal_cli_under_read_ahead_and_a_disk(belady_bin, prefetch):
    policies = ["linux", "mglru"]
    params = {"linux.inactive_ratio": 2, "mglru.aging": "direct"}
    py = belady.simulate(DEMO, policies, [200, "5%"], format="lirs", prefetch=prefetch, disk="hdd",
                         params=params)
    cli = sim(belady_bin, DEMO, "lirs", policies, [200, "5%"], "--prefetch", prefetch, "--disk", "hdd",
              "--param", "linux.inactive_ratio=2", "--param", "mglru.aging=direct")
    assert len(py) == len(cli) == 4
    assert py.to_dict("records") == cli
    assert (py["exec_time_s"] > 0).all()


def test_a_bad_kernel_policy_parameter_names_its_key():
    with pytest.raises(belady.ConfigError, match="mglru.aging=sometimes"):
        belady.simulate(DEMO, "mglru", 10, format="lirs", params={"mglru.aging": "sometimes"})

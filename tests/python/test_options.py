"""belady.simulate speaks Python: keyword-named errors, params as a dict or a list, option lists."""

from pathlib import Path

import pytest

belady = pytest.importorskip("belady")


@pytest.fixture
def trace(tmp_path):
    p = tmp_path / "t.trace"
    ids = list(range(100, 130)) * 2 + [7, 900, 7, 901]
    p.write_text("".join(f"{i}\n" for i in ids))
    return p


def test_errors_name_keyword_arguments_not_flags(trace):
    with pytest.raises(belady.ConfigError, match="max_request") as info:
        belady.simulate(trace, "lru", 8, format="lirs", prefetch="linux24", max_request="5%")
    assert "--" not in str(info.value)
    with pytest.raises(belady.ConfigError) as info:
        belady.simulate(trace, "nope", 8, format="lirs")
    assert "--" not in str(info.value) and "policies" in str(info.value)


def test_cache_sizes_are_required_as_on_the_command_line(trace):
    with pytest.raises(belady.ConfigError, match="cache_sizes"):
        belady.simulate(trace, "lru", format="lirs")


def test_params_take_a_dict_or_a_list(trace):
    a = belady.simulate(trace, "lirs", 8, format="lirs", params={"lirs.hir": 0.25})
    b = belady.simulate(trace, "lirs", 8, format="lirs", params=["lirs.hir=0.25"])
    assert a.equals(b)


def test_prefetch_lists_multiply_the_runs(trace):
    frame = belady.simulate(trace, ["lru", "arc"], [8, 32], format="lirs", prefetch="none,linux24")
    assert len(frame) == 8
    assert list(frame["prefetch"].isna()) == [True] * 4 + [False] * 4

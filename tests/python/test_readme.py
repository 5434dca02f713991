"""The README's commands run as written (with `belady` on PATH, in a scratch directory), and do
what their comments say."""

from __future__ import annotations

import os
import pathlib
import re
import shutil
import subprocess

import pytest

from conftest import ROOT

README = (ROOT / "README.md").read_text()


def readme_line(prefix: str) -> str:
    """The one line of the README's code blocks that starts with `prefix`."""
    blocks = re.findall(r"^```[^\n]*\n(.*?)^```", README, flags=re.S | re.M)
    lines = [l for b in blocks for l in b.splitlines() if l.startswith(prefix)]
    assert len(lines) == 1, f"expected one README line starting {prefix!r}, found {lines}"
    return lines[0]


def run_as_written(line: str, belady_bin, cwd: pathlib.Path) -> subprocess.CompletedProcess:
    """Runs a README line in bash, comment and all, with `belady` (the tested binary) on PATH."""
    bin_dir = cwd / ".bin"
    bin_dir.mkdir(exist_ok=True)
    link = bin_dir / "belady"
    if not link.exists():
        link.symlink_to(pathlib.Path(belady_bin).resolve())
    env = dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return subprocess.run(["bash", "-c", line], cwd=cwd, env=env, capture_output=True, text=True)


def files_read(trace: pathlib.Path) -> dict[str, int]:
    """Bytes read from each file of an events trace, by path."""
    paths, read = {}, {}
    for line in trace.read_text().splitlines():
        f = line.split(maxsplit=3)
        if not f or f[0].startswith("#"):
            continue
        if f[0] == "file":
            paths[f[1]] = f[3]
        elif f[0] == "read":
            fields = line.split()
            read[paths[fields[5]]] = read.get(paths[fields[5]], 0) + int(fields[7])
    return read


@pytest.mark.skipif(shutil.which("strace") is None, reason="strace not installed (apt-get install strace)")
def test_the_record_example_records_every_file_it_names(belady_bin, tmp_path):
    line = readme_line("belady record ")
    named = re.search(r"tar cf - (\S+)", line).group(1).rstrip("'")
    # Every regular file under the directory tar archives, with its size (tar reads each whole).
    expected = {}
    for root, _, names in os.walk(named):
        for n in names:
            p = os.path.join(root, n)
            if os.path.isfile(p) and not os.path.islink(p) and os.access(p, os.R_OK) and os.path.getsize(p) > 0:
                expected[os.path.realpath(p)] = os.path.getsize(p)
    assert expected, f"{named} holds no readable file on this machine"

    out = run_as_written(line, belady_bin, tmp_path)
    assert out.returncode == 0, out.stderr
    trace = tmp_path / re.search(r"-o (\S+)", line).group(1)
    read = files_read(trace)
    assert set(read) == set(expected), (
        f"files read but not under {named}: {sorted(set(read) - set(expected))[:5]}; "
        f"files under {named} not read: {sorted(set(expected) - set(read))[:5]}")
    wrong = {p: (read[p], size) for p, size in expected.items() if read[p] != size}
    assert not wrong, f"files not read whole (read, size): {list(wrong.items())[:5]}"

    # The next line simulates that trace, as written.
    sim = run_as_written(readme_line("belady sim tar.bev "), belady_bin, tmp_path)
    assert sim.returncode == 0, sim.stderr
    rows = [l for l in sim.stdout.splitlines() if re.match(r"\s*(lru|lirs)\b", l)]
    assert len(rows) == 2 * 2 * 2, sim.stdout


def test_every_cargo_install_is_locked():
    # `cargo install` without --locked resolves newer dependency versions than the tested lock file.
    places = [ROOT / "README.md", *(ROOT / "docs").glob("*.md"), *(ROOT / "scripts").glob("*.sh")]
    unlocked = [f"{p.name}: {l.strip()}" for p in places for l in p.read_text().splitlines()
                if re.search(r"\bcargo install\b", l) and "--locked" not in l
                and not re.search(r"cargo install (left|builds)", l)]
    assert not unlocked, unlocked

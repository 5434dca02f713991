"""The README's Quick start and its Python snippet run as written, from where the README says to
run them (the checkout, with `belady` on PATH), put every output in the one folder they name, and do
what their comments say."""

from __future__ import annotations

import glob
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT, traces_dir

README = (ROOT / "README.md").read_text()


def section(title: str) -> str:
    """The README's section under `## title`."""
    return README.split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]


def code_blocks(text: str, lang: str = "") -> list[str]:
    """The fenced code blocks of `text` whose info string is `lang`."""
    return re.findall(rf"^```{lang}\n(.*?)^```", text, flags=re.S | re.M)


def quick_start() -> tuple[str, str]:
    """The Quick start's shell block and its Python block."""
    text = section("Quick start")
    (shell,) = code_blocks(text)
    (python,) = code_blocks(text, "python")
    return shell, python


def line_of(block: str, prefix: str) -> str:
    """The one line of `block` that starts with `prefix`."""
    lines = [l for l in block.splitlines() if l.startswith(prefix)]
    assert len(lines) == 1, f"expected one line starting {prefix!r}, found {lines}"
    return lines[0]


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


@pytest.fixture(scope="module")
def checkout(belady_bin, traces, tmp_path_factory):
    """A checkout as the README's reader has it, after the Quick start ran in it as written (all
    but `belady calibrate`, which measures this machine's kernel and is tested on its own): the
    examples, the shared folder beside it, `belady` on PATH, BELADY_TRACES unset so the Quick
    start's default is the one used. Returns (checkout, the script's result)."""
    if shutil.which("strace") is None:
        pytest.skip("strace not installed (apt-get install strace): the Quick start records a program")
    base = tmp_path_factory.mktemp("readme")
    checkout = base / "belady"
    shutil.copytree(ROOT / "examples", checkout / "examples")
    (base / "shared").symlink_to(traces_dir().parent)
    bin_dir = base / "bin"
    bin_dir.mkdir()
    (bin_dir / "belady").symlink_to(pathlib.Path(belady_bin).resolve())
    shell, _ = quick_start()
    script = "\n".join(l for l in shell.splitlines() if not l.startswith("belady calibrate "))
    env = {k: v for k, v in os.environ.items() if k != "BELADY_TRACES"}
    env["PATH"] = f"{bin_dir}{os.pathsep}{env['PATH']}"
    # The shell stops at the first command that fails, naming it.
    out = subprocess.run(["bash", "-e", "-x", "-c", script], cwd=checkout, env=env,
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-3000:]
    return checkout, out


def test_the_quick_start_runs_as_written_and_writes_only_into_the_folder_it_names(checkout):
    checkout, out = checkout
    shell, _ = quick_start()
    folder = re.search(r"mkdir -p (\S+) && cd \1", shell).group(1)
    assert f"`{folder}/`" in section("Quick start"), "the README names the folder"
    # Nothing but the folder is added to the checkout; in it, every file the commands name.
    assert sorted(p.name for p in checkout.iterdir()) == sorted(["examples", folder])
    written = {p.name for p in (checkout / folder).iterdir()}
    named = set(re.findall(r"(?:-o|--html|>) (\S+\.(?:html|bev|json))", shell)) | {"belady-results.sqlite", "report-charts"}
    assert named <= written, named - written
    # The sweep ran every run of the shipped experiment, with the traces the default found.
    done = re.search(r"(\d+) runs: (\d+) done now", out.stderr)
    assert done and done.group(1) == done.group(2) == str(2 * 8 * 5 * 2), out.stderr[-2000:]
    # `mrc --html` says where the page is in one line, not its rows.
    assert "wrote mrc.html: 2 curves of" in out.stdout
    assert "policy,cache_blocks,miss_ratio" not in out.stdout


def test_the_record_example_reads_each_file_twice_and_the_larger_cache_shows_it(checkout, belady_bin):
    checkout, _ = checkout
    shell, _ = quick_start()
    line = line_of(shell, "belady record ")
    pattern = re.search(r"cat (\S+);", line).group(1)
    trace = checkout / "belady-out" / re.search(r"-o (\S+)", line).group(1)
    # Every file the glob names, with the bytes cat reads of it: the whole file once per pass, and
    # once more for each other name the glob finds it under (a package's doc folder may be a link
    # to another's).
    expected: dict[str, int] = {}
    for p in glob.glob(pattern):
        if os.path.isfile(p) and os.access(p, os.R_OK) and os.path.getsize(p) > 0:
            expected[os.path.realpath(p)] = expected.get(os.path.realpath(p), 0) + 2 * os.path.getsize(p)
    assert expected, f"{pattern} names no readable file on this machine"
    read = files_read(trace)
    assert set(read) == set(expected), (
        f"read but not named: {sorted(set(read) - set(expected))[:5]}; "
        f"named but not read: {sorted(set(expected) - set(read))[:5]}")
    wrong = {p: (read[p], want) for p, want in expected.items() if read[p] != want}
    assert not wrong, f"files not read whole twice (read, expected): {list(wrong.items())[:5]}"

    # The next line, as written, with --json: the cache that holds every block keeps the first pass
    # for the second, which the smaller one cannot; so every policy and read-ahead hits more there.
    sim = line_of(shell, f"belady sim {trace.name} ").split("#")[0].split()[1:]
    out = subprocess.run([str(belady_bin), *sim, "--json"], cwd=trace.parent, capture_output=True,
                         text=True, check=True)
    rows = json.loads(out.stdout)
    assert len(rows) == 2 * 2 * 2
    by = {(r["policy"], r["prefetch"], r["cache_blocks"]): r["hit_ratio"] for r in rows}
    sizes = sorted({r["cache_blocks"] for r in rows})
    for policy, prefetch, size in by:
        if size == sizes[0]:
            small, large = by[(policy, prefetch, sizes[0])], by[(policy, prefetch, sizes[1])]
            assert large > small + 0.2, (policy, prefetch, small, large)


def test_the_python_snippet_runs_as_written_after_the_quick_start(checkout):
    pytest.importorskip("belady", reason="the belady Python package is not installed")
    checkout, _ = checkout
    _, python = quick_start()
    # In the Quick start's folder and shell: BELADY_TRACES as its first line exports it.
    env = dict(os.environ, BELADY_TRACES=str(checkout / ".." / "shared" / "traces"))
    probe = python + "\nprint(len(df), sorted(df['policy']), len(curves))\n"
    out = subprocess.run([sys.executable, "-c", probe], cwd=checkout / "belady-out", env=env,
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-3000:]
    # The last DataFrame is run.json's configuration: LRU and ARC at 1%.
    rows, policies = re.match(r"(\d+) (\[.*\]) (\d+)", out.stdout.strip().splitlines()[-1]).group(1, 2)
    assert int(rows) == 2 and policies == "['arc', 'lru']", out.stdout


def test_every_cargo_install_is_locked():
    # `cargo install` without --locked resolves newer dependency versions than the tested lock file.
    places = [ROOT / "README.md", *(ROOT / "docs").glob("*.md"), *(ROOT / "scripts").glob("*.sh")]
    unlocked = [f"{p.name}: {l.strip()}" for p in places for l in p.read_text().splitlines()
                if re.search(r"\bcargo install\b", l) and "--locked" not in l
                and not re.search(r"cargo install (left|builds)", l)]
    assert not unlocked, unlocked

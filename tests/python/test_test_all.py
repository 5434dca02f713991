"""`scripts/test-all.sh` installs the system tools it needs when it can (root with apt-get), each
without recommended packages and only when it upgrades no installed package, and otherwise runs on
and names what it skips: checked on its tool step, scripts/system-tools.sh, with stub commands in
place of `id`, `apt-get` and the tools."""

from __future__ import annotations

import subprocess

from conftest import ROOT

TOOLS = ["strace", "chromium", "zstd"]


def _stub(directory, name, body):
    path = directory / name
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(0o755)


def _run_tool_step(tmp_path, uid, upgrades=None, env=None):
    """Sources the tool step with only stubs on PATH; returns (missing, stdout, stderr, apt log).

    `upgrades` maps a package to the installed packages its dry run says it would upgrade."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "apt.log"
    _stub(bin_dir, "id", f"echo {uid}")
    _stub(bin_dir, "python3", "exit 0")  # has the venv module
    # The stub apt-get logs its arguments. Its dry run (-s) prints apt's `Inst` lines: the package
    # itself, new, and any installed package it would upgrade (`Inst NAME [OLD] (NEW ...)`). A
    # real install puts an executable of the package's name on PATH.
    dry = "".join(
        f'[ "$p" = {pkg} ] && echo "Inst {old} [1.0-1] (1.0-2 Debian:12 [amd64])"; '
        for pkg, olds in (upgrades or {}).items() for old in olds)
    _stub(bin_dir, "apt-get", f'echo "$@" >> {log}\n'
          f'[ "$1" = install ] || exit 0\n'
          f'case " $* " in *" -s "*) for p in "$@"; do case "$p" in -*|install) ;; *) '
          f'{dry}echo "Inst $p (1.0 Debian:12 [amd64])" ;; esac; done; exit 0 ;; esac\n'
          f'for p in "$@"; do case "$p" in -*|install) ;; *) '
          f'printf "#!/bin/sh\\n" > {bin_dir}/$p; /bin/chmod +x {bin_dir}/$p ;; esac; done')
    out = subprocess.run(
        ["/bin/bash", "-c", 'source scripts/system-tools.sh; echo "missing=${missing[*]-}"'],
        cwd=ROOT, env={"PATH": str(bin_dir), **(env or {})}, capture_output=True, text=True, check=True,
    )
    missing = out.stdout.strip().splitlines()[-1].removeprefix("missing=").split()
    return missing, out.stdout, out.stderr, log.read_text() if log.exists() else ""


def _installs(apt_log):
    """The real (not dry-run) apt-get install lines of the log."""
    return [l for l in apt_log.splitlines() if l.startswith("install") and " -s " not in f" {l} "]


def test_as_root_it_installs_each_missing_tool_without_recommends_and_says_so(tmp_path):
    missing, stdout, stderr, apt = _run_tool_step(tmp_path, 0)
    assert "as root: installing missing system tools (strace chromium zstd)" in stdout
    installs = _installs(apt)
    # One package per install, none of apt's recommended extras, nothing named upgraded.
    assert [l.split()[-1] for l in installs] == TOOLS, apt
    assert all("--no-install-recommends" in l and "--no-upgrade" in l for l in installs), installs
    for tool in TOOLS:
        assert f"test-all: apt-get install --no-install-recommends --no-upgrade {tool}" in stdout
    # Each install was preceded by its dry run.
    assert apt.count("install -s") == len(TOOLS), apt
    assert missing == [] and "will skip" not in stderr


def test_a_tool_that_would_upgrade_installed_packages_is_not_installed_and_its_tests_are_named(tmp_path):
    missing, stdout, stderr, apt = _run_tool_step(tmp_path, 0, upgrades={"chromium": ["perl", "systemd"]})
    assert [l.split()[-1] for l in _installs(apt)] == ["strace", "zstd"], apt
    assert missing == ["chromium"]
    line = next(l for l in stderr.splitlines() if "will skip" in l)
    assert "test_report.py" in line and "would upgrade perl systemd" in line, stderr


def test_without_root_it_installs_nothing_and_names_each_skipped_test(tmp_path):
    missing, stdout, stderr, apt = _run_tool_step(tmp_path, 1000)
    assert apt == "" and "installing" not in stdout
    assert missing == TOOLS
    for tool, tests in [("strace", "test_record.py"), ("chromium", "test_report.py"),
                        ("zstd", "test_oracle_general.py")]:
        line = next(l for l in stderr.splitlines() if f": {tool} is not installed" in l)
        assert "will skip" in line and tests in line and f"apt-get install --no-install-recommends" in line
        assert line.endswith(f" {tool})"), line


def test_root_can_opt_out_of_installing(tmp_path):
    missing, stdout, _, apt = _run_tool_step(tmp_path, 0, env={"BELADY_INSTALL_TOOLS": "no"})
    assert apt == "" and missing == TOOLS


def test_the_suite_runs_on_when_a_tool_is_missing_and_says_what_it_installs():
    # The suite neither stops nor exits on a missing tool: nothing after the tool step is guarded by it.
    script = (ROOT / "scripts" / "test-all.sh").read_text()
    assert "source scripts/system-tools.sh" in script
    assert "exit 1" not in script.split("source scripts/system-tools.sh")[1].split("VENV=")[0]
    assert 'report_skipped "passed, but skipped"' in script
    # Its header says what it installs as root; it never claims to leave the system alone.
    header = script.split("set -euo pipefail")[0]
    assert "leaves the system alone" not in header
    assert "root with apt-get" in " ".join(header.replace("#", "").split())
    assert "--no-install-recommends" in header
    # CI runs the README's command, which does the installing.
    ci = (ROOT / ".ci" / "run").read_text()
    assert "bash scripts/test-all.sh" in ci and "apt-get install" not in ci

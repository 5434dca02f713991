"""`scripts/test-all.sh` installs the system tools it needs when it can (root with apt-get), and
otherwise runs on and names what it skips: checked on its tool step, scripts/system-tools.sh,
with stub commands in place of `id`, `apt-get` and the tools."""

from __future__ import annotations

import os
import subprocess

from conftest import ROOT

TOOLS = ["strace", "chromium", "zstd"]


def _stub(directory, name, body):
    path = directory / name
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(0o755)


def _run_tool_step(tmp_path, uid):
    """Sources the tool step with only stubs on PATH; returns (missing, stdout, stderr, apt log)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "apt.log"
    _stub(bin_dir, "id", f"echo {uid}")
    _stub(bin_dir, "python3", "exit 0")  # has the venv module
    # The stub apt-get "installs" a package by putting an executable of its name on PATH.
    _stub(bin_dir, "apt-get", f'echo "$@" >> {log}\n[ "$1" = install ] || exit 0\n'
          f'for p in "$@"; do case "$p" in -*|install) ;; *) '
          f'printf "#!/bin/sh\\n" > {bin_dir}/$p; /bin/chmod +x {bin_dir}/$p ;; esac; done')
    out = subprocess.run(
        ["/bin/bash", "-c", 'source scripts/system-tools.sh; echo "missing=${missing[*]-}"'],
        cwd=ROOT, env={"PATH": str(bin_dir)}, capture_output=True, text=True, check=True,
    )
    missing = out.stdout.strip().splitlines()[-1].removeprefix("missing=").split()
    return missing, out.stdout, out.stderr, log.read_text() if log.exists() else ""


def test_as_root_with_apt_get_it_installs_the_missing_tools_and_says_so(tmp_path):
    missing, stdout, stderr, apt = _run_tool_step(tmp_path, 0)
    assert "installing missing system tools: apt-get install strace chromium zstd" in stdout
    assert "install -y -qq strace chromium zstd" in apt
    assert missing == [] and "will skip" not in stderr


def test_without_root_it_installs_nothing_and_names_each_skipped_test(tmp_path):
    missing, stdout, stderr, apt = _run_tool_step(tmp_path, 1000)
    assert apt == "" and "installing" not in stdout
    assert missing == TOOLS
    for tool, tests in [("strace", "test_record.py"), ("chromium", "test_report.py"),
                        ("zstd", "test_oracle_general.py")]:
        line = next(l for l in stderr.splitlines() if f": {tool} is not installed" in l)
        assert "will skip" in line and tests in line and f"apt-get install {tool}" in line


def test_the_suite_runs_on_when_a_tool_is_missing():
    # The suite neither stops nor exits on a missing tool: nothing after the tool step is guarded by it.
    script = (ROOT / "scripts" / "test-all.sh").read_text()
    assert "source scripts/system-tools.sh" in script
    assert "exit 1" not in script.split("source scripts/system-tools.sh")[1].split("VENV=")[0]
    assert 'report_skipped "passed, but skipped"' in script

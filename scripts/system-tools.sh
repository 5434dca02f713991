# Sourced by scripts/test-all.sh. Some tests need system tools: `belady record` runs programs under
# strace, the report and MRC page tests render in headless Chromium, the libCacheSim trace tests
# compress with zstd, and the suite's own virtual environment needs Python's venv module. As root
# with apt-get (CI, a container) the missing ones are installed here, saying so; otherwise the
# suite runs everything else, and each test that needs a missing tool skips naming it. What is
# still missing is left in `missing`, and `report_skipped` names it (before and after the run).
declare -A package=([strace]=strace [chromium]=chromium [zstd]=zstd [python3-venv]=python3-venv)
have() {
    case "$1" in
        chromium) command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 ;;
        python3-venv) python3 -c 'import ensurepip, venv' >/dev/null 2>&1 ;;
        *) command -v "$1" >/dev/null 2>&1 ;;
    esac
}
missing=()
for tool in strace chromium zstd python3-venv; do
    have "$tool" || missing+=("$tool")
done
if [ ${#missing[@]} -gt 0 ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    pkgs=()
    for tool in "${missing[@]}"; do pkgs+=("${package[$tool]}"); done
    echo "test-all: installing missing system tools: apt-get install ${pkgs[*]}"
    apt-get update -qq || echo "test-all: apt-get update failed; trying the install anyway" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${pkgs[@]}" ||
        echo "test-all: apt-get could not install ${pkgs[*]}" >&2
    still=()
    for tool in "${missing[@]}"; do have "$tool" || still+=("$tool"); done
    missing=("${still[@]+"${still[@]}"}")
fi

# What the suite leaves out without tool $1.
skipped_because() {
    case "$1" in
        strace) echo "the record tests (tests/python/test_record.py, test_recorded_findings.py, test_readme.py's record example; the strace cases of crates/belady-cli/tests/defects.rs)" ;;
        chromium) echo "the headless-browser render tests (tests/python/test_report.py)" ;;
        zstd) echo "the zstd-compressed libCacheSim trace tests (tests/python/test_oracle_general.py)" ;;
        python3-venv) echo "the Python tests (the suite stops where it creates target/venv)" ;;
    esac
}

# One line per missing tool: `$1` (will skip, skipped), what, and how to install it.
report_skipped() {
    local tool
    for tool in "${missing[@]+"${missing[@]}"}"; do
        echo "test-all: $1 $(skipped_because "$tool"): $tool is not installed (sudo apt-get install ${package[$tool]})" >&2
    done
}
report_skipped "will skip"

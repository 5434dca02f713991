# Sourced by scripts/test-all.sh. Some tests need system tools: `belady record` runs programs under
# strace, the report and MRC page tests render in headless Chromium, the libCacheSim trace tests
# compress with zstd, and the suite's own virtual environment needs Python's venv module.
#
# What this changes on the machine, and when:
# - not root, or no apt-get, or BELADY_INSTALL_TOOLS=no: nothing;
# - as root with apt-get (CI, a container), only when a tool is missing: `apt-get update` (refreshes
#   the package lists), then each missing tool on its own with
#   `apt-get install --no-install-recommends --no-upgrade PACKAGE` (its dependencies, no recommended
#   extras), and only if apt's dry run (`apt-get install -s`) shows that it upgrades no package
#   already installed; a tool that would upgrade one (Chromium's dependencies may want a newer
#   systemd or perl) is not installed, and the dry run's upgrades are named.
# Every step is printed. Each tool still missing afterwards is left in `missing`; the tests that
# need it skip, and `report_skipped` names them (before and after the run) with the install line.
declare -A package=([strace]=strace [chromium]=chromium [zstd]=zstd [python3-venv]=python3-venv)
apt_options=(--no-install-recommends --no-upgrade)
have() {
    case "$1" in
        chromium) command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 ;;
        python3-venv) python3 -c 'import ensurepip, venv' >/dev/null 2>&1 ;;
        *) command -v "$1" >/dev/null 2>&1 ;;
    esac
}

# The installed packages apt would upgrade to install package $1: from the dry run's
# `Inst NAME [OLD VERSION] (NEW ...)` lines (a bracketed version is one already installed).
upgrades_for() {
    local line names=()
    while IFS= read -r line; do
        [[ $line =~ ^Inst\ ([^ ]+)\ \[ ]] && names+=("${BASH_REMATCH[1]}")
    done < <(apt-get install -s "${apt_options[@]}" "$1" 2>/dev/null)
    echo "${names[*]-}"
}

missing=()
declare -A why=()
for tool in strace chromium zstd python3-venv; do
    have "$tool" || missing+=("$tool")
done
if [ ${#missing[@]} -gt 0 ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 &&
    [ "${BELADY_INSTALL_TOOLS:-yes}" != no ]; then
    echo "test-all: as root: installing missing system tools (${missing[*]}) with apt-get," \
        "each only if it upgrades no installed package (BELADY_INSTALL_TOOLS=no: install nothing)"
    echo "test-all: apt-get update"
    apt-get update -qq || echo "test-all: apt-get update failed; trying the installs anyway" >&2
    for tool in "${missing[@]}"; do
        pkg=${package[$tool]}
        # A failed dry run (an unknown package) names no upgrade; the install then says it failed.
        upgrades=$(upgrades_for "$pkg")
        if [ -n "$upgrades" ]; then
            why[$tool]="not installed: apt-get install $pkg would upgrade $upgrades"
            echo "test-all: not installing $pkg: it would upgrade installed packages ($upgrades)" >&2
            continue
        fi
        echo "test-all: apt-get install ${apt_options[*]} $pkg"
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${apt_options[@]}" "$pkg" ||
            echo "test-all: apt-get could not install $pkg" >&2
    done
    still=()
    for tool in "${missing[@]}"; do have "$tool" || still+=("$tool"); done
    missing=("${still[@]+"${still[@]}"}")
fi

# What the suite leaves out without tool $1.
skipped_because() {
    case "$1" in
        strace) echo "the record tests (tests/python/test_record.py, test_recorded_findings.py, test_readme.py's Quick start, which records a program; the strace cases of crates/belady-cli/tests/defects.rs)" ;;
        chromium) echo "the headless-browser render tests (tests/python/test_report.py)" ;;
        zstd) echo "the zstd-compressed libCacheSim trace tests (tests/python/test_oracle_general.py)" ;;
        python3-venv) echo "the Python tests (the suite stops where it creates target/venv)" ;;
    esac
}

# One line per missing tool: `$1` (will skip, skipped), what, and why or how to install it.
report_skipped() {
    local tool
    for tool in "${missing[@]+"${missing[@]}"}"; do
        echo "test-all: $1 $(skipped_because "$tool"): $tool ${why[$tool]:-is not installed (sudo apt-get install ${apt_options[*]} ${package[$tool]})}" >&2
    done
}
report_skipped "will skip"

#!/usr/bin/env bash
# schedlab's one entry point on a Debian/Ubuntu machine.
#
#   ./run.sh [ARGS...]   the app (no args: the GUI; `./run.sh run cfs-yield --json` passes args through)
#   ./run.sh test        ruff check, ruff format --check, mypy, lint-imports, pytest (Qt offscreen)
#   ./run.sh bench       the benchmarks (schedlab bench: simulated s per wall s, packets per wall s)
#
# After the venv it compiles the model with mypyc (ensure_native), once per change of model/.
#
# On first use it creates .venv and installs schedlab editable with its dev tools; it reinstalls only
# when pyproject.toml changed (stamp: .venv/.schedlab-installed). System packages: the test command
# installs the few that Qt's offscreen platform needs when run as root (CI), otherwise prints the
# apt-get line; the GUI only checks and prints the apt-get line. It never prompts.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")"
ROOT=$PWD
VENV=$ROOT/.venv
PY=$VENV/bin/python
STAMP=$VENV/.schedlab-installed
export PIP_DISABLE_PIP_VERSION_CHECK=1

say() { printf 'schedlab: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }
is_root() { [ "$(id -u)" -eq 0 ]; }

# apt_install PKG...: as root, install quietly and without questions; otherwise return 1, and the caller
# prints the `sudo apt-get install` line.
apt_install() {
    if is_root && command -v apt-get >/dev/null; then
        say "installing system packages: $*"
        export DEBIAN_FRONTEND=noninteractive
        if [ -z "${APT_UPDATED:-}" ]; then
            apt-get update -qq >&2 || die "apt-get update failed"
            APT_UPDATED=1
        fi
        local log
        log=$(mktemp)
        if ! apt-get install -y -q --no-install-recommends "$@" >"$log" 2>&1; then
            cat "$log" >&2
            rm -f "$log"
            die "apt-get install $* failed"
        fi
        rm -f "$log"
    else
        return 1
    fi
}

# The first Python >= 3.11 on PATH ($PYTHON first, if set).
find_python() {
    local candidate
    for candidate in ${PYTHON:-} python3 python3.13 python3.12 python3.11; do
        if command -v "$candidate" >/dev/null &&
            "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
            "$candidate" -c 'import sys; print(sys.executable)' # the real binary, not a pyenv shim
            return 0
        fi
    done
    return 1
}

# Debian splits venv's pip bootstrap (ensurepip) into pythonX.Y-venv; without it venv fails half-way.
ensure_venv_module() {
    local python=$1 version package
    "$python" -c 'import venv, ensurepip' 2>/dev/null && return 0
    version=$("$python" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')
    package=python$version-venv
    if [ "$(python3 -c 'import sys; print(sys.version_info[:2])' 2>/dev/null)" = \
        "$("$python" -c 'import sys; print(sys.version_info[:2])')" ]; then
        package=python3-venv
    fi
    apt_install "$package" || die "Python's venv module is missing. Install it with:
    sudo apt-get install $package
then run ./run.sh again."
    "$python" -c 'import venv, ensurepip' 2>/dev/null || die "$package is installed but $python still has no venv/ensurepip"
}

ensure_venv() {
    local python hash
    if [ -e "$VENV" ] && ! "$PY" -c 'import sys' >/dev/null 2>&1; then
        say "removing the broken .venv (no working python inside)"
        rm -rf "$VENV"
    fi
    if [ ! -e "$VENV" ]; then
        python=$(find_python) || die "schedlab needs Python 3.11 or newer. Install it with:
    sudo apt-get install python3 python3-venv"
        ensure_venv_module "$python"
        say "creating .venv with $python ($("$python" --version 2>&1))"
        "$python" -m venv "$VENV" || { rm -rf "$VENV"; die "python -m venv failed"; }
        "$PY" -m pip install --quiet --upgrade pip >&2 || say "could not upgrade pip; going on with the venv's own"
    fi
    hash=$(sha256sum pyproject.toml | cut -d' ' -f1)
    if [ "$(cat "$STAMP" 2>/dev/null)" != "$hash" ]; then
        say "installing schedlab and its dependencies into .venv (pyproject.toml changed or first run)"
        "$PY" -m pip install --quiet -e '.[dev]' >&2 || die "pip install -e '.[dev]' failed"
        echo "$hash" >"$STAMP"
    fi
}

# The model compiled with mypyc runs the same code several times faster (the README's Speed section).
# Built on first use and again after any change under model/ (model/__init__.py checks a stamp of the
# sources); SCHEDLAB_PURE=1 skips it. Without a C compiler or Python's headers the model runs from its
# Python sources: correct, slower, and said so.
ensure_native() {
    local packages
    case ${SCHEDLAB_PURE:-0} in "" | 0) ;; *) return 0 ;; esac
    "$PY" -c 'import model, sys; sys.exit(not model.NATIVE)' && return 0
    packages=$("$PY" -m model.build_native --packages) || packages=""
    # shellcheck disable=SC2086 # a list of package names
    [ -z "$packages" ] || apt_install $packages || true # not root: build_native names them below
    say "compiling the model with mypyc (about a minute on 2 cores; again only after model/ changes)"
    "$PY" -m model.build_native ||
        say "going on with the model's Python sources: the same results, several times slower"
}

# missing_packages PLATFORM: the Debian packages Qt's PLATFORM plugin still lacks (space-separated).
missing_packages() {
    command -v ldd >/dev/null || return 0
    "$PY" -m gui.syslibs "$1"
}

# Test machines: the offscreen platform needs a few shared libraries (OpenGL, fontconfig, xkbcommon,
# dbus); install them as root, else say what to install. Unknown libraries (no '.so' in a package
# name means a known package) cannot be installed by name and are reported as they are.
ensure_offscreen_libs() {
    local missing tried="" packages=() unknown=() item
    # A library found only once its parent is installed shows up on the next pass, hence the loop;
    # it stops when a pass finds nothing new to install.
    while missing=$(missing_packages offscreen) && [ -n "$missing" ]; do
        [ "$missing" = "$tried" ] && die "system packages still missing after installing them: $missing"
        packages=() unknown=()
        for item in $missing; do
            case $item in *.so*) unknown+=("$item") ;; *) packages+=("$item") ;; esac
        done
        [ ${#unknown[@]} -eq 0 ] ||
            die "Qt's offscreen platform needs libraries that no package in gui/syslibs.py provides: ${unknown[*]}"
        apt_install "${packages[@]}" || die "the tests need these system packages for Qt (offscreen):
    sudo apt-get install ${packages[*]}"
        tried=$missing
    done
}

# Before opening a window: a display must exist and Qt's platform plugin must find its libraries,
# else Qt aborts with "could not load the Qt platform plugin" and a core dump.
check_gui_libs() {
    local platform=${QT_QPA_PLATFORM:-} missing
    case $platform in
        "" | xcb* | wayland*) ;;
        *) return 0 ;; # offscreen, minimal, vnc, eglfs...: the user chose; nothing to check
    esac
    if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
        die "no display found (neither DISPLAY nor WAYLAND_DISPLAY is set), so the GUI cannot open a window.
  For a virtual screen:         xvfb-run ./run.sh${*:+ $*}
  Headless, no window at all:   QT_QPA_PLATFORM=offscreen ./run.sh${*:+ $*}
  The command line works without a display:  ./run.sh list, ./run.sh run SCENARIO --json"
    fi
    case $platform in
        wayland*) missing=$(missing_packages wayland) ;;
        xcb*) missing=$(missing_packages xcb) ;;
        *) if [ -n "${DISPLAY:-}" ]; then missing=$(missing_packages xcb); else missing=$(missing_packages wayland); fi ;;
    esac
    if [ -n "$missing" ]; then
        printf 'schedlab needs these system packages for its window: sudo apt-get install %s\n' "$missing" >&2
        exit 1
    fi
}

# count WORD LINE: the number before WORD in pytest's summary line ("3 passed, 1 skipped in 2s"), or 0.
count() {
    local n
    n=$(grep -oE "[0-9]+ $1" <<<"$2" | head -n 1 | cut -d' ' -f1) || true
    echo "${n:-0}"
}

run_tests() {
    local steps=("ruff check ." "ruff format --check ." "mypy" "lint-imports") step rc log last
    export QT_QPA_PLATFORM=offscreen
    # In CI the compiled model is part of what is tested: a build that fell back to Python must fail.
    case ${SCHEDLAB_PURE:-0} in "" | 0) [ -z "${CI:-}" ] || export SCHEDLAB_EXPECT_NATIVE=1 ;; esac
    ensure_offscreen_libs
    for step in "${steps[@]}"; do
        say "--- $step"
        # shellcheck disable=SC2086 # each step is a command line to split
        "$VENV"/bin/$step || die "FAILED at '$step' (exit $?); later steps not run"
    done
    say "--- pytest"
    log=$(mktemp)
    # shellcheck disable=SC2064 # expand $log now: it is local
    trap "rm -f '$log'" EXIT
    rc=0
    "$VENV"/bin/pytest "$@" 2>&1 | tee "$log" || rc=$?
    last=$(grep -v '^[[:space:]]*$' "$log" | tail -n 1)
    case $rc in
        0) ;;
        5) die "FAILED: pytest collected no tests (exit 5): a test suite that runs nothing is a failure" ;;
        *) die "FAILED at 'pytest' (exit $rc)" ;;
    esac
    say "all checks passed: ruff check, ruff format --check, mypy, lint-imports, pytest"
    # The closing line, in the plain "N passed, N failed" form, with pytest's counts.
    printf 'schedlab: %s passed, %s failed%s\n' "$(count passed "$last")" "$(count failed "$last")" \
        "$(n=$(count skipped "$last") && [ "$n" != 0 ] && echo ", $n skipped")"
}

main() {
    local command=${1:-}
    ensure_venv
    ensure_native
    case $command in
        test)
            shift
            run_tests "$@"
            ;;
        bench)
            shift
            exec "$VENV/bin/schedlab" bench "$@"
            ;;
        "" | gui)
            case " $* " in *" -h "* | *" --help "*) ;; *) check_gui_libs "$@" ;; esac
            exec "$VENV/bin/schedlab" "$@"
            ;;
        *)
            exec "$VENV/bin/schedlab" "$@"
            ;;
    esac
}

main "$@"

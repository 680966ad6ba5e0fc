#!/usr/bin/env bash
# schedlab's one entry point on a Debian/Ubuntu machine.
#
#   ./run.sh [ARGS...]   the app (no args: the GUI; `./run.sh run cfs-yield --json` passes args through)
#   ./run.sh test        ruff check, ruff format --check, mypy, lint-imports, pytest (Qt offscreen)
#   ./run.sh bench       the benchmarks (schedlab bench: simulated s per wall s, packets per wall s)
#
# On first use it creates .venv and installs schedlab editable with its dev tools (gui/ and test edits
# need nothing more); it reinstalls only when pyproject.toml or setup.py changed (stamp:
# .venv/.schedlab-installed). Then, before every command, it makes sure the compiled model is current
# (ensure_native): it compiles the model in place with mypyc after any change under model/, and with
# SCHEDLAB_PURE=1 runs the Python sources. System packages: as root it installs the ones the compile
# needs, and for the test command the few that Qt's offscreen platform needs (CI); otherwise it prints
# the apt-get line; the GUI only checks and prints the apt-get line. It never prompts.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")"
ROOT=$PWD
VENV=$ROOT/.venv
PY=$VENV/bin/python
STAMP=$VENV/.schedlab-installed
NATIVE_STASH=$VENV/native-stash # where SCHEDLAB_PURE=1 puts the compiled modules aside
NATIVE_LOG=$ROOT/build/native.log
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
    hash=$(cat pyproject.toml setup.py | sha256sum | cut -d' ' -f1)
    if [ "$(cat "$STAMP" 2>/dev/null)" != "$hash" ]; then
        say "installing schedlab and its dependencies into .venv (pyproject.toml or setup.py changed, or first run)"
        # Editable and pure: the compiled model is built in place by ensure_native, not by pip. setuptools
        # maps resources/ to schedlab_resources with an import finder, and says so in a notice (silenced).
        SCHEDLAB_COMPILE="" PYTHONWARNINGS="ignore:Editable installation" \
            "$PY" -m pip install --quiet -e '.[dev]' >&2 || die "pip install -e '.[dev]' failed"
        echo "$hash" >"$STAMP"
    fi
}

# ---- the compiled model ------------------------------------------------------------------------
# mypyc compiles the same sources into C extension modules, several times faster (the README's Speed
# section). They are built in place, beside the sources (model/**/*.so, ignored by git), by setup.py's
# build (SCHEDLAB_COMPILE=1), and Python loads a compiled module instead of the .py beside it. So
# that no command ever runs stale compiled code, ensure_native checks make-style before every command:
# the compiled model is current when the group's shared library exists, every compiled module's
# extension exists, and no source under model/ is newer than the library; compiled modules whose
# source is gone, or built for another Python, are removed. Otherwise it rebuilds first.

# The modules setup.py compiles (compiled_sources there; a test holds the two lists equal): every
# model module except package __init__ files and the command line, model/cli/.
compiled_sources() {
    find model -name '*.py' ! -name '__init__.py' ! -path 'model/cli/*' | LC_ALL=C sort
}

ext_suffix() { "$PY" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))'; }

native_group() { echo "model/_native__mypyc$1"; } # setup.py's NATIVE_GROUP, with EXT_SUFFIX $1

# remove_orphans EXT: delete compiled modules whose source is gone or that another Python built.
remove_orphans() {
    local ext=$1 group so
    group=$(native_group "$ext")
    declare -A compiled=()
    while IFS= read -r so; do compiled[${so%.py}$ext]=1; done < <(compiled_sources)
    while IFS= read -r so; do
        [ "$so" = "$group" ] || [ -n "${compiled[$so]:-}" ] && continue
        say "removing $so (its source is gone, or another Python built it)"
        rm -f "$so"
    done < <(find model -name '*.so')
}

# native_state EXT: "current", or why the compiled model must be built (one phrase).
native_state() {
    local ext=$1 group py newer
    group=$(native_group "$ext")
    [ -e "$group" ] || { echo "not compiled yet"; return 0; }
    while IFS= read -r py; do
        [ -e "${py%.py}$ext" ] || { echo "$py is not compiled"; return 0; }
    done < <(compiled_sources)
    newer=$(find model -name '*.py' ! -path 'model/cli/*' -newer "$group" | LC_ALL=C sort | head -n 1)
    [ -z "$newer" ] || { echo "$newer changed"; return 0; }
    echo current
}

remove_native() { find model -name '*.so' -delete; }

# SCHEDLAB_PURE=1 moves the compiled modules aside, keeping their paths and times, so that Python finds
# only the sources; the next run without it moves them back (and rebuilds if a source changed since).
stash_native() {
    local so
    while IFS= read -r so; do
        mkdir -p "$NATIVE_STASH/$(dirname "$so")"
        mv -f "$so" "$NATIVE_STASH/$so"
    done < <(find model -name '*.so')
}

unstash_native() {
    local so
    [ -d "$NATIVE_STASH" ] || return 0
    while IFS= read -r so; do
        [ -e "$so" ] || mv "$NATIVE_STASH/$so" "$so"
    done < <(cd "$NATIVE_STASH" && find model -name '*.so' 2>/dev/null)
    rm -rf "$NATIVE_STASH"
}

# What the C toolchain lacks here, one line each: what is missing, a tab, the Debian packages.
toolchain_gaps() {
    local cc include version
    {
        read -r cc
        read -r include
        read -r version
    } < <("$PY" -c 'import sys, sysconfig
print((sysconfig.get_config_var("CC") or "cc").split()[0])
print(sysconfig.get_paths()["include"])
print("%d.%d" % sys.version_info[:2])')
    command -v "$cc" >/dev/null || printf 'no C compiler (%s)\tgcc libc6-dev\n' "$cc"
    [ -f "$include/Python.h" ] || printf 'no Python headers (%s)\tpython%s-dev\n' "$include/Python.h" "$version"
}

pure_requested() { case ${SCHEDLAB_PURE:-0} in "" | 0) return 1 ;; *) return 0 ;; esac; }

ensure_native() {
    local ext state gaps group start
    if pure_requested; then
        [ -z "$(find model -name '*.so' -print -quit)" ] ||
            say "SCHEDLAB_PURE=1: the compiled modules wait in ${NATIVE_STASH#"$ROOT"/} until a run without it"
        stash_native
        return 0
    fi
    ext=$(ext_suffix)
    unstash_native
    remove_orphans "$ext"
    state=$(native_state "$ext")
    [ "$state" = current ] && return 0
    gaps=$(toolchain_gaps)
    # shellcheck disable=SC2046 # a list of package names
    [ -z "$gaps" ] || apt_install $(cut -f2 <<<"$gaps") || true # not root: the line below names them
    gaps=$(toolchain_gaps)
    if [ -n "$gaps" ]; then
        remove_native # never stale compiled code: the sources, then
        say "$(cut -f1 <<<"$gaps" | paste -sd';' | sed 's/;/; /g'): the model runs from its Python sources" \
            "(same results, several times slower); to compile it: sudo apt-get install" \
            "$(cut -f2 <<<"$gaps" | paste -sd' ')"
        return 0
    fi
    say "compiling the model with mypyc ($state; a minute or two on 2 cores; again only after model/ changes)"
    group=$(native_group "$ext")
    start=$(date +%s.%N) # to the nanosecond: an edit just before the build is not one during it
    mkdir -p "$(dirname "$NATIVE_LOG")"
    if SCHEDLAB_COMPILE=1 "$PY" setup.py build_ext --inplace >"$NATIVE_LOG" 2>&1 && [ -e "$group" ]; then
        # The library stands for the sources as they were when the build started: a source saved
        # while it ran counts as newer. (setuptools may also have kept the library as it was, when the
        # C code came out the same, e.g. after an edit of a comment.)
        touch -d "@$start" "$group"
        say "compiled $(compiled_sources | wc -l) model modules"
    else
        remove_native
        grep -E 'error:|Error' "$NATIVE_LOG" | head -n 5 >&2 || true
        say "compiling the model failed (log: ${NATIVE_LOG#"$ROOT"/}); going on with its Python sources:" \
            "the same results, several times slower"
    fi
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
            # Byte-compile the sources beside the window, not before it: with PYTHONDONTWRITEBYTECODE
            # set (common in containers) Python would otherwise compile ~50 modules at every launch.
            ("$PY" -m compileall -q gui model >/dev/null 2>&1 &)
            exec "$VENV/bin/schedlab" "$@"
            ;;
        *)
            exec "$VENV/bin/schedlab" "$@"
            ;;
    esac
}

# Sourced (by the tests of the compiled-model check), it only defines the functions.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    main "$@"
fi

#!/usr/bin/env bash
# Install simpler (the PTO2 runtime, a2a3sim platform only) with its pinned pto-isa for the
# `python` first on PATH, so that pypto.runtime can run generated kernels on the CPU simulator.
#
#   scripts/install-simulator.sh SIMPLER_DIR PTO_ISA_BUNDLE
#
# SIMPLER_DIR     a simpler source tree (pyproject.toml, pto_isa.pin, simpler_setup/, src/)
# PTO_ISA_BUNDLE  a git bundle (or repository) of pto-isa holding the commit in pto_isa.pin
#
# Everything goes to $PYPTO_SIMULATOR_HOME (default: <python prefix>/share/pypto-simulator):
#   simpler/  a writable copy of SIMPLER_DIR, pip-installed editable, with build/pto-isa at the pin
#   bin/      g++-15 (runs clang++-19: pto-isa's CPU headers reject GCC 12), gcc and g++, each
#             admitting at most two compilers at a time machine-wide (flock on two slot files)
#   stamp     what was installed; a re-run with the same inputs only checks and exits
# pypto.runtime finds bin/ beside the installed simpler and puts it on its children's PATH.
set -euo pipefail

say() { printf 'install-simulator: %s\n' "$*"; }
die() { printf 'install-simulator: error: %s\n' "$1" >&2; [ -z "${2:-}" ] || printf '  hint: %s\n' "$2" >&2; exit 1; }

[ $# -eq 2 ] || die "expected two arguments, got $#" "usage: $0 SIMPLER_DIR PTO_ISA_BUNDLE"
[ -d "$1" ] || die "SIMPLER_DIR '$1' is not a directory" "pass the simpler source tree"
SIMPLER_SRC=$(cd "$1" && pwd)
for f in pyproject.toml pto_isa.pin simpler_setup/kernel_compiler.py python/simpler/worker.py src/a2a3; do
    [ -e "$SIMPLER_SRC/$f" ] || die "'$SIMPLER_SRC' is not a simpler source tree (no $f)" \
        "pass the root of the Ascend PTO project simpler"
done
[ -e "$2" ] || die "PTO_ISA_BUNDLE '$2' does not exist" "pass a git bundle or clone of the Ascend PTO project pto-isa"
BUNDLE=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
PIN=$(tr -d '[:space:]' <"$SIMPLER_SRC/pto_isa.pin")
[[ "$PIN" =~ ^[0-9a-f]{40}$ ]] || die "$SIMPLER_SRC/pto_isa.pin does not hold a commit hash" "restore it from simpler's sources"

command -v python >/dev/null || die "no 'python' on PATH" "activate the virtual environment to install into"
PYTHON=$(python -c 'import sys; print(sys.executable)')
python -c 'import sys; sys.exit(sys.version_info < (3, 9))' || die "$PYTHON is older than Python 3.9" "simpler needs Python >= 3.9"
python -m pip --version >/dev/null 2>&1 || die "$PYTHON has no pip" "python -m ensurepip, or use a virtual environment"
PREFIX=$(python -c 'import sys; print(sys.prefix)')
if [ -e "$(python -c 'import sysconfig; print(sysconfig.get_path("stdlib"))')/EXTERNALLY-MANAGED" ] &&
    [ "$PREFIX" = "$(python -c 'import sys; print(sys.base_prefix)')" ]; then
    die "$PYTHON is an externally managed system Python" "create and activate a virtual environment first"
fi
HOME_DIR=${PYPTO_SIMULATOR_HOME:-$PREFIX/share/pypto-simulator}
COPY=$HOME_DIR/simpler
BIN=$HOME_DIR/bin
STAMP=$HOME_DIR/stamp

# The stamp names the inputs by content: the trimmed simpler tree carries no git metadata.
if git -C "$SIMPLER_SRC" rev-parse HEAD >/dev/null 2>&1; then
    SIMPLER_ID="commit $(git -C "$SIMPLER_SRC" rev-parse HEAD)"
else
    SIMPLER_ID="tree $(cd "$SIMPLER_SRC" && find . -path ./build -prune -o -type f -print0 | LC_ALL=C sort -z |
        xargs -0 sha256sum | sha256sum | cut -c1-40)"
fi
WANT=$(printf 'simpler %s\npto-isa %s\npython %s\n' "$SIMPLER_ID" "$PIN" "$PYTHON")

installed() {
    [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$WANT" ] && [ -x "$BIN/g++-15" ] &&
        command -v clang++-19 >/dev/null &&
        [ "$(git -C "$COPY/build/pto-isa" rev-parse HEAD 2>/dev/null)" = "$PIN" ] &&
        python -c 'import simpler.worker, simpler_setup.kernel_compiler' >/dev/null 2>&1
}
# The precompiled headers and runtime objects every first build would make (docs/simulator.md#pch);
# a failure here costs build time later, not correctness, so it only warns.
prebuild() {
    say "prebuilding precompiled headers and runtime objects"
    python -m pypto.runtime.prebuild || say "warning: prebuilding failed; the first run builds them instead"
}
if installed; then
    say "already installed for $PYTHON ($SIMPLER_ID, pto-isa $PIN) in $HOME_DIR"
    [ -d "$HOME_DIR/prebuilt/pch" ] || prebuild
    exit 0
fi

# System tools: clang-19 compiles the kernels, g++ the runtime and orchestration.
need=()
command -v clang++-19 >/dev/null || need+=(clang-19)
command -v g++ >/dev/null || need+=(g++)
command -v git >/dev/null || need+=(git)
command -v flock >/dev/null || need+=(util-linux)
if [ ${#need[@]} -gt 0 ]; then
    command -v apt-get >/dev/null || die "missing ${need[*]} and no apt-get to install them" \
        "install the Debian/Ubuntu packages ${need[*]} (clang-19 provides clang++-19) by hand"
    [ "$(id -u)" = 0 ] || die "missing ${need[*]}; installing them needs root" "sudo apt-get install -y ${need[*]}"
    say "apt-get install ${need[*]}"
    apt-get update -qq >/dev/null 2>&1 || die "apt-get update failed" "no network to the package archive? install ${need[*]} offline"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null ||
        die "apt-get install ${need[*]} failed" "clang-19 is in Debian 12 and Ubuntu 24.04; elsewhere use apt.llvm.org"
fi
git bundle list-heads "$BUNDLE" >/dev/null 2>&1 || git -C "$BUNDLE" rev-parse --git-dir >/dev/null 2>&1 ||
    die "'$BUNDLE' is neither a git bundle nor a git repository" "pass pto-isa's bundle or clone"

# Check the pin is in the bundle before anything installed is touched.
mkdir -p "$HOME_DIR"
staging=$(mktemp -d "$HOME_DIR/.staging.XXXXXX")
trap 'rm -rf "$staging"' EXIT
say "checking out pto-isa $PIN"
git clone -q --no-checkout "$BUNDLE" "$staging/pto-isa"
git -C "$staging/pto-isa" checkout -q --detach --force "$PIN" 2>/dev/null ||
    die "pto-isa commit $PIN (simpler's pin) is not in $BUNDLE" "pass a pto-isa bundle or clone that contains it"

say "copying simpler to $COPY"
cp -R "$SIMPLER_SRC" "$staging/simpler"
rm -rf "$staging/simpler/build"
chmod -R u+w "$staging/simpler"
# simpler only accepts a clean checkout at exactly the pin in build/pto-isa (else it re-clones).
mkdir -p "$staging/simpler/build"
mv "$staging/pto-isa" "$staging/simpler/build/pto-isa"
rm -f "$STAMP"
rm -rf "$COPY"
mv "$staging/simpler" "$COPY"
mkdir -p "$BIN"

# Two slot files shared by every user of /tmp: the whole machine runs at most two compilers.
real_of() { PATH=$(printf '%s' "$PATH" | tr ':' '\n' | grep -vxF "$BIN" | paste -sd:) command -v "$1"; }
wrap() { # wrap NAME REAL
    cat >"$BIN/$1" <<EOF
#!/usr/bin/env bash
# Generated by pypto's scripts/install-simulator.sh: run $2, at most two compilers at a time.
slots=\${PYPTO_COMPILE_SLOTS:-/tmp/pypto-compile-slots}
mkdir -p "\$slots" 2>/dev/null || true
for i in 0 1; do
    exec {fd}>>"\$slots/\$i"
    flock -n "\$fd" && exec $2 "\$@"
    exec {fd}>&-
done
exec {fd}>>"\$slots/\$((RANDOM % 2))"
flock "\$fd"
exec $2 "\$@"
EOF
    chmod +x "$BIN/$1"
}
wrap g++-15 "$(real_of clang++-19)"
wrap gcc "$(real_of gcc)"
wrap g++ "$(real_of g++)"

say "installing simpler's build requirements into $PYTHON"
python -m pip install -q 'scikit-build-core>=0.10' 'nanobind>=2.0' 'cmake>=3.15' ninja 'PyYAML>=6.0' \
    'cloudpickle>=2.2' numpy || die "pip could not install simpler's build requirements" "check access to PyPI"

log=$HOME_DIR/build.log
say "building simpler for a2a3sim (several minutes; log: $log)"
PATH="$BIN:$PATH" CC="$BIN/gcc" CXX="$BIN/g++" CMAKE_BUILD_PARALLEL_LEVEL=2 \
    python -m pip install -v --no-build-isolation --config-settings=build.targets=build_package_a2a3sim \
    -e "$COPY" >"$log" 2>&1 &
build=$!
# A line every 30 s: elapsed time and the build's last "[n/m]" step from the log.
start=$SECONDS
next=30
while kill -0 "$build" 2>/dev/null; do
    sleep 1
    if [ $((SECONDS - start)) -ge "$next" ]; then
        step=$(grep -oE '\[[0-9]+/[0-9]+\]' "$log" 2>/dev/null | tail -n 1 || true)
        say "  building simpler: $((SECONDS - start)) s${step:+, step $step}"
        next=$((next + 30))
    fi
done
if ! wait "$build"; then
    tail -n 30 "$log" >&2
    die "building simpler failed (full log: $log)" "the lines above show the failing step"
fi
python -c 'import simpler.worker, simpler_setup.kernel_compiler' || die "simpler installed but does not import"
printf '%s\n' "$WANT" >"$STAMP"
rm -rf "$HOME_DIR/prebuilt"
prebuild
say "installed simpler for $PYTHON in $HOME_DIR"

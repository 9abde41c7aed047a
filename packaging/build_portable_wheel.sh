#!/usr/bin/env bash
# Build (once) a llama-cpp-python wheel that runs on any x86-64 CPU, and print its path.
#
# Why: a default pip install compiles llama.cpp with -march=native, which dies with SIGILL on an
# older CPU. Here ggml is built with GGML_NATIVE=OFF and each CPU variant (x64, sse42, sandybridge
# ... sapphirerapids) as a separate backend library; at run time ggml scores them against the CPU
# and loads the best one (the bundle: packaging/hooks/pyi_rth_ggml_backends.py; the developer venv:
# app/llm/cpu_backends.py). The variant libraries are installed by CMake to <site-packages>/bin/.
#
# BURROW_CPU_VARIANTS picks the variants:
#   all (default)  every x86-64 variant ggml knows: the release build (`make package`)
#   test           x64 haswell icelake: what `make setup` installs into .venv and the packaging
#                  tests bundle (one compile serves both; x64, the oldest CPU's code, keeps the
#                  lower-variant test meaningful; icelake runs AVX-512 machines, Intel Ice Lake and
#                  later and AMD Zen 4 and later, at twice haswell's prompt speed)
#   "a b c"        any other list of ggml's x86 variant names
# Each variant is one more compile of ggml's CPU code (~40 s on 2 cores; llama itself ~2.5 min),
# so `test` builds in about a third of the time of `all`. The cache key covers the version, the CMake flags and the variant set.
#
# The compile takes minutes, so the wheel is cached outside the repo (BURROW_BUILD_CACHE, default
# ~/.cache/burrow-build): later setups, CI reruns and other clones on the machine skip it.
set -euo pipefail
shopt -s inherit_errexit  # a failed patch inside $(prepare_source) stops the script

VERSION="${LLAMA_CPP_VERSION:-0.3.36}"
# LLAVA/MTMD off: Burrow has no image input, and mtmd is a third of the compile.
FLAGS="-DGGML_NATIVE=OFF -DGGML_BACKEND_DL=ON -DGGML_CPU_ALL_VARIANTS=ON -DLLAVA_BUILD=OFF -DLLAMA_BUILD_MTMD=OFF"
ALL_VARIANTS="x64 sse42 sandybridge ivybridge piledriver haswell skylakex cannonlake cascadelake icelake cooperlake zen4 alderlake sapphirerapids"
TEST_VARIANTS="x64 haswell icelake"
case "${BURROW_CPU_VARIANTS:-all}" in
    all) VARIANTS="$ALL_VARIANTS" ;;
    test) VARIANTS="$TEST_VARIANTS" ;;
    *) VARIANTS="$BURROW_CPU_VARIANTS" ;;
esac
for v in $VARIANTS; do
    [[ " $ALL_VARIANTS " == *" $v "* ]] || { echo "unknown CPU variant '$v' (known: $ALL_VARIANTS)" >&2; exit 2; }
done
# PATCHES names what patch_source changes; bump it when that changes, so old wheels are not reused.
PATCHES="common-off"
CACHE_ROOT="${BURROW_BUILD_CACHE:-$HOME/.cache/burrow-build}"
KEY="$VERSION-$(printf '%s\n%s\n%s' "$FLAGS" "$VARIANTS" "$PATCHES" | sha256sum | cut -c1-12)"
WHEEL_DIR="$CACHE_ROOT/wheels/$KEY"
PY="${PYTHON:-python3}"

# The sdist, patched for this key: only the wanted variants, and without llama.cpp's "common"
# library (llama-cpp-python forces it ON, but only mtmd uses it and the wheel does not ship it).
patch_source() {
    local src=$1 cpu_cmake="$1/vendor/llama.cpp/ggml/src/CMakeLists.txt" v kept
    sed -i 's/set(LLAMA_BUILD_COMMON ON CACHE BOOL/set(LLAMA_BUILD_COMMON OFF CACHE BOOL/' "$src/CMakeLists.txt"
    grep -q 'set(LLAMA_BUILD_COMMON OFF CACHE BOOL "Build llama.cpp common library" FORCE)' "$src/CMakeLists.txt"
    for v in $ALL_VARIANTS; do
        [[ " $VARIANTS " == *" $v "* ]] || sed -i -E "/^\s*ggml_add_cpu_backend_variant\($v[ )]/d" "$cpu_cmake"
    done
    kept=$(grep -cE "^\s*ggml_add_cpu_backend_variant\(($(echo "$ALL_VARIANTS" | tr ' ' '|'))[ )]" "$cpu_cmake")
    if [[ $kept != "$(wc -w <<< "$VARIANTS")" ]]; then
        echo "patching $cpu_cmake left $kept variants, wanted: $VARIANTS" >&2
        exit 1
    fi
}

prepare_source() {  # prints the patched source folder, unpacking the sdist once per key
    local sdist="$CACHE_ROOT/src/llama_cpp_python-$VERSION.tar.gz" src="$CACHE_ROOT/src/$KEY"
    if [[ ! -f "$sdist" ]]; then  # reuse a downloaded sdist (offline rebuilds); else pip fetches it
        "$PY" -m pip download -q --no-deps --no-binary :all: -d "$CACHE_ROOT/src" "llama-cpp-python==$VERSION" >&2
    fi
    if [[ ! -f "$src/.patched" ]]; then
        rm -rf "$src" && mkdir -p "$src"
        tar -xzf "$sdist" -C "$src" --strip-components=1
        patch_source "$src"
        touch "$src/.patched"
    fi
    echo "$src"
}

check_wheel() {  # the wheel holds exactly the wanted CPU variants
    local got want
    got=$("$PY" -c 'import sys, zipfile; print(" ".join(sorted(n.rsplit("libggml-cpu-", 1)[1][:-3] for n in zipfile.ZipFile(sys.argv[1]).namelist() if "libggml-cpu-" in n)))' "$1")
    want=$(tr ' ' '\n' <<< "$VARIANTS" | sort | xargs)
    [[ "$got" == "$want" ]] || { echo "wheel $1 has CPU variants '$got', wanted '$want'" >&2; exit 1; }
}

mkdir -p "$WHEEL_DIR" "$CACHE_ROOT/src" "$CACHE_ROOT/build/$KEY"
# One compile at a time per machine: a second caller (a test, make package) waits for the first.
exec 9> "$WHEEL_DIR/.lock"
flock 9
existing=$(ls "$WHEEL_DIR"/llama_cpp_python-*.whl 2>/dev/null | head -1 || true)
if [[ -n "$existing" ]]; then
    echo "$existing"
    exit 0
fi

echo "compiling llama-cpp-python $VERSION, CPU variants: $VARIANTS (cached in $WHEEL_DIR)" >&2
start=$(date +%s)
src=$(prepare_source)
tmp=$(mktemp -d)
# A persistent CMake build folder: a compile that was interrupted resumes where it stopped.
# BUILD_NICE=10 yields the CPU to other work (a background compile); the default does not, because
# `make setup` waits for this compile and at nice 10 it got under half a core on a busy machine.
CMAKE_ARGS="$FLAGS" CMAKE_BUILD_PARALLEL_LEVEL="${JOBS:-$(nproc)}" \
    nice -n "${BUILD_NICE:-0}" "$PY" -m pip wheel -q --no-deps -w "$tmp" \
        --config-settings=build-dir="$CACHE_ROOT/build/$KEY" "$src" >&2
check_wheel "$tmp"/llama_cpp_python-*.whl
mv "$tmp"/llama_cpp_python-*.whl "$WHEEL_DIR"/
rmdir "$tmp"
echo "portable wheel compiled in $(( $(date +%s) - start )) s" >&2
ls "$WHEEL_DIR"/llama_cpp_python-*.whl | head -1

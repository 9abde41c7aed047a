#!/usr/bin/env bash
# Build (once) a llama-cpp-python wheel that runs on any x86-64 CPU, and print its path.
#
# Why: the developer venv compiles llama.cpp with -march=native, which dies with SIGILL on an older
# CPU. Here ggml is built with GGML_NATIVE=OFF and every CPU variant (x64, sse42, sandybridge ...
# sapphirerapids) as a separate backend library; at run time ggml scores them against the CPU and
# loads the best one (see packaging/hooks/pyi_rth_ggml_backends.py).
#
# The compile takes 10+ minutes on 2 cores, so the wheel is cached outside the repo, keyed by
# version and flags: CI and reruns on the same machine skip it. The variant libraries are installed
# by CMake to <site-packages>/bin/, which pip also puts into the wheel (as data under .data/).
set -euo pipefail

VERSION="${LLAMA_CPP_VERSION:-0.3.36}"
# LLAVA/MTMD off: Burrow has no image input, and mtmd is a third of the compile.
FLAGS="-DGGML_NATIVE=OFF -DGGML_BACKEND_DL=ON -DGGML_CPU_ALL_VARIANTS=ON -DLLAVA_BUILD=OFF -DLLAMA_BUILD_MTMD=OFF"
CACHE_ROOT="${BURROW_BUILD_CACHE:-$HOME/.cache/burrow-build}"
KEY="$VERSION-$(printf '%s' "$FLAGS" | sha256sum | cut -c1-12)"
WHEEL_DIR="$CACHE_ROOT/wheels/$KEY"
PY="${PYTHON:-python3}"

mkdir -p "$WHEEL_DIR"
# One compile at a time per machine: a second caller (a test, make package) waits for the first.
exec 9> "$WHEEL_DIR/.lock"
flock 9
existing=$(ls "$WHEEL_DIR"/llama_cpp_python-*.whl 2>/dev/null | head -1 || true)
if [[ -n "$existing" ]]; then
    echo "$existing"
    exit 0
fi

# A persistent CMake build folder: a compile that was interrupted resumes where it stopped.
mkdir -p "$WHEEL_DIR" "$CACHE_ROOT/src" "$CACHE_ROOT/build/$KEY"
# Reuse a downloaded sdist when there is one (offline rebuilds); otherwise pip fetches it.
sdist="$CACHE_ROOT/src/llama_cpp_python-$VERSION.tar.gz"
if [[ ! -f "$sdist" ]]; then
    "$PY" -m pip download --no-deps --no-binary :all: -d "$CACHE_ROOT/src" "llama-cpp-python==$VERSION" >&2
fi

start=$(date +%s)
tmp=$(mktemp -d)
CMAKE_ARGS="$FLAGS" CMAKE_BUILD_PARALLEL_LEVEL="${JOBS:-$(nproc)}" \
    nice -n 10 "$PY" -m pip wheel --no-deps -w "$tmp" \
        --config-settings=build-dir="$CACHE_ROOT/build/$KEY" "$sdist" >&2
mv "$tmp"/llama_cpp_python-*.whl "$WHEEL_DIR"/
rmdir "$tmp"
echo "portable wheel compiled in $(( $(date +%s) - start )) s" >&2
ls "$WHEEL_DIR"/llama_cpp_python-*.whl | head -1

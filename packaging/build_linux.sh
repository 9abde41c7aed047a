#!/usr/bin/env bash
# One command for every Linux artifact (run from anywhere; `make package` calls it):
#   packaging/dist/burrow-assistant_<ver>_amd64.deb    the app, under /opt/burrow, `burrow` on PATH
#     (not "burrow": Debian already has a package of that name, LinkedIn's Kafka lag checker)
#   packaging/dist/burrow-<ver>-linux-x86_64.tar.xz    the same bundle as a tarball
#   packaging/dist/burrow-model_<ver>_all.deb  the default model, /opt/burrow-model/
#   packaging/dist/burrow-model-<ver>.tar.xz   the same model as a tarball
# `--bundle-only` stops after PyInstaller (what the smoke test needs); `--no-tar` skips the tarballs;
# `--package-only` packs the bundle already in packaging/build/pyi-dist without rebuilding it.
# Build times go to packaging/dist/build-times.txt.
# Environment: BURROW_CPU_VARIANTS (all, the default | test | a list; see build_portable_wheel.sh)
# picks the llama.cpp CPU variants bundled; release installers use all. DEB_COMPRESSION=none packs
# the .debs uncompressed (the packaging tests read them back; xz is most of their build time).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(dirname "$HERE")"
BUILD="$HERE/build"
DIST="$HERE/dist"
VENV="$BUILD/venv"
BUNDLE="$BUILD/pyi-dist/burrow"
MODEL_FILE=$(python3 -c "import json;c=json.load(open('$ROOT/models/catalog.json'));print(next(m['file'] for m in c['models'] if m['id']==c['default']))")
MODEL_NAME=$(python3 -c "import json;c=json.load(open('$ROOT/models/catalog.json'));print(next(m['name'] for m in c['models'] if m['id']==c['default']))")
MODE="${1:-all}"   # all | --bundle-only | --no-tar | --package-only
case "$MODE" in all|--bundle-only|--no-tar|--package-only) ;; *) echo "usage: $0 [--bundle-only|--no-tar|--package-only]" >&2; exit 2 ;; esac

cd "$ROOT"
mkdir -p "$BUILD" "$DIST"
TIMES="$DIST/build-times.txt"
VERSION=$(python3 -c "import tomllib;print(tomllib.load(open('pyproject.toml','rb'))['project']['version'])")

timed() {  # timed <label> <command...>: run it and append "label: N s" to build-times.txt
    local label=$1 start=$SECONDS
    shift
    "$@"
    echo "$label: $((SECONDS - start)) s" | tee -a "$TIMES" >&2
}

# --- 1. the build venv: the app's dependencies, PyInstaller, and the portable llama-cpp-python
# It is separate from the developer's .venv (which may hold a native llama-cpp-python on other
# machines, or a different CPU variant set, and carries the dev tools).
setup_venv() {
    [[ -x "$VENV/bin/python" ]] || python3 -m venv "$VENV"
    local deps stamp
    WHEEL=$(PYTHON="$VENV/bin/python" bash "$HERE/build_portable_wheel.sh")
    deps=$("$VENV/bin/python" - <<'EOF'
import tomllib
p = tomllib.load(open("pyproject.toml", "rb"))["project"]
print("\n".join(d for d in p["dependencies"] + p["optional-dependencies"]["package"] if not d.startswith("llama-cpp-python")))
EOF
)
    stamp="$VENV/.burrow-$(printf '%s\n%s' "$deps" "$WHEEL" | sha256sum | cut -c1-12)"
    [[ -f "$stamp" ]] && return 0
    "$VENV/bin/python" -m pip install -q --upgrade pip >&2
    # shellcheck disable=SC2086
    "$VENV/bin/python" -m pip install -q $deps "$WHEEL" >&2
    # An installed llama-cpp-python of the same version counts as satisfied: replace it by this build.
    "$VENV/bin/python" -m pip install -q --force-reinstall --no-deps "$WHEEL" >&2
    rm -f "$VENV"/.burrow-*
    touch "$stamp"
}

# --- 2. PyInstaller (onedir)
# bundle.hash: the source hash (what the packaging tests compare), then the wheel's cache key, so a
# bundle frozen with another CPU variant set (the tests' reduced one) is never shipped as a release.
freeze() {
    local want
    want="$("$VENV/bin/python" "$HERE/source_hash.py") $(basename "$(dirname "$WHEEL")")"
    if [[ -z "${FORCE:-}" && -x "$BUNDLE/burrow" && "$(cat "$BUILD/bundle.hash" 2>/dev/null)" == "$want" ]]; then
        echo "bundle is up to date ($want); FORCE=1 rebuilds it" >&2
        return 0
    fi
    "$VENV/bin/python" -m PyInstaller --noconfirm --log-level WARN \
        --distpath "$BUILD/pyi-dist" --workpath "$BUILD/pyi-work" "$HERE/burrow.spec" >&2
    dedupe_libs "$BUNDLE/_internal/llama_cpp/lib"
    echo "$want" > "$BUILD/bundle.hash"
}

# Wheels cannot hold symlinks, so libggml.so, libggml.so.0 and libggml.so.0.x.y arrive as three
# copies. Linking them back saves space and leaves one file per library for the loader.
dedupe_libs() {
    local dir=$1 f real
    for f in "$dir"/*.so "$dir"/*.so.[0-9]; do
        [[ -f "$f" && ! -L "$f" ]] || continue
        for real in "$f".*; do
            [[ -f "$real" && ! -L "$real" ]] && cmp -s "$f" "$real" && ln -sf "$(basename "$real")" "$f" && break
        done
    done
}

# --- 3. packages
glibc_floor() {  # the newest GLIBC_x.y symbol version any bundled binary needs
    find "$BUNDLE" -type f \( -name '*.so*' -o -name burrow \) -print0 |
        xargs -0 objdump -T 2>/dev/null | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -1 | cut -d_ -f2
}

write_control() {  # write_control <root> <package> <arch> <depends> <description...>
    local root=$1 pkg=$2 arch=$3 depends=$4 size
    shift 4
    size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
    mkdir -p "$root/DEBIAN"
    {
        echo "Package: $pkg"
        echo "Version: $VERSION"
        echo "Architecture: $arch"
        echo "Maintainer: Burrow developers <burrow@localhost>"
        echo "Installed-Size: $size"
        [[ -n "$depends" ]] && echo "Depends: $depends"
        [[ "$pkg" == burrow-assistant ]] && echo "Recommends: burrow-model"
        echo "Section: devel"
        echo "Priority: optional"
        printf 'Description: %s\n' "$1"
        shift
        printf ' %s\n' "$@"
    } > "$root/DEBIAN/control"
}

stage_app_deb() {
    local root="$BUILD/deb-app" depends
    rm -rf "$root"
    mkdir -p "$root/opt" "$root/usr/bin" "$root/usr/share/applications" "$root/usr/share/icons/hicolor/256x256/apps"
    cp -a "$BUNDLE" "$root/opt/burrow"
    install -m 755 "$HERE/linux/burrow-launcher.sh" "$root/usr/bin/burrow"
    install -m 644 "$HERE/linux/burrow.desktop" "$root/usr/share/applications/burrow.desktop"
    install -m 644 "$HERE/burrow.png" "$root/usr/share/icons/hicolor/256x256/apps/burrow.png"
    # What Qt's xcb platform plugin dlopens from the system, plus glibc and OpenMP.
    depends="libc6 (>= $(glibc_floor)), libgomp1, libxcb-cursor0, libxkbcommon-x11-0, libxkbcommon0, libxcb-icccm4, libxcb-keysyms1, libxcb-shape0, libxcb-render-util0, libxcb-image0, libxcb-randr0, libxcb-render0, libxcb-shm0, libxcb-sync1, libxcb-xfixes0, libxcb-util1, libxcb-xkb1, libxcb1, libx11-xcb1, libegl1, libgl1, libfontconfig1, libfreetype6, libdbus-1-3"
    write_control "$root" burrow-assistant amd64 "$depends" \
        "Offline assistant that answers questions about a private codebase" \
        "Burrow reads a folder you choose with read-only tools and answers with a local" \
        "GGUF model run in-process. Nothing leaves the machine. Install burrow-model" \
        "for a default model that works with no network."
    dpkg-deb --build --root-owner-group $(compression "${XZ_LEVEL:-6}") "$root" "$DIST/burrow-assistant_${VERSION}_amd64.deb" >&2
}

stage_model_deb() {
    local root="$BUILD/deb-model" gguf
    gguf=$(model_source)
    rm -rf "$root"
    mkdir -p "$root/opt/burrow-model"
    install -m 644 "$gguf" "$root/opt/burrow-model/$MODEL_FILE"
    write_control "$root" burrow-model all "" \
        "Default model for Burrow: $MODEL_NAME (GGUF)" \
        "Installs $MODEL_FILE to /opt/burrow-model, where Burrow finds it on" \
        "first start with no network. Apache-2.0 licensed weights."
    # Quantised weights barely compress; -z1 saves a minute of xz for the same size.
    dpkg-deb --build --root-owner-group $(compression 1) "$root" "$DIST/burrow-model_${VERSION}_all.deb" >&2
}

compression() {  # compression <xz level>: dpkg-deb's flags
    if [[ ${DEB_COMPRESSION:-xz} == none ]]; then echo "-Znone"; else echo "-Zxz -z$1"; fi
}

model_source() {
    local gguf="$ROOT/models/$MODEL_FILE"
    [[ -f "$gguf" ]] || "$ROOT/.venv/bin/python" "$ROOT/scripts/fetch_default_model.py" >&2
    echo "$gguf"
}

tarballs() {
    tar -C "$BUILD/deb-app/opt" -cf - burrow | xz -T0 -6 > "$DIST/burrow-$VERSION-linux-x86_64.tar.xz"
    tar -C "$BUILD/deb-model/opt" -cf - burrow-model | xz -T0 -1 > "$DIST/burrow-model-$VERSION.tar.xz"
}

: > "$TIMES"
if [[ $MODE != --package-only ]]; then
    timed "build venv (portable llama-cpp-python wheel from cache or compiled)" setup_venv
    echo "llama-cpp-python: $WHEEL" | tee -a "$TIMES" >&2
    timed "pyinstaller" freeze
fi
[[ -x "$BUNDLE/burrow" ]] || { echo "no bundle in $BUNDLE" >&2; exit 1; }
echo "bundle: $(du -sh "$BUNDLE" | cut -f1) in $BUNDLE" | tee -a "$TIMES" >&2
[[ $MODE == --bundle-only ]] && exit 0
timed "app .deb" stage_app_deb
timed "model .deb" stage_model_deb
if [[ -f "$BUILD/bundle.hash" ]]; then cp "$BUILD/bundle.hash" "$DIST/debs.hash"; fi
[[ $MODE == --no-tar ]] && exit 0
timed "tar.xz (app + model)" tarballs
ls -l "$DIST" | tee -a "$TIMES" >&2

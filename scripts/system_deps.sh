#!/usr/bin/env bash
# Debian/Ubuntu libraries a real Qt window (xcb) needs, plus Xvfb and dpkg tools for tests and
# packaging. Installs only what is missing, and only when it can (root or sudo, apt-get present).
set -u
pkgs="libxcb-cursor0 libxkbcommon-x11-0 libxcb-icccm4 libxcb-keysyms1 libxcb-shape0 libxcb-render-util0
libxcb-image0 libegl1 libgl1 libfontconfig1 libdbus-1-3 libxkbcommon0 xvfb x11-utils xz-utils fakeroot dpkg-dev"
command -v dpkg-query >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1 || exit 0
missing=""
for p in $pkgs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
# Debian's python3 ships venv separately; a python3 without ensurepip cannot make the .venv.
python3 -c "import ensurepip" 2>/dev/null || missing="$missing python3-venv"
[ -z "$missing" ] && exit 0
SUDO=""
if [ "$(id -u)" != 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "note: missing system packages:$missing (install them with apt-get)" >&2; exit 0; fi
fi
echo "installing system packages:$missing"
$SUDO apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >/dev/null

#!/usr/bin/env bash
# macOS recipe: Burrow.app (PyInstaller BUNDLE, see packaging/burrow.spec), a .dmg, signing and
# notarisation. UNTESTED: written on Linux. Needs Xcode command line tools, CMake, Python 3.11.
# Signing needs a "Developer ID Application" certificate in the keychain and a notarytool profile:
#   xcrun notarytool store-credentials burrow-notary --apple-id ... --team-id ... --password <app-specific>
# Set SIGN_ID="Developer ID Application: Name (TEAMID)" to sign; without it the .app is ad-hoc signed.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(dirname "$(dirname "$HERE")")"
cd "$ROOT"
VERSION=$(python3 -c "import tomllib;print(tomllib.load(open('pyproject.toml','rb'))['project']['version'])")
VENV=packaging/build/venv
python3 -m venv "$VENV"
"$VENV/bin/pip" install -q --upgrade pip pyinstaller pillow
# Apple Silicon: Metal backend, no CPU variants needed (one arm64 target). Intel Macs: the repo's
# CMakeLists already turns AVX/AVX2/FMA off for x86_64, which is portable as it is.
CMAKE_ARGS="-DLLAVA_BUILD=OFF" "$VENV/bin/pip" install -q "llama-cpp-python==0.3.36"
"$VENV/bin/python" -c "import tomllib;p=tomllib.load(open('pyproject.toml','rb'))['project'];print('\n'.join(d for d in p['dependencies'] if not d.startswith('llama-cpp-python')))" > packaging/build/deps.txt
"$VENV/bin/pip" install -q -r packaging/build/deps.txt
"$VENV/bin/python" -m PyInstaller --noconfirm --distpath packaging/build/pyi-dist --workpath packaging/build/pyi-work packaging/burrow.spec
APP=packaging/build/pyi-dist/Burrow.app
DMG=packaging/dist/Burrow-$VERSION-macos-$(uname -m).dmg
mkdir -p packaging/dist

if [[ -n "${SIGN_ID:-}" ]]; then
    # Hardened runtime is required for notarisation; llama.cpp needs no JIT entitlements.
    codesign --force --deep --options runtime --timestamp --sign "$SIGN_ID" "$APP"
else
    codesign --force --deep --sign - "$APP"
fi
hdiutil create -volname Burrow -srcfolder "$APP" -ov -format UDZO "$DMG"
if [[ -n "${SIGN_ID:-}" ]]; then
    codesign --sign "$SIGN_ID" --timestamp "$DMG"
    xcrun notarytool submit "$DMG" --keychain-profile "${NOTARY_PROFILE:-burrow-notary}" --wait
    xcrun stapler staple "$DMG"
fi
echo "$DMG"

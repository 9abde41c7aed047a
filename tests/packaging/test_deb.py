"""What the .debs install, read back with dpkg-deb as apt would: paths, launcher, Depends."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.timeout(5400)]

# What Qt's xcb platform plugin needs from the system (the bundle carries Qt itself).
XCB_DEPENDS = {"libxcb-cursor0", "libxkbcommon-x11-0", "libxcb-icccm4", "libxcb-keysyms1", "libxcb-shape0",
               "libxcb-render-util0", "libxcb-image0", "libegl1", "libgl1", "libfontconfig1"}


def _field(deb: Path, name: str) -> str:
    return subprocess.run(["dpkg-deb", "-f", str(deb), name], capture_output=True, text=True, check=True).stdout.strip()


def _listing(deb: Path) -> dict[str, str]:
    """path -> mode string, for every entry in the package."""
    out = subprocess.run(["dpkg-deb", "-c", str(deb)], capture_output=True, text=True, check=True).stdout
    entries = {}
    for line in out.splitlines():
        parts = line.split(maxsplit=5)
        entries[parts[5].split(" -> ")[0].lstrip(".")] = parts[0] + " " + parts[1]
    return entries


def _depends(deb: Path) -> set[str]:
    return {d.split("(")[0].strip() for d in _field(deb, "Depends").split(",")}


def test_app_deb_installs_bundle_launcher_and_desktop_entry(debs: dict[str, Path]) -> None:
    files = _listing(debs["app"])
    assert files["/usr/bin/burrow"].startswith("-rwxr-xr-x root/root")
    assert files["/opt/burrow/burrow"].startswith("-rwxr-xr-x root/root")
    assert "/usr/share/applications/burrow.desktop" in files
    assert "/usr/share/icons/hicolor/256x256/apps/burrow.png" in files
    assert any(p.startswith("/opt/burrow/_internal/ggml_backends/libggml-cpu-x64") for p in files)
    assert not any(p.endswith(".gguf") for p in files), "the app package must not carry weights"


def test_app_deb_depends_on_what_qt_xcb_needs(debs: dict[str, Path]) -> None:
    assert _field(debs["app"], "Package") == "burrow-assistant"
    assert _field(debs["app"], "Architecture") == "amd64"
    assert XCB_DEPENDS <= _depends(debs["app"])
    assert "burrow-model" in _field(debs["app"], "Recommends")


def test_model_deb_puts_the_default_model_where_the_app_looks(debs: dict[str, Path]) -> None:
    from app.llm.catalog import INSTALLED_MODEL_DIRS, load_catalog

    files = _listing(debs["model"])
    target = INSTALLED_MODEL_DIRS[0] / load_catalog().default_entry().file
    assert str(target) in files
    assert _field(debs["model"], "Architecture") == "all"


def test_desktop_entry_launches_the_path_command() -> None:
    desktop = (Path(__file__).resolve().parents[2] / "packaging" / "linux" / "burrow.desktop").read_text()
    lines = dict(line.split("=", 1) for line in desktop.splitlines() if "=" in line)
    assert lines["Exec"].split()[0] == "burrow"
    assert lines["Icon"] == "burrow" and lines["Type"] == "Application"

"""Fixtures for the packaging tests: a built bundle (and .debs), rebuilt only when stale.

Staleness is a hash of app/, packaging/, pyproject.toml and the model catalog
(packaging/source_hash.py), written next to the build by packaging/build_linux.sh.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from _packaging_support import BUNDLE_DIR, DIST, MODEL, PACKAGING, build, fresh, require_linux_x86


@pytest.fixture(scope="session")
def bundle() -> Path:
    """The frozen app folder (packaging/build/pyi-dist/burrow), built if missing or stale."""
    require_linux_x86()
    if not fresh(PACKAGING / "build" / "bundle.hash") or not (BUNDLE_DIR / "burrow").is_file():
        build("--bundle-only")
    return BUNDLE_DIR


@pytest.fixture(scope="session")
def debs(bundle: Path) -> dict[str, Path]:
    """The app and model .debs, built from the current sources if missing or stale."""
    if shutil.which("dpkg-deb") is None:
        pytest.skip("dpkg-deb is not installed")
    if not MODEL.is_file():
        pytest.skip("models/*.gguf is absent (run make setup)")
    if not fresh(DIST / "debs.hash"):
        build("--no-tar")
    found = {"app": sorted(DIST.glob("burrow-assistant_*_amd64.deb")),
             "model": sorted(DIST.glob("burrow-model_*_all.deb"))}
    assert found["app"] and found["model"], f"no .debs in {DIST}"
    return {kind: paths[-1] for kind, paths in found.items()}

"""Helpers for the packaging tests (a module of its own: tests/ has no package names to share)."""

from __future__ import annotations

import importlib.util
import json
import os
import platform
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGING = ROOT / "packaging"
BUNDLE_DIR = PACKAGING / "build" / "pyi-dist" / "burrow"
DIST = PACKAGING / "dist"
# the default model (what the model package carries and the frozen app looks for)
_CATALOG = json.loads((ROOT / "models" / "catalog.json").read_text(encoding="utf-8"))
MODEL = ROOT / "models" / next(m["file"] for m in _CATALOG["models"] if m["id"] == _CATALOG["default"])
# The portable wheel compile (first run on a machine) plus PyInstaller: far past pytest's default.
BUILD_TIMEOUT_S = 5400
# What the tests build unless the environment says otherwise: the reduced CPU variant set that
# `make setup` also installs into .venv (one compile for both; x64 keeps the lower-variant
# test meaningful), and uncompressed .debs (the tests read them back; xz only costs time).
# `make package` builds the release: every variant, xz.
BUILD_ENV_DEFAULTS = {"BURROW_CPU_VARIANTS": "test", "DEB_COMPRESSION": "none"}


def current_hash() -> str:
    spec = importlib.util.spec_from_file_location("burrow_source_hash", PACKAGING / "source_hash.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.source_hash(ROOT)


def fresh(stamp: Path) -> bool:
    """Built from the current sources (the stamp's first field; the second names the wheel, and a
    bundle with the release's full CPU variant set passes these tests as well)."""
    return stamp.is_file() and stamp.read_text().split()[:1] == [current_hash()]


def build(*args: str) -> None:
    env = {**BUILD_ENV_DEFAULTS, **os.environ}
    result = subprocess.run(["bash", str(PACKAGING / "build_linux.sh"), *args], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=BUILD_TIMEOUT_S)
    if result.returncode != 0:
        pytest.fail(f"build_linux.sh {' '.join(args)} failed:\n{result.stderr[-4000:]}")


def require_linux_x86() -> None:
    if not sys.platform.startswith("linux") or platform.machine() != "x86_64":
        pytest.skip("the Linux bundle is built on Linux x86-64 only")


def bundle_env(home: Path, **extra: str) -> dict[str, str]:
    """A clean environment for running the bundle: its own BURROW_HOME, offscreen Qt, no venv."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("BURROW_", "PYTHON", "VIRTUAL_ENV", "QT_"))}
    env.update(BURROW_HOME=str(home), QT_QPA_PLATFORM="offscreen", **extra)
    return env

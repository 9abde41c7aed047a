"""End-to-end: the real default GGUF, the real tools, the fixture project."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "fixtures" / "sample_project"


@pytest.fixture(scope="session")
def default_model() -> Path:
    found = sorted((ROOT / "models").glob("*.gguf"))
    if not found:
        pytest.skip("no model in models/ (run `make setup`)")
    preferred = ROOT / "models" / "SmolLM2-135M-Instruct.Q4_1.gguf"
    return preferred if preferred.exists() else found[0]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    target = tmp_path / "project"
    shutil.copytree(FIXTURE, target)
    return target



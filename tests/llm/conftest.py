"""Shared fixtures for the model runtime tests. BURROW_HOME always points at a tmp dir."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.paths import project_root

REAL_MODEL = project_root() / "models" / "SmolLM2-135M-Instruct.Q4_1.gguf"
TEMPLATES = project_root().parent / "shared" / "chat-templates"


@pytest.fixture
def real_model_path() -> Path:
    if not REAL_MODEL.is_file():
        pytest.skip("the default model is not installed (run `make setup`)")
    return REAL_MODEL

"""End-to-end: the real default GGUF, the real tools, the fixture project."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "fixtures" / "sample_project"


@pytest.fixture(scope="session")
def default_model() -> Path:
    """Skips without models; `ask` itself uses the catalog default unless given --model."""
    found = sorted((ROOT / "models").glob("*.gguf"))
    if not found:
        pytest.skip("no model in models/ (run `make setup`)")
    return found[0]


@pytest.fixture(scope="session")
def small_model(default_model: Path) -> Path:
    """The small model, for runs whose subject is not the answer (network, records): ~6x faster."""
    small = ROOT / "models" / "SmolLM2-135M-Instruct.Q4_1.gguf"
    return small if small.exists() else default_model


@pytest.fixture
def project(tmp_path: Path) -> Path:
    target = tmp_path / "project"
    shutil.copytree(FIXTURE, target)
    return target




@pytest.fixture(scope="session")
def _shared_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("burrow-cache")


@pytest.fixture(autouse=True)
def _warm_cache(burrow_home: Path, _shared_cache: Path) -> None:
    """One cache folder for the e2e runs, as a user's runs share theirs: the saved prefix state
    (system prompt and tool schemas, app/llm/llama_state.py) is evaluated by the first run only,
    and the later runs load it, which is what a user's second question costs. Settings, runs
    and the index stay private to each test."""
    burrow_home.mkdir(parents=True, exist_ok=True)
    (burrow_home / "cache").symlink_to(_shared_cache, target_is_directory=True)

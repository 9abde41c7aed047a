"""Fixtures: the real llama-cpp-python server (one per session, and one a test may kill) and a
copy of the sample project. No mock server answers a happy path here."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from .llama_server import SAMPLE_PROJECT, RunningServer, start_server


@pytest.fixture(scope="session")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    server = start_server(tmp_path_factory.mktemp("server") / "server.log")
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def own_server(tmp_path: Path) -> Iterator[RunningServer]:
    """A server of this test alone (it gets killed)."""
    server = start_server(tmp_path / "own-server.log")
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    target = tmp_path / "project"
    shutil.copytree(SAMPLE_PROJECT, target)
    return target

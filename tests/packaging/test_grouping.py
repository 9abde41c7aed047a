"""The packaging tests share one frozen bundle: under `make test` (pytest-xdist, --dist loadgroup)
they must all run on one worker, or two workers build the bundle at once in one folder."""

from __future__ import annotations

import os

import pytest


def test_this_folder_is_one_xdist_group(request: pytest.FixtureRequest) -> None:
    if not os.environ.get("PYTEST_XDIST_WORKER") or not request.config.getvalue("loadgroup"):
        pytest.skip("not run by `make test` (xdist --dist loadgroup)")
    assert request.node.nodeid.endswith("@packaging"), (
        "xdist ignored the group mark (tests/conftest.py); pytest 9.2 does this, see pyproject.toml")

"""The Qt binding itself: PySide6 6.12.0 drops a reference to Python's None on every call of a
method that returns nothing (6.11.2 does not; Python 3.12+ never frees None, 3.11 does). A window
makes such calls all the time (the viewer one per coloured token), and some thousands of them
abort the app with "Fatal Python error: none_dealloc". pyproject.toml excludes that release."""

from __future__ import annotations

import sys

from PySide6.QtWidgets import QLabel

CALLS = 1000


def test_a_qt_call_that_returns_nothing_leaves_none_alone(qtbot) -> None:
    label = QLabel()
    qtbot.addWidget(label)
    before = sys.getrefcount(None)
    for _ in range(CALLS):
        label.setText("x")
    assert sys.getrefcount(None) > before - CALLS // 2

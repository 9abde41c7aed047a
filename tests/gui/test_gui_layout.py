"""The views are laid out without PySide6's `Qt` namespace (app.gui.qt_values), and still end up
with the orientation, arrows, alignment and item roles Qt's own enums name."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QSplitter

from app.gui import qt_values
from app.gui.main_window import MainWindow
from app.gui.model_picker import ModelPicker

REPO = Path(__file__).resolve().parents[2]


def test_each_plain_value_is_the_enum_it_stands_for() -> None:
    assert qt_values.VERTICAL == Qt.Orientation.Vertical.value
    assert qt_values.ALIGN_CENTER == Qt.AlignmentFlag.AlignCenter.value
    assert qt_values.DOWN_ARROW == Qt.ArrowType.DownArrow.value
    assert qt_values.RIGHT_ARROW == Qt.ArrowType.RightArrow.value
    assert qt_values.TEXT_BESIDE_ICON == Qt.ToolButtonStyle.ToolButtonTextBesideIcon.value
    assert qt_values.TOOLTIP_ROLE == Qt.ItemDataRole.ToolTipRole.value
    assert qt_values.USER_ROLE == Qt.ItemDataRole.UserRole.value


def test_the_built_views_have_the_properties_the_values_set(window: MainWindow, qtbot) -> None:
    orientations = {s.orientation() for s in window.findChildren(QSplitter)}
    assert orientations == {Qt.Orientation.Horizontal, Qt.Orientation.Vertical}
    toggle = window.activity_toggle
    assert toggle.arrowType() == Qt.ArrowType.DownArrow
    assert toggle.toolButtonStyle() == Qt.ToolButtonStyle.ToolButtonTextBesideIcon
    toggle.click()
    assert toggle.arrowType() == Qt.ArrowType.RightArrow and not window.activity.isVisible()
    assert window.drop_zone._label.alignment() == Qt.AlignmentFlag.AlignCenter
    assert ModelPicker.SOURCE_ROLE == Qt.ItemDataRole.UserRole + 1


BUILD_AND_CHECK = """
import sys
import PySide6.QtCore
from PySide6.QtWidgets import QApplication
from app.gui.main_window import MainWindow
from app.gui.controller import SessionController
from app.paths import app_paths

app = QApplication([])
window = MainWindow(SessionController(app_paths()))
window.show()
sys.exit(0 if window.built and "Qt" not in vars(PySide6.QtCore) else 1)
"""


def test_building_the_views_leaves_the_qt_namespace_unloaded(tmp_path: Path) -> None:
    """Its ~100 Python enums (~35 ms) would delay the first paint with the views."""
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "BURROW_HOME": str(tmp_path),
           "PYTHONPATH": str(REPO)}
    proc = subprocess.run([sys.executable, "-c", BUILD_AND_CHECK], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr

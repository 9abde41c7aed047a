"""The model picker: the default model, models found on disk from other apps, and any added .gguf."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from app.gui.qt_values import TOOLTIP_ROLE, USER_ROLE

if TYPE_CHECKING:
    from app.llm.base import ModelInfo


def describe(info: ModelInfo) -> str:
    """One line a user can choose by: name, size, quantization, context length, dialect, source."""
    parts = [info.name or info.path.rsplit("/", 1)[-1], info.size_text]
    parts += [p for p in (info.parameters, info.quantization) if p]
    if info.context_length:
        parts.append(f"ctx {info.context_length}")
    parts.append(f"dialect {info.dialect or 'unknown'}")
    measured = info.extra.get("measured")
    if measured:  # from the catalog: the project's eval on real code bases
        parts.append(f"eval {measured['correct']}/{measured['questions']} right, "
                     f"{measured['median_seconds']:.0f} s/question")
    if info.source:
        parts.append(info.source)
    return " · ".join(parts)


class ModelPicker(QWidget):
    """Emits modelChosen(path) when the user picks a model; addRequested for the file dialog."""

    modelChosen = Signal(str)
    addRequested = Signal()
    SOURCE_ROLE = USER_ROLE + 1  # where the entry came from (ModelInfo.source)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.combo = QComboBox(self)
        self.combo.setAccessibleName("Model")
        self.combo.setMinimumContentsLength(18)
        self.combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.add_button = QPushButton(self)  # (text, parent) would load QIcon's enums
        self.add_button.setText("Add .gguf…")
        self.add_button.setAccessibleName("Add a GGUF model file")
        self.state = QLabel("No model loaded", self)
        self.state.setAccessibleName("Model state")
        self.state.setWordWrap(True)
        row = QHBoxLayout()
        row.addWidget(self.combo, 1)
        row.addWidget(self.add_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(row)
        layout.addWidget(self.state)
        self.combo.activated.connect(self._on_combo_activated)
        self.add_button.clicked.connect(self.addRequested)

    def add_model(self, info: ModelInfo) -> None:
        """Add a model, or refresh the label of one already listed (e.g. a file-name placeholder)."""
        index = self.combo.findData(info.path)
        if index >= 0:
            self.combo.setItemText(index, describe(info))
            return
        self.combo.addItem(describe(info), info.path)
        self.combo.setItemData(self.combo.count() - 1, info.path, TOOLTIP_ROLE)
        self.combo.setItemData(self.combo.count() - 1, info.source, self.SOURCE_ROLE)

    def select(self, path: str) -> None:
        index = self.combo.findData(path)
        if index >= 0:
            self.combo.setCurrentIndex(index)

    def current_path(self) -> str | None:
        return self.combo.currentData()

    def set_state(self, text: str) -> None:
        self.state.setText(text)

    def set_busy(self, busy: bool) -> None:
        self.combo.setEnabled(not busy)
        self.add_button.setEnabled(not busy)

    def _on_combo_activated(self, index: int) -> None:
        self.modelChosen.emit(self.combo.itemData(index))

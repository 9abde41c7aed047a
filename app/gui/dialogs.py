"""Message boxes that never block: opened window-modal with open(), so tests and the smoke run can
inspect and close them instead of waiting on exec()."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # loaded with the first box: importing a Qt class creates its enums (~3 ms here)
    from PySide6.QtWidgets import QMessageBox, QWidget


class Dialogs:
    """The window's way to tell the user something; tests may pass their own."""

    def __init__(self, parent: QWidget) -> None:
        self._parent = parent
        self.open_boxes: list[QMessageBox] = []

    def error(self, title: str, text: str) -> QMessageBox:
        from PySide6.QtWidgets import QMessageBox

        box = QMessageBox(QMessageBox.Icon.Warning, title, text, QMessageBox.StandardButton.Ok,
                          self._parent)
        box.setAccessibleName(title)
        box.finished.connect(lambda _=0, b=box: self._forget(b))
        self.open_boxes.append(box)
        box.open()
        return box

    def _forget(self, box: QMessageBox) -> None:
        if box in self.open_boxes:
            self.open_boxes.remove(box)
        box.deleteLater()

    def choose_folder(self) -> str:
        from PySide6.QtWidgets import QFileDialog

        return QFileDialog.getExistingDirectory(self._parent, "Choose a workspace folder")

    def choose_model_file(self) -> str:
        from PySide6.QtWidgets import QFileDialog

        path, _ = QFileDialog.getOpenFileName(self._parent, "Add a GGUF model", "",
                                              "GGUF models (*.gguf);;All files (*)")
        return path

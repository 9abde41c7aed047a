"""Inference-server models in the picker: a Refresh that finds servers on loopback, and a label
that says where answers are computed when the model's server is not on this machine."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from app.gui.model_picker import ModelPicker

Background = Callable[[Callable[[], object], Callable[[object], None], Callable[[str], None]], None]


def short_name(key: str) -> str:
    """What a picker key is called in "Loading …": a server model's name, or a file's name."""
    if key.startswith("server:") and "@" in key:
        return key[len("server:"):].rpartition("@")[0]
    return key.replace("\\", "/").rsplit("/", 1)[-1]


class ServerModels(QWidget):
    """Refresh lists the models of servers found on loopback; `show_model` sets the host label."""

    def __init__(self, picker: ModelPicker, discover: Callable[[], list],
                 in_background: Background, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._picker, self._discover, self._in_background = picker, discover, in_background
        self.refresh_button = QPushButton(self)  # (text, parent) would load QIcon's enums
        self.refresh_button.setText("Refresh servers")
        self.refresh_button.setAccessibleName("Find models of inference servers on this machine")
        self.found = QLabel("", self)
        self.found.setAccessibleName("Inference servers found")
        self.remote = QLabel("", self)
        self.remote.setAccessibleName("Where answers are computed")
        self.remote.setStyleSheet("background:#fff4e5;color:#663c00;padding:4px;border-radius:4px")
        self.remote.setWordWrap(True)
        self.remote.setVisible(False)
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.refresh_button)
        row.addWidget(self.found, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(row)
        layout.addWidget(self.remote)
        self.refresh_button.clicked.connect(self.refresh)

    def refresh(self) -> None:
        self.refresh_button.setEnabled(False)
        self.found.setText("Looking…")
        self._in_background(self._discover, self._on_discovered, self._on_failed)

    def show_model(self, model: object) -> None:
        """Show "answers computed on HOST" while a model on another machine is in use."""
        address = getattr(model, "address", None)
        remote = bool(getattr(model, "is_remote", False)) and address is not None
        self.remote.setText(f"Answers computed on {address.host}" if remote else "")
        self.remote.setVisible(remote)

    def _on_discovered(self, models: object) -> None:
        current = self._picker.current_path()
        items = list(models) if isinstance(models, list) else []
        for info in items:
            self._picker.add_model(info)
        if current:
            self._picker.select(current)
        servers = {info.source for info in items}
        self.found.setText(f"{len(items)} model(s) on {len(servers)} server(s)" if items
                           else "No server found")
        self.refresh_button.setEnabled(True)

    def _on_failed(self, message: str) -> None:
        self.found.setText(f"Search failed: {message}")
        self.refresh_button.setEnabled(True)

"""The settings dialog. Pydantic decides what is valid: the spin boxes take their ranges from the
Settings model, and any refusal is shown with the field's name as the dialog labels it."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QLabel,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from app.errors import SettingsError

if TYPE_CHECKING:  # pydantic loads after the window shows (see app.gui.controller)
    from app.settings import Settings

SettingsApplier = Callable[..., "Settings"]  # (**changes) -> saved Settings; raises SettingsError


def _spin(field: str, value: int, accessible: str) -> QSpinBox:
    """A spin box whose range is exactly what the Settings model accepts for `field`."""
    from app.settings import field_bounds

    low, high = field_bounds(field)
    box = QSpinBox()
    box.setRange(int(low if low is not None else 0), int(high if high is not None else 2**31 - 1))
    box.setValue(value)
    box.setAccessibleName(accessible)
    return box


class SettingsDialog(QDialog):
    def __init__(self, settings: Settings, apply: SettingsApplier, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Settings")
        self.setAccessibleName("Settings")
        self._apply = apply
        self.saved: Settings | None = None
        from app.settings import field_bounds

        self.n_ctx = _spin("n_ctx", settings.n_ctx, "Context size in tokens")
        self.n_threads = _spin("n_threads", settings.n_threads, "Threads")
        # 0: half of the threads (each generated token's small products hand off badly to more)
        self.decode_threads = _spin("decode_threads", settings.decode_threads, "Generation threads")
        self.decode_threads.setSpecialValueText("half of the threads")
        self.decode_threads.setToolTip("Threads for each generated word (the question itself is read "
                                       "with all of them).")
        self.temperature = QDoubleSpinBox()
        self.temperature.setRange(*(float(b) for b in field_bounds("temperature")))
        self.temperature.setSingleStep(0.1)
        self.temperature.setValue(settings.temperature)
        self.temperature.setAccessibleName("Temperature")
        self.max_steps = _spin("max_steps", settings.max_steps, "Step budget")
        self.secrets_policy = QCheckBox("Refuse files that look like credentials")
        self.secrets_policy.setChecked(settings.secrets_policy)
        self.secrets_policy.setAccessibleName("Secrets policy")
        # a downloaded project (an sdist, a zip) may ship a folder its own .gitignore names: its files
        # are then hidden from every tool unless this is off (files git tracks are always shown)
        self.respect_gitignore = QCheckBox("Leave out files .gitignore names (git's tracked files stay)")
        self.respect_gitignore.setChecked(settings.respect_gitignore)
        self.respect_gitignore.setAccessibleName("Respect .gitignore")
        self.theme = QComboBox()
        self.theme.addItems(["system", "light", "dark"])
        self.theme.setCurrentText(settings.theme)
        self.theme.setAccessibleName("Theme")
        self.error = QLabel("")
        self.error.setAccessibleName("Settings error")
        self.error.setStyleSheet("color: #c0392b")
        self.error.setWordWrap(True)
        self._layout(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)

    def _layout(self, buttons: QDialogButtonBox.StandardButton) -> None:
        form = QFormLayout()
        form.addRow("Context size (tokens)", self.n_ctx)
        form.addRow("Threads", self.n_threads)
        form.addRow("Generation threads", self.decode_threads)
        form.addRow("Temperature", self.temperature)
        form.addRow("Step budget (model turns)", self.max_steps)
        form.addRow("Secrets", self.secrets_policy)
        form.addRow(".gitignore", self.respect_gitignore)
        form.addRow("Theme", self.theme)
        self.buttons = QDialogButtonBox(buttons)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.error)
        layout.addWidget(self.buttons)

    def values(self) -> dict[str, object]:
        return {"n_ctx": self.n_ctx.value(), "n_threads": self.n_threads.value(),
                "decode_threads": self.decode_threads.value(),
                "temperature": round(self.temperature.value(), 2), "max_steps": self.max_steps.value(),
                "secrets_policy": self.secrets_policy.isChecked(),
                "respect_gitignore": self.respect_gitignore.isChecked(), "theme": self.theme.currentText()}

    def accept(self) -> None:
        """Save through the applier; on a refused value say which and keep the dialog open."""
        try:
            self.saved = self._apply(**self.values())
        except SettingsError as exc:
            self.error.setText(f"Not saved: {exc}")
            return
        self.error.setText("")
        super().accept()

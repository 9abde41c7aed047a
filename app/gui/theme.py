"""Light and dark palettes (Fusion), so the theme setting looks the same on every desktop."""

from __future__ import annotations

from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication

_DARK = {
    QPalette.ColorRole.Window: "#2b2d31", QPalette.ColorRole.WindowText: "#e6e6e6",
    QPalette.ColorRole.Base: "#1e1f22", QPalette.ColorRole.AlternateBase: "#2b2d31",
    QPalette.ColorRole.Text: "#e6e6e6", QPalette.ColorRole.Button: "#383a40",
    QPalette.ColorRole.ButtonText: "#e6e6e6", QPalette.ColorRole.Highlight: "#3d6fb4",
    QPalette.ColorRole.HighlightedText: "#ffffff", QPalette.ColorRole.Link: "#7ab4ff",
    QPalette.ColorRole.ToolTipBase: "#383a40", QPalette.ColorRole.ToolTipText: "#e6e6e6",
    QPalette.ColorRole.PlaceholderText: "#8a8d93",
}
_DISABLED_TEXT = "#6b6e75"


def is_dark(theme: str) -> bool:
    """'system' follows the desktop's colour scheme where Qt can tell."""
    if theme != "system":
        return theme == "dark"
    hints = QGuiApplication.styleHints()
    return hints.colorScheme() == hints.colorScheme().Dark


def looks_dark(theme: str) -> bool:
    """is_dark as the first paint can afford it: asking Qt for the colour scheme creates the whole
    Qt namespace's enums (~30 ms), while the desktop's palette says the same on the desktops Qt
    supports (light text on dark windows). The launch checks with is_dark once the window shows."""
    if theme != "system":
        return theme == "dark"
    palette = QGuiApplication.palette()
    return palette.color(QPalette.ColorRole.WindowText).lightness() > palette.color(
        QPalette.ColorRole.Window).lightness()


def apply_theme(app: QApplication, theme: str, first_paint: bool = False) -> bool:
    """Set Fusion with a light or dark palette; returns True when dark."""
    dark = looks_dark(theme) if first_paint else is_dark(theme)  # before Fusion replaces the palette
    if app.style().name().lower() != "fusion":  # often already Fusion: a new style costs ~10 ms
        app.setStyle("Fusion")
    palette = app.style().standardPalette()
    if dark:
        for role, colour in _DARK.items():
            palette.setColor(role, QColor(colour))
        for role in (QPalette.ColorRole.ButtonText, QPalette.ColorRole.Text,
                     QPalette.ColorRole.WindowText):
            palette.setColor(QPalette.ColorGroup.Disabled, role, QColor(_DISABLED_TEXT))
    app.setPalette(palette)
    return dark

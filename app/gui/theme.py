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

# Qt's Fusion standard palette (QFusionStyle::standardPalette; a test compares it with Qt's), per
# colour group in the order of _ROLES. Asking Qt for it means wrapping the QStyle object in Python,
# which creates QStyle's enums (7-10 ms) before the first paint.
FUSION_ARGS = ("-style", "fusion")  # QApplication arguments: Fusion from the start, no QStyle in Python
_ROLES = ("WindowText", "Button", "Light", "Midlight", "Dark", "Mid", "Text", "BrightText", "ButtonText",
          "Base", "Window", "Shadow", "Highlight", "HighlightedText", "Link", "LinkVisited",
          "AlternateBase", "ToolTipBase", "ToolTipText", "PlaceholderText")
_ACTIVE = ("#000000 #efefef #ffffff #cacaca #9f9f9f #b8b8b8 #000000 #ffffff #000000 #ffffff #efefef "
           "#767676 #308cc6 #ffffff #0000ff #ff00ff #f7f7f7 #ffffdc #000000 #80000000")
_FUSION_LIGHT = {
    "Active": _ACTIVE,
    "Inactive": _ACTIVE,
    "Disabled": ("#bebebe #efefef #ffffff #cacaca #bebebe #b8b8b8 #bebebe #ffffff #bebebe #efefef #efefef "
                 "#b1b1b1 #919191 #ffffff #0000ff #ff00ff #f7f7f7 #ffffdc #000000 #80000000"),
}


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


def fusion_palette() -> QPalette:
    """Fusion's light palette, as QStyle.standardPalette() gives it, without asking the style."""
    palette = QPalette()
    for group, colours in _FUSION_LIGHT.items():
        for role, colour in zip(_ROLES, colours.split(), strict=True):
            palette.setColor(QPalette.ColorGroup[group], QPalette.ColorRole[role], QColor(colour))
    accent = palette.color(QPalette.ColorGroup.Active, QPalette.ColorRole.Highlight)
    palette.setColor(QPalette.ColorRole.Accent, accent)  # Qt 6.6+: the accent follows the highlight
    palette.setColor(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Accent,
                     palette.color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Highlight))
    return palette


def apply_theme(app: QApplication, theme: str, first_paint: bool = False) -> bool:
    """Set Fusion with a light or dark palette; returns True when dark.

    `first_paint`: the app was created with FUSION_ARGS, so the style is Fusion already and is not
    asked for (see _FUSION_LIGHT)."""
    dark = looks_dark(theme) if first_paint else is_dark(theme)  # before Fusion replaces the palette
    if not first_paint and app.style().name().lower() != "fusion":  # a new style costs ~10 ms
        app.setStyle("Fusion")
    palette = fusion_palette()
    if dark:
        for role, colour in _DARK.items():
            palette.setColor(role, QColor(colour))
        for role in (QPalette.ColorRole.ButtonText, QPalette.ColorRole.Text,
                     QPalette.ColorRole.WindowText):
            palette.setColor(QPalette.ColorGroup.Disabled, role, QColor(_DISABLED_TEXT))
    app.setPalette(palette)
    return dark

"""The desktop window. Importing the package imports PySide6 first and makes its import hook cheap
for every module that follows (app.gui.pyside_boot)."""

from app.gui import pyside_boot as _pyside_boot  # noqa: F401

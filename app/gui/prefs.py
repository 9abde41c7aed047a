"""What the window remembers between starts: recent workspaces, the theme peeked before pydantic
loads, and the sentence telling the user what was wrong with a settings file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # app.settings brings pydantic (~0.1 s): loaded after the window shows
    from app.settings import SettingsLoad

THEMES = ("system", "light", "dark")
MAX_RECENT = 8


class RecentWorkspaces:
    """Most-recent-first list of workspace folders, saved as JSON in the data dir."""

    def __init__(self, file: Path, limit: int = MAX_RECENT) -> None:
        self._file = file
        self._limit = limit

    def load(self) -> list[Path]:
        """Saved folders that still exist; a broken file reads as empty."""
        try:
            items = json.loads(self._file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return []
        if not isinstance(items, list):
            return []
        return [Path(p) for p in items if isinstance(p, str) and Path(p).is_dir()]

    def add(self, folder: Path) -> list[Path]:
        from app.storage import atomic_write_text

        items = [folder] + [p for p in self.load() if p != folder]
        items = items[: self._limit]
        atomic_write_text(self._file, json.dumps([str(p) for p in items], indent=1))
        return items


def peek_theme(path: Path) -> str:
    """The saved theme, read without pydantic so the first paint has the right colours; "system"
    for anything the Settings model would not accept (it decides, once loaded)."""
    try:
        theme = json.loads(path.read_text(encoding="utf-8")).get("theme")
    except (OSError, ValueError, AttributeError):
        return "system"
    return theme if theme in THEMES else "system"


def settings_notice(loaded: SettingsLoad) -> str:
    """A sentence for the user about a repaired settings file; "" when the file was fine."""
    from app.settings import field_label

    kept = loaded.backup.name if loaded.backup else "no backup (it could not be copied)"
    if loaded.unreadable:
        return (f"Your settings file could not be read, so defaults are in use. The old file was "
                f"kept as {kept}.")
    if not loaded.reset:
        return ""
    names = ", ".join(field_label(name) for name in loaded.reset)
    return (f"Some saved settings were invalid and are back to their defaults: {names}. Your "
            f"other settings are kept; the old file was kept as {kept}.")

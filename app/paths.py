"""Where Burrow keeps its files. BURROW_HOME overrides every location (tests, portable installs)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

APP_NAME = "burrow"
HOME_ENV = "BURROW_HOME"


@dataclass(frozen=True)
class AppPaths:
    config_dir: Path
    data_dir: Path
    cache_dir: Path

    @property
    def settings_file(self) -> Path:
        return self.config_dir / "settings.json"

    @property
    def models_dir(self) -> Path:
        """The user's own models folder (data dir), scanned for .gguf files."""
        return self.data_dir / "models"

    @property
    def runs_dir(self) -> Path:
        return self.data_dir / "runs"

    @property
    def recent_file(self) -> Path:
        return self.data_dir / "recent_workspaces.json"

    def ensure(self) -> AppPaths:
        for d in (self.config_dir, self.data_dir, self.cache_dir):
            d.mkdir(parents=True, exist_ok=True)
        return self


def app_paths(environ: dict[str, str] | None = None) -> AppPaths:
    env = os.environ if environ is None else environ
    home = env.get(HOME_ENV)
    if home:
        root = Path(home).expanduser()
        return AppPaths(root / "config", root / "data", root / "cache")
    import platformdirs

    return AppPaths(
        Path(platformdirs.user_config_dir(APP_NAME, appauthor=False)),
        Path(platformdirs.user_data_dir(APP_NAME, appauthor=False)),
        Path(platformdirs.user_cache_dir(APP_NAME, appauthor=False)),
    )


def project_root() -> Path:
    """The source checkout (or the frozen bundle's folder)."""
    import sys

    frozen = getattr(sys, "_MEIPASS", None)
    if frozen:
        return Path(frozen)
    return Path(__file__).resolve().parent.parent

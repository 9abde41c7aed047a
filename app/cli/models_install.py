"""`python -m app models install NAME`: fetch a catalog model into the user's models folder."""

from __future__ import annotations

import sys

from app.errors import BurrowError
from app.llm.install import InstallProgress, Stage


def install(name: str) -> int:
    from app.llm.catalog import load_catalog
    from app.llm.install import find_entry, install_model, is_installed
    from app.paths import app_paths

    models_dir = app_paths().models_dir
    try:
        entry = find_entry(load_catalog().models, name)
        if is_installed(entry, models_dir):
            print(f"{entry.name} is already installed: {models_dir / entry.file}")
            return 0
        print(f"installing {entry.name} ({entry.size_bytes / 1e6:.0f} MB, {entry.license}) "
              f"into {models_dir}", file=sys.stderr)
        path = install_model(entry, models_dir, progress=_print_progress)
    except BurrowError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("\ninterrupted: nothing was installed", file=sys.stderr)
        return 130
    print(f"installed {entry.name}: {path} (size and sha256 verified)")
    return 0


def _print_progress(p: InstallProgress) -> None:
    if p.stage is Stage.DOWNLOADED:
        done, total = p.bytes_done / 1e6, p.bytes_total / 1e6
        print(f"  part {p.part}/{p.parts}: {done:.1f} of {total:.1f} MB", file=sys.stderr,
              flush=True)
    elif p.stage is Stage.VERIFYING:
        print("  checking size and sha256 ...", file=sys.stderr, flush=True)

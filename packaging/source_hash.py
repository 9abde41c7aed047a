"""Prints a hash of everything a bundle is built from (app/, packaging/ sources, pyproject.toml,
models/catalog.json), so the smoke test rebuilds the bundle only when one of them changed."""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
INPUTS = ("app", "packaging", "pyproject.toml", "models/catalog.json")
SKIP_DIRS = {"__pycache__", "build", "dist"}


def _files(root: Path) -> list[Path]:
    found: list[Path] = []
    for name in INPUTS:
        path = root / name
        if path.is_file():
            found.append(path)
        elif path.is_dir():
            found += (p for p in path.rglob("*") if p.is_file() and not SKIP_DIRS & set(p.relative_to(root).parts))
    return sorted(found)


def source_hash(root: Path = ROOT) -> str:
    digest = hashlib.sha256()
    for path in _files(root):
        if path.suffix == ".pyc":
            continue
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


if __name__ == "__main__":
    sys.stdout.write(source_hash() + "\n")

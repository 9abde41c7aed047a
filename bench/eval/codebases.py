"""The eval's code bases: pinned packages fetched by the eval itself, cached outside the repo.

Each is one archive (a PyPI sdist via `pip download --no-binary :all:`, or an npm tarball via
`npm pack`), checked against its sha256 and unpacked once. The cache lives in
~/.cache/burrow-eval/ (BURROW_EVAL_CACHE overrides it) so no third-party code enters the repo.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

CACHE_ENV = "BURROW_EVAL_CACHE"
CATALOG = Path(__file__).with_name("codebases.json")
FETCH_TIMEOUT_S = 300  # one small archive; a stuck registry should not hang the eval forever


class CodebaseError(RuntimeError):
    """A code base could not be fetched, verified or unpacked."""


@dataclass(frozen=True)
class Codebase:
    name: str
    kind: str  # "pypi-sdist" | "npm"
    package: str
    version: str
    archive: str
    sha256: str
    root: str  # the archive's single top folder, which is the code base root
    license: str
    language: str


def load_codebases(path: Path = CATALOG) -> dict[str, Codebase]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return {c["name"]: Codebase(**c) for c in data["codebases"]}


def cache_dir() -> Path:
    override = os.environ.get(CACHE_ENV)
    return Path(override) if override else Path.home() / ".cache" / "burrow-eval"


def cached_root(codebase: Codebase) -> Path:
    """Where the unpacked code base lives (whether or not it is there yet)."""
    return cache_dir() / "src" / f"{codebase.name}-{codebase.version}" / codebase.root


def ensure_codebase(name: str) -> Path:
    """The unpacked code base root; fetched, verified and unpacked on first use."""
    codebase = load_codebases()[name]
    root = cached_root(codebase)
    if root.is_dir():
        return root
    archive = _ensure_archive(codebase)
    _unpack(archive, root.parent)
    return root


def _ensure_archive(codebase: Codebase) -> Path:
    target = cache_dir() / "archives" / codebase.archive
    if target.is_file() and sha256_of(target) == codebase.sha256:
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent) as tmp:
        fetched = _fetch(codebase, Path(tmp))
        digest = sha256_of(fetched)
        if digest != codebase.sha256:
            raise CodebaseError(f"{codebase.archive}: sha256 {digest}, expected {codebase.sha256}")
        fetched.replace(target)
    return target


def fetch_command(codebase: Codebase, dest: Path) -> list[str]:
    spec = f"{codebase.package}=={codebase.version}"
    if codebase.kind == "pypi-sdist":
        return [sys.executable, "-m", "pip", "download", "--no-binary", ":all:", "--no-deps",
                "-q", "-d", str(dest), spec]
    if codebase.kind == "npm":
        return ["npm", "pack", "--silent", "--pack-destination", str(dest),
                f"{codebase.package}@{codebase.version}"]
    raise CodebaseError(f"{codebase.name}: unknown kind {codebase.kind!r}")


def _fetch(codebase: Codebase, dest: Path) -> Path:
    command = fetch_command(codebase, dest)
    try:
        subprocess.run(command, check=True, capture_output=True, text=True, timeout=FETCH_TIMEOUT_S)
    except (OSError, subprocess.SubprocessError) as exc:
        detail = getattr(exc, "stderr", "") or exc
        raise CodebaseError(f"fetching {codebase.name} failed: {detail}") from None
    fetched = dest / codebase.archive
    if not fetched.is_file():
        raise CodebaseError(f"fetching {codebase.name}: no {codebase.archive} in {dest}")
    return fetched


def _unpack(archive: Path, dest: Path) -> None:
    """Unpack into a temp folder, then rename, so a crash never leaves a half tree in the cache."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    partial = Path(tempfile.mkdtemp(dir=dest.parent, prefix=".unpack-"))
    try:
        with tarfile.open(archive) as tar:
            tar.extractall(partial, filter="data")
        if dest.exists():
            shutil.rmtree(dest)
        partial.rename(dest)
    finally:
        shutil.rmtree(partial, ignore_errors=True)


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()

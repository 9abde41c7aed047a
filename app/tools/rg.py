"""Finding and running the ripgrep binary: bounded in time and output, never reading options from data."""

from __future__ import annotations

import os
import selectors
import shutil
import subprocess
import sys
import sysconfig
import time
from dataclasses import dataclass, field
from pathlib import Path

from app.errors import ToolExecutionError

_RG_NAMES = ("rg.exe", "rg") if os.name == "nt" else ("rg",)


def rg_candidates() -> list[Path]:
    """Where rg may live: beside a frozen app's executable, in the venv's scripts dir, then on PATH."""
    dirs: list[Path] = []
    if getattr(sys, "frozen", False):
        dirs.append(Path(sys.executable).parent)
        meipass = getattr(sys, "_MEIPASS", None)
        if meipass:
            dirs.append(Path(meipass))
    dirs.append(Path(sys.executable).parent)  # the venv's bin, without resolving the python symlink
    dirs.append(Path(sysconfig.get_path("scripts")))
    found = [d / n for d in dirs for n in _RG_NAMES]
    on_path = shutil.which("rg")
    return found + ([Path(on_path)] if on_path else [])


def find_rg() -> Path:
    for candidate in rg_candidates():
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    raise ToolExecutionError("ripgrep (rg) is not installed: install the 'ripgrep' package (pip install ripgrep)")


@dataclass(frozen=True)
class RgRun:
    lines: tuple[bytes, ...]
    returncode: int | None  # None when we stopped it (enough lines, or out of time)
    timed_out: bool
    stderr: str
    more: bool = False  # stopped because enough lines came: rg had more to say


def run_rg(argv: list[str], root_fd: int, fallback_cwd: Path, timeout_s: float, want_lines: int,
           sep: bytes = b"\n") -> RgRun:
    """Run rg inside the held root folder; stop at `want_lines` output records or at the deadline.

    `sep` splits records: b"\0" with `rg --null --files`, where a file name may hold a newline.
    """
    proc = _spawn(argv, root_fd, fallback_cwd)
    try:
        lines, stderr, timed_out = _collect(proc, time.monotonic() + timeout_s, want_lines, sep)
    finally:
        _reap(proc)
    stopped = timed_out or len(lines) >= want_lines
    return RgRun(tuple(lines), None if stopped else proc.returncode, timed_out, stderr,
                 more=len(lines) >= want_lines)


def _spawn(argv: list[str], root_fd: int, fallback_cwd: Path) -> subprocess.Popen:
    proc_dir = f"/proc/self/fd/{root_fd}"
    # The child chdirs through its own copy of our root descriptor, so a renamed or swapped
    # workspace path cannot redirect the search.
    cwd = proc_dir if os.path.isdir(proc_dir) else str(fallback_cwd)
    env = {k: v for k, v in os.environ.items() if k != "RIPGREP_CONFIG_PATH"}
    return subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, pass_fds=(root_fd,) if cwd == proc_dir else ())


def _reap(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.kill()
    proc.wait()
    proc.stdout.close()
    proc.stderr.close()


@dataclass
class _Output:
    """What rg wrote so far: whole records, the unfinished last one, and the head of stderr."""

    sep: bytes
    lines: list[bytes] = field(default_factory=list)
    partial: bytes = b""
    err: bytes = b""

    def add(self, chunk: bytes, is_stderr: bool) -> None:
        if is_stderr:
            self.err = (self.err + chunk)[:4096]
        else:
            *done, self.partial = (self.partial + chunk).split(self.sep)
            self.lines.extend(done)

    def records(self, want_lines: int) -> list[bytes]:
        """The records, the unfinished last one counted too once rg has ended."""
        if self.partial and len(self.lines) < want_lines:
            self.lines.append(self.partial)
        return self.lines[:want_lines]


def _collect(proc: subprocess.Popen, deadline: float, want_lines: int,
             sep: bytes) -> tuple[list[bytes], str, bool]:
    out = _Output(sep)
    with selectors.DefaultSelector() as sel:
        sel.register(proc.stdout, selectors.EVENT_READ)
        sel.register(proc.stderr, selectors.EVENT_READ)
        while sel.get_map() and len(out.lines) < want_lines:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return out.lines, out.err.decode("utf-8", "replace"), True
            _read_ready(sel, remaining, out, proc.stderr)
    return out.records(want_lines), out.err.decode("utf-8", "replace"), False


def _read_ready(sel: selectors.BaseSelector, timeout: float, out: _Output, stderr: object) -> None:
    for key, _ in sel.select(timeout):
        chunk = os.read(key.fd, 65536)
        if not chunk:
            sel.unregister(key.fileobj)  # that stream ended
        else:
            out.add(chunk, key.fileobj is stderr)

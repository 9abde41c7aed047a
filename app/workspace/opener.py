"""Open a path beneath a held directory descriptor, never by re-resolving a name from `/`.

Two strategies with the same policy (symlinks are followed only while they stay beneath the root,
absolute symlinks and /proc magic links are refused):

- Linux openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS): the kernel enforces it atomically.
- Elsewhere (old kernels, seccomp, macOS): walk component by component with O_NOFOLLOW and dir_fd,
  resolving each symlink ourselves against the stack of directory descriptors we already hold.
"""

from __future__ import annotations

import ctypes
import errno
import os
import platform
from dataclasses import dataclass, field

_OPENAT2_NR = {"x86_64": 437, "aarch64": 437, "arm64": 437}
_RESOLVE_NO_MAGICLINKS = 0x02
_RESOLVE_BENEATH = 0x08
_MAX_SYMLINK_HOPS = 40
_O_PATHLESS_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC | getattr(os, "O_NOFOLLOW", 0)


class EscapeError(OSError):
    """The path would resolve outside the root (absolute symlink, `..` above root, magic link)."""


class _OpenHow(ctypes.Structure):
    _fields_ = [("flags", ctypes.c_uint64), ("mode", ctypes.c_uint64), ("resolve", ctypes.c_uint64)]


@dataclass
class Openat2:
    """The openat2 syscall through ctypes; `available()` probes once per instance."""

    _syscall: object = field(default=None, repr=False)
    _nr: int | None = None

    def __post_init__(self) -> None:
        self._nr = _OPENAT2_NR.get(platform.machine()) if os.name == "posix" and platform.system() == "Linux" else None
        if self._nr is not None:
            libc = ctypes.CDLL(None, use_errno=True)
            self._syscall = libc.syscall
            self._syscall.restype = ctypes.c_long

    def available(self, probe_fd: int) -> bool:
        if self._nr is None:
            return False
        try:
            os.close(self.open(probe_fd, ".", os.O_RDONLY | os.O_DIRECTORY))
            return True
        except OSError:
            return False

    def open(self, dir_fd: int, rel: str, flags: int) -> int:
        how = _OpenHow(flags | os.O_CLOEXEC, 0, _RESOLVE_BENEATH | _RESOLVE_NO_MAGICLINKS)
        for _ in range(8):  # EAGAIN: a concurrent rename made the kernel unsure; retrying is the documented answer
            fd = self._syscall(ctypes.c_long(self._nr), ctypes.c_int(dir_fd), ctypes.c_char_p(os.fsencode(rel)),
                               ctypes.byref(how), ctypes.c_size_t(ctypes.sizeof(how)))
            if fd >= 0:
                return int(fd)
            err = ctypes.get_errno()
            if err != errno.EAGAIN:
                break
        if err == errno.EXDEV:
            raise EscapeError(err, "path leads outside the workspace")
        raise OSError(err, os.strerror(err))


def open_beneath_by_steps(root_fd: int, parts: tuple[str, ...], flags: int) -> int:
    """Portable fallback: resolve one component at a time relative to descriptors we hold."""
    walk = _StepWalk(root_fd, list(parts))
    try:
        return walk.open(flags)
    finally:
        walk.close()


@dataclass
class _StepWalk:
    """One fallback resolution: the directories opened so far and the components still to resolve."""

    root_fd: int  # borrowed, never closed here
    pending: list[str]
    stack: list[int] = field(default_factory=list)  # directory fds we opened, closed by close()
    hops: int = 0

    @property
    def current(self) -> int:
        return self.stack[-1] if self.stack else self.root_fd

    def open(self, flags: int) -> int:
        while self.pending:
            fd = self._step(self.pending.pop(0), flags)
            if fd is not None:
                return fd
        return os.open(".", flags | os.O_CLOEXEC, dir_fd=self.current)

    def close(self) -> None:
        for fd in self.stack:
            os.close(fd)

    def _step(self, name: str, flags: int) -> int | None:
        """Resolve one component; the opened fd when it was the last one, else None."""
        if name == "..":
            self._up()
        elif name not in ("", "."):
            return self._enter(name, flags, last=not self.pending)
        return None

    def _up(self) -> None:
        if not self.stack:
            raise EscapeError(errno.EXDEV, "path leads outside the workspace")
        os.close(self.stack.pop())

    def _enter(self, name: str, flags: int, *, last: bool) -> int | None:
        """Open the last name, descend into any other, or queue a symlink's target in its place."""
        if last and flags & os.O_NOFOLLOW:
            return os.open(name, flags | os.O_CLOEXEC, dir_fd=self.current)
        if self._follow(name):
            return None
        if last:
            return os.open(name, flags | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=self.current)
        self.stack.append(os.open(name, _O_PATHLESS_DIR, dir_fd=self.current))
        return None

    def _follow(self, name: str) -> bool:
        """Queue the symlink's target in place of `name`; False when `name` is not a symlink."""
        target = _readlink_at(name, self.current)
        if target is None:
            return False
        self.hops += 1
        if self.hops > _MAX_SYMLINK_HOPS:
            raise OSError(errno.ELOOP, "too many levels of symbolic links")
        if target.startswith("/"):
            raise EscapeError(errno.EXDEV, "absolute symlink leads outside the workspace")
        self.pending[:0] = target.split("/")
        return True


def _readlink_at(name: str, dir_fd: int) -> str | None:
    """The symlink's target, or None when `name` is not a symlink (or does not exist)."""
    try:
        return os.readlink(name, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno in (errno.EINVAL, errno.ENOENT, errno.ENOTDIR):
            return None
        raise


@dataclass
class BeneathOpener:
    """Opens relative paths beneath `root_fd` with whichever strategy this system supports."""

    root_fd: int
    force_fallback: bool = False
    _openat2: Openat2 | None = None

    def __post_init__(self) -> None:
        candidate = None if self.force_fallback else Openat2()
        self._openat2 = candidate if candidate is not None and candidate.available(self.root_fd) else None

    @property
    def strategy(self) -> str:
        return "openat2" if self._openat2 else "O_NOFOLLOW walk"

    def open(self, parts: tuple[str, ...], flags: int) -> int:
        if self._openat2 is not None:
            return self._openat2.open(self.root_fd, "/".join(parts) or ".", flags)
        return open_beneath_by_steps(self.root_fd, parts, flags)

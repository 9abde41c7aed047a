"""The files git tracks in a workspace, read from its index (`.git/index`), without running git.

.gitignore does not apply to a file git already tracks (gitignore(5): "files already tracked by Git
are not affected"). Projects do track files under an ignored folder: ujson's C sources live in
`lib/`, which its .gitignore (GitHub's Python template) ignores. Hiding them hid the project's core
from every tool, so the workspace keeps tracked files whatever .gitignore says.

The index format (git's Documentation/gitformat-index.txt): a 12-byte header ("DIRC", version 2, 3
or 4, entry count), then the entries, each 40 bytes of stat data, the object id (20 bytes, or 32 in a
SHA-256 repository), 2 bytes of flags (3.. also extended flags when flag 0x4000 is set) and the path,
NUL-terminated; versions 2 and 3 pad each entry to a multiple of 8 bytes, version 4 writes each path
as the number of bytes to drop from the previous one (a varint) and the rest. Anything else (a
damaged or unknown index) reads as "nothing known": .gitignore then applies as before.
"""

from __future__ import annotations

import struct

MAX_INDEX_BYTES = 64 * 1024 * 1024  # a repository of ~500k files; larger ones keep .gitignore as is
_STAT_BYTES = 40
_EXTENDED = 0x4000
_SPARSE_DIR_MODE = 0o040000  # a sparse index's folder entry, not a file


def tracked_paths(data: bytes, hash_bytes: int = 20) -> frozenset[str] | None:
    """The paths of the index's file entries, or None when `data` is not an index this reads."""
    if len(data) < 12 or data[:4] != b"DIRC":
        return None
    version, count = struct.unpack(">II", data[4:12])
    if version not in (2, 3, 4):
        return None
    paths: list[str] = []
    offset, previous = 12, b""
    fixed = _STAT_BYTES + hash_bytes + 2
    try:
        for _ in range(count):
            start = offset
            mode = struct.unpack(">I", data[offset + 24:offset + 28])[0]
            (flags,) = struct.unpack(">H", data[offset + fixed - 2:offset + fixed])
            offset += fixed + (2 if version >= 3 and flags & _EXTENDED else 0)
            if version == 4:
                drop, offset = _varint(data, offset)
                end = data.index(b"\0", offset)
                name = previous[:len(previous) - drop] + data[offset:end]
                offset = end + 1
            else:
                end = data.index(b"\0", offset)
                name = data[offset:end]
                offset = start + ((end - start) // 8 + 1) * 8  # NUL-padded to a multiple of 8
            previous = name
            if mode & 0o170000 != _SPARSE_DIR_MODE:
                paths.append(name.decode("utf-8", "surrogateescape"))
    except (struct.error, ValueError, IndexError):
        return None
    return frozenset(paths) if offset <= len(data) else None


def _varint(data: bytes, offset: int) -> tuple[int, int]:
    """Git's offset varint (each continuation adds one before shifting)."""
    byte = data[offset]
    value = byte & 0x7F
    offset += 1
    while byte & 0x80:
        byte = data[offset]
        value = ((value + 1) << 7) | (byte & 0x7F)
        offset += 1
    return value, offset


def hash_bytes_of(config: str) -> int:
    """20 for SHA-1 repositories, 32 when .git/config sets `objectformat = sha256`."""
    for line in config.splitlines():
        key, _, value = line.strip().partition("=")
        if key.strip().lower() == "objectformat" and value.strip().lower() == "sha256":
            return 32
    return 20


def tracked_folders(paths: frozenset[str]) -> frozenset[str]:
    """Every folder that holds a tracked file, at any depth."""
    out: set[str] = set()
    for path in paths:
        parts = path.split("/")[:-1]
        for i in range(1, len(parts) + 1):
            out.add("/".join(parts[:i]))
    return frozenset(out)

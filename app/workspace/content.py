"""Bytes to text: BOM sniffing, binary detection, and a short name for binary types."""

from __future__ import annotations

import codecs
from dataclasses import dataclass

SNIFF_BYTES = 8192
_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),  # before UTF-16 LE: it starts with the same two bytes
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG", "PNG image"), (b"\xff\xd8\xff", "JPEG image"), (b"GIF8", "GIF image"),
    (b"%PDF", "PDF document"), (b"PK\x03\x04", "ZIP archive (also jar/docx/whl)"),
    (b"\x7fELF", "ELF executable or library"), (b"\x1f\x8b", "gzip archive"),
    (b"SQLite format 3", "SQLite database"), (b"MZ", "Windows executable"),
    (b"\x00asm", "WebAssembly module"), (b"\xca\xfe\xba\xbe", "Java class or Mach-O fat binary"),
    (b"\xcf\xfa\xed\xfe", "Mach-O executable"), (b"GGUF", "GGUF model"), (b"BZh", "bzip2 archive"),
    (b"\xfd7zXZ", "xz archive"), (b"7z\xbc\xaf", "7-Zip archive"), (b"RIFF", "RIFF media (wav/avi/webp)"),
    (b"\x00\x00\x01\x00", "icon image"), (b"wOFF", "web font"), (b"OTTO", "font"),
)


@dataclass(frozen=True)
class Sniffed:
    """What the first bytes of a file say: a text encoding, or that it is binary and of what type."""

    binary: bool
    encoding: str = "utf-8"
    bom_length: int = 0
    kind: str = "text"


def sniff(head: bytes) -> Sniffed:
    for bom, encoding in _BOMS:
        if head.startswith(bom):
            return Sniffed(False, encoding, len(bom), f"text ({encoding} with BOM)")
    if b"\x00" in head[:SNIFF_BYTES]:
        return Sniffed(True, kind=binary_kind(head))
    return Sniffed(False)


def binary_kind(head: bytes) -> str:
    for magic, name in _MAGIC:
        if head.startswith(magic):
            return name
    return "binary data"


def decode(data: bytes, sniffed: Sniffed) -> str:
    """Decode with replacement: a stray bad byte must not hide the rest of the file."""
    return data[sniffed.bom_length:].decode(sniffed.encoding, errors="replace")


def human_size(size: int) -> str:
    value = float(size)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if value < 1024 or unit == "TiB":
            return f"{int(value)} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{size} B"

"""Path rules that need no disk: a path the model proposes is refused here before anything opens.

The rules are strict on purpose: a refused legitimate path costs the model one retry, an accepted
hostile one could cost the user a secret.
"""

from __future__ import annotations

import re

from app.errors import PathRefusedError

# A segment longer than NAME_MAX cannot exist on Linux/macOS; refusing early gives a clearer message.
MAX_SEGMENT_BYTES = 255
_DRIVE = re.compile(r"^[A-Za-z]:")
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")


def has_control_chars(text: str) -> bool:
    """C0, DEL and C1 control characters: they can fake line breaks or terminal escapes in output."""
    return _CONTROL.search(text) is not None


def escaped_name(name: str) -> str:
    """A name safe to show: bytes that are not UTF-8 (os.fsdecode's surrogates) and control
    characters written as `\\xNN`, so a listing can name a file no tool may open by that name."""
    raw = name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", raw)


def split_relative(path: str, max_chars: int) -> tuple[str, ...]:
    """Check a workspace-relative path and return its segments; () means the workspace root."""
    if not isinstance(path, str):
        raise PathRefusedError("a path must be a string")
    _refuse_bad_characters(path, max_chars)
    if path.startswith("/") or _DRIVE.match(path):
        raise PathRefusedError(f"absolute paths are refused: give a path relative to the workspace, not {path!r}")
    if path.startswith("~"):
        raise PathRefusedError("'~' paths are refused: give a path relative to the workspace")
    parts = tuple(p for p in path.split("/") if p not in ("", "."))
    if ".." in parts:
        raise PathRefusedError(f"'..' is refused in {path!r}: paths stay inside the workspace")
    for part in parts:
        if len(part.encode("utf-8", "surrogateescape")) > MAX_SEGMENT_BYTES:
            raise PathRefusedError(f"a path segment is longer than {MAX_SEGMENT_BYTES} bytes")
    return parts


def _refuse_bad_characters(path: str, max_chars: int) -> None:
    if len(path) > max_chars:
        raise PathRefusedError(f"path is {len(path)} characters, longer than the limit of {max_chars}")
    if "\x00" in path:
        raise PathRefusedError("paths with a NUL character are refused")
    if has_control_chars(path):
        raise PathRefusedError("paths with control characters are refused")
    if "\\" in path:
        raise PathRefusedError("backslashes are refused: separate folders with '/'")
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        raise PathRefusedError("the path is not valid text (lone surrogate characters)") from None


def join_parts(parts: tuple[str, ...]) -> str:
    """The display form of a relative path: '.' for the root."""
    return "/".join(parts) or "."

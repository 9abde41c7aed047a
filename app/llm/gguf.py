"""A pure-Python GGUF header reader: metadata and tensor shapes, never the weights.

Used to describe models found on disk (architecture, size, quantization, context, chat template)
and to validate a file before llama.cpp sees it, so a bad file gives a clear ModelLoadError
instead of a crash inside C code. The file is memory-mapped, so skipping the big tokenizer
arrays costs a walk over their lengths and nothing is read into memory wholesale.

Kept instead of the `gguf` package (measured 2026-11-30, gguf 0.19.0, the 98 MB default model,
whole process incl. interpreter start, 3 runs): this reader 0.14-0.18 s and 15 MB peak; gguf's
GGUFReader 6.0-8.1 s and 196 MB (it imports numpy and builds every field and tensor record). The
picker describes every model found on disk, so the gap is paid per file.
"""

from __future__ import annotations

import mmap
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.errors import ModelLoadError

GGUF_MAGIC = b"GGUF"
_MAX_KV = 1_000_000  # far above any real file; guards against garbage counts
_MAX_TENSORS = 1_000_000

# GGUF value types -> struct format of a fixed-size scalar
_SCALARS: dict[int, str] = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f",
                            7: "<?", 10: "<Q", 11: "<q", 12: "<d"}
_STRING, _ARRAY = 8, 9
_U64 = struct.Struct("<Q")

# llama_ftype (general.file_type) -> the name users know
FILE_TYPES: dict[int, str] = {
    0: "F32", 1: "F16", 2: "Q4_0", 3: "Q4_1", 7: "Q8_0", 8: "Q5_0", 9: "Q5_1", 10: "Q2_K",
    11: "Q3_K_S", 12: "Q3_K_M", 13: "Q3_K_L", 14: "Q4_K_S", 15: "Q4_K_M", 16: "Q5_K_S",
    17: "Q5_K_M", 18: "Q6_K", 19: "IQ2_XXS", 20: "IQ2_XS", 21: "Q2_K_S", 22: "IQ3_XS",
    23: "IQ3_XXS", 24: "IQ1_S", 25: "IQ4_NL", 26: "IQ3_S", 27: "IQ3_M", 28: "IQ2_S", 29: "IQ2_M",
    30: "IQ4_XS", 31: "IQ1_M", 32: "BF16", 36: "TQ1_0", 37: "TQ2_0", 38: "MXFP4_MOE",
}


@dataclass(frozen=True)
class StringArray:
    """A string array left in the file: where it starts and how many items it holds."""

    offset: int
    count: int


@dataclass(frozen=True)
class GGUFHeader:
    path: str
    version: int
    tensor_count: int
    metadata: dict[str, Any]  # arrays of numbers are skipped (None); string arrays are StringArray
    parameter_count: int = 0
    token_texts: dict[str, str] = field(default_factory=dict)  # "bos"/"eos" -> token text

    def get(self, key: str, default: Any = None) -> Any:
        return self.metadata.get(key, default)

    @property
    def architecture(self) -> str:
        return str(self.get("general.architecture", "") or "")

    @property
    def context_length(self) -> int:
        value = self.get(f"{self.architecture}.context_length", 0)
        return int(value) if isinstance(value, int) else 0

    @property
    def quantization(self) -> str:
        ft = self.get("general.file_type")
        return FILE_TYPES.get(ft, f"type {ft}") if isinstance(ft, int) else ""

    @property
    def chat_template(self) -> str | None:
        value = self.get("tokenizer.chat_template")
        return value if isinstance(value, str) else None

    @property
    def name(self) -> str:
        value = self.get("general.name")
        return value if isinstance(value, str) and value.strip() else Path(self.path).stem

    @property
    def parameters(self) -> str:
        """Human parameter count: computed from tensor shapes, else the file's own size label."""
        if self.parameter_count:
            return format_parameters(self.parameter_count)
        label = self.get("general.size_label")
        return label if isinstance(label, str) else ""


class _Cursor:
    """Bounds-checked reads over the mapped file; running off the end means a truncated file."""

    def __init__(self, buf: mmap.mmap | bytes, path: str) -> None:
        self.buf, self.pos, self.path = buf, 0, path

    def need(self, n: int) -> None:
        if n < 0 or self.pos + n > len(self.buf):
            raise self.truncated()

    def truncated(self) -> ModelLoadError:
        return ModelLoadError(f"{self.path}: truncated GGUF file (header ends early at byte {self.pos})")

    def scalar(self, fmt: str) -> Any:
        size = struct.calcsize(fmt)
        self.need(size)
        (value,) = struct.unpack_from(fmt, self.buf, self.pos)
        self.pos += size
        return value

    def string(self) -> str:
        n = self.scalar("<Q")
        self.need(n)
        raw = bytes(self.buf[self.pos:self.pos + n])
        self.pos += n
        return raw.decode("utf-8", errors="replace")

    def skip_strings(self, count: int) -> None:
        """Step over `count` strings (a length, then its bytes). One tight loop: a tokenizer's
        vocabulary is 50-150k strings, stepped over up to four times per header (the tokens, the
        merges, then to the BOS and EOS texts); with a bounds check and two calls per string, the
        1.5B default's header took 0.21 s of Python holding the GIL, and parsed while a question
        started (model discovery) it held the window's thread up (`make bench` ui_stall)."""
        buf, pos, end = self.buf, self.pos, len(self.buf)
        unpack = _U64.unpack_from
        start = pos
        try:
            for _ in range(count):
                start = pos
                pos += 8 + unpack(buf, pos)[0]
        except struct.error:  # a length read past the end
            pos = end + 1
        if pos > end:
            self.pos = start  # the string that runs past the end
            raise self.truncated()
        self.pos = pos


def _read_value(cur: _Cursor, vtype: int) -> Any:
    if vtype in _SCALARS:
        return cur.scalar(_SCALARS[vtype])
    if vtype == _STRING:
        return cur.string()
    if vtype == _ARRAY:
        return _read_array(cur)
    raise ModelLoadError(f"{cur.path}: corrupt GGUF header (unknown value type {vtype} at byte {cur.pos})")


def _read_array(cur: _Cursor) -> StringArray | list[Any] | None:
    """Small arrays are read; big ones are skipped (numbers) or located (strings)."""
    item_type, count = cur.scalar("<I"), cur.scalar("<Q")
    if item_type in _SCALARS:
        size = struct.calcsize(_SCALARS[item_type]) * count
        cur.need(size)
        if count <= 16:
            return [cur.scalar(_SCALARS[item_type]) for _ in range(count)]
        cur.pos += size
        return None
    if item_type == _STRING:
        start = cur.pos
        cur.skip_strings(count)
        return StringArray(start, count)
    if item_type == _ARRAY:  # nested arrays do not occur in practice; read them to stay in step
        return [_read_array(cur) for _ in range(count)]
    raise ModelLoadError(f"{cur.path}: corrupt GGUF header (unknown array type {item_type})")


def _token_texts(cur: _Cursor, meta: dict[str, Any]) -> dict[str, str]:
    tokens = meta.get("tokenizer.ggml.tokens")
    if not isinstance(tokens, StringArray):
        return {}
    wanted = sorted((tid, which) for which in ("bos", "eos")
                    if isinstance(tid := meta.get(f"tokenizer.ggml.{which}_token_id"), int)
                    and 0 <= tid < tokens.count)
    found: dict[str, str] = {}
    cur.pos, at, text = tokens.offset, 0, ""  # one walk for both, in id order (often near the end)
    for tid, which in wanted:
        if tid >= at:  # else the same id as the one before (BOS = EOS): the same text
            cur.skip_strings(tid - at)
            text, at = cur.string(), tid + 1
        found[which] = text
    return found


def _parameter_count(cur: _Cursor, tensor_count: int) -> int:
    """Sum of tensor element counts; 0 when the tensor table is cut off (metadata is still useful)."""
    total = 0
    try:
        for _ in range(tensor_count):
            cur.string()
            dims = cur.scalar("<I")
            n = 1
            for _ in range(min(dims, 8)):
                n *= cur.scalar("<Q")
            cur.scalar("<I")
            cur.scalar("<Q")
            total += n
    except ModelLoadError:
        return 0
    return total


def format_parameters(n: int) -> str:
    for unit, scale in (("T", 1e12), ("B", 1e9), ("M", 1e6), ("K", 1e3)):
        if n >= scale:
            value = n / scale
            return f"{value:.0f}{unit}" if value >= 10 else f"{value:.1f}{unit}"
    return str(n)


def _open_checked(path: Path) -> int:
    if not path.exists():
        raise ModelLoadError(f"{path}: model file not found")
    if path.is_dir():
        raise ModelLoadError(f"{path}: is a folder, not a GGUF model file")
    if not path.is_file():
        raise ModelLoadError(f"{path}: not a regular file")
    size = path.stat().st_size
    if size == 0:
        raise ModelLoadError(f"{path}: the file is empty, not a GGUF model")
    return size


def is_gguf(path: Path) -> bool:
    """Cheap check of the magic bytes (used to spot Ollama's extensionless blobs)."""
    try:
        with open(path, "rb") as fh:
            return fh.read(4) == GGUF_MAGIC
    except OSError:
        return False


def read_header(path: str | Path) -> GGUFHeader:
    """Read a GGUF file's header, or raise ModelLoadError saying what is wrong with it."""
    p = Path(path)
    _open_checked(p)
    try:
        with open(p, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as buf:
            return _parse(_Cursor(buf, str(p)))
    except OSError as exc:
        raise ModelLoadError(f"{p}: cannot read the file ({exc.strerror or exc})") from None


def _parse(cur: _Cursor) -> GGUFHeader:
    head = bytes(cur.buf[:4])
    if not GGUF_MAGIC.startswith(head) or (head != GGUF_MAGIC and len(head) == 4):
        raise ModelLoadError(f"{cur.path}: not a GGUF model file (it does not start with 'GGUF')")
    cur.need(4)
    cur.pos = 4
    version = cur.scalar("<I")
    if version not in (2, 3):
        raise ModelLoadError(f"{cur.path}: unsupported GGUF version {version} (re-convert the model)")
    tensor_count, kv_count = cur.scalar("<Q"), cur.scalar("<Q")
    if tensor_count > _MAX_TENSORS or kv_count > _MAX_KV:
        raise ModelLoadError(f"{cur.path}: corrupt GGUF header (implausible counts)")
    meta: dict[str, Any] = {}
    for _ in range(kv_count):
        key = cur.string()
        meta[key] = _read_value(cur, cur.scalar("<I"))
    params = _parameter_count(cur, tensor_count)
    return GGUFHeader(cur.path, version, tensor_count, meta, params, _token_texts(cur, meta))

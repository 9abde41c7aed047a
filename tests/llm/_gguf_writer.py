"""A tiny GGUF writer for tests: synthetic headers with every value type, no real weights."""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Any

_FMT = {"u8": (0, "<B"), "i8": (1, "<b"), "u16": (2, "<H"), "i16": (3, "<h"), "u32": (4, "<I"),
        "i32": (5, "<i"), "f32": (6, "<f"), "bool": (7, "<?"), "u64": (10, "<Q"), "i64": (11, "<q"),
        "f64": (12, "<d")}


def _string(text: str) -> bytes:
    data = text.encode("utf-8")
    return struct.pack("<Q", len(data)) + data


def _value(kind: str, value: Any) -> bytes:
    if kind == "str":
        return struct.pack("<I", 8) + _string(value)
    if kind.startswith("arr:"):
        item = kind[4:]
        if item == "str":
            body = b"".join(_string(v) for v in value)
            return struct.pack("<IIQ", 9, 8, len(value)) + body
        code, fmt = _FMT[item]
        return struct.pack("<IIQ", 9, code, len(value)) + b"".join(struct.pack(fmt, v) for v in value)
    code, fmt = _FMT[kind]
    return struct.pack("<I", code) + struct.pack(fmt, value)


def gguf_bytes(metadata: list[tuple[str, str, Any]], tensors: list[tuple[str, list[int]]] = ()) -> bytes:
    out = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(metadata))
    for key, kind, value in metadata:
        out += _string(key) + _value(kind, value)
    for name, dims in tensors:
        out += _string(name) + struct.pack("<I", len(dims)) + b"".join(struct.pack("<Q", d) for d in dims)
        out += struct.pack("<IQ", 0, 0)
    return out


def chat_model_metadata(arch: str = "llama", name: str = "Tiny Test", template: str | None = None,
                        ctx: int = 4096, file_type: int = 15) -> list[tuple[str, str, Any]]:
    meta = [("general.architecture", "str", arch), ("general.name", "str", name),
            (f"{arch}.context_length", "u32", ctx), ("general.file_type", "u32", file_type),
            ("tokenizer.ggml.tokens", "arr:str", ["<unk>", "<s>", "</s>", "hello"]),
            ("tokenizer.ggml.bos_token_id", "u32", 1), ("tokenizer.ggml.eos_token_id", "u32", 2)]
    if template is not None:
        meta.append(("tokenizer.chat_template", "str", template))
    return meta


def write_gguf(path: Path, metadata: list[tuple[str, str, Any]] | None = None,
               tensors: list[tuple[str, list[int]]] = (), **kwargs: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(gguf_bytes(metadata if metadata is not None else chat_model_metadata(**kwargs),
                                tensors))
    return path

"""The GGUF header reader: the real default model, every value type, and every kind of bad file."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from _gguf_writer import chat_model_metadata, gguf_bytes, write_gguf

from app.errors import ModelLoadError
from app.llm.gguf import StringArray, format_parameters, is_gguf, read_header


@pytest.mark.real_model
def test_real_model_header_describes_smollm2(real_model_path: Path) -> None:
    h = read_header(real_model_path)
    assert (h.architecture, h.quantization, h.context_length) == ("llama", "Q4_1", 8192)
    assert h.parameters == "135M"
    assert h.token_texts == {"bos": "<|im_start|>", "eos": "<|im_end|>"}
    assert "<|im_start|>" in (h.chat_template or "")
    assert isinstance(h.get("tokenizer.ggml.tokens"), StringArray)
    assert h.get("tokenizer.ggml.tokens").count == 49152


def test_every_value_type_is_read(tmp_path: Path) -> None:
    meta = [("a.u8", "u8", 7), ("a.i8", "i8", -7), ("a.u16", "u16", 600), ("a.i16", "i16", -600),
            ("a.u32", "u32", 70000), ("a.i32", "i32", -70000), ("a.f32", "f32", 0.5),
            ("a.bool", "bool", True), ("a.u64", "u64", 2**40), ("a.i64", "i64", -(2**40)),
            ("a.f64", "f64", 0.25), ("a.str", "str", "héllo"), ("a.small", "arr:i32", [1, 2, 3]),
            ("a.big", "arr:f32", [0.0] * 1000), ("a.strs", "arr:str", ["x", "y"]),
            ("general.architecture", "str", "qwen2")]
    h = read_header(write_gguf(tmp_path / "all.gguf", meta, tensors=[("w", [4, 8]), ("b", [8])]))
    assert h.get("a.u8") == 7 and h.get("a.i16") == -600 and h.get("a.i64") == -(2**40)
    assert h.get("a.f32") == 0.5 and h.get("a.f64") == 0.25 and h.get("a.bool") is True
    assert h.get("a.str") == "héllo" and h.get("a.small") == [1, 2, 3]
    assert h.get("a.big") is None  # skipped, not loaded
    assert h.get("a.strs") == StringArray(h.get("a.strs").offset, 2)
    assert h.architecture == "qwen2" and h.tensor_count == 2 and h.parameter_count == 40


def test_bos_eos_text_read_from_token_list(tmp_path: Path) -> None:
    h = read_header(write_gguf(tmp_path / "t.gguf", template="{{ x }}"))
    assert h.token_texts == {"bos": "<s>", "eos": "</s>"}
    assert h.quantization == "Q4_K_M" and h.context_length == 4096 and h.name == "Tiny Test"


@pytest.mark.parametrize("bos,eos,expected", [
    (3, 1, {"bos": "hello", "eos": "<s>"}),  # EOS before BOS in the list: read in one walk
    (2, 2, {"bos": "</s>", "eos": "</s>"}),  # one token for both
    (1, 9, {"bos": "<s>"}),  # an id past the list names no text
])
def test_bos_eos_texts_in_any_order(tmp_path: Path, bos: int, eos: int, expected: dict) -> None:
    meta = [(k, t, bos if k.endswith("bos_token_id") else eos if k.endswith("eos_token_id") else v)
            for k, t, v in chat_model_metadata()]
    assert read_header(write_gguf(tmp_path / "t.gguf", meta)).token_texts == expected


def test_a_string_list_cut_inside_is_a_truncated_file(tmp_path: Path) -> None:
    data = gguf_bytes(chat_model_metadata())
    start = data.index(b"hello") - 8  # the last token's length
    for cut in (start + 3, start + 10):  # inside its length, inside its bytes
        (tmp_path / "cut.gguf").write_bytes(data[:cut])
        with pytest.raises(ModelLoadError, match="truncated"):
            read_header(tmp_path / "cut.gguf")


@pytest.mark.parametrize("n,label", [(134_515_008, "135M"), (7_241_732_096, "7.2B"), (999, "999")])
def test_parameter_labels(n: int, label: str) -> None:
    assert format_parameters(n) == label


def _bad(path: Path, match: str) -> None:
    with pytest.raises(ModelLoadError, match=match):
        read_header(path)


def test_empty_file(tmp_path: Path) -> None:
    (tmp_path / "empty.gguf").write_bytes(b"")
    _bad(tmp_path / "empty.gguf", "empty")


def test_random_bytes(tmp_path: Path) -> None:
    (tmp_path / "random.gguf").write_bytes(os.urandom(4096).replace(b"G", b"x"))
    _bad(tmp_path / "random.gguf", "not a GGUF")


@pytest.mark.parametrize("text", ["this is a README, not a model\n", "vm\n"])
def test_text_file_is_not_gguf(tmp_path: Path, text: str) -> None:
    (tmp_path / "readme.gguf").write_text(text)
    _bad(tmp_path / "readme.gguf", "not a GGUF")


@pytest.mark.parametrize("cut", [2, 5, 12, 30, 200])
def test_truncated_header(tmp_path: Path, cut: int) -> None:
    data = gguf_bytes(chat_model_metadata(template="{{ messages }}"))
    (tmp_path / "cut.gguf").write_bytes(data[:cut])
    _bad(tmp_path / "cut.gguf", "truncated")


@pytest.mark.real_model
def test_truncated_real_model(tmp_path: Path, real_model_path: Path) -> None:
    with open(real_model_path, "rb") as fh:
        (tmp_path / "cut.gguf").write_bytes(fh.read(500_000))  # cut inside the token list
    _bad(tmp_path / "cut.gguf", "truncated")


def test_directory(tmp_path: Path) -> None:
    (tmp_path / "folder.gguf").mkdir()
    _bad(tmp_path / "folder.gguf", "folder")


def test_missing_file(tmp_path: Path) -> None:
    _bad(tmp_path / "nope.gguf", "not found")


def test_garbage_counts_are_refused(tmp_path: Path) -> None:
    import struct

    (tmp_path / "huge.gguf").write_bytes(b"GGUF" + struct.pack("<IQQ", 3, 2**60, 2**60))
    _bad(tmp_path / "huge.gguf", "implausible")


def test_unsupported_version(tmp_path: Path) -> None:
    import struct

    (tmp_path / "v9.gguf").write_bytes(b"GGUF" + struct.pack("<IQQ", 9, 0, 0))
    _bad(tmp_path / "v9.gguf", "version 9")


def test_is_gguf_by_magic(tmp_path: Path) -> None:
    blob = write_gguf(tmp_path / "sha256-abc")
    (tmp_path / "sha256-def").write_text('{"license": "MIT"}')
    assert is_gguf(blob) and not is_gguf(tmp_path / "sha256-def") and not is_gguf(tmp_path / "x")

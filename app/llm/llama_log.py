"""llama.cpp's log: forwarded into Python's logging, or collected while a model loads so a failed
load can say why (the backend hands in the llama_cpp module it imported)."""

from __future__ import annotations

import ctypes
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import Any

from app.errors import ModelLoadError

log = logging.getLogger("app.llm.llama_backend")
LOG_TAIL_LINES = 30  # of llama.cpp's log, kept on a load error


@cache
def log_forwarder(llama_cpp: Any) -> Any:
    """llama.cpp's log into Python's logging (debug), not onto stderr: llama-cpp-python maps the
    current level numbers one off and prints warnings (a Stop inside a batch logs one) even with
    verbose=False. Installed when first made; kept alive by the cache (C holds only a pointer)."""
    @llama_cpp.llama_log_callback
    def forward(level: int, text: bytes, user_data: ctypes.c_void_p) -> None:
        log.debug("llama.cpp: %s", text.decode("utf-8", errors="replace").rstrip())

    llama_cpp.llama_log_set(forward, ctypes.c_void_p(0))
    return forward


@contextmanager
def captured_log(llama_cpp: Any, lines: list[str]) -> Iterator[None]:
    """Collect llama.cpp's log (verbose is off) so a failed load can say why."""

    @llama_cpp.llama_log_callback
    def collect(level: int, text: bytes, user_data: ctypes.c_void_p) -> None:
        lines.append(text.decode("utf-8", errors="replace"))
        del lines[:-200]

    llama_cpp.llama_log_set(collect, ctypes.c_void_p(0))
    try:
        yield
    finally:
        llama_cpp.llama_log_set(log_forwarder(llama_cpp), ctypes.c_void_p(0))


def load_error(path: Path, exc: BaseException, log_lines: list[str]) -> ModelLoadError:
    text = "".join(log_lines)
    errors = [ln.strip() for ln in text.splitlines() if "error" in ln.lower() or "unknown" in ln.lower()]
    reason = "; ".join(errors[-3:]) or str(exc) or type(exc).__name__
    err = ModelLoadError(f"{path}: llama.cpp could not load this model: {reason}")
    err.log = "\n".join(text.splitlines()[-LOG_TAIL_LINES:])  # type: ignore[attr-defined]
    return err

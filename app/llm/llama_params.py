"""Load-time llama.cpp parameters that llama_cpp.Llama() does not expose (part of the llama-cpp
backend: only llama_backend uses it)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


def cpu_reports_amx(llama_cpp: Any) -> bool:
    return "AMX_INT8 = 1" in llama_cpp.llama_print_system_info().decode("utf-8", errors="replace")


@contextmanager
def model_params(llama_cpp: Any, fields: dict[str, Any]) -> Iterator[None]:
    """Set llama_model_params fields that Llama() does not expose, for the duration of one load.

    Used to turn off llama.cpp's extra weight buffers (repacking) on CPUs that report AMX: under
    some hypervisors the kernel grants AMX but its tile instructions still raise SIGILL, which
    kills the whole app on the first token. Without them AMX is simply not used.
    """
    low = llama_cpp.llama_cpp
    original = low.llama_model_default_params

    def patched() -> Any:
        params = original()
        for name, value in fields.items():
            setattr(params, name, value)
        return params

    low.llama_model_default_params = patched if fields else original
    try:
        yield
    finally:
        low.llama_model_default_params = original

"""Load ggml's CPU code when llama-cpp-python is the portable build (GGML_BACKEND_DL).

`make setup` installs the llama-cpp-python wheel the installers bundle
(packaging/build_portable_wheel.sh): one compile serves the venv and the packaging tests. In that
build libggml has no CPU code; each CPU level (x64, sse42, haswell ...) is a
`libggml-cpu-<variant>.so` in `<site-packages>/bin/`, and ggml must be asked to score them against
this CPU and load the best. llama-cpp-python never asks for that folder (llama_backend_init only
searches the Python executable's folder and the working directory), so this module does, before
the first model load. A native build has no variant libraries: nothing happens. In the frozen app
packaging/hooks/pyi_rth_ggml_backends.py has already loaded them: nothing happens either.

The call goes through libllama's own libggml (opened by its soname with RTLD_NOLOAD), not through
llama_cpp._ggml, which opens a second copy whose backends libllama never sees.
Environment: BURROW_GGML_BACKEND_DIR loads the variants from another folder;
BURROW_GGML_VERBOSE=1 prints ggml's log of what it loaded.
"""

from __future__ import annotations

import ctypes
import functools
import os
import sys
from pathlib import Path

BACKEND_DIR_ENV = "BURROW_GGML_BACKEND_DIR"
VERBOSE_ENV = "BURROW_GGML_VERBOSE"
VARIANT_GLOB = "libggml-cpu-*.so"
# The soname libllama records for libggml; the portable build is made for Linux only.
GGML_SONAME = "libggml.so.0"
_LOG_CALLBACK = ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p)


def variant_dir(package_dir: Path) -> Path | None:
    """The folder of CPU variant libraries for the llama_cpp package in package_dir, if any."""
    folder = Path(os.environ.get(BACKEND_DIR_ENV) or package_dir.parent / "bin")
    if not sys.platform.startswith("linux") or not any(folder.glob(VARIANT_GLOB)):
        return None
    return folder


@functools.cache
def load_cpu_variants(package_dir: Path) -> str:
    """Register the best CPU variant once per process; returns ggml's log of it ('' if no-op)."""
    folder = variant_dir(package_dir)
    if folder is None:
        return ""
    ctypes.CDLL(str(package_dir / "lib" / "libllama.so"), mode=ctypes.RTLD_GLOBAL)
    ggml = ctypes.CDLL(GGML_SONAME, mode=os.RTLD_NOLOAD | ctypes.RTLD_GLOBAL)
    ggml.ggml_backend_reg_count.restype = ctypes.c_size_t
    if ggml.ggml_backend_reg_count():
        return ""  # the bundle's runtime hook (or an earlier caller) did it
    log = _load_quietly(ggml, folder)
    if os.environ.get(VERBOSE_ENV) == "1":
        sys.stderr.write(log)
    return log


def _load_quietly(ggml: ctypes.CDLL, folder: Path) -> str:
    """ggml_backend_load_all_from_path with ggml's log collected, then the old logger restored."""
    lines: list[str] = []
    collect = _LOG_CALLBACK(lambda _level, text, _data: lines.append(text.decode(errors="replace")))
    old_callback, old_data = ctypes.c_void_p(), ctypes.c_void_p()
    ggml.ggml_log_get.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_void_p)]
    ggml.ggml_log_set.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    ggml.ggml_backend_load_all_from_path.argtypes = [ctypes.c_char_p]
    ggml.ggml_log_get(ctypes.byref(old_callback), ctypes.byref(old_data))
    ggml.ggml_log_set(ctypes.cast(collect, ctypes.c_void_p), None)
    try:
        ggml.ggml_backend_load_all_from_path(str(folder).encode())
    finally:
        ggml.ggml_log_set(old_callback, old_data)
    return "".join(lines)


def generation_threads(threads: int) -> int:
    """Threads for generating tokens one at a time; prompts (batches) use all `threads`.

    With OMP_WAIT_POLICY=PASSIVE (set by llama_backend) every token's dozens of small matrix products
    each wake sleeping threads, and that hand-off costs more than the second thread gains.
    Measured on 2 cores, Qwen2.5-Coder-0.5B Q4_K_M, idle machine: 2 threads 15.6 tokens/s,
    1 thread 23.1; the prompt rate is the same (85 tokens/s) since it runs with both.
    Spinning threads (the OpenMP default) reach 32 tokens/s idle but 1.1 tokens/s when two other
    programs keep the cores busy, so passive waiting stays. Passive, on the 2-core machine of
    2026-12-06: SmolLM2 83 tokens/s with 1 thread, 37-40 with 2. `time_decode_threads` (opt-in,
    app.llm.decode_threads) times this count against all `threads` and keeps the faster."""
    return max(1, threads // 2)


def run_module(argv: list[str]) -> None:
    """`python -m app.llm.cpu_backends MODULE ARGS...`: run MODULE as __main__ with the CPU variants
    loaded. llama-cpp-python's own server (`llama_cpp.server`) needs this in the developer venv,
    whose llama-cpp-python is the portable build; the server tests and bench start it this way."""
    import runpy

    import llama_cpp

    if not argv:
        raise SystemExit("usage: python -m app.llm.cpu_backends MODULE [ARGS...]")
    load_cpu_variants(Path(llama_cpp.__file__).parent)
    sys.argv = [argv[0], *argv[1:]]
    runpy.run_module(argv[0], run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    run_module(sys.argv[1:])

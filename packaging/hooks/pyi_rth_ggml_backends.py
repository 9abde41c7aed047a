"""PyInstaller runtime hook: register ggml's CPU backend in the bundle before the app runs.

The portable llama-cpp-python is built with GGML_BACKEND_DL: libggml has no CPU code of its own,
and nothing in llama-cpp-python calls ggml_backend_load_all_from_path, so a model load would fail
with "no backends are loaded". We call it here, through the libggml that libllama links: the
llama_cpp._ggml module opens lib/libggml.so as a separate file, and backends registered in that
second copy are invisible to libllama. ggml then scores every libggml-cpu-<variant> against this
CPU (x64, sse42 ... sapphirerapids) and keeps the best one, so one bundle runs on any x86-64 CPU.

Environment: BURROW_GGML_BACKEND_DIR loads the variants from another folder (used to force a lower
variant in tests); BURROW_GGML_VERBOSE=1 prints ggml's own log of what it loaded.
"""

import ctypes
import os
import sys
from pathlib import Path

_LOG_CALLBACK = ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p)
# The names libllama records for libggml (DT_NEEDED), newest first.
_GGML_NAMES = {"linux": ("libggml.so.0", "libggml.so"), "darwin": ("libggml.0.dylib", "libggml.dylib"),
               "win32": ("ggml.dll",)}


def _already_loaded(names):
    """libllama's own libggml: opened by name with RTLD_NOLOAD, so nothing new is mapped."""
    mode = getattr(os, "RTLD_NOLOAD", 0) | ctypes.RTLD_GLOBAL
    for name in names:
        try:
            return ctypes.CDLL(name, mode=mode)
        except OSError:
            continue
    raise OSError(f"libllama did not load any of {names}")


def _load_backends(lib_dir, backend_dir, verbose):
    ctypes.CDLL(str(lib_dir / _llama_file()), mode=ctypes.RTLD_GLOBAL)
    ggml = _already_loaded(_GGML_NAMES.get(sys.platform, _GGML_NAMES["linux"]))
    lines = []
    keep = _LOG_CALLBACK(lambda _level, text, _data: lines.append(text.decode(errors="replace")))
    ggml.ggml_log_set.argtypes = [_LOG_CALLBACK, ctypes.c_void_p]
    ggml.ggml_log_set(keep, None)  # ggml_log_set lives in libggml-base, reached through libggml
    ggml.ggml_backend_load_all_from_path.argtypes = [ctypes.c_char_p]
    ggml.ggml_backend_load_all_from_path(str(backend_dir).encode())
    ggml.ggml_log_set(_LOG_CALLBACK(), None)  # a NULL callback restores ggml's default logger
    os.environ["BURROW_GGML_LOADED"] = "".join(ln for ln in lines if "loaded" in ln).strip()
    if verbose:
        sys.stderr.write("".join(lines))


def _llama_file():
    return {"darwin": "libllama.dylib", "win32": "llama.dll"}.get(sys.platform, "libllama.so")


def _main():
    bundle = Path(getattr(sys, "_MEIPASS", Path(__file__).parent))
    backend_dir = Path(os.environ.get("BURROW_GGML_BACKEND_DIR") or bundle / "ggml_backends")
    # rg from the ripgrep wheel travels in bin/; search code finds it on PATH like a system rg.
    os.environ["PATH"] = str(bundle / "bin") + os.pathsep + os.environ.get("PATH", "")
    if not backend_dir.is_dir():
        return  # a native (non-portable) build: libggml carries its CPU code itself
    try:
        _load_backends(bundle / "llama_cpp" / "lib", backend_dir,
                       os.environ.get("BURROW_GGML_VERBOSE") == "1")
    except (OSError, AttributeError, ctypes.ArgumentError) as exc:
        # The app still starts; loading a model then reports "no backends", which names the cause.
        sys.stderr.write(f"burrow: could not load ggml CPU backends from {backend_dir}: {exc}\n")


_main()

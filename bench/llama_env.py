"""An environment problem the suite must survive: llama.cpp's AMX kernels on VMs that hide AMX.

llama-cpp-python built with GGML_NATIVE on a CPU that advertises AMX (amx_tile, amx_int8) uses
AMX tile instructions for batched matrix products. Some VMs list AMX in CPUID without enabling its
register state, so the first prompt of 2+ tokens dies with SIGILL (`tilezero` in
ggml_backend_amx_mul_mat). The suite probes for it in a child process; if it crashes, children
that load a model turn llama.cpp's "extra buffer types" (the AMX repacking) off for both Burrow and
the reference, and the results say so. The real fix is a portable build (GGML_NATIVE=OFF).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

ENV_FLAG = "BENCH_LLAMA_NO_EXTRA_BUFTS"

_PROBE = """
import sys, llama_cpp
from pathlib import Path
from app.llm.cpu_backends import load_cpu_variants
load_cpu_variants(Path(llama_cpp.__file__).parent)  # the portable build's CPU code
llm = llama_cpp.Llama(sys.argv[1], n_ctx=256, n_threads=1, verbose=False)
llm.eval(llm.tokenize(b"hello world hello world"))
"""


def prompt_eval_crashes(model: Path) -> str:
    """'' when a multi-token eval works; otherwise how the probe died."""
    try:
        run = subprocess.run([sys.executable, "-c", _PROBE, str(model)], capture_output=True, timeout=120)
    except subprocess.TimeoutExpired:
        return "the llama.cpp probe hung"
    if run.returncode == 0:
        return ""
    if run.returncode < 0:
        return f"killed by {signal.Signals(-run.returncode).name}"
    tail = (run.stderr.decode(errors="replace").strip().splitlines() or ["no output"])[-1]
    return f"exit {run.returncode}: {tail}"


def install_if_asked() -> bool:
    """In a child: when the parent found the crash, load every model without extra buffer types."""
    if os.environ.get(ENV_FLAG) != "1":
        return False
    import llama_cpp
    import llama_cpp.llama as llama_module

    default_params = llama_cpp.llama_model_default_params

    def params_without_extra_bufts():
        params = default_params()
        params.use_extra_bufts = False
        return params

    llama_module.llama_cpp.llama_model_default_params = params_without_extra_bufts
    return True

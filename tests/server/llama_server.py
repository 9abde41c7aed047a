"""Start a real inference server: llama-cpp-python's own (`python -m llama_cpp.server`, from the
dev extra `llama-cpp-python[server]`) on 127.0.0.1 with a free port and the default GGUF."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_MODEL = ROOT / "models" / "SmolLM2-135M-Instruct.Q4_1.gguf"
SAMPLE_PROJECT = ROOT / "tests" / "fixtures" / "sample_project"
SERVER_N_CTX = 4096
READY_WITHIN_S = 180  # loading a 135M model takes a few seconds; a busy CI machine far more


@dataclass
class RunningServer:
    process: subprocess.Popen
    port: int
    log: Path

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


# `python -m llama_cpp.server`, after registering ggml's CPU code: the portable llama-cpp-python
# build `make setup` installs keeps it in per-CPU libraries that llama-cpp-python never loads
# (app/llm/cpu_backends.py; a native build makes this a no-op).
SERVER_MAIN = ["-m", "app.llm.cpu_backends", "llama_cpp.server"]  # the CPU variants loaded first


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _models_answer(url: str) -> bool:
    try:
        with urllib.request.urlopen(url + "/models", timeout=2) as reply:
            return bool(json.load(reply).get("data"))
    except (OSError, ValueError):
        return False


def start_server(log: Path, threads: int = 1) -> RunningServer:
    """Start the server and return once GET /v1/models lists the model (bounded wait)."""
    pytest.importorskip("llama_cpp.server.app", reason="llama-cpp-python[server] is not installed")
    if not DEFAULT_MODEL.is_file():
        pytest.skip("the default model is not installed (run `make setup`)")
    port = free_port()
    command = [sys.executable, *SERVER_MAIN, "--model", str(DEFAULT_MODEL),
               "--host", "127.0.0.1", "--port", str(port), "--n_ctx", str(SERVER_N_CTX),
               "--n_threads", str(threads), "--model_alias", "smollm2-135m"]
    env = {**os.environ, "OMP_WAIT_POLICY": "PASSIVE"}
    out = log.open("wb")
    process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env)
    server = RunningServer(process, port, log)
    deadline = time.monotonic() + READY_WITHIN_S
    try:
        while not _models_answer(server.url):
            try:  # the pause between polls is a wait on the process: it also notices a crash
                process.wait(timeout=0.2)
            except subprocess.TimeoutExpired:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"llama_cpp.server did not come up: {log.read_text()[-2000:]}")
    except BaseException:
        server.stop()
        raise
    return server



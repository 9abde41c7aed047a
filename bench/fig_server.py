"""Figures 9-10: the inference-server backend against the server's own numbers, in one run.

A real llama-cpp-python server (`python -m llama_cpp.server`, the default GGUF, the suite's thread
count) answers the same greedy request through Burrow's ServerChatModel and through a bare stdlib
client, alternately. The server logs llama.cpp's own timings after every request (verbose): the
request's "total time" (llama-cpp-python resets the counters when it starts a completion and
prints them when the last token is sampled), its prompt evaluation ("prompt eval time") and its
decode time ("eval time ... runs").

- Generation tokens/s seen through the backend (after the first token, from its Usage) ÷ the
  tokens/s the server reports for that same request: its generated tokens over its own
  generation time (total minus prompt evaluation). That is the rate the server itself delivers,
  with its sampling, as llama-server's `timings.predicted_per_second` is. Target >= 0.95. The
  decode-only rate ("eval time" alone, without the server's Python sampling) is kept in the
  details, with the same ratio for a bare stdlib client, which shows what no client can reach.
- Time to first token through Burrow ÷ the server's own: the first token a bare client gets from
  the server for the same request (what the server delivers, no Burrow code on the path); the
  server-logged prompt evaluation time is kept in the details. Target <= 1.1. Each request opens
  with its own number ("Request 0007."), so the server evaluates the question as it would a new
  one (a server keeps the previous prompt's tokens): a repeated prompt's first token is one decode
  step (~30 ms here) whose scheduling noise (+-10 ms) swamped the ratio (1.14 and 1.03 in two runs
  of identical requests, while the client itself costs 0.15 ms; `client_only_first_token`).

Both figures are medians of --reps requests a side (5 by default, as issue 24 asks), interleaved.
On a shared two-core machine the server's own prompt evaluation swings by tens of ms between
requests, far more than the client costs: `client_only_first_token` is the client's cost alone.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from typing import Any

from bench.context import BenchContext
from bench.report import FigureResult, Target
from bench.runner import progress
from bench.timing import interleaved, median

TPS = ("server_tps", "server: generation tokens/s (backend ÷ server's report)", "tok/s",
       Target(0.95, at_least=True))
TTFT = ("server_ttft", "server: time to first token (Burrow ÷ bare client)", "s", Target(1.1))
SPECS = [TPS, TTFT]

PROMPT = ("Explain in detail, step by step, how a hash table works: hashing, buckets, collisions, "
          "resizing, and the cost of each operation. Write at least three paragraphs.")
GEN_TOKENS = 64
READY_WITHIN_S = 180
_EVAL = re.compile(r"llama_perf_context_print:\s+eval time =\s+([\d.]+) ms /\s+(\d+) runs")
_PROMPT = re.compile(r"prompt eval time =\s+([\d.]+) ms /\s+(\d+) tokens")
_TOTAL = re.compile(r"total time =\s+([\d.]+) ms /\s+(\d+) tokens")


class _Server:
    """The server process and its log, read a request at a time."""

    def __init__(self, ctx: BenchContext) -> None:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            self.port = sock.getsockname()[1]
        self.log = ctx.scratch / "llama_server.log"
        command = [sys.executable, "-m", "app.llm.cpu_backends", "llama_cpp.server", "--model", str(ctx.model_path),
                   "--host", "127.0.0.1", "--port", str(self.port), "--n_ctx", "4096",
                   "--n_threads", str(ctx.threads), "--verbose", "true", "--model_alias", "bench"]
        env = {**os.environ, "OMP_WAIT_POLICY": "PASSIVE"}
        self.process = subprocess.Popen(command, stdout=self.log.open("wb"), stderr=subprocess.STDOUT,
                                        env=env)
        self._read = 0
        self._wait_ready()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + READY_WITHIN_S
        while time.monotonic() < deadline and self.process.poll() is None:
            try:
                with urllib.request.urlopen(self.url + "/models", timeout=2) as reply:
                    if json.load(reply).get("data"):
                        self.new_log()
                        return
            except OSError:
                pass
            try:
                self.process.wait(timeout=0.2)  # the pause between polls also notices a crash
            except subprocess.TimeoutExpired:
                pass
        raise RuntimeError(f"llama_cpp.server did not start: {self.log.read_text()[-800:]}")

    def new_log(self) -> str:
        text = self.log.read_text(encoding="utf-8", errors="replace")
        new, self._read = text[self._read:], len(text)
        return new

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()


class _Reported:
    """The server's own timings, from the lines it logged for one request.

    llama-cpp-python resets llama.cpp's counters when a completion starts, so each request's lines
    are its own; should a server keep them cumulative, the decode figures are the difference from
    the previous request's, and the wall-clock rate is left out (a cumulative total spans the
    idle time between requests)."""

    def __init__(self) -> None:
        self.eval_ms = self.eval_runs = 0.0

    def take(self, log: str) -> dict[str, float]:
        evals, prompts, totals = _EVAL.findall(log), _PROMPT.findall(log), _TOTAL.findall(log)
        if not evals:
            raise RuntimeError("the server logged no timings (is it verbose?)")
        ms, runs = float(evals[-1][0]), float(evals[-1][1])
        reset = runs <= self.eval_runs or not self.eval_runs
        d_ms, d_runs = (ms, runs) if reset else (ms - self.eval_ms, runs - self.eval_runs)
        self.eval_ms, self.eval_runs = ms, runs
        prompt_ms = float(prompts[-1][0]) if prompts else 0.0
        got = {"eval_ms": d_ms, "eval_runs": d_runs, "decode_tps": d_runs / max(1e-9, d_ms / 1000),
               "prompt_ms": prompt_ms}
        if reset and totals:
            got["total_ms"] = float(totals[-1][0])
            got["generation_ms"] = got["total_ms"] - prompt_ms
        # the server's delivered rate: its tokens over its generation time, sampling included
        got["tps"] = d_runs / max(1e-9, got.get("generation_ms", d_ms) / 1000)
        return got


_numbers = iter(range(1, 10_000))


def _prompt() -> str:
    """PROMPT under a number no earlier request had, whose first digit differs from the previous
    one's: every request evaluates the same tokens from there on, none of them cached."""
    n = next(_numbers)
    return f"Request {n % 10}{n:03d}. {PROMPT}"


def _request(prompt: str = PROMPT) -> Any:
    from app.llm.base import TurnRequest

    return TurnRequest(({"role": "user", "content": prompt},), max_tokens=GEN_TOKENS, temperature=0.0)


def _burrow_turn(model: Any, server: _Server, reported: _Reported, stats: list[dict]) -> tuple[float, float]:
    from app.llm.base import TurnCompleted

    done = [e for e in model.generate(_request(_prompt())) if isinstance(e, TurnCompleted)][-1]
    u = done.usage
    theirs = reported.take(server.new_log())
    ours = (u.completion_tokens - 1) / max(1e-9, u.seconds - u.first_token_seconds)
    stats.append({"side": "burrow", "tokens": u.completion_tokens, "seconds": u.seconds,
                  "first_token": u.first_token_seconds, "tps": ours, "server": theirs})
    progress(f"burrow: {ours:.1f} tok/s, server reports {theirs['tps']:.1f}; "
             f"first token {u.first_token_seconds * 1000:.0f} ms")
    return ours / theirs["tps"], u.first_token_seconds


def _bare_turn(server: _Server, reported: _Reported, stats: list[dict]) -> float:
    """The same request from a minimal client: the time to the first content it receives."""
    body = json.dumps({"model": "bench", "stream": True, "max_tokens": GEN_TOKENS, "temperature": 0.0,
                       "stream_options": {"include_usage": True},
                       "messages": [{"role": "user", "content": _prompt()}]}).encode()
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=120)
    start = time.monotonic()
    conn.request("POST", "/v1/chat/completions", body, {"Content-Type": "application/json"})
    first = last = 0.0
    tokens = 0
    for line in conn.getresponse():
        if line.startswith(b"data:") and b'"content": "' in line:  # a chunk with text
            last = time.monotonic() - start
            first, tokens = first or last, tokens + 1
    conn.close()
    theirs = reported.take(server.new_log())
    tps = (tokens - 1) / max(1e-9, last - first)
    stats.append({"side": "bare", "tokens": tokens, "first_token": first, "tps": tps, "server": theirs})
    return first


_CANNED = (b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n"
           b'data: {"choices": [{"delta": {"content": "Hi"}, "finish_reason": "stop"}]}\n\n'
           b"data: [DONE]\n\n")


def client_overhead_ms(reps: int = 40) -> dict[str, float]:
    """Time to first token against a loopback responder that answers at once (no model): what
    the client itself costs, Burrow's backend vs a bare http.client, free of the server's noise."""
    from app.llm.base import TextDelta
    from app.llm.server_backend import ServerChatModel
    from app.llm.server_http import parse_server_url
    from app.settings import Settings

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()

    def serve() -> None:
        for _ in range(2 * reps):
            conn, _ = listener.accept()
            conn.recv(65536)
            conn.sendall(_CANNED)
            conn.close()

    threading.Thread(target=serve, daemon=True).start()
    port = listener.getsockname()[1]
    model = ServerChatModel(parse_server_url(f"http://127.0.0.1:{port}"), "m", Settings())
    body = json.dumps(model.request_body(_request())).encode()
    ours, bare = [], []
    for _ in range(reps):
        start = time.monotonic()
        next(e for e in model.generate(_request()) if isinstance(e, TextDelta))
        ours.append(time.monotonic() - start)
        start = time.monotonic()
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        conn.request("POST", "/v1/chat/completions", body, {"Content-Type": "application/json"})
        next(line for line in conn.getresponse() if b'"content": "' in line)
        bare.append(time.monotonic() - start)
        conn.close()
    listener.close()
    return {"burrow_ms": median(ours) * 1000, "bare_ms": median(bare) * 1000}


def measure(ctx: BenchContext) -> list[FigureResult]:
    from app.llm.server_backend import connect_server
    from app.settings import Settings

    server = _Server(ctx)
    try:
        model = connect_server(server.url, None, Settings(temperature=0.0, n_ctx=4096))
        progress(f"llama_cpp.server up on port {server.port} ({ctx.threads} threads)")
        reported, stats = _Reported(), []
        _burrow_turn(model, server, reported, stats)  # warm-up: the first request loads caches
        _bare_turn(server, reported, stats)
        stats.clear()
        burrow, bare = interleaved(lambda: _burrow_turn(model, server, reported, stats),
                                   lambda: _bare_turn(server, reported, stats), ctx.reps)
    finally:
        server.stop()
    results = _results(burrow, bare, stats)
    results[1].details["client_only_first_token"] = client_overhead_ms()
    return results


def _results(burrow: list[tuple[float, float]], bare: list[float], stats: list[dict]) -> list[FigureResult]:
    ours_tps = [s["tps"] for s in stats if s["side"] == "burrow"]
    server_tps = [s["server"]["tps"] for s in stats if s["side"] == "burrow"]
    bare_tps = [s["tps"] for s in stats if s["side"] == "bare"]
    bare_ratios = [s["tps"] / s["server"]["tps"] for s in stats if s["side"] == "bare"]
    decode_ratios = [s["tps"] / s["server"]["decode_tps"] for s in stats if s["side"] == "burrow"]
    bare_decode = [s["tps"] / s["server"]["decode_tps"] for s in stats if s["side"] == "bare"]
    details = {"runs": stats, "max_tokens": GEN_TOKENS, "per_request_ratios": [r for r, _ in burrow],
               "bare_client_tps": median(bare_tps),
               "burrow_vs_bare_client_tps": median(ours_tps) / max(1e-9, median(bare_tps)),
               "bare_client_per_request_ratios": bare_ratios,
               # Burrow's own cost: its share of the server's rate over a bare client's share
               "burrow_share_over_bare_share": median([r for r, _ in burrow]) / median(bare_ratios),
               # against llama.cpp's decode time alone (no sampling): the server's own ceiling
               "burrow_over_decode_only_rate": median(decode_ratios),
               "bare_client_over_decode_only_rate": median(bare_decode),
               "server": "llama_cpp.server (llama-cpp-python), verbose timings from its log"}
    key, title, unit, target = TPS
    tps = FigureResult(key, title, unit, target, median(ours_tps), median(server_tps),
                       "server's own generation rate", details={**details, "note":
                       "ratio of medians; per_request_ratios pairs each request with its own report"})
    key, title, unit, target = TTFT
    paired = [ours / theirs for (_, ours), theirs in zip(burrow, bare, strict=True)]
    ttft = FigureResult(key, title, unit, target, median([t for _, t in burrow]), median(bare),
                        "bare client, same request", details={**details, "per_pair_ttft_ratios": paired})
    return [tps, ttft]

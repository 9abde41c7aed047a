"""The real backend on the real default GGUF (llama-cpp-python, SmolLM2-135M): runs in CI."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import pytest
from _gguf_writer import write_gguf

from app.errors import ModelLoadError
from app.llm.base import ChatModel, TextDelta, TurnCompleted, TurnRequest
from app.llm.dialects.generic import GenericDialect
from app.llm.gguf import read_header
from app.paths import project_root
from app.settings import Settings

REAL_MODEL = project_root() / "models" / "SmolLM2-135M-Instruct.Q4_1.gguf"

pytestmark = pytest.mark.real_model

READ_FILE = {"type": "function", "function": {
    "name": "read_file", "description": "Read a text file of the workspace.",
    "parameters": {"type": "object", "additionalProperties": False, "required": ["path"],
                   "properties": {"path": {"type": "string", "description": "workspace-relative path"}}}}}
PATHS = ("src/app.py", "README.md")
SYSTEM = {"role": "system", "content": "You answer questions about the user's code. Use the tools."}


@pytest.fixture(scope="module")
def model():
    if not REAL_MODEL.is_file():
        pytest.skip("the default model is not installed (run `make setup`)")
    from app.llm.llama_backend import load_model

    # one decode thread count: a switch mid-reply (app.llm.decode_threads, tested on its own in
    # test_decode_threads.py) may change a near-tie token, and these tests compare replies
    return load_model(REAL_MODEL, Settings(n_ctx=4096, decode_threads=1))


def _run(model, request: TurnRequest, cancel: threading.Event | None = None):
    events = list(model.generate(request, cancel))
    assert sum(isinstance(e, TurnCompleted) for e in events) == 1
    assert isinstance(events[-1], TurnCompleted)
    return "".join(e.text for e in events if isinstance(e, TextDelta)), events[-1]


def test_load_describes_the_model(model) -> None:
    assert isinstance(model, ChatModel)
    assert model.dialect_name == "generic" and model.context_length == 4096
    assert model.count_tokens("Hello, world!") > 1


def test_answer_streams_as_visible_text(model) -> None:
    req = TurnRequest(messages=({"role": "user", "content": "What is the capital of France?"},),
                      temperature=0.0, max_tokens=60)
    shown, done = _run(model, req)
    assert shown and shown == done.reply.content
    assert "<|im" not in shown and done.usage.completion_tokens > 0
    assert done.usage.first_token_seconds > 0 and done.stop_reason in ("stop", "length")


def test_each_generated_token_comes_with_its_text_and_log_probability(model) -> None:
    req = TurnRequest(messages=({"role": "user", "content": "What is the capital of France?"},),
                      temperature=0.0, max_tokens=30)
    _, done = _run(model, req)
    assert len(done.token_logprobs) == done.usage.completion_tokens > 0
    assert "".join(text for text, _ in done.token_logprobs).startswith(done.raw)
    logprobs = [lp for _, lp in done.token_logprobs]
    assert all(lp <= 0.0 for lp in logprobs)  # probabilities, not raw logits
    # greedy decoding picks the most likely token: most are far more likely than a uniform guess
    assert sum(lp > -2.0 for lp in logprobs) > len(logprobs) / 2
    assert any(lp < -1e-3 for lp in logprobs)  # and they are read, not a constant


def test_same_request_twice_gives_the_same_answer(model) -> None:
    req = TurnRequest(messages=({"role": "user", "content": "Name a colour."},), temperature=0.0,
                      max_tokens=20)
    assert _run(model, req)[1].raw == _run(model, req)[1].raw


def test_cancel_mid_generation_returns_quickly(model) -> None:
    """Stop while the answer streams (set after the 15th piece of text, as a click would): the turn
    ends within a token or two."""
    req = TurnRequest(messages=({"role": "user", "content": "Write a very long story about a dragon."},),
                      temperature=0.0, max_tokens=500)
    cancel, pieces, set_at = threading.Event(), 0, 0.0
    for event in model.generate(req, cancel):
        if isinstance(event, TextDelta):
            pieces += 1
            if pieces == 15:
                set_at = time.monotonic()
                cancel.set()
        done = event
    print(f"\ncancel latency: {(time.monotonic() - set_at) * 1000:.1f} ms")
    assert isinstance(done, TurnCompleted) and done.stop_reason == "cancelled"
    # Seconds are not asserted (shared, noisy machines); the latency is in docs/runtime.md and bench/.
    assert 15 <= done.usage.completion_tokens <= 17


class _AtCheck(threading.Event):
    """At its n-th check runs `then` (by default: reads as set from there on). The first check comes
    before the prompt's only batch, the next ones from llama.cpp's abort callback inside it."""

    def __init__(self, check: int, then=None) -> None:
        super().__init__()
        self.checks, self.then = check, then or self.set

    def is_set(self) -> bool:
        self.checks -= 1
        if self.checks == 0:
            self.then()
        return super().is_set()


@pytest.fixture(scope="module")
def one_batch():
    """The model with a batch big enough that a whole prompt below is one batch."""
    from app.llm.llama_backend import load_model

    return load_model(REAL_MODEL, Settings(n_ctx=4096, n_batch=2048))


def _long_request(max_tokens: int) -> TurnRequest:
    text = " ".join(f"Line {i}: the configuration is parsed by load_settings in settings.py." for i in range(60))
    return TurnRequest(messages=({"role": "user", "content": text + " Where is the configuration parsed?"},),
                       temperature=0.0, max_tokens=max_tokens)


def test_stop_ends_a_prompt_batch_inside_it_and_the_cache_stays_sound(one_batch) -> None:
    """One 2048-token batch takes seconds with a 1.5B model: Stop must not wait for its end. The
    batch is dropped (nothing of it counts as cached) and the next turn still answers exactly as
    a fresh model does."""
    req = _long_request(12)
    one_batch.reset()
    _, stopped = _run(one_batch, req, _AtCheck(2))
    assert stopped.stop_reason == "cancelled" and stopped.usage.completion_tokens == 0
    assert one_batch._llm.n_tokens == 0  # the batch was cut inside, not evaluated to its end
    again = _run(one_batch, req)[1]
    one_batch.reset()
    assert again.raw == _run(one_batch, req)[1].raw and again.usage.prompt_tokens > 500


def test_ctrl_c_inside_a_prompt_batch_is_a_keyboard_interrupt_not_a_model_failure(one_batch) -> None:
    """`ask` runs the model on the main thread and stops on KeyboardInterrupt. Ctrl-C while llama.cpp
    evaluates a batch must end the batch and still arrive as KeyboardInterrupt (raised inside the
    abort callback, ctypes would drop it and the batch would fail as 'llama_decode returned 2')."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        one_batch.reset()
        with pytest.raises(KeyboardInterrupt):  # Ctrl-C pressed (SIGINT to this process) in the batch
            list(one_batch.generate(_long_request(4), _AtCheck(2, lambda: signal.raise_signal(signal.SIGINT))))
    finally:
        signal.signal(signal.SIGINT, previous)
    assert one_batch._llm.n_tokens == 0  # the batch was cut inside
    assert signal.getsignal(signal.SIGINT) is previous


class CallOnlyDialect(GenericDialect):
    """The real generic dialect with the answer branch of its grammar removed.

    SmolLM2-135M nearly always prefers to answer (see docs/runtime.md), so to prove the call
    path end to end its first turn may only be a call; rendering and parsing are the real ones.
    """

    def grammar(self, tools, known_paths=(), force_answer=False, require_tool=False, messages=()):
        return super().grammar(tools, known_paths, force_answer,
                               require_tool=bool(tools) and not force_answer, messages=messages)


@pytest.fixture(scope="module")
def caller(model):
    from app.llm.llama_backend import load_model

    h = read_header(REAL_MODEL)
    dialect = CallOnlyDialect(h.chat_template, bos_token=h.token_texts["bos"], eos_token=h.token_texts["eos"])
    return load_model(REAL_MODEL, Settings(n_ctx=4096), dialect=dialect)


def _tool_turn(model):
    messages = (SYSTEM, {"role": "user", "content": "Read the file src/app.py and tell me what it does."})
    req = TurnRequest(messages=messages, tools=(READ_FILE,), known_paths=PATHS, temperature=0.0,
                      max_tokens=60)
    return messages, _run(model, req)


def test_with_the_real_grammar_a_reply_is_a_valid_call_or_an_answer(model) -> None:
    _, (shown, done) = _tool_turn(model)
    assert done.reply.tool_calls or done.reply.content.strip()
    for call in done.reply.tool_calls:
        assert call.name == "read_file" and call.arguments["path"] in PATHS
    assert "{\"name\"" not in shown  # call markup never reaches the user


def test_tool_call_is_proposed_and_parsed(caller) -> None:
    _, (shown, done) = _tool_turn(caller)
    calls = done.reply.tool_calls
    assert len(calls) == 1 and calls[0].name == "read_file"
    assert calls[0].arguments["path"] in PATHS
    assert shown == "" and done.stop_reason == "stop"  # call markup never reaches the user


def _with_result(messages, done, result: str):
    call = done.reply.tool_calls[0]
    assistant = {"role": "assistant", "content": done.reply.content, "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": call.name, "arguments": call.arguments}}]}
    return (*messages, assistant, {"role": "tool", "tool_call_id": "call_1", "name": call.name,
                                   "content": result})


def test_tool_result_in_next_prompt_and_cache_reused(caller) -> None:
    messages, (_, first) = _tool_turn(caller)
    result = "def main():\n    print('ZEBRA-42 starts the web server')\n"
    messages = _with_result(messages, first, result)
    _, second = _run(caller, TurnRequest(messages=messages, tools=(READ_FILE,), known_paths=PATHS,
                                         temperature=0.0, force_answer=True, max_tokens=40))
    assert "ZEBRA-42 starts the web server" in second.prompt
    assert second.prompt.startswith(first.prompt + first.raw)  # token-exact transcript
    assert second.usage.cached_tokens >= first.usage.prompt_total
    assert second.usage.prompt_tokens < second.usage.prompt_total / 2
    follow = (*messages, {"role": "assistant", "content": second.reply.content or "It starts a server."},
              {"role": "user", "content": "Which function is it in?"})
    _, third = _run(caller, TurnRequest(messages=follow, tools=(READ_FILE,), known_paths=PATHS,
                                        temperature=0.0, force_answer=True, max_tokens=40))
    assert third.prompt.startswith(second.prompt + second.raw)
    assert third.usage.cached_tokens >= second.usage.prompt_total
    assert third.usage.prompt_tokens < third.usage.prompt_total / 4
    print(f"\nturn1 {first.usage}\nturn2 {second.usage}\nturn3 {third.usage}")


def test_unrelated_conversation_falls_back_to_a_full_prompt(model) -> None:
    _, (_, before) = _tool_turn(model)
    req = TurnRequest(messages=({"role": "user", "content": "Say hi."},), temperature=0.0, max_tokens=8)
    _, done = _run(model, req)
    assert not done.prompt.startswith(before.prompt) and done.prompt.count("Say hi.") == 1
    assert done.usage.cached_tokens < 10 < done.usage.prompt_tokens


def test_prompt_larger_than_the_context_is_refused_without_crash() -> None:
    from app.llm.llama_backend import load_model

    small = load_model(REAL_MODEL, Settings(n_ctx=512))
    req = TurnRequest(messages=({"role": "user", "content": "word " * 800},))
    _, done = _run(small, req)
    assert done.stop_reason == "context_full" and done.raw == ""


def test_generation_that_fills_the_context_stops_cleanly() -> None:
    from app.llm.llama_backend import load_model

    small = load_model(REAL_MODEL, Settings(n_ctx=512))
    req = TurnRequest(messages=({"role": "user", "content": "Count from 1 to 1000, one per line."},),
                      temperature=0.0, max_tokens=2000)
    _, done = _run(small, req)
    assert done.stop_reason in ("context_full", "stop")
    assert done.usage.prompt_total + done.usage.completion_tokens <= 512


@pytest.mark.parametrize("kind", ["empty", "random", "truncated", "directory", "missing", "text"])
def test_bad_model_files_give_model_load_error(tmp_path: Path, kind: str) -> None:
    from app.llm.llama_backend import load_model

    path = tmp_path / "bad.gguf"
    if kind == "empty":
        path.write_bytes(b"")
    elif kind == "random":
        path.write_bytes(os.urandom(65536).replace(b"GGUF", b"xxxx"))
    elif kind == "truncated":
        with open(REAL_MODEL, "rb") as fh:
            path.write_bytes(fh.read(5_000_000))  # header intact, weights cut off
    elif kind == "directory":
        path.mkdir()
    elif kind == "text":
        path.write_text("not a model")
    with pytest.raises(ModelLoadError) as info:
        load_model(path, Settings())
    assert str(path) in str(info.value)


def test_unknown_architecture_is_a_clear_error(tmp_path: Path) -> None:
    from app.llm.llama_backend import load_model

    path = write_gguf(tmp_path / "alien.gguf", arch="notarealarch")
    with pytest.raises(ModelLoadError, match="architecture"):
        load_model(path, Settings())

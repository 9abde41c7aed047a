"""The real model: a GGUF run in-process by llama-cpp-python (the only module that imports it).

We drive llama.cpp's token API ourselves instead of create_chat_completion so that we control
three things the harness needs: the prompt is rendered by our dialect (tool results really appear
in it), cancellation is checked on every token, and the KV cache is reused token-exactly across
turns. For the last, the conversation is kept as a transcript of the exact tokens in the cache
(prompt + what the model generated); the next turn's prompt is that transcript plus only the
rendered difference of the new messages, so re-rendering the model's own reply (re-serialised
JSON, dropped reasoning) can never invalidate the cache.

A prompt that does not fit the context is not an error: the turn completes at once with
stop_reason "context_full" (and generation that fills the context ends the same way), so the
harness loop can stop with a named reason instead of crashing.
"""

from __future__ import annotations

import codecs
import ctypes
import os
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.errors import ModelLoadError
from app.llm.base import (
    Message,
    ModelEvent,
    ParsedReply,
    TextDelta,
    ToolSpec,
    TurnCompleted,
    TurnRequest,
    Usage,
)
from app.llm.dialects.base import Dialect
from app.llm.gguf import GGUFHeader, read_header
from app.settings import Settings

_PROBE = "\u2063burrow-probe\u2063"  # a reply text no template will produce on its own
_LOG_TAIL_LINES = 30


@dataclass(frozen=True)
class _Transcript:
    """What the KV cache holds after a turn, as messages, exact tokens and text."""

    messages: tuple[Message, ...]
    tools: tuple[ToolSpec, ...]
    tokens: tuple[int, ...]  # prompt tokens + generated tokens
    text: str  # prompt text + raw generated text
    exact: bool  # tokens and text agree (False when a stop string cut the text short)


@dataclass(frozen=True)
class _Prompt:
    text: str
    tokens: list[int]
    spliced: bool  # built by extending the cached transcript


def _llama_cpp() -> Any:
    """Import llama_cpp lazily (the window and --help must not wait for it).

    OpenMP's default is to spin while waiting for work; when the machine is busy (a build, the
    GUI, other apps) spinning threads steal each other's cores and a 135M model dropped from
    ~10 to ~0.5 tokens/s in our measurements. Passive waiting costs nothing noticeable when idle.
    The variable must be set before libgomp loads; a user's own setting wins.
    """
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    import llama_cpp

    return llama_cpp


@contextmanager
def _captured_log(lines: list[str]) -> Iterator[None]:
    """Collect llama.cpp's log (verbose is off) so a failed load can say why."""
    llama_cpp = _llama_cpp()
    from llama_cpp import _logger

    @llama_cpp.llama_log_callback
    def collect(level: int, text: bytes, user_data: ctypes.c_void_p) -> None:
        lines.append(text.decode("utf-8", errors="replace"))
        del lines[:-200]

    llama_cpp.llama_log_set(collect, ctypes.c_void_p(0))
    try:
        yield
    finally:
        llama_cpp.llama_log_set(_logger.llama_log_callback, ctypes.c_void_p(0))


def _cpu_reports_amx(llama_cpp: Any) -> bool:
    return "AMX_INT8 = 1" in llama_cpp.llama_print_system_info().decode("utf-8", errors="replace")


@contextmanager
def _model_params(llama_cpp: Any, fields: dict[str, Any]) -> Iterator[None]:
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


def _load_error(path: Path, exc: BaseException, log_lines: list[str]) -> ModelLoadError:
    text = "".join(log_lines)
    errors = [ln.strip() for ln in text.splitlines() if "error" in ln.lower() or "unknown" in ln.lower()]
    reason = "; ".join(errors[-3:]) or str(exc) or type(exc).__name__
    err = ModelLoadError(f"{path}: llama.cpp could not load this model: {reason}")
    err.log = "\n".join(text.splitlines()[-_LOG_TAIL_LINES:])  # type: ignore[attr-defined]
    return err


def load_model(path: str | Path, settings: Settings | None = None) -> LlamaChatModel:
    """Load a GGUF for chat; ModelLoadError (never a crash) when the file or the load is bad."""
    settings = settings or Settings()
    path = Path(path)
    header = read_header(path)  # clear errors for missing, empty, truncated and non-GGUF files
    dialect = _dialect_for(header)
    started = time.monotonic()
    llm = _construct(path, header, settings)
    return LlamaChatModel(llm, header, dialect, settings, time.monotonic() - started)


def _dialect_for(header: GGUFHeader) -> Dialect:
    from app.llm.dialects import dialect_for_template

    return dialect_for_template(header.chat_template, bos_token=header.token_texts.get("bos", ""),
                                eos_token=header.token_texts.get("eos", ""))


def _construct(path: Path, header: GGUFHeader, settings: Settings) -> Any:
    try:
        llama_cpp = _llama_cpp()
    except ImportError as exc:
        raise ModelLoadError(f"llama-cpp-python is not installed or broken ({exc}); "
                             "run `make setup`") from None

    trained = header.context_length or settings.n_ctx
    n_ctx = min(settings.n_ctx, trained)
    n_batch = min(settings.n_batch, n_ctx)
    log: list[str] = []
    extra = {} if not _cpu_reports_amx(llama_cpp) else {"use_extra_bufts": False}
    try:
        with _captured_log(log), _model_params(llama_cpp, extra):
            return llama_cpp.Llama(
                model_path=str(path), n_ctx=n_ctx, n_batch=n_batch, n_ubatch=n_batch,
                n_threads=settings.n_threads, n_threads_batch=settings.n_threads,
                flash_attn=settings.flash_attn, use_mmap=settings.use_mmap, n_gpu_layers=0,
                seed=settings.seed, verbose=False,
            )
    except (ValueError, RuntimeError, OSError, AssertionError) as exc:
        raise _load_error(path, exc, log) from None


class LlamaChatModel:
    """ChatModel over a loaded llama_cpp.Llama; one turn at a time (a lock guards the KV cache)."""

    def __init__(self, llm: Any, header: GGUFHeader, dialect: Dialect, settings: Settings,
                 load_seconds: float = 0.0) -> None:
        llama_cpp = _llama_cpp()
        self._llm = llm
        self._header = header
        self._dialect = dialect
        self._settings = settings
        self.load_seconds = load_seconds
        self._lock = threading.Lock()
        self._transcript: _Transcript | None = None
        self._vocab = llama_cpp.llama_model_get_vocab(llm.model)
        self._is_eog_fn = llama_cpp.llama_vocab_is_eog
        self._grammars: dict[str, Any] = {}

    # ChatModel -----------------------------------------------------------------------------
    @property
    def name(self) -> str:
        return self._header.name

    @property
    def dialect_name(self) -> str:
        return self._dialect.name

    @property
    def dialect(self) -> Dialect:
        return self._dialect

    @property
    def context_length(self) -> int:
        return int(self._llm.n_ctx())

    @property
    def path(self) -> str:
        return self._header.path

    def count_tokens(self, text: str) -> int:
        return len(self._tokenize(text))

    def generate(self, request: TurnRequest, cancel: threading.Event | None = None) -> Iterator[ModelEvent]:
        with self._lock:
            yield from self._turn(request, cancel or threading.Event())

    def reset(self) -> None:
        """Forget the cached conversation (the next turn evaluates its whole prompt)."""
        with self._lock:
            self._transcript = None
            self._llm.reset()

    # prompt --------------------------------------------------------------------------------
    def _tokenize(self, text: str) -> list[int]:
        return list(self._llm.tokenize(text.encode("utf-8"), add_bos=False, special=True))

    def _tokenize_prompt(self, text: str) -> list[int]:
        tokens = self._tokenize(text)
        bos = self._llm.token_bos()
        if self._llm._model.add_bos_token() and bos >= 0 and tokens[:1] != [bos]:
            tokens.insert(0, bos)  # the template did not write BOS but the model expects it
        return tokens

    def _render(self, messages: Sequence[Message], tools: Sequence[ToolSpec], gen: bool) -> str:
        return self._dialect.render(list(messages), list(tools), add_generation_prompt=gen)

    def _build_prompt(self, request: TurnRequest) -> _Prompt:
        spliced = self._splice(request)
        if spliced is not None:
            return spliced
        text = self._render(request.messages, request.tools, True)
        return _Prompt(text, self._tokenize_prompt(text), False)

    def _splice(self, request: TurnRequest) -> _Prompt | None:
        """The cached transcript + the rendering of only the new messages, when that is sound."""
        t, msgs = self._transcript, tuple(request.messages)
        if t is None or tuple(request.tools) != t.tools or len(msgs) <= len(t.messages) + 1:
            return None
        n = len(t.messages)
        if msgs[:n] != t.messages or msgs[n].get("role") != "assistant":
            return None
        seen = self._render(msgs[: n + 1], request.tools, False)
        full = self._render(msgs, request.tools, True)
        marker = self._end_of_turn(msgs[:n], request.tools)
        if marker is None or not full.startswith(seen):
            return None
        suffix = marker + full[len(seen):]
        if t.exact:
            return _Prompt(t.text + suffix, list(t.tokens) + self._tokenize(suffix), True)
        return _Prompt(t.text + suffix, self._tokenize_prompt(t.text + suffix), True)

    def _end_of_turn(self, before: Sequence[Message], tools: Sequence[ToolSpec]) -> str | None:
        """What the template writes after an assistant reply's text (e.g. '<|im_end|>\\n')."""
        head = self._render(before, tools, True)
        probe = self._render([*before, {"role": "assistant", "content": _PROBE}], tools, False)
        if not probe.startswith(head) or not probe[len(head):].startswith(_PROBE):
            return None
        return probe[len(head) + len(_PROBE):]

    # cache ---------------------------------------------------------------------------------
    def _reuse_prefix(self, tokens: list[int]) -> int:
        """Keep the longest cached prefix of tokens (at least one token is always evaluated)."""
        llm = self._llm
        cached = llm.input_ids[: llm.n_tokens].tolist()
        common = 0
        for a, b in zip(cached, tokens, strict=False):
            if a != b:
                break
            common += 1
        common = min(common, len(tokens) - 1)
        # llama-cpp-python's own context handle; recurrent models cannot drop a partial cache
        if common < llm.n_tokens and not llm._ctx.kv_cache_seq_rm(-1, common, -1):
            llm.reset()
            common = 0
        llm.n_tokens = common
        return common

    def _eval_prompt(self, tokens: list[int], cancel: threading.Event) -> bool:
        """Evaluate all but the last token in batches; False when cancelled in between."""
        llm = self._llm
        step = max(1, int(llm.n_batch))
        rest = tokens[llm.n_tokens:-1]
        for i in range(0, len(rest), step):
            if cancel.is_set():
                return False
            llm.eval(rest[i:i + step])
        return not cancel.is_set()

    def _grammar(self, request: TurnRequest) -> Any:
        text = self._dialect.grammar(request.tools, request.known_paths, request.force_answer)
        if not text:
            return None
        if text not in self._grammars:
            from llama_cpp import LlamaGrammar

            self._grammars.clear()  # one conversation rarely needs more than the latest grammar
            self._grammars[text] = LlamaGrammar.from_string(text, verbose=False)
        return self._grammars[text]

    def _is_eog(self, token: int) -> bool:
        return bool(self._is_eog_fn(self._vocab, token))

    # one turn ------------------------------------------------------------------------------
    def _turn(self, request: TurnRequest, cancel: threading.Event) -> Iterator[ModelEvent]:
        started = time.monotonic()
        prompt = self._build_prompt(request)
        n_ctx = self.context_length
        if len(prompt.tokens) >= n_ctx - 1:
            yield TurnCompleted("", ParsedReply(""), Usage(), prompt.text, "context_full")
            return
        cached = self._reuse_prefix(prompt.tokens)
        usage = _UsageClock(started, len(prompt.tokens) - cached, cached)
        if not self._eval_prompt(prompt.tokens, cancel):
            self._transcript = None
            yield TurnCompleted("", ParsedReply(""), usage.done(0), prompt.text, "cancelled")
            return
        stream = _Stream(self, request, cancel, n_ctx)
        yield from stream.run(prompt.tokens, usage)
        self._transcript = _Transcript(tuple(request.messages), tuple(request.tools),
                                       tuple(prompt.tokens) + tuple(stream.tokens),
                                       prompt.text + stream.raw, stream.exact)
        yield TurnCompleted(stream.raw, self._dialect.parse(stream.raw),
                            usage.done(len(stream.tokens)), prompt.text, stream.stop_reason)


class _UsageClock:
    def __init__(self, started: float, evaluated: int, cached: int) -> None:
        self.started, self.evaluated, self.cached = started, evaluated, cached
        self.first_token: float = 0.0

    def mark_first(self) -> None:
        if not self.first_token:
            self.first_token = time.monotonic() - self.started

    def done(self, generated: int) -> Usage:
        return Usage(self.evaluated, self.cached, generated, time.monotonic() - self.started,
                     self.first_token)


class _Stream:
    """The generation loop of one turn: tokens -> raw text -> visible deltas, with every stop."""

    def __init__(self, model: LlamaChatModel, request: TurnRequest, cancel: threading.Event,
                 n_ctx: int) -> None:
        self.model, self.request, self.cancel, self.n_ctx = model, request, cancel, n_ctx
        self.stops = [s for s in model.dialect.stop_strings() if s]
        self.decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self.tokens: list[int] = []
        self.raw = ""
        self.shown = ""
        self.stop_reason = "length"
        self.exact = True

    def run(self, prompt_tokens: list[int], usage: _UsageClock) -> Iterator[TextDelta]:
        llm, settings = self.model._llm, self.model._settings
        llm.set_seed(settings.seed)
        temp = max(0.0, float(self.request.temperature))
        tokens = llm.generate(prompt_tokens[-1:], reset=False, temp=temp, top_k=40, top_p=0.95,
                              min_p=0.05, repeat_penalty=1.0, grammar=self.model._grammar(self.request))
        try:
            for token in tokens:
                usage.mark_first()
                if self._step(int(token), llm):
                    break
                delta = self._delta()
                if delta:
                    yield TextDelta(delta)
        finally:
            tokens.close()
        if self.exact:  # a stop string already cut the text; otherwise flush a split character
            self.raw += self.decoder.decode(b"", final=True)
        delta = self._delta(final=True)
        if delta:
            yield TextDelta(delta)

    def _step(self, token: int, llm: Any) -> bool:
        """Take one sampled token; True when the turn is over."""
        if self.cancel.is_set():
            self.stop_reason = "cancelled"
            return True
        if self.model._is_eog(token):
            self.stop_reason = "stop"
            return True
        self.tokens.append(token)
        self.raw += self.decoder.decode(llm.detokenize([token], special=True))
        if self._cut_at_stop_string():
            return True
        if len(self.tokens) >= self.request.max_tokens:
            self.stop_reason = "length"
            return True
        if llm.n_tokens + 2 >= self.n_ctx:
            self.stop_reason = "context_full"
            return True
        return False

    def _cut_at_stop_string(self) -> bool:
        hits = [i for i in (self.raw.find(s) for s in self.stops) if i >= 0]
        if not hits:
            return False
        self.raw = self.raw[: min(hits)]
        self.stop_reason, self.exact = "stop", False
        return True

    def _delta(self, final: bool = False) -> str:
        """New visible text; a possible partial stop string at the end is held back."""
        raw = self.raw if final else self.raw[: len(self.raw) - _partial_stop(self.raw, self.stops)]
        visible = self.model.dialect.visible_text(raw) if not final else self.model.dialect.parse(raw).content
        if not visible.startswith(self.shown):
            return ""  # the dialect changed its mind (non-monotonic); never unsay shown text
        delta, self.shown = visible[len(self.shown):], visible
        return delta


def _partial_stop(text: str, stops: Sequence[str]) -> int:
    """Length of the longest end of text that could still grow into a stop string."""
    best = 0
    for stop in stops:
        for n in range(min(len(stop) - 1, len(text)), best, -1):
            if text.endswith(stop[:n]):
                best = n
                break
    return best

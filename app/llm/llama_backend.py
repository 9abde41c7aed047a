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

import logging
import os
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.errors import ModelLoadError
from app.llm.base import (
    Message,
    ModelEvent,
    ParsedReply,
    PrefixWarm,
    ToolSpec,
    TurnCompleted,
    TurnEnd,
    TurnRequest,
    Usage,
)
from app.llm.catalog import catalog_name
from app.llm.cpu_backends import generation_threads, load_cpu_variants
from app.llm.decode_threads import DecodeThreads
from app.llm.dialects.base import Dialect
from app.llm.gguf import GGUFHeader, read_header
from app.llm.llama_abort import BatchAbort
from app.llm.llama_log import captured_log, load_error, log_forwarder
from app.llm.llama_params import cpu_reports_amx, model_params
from app.llm.llama_state import load_state, save_state, state_file
from app.llm.llama_stream import TokenStream, UsageClock, logprob_reader
from app.settings import Settings

_PROBE = "\u2063burrow-probe\u2063"  # a reply text no template will produce on its own
_NEXT_WORD = "The"  # what follows a shared prefix in a prompt: a header or the question, words
log = logging.getLogger(__name__)


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
    The portable build (what `make setup` installs) also needs its CPU code loaded: cpu_backends.
    """
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    import llama_cpp

    load_cpu_variants(Path(llama_cpp.__file__).parent)
    log_forwarder(llama_cpp)  # installed on the first call only (a load's capture stays in place)
    return llama_cpp


def load_model(path: str | Path, settings: Settings | None = None,
               dialect: Dialect | None = None) -> LlamaChatModel:
    """Load a GGUF for chat; ModelLoadError (never a crash) when the file or the load is bad.

    The dialect comes from the file's own chat template unless one is given.
    """
    settings = settings or Settings()
    path = Path(path)
    header = read_header(path)  # clear errors for missing, empty, truncated and non-GGUF files
    dialect = dialect or _dialect_for(header)
    started = time.monotonic()
    llm = _construct(path, header, settings)
    return LlamaChatModel(llm, header, dialect, settings, time.monotonic() - started)


def decode_choices(settings: Settings) -> tuple[int, ...]:
    """The thread counts a token may be generated with, the first one to start: a fixed
    `decode_threads`, else half of `n_threads` (cpu_backends.generation_threads), and with
    `time_decode_threads` all of them too, timed against it."""
    if settings.decode_threads:
        return (settings.decode_threads,)
    half = generation_threads(settings.n_threads)
    return tuple(dict.fromkeys((half, settings.n_threads))) if settings.time_decode_threads else (half,)


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
    extra = {} if not cpu_reports_amx(llama_cpp) else {"use_extra_bufts": False}
    try:
        with captured_log(llama_cpp, log), model_params(llama_cpp, extra):
            return llama_cpp.Llama(
                model_path=str(path), n_ctx=n_ctx, n_batch=n_batch, n_ubatch=n_batch,
                n_threads=decode_choices(settings)[0], n_threads_batch=settings.n_threads,
                flash_attn=settings.flash_attn, use_mmap=settings.use_mmap, n_gpu_layers=0,
                seed=settings.seed, verbose=False,
            )
    except (ValueError, RuntimeError, OSError, AssertionError) as exc:
        raise load_error(path, exc, log) from None


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
        self._abort = BatchAbort(llama_cpp, llm._ctx.ctx)
        self._grammars: dict[str, Any] = {}
        self._pieces: dict[int, bytes] = {}  # token -> its bytes (at most the vocabulary)
        # the thread count for each generated token, timed while generating (app.llm.decode_threads)
        self._threads = DecodeThreads(decode_choices(settings), lambda n: llama_cpp.llama_set_n_threads(
            llm._ctx.ctx, n, settings.n_threads))
        self._logprob = logprob_reader(lambda: llama_cpp.llama_get_logits_ith(llm._ctx.ctx, -1), llm.n_vocab())
        self._name = catalog_name(Path(header.path)) or header.name  # read the catalog once

    # ChatModel -----------------------------------------------------------------------------
    @property
    def name(self) -> str:
        return self._name

    @property
    def dialect_name(self) -> str:
        return self._dialect.name

    @property
    def native_tool_calls(self) -> bool:
        return self._dialect.supports_tools

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

    def warm(self, messages: Sequence[Message], tools: Sequence[ToolSpec], scope: str = "") -> PrefixWarm:
        """Evaluate the shared prompt prefix, or load its KV state saved by an earlier start.

        A last user message in `messages` is the opening of the question's own user message (the
        workspace layout): its text is part of the prefix. `scope` names what that opening belongs
        to (the workspace), so its state is kept in one file that a changed layout replaces."""
        started = time.monotonic()
        tokens = self._prefix_tokens(self._shared_prefix(messages, tools))
        if len(tokens) < 2:
            return PrefixWarm()
        with self._lock:
            llm = self._llm
            if llm.input_ids[: min(llm.n_tokens, len(tokens))].tolist() == tokens:
                return PrefixWarm(len(tokens), 0, False, time.monotonic() - started)
            self._transcript = None
            file = state_file(self.path, tokens, self._context_key(), scope)
            loaded = load_state(llm, file, tokens)
            if not loaded:
                llm.reset()
                llm.eval(tokens)
                save_state(llm, file, tokens)
        return PrefixWarm(len(tokens), 0 if loaded else len(tokens), loaded, time.monotonic() - started)

    def _prefix_tokens(self, text: str) -> list[int]:
        """The tokens of `text` that stay the same whatever text follows: a tokenizer may merge its
        end with what comes next (SmolLM2 splits a blank line before a word, not at the end)."""
        alone, followed = self._tokenize_prompt(text), self._tokenize_prompt(text + _NEXT_WORD)
        same = next((i for i, (a, b) in enumerate(zip(alone, followed, strict=False)) if a != b), len(alone))
        return alone[:same]

    def _shared_prefix(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> str:
        """The rendered text before the question-specific part of the first user message: the
        same for every question (in one workspace, when `messages` ends with its opening)."""
        last = messages[-1] if messages else {}
        if last.get("role") == "user":
            turns = [*messages[:-1], {**last, "content": str(last.get("content") or "") + _PROBE}]
        else:
            turns = [*messages, {"role": "user", "content": _PROBE}]
        text = self._render(turns, tools, True)
        return text[: text.find(_PROBE)] if _PROBE in text else ""

    def _context_key(self) -> dict[str, Any]:
        llm = self._llm
        return {"n_ctx": int(llm.n_ctx()), "n_batch": int(llm.n_batch), "flash": self._settings.flash_attn,
                "llama_cpp": _llama_cpp().__version__}

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

    def _build_prompt(self, msgs: tuple[Message, ...], tools: tuple[ToolSpec, ...]) -> _Prompt:
        spliced = self._splice(msgs, tools)
        if spliced is not None:
            return spliced
        text = self._render(msgs, tools, True)
        return _Prompt(text, self._tokenize_prompt(text), False)

    def _rendered_input(self, request: TurnRequest) -> tuple[tuple[Message, ...], tuple[ToolSpec, ...]]:
        """The messages and tools as rendered: with tools_late, the tools' text ends the last user
        message and the template renders no tools (its system turn stays as the cache holds it)."""
        msgs, tools = tuple(request.messages), tuple(request.tools)
        late = self._dialect.late_tool_prompt(tools) if request.tools_late and tools else None
        last = next((i for i in range(len(msgs) - 1, -1, -1) if msgs[i].get("role") == "user"), None)
        if late is None or last is None:
            return msgs, tools
        told = {**msgs[last], "content": f"{msgs[last].get('content') or ''}\n\n{late}"}
        return (*msgs[:last], told, *msgs[last + 1:]), ()

    def _splice(self, msgs: tuple[Message, ...], tools: tuple[ToolSpec, ...]) -> _Prompt | None:
        """The cached transcript + the rendering of only the new messages, when that is sound."""
        t = self._transcript
        if t is None or tools != t.tools or len(msgs) <= len(t.messages) + 1:
            return None
        n = len(t.messages)
        if msgs[:n] != t.messages or msgs[n].get("role") != "assistant":
            return None
        marker = self._end_of_turn(msgs[:n], tools)
        added = self._rendered_after(msgs, n, tools, marker)
        if marker is None or added is None:
            return None
        suffix = marker + added
        if t.exact:
            return _Prompt(t.text + suffix, list(t.tokens) + self._tokenize(suffix), True)
        return _Prompt(t.text + suffix, self._tokenize_prompt(t.text + suffix), True)

    def _rendered_after(self, msgs: Sequence[Message], n: int, tools: Sequence[ToolSpec],
                        marker: str | None) -> str | None:
        """The rendering of msgs[n + 1:] (after the cached reply msgs[n]) as the template shows it.

        Normally render(all) minus render(up to the reply). Some renderings of earlier turns
        depend on later ones (a dialect restating the latest question); then the reply's text
        is replaced by a probe and what follows it is taken, so the cache still stays valid.
        """
        seen = self._render(msgs[: n + 1], tools, False)
        full = self._render(msgs, tools, True)
        if full.startswith(seen):
            return full[len(seen):]
        if marker is None or msgs[n].get("tool_calls"):
            return None
        probe = self._render([*msgs[:n], {"role": "assistant", "content": _PROBE}, *msgs[n + 1:]],
                             tools, True)
        at = probe.find(_PROBE + marker)
        return probe[at + len(_PROBE) + len(marker):] if at >= 0 else None

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
        """Evaluate all but the last token in batches; False when cancelled, also inside a batch
        (see llama_abort: the batch's tokens are then dropped, the ones before stay cached)."""
        llm = self._llm
        step = max(1, int(llm.n_batch))
        rest = tokens[llm.n_tokens:-1]
        with self._abort.watching(cancel):
            for i in range(0, len(rest), step):
                if cancel.is_set():
                    return False
                try:
                    llm.eval(rest[i:i + step])
                except RuntimeError:
                    if self._abort.aborted:
                        return False
                    raise
        return not cancel.is_set()

    def _grammar(self, request: TurnRequest) -> Any:
        text = self._dialect.grammar(request.tools, request.known_paths, request.force_answer,
                                    request.require_tool, request.messages)
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
        msgs, tools = self._rendered_input(request)
        prompt = self._build_prompt(msgs, tools)
        n_ctx = self.context_length
        if len(prompt.tokens) >= n_ctx - 1:
            yield TurnCompleted("", ParsedReply(""), Usage(), prompt.text, TurnEnd.CONTEXT_FULL)
            return
        cached = self._reuse_prefix(prompt.tokens)
        usage = UsageClock(started, len(prompt.tokens) - cached, cached)
        if not self._eval_prompt(prompt.tokens, cancel):
            self._transcript = None
            yield TurnCompleted("", ParsedReply(""), usage.done(0), prompt.text, TurnEnd.CANCELLED)
            return
        stream = TokenStream(self._llm, self._dialect, request, cancel, n_ctx, self._is_eog, self._pieces,
                             self._logprob, self._threads)
        seed = self._settings.seed if request.seed is None else request.seed
        yield from stream.run(prompt.tokens, usage, self._grammar(request), seed)
        self._transcript = _Transcript(msgs, tools,
                                       tuple(prompt.tokens) + tuple(stream.tokens),
                                       prompt.text + stream.raw, stream.exact)
        yield TurnCompleted(stream.raw, self._dialect.parse(stream.raw),
                            usage.done(len(stream.tokens)), prompt.text, stream.stop_reason,
                            tuple(stream.token_logprobs))

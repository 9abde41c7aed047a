"""One turn's generation loop over llama-cpp-python's token generator (the backend owns the model).

Tokens become raw text (special tokens kept, UTF-8 split across tokens handled), raw text becomes
visible deltas through the dialect, and every way a turn ends has a named stop_reason:
stop (end-of-generation token or a stop string), length (max_tokens), context_full, cancelled.
Cancellation is checked on every token.
"""

from __future__ import annotations

import codecs
import math
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from app.llm.base import TextDelta, TurnEnd, TurnRequest, Usage
from app.llm.decode_threads import DecodeThreads
from app.llm.dialects.base import Dialect


class UsageClock:
    """Times one turn and builds its Usage."""

    def __init__(self, started: float, evaluated: int, cached: int) -> None:
        self.started, self.evaluated, self.cached = started, evaluated, cached
        self.first_token: float = 0.0

    def mark_first(self) -> None:
        if not self.first_token:
            self.first_token = time.monotonic() - self.started

    def done(self, generated: int) -> Usage:
        return Usage(self.evaluated, self.cached, generated, time.monotonic() - self.started,
                     self.first_token)


class TokenStream:
    """The generation loop of one turn: tokens -> raw text -> visible deltas, with every stop."""

    def __init__(self, llm: Any, dialect: Dialect, request: TurnRequest, cancel: threading.Event,
                 n_ctx: int, is_eog: Callable[[int], bool], pieces: dict[int, bytes] | None = None,
                 logprob: Callable[[int], float] | None = None,
                 threads: DecodeThreads | None = None) -> None:
        self.llm, self.dialect, self.request, self.cancel = llm, dialect, request, cancel
        self.n_ctx, self.is_eog = n_ctx, is_eog
        # each token's bytes, kept across turns by the backend: a dict lookup instead of a trip
        # through llama-cpp-python's tokenizer wrappers and ctypes for every token
        self.pieces: dict[int, bytes] = {} if pieces is None else pieces
        self.grew = False  # the last token added visible-text candidates (not half a character)
        self.stops = [s for s in dialect.stop_strings() if s]
        self.decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self.tokens: list[int] = []
        # each token's text and its log-probability under the model (before temperature and the
        # sampler's cuts): how sure the model was of what it wrote, for the verdict
        self.token_logprobs: list[tuple[str, float]] = []
        self._logprob = logprob or (lambda token: 0.0)  # None: a stand-in llm, probabilities unknown
        self.threads = threads  # times each token and picks the decode thread count (None: fixed)
        self.raw = ""
        self.shown = ""
        self.stop_reason = TurnEnd.LENGTH
        self.exact = True

    def run(self, prompt_tokens: list[int], usage: UsageClock, grammar: Any,
            seed: int) -> Iterator[TextDelta]:
        """Sample after the prompt (all but its last token already evaluated) until a stop."""
        llm = self.llm
        llm.set_seed(seed)
        temp = max(0.0, float(self.request.temperature))
        tokens = llm.generate(prompt_tokens[-1:], reset=False, temp=temp, top_k=40, top_p=0.95,
                              min_p=0.05, repeat_penalty=1.0, grammar=grammar)
        threads = self.threads
        if threads is not None:
            threads.begin()
        try:
            for token in tokens:
                usage.mark_first()
                if threads is not None:
                    threads.tick()  # before the next token is evaluated: a switch applies to it
                if self._step(int(token), llm):
                    break
                delta = self._delta() if self.grew else ""
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
            self.stop_reason = TurnEnd.CANCELLED
            return True
        if self.is_eog(token):
            self.stop_reason = TurnEnd.STOP
            return True
        self.tokens.append(token)
        piece = self.pieces.get(token)
        if piece is None:
            piece = self.pieces[token] = llm.detokenize([token], special=True)
        text = self.decoder.decode(piece)
        self.token_logprobs.append((text, self._logprob(token)))
        self.raw += text
        self.grew = bool(text)
        if self._cut_at_stop_string():
            return True
        if len(self.tokens) >= self.request.max_tokens:
            self.stop_reason = TurnEnd.LENGTH
            return True
        if llm.n_tokens + 2 >= self.n_ctx:
            self.stop_reason = TurnEnd.CONTEXT_FULL
            return True
        return False

    def _cut_at_stop_string(self) -> bool:
        hits = [i for i in (self.raw.find(s) for s in self.stops) if i >= 0]
        if not hits:
            return False
        self.raw = self.raw[: min(hits)]
        self.stop_reason, self.exact = TurnEnd.STOP, False
        return True

    def _delta(self, final: bool = False) -> str:
        """New visible text; a possible partial stop string at the end is held back."""
        raw = self.raw if final else self.raw[: len(self.raw) - _partial_stop(self.raw, self.stops)]
        visible = self.dialect.parse(raw).content if final else self.dialect.visible_text(raw)
        if not visible.startswith(self.shown):
            return ""  # the dialect changed its mind (non-monotonic); never unsay shown text
        delta, self.shown = visible[len(self.shown):], visible
        return delta


def logprob_reader(last_logits: Callable[[], Any], n_vocab: int) -> Callable[[int], float]:
    """token -> log p(token) under the logits it was just sampled from (the context's last output
    row, read in place through the pointer `last_logits` gives): one pass over the vocabulary,
    ~0.1 ms a token with the 1.5B default against ~70 ms to generate one."""
    import ctypes

    import numpy as np  # here, not at import: the window starts without numpy

    seen: int | None = None  # the output row's address, and a numpy view of it made once
    row: Any = None
    scratch = np.empty(n_vocab, dtype=np.float32)

    def logprob(token: int) -> float:
        nonlocal seen, row
        pointer = last_logits()
        address = ctypes.cast(pointer, ctypes.c_void_p).value
        if row is None or address != seen:  # the first token, or the context moved its buffer
            seen, row = address, np.ctypeslib.as_array(pointer, shape=(n_vocab,))
        top = row.max()
        np.subtract(row, top, out=scratch)
        np.exp(scratch, out=scratch)
        return round(float(row[token]) - float(top) - math.log(float(scratch.sum())), 4)

    return logprob


def _partial_stop(text: str, stops: Sequence[str]) -> int:
    """Length of the longest end of text that could still grow into a stop string."""
    best = 0
    for stop in stops:
        for n in range(min(len(stop) - 1, len(text)), best, -1):
            if text.endswith(stop[:n]):
                best = n
                break
    return best

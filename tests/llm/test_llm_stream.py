"""The generation loop's text handling, driven by a token source standing in for llama.cpp.

Real-model behaviour is in test_llm_backend.py; this pins the edge cases a real model produces
only by chance: a character split across tokens, a stop string split across tokens.
"""

from __future__ import annotations

import threading

from app.llm.base import ParsedReply, TextDelta, TurnRequest
from app.llm.dialects.base import Dialect
from app.llm.llama_stream import TokenStream, UsageClock

EOG = 0


class _Pieces:
    """Yields token ids whose text is pieces[id]; counts evaluated tokens like llama.cpp."""

    def __init__(self, pieces: list[bytes]) -> None:
        self.pieces, self.n_tokens = pieces, 0

    def set_seed(self, seed: int) -> None:
        pass

    def generate(self, tokens, **_):
        for token in range(1, len(self.pieces)):
            self.n_tokens += 1
            yield token
        yield EOG

    def detokenize(self, tokens, special=False) -> bytes:
        return b"".join(self.pieces[t] for t in tokens)


class _StopDialect(Dialect):
    name = "test"

    def render(self, messages, tools=(), add_generation_prompt=True) -> str:
        return ""

    def parse(self, raw: str) -> ParsedReply:
        return ParsedReply(raw)

    def stop_strings(self) -> list[str]:
        return ["</end>"]


def _run(pieces: list[bytes], max_tokens: int = 100) -> tuple[list[str], TokenStream]:
    req = TurnRequest(messages=({"role": "user", "content": "x"},), max_tokens=max_tokens)
    stream = TokenStream(_Pieces([b"", *pieces]), _StopDialect(None), req, threading.Event(), 4096,
                         lambda t: t == EOG)
    deltas = [e.text for e in stream.run([1], UsageClock(0.0, 1, 0), None, 1) if isinstance(e, TextDelta)]
    return deltas, stream


def test_character_split_across_tokens_is_never_shown_broken() -> None:
    deltas, stream = _run([b"caf", b"\xc3", b"\xa9 ok"])
    assert "".join(deltas) == "café ok" and all("\ufffd" not in d for d in deltas)
    assert stream.stop_reason == "stop" and stream.exact


def test_stop_string_split_across_tokens_never_reaches_the_user() -> None:
    deltas, stream = _run([b"Hello </", b"en", b"d> more"])
    assert "".join(deltas) == "Hello " and stream.raw == "Hello "
    assert stream.stop_reason == "stop" and not stream.exact


def test_max_tokens_ends_with_length() -> None:
    _, stream = _run([b"a", b"b", b"c", b"d"], max_tokens=2)
    assert stream.raw == "ab" and stream.stop_reason == "length"

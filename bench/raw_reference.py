"""The raw llama-cpp-python side of the model figures: prompt tokens as the backend makes them, and
a raw context walked forward like a perfect KV cache (bench/fig_loop.py, bench/fig_prefix.py)."""

from __future__ import annotations

import time
from typing import Any


def prompt_tokens(raw: Any, prompt: str) -> list[int]:
    """The prompt as the backend tokenizes it, BOS included."""
    tokens = list(raw.tokenize(prompt.encode("utf-8"), add_bos=False, special=True))
    bos = raw.token_bos()
    if raw._model.add_bos_token() and bos >= 0 and tokens[:1] != [bos]:
        tokens.insert(0, bos)  # as the backend does when the template writes no BOS
    return tokens


class RawReference:
    """A raw llama context walked forward like a perfect cache; times only each turn's new tokens."""

    def __init__(self, raw: Any) -> None:
        self.raw = raw
        self.samples: list[dict] = []
        raw.reset()

    def measure(self, before: Any, turn: Any) -> None:
        """`before` and `turn` are consecutive TurnCompleted events of Burrow's loop."""
        raw = self.raw
        self.advance(self._tokens(before.prompt + before.raw))  # untimed: what the cache holds
        tokens = self._tokens(turn.prompt)
        common = min(common_prefix(raw.input_ids[: raw.n_tokens].tolist(), tokens), len(tokens) - 1)
        self._truncate(common)
        start = time.perf_counter()
        raw.eval(tokens[common:])
        greedy_token(raw)
        self.samples.append({"new_tokens": len(tokens) - common, "seconds": time.perf_counter() - start})

    def _tokens(self, text: str) -> list[int]:
        return prompt_tokens(self.raw, text)

    def _truncate(self, n: int) -> None:
        if n < self.raw.n_tokens:
            self.raw._ctx.kv_cache_seq_rm(-1, n, -1)
            self.raw.n_tokens = n

    def advance(self, tokens: list[int]) -> None:
        self._truncate(common_prefix(self.raw.input_ids[: self.raw.n_tokens].tolist(), tokens))
        if self.raw.n_tokens < len(tokens):
            self.raw.eval(tokens[self.raw.n_tokens:])


def greedy_token(raw: Any) -> int:
    """The reply's first token, greedy: argmax of the last logits."""
    import numpy as np

    return int(np.ctypeslib.as_array(raw._ctx.get_logits(), shape=(raw.n_vocab(),)).argmax())


def common_prefix(a: list[int], b: list[int]) -> int:
    return next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))

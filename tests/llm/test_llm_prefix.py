"""The shared prompt prefix: evaluated once per model, kept on disk, loaded by the next start."""

from __future__ import annotations

import pytest

from app.llm.base import TextDelta, TurnRequest
from app.settings import Settings

pytestmark = pytest.mark.real_model

SYSTEM = ({"role": "system", "content": "You answer questions about a project's code. " * 12},)
QUESTION = {"role": "user", "content": "Name one colour of the sky."}


def _answer(model) -> tuple[str, object]:
    events = list(model.generate(TurnRequest(messages=(*SYSTEM, QUESTION), temperature=0.0, max_tokens=16)))
    return "".join(e.text for e in events if isinstance(e, TextDelta)), events[-1]


def test_a_restart_loads_the_prefix_instead_of_evaluating_it(real_model_path, burrow_home) -> None:
    from app.llm.llama_backend import load_model

    settings = Settings(n_ctx=2048, n_threads=1)
    first = load_model(real_model_path, settings)
    cold = first.warm(SYSTEM, ())
    assert cold.tokens > 40 and cold.evaluated == cold.tokens and not cold.loaded
    again = first.warm(SYSTEM, ())
    assert again.evaluated == 0 and not again.loaded  # already in the KV cache
    reference, ref_done = _answer(first)
    assert ref_done.usage.cached_tokens >= cold.tokens - 1
    del first

    restarted = load_model(real_model_path, settings)  # a new start: the state comes from disk
    warm = restarted.warm(SYSTEM, ())
    assert warm.loaded and warm.evaluated == 0 and warm.tokens == cold.tokens
    text, done = _answer(restarted)
    assert done.usage.cached_tokens >= cold.tokens - 1  # only the question was evaluated
    assert text == reference  # the loaded state is the same state


def test_a_corrupt_state_file_is_evaluated_again(real_model_path, burrow_home) -> None:
    from app.llm.llama_backend import load_model

    settings = Settings(n_ctx=2048, n_threads=1)
    model = load_model(real_model_path, settings)
    model.warm(SYSTEM, ())
    for file in (burrow_home / "cache" / "prefix-states").glob("*.kv"):
        file.write_bytes(b"not a llama state")
    fresh = load_model(real_model_path, settings)
    warm = fresh.warm(SYSTEM, ())
    assert not warm.loaded and warm.evaluated == warm.tokens
    assert _answer(fresh)[0]

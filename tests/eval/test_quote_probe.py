"""The quote probe (bench/eval/quote_probe.py): the lines it scores, and its scores with a real model."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.eval.quote_probe import auroc, candidates, score_lines, shown_lines

ROOT = Path(__file__).resolve().parents[2]
MODEL = ROOT / "models" / "SmolLM2-135M-Instruct.Q4_1.gguf"

PROMPT = """The project folder contains: src/, README.md

src/limits.py:1-4
```python
MAX_NOTE_LENGTH = 500
MAX_TITLE_LENGTH = 80
```

README.md:3-5
````markdown
Use ```notes add``` to add a note.
Notes are short: MAX_NOTE_LENGTH caps them.
````

Question: How long can a note be?"""


def test_the_shown_lines_are_those_inside_fences_once_each() -> None:
    lines = shown_lines(PROMPT + "\n```\nMAX_NOTE_LENGTH = 500\n```")
    assert lines == ["MAX_NOTE_LENGTH = 500", "MAX_TITLE_LENGTH = 80", "Use ```notes add``` to add a note.",
                     "Notes are short: MAX_NOTE_LENGTH caps them."]


def test_candidates_hold_a_claim_of_the_answer_or_the_subject_claims_first() -> None:
    lines = shown_lines(PROMPT)
    picked = candidates(lines, "A note can be 500 characters long (`MAX_NOTE_LENGTH`).", "How long can a note be?")
    assert picked[0] == "MAX_NOTE_LENGTH = 500"  # both claims
    assert "MAX_TITLE_LENGTH = 80" not in picked


def test_auroc() -> None:
    assert auroc([0.9, 0.8, 0.1], [True, True, False]) == 1.0
    assert auroc([0.5, 0.5], [True, False]) == 0.5
    assert auroc([0.5], [True]) is None


def test_a_line_the_prompt_asks_for_scores_higher_and_rolling_back_is_exact() -> None:
    llama_cpp = pytest.importorskip("llama_cpp")
    if not MODEL.is_file():
        pytest.skip("models/*.gguf absent")
    from app.llm.cpu_backends import load_cpu_variants

    load_cpu_variants(Path(llama_cpp.__file__).parent)
    # n_batch=1: some build machines' llama.cpp dies (SIGILL) in batched prompt evaluation
    llm = llama_cpp.Llama(model_path=str(MODEL), n_ctx=512, n_batch=1, logits_all=True, verbose=False)
    prefix = list(llm.tokenize(b"The secret line is: banana split forever.\nRepeat the secret line: "))
    lines = ["banana split forever.", "purple monkey dishwasher."]
    scores = score_lines(llm, prefix, lines)
    assert scores[0][0] > scores[1][0]
    again = score_lines(llm, prefix, lines[::-1])[::-1]  # each line from the same rolled-back prompt
    assert all(abs(a[0] - b[0]) < 1e-3 for a, b in zip(scores, again, strict=True))

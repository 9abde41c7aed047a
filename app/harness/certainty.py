"""How sure the model was of the values and names its answer states, from its own token probabilities.

The claim checks (app.harness.verdict) find an answer's values in the lines Burrow showed; they
cannot tell a value the model read off the line that states it from a neighbouring value it
guessed from the same chunk. The model can: a value it copies from the line that answers the
question comes out with a probability near 1, a guess does not. On the tuning set (69 answers of
the default model, docs/eval.md "The verdict's certainty"), the lowest probability among the tokens
that state an answer's key claims told right from wrong among the answers the claim checks backed
with an AUROC of 0.90 (over all answers 0.79; the mean over the whole answer 0.64).

Only backends that see the model's logits (the in-process llama.cpp backend) give token
probabilities; without them the verdict is the claim checks' alone.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import accumulate

# Thresholds on the lowest log-probability of a key claim's tokens, each from the tuning set's
# sweep (python -m bench.eval.replay over the rows of a run with token log-probabilities):
# a backed answer stays backed only at or above SURE: -0.3: 16 backed (16 right); -0.6: 21 (21);
# -0.9: 25 (22); no threshold: 30 (25).
SURE = -0.6
# A partly backed answer whose every key claim is in a shown line is backed at or above CERTAIN:
# -0.15: +4 (4 right); -0.3: +5 (5); -0.45: +7 (6).
CERTAIN = -0.3
# A partly backed answer is not backed below GUESS: -1.0: 4 more not backed (1 right); -0.75:
# 6 (2 right).
GUESS = -1.0


@dataclass(frozen=True)
class Certainty:
    """The key claim the model was least sure of, and how sure (log-probability of its weakest token)."""

    claim: str
    logprob: float

    @property
    def percent(self) -> int:
        return round(100 * math.exp(self.logprob))


def least_certain(tokens: Sequence[tuple[str, float]], claims: Iterable[str]) -> Certainty | None:
    """Over each claim (lower-cased) at its first place in the answer the tokens spell (as a whole
    word: `add` is not in "added"), the lowest log-probability of a token that overlaps it; None
    without tokens or with no claim in them."""
    if not tokens:
        return None
    pieces = [piece.lower() for piece, _ in tokens]  # lowered one by one: offsets stay the tokens'
    text, ends = "".join(pieces), list(accumulate(len(piece) for piece in pieces))
    weakest: Certainty | None = None
    for claim in claims:
        found = re.search(r"(?<!\w)" + re.escape(claim) + r"(?!\w)", text) if claim else None
        if found is None:
            continue
        start, stop, begin = found.start(), found.end(), 0
        for (_, logprob), tail in zip(tokens, ends, strict=True):
            if begin < stop and tail > start and (weakest is None or logprob < weakest.logprob):
                weakest = Certainty(claim, logprob)
            begin = tail
    return weakest

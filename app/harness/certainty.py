"""How sure the model was of the values and names its answer states, from its own token probabilities.

The claim checks (app.harness.verdict) find an answer's values in the lines Burrow showed; they
cannot tell a value the model read off the line that states it from a neighbouring value it
guessed from the same chunk. The model can: a value it copies from the line that answers the
question comes out with a probability near 1, a guess does not. On the tuning set (69 answers of
the default model, docs/eval.md "The verdict's certainty"), the lowest probability among the tokens
that state an answer's key claims told right from wrong among the answers the claim checks backed
with an AUROC of 0.90 (over all answers 0.79; the mean over the whole answer 0.64).

The verdict weighs the answer's lead claim only (its first value: app.harness.verdict.judge);
see SURE for the sweep on the three tuning sets.

Only backends that see the model's logits (the in-process llama.cpp backend) give token
probabilities; without them the verdict is the claim checks' alone.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import accumulate

# The threshold on the lowest log-probability of a key claim's tokens, from the tuning set's sweep
# (python -m bench.eval.replay over the rows of a run with token log-probabilities): a backed
# answer stays backed only at or above SURE: -0.3: 16 backed (16 right); -0.6: 21 (21); -0.9: 25
# (22); no threshold: 30 (25). Both tuning sets together (134 answers): -0.4: 38 (32 right);
# -0.6: 45 (38); -0.9: 53 (42).
# Wave 3, seventh session, with the third tuning set (the old held-out set; 268 answers in all):
# the least certain of all key claims let incidental names decide ("`80` ... in the `__init__` of
# `HelpFormatter`": `__init__` at -1.47 made a right answer partly backed), so the verdict weighs
# only the lead claim (verdict.judge: the first number, else quoted or code value, else name).
# Backed (right) over the three sets: every claim at -0.6 (the old rule): 100 (87); lead claim at
# -0.9: 126 (107); -0.6: 119 (103); -0.45: 114 (100); -0.3: 104 (93); -0.2: 98 (88); -0.1: 90 (83).
# -0.3 backs more right answers than the old rule with fewer wrong ones (11 against 13).
SURE = -0.3
# Two more rules were tried and dropped (wave 3, third session): a partly backed answer with every
# key claim in a shown line made backed at >= -0.3, and one below -1.0 made not backed. Fit on the
# first 69 tuning answers, they lost precision on the second tuning set (tuning2, 65 answers in five
# languages: backed right 61% with them, 70% without; not backed right 23% with, 12% without).
# On the held-out answers, without them: wrong answers shown as backed 26 -> 23, right answers
# shown as not backed 11 -> 4 (docs/eval.md). A narrower sink stayed (twenty-second session): an
# unsure answer whose lines hold at most one of its claims and miss another (verdict.GUESSED_MAX_FOUND).


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
    word: `add` is not in "added"), the lowest log-probability of a token that overlaps it, with
    the claim as the answer wrote it; None without tokens or with no claim in them."""
    if not tokens:
        return None
    pieces = [piece.lower() for piece, _ in tokens]  # lowered one by one: offsets stay the tokens'
    text, ends = "".join(pieces), list(accumulate(len(piece) for piece in pieces))
    written = "".join(piece for piece, _ in tokens)
    same_offsets = len(written) == len(text)
    weakest: Certainty | None = None
    for claim in claims:
        found = re.search(r"(?<!\w)" + re.escape(claim) + r"(?!\w)", text) if claim else None
        if found is None:
            continue
        start, stop, begin = found.start(), found.end(), 0
        as_written = written[start:stop] if same_offsets else claim  # as the answer wrote it
        for (_, logprob), tail in zip(tokens, ends, strict=True):
            if begin < stop and tail > start and (weakest is None or logprob < weakest.logprob):
                weakest = Certainty(as_written, logprob)
            begin = tail
    return weakest

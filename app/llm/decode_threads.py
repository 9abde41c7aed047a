"""How many threads generate each token, timed while generating (opt-in: `time_decode_threads`).

A prompt is one big batch and uses every thread (`n_threads`); a reply is generated one token at a
time, where each token's dozens of small matrix products hand work to the other threads and wait
for them. Whether that hand-off pays depends on the machine, on what else runs on it and on
OpenMP's wait policy. With the passive policy the app sets (app.llm.llama_backend), measured
2026-12-06 on 2 cores: SmolLM2 37-40 tokens/s with two threads against 83 with one; the 1.5B
default 15.0-17.7 against 14.2-15.6. (Spinning threads, OpenMP's default, made two threads ~1.5x
faster on the idle machine and collapsed when other programs were busy.) So Burrow decodes with
half its threads by default, and this timer is opt-in: it generates a few tokens with each count,
keeps the faster, and tries the other again every few hundred tokens, since other programs come
and go. A token's time is the wait between two tokens of a reply (its evaluation and its
sampling); the first token of a reply (the prompt's evaluation) and the first token after a switch
(threads waking) are not counted.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

PROBE_TOKENS = 6  # tokens timed per count in a measurement (their median is the count's time)
RETRY_TOKENS = 192  # after this many tokens with one count, the other is timed again
MARGIN = 0.05  # the other count must be this much faster to take over (no flapping on noise)


class DecodeThreads:
    """Picks the thread count for generating tokens among `choices` by timing each; `apply(n)`
    sets it on the context (from the next token evaluated on). One per loaded model, across turns."""

    def __init__(self, choices: Sequence[int], apply: Callable[[int], None],
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.choices = tuple(dict.fromkeys(int(n) for n in choices if int(n) >= 1)) or (1,)
        self._apply, self._clock = apply, clock
        self.current = self.choices[0]
        self.seconds: dict[int, float] = {}  # each count's latest median seconds per token
        self._since: dict[int, int] = dict.fromkeys(self.choices, 0)  # tokens since each was timed
        self._window: list[float] = []  # this measurement's token times, with `current`
        self._last: float | None = None  # when the previous token of this reply came
        self._skip = True  # the next interval follows a switch: not counted

    @property
    def measuring(self) -> bool:
        return len(self.choices) > 1

    def begin(self) -> None:
        """A new reply: its first token comes after the prompt's evaluation, which is not timed."""
        self._last = None

    def tick(self) -> None:
        """A token of the reply has arrived; the next one is evaluated with the count set after this."""
        if not self.measuring:
            return
        now = self._clock()
        last, self._last = self._last, now
        if last is None:
            return
        if self._skip:
            self._skip = False
            return
        self._window.append(now - last)
        for n in self.choices:
            self._since[n] += 1
        if len(self._window) >= PROBE_TOKENS:
            self._measured()

    def _measured(self) -> None:
        times = sorted(self._window)
        self.seconds[self.current] = times[len(times) // 2]
        self._since[self.current] = 0
        self._window = []
        self._switch(self._next())

    def _next(self) -> int:
        """An untimed count first, then one not timed for RETRY_TOKENS, else the fastest."""
        for n in self.choices:
            if n not in self.seconds:
                return n
        best = min(self.choices, key=lambda n: self.seconds[n])
        if self.seconds[best] >= self.seconds[self.current] * (1 - MARGIN):
            best = self.current
        stale = [n for n in self.choices if n != best and self._since[n] >= RETRY_TOKENS]
        return stale[0] if stale else best

    def _switch(self, n: int) -> None:
        if n != self.current:
            self.current, self._skip = n, True
            self._apply(n)

    def describe(self) -> str:
        timed = ", ".join(f"{n}: {1 / s:.1f} tok/s" for n, s in sorted(self.seconds.items()) if s > 0)
        return f"decode threads {self.current} ({timed or 'not yet timed'})"

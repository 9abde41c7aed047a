"""The decode thread count is picked by timing tokens (app.llm.decode_threads): a fake clock for the
policy, the real backend on SmolLM2 for the switch itself."""

from __future__ import annotations

import pytest

from app.llm.decode_threads import PROBE_TOKENS, RETRY_TOKENS, DecodeThreads
from app.paths import project_root
from app.settings import Settings

REAL_MODEL = project_root() / "models" / "SmolLM2-135M-Instruct.Q4_1.gguf"


class Machine:
    """A fake clock whose token takes `speed[n]` seconds with n threads; records what was applied."""

    def __init__(self, speed: dict[int, float]) -> None:
        self.speed, self.now, self.applied = dict(speed), 0.0, []

    def clock(self) -> float:
        return self.now

    def reply(self, threads: DecodeThreads, tokens: int, prompt_seconds: float = 5.0) -> list[int]:
        """One reply: the prompt, then `tokens` tokens, each timed by the count in force."""
        threads.begin()
        used = []
        self.now += prompt_seconds
        threads.tick()  # the first token: after the prompt
        for _ in range(tokens - 1):
            used.append(threads.current)
            self.now += self.speed[threads.current]
            threads.tick()
        return used


def _threads(machine: Machine, choices=(1, 2)) -> DecodeThreads:
    return DecodeThreads(choices, machine.applied.append, clock=machine.clock)


def test_the_faster_count_is_kept_after_timing_both() -> None:
    machine = Machine({1: 0.05, 2: 0.035})
    threads = _threads(machine)
    used = machine.reply(threads, 60)
    assert used[0] == 1 and machine.applied[0] == 2  # starts with the first choice, then tries the other
    assert used[-20:] == [2] * 20 and threads.current == 2
    assert threads.seconds == pytest.approx({1: 0.05, 2: 0.035})
    assert "decode threads 2" in threads.describe()


def test_a_slower_second_count_is_tried_once_and_left() -> None:
    machine = Machine({1: 0.05, 2: 0.11})  # another program keeps the second core busy
    threads = _threads(machine)
    used = machine.reply(threads, 60)
    assert machine.applied == [2, 1]
    assert used.count(2) == PROBE_TOKENS + 1  # the switch's own token, then the timed ones
    assert used[-20:] == [1] * 20


def test_the_other_count_is_timed_again_and_taken_when_the_machine_changes() -> None:
    machine = Machine({1: 0.05, 2: 0.11})
    threads = _threads(machine)
    machine.reply(threads, 40)
    assert threads.current == 1
    machine.speed[2] = 0.03  # the other program ended
    used = machine.reply(threads, RETRY_TOKENS + 3 * PROBE_TOKENS)
    assert threads.current == 2 and used[-1] == 2 and threads.seconds[2] == pytest.approx(0.03)


def test_the_current_count_is_left_when_it_becomes_slower() -> None:
    machine = Machine({1: 0.05, 2: 0.03})
    threads = _threads(machine)
    machine.reply(threads, 40)
    assert threads.current == 2
    machine.speed[2] = 0.2  # a busy machine: two threads stall each other
    used = machine.reply(threads, 3 * PROBE_TOKENS)
    assert used[-1] == 1 and threads.current == 1


def test_the_prompt_and_the_token_after_a_switch_are_not_timed() -> None:
    machine = Machine({1: 0.05, 2: 0.03})
    threads = _threads(machine)
    for _ in range(4):  # short replies: the prompt's seconds between them must not count
        machine.reply(threads, 3, prompt_seconds=30.0)
    assert all(s < 1.0 for s in threads.seconds.values())


def test_a_small_difference_does_not_switch() -> None:
    machine = Machine({1: 0.050, 2: 0.049})
    threads = _threads(machine)
    machine.reply(threads, 60)
    assert threads.current == 2  # the last one timed stays: within the margin, no flapping back
    assert machine.applied == [2]


@pytest.mark.parametrize("choices", [(1,), (4, 4), ()])
def test_one_count_is_never_switched(choices) -> None:
    machine = Machine({1: 0.05, 4: 0.05})
    threads = _threads(machine, choices)
    machine.reply(threads, 50)
    assert machine.applied == [] and not threads.measuring and threads.seconds == {}


def test_settings_choose_the_counts() -> None:
    from app.llm.llama_backend import decode_choices

    assert decode_choices(Settings(n_threads=2)) == (1,)  # the default: half, not timed
    assert decode_choices(Settings(n_threads=2, time_decode_threads=True)) == (1, 2)
    assert decode_choices(Settings(n_threads=8, time_decode_threads=True)) == (4, 8)
    assert decode_choices(Settings(n_threads=1, time_decode_threads=True)) == (1,)
    assert decode_choices(Settings(n_threads=8, decode_threads=3, time_decode_threads=True)) == (3,)


@pytest.mark.real_model
def test_the_real_backend_switches_threads_mid_reply_and_writes_the_same_tokens() -> None:
    if not REAL_MODEL.is_file():
        pytest.skip("the default model is not installed (run `make setup`)")
    from app.llm.base import TurnCompleted, TurnRequest
    from app.llm.llama_backend import load_model

    request = TurnRequest(messages=({"role": "user", "content": "Explain how a hash table works."},),
                          temperature=0.0, max_tokens=3 * PROBE_TOKENS + 4)
    auto = load_model(REAL_MODEL, Settings(n_ctx=2048, n_threads=2, time_decode_threads=True))
    applied: list[int] = []
    apply = auto._threads._apply
    auto._threads._apply = lambda n: (applied.append(n), apply(n))
    auto_reply = [e for e in auto.generate(request) if isinstance(e, TurnCompleted)][-1]
    del auto
    fixed = load_model(REAL_MODEL, Settings(n_ctx=2048, n_threads=2, decode_threads=1))
    assert not fixed._threads.measuring
    fixed_reply = [e for e in fixed.generate(request) if isinstance(e, TurnCompleted)][-1]
    assert applied and applied[0] == 2  # both counts ran inside one reply
    assert auto_reply.usage.completion_tokens == request.max_tokens
    assert auto_reply.raw == fixed_reply.raw  # the count changes the speed, never the tokens

"""ContextBudget: a conversation over the budget loses its oldest tool results first, then the newest
is cut; the question itself is never touched, and a conversation that cannot fit says so."""

from __future__ import annotations

from app.harness.budget import MESSAGE_OVERHEAD_TOKENS, ContextBudget


def words(text: str) -> int:
    return len(text.split())


def result(call_id: str, n_words: int) -> dict:
    return {"role": "tool", "tool_call_id": call_id, "name": "read_file",
            "content": " ".join(f"{call_id}w{i}" for i in range(n_words))}


QUESTION = [{"role": "system", "content": "You answer."}, {"role": "user", "content": "Where is x set?"}]


def test_a_conversation_within_the_budget_is_left_as_it_is() -> None:
    messages = [*QUESTION, result("a", 50)]
    fit = ContextBudget(words, 1000).fit(messages)
    assert fit.fits and fit.messages == tuple(messages) and fit.elided_results == 0
    assert fit.tokens == 2 + 4 + 50 + 3 * MESSAGE_OVERHEAD_TOKENS


def test_the_oldest_results_are_elided_first_and_the_newest_kept() -> None:
    messages = [*QUESTION, result("a", 300), result("b", 300), result("c", 300)]
    budget = ContextBudget(words, 500)
    fit = budget.fit(messages)
    assert fit.fits and fit.tokens <= 500 and fit.elided_results == 2
    old_a, old_b, newest = fit.messages[2:]
    assert old_a["content"].startswith("[result elided") and "from read_file" in old_a["content"]
    assert old_b["content"].startswith("[result elided")
    assert newest == messages[-1]  # the newest result is whole
    assert fit.messages[:2] == tuple(QUESTION) and fit.tokens_freed == budget.measure(messages) - fit.tokens
    assert budget.elided_ids == {"a", "b"}


def test_when_eliding_is_not_enough_the_newest_result_is_cut_with_a_note() -> None:
    messages = [*QUESTION, result("a", 100), result("b", 2000)]
    fit = ContextBudget(words, 900).fit(messages)
    assert fit.fits and fit.tokens <= 900
    cut = fit.messages[-1]["content"]
    assert cut.startswith("bw0 bw1") and "[cut to fit the context budget:" in cut
    assert fit.messages[2]["content"].startswith("[result elided")


def test_a_question_too_long_for_the_budget_does_not_fit() -> None:
    long_question = [{"role": "user", "content": "word " * 500}]
    fit = ContextBudget(words, 100).fit([*long_question, result("a", 10)])
    assert not fit.fits and fit.messages[0] == long_question[0]


def test_calibration_adds_what_the_model_really_counted() -> None:
    budget = ContextBudget(words, 1000)
    before = budget.measure(QUESTION)
    budget.calibrate(estimated=before, actual=before + 40)
    assert budget.measure(QUESTION) == before + 40
    budget.calibrate(estimated=before + 40, actual=0)  # a turn that reported no prompt teaches nothing
    assert budget.measure(QUESTION) == before + 40


def test_each_text_is_counted_once() -> None:
    counted: list[str] = []
    budget = ContextBudget(lambda text: counted.append(text) or words(text), 1000)
    messages = [*QUESTION, result("a", 20)]
    budget.measure(messages)
    budget.measure(messages)
    assert len(counted) == 3

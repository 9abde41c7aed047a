"""Cutting invalid citations must not damage the answer's Markdown (code blocks above all)."""

from app.harness.citations import tidy


def test_empty_brackets_left_by_a_cut_citation_go() -> None:
    assert tidy("It is 500 () and MIT [ ; ] .") == "It is 500 and MIT."


def test_fenced_code_keeps_its_fences_and_indentation() -> None:
    answer = "Like this ():\n\n```python\ndef f():\n    return  1\n```\n"
    assert tidy(answer) == "Like this:\n\n```python\ndef f():\n    return  1\n```"


def test_inline_code_keeps_its_brackets() -> None:
    """A user's check on koa: `const handleResponse = () => respond(ctx);` came out as
    `const handleResponse = => respond(ctx);` (and tenacity's `= []` as `= `)."""
    answer = "It is `const handleResponse = () => respond(ctx);` and `self.actions = []` () here."
    assert tidy(answer) == "It is `const handleResponse = () => respond(ctx);` and `self.actions = []` here."


def test_an_answer_with_no_citation_cut_is_left_as_written() -> None:
    from app.harness.citations import Evidence, verify_answer

    answer = "Call setup() first; the list starts as [] (empty)."
    assert verify_answer(answer, Evidence(lambda span: "same"))[0] == answer

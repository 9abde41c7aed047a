"""Cutting invalid citations must not damage the answer's Markdown (code blocks above all)."""

from app.harness.citations import tidy


def test_empty_brackets_left_by_a_cut_citation_go() -> None:
    assert tidy("It is 500 () and MIT [ ; ] .") == "It is 500 and MIT."


def test_fenced_code_keeps_its_fences_and_indentation() -> None:
    answer = "Like this ():\n\n```python\ndef f():\n    return  1\n```\n"
    assert tidy(answer) == "Like this:\n\n```python\ndef f():\n    return  1\n```"

"""What `ask` prints about an answer's verdict, through the real CLI code, workspace and index
(a scripted model gives the answer)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from app.cli.ask_cmd import _ask
from app.harness.prompts import SUPPORT_LABELS
from app.harness.session import Session
from app.harness.verdict import Support
from app.llm.scripted import ScriptedModel
from app.settings import Settings

QUESTION = "What is the default maximum note length?"


def ask(project: Path, answer: str, as_json: bool, capsys, tokens: tuple = (), question: str = QUESTION) -> str:
    settings = Settings(n_threads=1, tool_policy="retrieval", second_stage=False)  # one scripted answer
    with Session.open(project, ScriptedModel([answer], logprobs=[tokens] if tokens else ()), settings) as session:
        code = _ask(question, argparse.Namespace(json=as_json, trace=None), session, None)
    assert code == 0
    return capsys.readouterr().out


def test_json_answer_is_the_model_s_words_and_the_verdict_has_its_own_fields(project: Path, capsys):
    report = json.loads(ask(project, "It is `DEFAULT_MAX_NOTE_LENGTH`, 500.", True, capsys))
    assert report["answer"] == "It is `DEFAULT_MAX_NOTE_LENGTH`, 500."  # no Sources: line
    assert report["support"] == "backed"
    assert report["backing"][0] == {"path": "notekeeper/config.py", "line": 12,
                                    "text": "DEFAULT_MAX_NOTE_LENGTH = 500"}
    assert {"path": "notekeeper/config.py", "start_line": 12, "end_line": 12} in report["citations"]


def test_a_guess_is_not_backed_and_lists_the_closest_lines(project: Path, capsys):
    report = json.loads(ask(project, "Notes are limited to 80 characters by the database.", True, capsys))
    assert report["support"] == "not_backed" and report["backing"] == []
    assert "No source" not in report["answer"] and "Not backed" not in report["answer"]
    assert report["closest"] and all({"path", "line", "text"} <= set(c) for c in report["closest"])


def test_a_prose_citation_is_listed_in_json(project: Path, capsys):
    report = json.loads(ask(project, "It is set in `notekeeper/config.py`, line 12.", True, capsys))
    assert {"path": "notekeeper/config.py", "start_line": 12, "end_line": 12} in report["citations"]


def test_plain_output_says_the_verdict_in_words(project: Path, capsys):
    out = ask(project, "It is `DEFAULT_MAX_NOTE_LENGTH`, 500.", False, capsys)
    assert SUPPORT_LABELS[Support.BACKED] in out
    assert "Backed by notekeeper/config.py:12: DEFAULT_MAX_NOTE_LENGTH = 500" in out


def test_a_prose_range_past_the_file_s_end_is_no_citation(project: Path, capsys):
    report = json.loads(ask(project, "It is in `notekeeper/config.py`, lines 30-9000.", True, capsys))
    assert all(c["end_line"] != 9000 for c in report["citations"])


def test_a_long_prose_range_inside_the_file_is_a_citation(project: Path, capsys):
    long_file = project / "notekeeper" / "long.py"
    long_file.write_text("".join(f"VALUE_{i} = {i}\n" for i in range(1, 601)), encoding="utf-8")
    report = json.loads(ask(project, "See `notekeeper/long.py`, lines 1-599.", True, capsys))
    assert {"path": "notekeeper/long.py", "start_line": 1, "end_line": 599} in report["citations"]


def test_a_value_the_model_was_unsure_of_is_said_in_json_and_in_words(project: Path, capsys):
    answer = "It is `DEFAULT_MAX_NOTE_LENGTH`, 500."
    tokens = (("It is `", -0.1), ("DEFAULT_MAX_NOTE_LENGTH", -0.01), ("`, ", -0.1), ("500", -2.0), (".", 0.0))
    report = json.loads(ask(project, answer, True, capsys, tokens))
    assert report["support"] == "partly_backed"  # the line states it, the model guessed it
    assert report["doubt"] == {"claim": "500", "probability": 0.135}
    assert "The model was unsure of “500”" in ask(project, answer, False, capsys, tokens)
    assert json.loads(ask(project, answer, True, capsys))["doubt"] is None  # no probabilities: the claims alone


def test_callers_the_answer_leaves_out_are_listed_in_json_and_under_the_plain_answer(project: Path, capsys):
    question = "What calls load_config?"
    report = json.loads(ask(project, "It is called once at start-up.", True, capsys, question=question))
    assert report["left_out"] == [{"path": "notekeeper/cli.py", "line": 28, "text": "main"}]
    assert report["support"] != "backed" and report["answer"] == "It is called once at start-up."
    plain = ask(project, "It is called once at start-up.", False, capsys, question=question)
    assert plain.count("It leaves out callers the index found: `main` (notekeeper/cli.py:28).") == 1

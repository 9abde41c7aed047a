"""Results merge into bench/results.json without clobbering; the doc table is replaced in place."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.eval.__main__ import split_set_args
from bench.eval.report import (
    TABLE_END,
    TABLE_START,
    breakdown_table,
    merge_results,
    summarize,
    verdict_of,
    write_table,
)


def _row(qid: str, correct: bool, seconds: float, invented: list[str]) -> dict:
    return {"id": qid, "codebase": "express", "correct": correct, "grounded": correct,
            "grounded_by_model": False, "citations_valid": True, "invented_paths": invented,
            "model_tool_calls": 0, "seconds": seconds, "prompt_tokens": 100,
            "completion_tokens": 10}


def test_merge_keeps_other_keys_and_other_runs(tmp_path: Path) -> None:
    results = tmp_path / "results.json"
    results.write_text(json.dumps({"figures": [1, 2], "eval": {"runs": {"old": {
        "model": "m0", "policy": "off", "scope": "all",
        "summary": summarize([_row("a", True, 1, [])])}}}}))
    summary = summarize([_row("a", True, 4.0, []), _row("b", False, 2.0, ["x.go", "y.py"])])
    assert (summary["correct"], summary["median_seconds"], summary["invented_paths"],
            summary["answers_with_invented_paths"]) == (1, 3.0, 2, 1)
    merge_results(results, "new", {"model": "m1", "policy": "off", "scope": "all",
                                   "summary": summary, "peak_rss_mb": 300})
    data = json.loads(results.read_text())
    assert data["figures"] == [1, 2] and set(data["eval"]["runs"]) == {"old", "new"}
    assert "| m1 | off | 2 (all) | 1/2 (50%) |" in data["eval"]["table_markdown"]


def test_table_is_replaced_between_markers_and_the_prose_kept(tmp_path: Path) -> None:
    doc = tmp_path / "eval.md"
    doc.write_text(f"# Eval\nintro\n\n{TABLE_START}\nold table\n{TABLE_END}\n\nafter\n")
    write_table(doc, "| new |")
    assert doc.read_text() == f"# Eval\nintro\n\n{TABLE_START}\n| new |\n{TABLE_END}\n\nafter\n"


def test_rows_break_down_by_language_and_kind_and_follow_ups_stay_apart() -> None:
    rows = [{**_row("go-1", True, 4.0, []), "language": "Go", "kind": "what", "support": "backed"},
            {**_row("go-2", False, 8.0, []), "language": "Go", "kind": "why", "support": "not_backed"},
            {**_row("rs-1", True, 2.0, []), "language": "Rust", "kind": "what",
             "support": "partly_backed"},
            {**_row("rs-1+", False, 9.0, []), "language": "Rust", "kind": "what", "turn": 2}]
    summary = summarize(rows)
    assert summary["questions"] == 3 and summary["correct"] == 2  # the follow-up is apart
    assert summary["by_language"]["Go"] == {
        "questions": 2, "correct": 1, "grounded": 1, "median_seconds": 6.0,
        "support": {"backed": 1, "partly_backed": 0, "not_backed": 1}}
    assert summary["by_kind"]["what"]["questions"] == 2
    assert summary["follow_ups"]["questions"] == 1 and summary["follow_ups"]["correct"] == 0
    table = breakdown_table(summary)
    assert "| language: Go | 2 | 1/2 (50%) | 1/2 (50%) | 1 / 0 / 1 | 6.0 |" in table
    assert "| kind: why | 1 | 0/1 (0%) |" in table
    assert "| follow-ups (same chat) | 1 | 0/1 (0%) |" in table


def test_set_names_and_setting_overrides_share_the_set_flag() -> None:
    assert split_set_args([]) == ("tuning", [])
    assert split_set_args(["heldout", "n_ctx=4096"]) == ("heldout", ["n_ctx=4096"])
    with pytest.raises(ValueError, match="expected tuning, heldout"):
        split_set_args(["held-out"])
    with pytest.raises(ValueError, match="one question set"):
        split_set_args(["tuning", "heldout"])


def test_each_verdict_has_its_precision_and_coverage() -> None:
    from bench.eval.report import reliability, reliability_markdown, summarize

    rows = [{"correct": c, "support": s, "grounded": False, "grounded_by_model": False,
             "citations_valid": True, "invented_paths": [], "model_tool_calls": 0, "seconds": 1.0,
             "prompt_tokens": 1, "completion_tokens": 1, "codebase": "x"}
            for c, s in [(True, "backed"), (True, "backed"), (False, "backed"), (True, "partly_backed"),
                         (False, "not_backed"), (True, "none")]]
    table = reliability(rows)
    assert table["backed"] == {"right": 2, "wrong": 1, "precision": 0.667, "coverage": 0.5}
    assert table["not_backed"]["right"] == 1 and table["not_backed"]["wrong"] == 1  # "none" is old words
    assert summarize(rows)["reliability"] == table
    assert "| backed | 2 | 1 | 67% | 50% |" in reliability_markdown(table)


def test_the_replay_keeps_the_recorded_and_the_replayed_tables_side_by_side(tmp_path) -> None:
    import json

    from bench.eval.replay import merge_results

    results = tmp_path / "results.json"
    results.write_text(json.dumps({"other": {"kept": "÷"}}), encoding="utf-8")
    rows = [{"correct": True, "recorded_support": "supported", "support": "backed"},
            {"correct": False, "recorded_support": "supported", "support": "not_backed"}]
    merge_results(results, "wave_x", rows)
    data = json.loads(results.read_text(encoding="utf-8"))
    assert data["other"] == {"kept": "÷"}
    assert data["verdict_replay"]["wave_x"]["recorded"] == {"supported": {"right": 1, "wrong": 1}}
    assert data["verdict_replay"]["wave_x"]["replayed"]["backed"]["precision"] == 1.0


def test_a_bench_run_keeps_the_eval_sections_of_the_results_file(tmp_path) -> None:
    """`make bench` rewrites its figures; the eval runs and verdict replays merged into the same
    file by other commands stay (a full run used to drop them)."""
    import json
    from types import SimpleNamespace

    from bench.__main__ import write_results

    path = tmp_path / "results.json"
    path.write_text(json.dumps({"figures": ["old"], "eval": {"runs": {"a": 1}}, "verdict_replay": {"x": 2}}))
    write_results(path, {"cpu": "test"}, [], 1.0, SimpleNamespace(reps=5))
    data = json.loads(path.read_text())
    assert data["figures"] == [] and data["eval"] == {"runs": {"a": 1}} and data["verdict_replay"] == {"x": 2}
    path.write_text("not json")
    write_results(path, {"cpu": "test"}, [], 1.0, SimpleNamespace(reps=5))
    assert json.loads(path.read_text())["figures"] == []


def test_a_run_with_the_second_stage_says_what_it_changed_and_cost() -> None:
    plain = _row("a", True, 10.0, [])  # backed at once: no second stage
    fixed = {**_row("b", True, 40.0, []), "model_tool_calls": 1, "support": "backed",
             "first_answer": "x", "first_correct": False, "first_support": "partly_backed", "first_seconds": 12.0}
    broke = {**_row("c", False, 30.0, []), "first_answer": "y", "first_correct": True,
             "first_support": "not_backed", "first_seconds": 14.0}
    stage = summarize([plain, fixed, broke])["second_stage"]
    assert (stage["entered"], stage["chose_a_call"], stage["acted_right_and_backed"]) == (3 - 1, 1, 1)
    assert (stage["wrong_to_right"], stage["right_to_wrong"], stage["correct_first_answers"]) == (1, 1, 2)
    assert stage["median_extra_seconds"] == 22.0 and stage["median_seconds_first_answers"] == 12.0
    # the verdicts before the stage: what the default (stage off) would have shown
    plain_verdict = verdict_of(plain)
    first = stage["first_answers_support"]
    assert first["not_backed"]["answers"] == 1 + (plain_verdict == "not_backed")
    assert first["not_backed"]["right"] == 1 + (plain_verdict == "not_backed")  # "c" was right first
    assert first["partly_backed"] == {"answers": 1 + (plain_verdict == "partly_backed"),
                                      "right": plain_verdict == "partly_backed"}
    assert "second_stage" not in summarize([plain])


def test_a_replayed_row_says_which_claim_the_model_was_unsure_of() -> None:
    """The replay's row gives the doubt that kept an answer from backed (certainty), not only its verdict."""
    from app.harness import events as ev
    from app.harness.certainty import Certainty
    from app.llm.base import Usage
    from bench.eval.replay import _verdict_fields

    answer = ev.AnswerCompleted("It is 3.", (), 1, Usage(1, 0, 1, 0.1), 0.1, doubt=Certainty("3", -1.2))
    assert _verdict_fields(answer)["doubt"] == {"claim": "3", "percent": 30}
    assert _verdict_fields(ev.AnswerCompleted("It is 3.", (), 1, Usage(1, 0, 1, 0.1), 0.1))["doubt"] is None


def _follow_up_case(tmp_path, monkeypatch):
    """A workspace (as the replay's code base) and a question with a follow-up, for replay_row."""
    import bench.eval.codebases as codebases
    from bench.eval.questions import Question

    root = tmp_path / "ws"
    root.mkdir()
    (root / "config.py").write_text("RETRY_DELAY = 3  # seconds between two tries\n\n\ndef retry(fn):\n"
                                    "    return fn()\n")
    monkeypatch.setattr(codebases, "ensure_codebase", lambda name: root)
    base = Question.model_validate({
        "id": "cfg-01", "codebase": "anything", "question": "What is the retry delay?",
        "keywords": [["3"]], "evidence": [{"path": "config.py", "start": 1, "end": 1}],
        "kind": "what", "difficulty": "easy",
        "follow_up": {"question": "What does the function below it do?", "keywords": [["retry"]],
                      "evidence": [{"path": "config.py", "start": 4, "end": 5}]}})
    first_row = {"id": "cfg-01", "turn": 1, "answer": "3 seconds (config.py:1).", "correct": True}
    return base, first_row


class _Tokens:
    def count_tokens(self, text: str) -> int:
        return len(text) // 4 + 1


def test_a_follow_up_is_replayed_after_its_first_answer_in_one_chat(tmp_path, monkeypatch) -> None:
    """`replay --follow-ups`: the follow-up's recorded answer is judged in the chat the run asked it
    in, its first question's recorded answer before it (a verdict rule measured on first turns only
    had moved two right held-out follow-ups to not backed)."""
    from app.harness.session import Session
    from app.settings import Settings
    from bench.eval.replay import replay_row

    base, first_row = _follow_up_case(tmp_path, monkeypatch)
    row = {"id": "cfg-01+", "turn": 2, "answer": "`retry` in config.py:4-5.", "correct": True}
    chats = []
    real_ask = Session.ask

    def ask(self, question, cancel=None, chat=None):
        chats.append((question, chat))
        return real_ask(self, question, cancel, chat)

    monkeypatch.setattr(Session, "ask", ask)
    out = replay_row(row, base.follow_up_question(), _Tokens(), Settings(tool_policy="retrieval"), (first_row, base))
    assert [q for q, _ in chats] == ["What is the retry delay?", "What does the function below it do?"]
    assert chats[0][1] is None and "3 seconds (config.py:1)." in str(chats[1][1].history)
    assert out["id"] == "cfg-01+" and out["correct"] and out["recorded_support"] == ""


def test_a_follow_up_s_recorded_calls_are_made_again_before_its_answer(tmp_path, monkeypatch) -> None:
    """Rows keep the model's calls with their arguments: the replayed follow-up reads what the run
    read, so its answer is judged on those lines (without them it found nothing: not backed)."""
    from app.settings import Settings
    from bench.eval.replay import _replayable_follow_up, replay_row

    base, first_row = _follow_up_case(tmp_path, monkeypatch)
    answer = "The `retry` function calls `fn` and returns what it returns (config.py:4-5)."
    called = {"id": "cfg-01+", "turn": 2, "answer": answer, "correct": True, "model_tool_calls": 1,
              "tool_calls": [[1, "read_file", '{"path": "config.py", "start_line": 4}']]}
    counted = {**called, "tool_calls": []}  # an older row: the call counted, its arguments lost
    assert _replayable_follow_up(called, {"cfg-01": first_row})
    assert not _replayable_follow_up(counted, {"cfg-01": first_row})
    out = replay_row(called, base.follow_up_question(), _Tokens(), Settings(tool_policy="retrieval"), (first_row, base))
    assert "config.py:4-5" in out["citations"] and out["support"] != "not_backed"


def test_an_eval_process_removes_its_scratch_home_when_it_exits(tmp_path) -> None:
    """The eval, the replay and the quote probe each run in a BURROW_HOME of their own, which held
    an index per code base: it goes when the process ends (175 runs had left 2 GB in /tmp)."""
    import os
    import subprocess
    import sys

    script = ("import os; from bench.eval import scratch_home; home = scratch_home('burrow-x-'); "
              "open(os.path.join(os.environ['BURROW_HOME'], 'index.db'), 'w').write('x'); print(home)")
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True,
                          cwd=Path(__file__).resolve().parents[2])
    home = Path(done.stdout.strip())
    assert home.parent == tmp_path and home.name.startswith("burrow-x-")
    assert not home.exists() and list(tmp_path.iterdir()) == []


def test_the_first_prompt_tool_gives_the_harness_first_request_and_what_changed(tmp_path, monkeypatch) -> None:
    """`python -m bench.eval.first_prompts`: the messages of a question's first request, built by
    the real harness and index, and the ids whose prompt differs from an earlier file."""
    from app.settings import Settings
    from bench.eval.first_prompts import changed, first_prompt

    monkeypatch.setenv("BURROW_HOME", str(tmp_path / "home"))
    base, _ = _follow_up_case(tmp_path, monkeypatch)
    messages = first_prompt(base, _Tokens(), Settings(tool_policy="retrieval"))
    text = json.dumps(messages)
    assert messages[0]["role"] == "system" and "What is the retry delay?" in text
    assert "RETRY_DELAY = 3" in text  # the index's chunk, as the run shows it
    assert changed({"a": messages, "b": [1]}, {"a": messages, "b": [2], "c": [3]}) == ["b"]

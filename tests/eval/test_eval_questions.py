"""The question sets: valid schema, enough questions over enough code bases and languages,
evidence that holds in the real code bases (fetched here if they are not cached yet)."""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

import pytest
from pydantic import ValidationError

from bench.eval.codebases import KINDS, CodebaseError, ensure_codebase, load_codebases
from bench.eval.questions import (
    QUESTIONS_FILE,
    EvalSet,
    Kind,
    QuestionSet,
    check_evidence,
    load_questions,
    load_set,
)

QUESTIONS = load_questions()
HELDOUT = load_set(EvalSet.HELDOUT)
TUNING2 = load_set(EvalSet.TUNING2)
TUNING3 = load_set(EvalSet.TUNING3)
CODEBASES = load_codebases()
OFFLINE_ENV = "BURROW_EVAL_OFFLINE"  # set to 1 to skip (loudly) the tests that fetch code bases


def test_the_tuning_set_is_large_and_varied() -> None:
    assert len(QUESTIONS) >= 60
    per_codebase = Counter(q.codebase for q in QUESTIONS)
    assert len(per_codebase) >= 3 and min(per_codebase.values()) >= 18
    assert {CODEBASES[c].language for c in per_codebase} >= {"Python", "JavaScript"}
    assert {q.kind.value for q in QUESTIONS} == {"what", "where", "how", "why"}
    assert {q.difficulty.value for q in QUESTIONS} == {"easy", "medium", "hard"}


def test_the_heldout_set_is_large_varied_and_apart_from_the_tuning_sets() -> None:
    per_codebase = Counter(q.codebase for q in HELDOUT)
    assert len(HELDOUT) >= 120 and len(per_codebase) >= 8 and min(per_codebase.values()) >= 12
    tuned = (*QUESTIONS, *TUNING2, *TUNING3)
    assert not set(per_codebase) & {q.codebase for q in tuned}  # code nobody tuned on
    assert not {q.id for q in HELDOUT} & {q.id for q in tuned}
    languages = Counter(CODEBASES[q.codebase].language for q in HELDOUT)
    assert set(languages) >= {"Python", "JavaScript", "TypeScript", "Go", "Rust"}
    assert min(languages.values()) >= 15
    assert {q.kind for q in HELDOUT} == set(Kind)
    assert {q.difficulty.value for q in HELDOUT} == {"easy", "medium", "hard"}
    assert sum(q.follow_up is not None for q in HELDOUT) >= 5


def test_the_second_tuning_set_covers_five_new_code_bases_one_per_language() -> None:
    per_codebase = Counter(q.codebase for q in TUNING2)
    assert len(TUNING2) >= 55 and len(per_codebase) == 5 and min(per_codebase.values()) >= 10
    assert not set(per_codebase) & {q.codebase for q in (*QUESTIONS, *TUNING3)}
    assert not {q.id for q in TUNING2} & {q.id for q in (*QUESTIONS, *TUNING3)}
    languages = Counter(CODEBASES[c].language for c in per_codebase)
    assert set(languages) == {"Python", "JavaScript", "TypeScript", "Go", "Rust"}
    assert {q.kind for q in TUNING2} == set(Kind)
    assert {q.difficulty.value for q in TUNING2} == {"easy", "medium", "hard"}
    for name in per_codebase:  # each code base has someone asking who calls what
        assert any(q.kind == Kind.CALLERS for q in TUNING2 if q.codebase == name)


def test_the_third_tuning_set_is_the_old_heldout_set_on_its_own_code_bases() -> None:
    """The held-out set until 2026-12-02 (six runs looked at): tuned on from then on."""
    per_codebase = Counter(q.codebase for q in TUNING3)
    assert len(TUNING3) == 134 and len(per_codebase) == 9
    assert not set(per_codebase) & {q.codebase for q in QUESTIONS}
    assert set(Counter(CODEBASES[c].language for c in per_codebase)) == {
        "Python", "JavaScript", "TypeScript", "Go", "Rust"}


def test_every_code_base_is_used_and_pinned() -> None:
    assert set(CODEBASES) == {q.codebase for q in (*QUESTIONS, *HELDOUT, *TUNING2, *TUNING3)}
    for codebase in CODEBASES.values():
        assert codebase.version and len(codebase.sha256) == 64 and codebase.license
        assert codebase.kind in KINDS
        assert (codebase.kind == "debian") == bool(codebase.pool)


def test_the_schema_refuses_broken_questions() -> None:
    data = json.loads(QUESTIONS_FILE.read_text())
    good = data["questions"][0]
    for broken in ({**good, "keywords": [[]]}, {**good, "evidence": []},
                   {**good, "evidence": [{"path": "a.py", "start": 5, "end": 2}]},
                   {**good, "evidence": [{"path": "../a.py", "start": 1, "end": 2}]},
                   {**good, "kind": "who"}, {**good, "extra": 1}):
        with pytest.raises(ValidationError):
            QuestionSet.model_validate({"version": 1, "questions": [broken]})
    with pytest.raises(ValidationError, match="duplicate"):
        QuestionSet.model_validate({"version": 1, "questions": [good, good]})
    follow = {"question": "Who calls it?", "keywords": [["x"]],
              "evidence": [{"path": "a.py", "start": 1, "end": 1}]}
    QuestionSet.model_validate({"version": 1, "questions": [{**good, "follow_up": follow}]})
    for broken_follow in ({**follow, "keywords": [[" "]]}, {**follow, "evidence": []},
                          {**follow, "extra": 1}):
        with pytest.raises(ValidationError):
            QuestionSet.model_validate({"version": 1,
                                        "questions": [{**good, "follow_up": broken_follow}]})


@pytest.mark.parametrize("name", sorted(CODEBASES))
def test_evidence_holds_in_the_real_code_base(name: str) -> None:
    """Fetched on first use (a few MB in all, cached in ~/.cache/burrow-eval): a machine that
    cannot fetch fails here, unless BURROW_EVAL_OFFLINE=1 says to skip."""
    if os.environ.get(OFFLINE_ENV) == "1":
        pytest.skip(f"{OFFLINE_ENV}=1: the evidence of {name} is NOT checked")
    try:
        root = ensure_codebase(name)
    except CodebaseError as exc:
        pytest.fail(f"could not fetch the eval code base {name} ({exc}); set {OFFLINE_ENV}=1 "
                    "to skip the evidence checks on a machine without a network")
    problems = [p for q in (*QUESTIONS, *HELDOUT, *TUNING2, *TUNING3) if q.codebase == name
                for p in check_evidence(q, root)]
    assert problems == []


def test_a_wrong_span_is_caught(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\ny = 2\n")
    question = QUESTIONS[0].model_copy(update={"keywords": (("y = 2",),)})
    broken = question.model_copy(update={"evidence": (
        question.evidence[0].model_copy(update={"path": "a.py", "start": 1, "end": 1}),)})
    assert [p.message for p in check_evidence(broken, tmp_path)] == [
        "keywords ['y = 2'] not in evidence"]
    far = broken.model_copy(update={"evidence": (
        broken.evidence[0].model_copy(update={"start": 2, "end": 9}),)})
    assert [p.message for p in check_evidence(far, tmp_path)] == ["a.py: 9 > 2"]


def test_a_follow_up_is_checked_and_scored_as_a_question_of_its_own(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("def f():\n    return 1\n\nf()\n")
    good = {"path": "a.py", "start": 1, "end": 2}
    question = QuestionSet.model_validate({"version": 1, "questions": [{
        "id": "x-1", "codebase": "c", "question": "Where is f?", "keywords": [["a.py"]],
        "evidence": [good], "kind": "where", "difficulty": "easy",
        "follow_up": {"question": "Who calls it?", "keywords": [["module level"]],
                      "evidence": [{"path": "a.py", "start": 4, "end": 4}]}}]}).questions[0]
    follow = question.follow_up_question()
    assert (follow.id, follow.question, follow.kind, follow.follow_up) == (
        "x-1+", "Who calls it?", question.kind, None)
    assert [p.message for p in check_evidence(question, tmp_path)] == [
        "keywords ['module level'] not in evidence"]

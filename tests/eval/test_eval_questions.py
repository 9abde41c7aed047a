"""The questions file: valid schema, enough questions over enough code bases, evidence that holds
in the real code bases (checked when they are cached; the eval fetches them on first use)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from pydantic import ValidationError

from bench.eval.codebases import cached_root, load_codebases
from bench.eval.questions import QUESTIONS_FILE, QuestionSet, check_evidence, load_questions

QUESTIONS = load_questions()
CODEBASES = load_codebases()


def test_the_set_is_large_and_varied() -> None:
    assert len(QUESTIONS) >= 60
    per_codebase = Counter(q.codebase for q in QUESTIONS)
    assert set(per_codebase) == set(CODEBASES) and len(CODEBASES) >= 3
    assert min(per_codebase.values()) >= 18
    assert {c.language for c in CODEBASES.values()} >= {"Python", "JavaScript"}
    assert {q.kind.value for q in QUESTIONS} == {"what", "where", "how", "why"}
    assert {q.difficulty.value for q in QUESTIONS} == {"easy", "medium", "hard"}


def test_every_code_base_is_pinned() -> None:
    for codebase in CODEBASES.values():
        assert codebase.version and len(codebase.sha256) == 64 and codebase.license
        assert codebase.kind in ("pypi-sdist", "npm")


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


@pytest.mark.parametrize("name", sorted(CODEBASES))
def test_evidence_holds_in_the_cached_code_base(name: str) -> None:
    root = cached_root(CODEBASES[name])
    if not root.is_dir():
        pytest.skip(f"{name} is not cached yet (python -m bench.eval fetches it)")
    problems = [p for q in QUESTIONS if q.codebase == name for p in check_evidence(q, root)]
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

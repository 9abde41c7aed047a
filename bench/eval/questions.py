"""The eval's questions: schema, loading, and the evidence check.

The sets share one schema. The tuning set (questions.json) is what ranking, prompts and budgets
may be tuned on; the second tuning set (tuning2.json: five other code bases, one per language) and
the third (tuning3.json: the held-out set until 2026-12-02, seen in six runs) are tuned on too; the
held-out set (heldout.json: ten code bases none of the others use) is only ever run to report
(docs/eval.md).

Keywords are groups of alternatives: every group must appear (case-insensitive) in an answer for it
to count as correct. A number ("2", "0.10", "1.0.1") must stand alone, so "2" is not found in "12"
or "2.0" (a version's "v" may lead it: "v18" says 18). Evidence spans are 1-based and inclusive,
relative to the code base root.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

QUESTIONS_FILE = Path(__file__).with_name("questions.json")
HELDOUT_FILE = Path(__file__).with_name("heldout.json")
TUNING2_FILE = Path(__file__).with_name("tuning2.json")
TUNING3_FILE = Path(__file__).with_name("tuning3.json")


class EvalSet(str, Enum):
    TUNING = "tuning"
    HELDOUT = "heldout"
    TUNING2 = "tuning2"
    TUNING3 = "tuning3"


SET_FILES = {EvalSet.TUNING: QUESTIONS_FILE, EvalSet.HELDOUT: HELDOUT_FILE,
             EvalSet.TUNING2: TUNING2_FILE, EvalSet.TUNING3: TUNING3_FILE}
_NUMBER = re.compile(r"[\d.]+")


_FLAG = re.compile(r"--?[A-Za-z](?:[\w-]*\w)?")  # `--no-` (a prefix) stays a substring


def keyword_in(word: str, text: str) -> bool:
    """Case-insensitive substring match; a number must not be part of a longer number or word,
    and a command-line flag not part of a longer flag (`-h` is not in `--HELP`: a README's
    example `-e, --HELP` was scored as the default `-h, --help`)."""
    if _FLAG.fullmatch(word):
        return re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", text, re.IGNORECASE) is not None
    if not _NUMBER.fullmatch(word):
        return word.lower() in text.lower()
    # ... except a version's "v" ("requires at least v18" says 18)
    return re.search(rf"(?:(?<![\w.])|(?<=(?<![\w.])[vV])){re.escape(word)}(?!\w|\.\d)", text) is not None


def has_keywords(text: str, groups) -> bool:
    """Every group has at least one alternative in text."""
    return all(any(keyword_in(word, text) for word in group) for group in groups)


class Kind(str, Enum):
    WHAT = "what"  # a value or a default
    WHERE = "where"  # where is X defined, which file
    HOW = "how"
    WHY = "why"
    CONFIG = "config"  # packaging, build and project configuration
    CALLERS = "callers"  # what calls X: the answer is in another place than X itself


class Difficulty(str, Enum):
    EASY = "easy"
    MEDIUM = "medium"
    HARD = "hard"


class Evidence(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    path: str
    start: int = Field(ge=1)
    end: int = Field(ge=1)

    @model_validator(mode="after")
    def _ordered(self) -> Evidence:
        if self.end < self.start:
            raise ValueError(f"{self.path}: end {self.end} before start {self.start}")
        if self.path.startswith("/") or ".." in Path(self.path).parts:
            raise ValueError(f"{self.path}: evidence paths are relative to the code base root")
        return self


def _no_empty_group(groups: tuple[tuple[str, ...], ...]) -> tuple[tuple[str, ...], ...]:
    if any(not group or any(not word.strip() for word in group) for group in groups):
        raise ValueError("every keyword group needs at least one non-empty alternative")
    return groups


class FollowUp(BaseModel):
    """A second question asked in the same chat, referring to the first answer ("who calls it?"):
    it cannot be answered without the first turn."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    question: str
    keywords: tuple[tuple[str, ...], ...] = Field(min_length=1)
    evidence: tuple[Evidence, ...] = Field(min_length=1)

    _groups = field_validator("keywords")(classmethod(lambda cls, v: _no_empty_group(v)))


class Question(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    codebase: str
    question: str
    keywords: tuple[tuple[str, ...], ...] = Field(min_length=1)
    evidence: tuple[Evidence, ...] = Field(min_length=1)
    kind: Kind
    difficulty: Difficulty
    follow_up: FollowUp | None = None

    _groups = field_validator("keywords")(classmethod(lambda cls, v: _no_empty_group(v)))

    def follow_up_question(self) -> Question | None:
        """The follow-up as a question of its own (same code base, kind and difficulty), to score
        it with the same functions; its id is the first question's with "+"."""
        if self.follow_up is None:
            return None
        return self.model_copy(update={"id": self.id + "+", "question": self.follow_up.question,
                                       "keywords": self.follow_up.keywords,
                                       "evidence": self.follow_up.evidence, "follow_up": None})


class QuestionSet(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    version: int
    questions: tuple[Question, ...]

    @model_validator(mode="after")
    def _unique_ids(self) -> QuestionSet:
        ids = [q.id for q in self.questions]
        duplicates = sorted({i for i in ids if ids.count(i) > 1})
        if duplicates:
            raise ValueError(f"duplicate question ids: {duplicates}")
        return self


def load_questions(path: Path = QUESTIONS_FILE) -> tuple[Question, ...]:
    return QuestionSet.model_validate(json.loads(path.read_text(encoding="utf-8"))).questions


def load_set(which: EvalSet | str) -> tuple[Question, ...]:
    return load_questions(SET_FILES[EvalSet(which)])


@dataclass(frozen=True)
class EvidenceProblem:
    question_id: str
    message: str


def check_evidence(question: Question, root: Path) -> list[EvidenceProblem]:
    """Problems with a question's evidence in an unpacked code base: a missing file, a span past
    its end, or a keyword group none of whose alternatives occurs in the evidence lines or paths
    (a "where" answer is often the file's name). A follow-up is checked the same way."""
    problems: list[EvidenceProblem] = []
    follow = question.follow_up_question()
    if follow is not None:
        problems += check_evidence(follow, root)
    text = [span.path for span in question.evidence]
    for span in question.evidence:
        file = root / span.path
        if not file.is_file():
            problems.append(EvidenceProblem(question.id, f"{span.path}: no such file"))
            continue
        lines = file.read_text(encoding="utf-8", errors="replace").splitlines()
        if span.end > len(lines):
            problems.append(EvidenceProblem(question.id, f"{span.path}: {span.end} > {len(lines)}"))
        text += lines[span.start - 1 : span.end]
    haystack = "\n".join(text)
    for group in question.keywords:
        if not has_keywords(haystack, [group]):
            problems.append(EvidenceProblem(question.id, f"keywords {list(group)} not in evidence"))
    return problems

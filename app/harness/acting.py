"""When the model should act with the tools after the first prompt, and what it is told.

Offering the tools from the start costs a small model the thread (issue 23: 5 of 12 right at 81 s
against 10 of 12 at 15 s), so it acts only where acting pays:
- the second stage: the first answer is not backed by the lines shown, or the model says they do
  not show it; it gets a note of what is missing and the tools to look;
- a follow-up about the previous answer ("who calls it?", "show me the rest of that function"):
  its words are no search query, so the model gets the previous answer's lines and names and the
  tools to open them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from app.harness import prompts
from app.harness.control import FOLLOW_UP_TOOLS
from app.harness.grounding import AnswerCheck, Support, mentioned_names
from app.values import LineSpan, Message, find_citations


def backed(check: AnswerCheck) -> bool:
    """The one place the second stage reads the verdict."""
    return check.support is Support.BACKED


# "The lines shown do not state ...", "the provided code does not show ...", "I cannot determine ...":
# the model itself says its answer is not in what it was shown.
_NOT_SHOWN = re.compile(
    r"\b(?:lines?|code|snippets?|context|excerpts?|information|files?)\b[^.\n]{0,40}?\b(?:do|does|did)(?: not|n't)"
    r" (?:show|state|say|mention|contain|include|provide|specify|define|explain|indicate)\b"
    r"|\bnot (?:shown|provided|mentioned|specified|included|defined) in the (?:lines|code|snippets?|context|files?)\b"
    r"|\bI (?:do not|don't|cannot|can't|could not|couldn't) (?:know|find|determine|tell|see)\b"
    r"|\b(?:no|not enough) information\b",
    re.IGNORECASE)


def says_not_shown(text: str) -> bool:
    return _NOT_SHOWN.search(text) is not None


def wants_second_stage(check: AnswerCheck, text: str) -> bool:
    return not backed(check) or says_not_shown(text)


def missing_note(question: str, text: str, check: AnswerCheck) -> str:
    """One short note: what the lines shown lack, and that the tools may find it."""
    if says_not_shown(text):
        missing = prompts.MISSING_ANSWER.format(question=question)
    elif check.unverified:
        missing = prompts.MISSING_NAMES.format(names=", ".join(f"`{n}`" for n in check.unverified[:3]))
    else:
        missing = prompts.MISSING_SUPPORT
    return f"{missing} {prompts.LOOK_FURTHER}"


_RANK = {Support.NOT_BACKED: 0, Support.PARTLY: 1, Support.BACKED: 2}


def keeps_first(first_text: str, first: AnswerCheck, second_text: str, second: AnswerCheck) -> bool:
    """The second stage's answer replaces the first only when the lines back it better, or as well
    when the first said the lines do not show it and the second does not (a small model that looked
    further and found nothing better often talks itself out of a right first answer)."""
    if _RANK[second.support] != _RANK[first.support]:
        return _RANK[second.support] < _RANK[first.support]
    return not (says_not_shown(first_text) and not says_not_shown(second_text))


# --- follow-ups -------------------------------------------------------------------------------

# Words by which a question points at the previous answer rather than naming what it asks about.
_REFERS_BACK = re.compile(
    r"\b(?:it|its|it's|that|this|those|these|them|there|the rest|same|above|previous|caller|callers)\b",
    re.IGNORECASE)
FOLLOW_UP_MAX_WORDS = 12  # a longer follow-up names what it asks about: a search serves it


@dataclass(frozen=True)
class PreviousAnswer:
    """What the previous answer of a chat pointed at: its cited lines and the names it wrote as code."""

    text: str
    citations: tuple[LineSpan, ...]
    names: tuple[str, ...]


def previous_answer(history: tuple[Message, ...]) -> PreviousAnswer | None:
    """The last answer in the chat, with its citations and names (None when it has none of either)."""
    answer = next((m for m in reversed(history) if m.get("role") == "assistant" and not m.get("tool_calls")
                   and m.get("content")), None)
    if answer is None:
        return None
    text = str(answer["content"])
    citations = tuple(dict.fromkeys(c.span for c in find_citations(text)))
    paths, symbols = mentioned_names(text)
    if not citations and not symbols:
        return None
    return PreviousAnswer(text, citations, tuple(symbols[:6]))


# A question about callers or uses: the references tool answers it, and a 1.5B model offered
# read_file as well reads the previous answer's lines again instead (tried: it then names a
# caller it never saw).
_ASKS_USES = re.compile(r"\b(?:calls?|called|callers?|calling|uses?|used|usages?|references?|invoke[sd]?|imports?)\b",
                        re.IGNORECASE)


def follow_up_tools(question: str) -> tuple[str, ...]:
    """The tools a follow-up is offered: find_references for who calls or uses it, else both."""
    return ("find_references",) if _ASKS_USES.search(question) else FOLLOW_UP_TOOLS


def refers_back(question: str) -> bool:
    return len(question.split()) <= FOLLOW_UP_MAX_WORDS and _REFERS_BACK.search(question) is not None


def follow_up_message(question: str, previous: PreviousAnswer) -> Message:
    """The follow-up's first prompt: what the previous answer cited and named, the question, and
    how to open them (no search for the follow-up's own words)."""
    parts = []
    if previous.citations:
        parts.append(prompts.PREVIOUS_CITED.format(spans=", ".join(map(str, previous.citations))))
    if previous.names:
        parts.append(prompts.PREVIOUS_NAMED.format(names=", ".join(f"`{n}`" for n in previous.names)))
    parts.append(f"{prompts.QUESTION_HEADER} {question}\n{prompts.FOLLOW_UP_CALL}")
    return {"role": "user", "content": "\n".join(parts)}

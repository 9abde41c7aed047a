"""The first prompt of a question: what the harness reads for the model before its first turn.

A small model uses text put in front of it far better than it finds files by itself, so before the
first turn the harness makes a few reads of its own: the README start and (for models without
native tool calls) the lines a search of the question's words found. They are real tool calls
through the executor (step 0), so every line they show is evidence an answer may cite.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from app.harness import prompts
from app.harness.calls import CallOutcome, Toolbox
from app.harness.context import question_stems, rank_hits
from app.harness.events import RunEvent, ToolCallCompleted, ToolCallProposed
from app.settings import Settings
from app.tools.base import TextHit
from app.values import LineSpan, Message

README_NAMES = ("README.md", "README.rst", "README.txt", "README", "readme.md")


@dataclass(frozen=True)
class IntroRead:
    """One read made for the first prompt: its text under a header, and the lines it showed."""

    header: str
    text: str
    spans: tuple[LineSpan, ...]
    hits: tuple[TextHit, ...]


def system_message() -> Message:
    """The same for every question, workspace and chat, so with the tool schemas it makes a prompt
    prefix a loaded model evaluates once (and keeps on disk) for all of them."""
    return {"role": "system", "content": prompts.SYSTEM_PROMPT}


def question_message(question: str, layout: str, reads: list[IntroRead]) -> Message:
    """The question, after the workspace's layout and what the harness read for it (dialects read
    the part after 'Question:')."""
    parts = [f"{prompts.LAYOUT_HEADER}\n{layout}" if layout else ""]
    parts += [f"{read.header}\n{read.text}" for read in reads]
    context = "\n\n".join(p for p in parts if p)
    if not context:
        return {"role": "user", "content": question}
    return {"role": "user", "content": f"{context}\n\n{prompts.QUESTION_HEADER} {question}"}


def intro_reads(question: str, tools: Toolbox, settings: Settings, known_paths: tuple[str, ...],
                weak_model: bool) -> Iterator[RunEvent | IntroRead]:
    """Run the first prompt's reads; yields their events and an IntroRead for each that showed text."""
    for index, (name, arguments, header) in enumerate(_calls(question, settings, known_paths, weak_model)):
        outcome = tools.run(f"intro_{index}", name, json.dumps(arguments))
        read = _shown(outcome, header, question, settings) if outcome.ok else None
        if read is None:
            continue
        yield ToolCallProposed(0, outcome.call_id, name, outcome.raw_arguments)
        yield ToolCallCompleted(0, outcome.call_id, name, outcome.arguments or {}, True,
                                outcome.content, outcome.seconds, read.spans)
        yield read


def _shown(outcome: CallOutcome, header: str, question: str, settings: Settings) -> IntroRead | None:
    text, spans, hits = outcome.content.strip(), outcome.spans, outcome.hits
    if outcome.name == "search_text":  # only the hits that best match the question's words
        hits = tuple(rank_hits(outcome.hits, question_stems(question), settings.intro_search_lines))
        text = "\n".join(f"{h.span.path}:{h.span.start_line}: {h.text}" for h in hits)
        spans = tuple(hit.span for hit in hits)
    return IntroRead(header, text, spans, hits) if text else None


def _calls(question: str, settings: Settings, known_paths: tuple[str, ...],
           weak_model: bool) -> list[tuple[str, dict[str, Any], str]]:
    calls: list[tuple[str, dict[str, Any], str]] = []
    readme = next((p for p in README_NAMES if p in known_paths), None)
    if readme and settings.intro_readme_lines > 0:
        calls.append(("read_file", {"path": readme, "max_lines": settings.intro_readme_lines},
                      prompts.README_HEADER.format(path=readme)))
    stems = question_stems(question)
    if weak_model and stems and settings.intro_search_lines > 0:
        pattern = "|".join(re.escape(stem) for stem in stems)
        calls.append(("search_text", {"pattern": pattern, "ignore_case": True}, prompts.SEARCH_HEADER))
    return calls

"""The first prompt of a question: what the harness reads for the model before its first turn.

A small model uses text put in front of it far better than it finds files by itself, so before the
first turn the harness makes a read of its own: the code index's best chunks for the question
(search_code), as many as fit a token budget. Without the index tool it falls back to the README
start and (for models without native tool calls) the lines a search of the question's words
found. They are real tool calls through the executor (step 0), so every line they show is
evidence an answer may cite.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from app.harness import prompts
from app.harness.budget import question_stems, rank_hits
from app.harness.calls import CallOutcome, Toolbox
from app.harness.events import RunEvent, ToolCallCompleted, ToolCallProposed
from app.index.intent import intent_of
from app.index.languages import language_for
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


def layout_opening(layout: str) -> str:
    """The start of the question message that every question in one workspace shares: its layout.
    It comes before anything question-specific and ends in a blank line (a token boundary), so a
    loaded model keeps it evaluated with the system text (see shared_prefix)."""
    return f"{prompts.LAYOUT_HEADER}\n{layout}\n\n" if layout else ""


@dataclass(frozen=True)
class SharedPrefix:
    """What every first prompt in one workspace starts with, for ChatModel.warm: the system turn
    and the question message's opening (the layout), kept under the workspace's name (scope)."""

    messages: tuple[Message, ...]
    scope: str


def shared_prefix(layout: str, workspace: str) -> SharedPrefix:
    """The layout's opening when there is one; else the system turn alone, shared by every
    workspace (a follow-up, whose layout is in the chat so far)."""
    opening = layout_opening(layout)
    if not opening:
        return SharedPrefix((system_message(),), "")
    return SharedPrefix((system_message(), {"role": "user", "content": opening}), workspace)


def question_message(question: str, layout: str, reads: list[IntroRead]) -> Message:
    """The question, after the workspace's layout and what the harness read for it (dialects read
    the part after 'Question:'), and a line asking to answer from those reads."""
    if not layout and not reads:
        return {"role": "user", "content": question}
    parts = [f"{read.header}\n{read.text}" for read in reads]
    nudge = f"\n{prompts.ANSWER_FROM_READS}" if reads else ""
    parts.append(f"{prompts.QUESTION_HEADER} {question}{nudge}")
    return {"role": "user", "content": layout_opening(layout) + "\n\n".join(parts)}


def intro_reads(question: str, tools: Toolbox, settings: Settings, known_paths: tuple[str, ...],
                weak_model: bool, count_tokens: Callable[[str], int]) -> Iterator[RunEvent | IntroRead]:
    """Run the first prompt's reads; yields their events and an IntroRead for each that showed text."""
    indexed = any(spec["function"]["name"] == "search_code" for spec in tools.schemas())
    if indexed:
        calls = _readme_call(settings, known_paths) if intent_of(question).overview else []
        calls += _index_calls(question, settings)
    else:
        calls = _calls(question, settings, known_paths, weak_model)
    for index, (name, arguments, header) in enumerate(calls):
        outcome = tools.run(f"intro_{index}", name, json.dumps(arguments))
        read = _shown(outcome, header, question, settings, count_tokens) if outcome.ok else None
        if read is None:
            continue
        yield ToolCallProposed(0, outcome.call_id, name, outcome.raw_arguments)
        yield ToolCallCompleted(0, outcome.call_id, name, outcome.arguments or {}, True,
                                outcome.content, outcome.seconds, read.spans)
        yield read


def _shown(outcome: CallOutcome, header: str, question: str, settings: Settings,
           count_tokens: Callable[[str], int]) -> IntroRead | None:
    if outcome.name == "search_code":
        return _chunks_within(outcome, header, settings.intro_index_tokens, settings.intro_numbered_lines,
                              count_tokens)
    text, spans, hits = outcome.content.strip(), outcome.spans, outcome.hits
    if outcome.name == "search_text":  # only the hits that best match the question's words
        hits = tuple(rank_hits(outcome.hits, question_stems(question), settings.intro_search_lines))
        text = "\n".join(f"{h.span.path}:{h.span.start_line}: {h.text}" for h in hits)
        spans = tuple(hit.span for hit in hits)
    return IntroRead(header, text, spans, hits) if text else None


def _chunks_within(outcome: CallOutcome, header: str, budget: int, numbered: bool,
                   count_tokens: Callable[[str], int]) -> IntroRead | None:
    """The ranked chunks, best first, while they fit `budget` tokens (the first always does, cut to
    its first lines if it must): each as `path:start-end` and its lines (see chunk_block)."""
    blocks: list[str] = []
    spans: list[LineSpan] = []
    hits: list[TextHit] = []
    for span in outcome.spans:
        lines = [h for h in outcome.hits if h.span.path == span.path
                 and span.start_line <= h.span.start_line <= span.end_line]
        while lines:
            block = chunk_block(lines, numbered)
            if count_tokens("\n\n".join([*blocks, block])) <= budget:
                break
            lines = lines[: len(lines) // 2] if not blocks else []
        if not lines:
            break
        blocks.append(block)
        spans.append(_span_of(lines))
        hits.extend(lines)
    return IntroRead(header, "\n\n".join(blocks), tuple(spans), tuple(hits)) if blocks else None


def chunk_block(lines: list[TextHit], numbered: bool) -> str:
    """A chunk as the first prompt shows it: `path:start-end`, then its lines in a fenced block.

    Unnumbered by default: Qwen's tokenizer spends a token per digit, so `123| ` before every line
    was 30% of a prompt's code tokens, and a small model hardly cites lines itself (the harness
    attaches the lines an answer draws on). The header still gives the range to cite.
    """
    texts = [f"{h.span.start_line}| {h.text}" if numbered else h.text for h in lines]
    fence = "````" if any("```" in t for t in texts) else "```"
    language = language_for(lines[0].span.path) or ""
    return "\n".join([str(_span_of(lines)), fence + _FENCE_TAGS.get(language, language), *texts, fence])


_FENCE_TAGS = {"javascript": "js", "typescript": "ts"}  # the index's language names, shorter where usual


def _span_of(lines: list[TextHit]) -> LineSpan:
    return LineSpan(lines[0].span.path, lines[0].span.start_line, lines[-1].span.end_line)


def _index_calls(question: str, settings: Settings) -> list[tuple[str, dict[str, Any], str]]:
    if settings.intro_index_tokens <= 0 or settings.intro_index_chunks <= 0:
        return []
    return [("search_code", {"query": question[:500], "limit": settings.intro_index_chunks},
             prompts.INDEX_HEADER)]


def _readme_call(settings: Settings, known_paths: tuple[str, ...]) -> list[tuple[str, dict[str, Any], str]]:
    """The README's start: where a project says what it is (for questions about the whole)."""
    by_lower = {p.lower(): p for p in known_paths if "/" not in p}  # express ships Readme.md
    readme = next((by_lower[n.lower()] for n in README_NAMES if n.lower() in by_lower), None)
    if not readme or settings.intro_readme_lines <= 0:
        return []
    return [("read_file", {"path": readme, "max_lines": settings.intro_readme_lines},
             prompts.README_HEADER.format(path=readme))]


def _calls(question: str, settings: Settings, known_paths: tuple[str, ...],
           weak_model: bool) -> list[tuple[str, dict[str, Any], str]]:
    calls = _readme_call(settings, known_paths)
    stems = question_stems(question)
    if weak_model and stems and settings.intro_search_lines > 0:
        pattern = "|".join(re.escape(stem) for stem in stems)
        calls.append(("search_text", {"pattern": pattern, "ignore_case": True}, prompts.SEARCH_HEADER))
    return calls

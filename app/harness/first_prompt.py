"""The first prompt of a question: what the harness reads for the model before its first turn.

A small model uses text put in front of it far better than it finds files by itself, so before the
first turn the harness makes a read of its own: the code index's best chunks for the question
(search_code), as many as fit a token budget, and for questions about the whole project the
README's start. They are real tool calls through the executor (step 0), so every line they show
is evidence an answer may cite.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from app.harness import headers, prompts
from app.harness.calls import CallOutcome, Toolbox
from app.harness.events import RunEvent, ToolCallCompleted, ToolCallProposed
from app.harness.grounding import EXTENSIONS, asked_names, asks_where_defined
from app.harness.line_budget import fit_chunks
from app.harness.overview import entry_calls, entry_read, overview_calls, start_of
from app.harness.verdict import ShownLine, Uncalled
from app.index.intent import callee_of, imports_the_package, intent_of, is_copy_path, is_test_path, plain_callee
from app.index.languages import language_for
from app.settings import Settings
from app.tools.base import Reference, TextHit
from app.values import LineSpan, Message

CALLER_LINES = 8  # callers listed at most (tests' calls after the code's)
CALLER_LOOKUPS = 50  # uses find_references lists for the callers' read (calls come first)


@dataclass(frozen=True)
class IntroRead:
    """One read made for the first prompt: its text under a header, and the lines it showed."""

    header: str
    text: str
    spans: tuple[LineSpan, ...]
    hits: tuple[TextHit, ...]
    callers: tuple[Reference, ...] = ()  # a callers' read: the calls it listed
    uncalled: Uncalled | None = None  # a callers' read that found the name defined, never called or used


def system_message() -> Message:
    """The same for every question, workspace and chat, so with the tool schemas it makes a prompt
    prefix a loaded model evaluates once (and keeps on disk) for all of them."""
    return {"role": "system", "content": prompts.SYSTEM_PROMPT}


def layout_opening(layout: str) -> str:
    """The start of the question message that every question in one workspace shares: its layout.
    It comes before anything question-specific and ends in a blank line (a token boundary), so a
    loaded model keeps it evaluated with the system text (see shared_prefix)."""
    return f"{headers.LAYOUT_HEADER}\n{layout}\n\n" if layout else ""


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


def intro_reads(question: str, tools: Toolbox, settings: Settings, files: tuple[str, ...],
                count_tokens: Callable[[str], int]) -> Iterator[RunEvent | IntroRead]:
    """Run the first prompt's reads; yields their events and an IntroRead for each that showed text."""
    calls = (overview_calls(settings, files) if intent_of(question).overview
             else entry_calls(files) if imports_the_package(question) and settings.intro_readme_lines > 0 else [])
    calls += _callers_call(question, settings) + _index_calls(question, settings)
    spent = 0  # tokens of the callers' list, taken from the chunks' budget
    before: list[str] = []  # the lines shown so far, which the chunks do not show again
    if settings.intro_index_tokens > 0 and (helper := _helper_defined(question, tools)) is not None:
        spent += count_tokens(helper.text)
        yield helper
    for index, (name, arguments, header) in enumerate(calls):
        outcome = tools.run(f"intro_{index}", name, json.dumps(arguments))
        read = _shown(outcome, header, question, settings, count_tokens, spent, before) if outcome.ok else None
        if name == "search_text" and (module := entry_read(outcome.hits, files)):  # the entry fields: their module next
            calls.insert(index + 1, module)
        if read is None:
            continue
        if name != "search_text":  # a manifest's entry fields stay in its chunk, among the lines around them
            before += [h.text for h in (outcome.hits if name == "read_file" else read.hits)]  # a README's left-out too
        if name == "find_references":
            spent += count_tokens(read.text)
        yield ToolCallProposed(0, outcome.call_id, name, outcome.raw_arguments)
        yield ToolCallCompleted(0, outcome.call_id, name, outcome.arguments or {}, True,
                                outcome.content, outcome.seconds, read.spans)
        yield read


def _shown(outcome: CallOutcome, header: str, question: str, settings: Settings,
           count_tokens: Callable[[str], int], spent: int = 0, before: Sequence[str] = ()) -> IntroRead | None:
    if outcome.name == "search_code":
        return _chunks_within(outcome, header, question, settings, count_tokens, spent, before)
    if outcome.name == "find_references":
        if not outcome.definitions and callee_of(question) is None:  # a plain word the index does not define
            return None
        return _callers(outcome, header) or _passed(outcome) or _uncalled(outcome)
    if outcome.name == "search_text":  # a manifest's entry fields, shown as a chunk is, the lines between marked
        hits = tuple(outcome.hits)
        if not hits:
            return None
        path, first, last = hits[0].span.path, hits[0].span.start_line, hits[-1].span.end_line
        between = [TextHit(LineSpan(path, n, n), "…") for n in range(first, last + 1)]
        return IntroRead(header, chunk_block(hits, False, between), tuple(h.span for h in hits), hits)
    shown = start_of(outcome, settings.intro_readme_lines)
    return IntroRead(header, *shown) if shown else None


def _helper_defined(question: str, tools: Toolbox) -> IntroRead | None:
    """Asked where X is defined, when X is defined only inside another function (the symbol table
    holds the function around it, and ranks that first): X's own definition lines, so the answer
    can point at them (a user's check on debug and redux: "Where is the enable function
    defined?", "Where is getState defined?" were answered with other files or other lines)."""
    lookup = getattr(tools, "helper_definitions", None)
    if lookup is None or not asks_where_defined(question):
        return None
    for name in asked_names(question):
        if found := lookup(name):
            text = "\n".join(prompts.DEFINED_LINE.format(where=h.span, code=f"`{h.text}`") for h in found)
            return IntroRead(prompts.HELPER_DEFINED_HEADER.format(name=name), text, tuple(h.span for h in found),
                             tuple(found))
    return None


def _callers(outcome: CallOutcome, header: str) -> IntroRead | None:
    """The calls find_references found, each with the definition it is in (whose first line is
    shown too, so an answer naming the caller rests on a line that names it): calls from the
    code before those from tests, at most CALLER_LINES; None when nothing calls the name."""
    calls = [r for r in outcome.references if r.how == "call" and r.inside]
    if calls and all(is_test_path(r.hit.span.path) for r in calls) and (uses := _code_uses(outcome)):
        name = str((outcome.arguments or {}).get("symbol", ""))
        return _reference_list(uses + calls, prompts.TESTS_CALL_HEADER.format(name=name))
    return _reference_list(calls, header)


def _code_uses(outcome: CallOutcome) -> list[Reference]:
    """The uses of the name as a value outside tests (`fn = ListFormatFunc` in go-multierror's
    `Error()`): when only tests call it, these are how the code gets to it (a user's check: "What
    calls ListFormatFunc?" was answered with the two tests, and backed; `Error()` formats every
    multierror with it)."""
    return [r for r in _value_uses(outcome) if not is_test_path(r.hit.span.path)]


def _value_uses(outcome: CallOutcome) -> list[Reference]:
    """find_references' uses of the name inside a definition, but comments, imports and exports."""
    return [r for r in outcome.references if r.how == "use" and r.inside and not _NO_USE.match(r.hit.text)]


def _passed(outcome: CallOutcome) -> IntroRead | None:
    """When nothing calls the name but code uses it as a value (a callback passed on, a handler
    registered: `self._add_action_func(self._post_stop_check_actions)`), those uses, listed like
    calls: who passes it on is what "what calls X" can be answered with (a user's check on
    tenacity: with no list the model named the chunks it was shown). Comments, imports and
    exports are no such use."""
    if any(r.how == "call" for r in outcome.references):
        return None
    name = str((outcome.arguments or {}).get("symbol", ""))
    return _reference_list(_value_uses(outcome), prompts.PASSED_HEADER.format(name=name))


def _reference_list(refs: list[Reference], header: str) -> IntroRead | None:
    """`refs` one per line under `header`, the code's before the tests', at most CALLER_LINES
    (stable: the tool's order within each); a build's or bundle's copies (dist/esm/index.js beside
    src/index.ts, transpiled: not the same text) are left out when the source has some."""
    refs = sorted(refs, key=lambda r: (is_test_path(r.hit.span.path), is_copy_path(r.hit.span.path)))
    if any(not is_copy_path(r.hit.span.path) for r in refs):
        refs = [r for r in refs if not is_copy_path(r.hit.span.path)]
    refs = refs[:CALLER_LINES]
    if not refs:
        return None
    text = "\n".join(prompts.CALLER_LINE.format(inside=r.inside, where=r.hit.span, code=f"`{r.hit.text}`")
                     for r in refs)
    hits = tuple(_reference_hits(refs))
    return IntroRead(header, text, tuple(h.span for h in hits), hits, tuple(refs))


# Lines that name a function without using it as a value: comments, imports, exports.
_NO_USE = re.compile(r"^\s*(?://|/\*|\*|#(?![\[!])|--|from\s+\S+\s+import\b|import\b|use\s|export\s*\{|"
                     r"pub\s+use\s|require\s*\()")


def _uncalled(outcome: CallOutcome) -> IntroRead | None:
    """The name's definitions, when the index found no line that calls or uses it: then nothing
    here calls it, and the prompt says so instead of leaving the model to guess from the chunks."""
    if outcome.references or not outcome.definitions:
        return None
    name = str((outcome.arguments or {}).get("symbol", ""))
    text = "\n".join(prompts.DEFINED_LINE.format(where=h.span, code=f"`{h.text}`") for h in outcome.definitions)
    lines = tuple(ShownLine(h.span, h.text) for h in outcome.definitions)
    return IntroRead(prompts.NO_CALLERS_HEADER.format(name=name), text, tuple(h.span for h in outcome.definitions),
                     outcome.definitions, uncalled=Uncalled(name, lines))


def more_callers(answer: str, callers: Sequence[Reference]) -> tuple[Reference, ...]:
    """The listed calls from the code (not tests, not a bundle's copies) in definitions the answer
    does not name: what a complete answer to "what calls X" would add. A method is named by its own
    name or by its class or receiver type ("the JSONFormatter and the TextFormatter" for two
    `Format` methods)."""
    return tuple(r for r in code_callers(callers)
                 if not any(re.search(rf"(?<![\w$]){re.escape(part)}(?![\w$])", answer)
                            for part in r.inside.split(".")[-2:]))


# A definition an answer says a call is in: "once in the `docopt` function and once in the
# `parse_argv` function", "called by `Router.handle`" (a name in backticks, or one followed by
# "function" or "method"; a file or a place, `docopt.py`, `query.ts:280`, is no definition).
_DEFINITION = r"[A-Za-z_$][\w$]*(?:(?:\.|::)[A-Za-z_$#][\w$]*)*"
_CALL_IN = re.compile(rf"\b(?:in|by|from|within)\s+(?:the\s+)?(?:`({_DEFINITION})(?:\(\))?`"
                      rf"|({_DEFINITION})(?:\(\))?\s+(?:function|method)\b)")


def callers_beyond(answer: str, callers: Sequence[Reference], question: str,
                   has_symbol: Callable[[str], bool]) -> tuple[str, ...]:
    """The definitions the answer to "what calls X" says a call is in that hold none of the calls
    the index found: defined in the workspace, neither X nor a caller (a user's check on docopt,
    "What calls parse_defaults?": "once in the `docopt` function and once in the `parse_argv`
    function", both calls in `docopt`, was backed by the two call lines)."""
    inside = {part for r in callers for part in re.split(r"\.|::", r.inside) if part}
    asked = set(re.findall(r"[\w$]+", question))
    out: dict[str, None] = {}
    for found in _CALL_IN.finditer(answer):
        *owner, name = re.split(r"\.|::", found.group(1) or found.group(2))
        name = name.lstrip("#")
        if owner and name in EXTENSIONS:  # `docopt.py`: a file
            continue
        if name not in asked and name not in inside and has_symbol(name):
            out.setdefault(name, None)
    return tuple(out)


def code_callers(callers: Sequence[Reference]) -> tuple[Reference, ...]:
    """The listed calls from the code: not from tests, not from a bundle's copies."""
    return tuple(r for r in callers if not is_test_path(r.hit.span.path) and not is_copy_path(r.hit.span.path))


def _reference_hits(calls: Sequence[Reference]) -> Iterator[TextHit]:
    seen: set[LineSpan] = set()
    for ref in calls:
        for hit in (ref.inside_head, ref.hit):
            if hit is not None and hit.span not in seen:
                seen.add(hit.span)
                yield hit


def _chunks_within(outcome: CallOutcome, header: str, question: str, settings: Settings,
                   count_tokens: Callable[[str], int], spent: int = 0, before: Sequence[str] = ()) -> IntroRead | None:
    """The ranked chunks, each cut to the lines that carry the question (see line_budget), best
    first while they fit the budget (less what the callers' list took): each as `path:start-end`
    and its lines (see chunk_block)."""
    numbered = settings.intro_numbered_lines
    fitted = fit_chunks(outcome.chunks, question, settings.intro_index_tokens - spent, count_tokens,
                        lambda piece: chunk_block(piece.lines, numbered, piece.chunk.lines), before)
    if not fitted:
        return None
    text = "\n\n".join(chunk_block(f.lines, numbered, f.chunk.lines) for f in fitted)
    spans = tuple(_span_of(f.lines) for f in fitted)
    return IntroRead(header, text, spans, tuple(h for f in fitted for h in f.lines))


def chunk_block(lines: Sequence[TextHit], numbered: bool, whole: Sequence[TextHit] = ()) -> str:
    """A chunk as the first prompt shows it: `path:start-end`, then its lines in a fenced block,
    with a marker where lines of `whole` (the chunk as found) with text were left out.

    Unnumbered by default: Qwen's tokenizer spends a token per digit, so `123| ` before every line
    was 30% of a prompt's code tokens, and a small model hardly cites lines itself (the harness
    attaches the lines an answer draws on). The header still gives the range to cite.
    """
    texts = [f"{h.span.start_line}| {h.text}" if numbered else h.text for h in lines]
    texts = _marked(lines, texts, {h.span.start_line: h.text for h in whole})
    fence = "````" if any("```" in t for t in texts) else "```"
    language = language_for(lines[0].span.path) or ""
    return "\n".join([str(_span_of(lines)), fence + _FENCE_TAGS.get(language, language), *texts, fence])


def _marked(lines: Sequence[TextHit], texts: list[str], whole: dict[int, str]) -> list[str]:
    """The texts with OMITTED_LINES in each gap that held more than blank lines (or lines `whole`
    lacks: a long chunk's window, after its first line), indented as the line after it."""
    out: list[str] = []
    for index, (hit, text) in enumerate(zip(lines, texts, strict=True)):
        before = lines[index - 1].span.start_line if index else hit.span.start_line
        gap = range(before + 1, hit.span.start_line)
        if whole and any(n not in whole or whole[n].strip() for n in gap):
            indent = hit.text[: len(hit.text) - len(hit.text.lstrip())]
            out.append(indent + prompts.OMITTED_LINES)
        out.append(text)
    return out


_FENCE_TAGS = {"javascript": "js", "typescript": "ts"}  # the index's language names, shorter where usual


def _span_of(lines: Sequence[TextHit]) -> LineSpan:
    return LineSpan(lines[0].span.path, lines[0].span.start_line, lines[-1].span.end_line)


def _index_calls(question: str, settings: Settings) -> list[tuple[str, dict[str, Any], str]]:
    if settings.intro_index_tokens <= 0 or settings.intro_index_chunks <= 0:
        return []
    return [("search_code", {"query": question[:500], "limit": settings.intro_index_chunks},
             headers.INDEX_HEADER)]


def _callers_call(question: str, settings: Settings) -> list[tuple[str, dict[str, Any], str]]:
    """find_references for the name a "what calls X" question asks about (intent.callee_of)."""
    name = callee_of(question) or plain_callee(question)
    if name is None or settings.intro_index_tokens <= 0:
        return []
    return [("find_references", {"symbol": name, "limit": CALLER_LOOKUPS},
             prompts.CALLERS_HEADER.format(name=name))]

"""What one run knows as it goes, and its first prompt; private to the loop (events are what leaves it)."""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

from app.harness import acting
from app.harness.budget import ContextBudget
from app.harness.calls import Toolbox
from app.harness.citations import Evidence, content_fingerprint, read_args_for, resolve_path
from app.harness.control import NextTurn, Offer, Stage, answers_after_read, offer, tool_policy
from app.harness.events import RunEvent
from app.harness.first_prompt import (
    IntroRead,
    SharedPrefix,
    intro_reads,
    question_message,
    shared_prefix,
    system_message,
)
from app.harness.grounding import AnswerCheck, NameLookup
from app.harness.verdict import ShownLine, Uncalled
from app.llm.base import ChatModel, Message, ToolSpec, TurnRequest, Usage
from app.settings import Settings, ToolPolicy
from app.tools.base import Reference
from app.values import LineSpan


def new_run_id() -> str:
    return f"{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(3)}"


# Where a project declares the runtime versions it supports: the manifest at its root and the line.
DECLARED_VERSIONS: dict[str, tuple[tuple[str, str], ...]] = {
    "node": (("package.json", r'^\s*"node"\s*:\s*"'),),
    "python": (("pyproject.toml", r"^\s*requires-python\s*="), ("setup.cfg", r"^\s*python_requires\s*="),
               ("setup.py", r"python_requires\s*=")),
    "go": (("go.mod", r"^go\s+\d"),),
    "rust": (("Cargo.toml", r"^\s*rust-version\s*="),),
}


@dataclass(frozen=True)
class CheckedAnswer:
    """An answer as the model wrote it, and as the check left it (text, sources, verdict)."""

    raw: str
    text: str  # with invalid citations cut
    check: AnswerCheck
    added: tuple[LineSpan, ...]  # sources the harness found beyond the model's own citations
    notes: str
    token_logprobs: tuple[tuple[str, float], ...] = ()  # the answer turn's tokens, where known
    left_out: tuple[ShownLine, ...] = ()  # callers the index found that the answer does not name


@dataclass
class RunState:
    question: str
    model: ChatModel
    tools: Toolbox
    settings: Settings
    specs: tuple[ToolSpec, ...]
    files: tuple[str, ...]  # the workspace's files (one walk a question), for names an answer uses
    budget: ContextBudget
    evidence: Evidence
    answer_after_read: bool  # the next turn must answer once a call has read something
    tool_policy: ToolPolicy  # resolved for this model (never AUTO)
    stage: Stage = Stage.FIRST
    # what the answer is checked against: the question, and for a follow-up that points back ("who
    # calls it?") the names of the answer it points at, so the verdict knows what "it" is
    subject: str = ""
    next_turn: NextTurn = NextTurn.CHOOSE
    first_answer: CheckedAnswer | None = None  # the answer the second stage looks further from
    callers: tuple[Reference, ...] = ()  # a "what calls X" question: the calls the first prompt listed
    uncalled: Uncalled | None = None  # ... or X's definition, when nothing here calls or uses X
    stage_calls: int = 0  # turns with a good call since the stage began
    stage_tools: tuple[str, ...] = ()  # the tools the stage offers (its default when empty)
    first_own: int = 1  # index of this run's first message (earlier ones are the chat so far)
    shared: SharedPrefix = SharedPrefix((), "")  # the prompt's start every question here shares
    run_id: str = field(default_factory=new_run_id)
    messages: list[Message] = field(default_factory=list)
    seen_calls: set[tuple[str, str]] = field(default_factory=set)
    refused_ids: set[str] = field(default_factory=set)  # calls validation refused or repeated
    usage: Usage = field(default_factory=Usage)
    turn_logprobs: tuple[tuple[str, float], ...] = ()  # the last model turn's tokens, where known
    last_request: TurnRequest | None = None  # the last model turn's request (answer_samples asks it again)
    last_tokens: int = 0  # ... and how many tokens that turn generated
    steps: int = 0
    error: str = ""
    started: float = field(default_factory=time.monotonic)

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def offer(self) -> Offer:
        return offer(self.stage, self.tool_policy, self.next_turn, bool(self.seen_calls), self.specs,
                     self.stage_tools)

    def names(self) -> NameLookup:
        """Lookups of the names an answer mentions: files through the workspace listing, symbols
        through a literal search (both under the workspace rules)."""
        definitions = getattr(self.tools, "definitions", lambda name: ())  # a toolbox with an index
        defined_in = getattr(self.tools, "defined_in", lambda path: ())
        return NameLookup(lambda name: _has_path(self.files, name), self._has_symbol,
                          lambda name: resolve_path(self.files, name), self._read_lines, definitions,
                          lambda path: tuple(ShownLine(h.span, h.text) for h in defined_in(path)),
                          getattr(self.tools, "definition_names", lambda: ()), self._declared)

    def _declared(self, runtime: str) -> tuple[ShownLine, ...]:
        """The lines of the workspace's own manifests (at its root) that declare the versions of
        `runtime` it supports."""
        out: list[ShownLine] = []
        for path, pattern in DECLARED_VERSIONS.get(runtime, ()):
            if path in self.files:
                arguments = json.dumps({"pattern": pattern, "path": path})
                out += [ShownLine(h.span, h.text) for h in self.tools.run("verify", "search_text", arguments).hits]
        return tuple(out[:3])

    def _read_lines(self, span: LineSpan) -> tuple[ShownLine, ...]:
        """The lines of a span read now (a prose citation's range this run never showed)."""
        outcome = self.tools.run("verify", "read_file", read_args_for(span))
        if not outcome.ok or not outcome.hits:
            return ()
        if outcome.hits[-1].span.start_line < span.end_line:  # cut by the read limits, or past the end
            last = LineSpan(span.path, span.end_line, span.end_line)
            if not self.tools.run("verify", "read_file", read_args_for(last)).hits:
                return ()
        return tuple(ShownLine(hit.span, hit.text) for hit in outcome.hits)

    @property
    def known_paths(self) -> tuple[str, ...]:
        """The files a path argument may name (the path grammar's list)."""
        return self.files[: self.settings.known_paths_max]

    def _has_symbol(self, name: str) -> bool:
        last = name.rsplit(".", 1)[-1]
        arguments = json.dumps({"pattern": last, "fixed_strings": True})
        return bool(self.tools.run("verify", "search_text", arguments).hits)

    def add_tool_result(self, call_id: str, name: str, content: str) -> None:
        self.messages.append({"role": "tool", "tool_call_id": call_id, "name": name, "content": content})

    def begin_looking(self, answer: CheckedAnswer, note: str) -> None:
        """The second stage: the first answer stays in the chat, a note says what is missing."""
        self.first_answer, self.stage, self.stage_calls = answer, Stage.LOOKING, 0
        self.next_turn = NextTurn.CHOOSE
        self.messages.append({"role": "user", "content": note})

    def introduce(self, history: tuple[Message, ...]) -> Iterator[RunEvent]:
        """The first prompt: the system text, the chat so far, then the question with what the
        harness read for it; a follow-up about the previous answer gets that answer's lines and
        names instead of a search for its own words."""
        previous = acting.previous_answer(history) if history else None
        layout = "" if history else self.tools.layout()  # a follow-up has it in the chat already
        if previous is not None and acting.refers_back(self.question):
            self.stage, self.stage_tools = Stage.FOLLOW_UP, acting.follow_up_tools(self.question)
            self.subject = " ".join((self.question, *previous.names))
            question = acting.follow_up_message(self.question, previous)
        else:
            question = yield from self._question_with_reads(layout)
        self.messages = [system_message(), *history, question]
        self.shared = shared_prefix(layout, self.tools.label)
        self.first_own = len(history) + 1

    def _intro_settings(self, layout: str) -> Settings:
        """The settings, with the first prompt's chunk budget cut to what a small context leaves
        beside the system text, the tool schemas (each step's fit counts them), the layout, the
        question and the reply's reserve: 2,000 tokens of code do not fit n_ctx 2048."""
        opening = [system_message(), {"role": "user", "content": f"{layout}\n{self.question}"}]
        room = self.budget.limit_tokens - self.budget.measure(opening, self.specs) - INTRO_SLACK_TOKENS
        if room >= self.settings.intro_index_tokens:
            return self.settings
        return self.settings.model_copy(update={"intro_index_tokens": max(0, room)})

    def _question_with_reads(self, layout: str) -> Iterator[RunEvent]:
        reads = []
        for item in intro_reads(self.question, self.tools, self._intro_settings(layout), self.files,
                                self.budget.tokens):
            if isinstance(item, IntroRead):
                self.evidence.add(item.spans, item.hits)
                self.callers += item.callers
                self.uncalled = item.uncalled or self.uncalled
                reads.append(item)
            else:
                yield item
        return question_message(self.question, layout, reads)


# Tokens of the first prompt besides its system text, layout, question and chunks: the headers,
# each chunk's `path:start-end` and fences, the answer line.
INTRO_SLACK_TOKENS = 200


def _has_path(files: tuple[str, ...], name: str) -> bool:
    name = name.strip().removeprefix("./").rstrip("/")
    return any(f == name or f.endswith("/" + name) or f.startswith(name + "/") for f in files)


def new_run_state(question: str, tools: Toolbox, model: ChatModel, settings: Settings) -> RunState:
    limit = min(settings.n_ctx, model.context_length or settings.n_ctx) - settings.context_reserve_tokens
    return RunState(
        question=question, model=model, tools=tools, settings=settings,
        tool_policy=tool_policy(settings, model),
        specs=tuple(tools.schemas()),
        files=tools.known_paths(max(settings.known_paths_max, settings.verify_paths_max)),
        budget=ContextBudget(model.count_tokens, max(256, limit)),
        evidence=Evidence(lambda span: fingerprint_span(tools, span)),
        answer_after_read=answers_after_read(settings, model))


def fingerprint_span(tools: Toolbox, span: LineSpan) -> str | None:
    """A hash of what read_file shows for exactly these lines now (None when it cannot read them)."""
    outcome = tools.run("verify", "read_file", read_args_for(span))
    return content_fingerprint(outcome.content) if outcome.ok else None

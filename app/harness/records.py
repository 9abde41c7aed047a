"""Run history: every run saved as one JSON file per run, in the data dir, one folder per workspace.

Files are written atomically (a crash leaves the old file or none, never half a file). A record
that does not parse is renamed to `<id>.json.corrupt` with a warning and skipped: history never
stops the app. Events are stored as JSON objects {"event": kind, ...fields}, the same shape as the
`ask --trace` lines, and can be turned back into event objects to reopen a run.
"""

from __future__ import annotations

import dataclasses
import hashlib
import logging
import time
from enum import Enum
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from app.errors import BurrowError
from app.harness import events as ev
from app.harness import prompts
from app.harness.certainty import Certainty
from app.harness.grounding import PathLink
from app.harness.verdict import ShownLine, Support
from app.llm.base import Usage
from app.paths import AppPaths
from app.storage import atomic_write_text
from app.values import LineSpan, Message
from app.workspace import SkippedFolder

log = logging.getLogger(__name__)

EVENT_KINDS: dict[type, str] = {
    ev.IndexProgress: "index_progress",
    ev.IndexReady: "index_ready",
    ev.RunStarted: "run_started",
    ev.PromptRendered: "prompt",
    ev.ModelTextStreamed: "model_text",
    ev.ModelTurnFinished: "model_turn",
    ev.ToolCallProposed: "tool_call",
    ev.ToolCallRefused: "tool_refused",
    ev.ToolCallCompleted: "tool_result",
    ev.ContextElided: "context_elided",
    ev.AnswerCompleted: "answer",
    ev.AnswerSampled: "answer_sampled",
    ev.SecondStageStarted: "second_stage",
    ev.RunStopped: "stopped",
}
_KIND_TYPES = {kind: cls for cls, kind in EVENT_KINDS.items()}
EXCERPT_CHARS = 160
CORRUPT_SUFFIX = ".corrupt"  # a record that does not parse is renamed to <id>.json.corrupt


def event_to_dict(event: Any) -> dict[str, Any]:
    """{"event": kind, **fields}; spans and usage become plain objects."""
    data = {"event": EVENT_KINDS.get(type(event), type(event).__name__)}
    for f in dataclasses.fields(event):
        data[f.name] = _plain(getattr(event, f.name))
    return data


def _plain(value: Any) -> Any:
    if isinstance(value, LineSpan):
        return {"path": value.path, "start_line": value.start_line, "end_line": value.end_line}
    if isinstance(value, Usage):
        return {**dataclasses.asdict(value), "prompt_total": value.prompt_total}
    if isinstance(value, (SkippedFolder, Certainty)):
        return dataclasses.asdict(value)
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    if isinstance(value, (ShownLine, PathLink)):  # the verdict's lines and the answer's links
        return {"span": _plain(value.span), "text": value.text}
    if isinstance(value, Enum):
        return value.value
    return value


def event_from_dict(data: dict[str, Any]) -> Any:
    """The event object back from event_to_dict's output (unknown kinds raise ValueError)."""
    cls = _KIND_TYPES.get(data.get("event", ""))
    if cls is None:
        raise ValueError(f"unknown event kind {data.get('event')!r}")
    kwargs = {f.name: data[f.name] for f in dataclasses.fields(cls) if f.name in data}
    for name in ("spans", "citations"):
        if name in kwargs:
            kwargs[name] = tuple(LineSpan(**s) for s in kwargs[name])
    if cls is ev.IndexReady:
        kwargs["skipped"] = tuple((str(k), int(n)) for k, n in kwargs.get("skipped", ()))
        kwargs["skipped_folders"] = tuple(SkippedFolder(**f) for f in kwargs.get("skipped_folders", ()))
    if cls is ev.AnswerSampled:
        kwargs["samples"] = tuple(kwargs.get("samples", ()))
    if cls is ev.SecondStageStarted:
        kwargs["support"] = Support(kwargs.get("support", Support.NOT_BACKED))
    if cls is ev.RunStopped and "reason" in kwargs:
        kwargs["reason"] = ev.StopReason(kwargs["reason"])
    if cls is ev.AnswerCompleted:
        kwargs["support"] = Support(kwargs.get("support", Support.NOT_BACKED))
        for name in ("unverified", "found", "missing"):
            kwargs[name] = tuple(kwargs.get(name, ()))
        for name in ("backing", "closest", "left_out"):
            kwargs[name] = tuple(ShownLine(LineSpan(**x["span"]), x["text"]) for x in kwargs.get(name, ()))
        kwargs["links"] = tuple(PathLink(x["text"], LineSpan(**x["span"])) for x in kwargs.get("links", ()))
        kwargs["transcript"] = tuple(kwargs.get("transcript", ()))
        kwargs["token_logprobs"] = tuple((str(t), float(lp)) for t, lp in kwargs.get("token_logprobs", ()))
        doubt = kwargs.get("doubt")
        kwargs["doubt"] = Certainty(**doubt) if doubt else None
    if "usage" in kwargs:
        kwargs["usage"] = Usage(**{k: v for k, v in kwargs["usage"].items() if k != "prompt_total"})
    return cls(**kwargs)


class PromptSize(BaseModel):
    step: int
    chars: int
    tokens: int


class CallRecord(BaseModel):
    step: int
    call_id: str
    name: str
    arguments: dict[str, Any] | None = None
    raw_arguments: str = ""
    ok: bool = False
    refused: bool = False
    result_chars: int = 0
    seconds: float = 0.0


class RunSummary(BaseModel):
    id: str
    question: str
    started_at: str
    answer_excerpt: str
    stop_reason: str
    chat_id: str = ""


class RunRecord(BaseModel):
    id: str
    chat_id: str = ""  # the id of the chat's first run; a chat is the runs that share it
    question: str = ""
    workspace: str = ""
    model: str = ""
    started_at: str = ""
    finished_at: str = ""
    prompts: list[PromptSize] = Field(default_factory=list)
    calls: list[CallRecord] = Field(default_factory=list)
    answer: str = ""
    citations: list[dict[str, Any]] = Field(default_factory=list)
    support: str = ""  # backed | partly_backed | not_backed; "" when the run ended without an answer
    unverified: list[str] = Field(default_factory=list)
    stop_reason: str = ""
    stop_message: str = ""
    steps: int = 0
    usage: dict[str, Any] = Field(default_factory=dict)
    events: list[dict[str, Any]] = Field(default_factory=list)

    def summary(self) -> RunSummary:
        excerpt = " ".join(self.answer.split())
        if len(excerpt) > EXCERPT_CHARS:
            excerpt = excerpt[: EXCERPT_CHARS - 1] + "\u2026"
        return RunSummary(id=self.id, question=self.question, started_at=self.started_at,
                          answer_excerpt=excerpt, stop_reason=self.stop_reason,
                          chat_id=self.chat_id or self.id)

    def transcript(self) -> tuple[Message, ...]:
        """This run's messages as the chat continues from them. A run that ended without an answer
        (interrupted, a failure) keeps its question and what was said, marked as unfinished."""
        answers = [e for e in self.events if e.get("event") == "answer"]
        if answers:
            return tuple(answers[-1].get("transcript", ()))
        return interrupted_turn(self.question, self.answer, self.stop_message) if self.question else ()

    def run_events(self) -> tuple[Any, ...]:
        """The run's events as objects, for a view to replay (unreadable ones are skipped)."""
        out = []
        for data in self.events:
            try:
                out.append(event_from_dict(data))
            except (TypeError, ValueError):
                log.warning("run %s: skipped an unreadable event %r", self.id, data.get("event"))
        return tuple(out)


def interrupted_turn(question: str, partial: str, reason: str) -> tuple[Message, ...]:
    """A question that ended without an answer, as the chat goes on: the question, then what the
    model had said before it stopped, closed by a note saying it was cut short and why."""
    marker = prompts.INTERRUPTED_ANSWER.format(reason=reason.strip() or "the run stopped")
    said = partial.strip()
    return ({"role": "user", "content": question},
            {"role": "assistant", "content": f"{said}\n\n{marker}" if said else marker})


@dataclasses.dataclass(frozen=True)
class ChatSoFar:
    chat_id: str
    history: tuple[Message, ...]  # the messages of its questions (answered or interrupted), oldest first


def workspace_key(workspace: str | Path) -> str:
    """Folder name for a workspace's runs: a short hash of its resolved path."""
    resolved = str(Path(workspace).expanduser().resolve())
    return hashlib.sha256(resolved.encode("utf-8", "surrogatepass")).hexdigest()[:16]


class RunStore:
    """Saved runs under paths.runs_dir/<workspace-key>/<run-id>.json."""

    def __init__(self, paths: AppPaths) -> None:
        self.root = paths.runs_dir
        self.set_aside: list[Path] = []  # corrupt records this store moved out of the way

    def folder(self, workspace: str | Path) -> Path:
        return self.root / workspace_key(workspace)

    def save(self, record: RunRecord) -> Path:
        path = self.folder(record.workspace) / f"{record.id}.json"
        atomic_write_text(path, record.model_dump_json(indent=1))
        return path

    def list_runs(self, workspace: str | Path) -> list[RunSummary]:
        """Newest first; corrupt records are set aside and skipped."""
        folder = self.folder(workspace)
        records = (self._read(p) for p in sorted(folder.glob("*.json")) if p.is_file())
        summaries = [r.summary() for r in records if r is not None]
        return sorted(summaries, key=lambda s: (s.started_at, s.id), reverse=True)

    def load_chat(self, workspace: str | Path, ref: str) -> ChatSoFar:
        """The chat a run belongs to ("last": the workspace's newest run), with its history so far;
        BurrowError when there is no such run."""
        runs = self.list_runs(workspace)
        if ref == "last":
            if not runs:
                raise BurrowError("there is no earlier question in this workspace to continue")
            ref = runs[0].id
        chat_id = self.load(ref).chat_id or ref
        ids = sorted((r.started_at, r.id) for r in runs if r.chat_id == chat_id)
        history = tuple(m for _, run_id in ids for m in self.load(run_id).transcript())
        return ChatSoFar(chat_id, history)

    def load(self, run_id: str) -> RunRecord:
        """A saved run with its events; BurrowError when it is missing, or (saying where it went)
        when its record could not be read and was set aside, now or earlier."""
        if not run_id or "/" in run_id or "\\" in run_id or run_id.startswith("."):
            raise BurrowError(f"no saved run named {run_id!r}")
        for path in self.root.glob(f"*/{run_id}.json"):
            record = self._read(path)
            if record is None:
                raise _unreadable_run(run_id, self.set_aside[-1])
            return record
        for aside in self.root.glob(f"*/{run_id}.json{CORRUPT_SUFFIX}"):
            raise _unreadable_run(run_id, aside)
        raise BurrowError(f"no saved run named {run_id!r}")

    def _read(self, path: Path) -> RunRecord | None:
        try:
            return RunRecord.model_validate_json(path.read_bytes())
        except (OSError, ValueError, ValidationError) as exc:
            aside = path.with_name(path.name + CORRUPT_SUFFIX)
            try:
                path.replace(aside)
            except OSError:
                pass
            self.set_aside.append(aside)
            log.warning("run record %s is corrupt (%s); set aside as %s", path.name, exc, aside.name)
            return None


def _unreadable_run(run_id: str, aside: Path) -> BurrowError:
    return BurrowError(f"saved run {run_id} exists but could not be read (its record is damaged); "
                       f"it was set aside as {aside}")


class RunRecorder:
    """Collects a run's events (loop calls on_event, then close) and saves the record once."""

    def __init__(self, paths: AppPaths) -> None:
        self.store = RunStore(paths)
        self.record: RunRecord | None = None
        self.saved_to: Path | None = None

    def on_event(self, event: Any) -> None:
        if isinstance(event, ev.RunStarted):
            self.record = RunRecord(id=event.run_id, question=event.question, workspace=event.workspace,
                                    model=event.model, started_at=_now(), chat_id=event.chat_id or event.run_id)
        if self.record is None:
            return
        if isinstance(event, ev.ModelTextStreamed):  # the answer so far (kept if the run is cut)
            self.record.answer += event.text
        else:  # the answer and raw turns hold the streamed text
            self.record.events.append(event_to_dict(event))
        _apply(self.record, event)

    def close(self) -> None:
        if self.record is None or self.saved_to is not None:
            return
        self.record.finished_at = _now()
        try:
            self.saved_to = self.store.save(self.record)
        except OSError as exc:  # history is a convenience: losing it must not lose the answer
            log.warning("could not save run %s: %s", self.record.id, exc)


def _apply(record: RunRecord, event: Any) -> None:
    if isinstance(event, ev.PromptRendered):
        record.prompts.append(PromptSize(step=event.step, chars=len(event.text), tokens=event.tokens))
    elif isinstance(event, ev.ToolCallCompleted):
        record.calls.append(CallRecord(step=event.step, call_id=event.call_id, name=event.name,
                                       arguments=event.arguments, ok=event.ok, seconds=event.seconds,
                                       result_chars=len(event.content)))
    elif isinstance(event, ev.ToolCallRefused):
        record.calls.append(CallRecord(step=event.step, call_id=event.call_id, name=event.name,
                                       raw_arguments=event.raw_arguments, refused=True,
                                       result_chars=len(event.message)))
    elif isinstance(event, ev.AnswerCompleted):
        record.answer = event.text
        record.citations = [_plain(c) for c in event.citations]
        record.support, record.unverified = event.support.value, list(event.unverified)
    elif isinstance(event, ev.RunStopped):
        record.stop_reason, record.stop_message = event.reason.value, event.message
        record.steps = event.steps
        record.usage = _plain(event.usage)


def _now() -> str:
    """Local time with microseconds: runs of one chat sort in order even within one second."""
    now = time.time()
    local = time.localtime(now)
    return (time.strftime("%Y-%m-%dT%H:%M:%S", local) + f".{int(now % 1 * 1e6):06d}"
            + time.strftime("%z", local))

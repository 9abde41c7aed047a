"""A ChatModel served by an OpenAI-compatible inference server the user already runs.

llama-server, llama-cpp-python's server, Ollama and LM Studio all speak POST /v1/chat/completions
with `stream: true` and `tools`. The server renders the prompt with its own template, so tool
calls come back one of two ways, and both are taken:
- structured `tool_calls` in the stream (the server's native tool calling), or
- plain text holding a call (a template without tool support, or a server that does not parse
  them): the text is read by our dialect parsing (app.llm.dialects; the generic dialect reads
  `<tool_call>{...}</tool_call>`, bare JSON and `/name {...}` calls).

Every failure is a named ServerError (app.llm.server_http): the harness ends the run with
"model_error" and that message, and the run is recorded like any other.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from app.llm.base import (
    Message,
    ModelEvent,
    ParsedReply,
    ParsedToolCall,
    PrefixWarm,
    TextDelta,
    ToolSpec,
    TurnCompleted,
    TurnEnd,
    TurnRequest,
    Usage,
)
from app.llm.dialects.base import Dialect
from app.llm.dialects.markup import arguments_from
from app.llm.dialects.normalize import normalize_messages
from app.llm.server_http import (
    Connection,
    ServerAddress,
    ServerError,
    ServerFailure,
    garbage,
    get_json,
    http_failure,
    parse_server_url,
    sse_events,
)
from app.settings import Settings

CHARS_PER_TOKEN = 3  # token estimate without the server's tokenizer (code runs ~3-4 chars/token)
DIALECT_NAME = "server"  # not "generic": the harness must offer tools to a server model


@dataclass(frozen=True)
class ServerModelRef:
    """Which server and which of its models; the picker's entry key is `key`."""

    base_url: str
    model: str

    @property
    def key(self) -> str:
        return f"server:{self.model}@{self.base_url}"


def parse_model_key(key: str) -> ServerModelRef | None:
    """The ref behind a picker key ("server:MODEL@URL"); None for a file path."""
    if not key.startswith("server:") or "@" not in key:
        return None
    model, _, url = key[len("server:"):].rpartition("@")
    return ServerModelRef(url, model)


def chosen_server(settings: Settings, url: str | None = None,
                  model: str | None = None) -> ServerModelRef | None:
    """The server a command should use: its --server, else a remembered picker entry, else the
    server_url setting; None for the in-process model."""
    if url:
        return ServerModelRef(url, model or settings.server_model or "")
    remembered = parse_model_key(settings.model_path or "")
    if remembered is not None:
        return remembered
    if settings.server_url:
        return ServerModelRef(settings.server_url, model or settings.server_model or "")
    return None


def check_allowed(address: ServerAddress, settings: Settings) -> None:
    """A server off this machine only when settings name its host; then the guard lets it in."""
    if address.is_loopback:
        return
    allowed = (settings.server_allowed_host or "").strip().lower()
    if allowed != address.host.lower():
        raise ServerError(ServerFailure.NOT_ALLOWED, f"{address.host} is not this machine; Burrow "
                          f"sends your code to another host only when the server_allowed_host "
                          f"setting names it (now: {settings.server_allowed_host or 'none'})")
    from app.netguard import installed_guard

    guard = installed_guard()
    if guard is not None:
        guard.allow_server(address.host, address.port)


def list_server_models(address: ServerAddress, timeout_s: float) -> list[str]:
    """The model ids of GET /v1/models, in the server's order."""
    data = get_json(address, "/models", timeout_s)
    items = data.get("data") if isinstance(data, dict) else None
    if not isinstance(items, list):
        raise garbage(address, "a model list", json.dumps(data)[:200])
    return [str(m["id"]) for m in items if isinstance(m, dict) and m.get("id")]


def connect_server(url: str, model: str | None, settings: Settings,
                   fallback: Dialect | None = None) -> ServerChatModel:
    """Check the server answers and has the model (its first one when none is named)."""
    address = parse_server_url(url)
    check_allowed(address, settings)
    models = list_server_models(address, settings.server_connect_timeout_s)
    if not models:
        raise ServerError(ServerFailure.MODEL_MISSING, f"the inference server at {address.label} "
                          f"has no model loaded; load one there first")
    if model and model not in models:
        raise ServerError(ServerFailure.MODEL_MISSING, f"the inference server at {address.label} "
                          f"has no model {model!r}; it has: {', '.join(models[:10])}")
    return ServerChatModel(address, model or models[0], settings, fallback)


class ServerChatModel:
    """ChatModel over an inference server; each turn is one streamed request."""

    def __init__(self, address: ServerAddress, model: str, settings: Settings,
                 fallback: Dialect | None = None) -> None:
        from app.llm.dialects import dialect_for_template

        self.address = address
        self.model = model
        self._settings = settings
        self.fallback = fallback or dialect_for_template(None)  # generic: reads text calls
        self.structured_calls = 0  # turns whose calls came as tool_calls (measured; docs)
        self.text_calls = 0  # turns whose calls were parsed out of text

    @property
    def name(self) -> str:
        return f"{self.model} @ {self.address.label}"

    @property
    def dialect_name(self) -> str:
        return DIALECT_NAME

    @property
    def native_tool_calls(self) -> bool:
        return True  # the server renders the tools and reads the calls in its model's own format

    @property
    def context_length(self) -> int:
        return self._settings.n_ctx  # servers do not say; the harness calibrates on real usage

    @property
    def is_remote(self) -> bool:
        return not self.address.is_loopback

    @property
    def ref(self) -> ServerModelRef:
        return ServerModelRef(self.address.base_url, self.model)

    def count_tokens(self, text: str) -> int:
        return -(-len(text) // CHARS_PER_TOKEN)

    def warm(self, messages: Sequence[Message], tools: Sequence[ToolSpec], scope: str = "") -> PrefixWarm:
        """Nothing to warm here: the server keeps (or not) its own prompt cache."""
        return PrefixWarm()

    def generate(self, request: TurnRequest, cancel: threading.Event | None = None) -> Iterator[ModelEvent]:
        cancel = cancel or threading.Event()
        turn = _Turn(self, request, time.monotonic())
        conn = Connection(self.address, self._settings.server_connect_timeout_s,
                          self._settings.server_timeout_s)
        try:
            yield from turn.stream(conn, cancel)
        finally:
            conn.close()
        self.structured_calls += turn.calls_were == "structured"
        self.text_calls += turn.calls_were == "text"
        yield turn.completed()

    def request_body(self, request: TurnRequest) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.model, "stream": True, "max_tokens": request.max_tokens,
            "temperature": request.temperature, "stream_options": {"include_usage": True},
            "messages": normalize_messages(request.messages, arguments_as_string=True),
        }
        if request.seed is not None:
            body["seed"] = request.seed
        if request.tools and not request.force_answer:
            body["tools"] = list(request.tools)
            if request.require_tool:  # only weak models are made to call (first_call)
                body["tools"] = _with_path_choices(request.tools, request.known_paths)
                body["tool_choice"] = _required_choice(request.tools)
        return body


def _grown_name(name: str, piece: str) -> str:
    """OpenAI sends a call's name once; llama-cpp-python repeats it in every chunk."""
    if not name or piece.startswith(name):
        return piece or name
    return name if name.endswith(piece) else name + piece


def _with_path_choices(tools: tuple[ToolSpec, ...], paths: tuple[str, ...]) -> list[ToolSpec]:
    """Tools whose path argument may only name a workspace path: a server that turns a forced
    tool's schema into a grammar (llama.cpp's) then cannot make one up, as our own grammar does."""
    out = []
    for tool in tools:
        fn = tool["function"]
        props = dict(fn.get("parameters", {}).get("properties", {}))
        if "path" in props and paths:
            props["path"] = {**props["path"], "enum": list(paths)}
        out.append({**tool, "function": {**fn, "parameters": {**fn.get("parameters", {}),
                                                              "properties": props}}})
    return out


def _required_choice(tools: tuple[ToolSpec, ...]) -> Any:
    """One tool: name it (every server honours that; llama-cpp-python only that); else required."""
    if len(tools) == 1:
        return {"type": "function", "function": {"name": tools[0]["function"]["name"]}}
    return "required"


@dataclass
class _Turn:
    """What one streamed reply has said so far."""

    model: ServerChatModel
    request: TurnRequest
    started: float
    content: str = ""
    reasoning: str = ""
    shown: str = ""
    calls: dict[int, dict[str, str]] = field(default_factory=dict)
    finish: str = ""
    chunks: int = 0
    first_token: float = 0.0
    usage: dict[str, Any] = field(default_factory=dict)
    stop_reason: TurnEnd = TurnEnd.STOP
    calls_were: str = ""
    reply: ParsedReply = field(default_factory=lambda: ParsedReply(""))

    def stream(self, conn: Connection, cancel: threading.Event) -> Iterator[TextDelta]:
        body = self.model.request_body(self.request)
        try:
            response = conn.open("POST", "/chat/completions", body, cancel)
            if response.status >= 400:
                raise http_failure(conn.address, response.status, response.read(), self.model.model)
            for event in sse_events(response, conn.address):
                if cancel.is_set():
                    break
                yield from self._take(event, conn.address)
        except ServerError:
            if not conn.closed_by_stop:
                raise
        if cancel.is_set():
            self.stop_reason = TurnEnd.CANCELLED
        elif not self.finish:
            raise ServerError(ServerFailure.DROPPED, f"the inference server at {conn.address.label} "
                              f"ended the stream before the answer was finished; was it stopped "
                              f"or did it crash?")
        yield from self._finish()

    def _take(self, event: Any, address: ServerAddress) -> Iterator[TextDelta]:
        if not isinstance(event, dict):
            raise garbage(address, "a chat completion chunk", json.dumps(event))
        if "error" in event:
            raise http_failure(address, 500, json.dumps(event).encode(), self.model.model)
        if isinstance(event.get("usage"), dict):
            self.usage = {**event["usage"], "timings": event.get("timings")}
        elif isinstance(event.get("timings"), dict):
            self.usage = {**self.usage, "timings": event["timings"]}
        for choice in event.get("choices") or ():
            yield from self._take_choice(choice)

    def _take_choice(self, choice: dict[str, Any]) -> Iterator[TextDelta]:
        delta = choice.get("delta") or {}
        text, thought = delta.get("content") or "", delta.get("reasoning_content") or ""
        if text or thought or delta.get("tool_calls"):
            self.chunks += 1
            self.first_token = self.first_token or time.monotonic() - self.started
        self.reasoning += thought
        for call in delta.get("tool_calls") or ():
            slot = self.calls.setdefault(int(call.get("index", len(self.calls))),
                                         {"id": "", "name": "", "arguments": ""})
            fn = call.get("function") or {}
            slot["id"] = call.get("id") or slot["id"]
            slot["name"] = _grown_name(slot["name"], fn.get("name") or "")
            slot["arguments"] += fn.get("arguments") or ""
        self.finish = choice.get("finish_reason") or self.finish
        if text:
            self.content += text
            yield from self._visible(final=False)

    def _visible(self, final: bool) -> Iterator[TextDelta]:
        """New answer text; a call written as text is held back (the fallback dialect decides)."""
        if self.request.tools and not self.request.force_answer:
            seen = self.reply.content if final else self.model.fallback.visible_text(self.content)
        else:
            seen = self.reply.content if final else self.content
        if seen.startswith(self.shown) and len(seen) > len(self.shown):
            yield TextDelta(seen[len(self.shown):])
            self.shown = seen

    def _finish(self) -> Iterator[TextDelta]:
        self.reply = self._parse()
        if self.finish == "length":
            self.stop_reason = TurnEnd.LENGTH
        yield from self._visible(final=True)

    def _parse(self) -> ParsedReply:
        if self.calls:
            self.calls_were = "structured"
            calls = tuple(_parsed_call(c) for _, c in sorted(self.calls.items()))
            return ParsedReply(self.content.strip(), calls, self.reasoning)
        if not self.request.tools or self.request.force_answer:
            return ParsedReply(self.content.strip(), (), self.reasoning)
        parsed = self.model.fallback.parse(self.content)
        if parsed.tool_calls:
            self.calls_were = "text"
        return ParsedReply(parsed.content, parsed.tool_calls, self.reasoning or parsed.reasoning)

    def completed(self) -> TurnCompleted:
        raw = self.content + "".join(f"\n[tool_call {c.name} {c.raw_arguments}]"
                                     for c in self.reply.tool_calls if self.calls_were == "structured")
        prompt = json.dumps(self.model.request_body(self.request)["messages"], ensure_ascii=False)
        return TurnCompleted(raw, self.reply, self._usage(), prompt, self.stop_reason)

    def _usage(self) -> Usage:
        """The server's own counts where it gives them; else what this stream saw."""
        u, timings = self.usage, self.usage.get("timings") or {}
        details = u.get("prompt_tokens_details") or {}
        cached = int(details.get("cached_tokens") or timings.get("cache_n") or 0)
        prompt = int(u.get("prompt_tokens") or 0)
        generated = int(u.get("completion_tokens") or self.chunks)
        return Usage(max(0, prompt - cached), cached if prompt else 0, generated,
                     time.monotonic() - self.started, self.first_token)


def _parsed_call(slot: dict[str, str]) -> ParsedToolCall:
    arguments, _ = arguments_from(slot["arguments"] or "{}")
    return ParsedToolCall(slot["name"], arguments if isinstance(arguments, dict) else {},
                          slot["arguments"] or "{}", slot["id"])

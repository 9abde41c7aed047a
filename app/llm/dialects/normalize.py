"""Message normalisation: turn OpenAI-style messages into what chat templates expect.

Templates index fields directly, so every message gets string content ("" rather than None),
every tool call gets an id, a type and arguments as an object (or as a JSON string for the few
templates that concatenate them), and every tool message carries the id and name of its call.
Each step returns new dicts; the caller's messages are never changed.
"""

from __future__ import annotations

import hashlib
import json
import string
from collections.abc import Sequence
from typing import Any

from app.llm.base import Message
from app.llm.dialects.markup import arguments_from

_ALNUM = string.ascii_letters + string.digits


def _content_text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # OpenAI content parts
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return json.dumps(content, ensure_ascii=False)


def _normal_call(call: dict[str, Any], index: int, as_string: bool) -> dict[str, Any]:
    function = call.get("function", call)
    arguments, raw = arguments_from(function.get("arguments", {}))
    return {
        "id": str(call.get("id") or f"call_{index}"),
        "type": "function",
        "function": {"name": str(function.get("name", "")), "arguments": raw if as_string else arguments},
    }


def normalize_messages(messages: Sequence[Message], arguments_as_string: bool = False) -> list[Message]:
    """Copies with string content, complete tool calls, and named tool results."""
    out: list[Message] = []
    names: dict[str, str] = {}
    for message in messages:
        msg = dict(message)
        msg["content"] = _content_text(msg.get("content"))
        if msg.get("tool_calls"):
            msg["tool_calls"] = [_normal_call(c, len(names) + i, arguments_as_string)
                                 for i, c in enumerate(msg["tool_calls"])]
            names.update({c["id"]: c["function"]["name"] for c in msg["tool_calls"]})
        else:
            msg.pop("tool_calls", None)
        if msg.get("role") == "tool":
            msg["tool_call_id"] = str(msg.get("tool_call_id") or "")
            msg.setdefault("name", names.get(msg["tool_call_id"], "tool"))
        out.append(msg)
    return out


def mistral_id(call_id: str) -> str:
    """A 9-character alphanumeric id, stable for the same input (Mistral templates demand it)."""
    if len(call_id) == 9 and call_id.isalnum():
        return call_id
    digest = hashlib.sha256(call_id.encode()).digest()
    return "".join(_ALNUM[b % len(_ALNUM)] for b in digest[:9])


def with_mistral_ids(messages: list[Message]) -> list[Message]:
    out = []
    for msg in messages:
        msg = dict(msg)
        if msg.get("tool_calls"):
            msg["tool_calls"] = [{**c, "id": mistral_id(c["id"])} for c in msg["tool_calls"]]
        if msg.get("role") == "tool":
            msg["tool_call_id"] = mistral_id(msg["tool_call_id"])
        out.append(msg)
    return out


def _counted_role(msg: Message) -> str | None:
    """The role as Mistral's alternation check sees it (tool traffic is not counted)."""
    if msg.get("role") in ("tool", "system") or msg.get("tool_calls"):
        return None
    return msg.get("role")


def _joined(first: Message, second: Message) -> Message:
    merged = dict(first)
    merged["content"] = "\n\n".join(t for t in (first["content"], second["content"]) if t)
    calls = [*(first.get("tool_calls") or []), *(second.get("tool_calls") or [])]
    if calls:
        merged["tool_calls"] = calls
    return merged


def merged_turns(messages: list[Message]) -> list[Message]:
    """Consecutive user (or assistant) messages as one: texts joined by a blank line, tool
    calls kept in order, the way mistral-common aggregates a conversation."""
    out: list[Message] = []
    for msg in messages:
        if out and msg.get("role") in ("user", "assistant") and out[-1].get("role") == msg["role"]:
            out[-1] = _joined(out[-1], msg)
        else:
            out.append(dict(msg))
    return out


# Mistral templates leave a message that carries tool calls out of their alternation check and
# render a user message by its role before looking at its calls; a user turn carrying this
# (never rendered) placeholder gets its own [INST] where the check would refuse it.
OUTSIDE_ALTERNATION = [{"id": "", "type": "function", "function": {"name": "", "arguments": {}}}]


def strictly_alternating(messages: list[Message]) -> list[Message]:
    """A conversation that templates demanding user/assistant alternation accept, encoded the
    way mistral-common encodes it: consecutive turns of one role merge, and a user turn right
    after tool results is its own turn (`...[/TOOL_RESULTS][INST]text[/INST]`), not folded into
    the result. Anything else that repeats the last counted role folds into its neighbour."""
    out: list[Message] = []
    last: str | None = None
    for msg in merged_turns(messages):
        role = _counted_role(msg)
        if role is not None and role == last and out:
            if role == "user" and out[-1].get("role") == "tool":
                out.append({**msg, "tool_calls": OUTSIDE_ALTERNATION})
            else:
                out[-1] = _joined(out[-1], msg)
            continue
        last = role or last
        out.append(msg)
    return out


def alternating_turns(messages: list[Message], keep_system: bool) -> list[Message]:
    """For templates that accept only user/assistant alternation (Gemma 2, Llama 2, Mistral 7B
    v0.1): system text (all of it, or all but a leading system message) and tool results become
    user text, consecutive turns of one role merge, and a conversation that would open with the
    assistant gets an empty user turn first. Nothing is dropped."""
    lead = messages[:1] if keep_system and messages and messages[0].get("role") == "system" else []
    turns = merged_turns([{"role": "assistant" if m.get("role") == "assistant" else "user",
                           "content": m["content"]} for m in messages[len(lead):]])
    if turns and turns[0]["role"] != "user":
        turns.insert(0, {"role": "user", "content": ""})
    return [*lead, *turns]


def one_call_per_message(messages: list[Message]) -> list[Message]:
    """Split assistant turns with several calls into call/result pairs, for templates that
    render only one call per assistant message."""
    out: list[Message] = []
    pending: dict[str, Message] = {}
    for msg in messages:
        calls = msg.get("tool_calls") or []
        if msg.get("role") == "tool" and msg["tool_call_id"] in pending:
            out.append(pending.pop(msg["tool_call_id"]))
            out.append(msg)
            continue
        if len(calls) > 1:
            out.append({**msg, "tool_calls": calls[:1]})
            pending.update({c["id"]: {"role": "assistant", "content": "", "tool_calls": [c]}
                            for c in calls[1:]})
            continue
        out.append(msg)
    out.extend(pending.values())
    return out


def last_question(messages: Sequence[Message]) -> str:
    """The question a tool result should be read against: the last user message, or only the
    part after its last "Question:" when the harness put context in front of it."""
    for msg in reversed(messages):
        if msg.get("role") == "user":
            return _content_text(msg.get("content")).rsplit("Question:", 1)[-1].strip()
    return ""


def with_system_text(messages: list[Message], text: str) -> list[Message]:
    """Append text to the system message, adding one when there is none."""
    if not text:
        return messages
    if messages and messages[0].get("role") == "system":
        first = dict(messages[0])
        first["content"] = f"{first['content']}\n\n{text}".strip()
        return [first, *messages[1:]]
    return [{"role": "system", "content": text}, *messages]

"""What one model turn is guarded by: its own cancel, a repeat detector, and the check that a reply
meant as an answer is not a tool call the harness could not run."""

from __future__ import annotations

import json
import re
import threading
import time

from app.harness import headers
from app.llm.dialects.markup import close_json

_FENCE = re.compile(r"^```[a-z]*\s*(.*?)\s*(?:```)?$", re.DOTALL)
_TAGGED = re.compile(r"^<(tool_call|tools|function)[ >]")
_CUT_CALL = re.compile(r'^\[?\{\s*"name"\s*:\s*"([^"]*)"\s*,\s*"(?:arguments|parameters)"\s*:')  # cut mid-object


def call_shaped(text: str) -> str | None:
    """The tool name a reply tried to call when, instead of an answer, it is nothing but a call
    object the dialect could not turn into a call (an unknown tool's name, a question pasted as
    the name, cut-off JSON, a stray call tag): small models do this. None for a real answer."""
    body = _FENCE.sub(r"\1", text.strip())
    if _TAGGED.match(body):
        return body[1:].split(">", 1)[0].split()[0]
    if not body.startswith(("{", "[{")):
        return None
    try:
        value = json.loads(close_json(body) or body)
    except ValueError:
        cut = _CUT_CALL.match(body)
        return cut.group(1) if cut else None
    value = value[0] if isinstance(value, list) and value else value
    if isinstance(value, dict) and "name" in value and ({"arguments", "parameters"} & value.keys()):
        return str(value["name"])
    return None


class LinkedCancel(threading.Event):
    """Set for this turn only, or when the run's own cancel event is set; `wait` returns when
    either is (an Event cannot be woken by another, so it looks at the parent every POLL_S)."""

    POLL_S = 0.05  # how late a wait notices the parent at most; a Stop within that is instant to a user

    def __init__(self, parent: threading.Event) -> None:
        super().__init__()
        self._parent = parent

    def is_set(self) -> bool:
        return super().is_set() or self._parent.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self.is_set():
            left = self.POLL_S if deadline is None else min(self.POLL_S, deadline - time.monotonic())
            if left <= 0:
                return False
            super().wait(left)
        return True


# The prompt's own headers, as a small model copies them into a reply (a fence opened on the
# layout, the chunks' header in its words): what follows is the prompt, not an answer (a user's
# check on more-itertools: 67 s spent copying the layout and a chunk back).
_PROMPT_COPY = re.compile(r"```[a-z]*\n\s*" + re.escape(headers.LAYOUT_HEADER) + "|" + headers.INDEX_HEADER_REWORDED,
                          re.IGNORECASE)


class RepeatGuard:
    """Trips when a reply loops: its last `window` characters appeared earlier in it, and the text
    from there on is a copy of the text before it. A list whose lines share a long path
    (`..., framework/src/org/apache/cordova/CordovaWebViewImpl.java:` on two callers of one file)
    repeats `window` characters without looping: it tripped the guard, which cut a right answer to
    its first two callers (a user's check on cordova-android). Digits count: a list of one file's
    lines (`core/proxy.ts:155: markChanged(state)`, `...:177: ...`) differs only in them.
    It trips too when the reply starts copying the prompt back (_PROMPT_COPY): kept is what came
    before the copy."""

    def __init__(self, window: int) -> None:
        self.window, self.text, self.tripped, self.period = window, "", False, 0
        self.copied_at = -1  # where the reply began copying the prompt, once it did

    def feed(self, text: str) -> bool:
        self.text += text
        if not self.tripped and (copy := _PROMPT_COPY.search(self.text, max(0, len(self.text) - len(text) - 120))):
            self.tripped, self.copied_at = True, copy.start()
        if self.window and not self.tripped and len(self.text) >= 3 * self.window:
            same, end = self.text, len(self.text)
            earlier = same.rfind(same[-self.window:], 0, end - 1)
            period = end - self.window - earlier
            if earlier >= 0 and 2 * period <= end and same[end - period:] == same[end - 2 * period:end - period]:
                self.tripped, self.period = True, period
        return self.tripped

    def kept(self) -> str:
        """The reply up to where it began repeating (or copying the prompt), ended at the last full
        sentence."""
        cut = self.copied_at if self.copied_at >= 0 else len(self.text) - max(self.period, self.window)
        head = self.text[:cut]
        end = max(head.rfind(". "), head.rfind(".\n"), head.rfind("\n\n"))
        return (head[: end + 1] if end > 0 else head).strip()

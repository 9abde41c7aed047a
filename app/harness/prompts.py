"""Every piece of text the harness says to the model, in one place.

Wording was chosen by running real questions through the default SmolLM2-135M model (see
docs/harness.md): short sentences, the workspace layout and README start given up front in a
plain user turn (a tiny model uses text there far better than it discovers files by itself), and a
plain instruction when an answer is forced.
"""

from __future__ import annotations

SYSTEM_PROMPT = (
    "You are Burrow, an assistant that answers questions about the code in one project folder. "
    "You can only read files with the tools given. Before answering, read the file that holds "
    "the answer. Answer briefly from what the files say, and cite the lines you used as "
    "path:start-end, for example README.md:1-5. If the files do not say, answer that you do not know."
)

LAYOUT_HEADER = "The project folder contains:"
README_HEADER = "The start of {path}:"
SEARCH_HEADER = "Lines in the project that use words of the question (path:line: text):"

REPEATED_CALL = (
    "You already called {name} with these arguments and its result is above. "
    "Do not call it again: answer the question now using that result."
)

ELIDED_RESULT = (
    "[result elided to stay within the context budget: {chars} characters from {name}. "
    "Call the tool again with a narrower range if you still need it.]"
)

TRUNCATED_RESULT = (
    "\n[cut to fit the context budget: {cut} of {total} characters left out. "
    "Read a smaller range (start_line, max_lines) to see the rest.]"
)

SOURCES_LINE = "Sources: {citations}"

STOP_MESSAGES = {
    "answered": "",
    "step_budget": "Stopped after {steps} steps (the step budget); raise it with --max-steps.",
    "repeated_call": "Stopped because the model repeated the same tool call.",
    "cancelled": "Stopped on request.",
    "context_budget": "Stopped because the conversation no longer fits the model's context.",
    "model_error": "The model failed: {detail}",
}


def stop_message(reason: str, *, steps: int = 0, detail: str = "") -> str:
    return STOP_MESSAGES.get(reason, reason).format(steps=steps, detail=detail)

"""Every piece of text the harness says to the model, in one place.

Wording was chosen by running real questions through small models (SmolLM2-135M first, then the
eval's questions with the Qwen2.5-Coder-1.5B default; docs/harness.md, docs/eval.md): short
sentences, the workspace layout and the code that answers given up front in a plain user turn (a
small model uses text there far better than it discovers files by itself), and a plain
instruction when an answer is forced.
"""

from __future__ import annotations

from app.harness.events import StopReason
from app.harness.grounding import AnswerCheck, Support

SYSTEM_PROMPT = (
    "You are Burrow, an assistant that answers questions about the code in one project folder. "
    "You can only read files with the tools given. Before answering, read the file that holds "
    "the answer. Answer briefly from what the files say, and cite the lines you used as "
    "path:start-end, for example README.md:1-5. If the files do not say, answer that you do not know."
)

LAYOUT_HEADER = "The project folder contains:"
README_HEADER = "The start of {path}:"
QUESTION_HEADER = "Question:"
INDEX_HEADER = "The parts of the project that best match the question (each as path:first-last line, then its lines):"
# After the question when the harness read something for it. Measured on all 69 eval questions
# with the 1.5B default (docs/eval.md, wave 2, fourth session): 50 right and 50 grounded, against 49
# and 50 without it; asking for names and values alone gave 50 right but 48 grounded.
ANSWER_FROM_READS = "Answer from the lines above, with the exact names and values they show and the file they are in."

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
NO_SOURCE_NOTE = ("No source found: nothing Burrow read in this workspace backs this answer, "
                  "so treat it as a guess.")
UNVERIFIED_NOTE = "Not found in this workspace: {names}."

# How far the lines Burrow read back an answer, as the window and `ask` say it.
SUPPORT_LABELS = {
    Support.SUPPORTED: "Supported by lines Burrow read",
    Support.PARTIAL: "Partly supported: some names in it are not in this workspace",
    Support.NONE: "No source found",
}

# What a user reads when a run ends, one line per StopReason (the CLI, the window and the records
# all use this table; a test checks that every reason has its words).
STOP_MESSAGES = {
    StopReason.ANSWERED: "Answered.",
    StopReason.STEP_BUDGET: "Stopped after {steps} steps (the step budget) before a full answer; "
                            "raise the step budget in Settings or with --max-steps.",
    StopReason.REPEATED_CALL: "Stopped because the model repeated the same tool call.",
    StopReason.CANCELLED: "Stopped on request.",
    StopReason.CONTEXT_BUDGET: "Stopped because the conversation no longer fits the model's context.",
    StopReason.MODEL_ERROR: "The model failed: {detail}",
    StopReason.NO_ANSWER: "Stopped: asked to answer in words, the model wrote a tool call instead; "
                          "no answer. Try rephrasing the question, or a larger model.",
}


def stop_message(reason: StopReason, *, steps: int = 0, detail: str = "") -> str:
    return STOP_MESSAGES[reason].format(steps=steps, detail=detail or "no details")


def answer_notes(check: AnswerCheck, added: tuple) -> str:
    """What only the check knows, written under an answer: the sources Burrow found (beyond the
    model's own citations), unverified names, or that no source was found."""
    notes = []
    if added:
        notes.append(SOURCES_LINE.format(citations=", ".join(map(str, added))))
    if check.unverified:
        notes.append(UNVERIFIED_NOTE.format(names=", ".join(f"`{n}`" for n in check.unverified)))
    if check.support is Support.NONE:
        notes.append(NO_SOURCE_NOTE)
    return "\n\n".join(notes)

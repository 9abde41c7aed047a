"""Every piece of text the harness says to the model, in one place.

Wording was chosen by running real questions through small models (SmolLM2-135M first, then the
eval's questions with the Qwen2.5-Coder-1.5B default; docs/harness.md, docs/eval.md): short
sentences, the workspace layout and the code that answers given up front in a plain user turn (a
small model uses text there far better than it discovers files by itself), and a plain
instruction when an answer is forced.
"""

from __future__ import annotations

from app.harness.events import AnswerCompleted, StopReason
from app.harness.grounding import AnswerCheck
from app.harness.verdict import Support

SYSTEM_PROMPT = (
    "You are Burrow, an assistant that answers questions about the code in one project folder. "
    "You can only read files with the tools given. Before answering, read the file that holds "
    "the answer. Answer briefly from what the files say, and cite the lines you used as "
    "path:start-end, for example README.md:1-5. If the files do not say, answer that you do not know."
)

README_HEADER = "The start of {path}:"
ENTRY_FIELDS_HEADER = "The lines of {path} that name the files an import gets:"
QUESTION_HEADER = "Question:"
# A "what calls X" question: the callers the references tool found, one per line, before the
# chunks (a small model shown the calling chunks named one caller and stopped: 1 of 10 right on
# the tuning2 callers questions, 1 of 11 on held-out).
CALLERS_HEADER = "Calls to `{name}` that the code index found (the function each call is in, where, and the line):"
CALLER_LINE = "- in `{inside}`, {where}: {code}"
# ... and when the index defines the name but no line calls or uses it (a small model shown only the
# chunks named a function that calls another name as the caller)
NO_CALLERS_HEADER = ("Nothing in this workspace calls `{name}`: the code index found no line that calls or uses it "
                     "(a caller outside this code, or one that builds the name at run time, would not show). "
                     "It is defined here:")
DEFINED_LINE = "- {where}: {code}"
# ... and when a "where is X defined" question's X is defined only inside another function
HELPER_DEFINED_HEADER = "`{name}` is defined inside another function, here:"
# ... and when no line calls the name but some pass it on as a value (a callback, a handler)
TESTS_CALL_HEADER = ("Only tests call `{name}` directly; the code index found the code passing it on or storing it as "
                     "a value, then the tests' calls (the function each line is in, where, and the line):")
PASSED_HEADER = ("Nothing in this workspace calls `{name}` directly; the code index found it passed on or stored "
                 "as a value (the function each line is in, where, and the line):")
# After the question when the harness read something for it. Measured on all 69 eval questions
# with the 1.5B default (docs/eval.md, wave 2, fourth session): 50 right and 50 grounded, against 49
# and 50 without it; asking for names and values alone gave 50 right but 48 grounded.
ANSWER_FROM_READS = "Answer from the lines above, with the exact names and values they show and the file they are in."
# Where the first prompt left lines of a chunk out (imports, comments, lines far from the question's
# words, lines an earlier chunk showed): one short line, so the model does not read the code as whole.
OMITTED_LINES = "…"

# The second stage (app/harness/acting.py): after a first answer the lines shown do not back, one
# short note says what is missing and which tools may find it.
MISSING_ANSWER = "You said the lines shown do not answer: {question}"
MISSING_NAMES = "The lines shown do not contain {names}."
MISSING_SUPPORT = "No line shown backs that answer."
LOOK_FURTHER = ("Call one tool to find the lines that answer it: search_code with other words, "
                "find_references for where a name is defined, used or called, read_file for more "
                "lines of a file. Then answer with the exact names and values those lines show.")

# A follow-up about the previous answer: what it cited and named, and the tools to open them.
PREVIOUS_CITED = "The previous answer cited: {spans}."
PREVIOUS_NAMED = "It named: {names}."
FOLLOW_UP_CALL = ("Open what the question is about: read_file on those lines for more of them, or "
                  "find_references on a name for where it is defined, used or called. Then answer "
                  "from what they show, citing path:line.")

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
UNVERIFIED_NOTE = "Not found in this workspace: {names}."
# Closes the reply of a question that ended without an answer (Stop, Ctrl-C, a failure) when the
# chat goes on, so a follow-up such as "go on" has the question and what was said before the stop.
# an answer that was nothing but references to lines this run never showed (all cut)
ONLY_UNCHECKED = "The model answered only with a reference Burrow could not check: {references}."
INTERRUPTED_ANSWER = "[interrupted before the answer was finished: {reason}]"

# How far the lines Burrow read back an answer, as the window and `ask` say it.
SUPPORT_LABELS = {
    Support.BACKED: "Backed: a line Burrow read states this answer's claim",
    Support.PARTLY: "Partly backed: some of its claims are in lines Burrow read, not all",
    Support.NOT_BACKED: "Not backed: no line Burrow read states it; treat it as a guess",
}
# The detail under the label: which line backs it, or what was and was not found.
BACKED_BY = "Backed by {span}: {text}"
FOUND_NOT_FOUND = "Found: {found}. Not found: {missing}."
# under an answer to "what calls X" that leaves out callers the index found (a small model names
# one and stops): each where it calls; such an answer is at most partly backed
LEAVES_OUT_CALLERS = "It leaves out callers the index found: {places}."
CLOSEST_LINES = "Closest lines Burrow read: {spans}"
DOUBT = "The model was unsure of “{claim}” (it gave what it wrote a {percent}% chance)"

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
    StopReason.NO_ANSWER: "Stopped: asked to answer in words, the model wrote a tool call or nothing; "
                          "no answer. Try rephrasing the question, or a larger model.",
}


# The same reasons in a word or two, where a list shows how each run ended (the window's History).
STOP_SHORT = {
    StopReason.ANSWERED: "answered",
    StopReason.STEP_BUDGET: "step limit reached",
    StopReason.REPEATED_CALL: "stopped: repeated call",
    StopReason.CANCELLED: "stopped",
    StopReason.CONTEXT_BUDGET: "context full",
    StopReason.MODEL_ERROR: "model failed",
    StopReason.NO_ANSWER: "no answer",
}


def stop_message(reason: StopReason, *, steps: int = 0, detail: str = "") -> str:
    return STOP_MESSAGES[reason].format(steps=steps, detail=detail or "no details")


def answer_notes(check: AnswerCheck, added: tuple) -> str:
    """What only the check knows, written under an answer: the sources Burrow found (beyond the
    model's own citations) and unverified names (the verdict has its own fields and words)."""
    notes = []
    if added:
        notes.append(SOURCES_LINE.format(citations=", ".join(map(str, added))))
    if check.unverified:
        notes.append(UNVERIFIED_NOTE.format(names=", ".join(f"`{n}`" for n in check.unverified)))
    return "\n\n".join(notes)


def verdict_detail(answer: AnswerCompleted) -> list[str]:
    """The lines that say what was checked, under the verdict's label (the CLI and the window)."""
    support, found, missing, closest = answer.support, answer.found, answer.missing, answer.closest
    if support is Support.BACKED and answer.backing:
        first = answer.backing[0]
        return [BACKED_BY.format(span=first.span, text=first.text.strip())]
    lines = []
    if answer.doubt is not None:
        lines.append(DOUBT.format(claim=answer.doubt.claim, percent=answer.doubt.percent))
    if answer.left_out:
        lines.append(LEAVES_OUT_CALLERS.format(places=", ".join(f"`{c.text}` ({c.span})" for c in answer.left_out)))
    elif support is not Support.BACKED and (found or missing):
        lines.append(FOUND_NOT_FOUND.format(found=", ".join(found[:8]) or "nothing",
                                            missing=", ".join(missing[:8]) or "nothing"))
    if closest:
        lines.append(CLOSEST_LINES.format(spans=", ".join(str(c.span) for c in closest)))
    return lines

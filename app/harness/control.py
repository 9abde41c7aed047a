"""Loop control as named values: which stage a run is in, what its next turn must do, and what
that turn is offered. The loop sets these; nothing else reads a StopReason as an instruction.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from app.harness.events import StopReason
from app.llm.base import ChatModel, ToolSpec
from app.llm.catalog import measured_policy
from app.settings import Settings, ToolPolicy


class Stage(str, Enum):
    """Where a run is: its first answer, or the model looking further with the tools."""

    FIRST = "first"  # the first answer, under the model's tool policy
    LOOKING = "looking"  # the first answer was not backed: tools offered with a note of what is missing
    FOLLOW_UP = "follow_up"  # a follow-up about the previous answer: its lines and names, tools to open them


class NextTurn(str, Enum):
    """What the next model turn must do."""

    CHOOSE = "choose"  # answer, or call a tool it is offered
    ANSWER = "answer"  # answer in words (it wrote a call we cannot run, or it has read enough)
    ANSWER_LAST = "answer_last"  # answer in words: the step budget's last turn
    ANSWER_AFTER_REPEAT = "answer_after_repeat"  # answer in words: it repeated a call

    @property
    def must_answer(self) -> bool:
        return self is not NextTurn.CHOOSE


# How a run that ends on an answer in a turn of that kind is said to have stopped.
ANSWER_STOPS = {
    NextTurn.CHOOSE: StopReason.ANSWERED,
    NextTurn.ANSWER: StopReason.ANSWERED,
    NextTurn.ANSWER_LAST: StopReason.STEP_BUDGET,
    NextTurn.ANSWER_AFTER_REPEAT: StopReason.REPEATED_CALL,
}

FIRST_CALL_TOOLS = ("read_file",)  # layout and README are in the prompt already: the useful first move is a read
# The second stage's tools: a small model picks better among few. search_code finds what the first
# prompt missed, find_references answers "what calls X", read_file opens the rest of a chunk.
LOOKING_TOOLS = ("search_code", "find_references", "read_file")
FOLLOW_UP_TOOLS = ("read_file", "find_references")  # open what the previous answer cited or named


@dataclass(frozen=True)
class Offer:
    """What one turn may do: the tools it may call and whether it must call one."""

    tools: tuple[ToolSpec, ...]
    require_tool: bool = False


def offer(stage: Stage, policy: ToolPolicy, next_turn: NextTurn, called: bool,
          specs: tuple[ToolSpec, ...], stage_tools: tuple[str, ...] = ()) -> Offer:
    """The tools a turn is offered: by the policy for the first answer, the stage's own after it.
    A follow-up's first turn must call (its answer is in the lines it opens, not in the chat)."""
    match stage:
        case Stage.LOOKING:
            return Offer(_named(specs, stage_tools or LOOKING_TOOLS))
        case Stage.FOLLOW_UP:
            return Offer(_named(specs, stage_tools or FOLLOW_UP_TOOLS), not called and not next_turn.must_answer)
        case Stage.FIRST:
            return _first_offer(policy, next_turn, called, specs)


def _first_offer(policy: ToolPolicy, next_turn: NextTurn, called: bool, specs: tuple[ToolSpec, ...]) -> Offer:
    match policy:
        case ToolPolicy.RETRIEVAL:
            return Offer(())
        case ToolPolicy.FIRST_CALL if not called and not next_turn.must_answer:
            return Offer(_named(specs, FIRST_CALL_TOOLS) or specs, True)
        case _:
            return Offer(specs)


def _named(specs: tuple[ToolSpec, ...], names: tuple[str, ...]) -> tuple[ToolSpec, ...]:
    return tuple(t for t in specs if t["function"]["name"] in names)


def tool_policy(settings: Settings, model: ChatModel) -> ToolPolicy:
    """The setting, or for "auto" the model's measured best, else by what the model can do: a model
    without native tool calls answers from the first prompt, the others may call tools."""
    if settings.tool_policy is not ToolPolicy.AUTO:
        return settings.tool_policy
    if measured := measured_policy(model.name):
        return ToolPolicy(measured)
    return ToolPolicy.OFFERED if model.native_tool_calls else ToolPolicy.RETRIEVAL


def answers_after_read(settings: Settings, model: ChatModel) -> bool:
    """Whether the answer is asked for right after the first good read (a model without native
    calls answers best then; the setting can say always or never)."""
    match settings.force_answer_after_read:
        case "always":
            return True
        case "never":
            return False
        case _:
            return not model.native_tool_calls

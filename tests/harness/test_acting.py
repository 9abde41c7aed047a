"""The model acts where it pays: the second stage after an answer the lines do not back, and
follow-ups about the previous answer. A scripted model between the real tools and workspace."""

from __future__ import annotations

import json

from app.harness import events as ev
from app.harness import prompts
from app.harness.control import FOLLOW_UP_TOOLS, LOOKING_TOOLS
from app.harness.events import StopReason
from app.harness.grounding import Support
from app.harness.loop import run_question
from app.llm.base import ParsedReply, ParsedToolCall
from app.llm.scripted import ScriptedModel
from app.settings import Settings
from app.values import LineSpan

QUESTION = "What is the default maximum note length?"
UNBACKED = "It is set by `NOTE_LIMIT` in notekeeper/limits.py."


def call(name: str, **arguments: object) -> ParsedReply:
    return ParsedReply("", (ParsedToolCall(name, dict(arguments), json.dumps(arguments)),))


def run(model, tools, question=QUESTION, **overrides) -> list:
    settings = Settings(**{"n_threads": 1, "tool_policy": "retrieval", "second_stage": True, **overrides})
    return list(run_question(question, tools=tools, model=model, settings=settings))


def only(events: list, kind: type) -> list:
    return [e for e in events if isinstance(e, kind)]


def names(request) -> list[str]:
    return [t["function"]["name"] for t in request.tools]


def test_an_unbacked_first_answer_gets_a_note_and_the_tools_and_the_new_lines_back_the_next(tools):
    model = ScriptedModel([UNBACKED, call("find_references", symbol="DEFAULT_MAX_NOTE_LENGTH"),
                           "The default is 500, `DEFAULT_MAX_NOTE_LENGTH` (notekeeper/config.py:12)."])
    events = run(model, tools)
    model.assert_all_used()
    first, looking, after = model.requests
    assert names(first) == [] and set(names(looking)) == set(LOOKING_TOOLS) and not looking.require_tool
    note = looking.messages[-1]
    assert note["role"] == "user"
    assert note["content"].startswith(prompts.MISSING_NAMES.format(names="`notekeeper/limits.py`, `NOTE_LIMIT`"))
    assert looking.messages[-2] == {"role": "assistant", "content": UNBACKED}  # the first answer stays in the chat
    assert prompts.LOOK_FURTHER in note["content"] and not looking.force_answer
    assert looking.tools_late and not first.tools_late  # the first prompt stays in the model's cache
    [found] = [e for e in only(events, ev.ToolCallCompleted) if e.step == 2]
    assert found.name == "find_references" and "notekeeper/config.py:12" in found.content
    [answer] = only(events, ev.AnswerCompleted)
    assert answer.text.startswith("The default is 500") and answer.support is Support.BACKED
    assert answer.citations == (LineSpan("notekeeper/config.py", 12, 12),)
    assert events[-1].reason is StopReason.ANSWERED and events[-1].steps == 3


def test_a_backed_first_answer_is_the_answer(tools):
    model = ScriptedModel(["The default is 500 (notekeeper/config.py:12)."])
    events = run(model, tools)
    model.assert_all_used()
    assert only(events, ev.AnswerCompleted)[0].support is Support.BACKED and len(model.requests) == 1


def test_the_second_stage_is_a_setting_off_by_default(tools):
    model = ScriptedModel([UNBACKED])
    events = run(model, tools, second_stage=Settings().second_stage)
    model.assert_all_used()
    assert only(events, ev.AnswerCompleted)[0].support is Support.NOT_BACKED


def test_the_model_saying_the_lines_do_not_show_it_starts_the_second_stage(tools):
    said = "The lines shown do not state the default length (notekeeper/config.py:12)."
    model = ScriptedModel([said, "The default is 500 (notekeeper/config.py:12)."])
    events = run(model, tools)
    model.assert_all_used()
    assert model.requests[1].messages[-1]["content"].startswith(prompts.MISSING_ANSWER.format(question=QUESTION))
    assert only(events, ev.AnswerCompleted)[0].text.startswith("The default is 500")


def test_a_second_answer_that_only_says_it_found_nothing_leaves_the_first(tools):
    model = ScriptedModel([UNBACKED, "I could not find it in the code."])
    events = run(model, tools)
    model.assert_all_used()
    [answer] = only(events, ev.AnswerCompleted)
    assert answer.text.startswith(UNBACKED) and answer.support is Support.NOT_BACKED
    assert events[-1].reason is StopReason.ANSWERED


def test_a_second_answer_the_lines_back_less_leaves_the_first(tools):
    partly = "The default is 500, `DEFAULT_MAX_NOTE_LENGTH`, set by `NOTE_LIMIT`."
    model = ScriptedModel([partly, "It is whatever the user configures in their shell profile."])
    events = run(model, tools)
    model.assert_all_used()
    [answer] = only(events, ev.AnswerCompleted)
    assert answer.text.startswith(partly) and answer.support is Support.PARTLY


def test_the_step_budget_ends_the_second_stage_with_the_first_answer(tools):
    model = ScriptedModel([UNBACKED, call("search_code", query="note length"),
                           call("read_file", path="notekeeper/config.py")])
    events = run(model, tools, max_steps=3)
    model.assert_all_used()
    assert [r.force_answer for r in model.requests] == [False, False, True]
    [answer] = only(events, ev.AnswerCompleted)
    assert answer.text.startswith(UNBACKED) and events[-1].reason is StopReason.STEP_BUDGET


def test_after_enough_calls_the_second_stage_must_answer(tools):
    model = ScriptedModel([UNBACKED, call("search_code", query="note length"),
                           call("read_file", path="notekeeper/config.py"), "500 (notekeeper/config.py:12)."])
    run(model, tools, acting_max_calls=2)
    model.assert_all_used()
    assert [r.force_answer for r in model.requests] == [False, False, False, True]


def test_a_follow_up_about_the_previous_answer_opens_its_lines_instead_of_searching(tools):
    model = ScriptedModel(["`load_config` is defined in notekeeper/config.py:29.",
                           call("find_references", symbol="load_config"),
                           "It is called by `main` (notekeeper/cli.py:28)."])
    settings = Settings(n_threads=1, tool_policy="retrieval")
    first = only(list(run_question("Where is load_config defined?", tools=tools, model=model,
                                   settings=settings)), ev.AnswerCompleted)[0]
    follow = list(run_question("Who calls it?", tools=tools, model=model, settings=settings,
                               history=first.transcript))
    model.assert_all_used()
    asked = model.requests[1]
    assert asked.messages[-1]["content"] == "\n".join([
        prompts.PREVIOUS_CITED.format(spans="notekeeper/config.py:29"),
        prompts.PREVIOUS_NAMED.format(names="`load_config`"),
        f"{prompts.QUESTION_HEADER} Who calls it?\n{prompts.FOLLOW_UP_CALL}"])
    assert names(asked) == ["find_references"] and asked.require_tool  # who calls it: the references
    assert not [e for e in only(follow, ev.ToolCallCompleted) if e.step == 0]  # no search for "who calls it"
    assert not model.requests[2].require_tool
    [answer] = only(follow, ev.AnswerCompleted)
    assert answer.support is Support.BACKED
    # the model's own citation, then the line that states its claim (`main`), which the range missed
    assert answer.citations == (LineSpan("notekeeper/cli.py", 28, 28), LineSpan("notekeeper/cli.py", 26, 26))


def test_a_follow_up_asking_for_more_of_the_cited_lines_may_read_them(tools):
    model = ScriptedModel(["`load_config` is defined in notekeeper/config.py:29.",
                           call("read_file", path="notekeeper/config.py", start_line=29),
                           "It ends by returning a `Config` (notekeeper/config.py:38)."])
    settings = Settings(n_threads=1, tool_policy="retrieval")
    first = only(list(run_question("Where is load_config defined?", tools=tools, model=model,
                                   settings=settings)), ev.AnswerCompleted)[0]
    follow = list(run_question("Show me the rest of that function", tools=tools, model=model,
                               settings=settings, history=first.transcript))
    model.assert_all_used()
    assert set(names(model.requests[1])) == set(FOLLOW_UP_TOOLS) and model.requests[1].require_tool
    assert only(follow, ev.AnswerCompleted)[0].citations == (LineSpan("notekeeper/config.py", 38, 38),)


def test_a_follow_up_that_names_its_subject_is_searched_for(tools):
    model = ScriptedModel(["`load_config` is defined in notekeeper/config.py:29.", "It is `nano`."])
    settings = Settings(n_threads=1, tool_policy="retrieval", second_stage=False)
    first = only(list(run_question("Where is load_config defined?", tools=tools, model=model,
                                   settings=settings)), ev.AnswerCompleted)[0]
    follow = list(run_question("Which editor opens a note by default?", tools=tools, model=model,
                               settings=settings, history=first.transcript))
    assert [e.name for e in only(follow, ev.ToolCallCompleted) if e.step == 0] == ["search_code"]
    assert model.requests[1].tools == ()


def test_the_sources_the_harness_found_are_in_the_chat_for_the_next_question(tools):
    model = ScriptedModel(["The default is 500."])
    [answer] = only(run(model, tools), ev.AnswerCompleted)
    assert answer.evidence_added
    assert answer.transcript[-1] == {"role": "assistant", "content": "The default is 500.\n\nSources: "
                                     + ", ".join(map(str, answer.citations))}


def test_what_a_call_after_the_first_answer_shows_is_capped_and_the_stage_answers_briefly(tools):
    model = ScriptedModel([UNBACKED, call("read_file", path="notekeeper/store.py", max_lines=500),
                           "500 (notekeeper/config.py:12)."])
    events = run(model, tools, acting_read_lines=5, acting_max_calls=1)
    model.assert_all_used()
    [read] = [e for e in only(events, ev.ToolCallCompleted) if e.step == 2]
    assert read.arguments["max_lines"] == 5 and "cut: showed lines 1-5" in read.content
    assert [r.max_tokens for r in model.requests] == [Settings().max_answer_tokens, 256, 256]


def test_a_search_in_the_second_stage_lists_fewer_chunks(tools):
    model = ScriptedModel([UNBACKED, call("search_code", query="note length"), "500 (notekeeper/config.py:12)."])
    events = run(model, tools, acting_read_lines=60, acting_max_calls=1)
    [search] = [e for e in only(events, ev.ToolCallCompleted) if e.step == 2]
    assert search.arguments["limit"] == 3

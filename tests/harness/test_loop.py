"""The loop with a scripted model and the real workspace, tools and executor in between."""

from __future__ import annotations

import json
import threading
from contextlib import contextmanager
from pathlib import Path

from app.harness import events as ev
from app.harness import headers, prompts
from app.harness.events import StopReason
from app.harness.loop import run_question
from app.harness.verdict import Support
from app.llm.base import ParsedReply, ParsedToolCall, TurnEnd
from app.llm.dialects import dialect_for_template
from app.llm.scripted import ScriptedModel
from app.settings import Settings
from app.values import LineSpan


def call(name: str, call_id: str = "", **arguments: object) -> ParsedToolCall:
    raw = json.dumps(arguments)
    return ParsedToolCall(name=name, arguments=dict(arguments), raw_arguments=raw, id=call_id)


def calls(*items: ParsedToolCall, text: str = "") -> ParsedReply:
    return ParsedReply(text, tuple(items))


def listed_under(prompt: str, header: str) -> str:
    """The block of a first prompt under `header`, up to the next blank line."""
    return prompt.split(header, 1)[1].split("\n\n", 1)[0]


@contextmanager
def workspace_tools(tmp_path: Path, files: dict[str, str]):
    """A workspace of `files` in tmp_path, its tools and the settings that answer after the reads."""
    from app.harness.calls import ToolExecutor
    from app.workspace import Workspace

    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    settings = Settings(n_threads=1, force_answer_after_read="always")
    with Workspace(tmp_path, settings) as workspace:
        yield ToolExecutor(workspace, settings), settings


def run(model: ScriptedModel, tools, settings: Settings, question: str = "What is the default note length?",
        cancel: threading.Event | None = None) -> list:
    return list(run_question(question, tools=tools, model=model, settings=settings, cancel=cancel))


def only(events: list, kind: type) -> list:
    return [e for e in events if isinstance(e, kind)]


def streamed_text(events: list) -> str:
    return "".join(e.text for e in only(events, ev.ModelTextStreamed))


def test_several_steps_then_an_answer_with_a_kept_citation(tools, settings):
    model = ScriptedModel([
        calls(call("search_text", pattern="MAX_NOTE_LENGTH")),
        calls(call("read_file", path="notekeeper/config.py", start_line=1, max_lines=20)),
        "The default is 500 characters (notekeeper/config.py:12-12).",
    ])
    events = run(model, tools, settings)
    model.assert_all_used()
    answer = only(events, ev.AnswerCompleted)[0]
    assert answer.citations == (LineSpan("notekeeper/config.py", 12, 12),)
    assert "notekeeper/config.py:12-12" in answer.text and not answer.evidence_added
    assert events[-1] == ev.RunStopped(StopReason.ANSWERED, prompts.stop_message(StopReason.ANSWERED), 3,
                                       events[-1].usage)
    tool_messages = [m for m in model.requests[2].messages if m["role"] == "tool"]
    assert "DEFAULT_MAX_NOTE_LENGTH = 500" in tool_messages[-1]["content"]


def test_first_prompt_has_layout_readme_and_known_paths(tools, settings):
    model = ScriptedModel(["It keeps notes (README.md:3-4)."])
    events = run(model, tools, settings, question="What does this project do?")
    first = model.requests[0]
    assert first.messages[0] == {"role": "system", "content": prompts.SYSTEM_PROMPT}  # the same for all
    question = first.messages[1]
    assert "notekeeper/" in question["content"] and "pyproject.toml" in question["content"]  # layout
    assert question["role"] == "user" and len(first.messages) == 2
    assert "small command-line tool for keeping short text notes" in question["content"]  # README start
    assert question["content"].endswith(f"\n\nQuestion: What does this project do?\n{prompts.ANSWER_FROM_READS}")
    assert "notekeeper/config.py" in first.known_paths and "README.md" in first.known_paths
    assert only(events, ev.AnswerCompleted)[0].citations == (LineSpan("README.md", 3, 4),)


def test_parallel_calls_are_all_run_and_matched_by_id(tools, settings):
    model = ScriptedModel([
        calls(call("read_file", "a1", path="notekeeper/store.py"),
              call("read_file", "b2", path="pyproject.toml")),
        "Done.",
    ])
    events = run(model, tools, settings)
    done = only(events, ev.ToolCallCompleted)
    assert [(e.call_id, e.ok) for e in done if e.step == 1] == [("a1", True), ("b2", True)]
    messages = model.requests[1].messages
    assert [c["id"] for c in messages[-3]["tool_calls"]] == ["a1", "b2"]
    assert messages[-2]["tool_call_id"] == "a1" and "NOTES_FILE" in messages[-2]["content"]
    assert messages[-1]["tool_call_id"] == "b2" and 'version = "0.3.1"' in messages[-1]["content"]


def test_bad_calls_come_back_as_tool_errors_and_the_run_goes_on(tools, settings):
    bad_json = ParsedToolCall("read_file", {}, '{"path": "README.md"', "x1")
    model = ScriptedModel([
        calls(call("delete_file", path="README.md"), bad_json, call("read_file", path="no/such.py")),
        "I could not read it.",
    ])
    events = run(model, tools, settings)
    refused = only(events, ev.ToolCallRefused)
    assert {e.name for e in refused} == {"delete_file", "read_file"}
    failed = [e for e in only(events, ev.ToolCallCompleted) if e.step == 1]
    assert len(failed) == 1 and not failed[0].ok
    results = [m["content"] for m in model.requests[1].messages if m["role"] == "tool"]
    assert len(results) == 3 and all(results)
    assert events[-1].reason == "answered"


def test_a_repeated_call_is_told_then_an_answer_is_forced(tools, settings):
    read = call("read_file", path="notekeeper/cli.py")
    model = ScriptedModel([calls(read), calls(read), "It has add, list, search and delete."])
    events = run(model, tools, settings)
    refused = only(events, ev.ToolCallRefused)
    assert len(refused) == 1 and refused[0].message == prompts.REPEATED_CALL.format(name="read_file")
    forced = model.requests[2].messages  # the repeat and its refusal left out: the read's result is last
    assert forced[-1]["role"] == "tool" and forced[-1]["content"].startswith("notekeeper/cli.py")
    assert [r.force_answer for r in model.requests] == [False, False, True]
    assert only(events, ev.AnswerCompleted) and events[-1].reason == "repeated_call"


def test_repeating_again_when_forced_stops_the_run(tools, settings):
    read = call("read_file", path="notekeeper/cli.py")
    model = ScriptedModel([calls(read), calls(read), calls(read)])
    events = run(model, tools, settings)
    assert events[-1].reason == "repeated_call" and not only(events, ev.AnswerCompleted)


def test_the_step_budget_forces_the_last_turn_and_stops(tools):
    settings = Settings(n_threads=1, max_steps=2)
    model = ScriptedModel([calls(call("read_file", path="README.md")),
                           calls(call("read_file", path="pyproject.toml"))])
    events = run(model, tools, settings)
    assert [r.force_answer for r in model.requests] == [False, True]
    assert events[-1].reason == "step_budget" and events[-1].steps == 2
    assert "--max-steps" in events[-1].message


def test_cancelled_before_the_first_step(tools, settings):
    cancel = threading.Event()
    cancel.set()
    model = ScriptedModel(["never asked"])
    events = run(model, tools, settings, cancel=cancel)
    assert events[-1].reason == "cancelled" and model.requests == []


def test_cancelled_while_the_model_is_speaking(tools, settings):
    cancel = threading.Event()
    model = ScriptedModel(["one two three four five six seven eight nine ten " * 5], chunk_chars=4)
    events = []
    for event in run_question("q", tools=tools, model=model, settings=settings, cancel=cancel):
        events.append(event)
        if isinstance(event, ev.ModelTextStreamed):
            cancel.set()
    assert events[-1].reason == "cancelled" and not only(events, ev.AnswerCompleted)
    assert len(streamed_text(events)) < 40


def test_invalid_citations_are_cut_and_never_streamed(tools, settings):
    model = ScriptedModel([
        calls(call("read_file", path="notekeeper/config.py", start_line=10, max_lines=5)),
        "Default 500 (notekeeper/config.py:12) not notekeeper/config.py:40-48 nor path.txt:1-2 "
        "nor notekeeper/store.py:1-5.",
    ])
    events = run(model, tools, settings, question="Which editor opens a note?")
    answer = only(events, ev.AnswerCompleted)[0]
    assert answer.citations == (LineSpan("notekeeper/config.py", 12, 12),)
    for bad in ("config.py:40", "path.txt", "store.py:1"):
        assert bad not in answer.text and bad not in streamed_text(events)


def test_a_citation_to_lines_changed_since_they_were_read_is_dropped(tools, settings, project: Path):
    config = project / "notekeeper" / "config.py"

    class EditsBetweenTurns(ScriptedModel):
        def generate(self, request, cancel=None):
            if len(self.requests) == 1:  # the user edits the file while the model thinks
                config.write_text(config.read_text().replace("500", "800"))
            yield from super().generate(request, cancel)

    model = EditsBetweenTurns([calls(call("read_file", path="notekeeper/config.py")),
                               "It is 500 (notekeeper/config.py:12)."])
    answer = only(run(model, tools, settings), ev.AnswerCompleted)[0]
    assert "config.py:12" not in answer.text.split("Sources:")[0]
    assert all(c.path != "notekeeper/config.py" for c in answer.citations)


def test_sources_added_when_the_model_cites_nothing_are_the_lines_it_used(tools, settings):
    model = ScriptedModel([calls(call("read_file", path="pyproject.toml", max_lines=12)),
                           "The project uses the MIT license."])
    answer = only(run(model, tools, settings), ev.AnswerCompleted)[0]
    assert answer.evidence_added and answer.citations == (LineSpan("pyproject.toml", 10, 10),)
    assert answer.text.endswith("Sources: pyproject.toml:10") and answer.support is Support.BACKED


def test_an_answer_nothing_read_backs_gets_no_sources_and_says_so(tools, settings):
    """Issue 12/14: unrelated lines are never attached as Sources to a made-up answer."""
    model = ScriptedModel([calls(call("read_file", path="pyproject.toml", max_lines=12)),
                           "Passwords are hashed with bcrypt before they are stored."])
    answer = only(run(model, tools, settings), ev.AnswerCompleted)[0]
    assert answer.citations == () and answer.support is Support.NOT_BACKED
    assert "Sources:" not in answer.text and answer.text == answer.answer  # the verdict is its own field
    assert answer.closest  # with the lines the user can look at instead


def test_invented_files_and_symbols_are_named_as_unverified(tools, settings):
    model = ScriptedModel([calls(call("read_file", path="notekeeper/config.py")),
                           "The limit is in `cmd/tasks.go`, checked by `UserCredentials.validate()` "
                           "and by `load_config` in notekeeper/config.py."])
    answer = only(run(model, tools, settings), ev.AnswerCompleted)[0]
    assert answer.unverified == ("cmd/tasks.go", "UserCredentials.validate")
    assert "Not found in this workspace: `cmd/tasks.go`, `UserCredentials.validate`." in answer.text
    assert answer.support is Support.PARTLY and answer.citations[0].path == "notekeeper/config.py"


def test_a_weak_model_is_made_to_answer_after_its_first_good_read(tools):
    settings = Settings(n_threads=1, force_answer_after_read="always")
    model = ScriptedModel([calls(call("read_file", path="pyproject.toml")), "0.3.1"])
    events = run(model, tools, settings, question="Which version?")
    assert [r.force_answer for r in model.requests] == [False, True]
    assert model.requests[1].messages[-1]["role"] == "tool"
    assert events[-1].reason == "answered"


def test_huge_files_are_elided_to_fit_a_small_context(project: Path):
    from app.harness.calls import ToolExecutor
    from app.workspace import Workspace

    for i in range(3):
        (project / f"huge{i}.txt").write_text("".join(f"line {n} of huge file {i} " * 4 + "\n" for n in range(3000)))
    settings = Settings(n_threads=1, n_ctx=2304, context_reserve_tokens=512,
                        read_max_lines=3000, read_max_bytes=400_000, read_max_line_chars=400)
    model = ScriptedModel([calls(call("read_file", path=f"huge{i}.txt")) for i in range(3)] + ["done"],
                          context_length=2304)
    with Workspace(project, settings) as workspace:
        events = list(run_question("q", tools=ToolExecutor(workspace, settings), model=model,
                                   settings=settings))
    assert only(events, ev.ContextElided)
    assert all(p.tokens <= 2304 - 512 for p in only(events, ev.PromptRendered))
    assert events[-1].reason == "answered"
    last_results = [m["content"] for m in model.requests[-1].messages if m["role"] == "tool"]
    assert "elided" in last_results[0] and "line 0 of huge file 2" in last_results[-1]


def test_a_reply_looping_on_itself_is_cut_where_the_loop_began(tools, settings):
    loop = "Note that it is a Python script that keeps notes in a JSON file. "
    model = ScriptedModel(["It keeps notes (README.md:3). " + loop * 40])
    events = run(model, tools, settings, question="What does notekeeper do?")  # the README is read for it
    answer = only(events, ev.AnswerCompleted)[0]
    assert answer.text == "It keeps notes (README.md:3). " + loop.strip()
    assert len(streamed_text(events)) < 5 * len(loop)  # the model was stopped, not read to the end
    assert events[-1].reason == "answered"


def test_a_reply_copying_the_prompt_back_is_stopped_and_not_backed(tools, settings):
    copy = "```\nThe project folder contains:\n" + "".join(f"notekeeper/{w}_{n}.py\n" for n in range(40)
                                                          for w in ("store", "cli")) + "```\n"
    model = ScriptedModel(["It keeps notes. The lines are:\n" + copy])
    events = run(model, tools, settings)
    answer = only(events, ev.AnswerCompleted)[0]
    assert answer.text == "It keeps notes."
    assert len(streamed_text(events)) < 200  # the model was stopped, not read to the end
    assert answer.support is Support.NOT_BACKED


def test_the_first_prompt_holds_the_index_chunks_that_answer(tools):
    settings = Settings(n_threads=1, force_answer_after_read="always")
    model = ScriptedModel(["500 (notekeeper/config.py:12)."])
    events = run(model, tools, settings, question="What is the default maximum note length?")
    first = model.requests[0].messages[-1]["content"]
    assert headers.INDEX_HEADER in first and "\nnotekeeper/config.py:9-14\n" in first  # from its first code line
    assert "\nDEFAULT_MAX_NOTE_LENGTH = 500\n" in first and "| DEFAULT_MAX" not in first  # unnumbered
    assert [e.name for e in only(events, ev.ToolCallCompleted)] == ["search_code"]  # through the executor
    assert only(events, ev.AnswerCompleted)[0].citations == (LineSpan("notekeeper/config.py", 12, 12),)


def test_tools_are_offered_only_as_the_tool_policy_says(tools):
    for policy, offered, required in (("retrieval", False, False), ("offered", True, False),
                                      ("first_call", True, True)):
        settings = Settings(n_threads=1, force_answer_after_read="always", tool_policy=policy)
        model = ScriptedModel(["MIT (pyproject.toml:10)."])
        run(model, tools, settings, question="Which license?")
        assert bool(model.requests[0].tools) is offered
        assert model.requests[0].require_tool is required


def test_auto_policy_is_the_catalogs_measured_one_else_the_dialects_default():
    from app.harness.loop import tool_policy

    auto = Settings(n_threads=1)
    assert tool_policy(auto, ScriptedModel([], dialect=dialect_for_template(None))) == "retrieval"
    assert tool_policy(auto, ScriptedModel([])) == "offered"  # a native dialect
    assert tool_policy(Settings(n_threads=1, tool_policy="first_call"), ScriptedModel([])) == "first_call"


def test_whether_a_model_has_native_calls_is_asked_of_the_model_not_read_from_its_dialect_name():
    from app.harness.loop import tool_policy
    from app.settings import ToolPolicy

    class Plain(ScriptedModel):
        native_tool_calls = False  # a model that says it has none, whatever its dialect is called

    auto = Settings(n_threads=1)
    assert tool_policy(auto, Plain([])) is ToolPolicy.RETRIEVAL and ScriptedModel([]).dialect_name != "generic"
    assert tool_policy(auto, ScriptedModel([])) is ToolPolicy.OFFERED
    assert Settings(n_threads=1, tool_policy="offered").tool_policy is ToolPolicy.OFFERED


def test_first_call_policy_requires_a_call_only_until_one_has_run(tools):
    settings = Settings(n_threads=1, tool_policy="first_call")
    model = ScriptedModel([
        '<tool_call>\n{"name": "read_file", "arguments": {"path": "README.md"}}\n</tool_call>',
        "It keeps notes (README.md:1-3).",
    ], dialect=dialect_for_template(None))
    run(model, tools, settings, question="What does it do?")
    assert [r.require_tool for r in model.requests] == [True, False]


def test_a_full_context_reported_by_the_model_stops_with_the_context_budget(tools, settings):
    """The backend ends a turn with TurnEnd.CONTEXT_FULL (the prompt plus the reply filled the
    window): the run stops for the context budget, never as 'answered' with a made-up answer."""
    model = ScriptedModel([TurnEnd.CONTEXT_FULL])
    events = run(model, tools, settings)
    assert events[-1].reason is StopReason.CONTEXT_BUDGET
    assert not only(events, ev.AnswerCompleted)
    assert events[-1].message == prompts.STOP_MESSAGES[StopReason.CONTEXT_BUDGET]


def test_every_stop_reason_has_its_words():
    assert set(prompts.STOP_MESSAGES) == set(StopReason)
    for reason in StopReason:
        assert prompts.stop_message(reason, steps=3, detail="x").strip()


def test_a_follow_up_sees_the_earlier_question_answer_and_results(tools, settings):
    """A chat: the second question's prompt holds the first one's turns exactly as they were, so
    the backend only evaluates the new turn."""
    model = ScriptedModel([calls(call("read_file", path="notekeeper/config.py")),
                           "The limit is 500 (notekeeper/config.py:12).", "It is DEFAULT_MAX_NOTE_LENGTH."])
    first = only(run(model, tools, settings, question="What is the note limit?"), ev.AnswerCompleted)[0]
    follow = list(run_question("Which constant holds the note limit?", tools=tools, model=model,
                               settings=settings, history=first.transcript, chat_id="chat-1"))
    earlier = model.requests[1].messages  # the last request of the first question
    again = model.requests[2].messages
    assert again[1:len(earlier)] == earlier[1:]  # the same turns, in the same order
    assert again[len(earlier)]["content"] == "The limit is 500 (notekeeper/config.py:12)."
    assert again[-1]["content"].endswith(f"Question: Which constant holds the note limit?\n{prompts.ANSWER_FROM_READS}")
    assert follow[0].chat_id == "chat-1" and follow[-1].reason is StopReason.ANSWERED


def test_the_index_chunks_in_the_first_prompt_stay_within_their_token_budget(tools):
    model = ScriptedModel(["500."])
    settings = Settings(n_threads=1, intro_index_tokens=60)
    events = run(model, tools, settings, question="What is the default maximum note length?")
    first = model.requests[0].messages[-1]["content"]
    shown = first.split(headers.INDEX_HEADER, 1)[1].split("\n\nQuestion:", 1)[0].strip()
    assert 0 < model.count_tokens(shown) <= 60 and shown.startswith("notekeeper/config.py:9-")
    assert "\nDEFAULT_MAX_NOTE_LENGTH = 500\n" in shown
    read = only(events, ev.ToolCallCompleted)[0]
    assert read.spans and read.spans[0].end_line < 14  # the first chunk, cut to fit


def test_a_readme_in_any_case_is_the_readme(tools, project):
    (project / "README.md").rename(project / "Readme.md")
    settings = Settings(n_threads=1)
    model = ScriptedModel(["It keeps notes."])
    events = run(model, tools, settings, question="What does this project do?")
    assert any(e.name == "read_file" and e.arguments["path"] == "Readme.md"
               for e in only(events, ev.ToolCallCompleted))


def test_without_a_readme_a_question_about_the_whole_reads_the_manifest_and_entry_module(tmp_path):
    """A package with no README (a monorepo's npm package, private code): its manifest's start and
    its entry module's doc comment are what says what it is; before, the first prompt held nothing."""
    files = {"package.json": '{\n  "name": "form-core",\n  "description": "Type-safe form state."\n}\n',
             "src/index.ts": "// Form state for any framework.\nexport * from './FormApi'\n",
             "src/FormApi.ts": "export class FormApi {}\n"}
    with workspace_tools(tmp_path, files) as (tools, settings):
        model = ScriptedModel(["It manages type-safe form state (package.json:3)."])
        events = run(model, tools, settings, question="What does this project do?")
    read = [e.arguments["path"] for e in only(events, ev.ToolCallCompleted) if e.name == "read_file"]
    assert read == ["package.json", "src/index.ts"]
    question = model.requests[0].messages[1]["content"]
    assert '"description": "Type-safe form state."' in question and "Form state for any framework." in question
    assert only(events, ev.AnswerCompleted)[0].support is not Support.NOT_BACKED


def test_a_question_about_importing_the_package_reads_its_entry_fields_and_entry_module(tmp_path):
    """A user's check on @noble/hashes: "What happens if I do `import '@noble/hashes'` (the root
    module)?" showed five chunks of utils and blake3, none of the root module, which throws on its
    33rd line; js-yaml's "Do require('js-yaml') and import from 'js-yaml' load the same file?"
    showed no line of the export map. What an import gets is in the manifest's entry fields and
    the entry module: both are read, the module's start past its doc comment."""
    doc = "".join(f" * import {{ h{n} }} from '@noble/hashes/h{n}.js';\n" for n in range(30))
    files = {"package.json": '{\n  "name": "@noble/hashes",\n  "exports": {\n    ".": "./index.js",\n'
                             '    "./sha2.js": "./sha2.js"\n  },\n  "main": "index.js",\n  "license": "MIT"\n}\n',
             "src/index.ts": f"/**\n{doc} */\nthrow new Error('root module cannot be imported');\n",
             "src/sha2.ts": "export function sha256(msg: Uint8Array) { return msg }\n"}
    question = "What happens if I do `import '@noble/hashes'` (the root module)? Why?"
    with workspace_tools(tmp_path, files) as (tools, settings):
        model = ScriptedModel(["It throws: the root module cannot be imported."])
        events = run(model, tools, settings, question=question)
    done = only(events, ev.ToolCallCompleted)
    assert [(e.name, e.arguments.get("path")) for e in done][:2] == [("search_text", "package.json"),
                                                                       ("read_file", "src/index.ts")]
    shown = model.requests[0].messages[1]["content"]
    assert 'package.json:3-7\n```\n"exports": {\n".": "./index.js",\n…\n"main": "index.js",\n```' in shown
    assert [span.start_line for span in done[0].spans] == [3, 4, 7]  # the entry fields only
    assert "throw new Error('root module cannot be imported');" in shown
    # a question that imports nothing reads neither
    with workspace_tools(tmp_path / "again", files) as (tools, settings):
        model = ScriptedModel(["In src/sha2.ts."])
        events = run(model, tools, settings, question="Which file defines sha256, and how is it imported?")
    assert "search_text" not in [e.name for e in only(events, ev.ToolCallCompleted)]


def test_the_entry_module_is_the_one_the_manifest_names(tmp_path):
    """flatted ships a browser bundle `index.js` at its root; `require('flatted')` gets
    `"main": "./cjs/index.js"`, whose start is the one worth showing."""
    files = {"package.json": '{\n  "name": "flatted",\n  "main": "./cjs/index.js",\n  "exports": {\n'
                             '    ".": {\n      "import": "./esm/index.js",\n      "default": "./cjs/index.js"\n'
                             '    }\n  }\n}\n',
             "index.js": "self.Flatted = (function (exports) {})({});\n",
             "cjs/index.js": "'use strict';\nconst {parse: $parse, stringify: $stringify} = JSON;\n",
             "esm/index.js": "const {parse: $parse, stringify: $stringify} = JSON;\n"}
    with workspace_tools(tmp_path, files) as (tools, settings):
        events = run(ScriptedModel(["cjs/index.js."]), tools, settings,
                     question="Which file do I get when I require('flatted') versus import it?")
    reads = [(e.name, e.arguments.get("path")) for e in only(events, ev.ToolCallCompleted)]
    assert reads[:2] == [("search_text", "package.json"), ("read_file", "cjs/index.js")]


def test_a_python_package_without_readme_shows_its_package_docstring(tmp_path):
    files = {"setup.cfg": "[metadata]\nname = hooks\n", "tests/__init__.py": "",
             "src/hooks/__init__.py": '"""Hook calling for plugins."""\n', "src/hooks/sub/__init__.py": ""}
    with workspace_tools(tmp_path, files) as (tools, settings):
        events = run(ScriptedModel(["Plugins."]), tools, settings, question="What is this project?")
    read = [e.arguments["path"] for e in only(events, ev.ToolCallCompleted) if e.name == "read_file"]
    assert read == ["setup.cfg", "src/hooks/__init__.py"]


README_WITH_BADGES = """# Gadget

[![npm version](https://img.shields.io/npm/v/gadget.svg)](https://www.npmjs.com/package/gadget)
<p align="center"><img src="logo.png" width="120"></p>

**A tiny toolkit for parsing gadget files**

## Installation

```bash
# npm
npm install gadget
```

## Purpose

Gadget turns gadget files into plain objects.

## License

MIT
"""


def test_a_readme_shows_what_the_project_is_not_its_badges_or_install_steps(tmp_path):
    """A user's check on @reduxjs/toolkit: three badge lines and an Installation section filled the
    README's start, and the 1.5B called the project "a template" from the install command."""
    files = {"README.md": README_WITH_BADGES, "src/index.js": "export function parse(text) {}\n"}
    with workspace_tools(tmp_path, files) as (tools, settings):
        model = ScriptedModel(["It parses gadget files into plain objects (README.md:17)."])
        events = run(model, tools, settings, question="What does this project do?")
    shown = model.requests[0].messages[1]["content"]
    assert "A tiny toolkit for parsing gadget files" in shown and "Gadget turns gadget files into" in shown
    for gone in ("img.shields.io", "logo.png", "npm install gadget", "## Installation", "MIT"):
        assert gone not in shown
    read = next(e for e in only(events, ev.ToolCallCompleted) if e.name == "read_file")
    assert read.spans == (LineSpan("README.md", 1, 2), LineSpan("README.md", 5, 7), LineSpan("README.md", 15, 18))


def test_an_rst_readme_loses_its_image_directives_and_install_section(tmp_path):
    readme = ("pluggy\n======\n\n.. image:: https://img.shields.io/pypi/v/pluggy.svg\n"
              "    :target: https://pypi.org/project/pluggy\n\nA plugin system for Python.\n\n"
              "Installing\n----------\n\npip install pluggy\n\nHow it works\n------------\n\nHooks call plugins.\n")
    with workspace_tools(tmp_path, {"README.rst": readme}) as (tools, settings):
        model = ScriptedModel(["A plugin system."])
        run(model, tools, settings, question="What does this project do?")
    shown = model.requests[0].messages[1]["content"]
    assert "A plugin system for Python." in shown and "Hooks call plugins." in shown
    assert "img.shields.io" not in shown and ":target:" not in shown and "pip install" not in shown


def test_an_empty_reply_is_no_answer_the_model_is_asked_for_one_in_words(tools, settings):
    """Qwen 1.5B, in a follow-up, looked a name up, found no use of it and said nothing: the run
    ended with an empty answer. Now an answer in words is asked for; a second silence stops the run
    with a reason, not an empty answer."""
    settings = settings.model_copy(update={"force_answer_after_read": "never"})
    model = ScriptedModel([calls(call("search_text", pattern="MAX_NOTE_LENGTH")), "",
                           "The default is 500 (notekeeper/config.py:12)."])
    events = run(model, tools, settings)
    model.assert_all_used()
    assert model.requests[-1].force_answer
    assert only(events, ev.AnswerCompleted)[0].text.startswith("The default is 500")
    silent = ScriptedModel([calls(call("search_text", pattern="MAX_NOTE_LENGTH")), "", "  "])
    events = run(silent, tools, settings)
    assert not only(events, ev.AnswerCompleted)
    assert events[-1].reason is StopReason.NO_ANSWER


def test_a_forced_answer_does_not_see_the_calls_that_were_refused(tools, settings):
    """Qwen 0.5B sometimes calls a tool named after a file, then repeats it; the forced answer's
    prompt leaves those refused turns out, so the model answers the question, not its mistakes."""
    bogus = call("notekeeper/config.py", "b1", path="config.py")
    again = call("notekeeper/config.py", "b2", path="config.py")
    model = ScriptedModel([calls(bogus), calls(again), "MIT (pyproject.toml:10)."])
    events = run(model, tools, settings, question="Which license?")
    forced = model.requests[-1]
    assert forced.force_answer and only(events, ev.AnswerCompleted)
    assert not any(m.get("tool_calls") or m["role"] == "tool" for m in forced.messages)
    assert len(model.requests[1].messages) > len(forced.messages)  # the refusal was shown before


def test_a_reply_that_is_a_call_the_harness_cannot_run_is_not_the_answer(tools, settings):
    """Qwen 0.5B sometimes writes a fenced call object with a made-up tool name (or the question as
    the name) instead of answering: that text is no answer; the next turn must answer in words."""
    attempt = '```json\n{"name": "find_dotenv", "arguments": {"path": "notekeeper/config.py"}}\n```'
    model = ScriptedModel([attempt, "The default is 500 characters (notekeeper/config.py:12-12)."])
    events = run(model, tools, settings)
    model.assert_all_used()
    assert [r.force_answer for r in model.requests] == [False, True]
    assert attempt not in [m.get("content") for m in model.requests[1].messages]
    answer = only(events, ev.AnswerCompleted)[0]
    assert answer.text.startswith("The default is 500") and "find_dotenv" not in answer.text
    assert events[-1].reason == "answered"


def test_a_call_shaped_reply_when_an_answer_was_forced_is_no_answer(tools, settings):
    """Only a free turn is retried. A forced turn cannot open with `{` under our grammar, but a
    server's model can (no grammar there): the JSON is not shown as an answer, the run says so."""
    attempt = '{"name": "read_file", "arguments": "{\\"path\\": \\"notekeeper/cli.py\\"}"}'
    model = ScriptedModel(["```json\n" + attempt + "\n```", attempt])
    events = run(model, tools, settings)
    assert [r.force_answer for r in model.requests] == [False, True]
    assert not only(events, ev.AnswerCompleted)
    assert events[-1].reason == StopReason.NO_ANSWER and "no answer" in events[-1].message


def test_a_chunk_is_shown_as_its_range_and_fenced_lines_numbered_only_when_asked():
    from app.harness.first_prompt import chunk_block
    from app.tools.base import TextHit

    lines = [TextHit(LineSpan("src/app.py", n, n), t) for n, t in ((7, "def main():"), (8, "    return 1"))]
    assert chunk_block(lines, numbered=False) == "src/app.py:7-8\n```python\ndef main():\n    return 1\n```"
    assert "\n7| def main():\n8|     return 1\n" in chunk_block(lines, numbered=True)
    doc = [TextHit(LineSpan("README.md", 3, 3), "```sh"), TextHit(LineSpan("README.md", 4, 4), "```")]
    assert chunk_block(doc, numbered=False) == "README.md:3-4\n````\n```sh\n```\n````"  # a longer fence


def test_numbered_chunk_lines_are_a_setting(tools):
    for numbered in (False, True):
        model = ScriptedModel(["500."])
        run(model, tools, Settings(n_threads=1, intro_numbered_lines=numbered),
            question="What is the default maximum note length?")
        first = model.requests[0].messages[-1]["content"]
        assert ("\n12| DEFAULT_MAX_NOTE_LENGTH = 500\n" in first) is numbered


def test_a_question_with_nothing_read_for_it_is_asked_as_it_is(tools):
    from app.harness.first_prompt import question_message

    assert question_message("Why?", "", []) == {"role": "user", "content": "Why?"}
    layout_only = question_message("Why?", "workspace x/", [])["content"]
    assert layout_only.endswith("Question: Why?") and prompts.ANSWER_FROM_READS not in layout_only


def test_answer_samples_ask_the_first_prompt_again_each_with_its_own_seed(tools, settings):
    """answer_samples: after the answer, the same prompt again at sample_temperature; the samples
    are reported (not streamed), the answer stays the first one, and a record keeps them."""
    from app.harness.records import event_from_dict, event_to_dict

    first = "The default is 500 characters (notekeeper/config.py:12-12)."
    sampling = settings.model_copy(update={"answer_samples": 2})
    model = ScriptedModel([first, "It is 500.", "Maybe 400."])
    events = run(model, tools, sampling)
    model.assert_all_used()
    sampled = only(events, ev.AnswerSampled)[0]
    assert sampled.samples == ("It is 500.", "Maybe 400.")
    asked, *again = model.requests
    assert [r.messages for r in again] == [asked.messages, asked.messages]
    assert [r.seed for r in again] == [sampling.seed + 1, sampling.seed + 2]
    assert {r.temperature for r in again} == {sampling.sample_temperature}
    assert {r.max_tokens for r in again} == {len(first) // 4 + 16}  # the scripted model's token count
    assert "500 characters" in only(events, ev.AnswerCompleted)[0].text
    assert "Maybe" not in streamed_text(events)
    assert event_from_dict(event_to_dict(sampled)) == sampled
    off = ScriptedModel([first])
    assert not only(run(off, tools, settings), ev.AnswerSampled) and len(off.requests) == 1


def test_a_sample_that_fails_leaves_the_answer(tools, settings):
    model = ScriptedModel(["The default is 500 characters (notekeeper/config.py:12-12).", TurnEnd.FAILED])
    events = run(model, tools, settings.model_copy(update={"answer_samples": 1}))
    assert only(events, ev.AnswerSampled)[0].samples == ()
    assert events[-1].reason is StopReason.ANSWERED and "500" in only(events, ev.AnswerCompleted)[0].text


def test_an_answer_that_was_only_an_unchecked_reference_says_so(tools, settings):
    """Cutting a citation nobody showed must not leave an empty answer."""
    events = run(ScriptedModel(["notekeeper/nowhere.py:3-9"]), tools, settings)
    answer = only(events, ev.AnswerCompleted)[0]
    assert answer.answer == prompts.ONLY_UNCHECKED.format(references="`notekeeper/nowhere.py:3-9`")
    assert answer.citations == () or answer.evidence_added


def test_a_callers_question_lists_the_calls_the_references_tool_found_before_the_chunks(tools):
    settings = Settings(n_threads=1, force_answer_after_read="always")
    model = ScriptedModel(["`load_config` is called in `main` (notekeeper/cli.py:28)."])
    events = run(model, tools, settings, question="What calls load_config?")
    first = model.requests[0].messages[-1]["content"]
    header = prompts.CALLERS_HEADER.format(name="load_config")
    listed = listed_under(first, header)
    # main's call first, the test's after it; the import line is no call
    assert listed.strip().splitlines() == [
        "- in `main`, notekeeper/cli.py:28: `config = load_config()`",
        "- in `test_missing_file_gives_defaults`, tests/check_config.py:7: "
        "`config = load_config(tmp_path / \"none.toml\")`"]
    assert first.index(header) < first.index(headers.INDEX_HEADER)
    assert [e.name for e in only(events, ev.ToolCallCompleted)] == ["find_references", "search_code"]
    answer = only(events, ev.AnswerCompleted)[0]
    assert answer.support is Support.BACKED  # `main` rests on its def line, shown with the call


def test_a_question_about_what_a_function_calls_gets_no_callers_list(tools):
    settings = Settings(n_threads=1, force_answer_after_read="always")
    model = ScriptedModel(["It reads the file."])
    run(model, tools, settings, question="What does load_config do?")
    assert "Calls to" not in model.requests[0].messages[-1]["content"]


def test_an_answer_that_leaves_out_callers_gets_the_rest_from_the_index_under_it(tools):
    settings = Settings(n_threads=1, force_answer_after_read="always")
    model = ScriptedModel(["It is called when the program starts."])
    answer = only(run(model, tools, settings, question="What calls load_config?"), ev.AnswerCompleted)[0]
    # the test's call is not said: a caller from the code is what the question is after
    assert [(c.span, c.text) for c in answer.left_out] == [(LineSpan("notekeeper/cli.py", 28, 28), "main")]
    assert answer.support is not Support.BACKED
    said = prompts.LEAVES_OUT_CALLERS.format(places="`main` (notekeeper/cli.py:28)")
    assert said in prompts.verdict_detail(answer)
    named = ScriptedModel(["`main` calls it (notekeeper/cli.py:28)."])
    answer = only(run(named, tools, settings, question="What calls load_config?"), ev.AnswerCompleted)[0]
    assert answer.left_out == () and said not in prompts.verdict_detail(answer)
    assert answer.support is Support.BACKED
    # the same kind of answer naming only the test's call: its claims are in the lines, yet it is not the answer
    only_test = ScriptedModel(["`test_missing_file_gives_defaults` calls `load_config` (tests/check_config.py:7)."])
    answer = only(run(only_test, tools, settings, question="What calls load_config?"), ev.AnswerCompleted)[0]
    assert answer.support is Support.PARTLY and [c.text for c in answer.left_out] == ["main"]


def test_an_answer_naming_every_caller_the_index_found_is_backed_by_those_calls(tools):
    """The callers' list is a deterministic fact, like the symbol table's: the answer's wording
    around the names (words no line holds) does not make it less right."""
    settings = Settings(n_threads=1, force_answer_after_read="always")
    wordy = ScriptedModel(["The function is invoked at one place: `main` at notekeeper/cli.py:28, which "
                           "happens whenever somebody launches the utility interactively."])
    answer = only(run(wordy, tools, settings, question="What calls load_config?"), ev.AnswerCompleted)[0]
    assert answer.support is Support.BACKED
    assert [(b.span, b.text) for b in answer.backing] == [(LineSpan("notekeeper/cli.py", 28, 28),
                                                            "config = load_config()")]
    # the same words about a question that is not about callers: nothing deterministic backs them
    other = ScriptedModel(["It is invoked at one place: `main` at notekeeper/cli.py:28, which "
                           "happens whenever somebody launches the utility interactively."])
    answer = only(run(other, tools, settings, question="What does load_config do?"), ev.AnswerCompleted)[0]
    assert answer.support is not Support.BACKED


FORMATTERS = {
    "json_formatter.go": "package logrus\n\n// JSONFormatter formats logs into parsable json.\n"
                         "type JSONFormatter struct {\n\tPrettyPrint bool\n}\n\n"
                         "func (f *JSONFormatter) Format(e *Entry) ([]byte, error) {\n"
                         "\treturn nil, nil\n}\n",
    "text_formatter.go": "package logrus\n\n// TextFormatter formats logs into text.\ntype TextFormatter struct {\n"
                         "\tDisableColors bool\n}\n",
    "formatter.go": "package logrus\n\n// The Formatter interface is used to implement a custom Formatter.\n"
                    "type Formatter interface {\n\tFormat(*Entry) ([]byte, error)\n}\n",
    "json_formatter_test.go": "package logrus\n\nfunc TestJSONFormatterPrettyPrint(t *testing.T) {}\n",
}


def test_a_which_file_answer_agrees_with_the_one_file_whose_definitions_the_question_describes(tmp_path):
    """"Which file defines the JSON formatter?" names no symbol; the symbol table's definitions that
    the description names (`JSONFormatter`, tests aside) are all in one file: the answer naming it
    is backed by that definition; one naming another file is not backed by the table."""
    question = "Which file defines the JSON formatter?"
    with workspace_tools(tmp_path, FORMATTERS) as (tools, settings):
        right = ScriptedModel(["The file that defines the JSON formatter is `json_formatter.go`."])
        answer = only(run(right, tools, settings, question=question), ev.AnswerCompleted)[0]
        assert answer.support is Support.BACKED
        assert any(b.span.path == "json_formatter.go" and "JSONFormatter" in b.text for b in answer.backing)
        wrong = ScriptedModel(["The file that defines the JSON formatter is `formatter.go`."])
        answer = only(run(wrong, tools, settings, question=question), ev.AnswerCompleted)[0]
        assert answer.support is not Support.BACKED


CACHES = {
    "lru.go": "package lru\n\n// Cache is a thread-safe fixed size LRU cache.\ntype Cache struct {\n\tlru int\n}\n",
    "2q.go": "package lru\n\n// TwoQueueCache is a thread-safe fixed size 2Q cache.\ntype TwoQueueCache struct {\n"
             "\trecent int\n}\n",
    "arc.go": "package lru\n\n// ARCCache is a thread-safe fixed size Adaptive Replacement Cache.\n"
              "type ARCCache struct {\n\tp int\n}\n\n// NewARC creates an ARC of the given size.\n"
              "func NewARC(size int) (*ARCCache, error) {\n\treturn &ARCCache{}, nil\n}\n",
}


def test_a_where_question_describing_a_definition_by_its_acronym_agrees_with_its_file(tmp_path):
    """A user's check on golang-lru: "Where is the ARC cache implemented?" answered "arc.go" (right)
    was partly backed: the subject's stems (4 letters or more) left only "cache", which names the
    definitions of three files. A short word in capitals is a part of the name described."""
    question = "Where is the ARC cache implemented?"
    with workspace_tools(tmp_path, CACHES) as (tools, settings):
        right = ScriptedModel(["The ARC cache is implemented in the `arc.go` file."])
        answer = only(run(right, tools, settings, question=question), ev.AnswerCompleted)[0]
        assert answer.support is Support.BACKED, answer.missing
        assert any(b.span.path == "arc.go" and "ARCCache" in b.text for b in answer.backing)
        wrong = ScriptedModel(["The ARC cache is implemented in the `2q.go` file."])
        answer = only(run(wrong, tools, settings, question=question), ev.AnswerCompleted)[0]
        assert answer.support is not Support.BACKED


UNCALLED = {
    "store.py": "def compact_notes(notes):\n    \"\"\"Drop empty notes.\"\"\"\n    return [n for n in notes if n]\n\n\n"
                "def save(notes, path):\n    path.write_text(\"\\n\".join(_rows(notes)))\n\n\n"
                "def _rows(notes):\n    return [n.strip() for n in notes]\n",
}


def test_a_callers_question_about_a_function_nothing_calls_is_told_so_and_judged_by_it(tmp_path):
    """The index defines `compact_notes` and no line calls or uses it: the first prompt says so with its
    definition (not the chunks alone, from which a small model named `save` as the caller); an
    answer saying nothing calls it is backed by the definition, one naming a caller is not backed."""
    with workspace_tools(tmp_path, UNCALLED) as (tools, settings):
        none = ScriptedModel(["Nothing in this workspace calls `compact_notes`; it is defined in store.py."])
        answer = only(run(none, tools, settings, question="What calls compact_notes?"), ev.AnswerCompleted)[0]
        first = none.requests[0].messages[-1]["content"]
        header = prompts.NO_CALLERS_HEADER.format(name="compact_notes")
        assert header in first and first.index(header) < first.index(headers.INDEX_HEADER)
        assert listed_under(first, header).strip() == "- store.py:1: `def compact_notes(notes):`"
        assert answer.support is Support.BACKED
        assert [(b.span, b.text) for b in answer.backing] == [(LineSpan("store.py", 1, 1), "def compact_notes(notes):")]
        named = ScriptedModel(["`compact_notes` is called by `save` (store.py:6-7)."])
        answer = only(run(named, tools, settings, question="What calls compact_notes?"), ev.AnswerCompleted)[0]
        assert answer.support is Support.NOT_BACKED
        assert "a call of compact_notes (the index found none)" in answer.missing
        assert prompts.FOUND_NOT_FOUND.format(found="save", missing="a call of compact_notes (the index found none)") \
            in prompts.verdict_detail(answer)  # said under the badge, as a partly backed answer's are
        assert [c.span for c in answer.closest][:2] == [LineSpan("store.py", 1, 1), LineSpan("store.py", 6, 6)]
        # a function that is called gets the calls, not the note
        called = ScriptedModel(["`save` calls `_rows` (store.py:7)."])
        answer = only(run(called, tools, settings, question="What calls _rows?"), ev.AnswerCompleted)[0]
        first = called.requests[0].messages[-1]["content"]
        assert prompts.CALLERS_HEADER.format(name="_rows") in first and "Nothing in this workspace calls" not in first
        assert answer.support is Support.BACKED


BUILT = {  # a package shipping its TypeScript and the build of it (@tanstack/virtual-core does)
    "src/index.ts": "export class Virtualizer {\n  measure(node: Element) {\n    this.resizeItem(node, 1)\n  }\n\n"
                    "  resizeItem(node: Element, size: number) {\n    return size\n  }\n\n"
                    "  observe(node: Element) {\n    this.resizeItem(node as Element, 2)\n  }\n}\n",
    "dist/esm/index.js": "class Virtualizer {\n  measure(node) {\n    this.resizeItem(node, 1);\n  }\n\n"
                         "  resizeItem(node, size) {\n    return size;\n  }\n\n"
                         "  observe(node) {\n    this.resizeItem(node, 2);\n  }\n}\nexport { Virtualizer };\n",
}


def test_a_callers_list_leaves_out_the_build_when_the_source_has_the_calls(tmp_path):
    """A build's calls differ from the source's in text (types dropped: `this.resizeItem(node, 2)` for
    `this.resizeItem(node as Element, 2)`), so the copy check kept them: a user's "what calls
    _measureElement?" listed dist/cjs and dist/esm beside src/index.ts."""
    with workspace_tools(tmp_path, BUILT) as (tools, settings):
        model = ScriptedModel(["`resizeItem` is called by `measure` and `observe` (src/index.ts:3, src/index.ts:11)."])
        answer = only(run(model, tools, settings, question="What calls resizeItem?"), ev.AnswerCompleted)[0]
        first = model.requests[0].messages[-1]["content"]
        listed = listed_under(first, prompts.CALLERS_HEADER.format(name="resizeItem"))
        assert [line.split(", ", 1)[0] for line in listed.strip().splitlines()] == [
            "- in `Virtualizer.measure`", "- in `Virtualizer.observe`"]
        assert "dist/" not in listed
        assert answer.support is Support.BACKED
        # only a build: its calls are the callers
        (tmp_path / "src" / "index.ts").unlink()
        model = ScriptedModel(["`resizeItem` is called by `measure` and `observe`."])
        run(model, tools, settings, question="What calls resizeItem?")
        first = model.requests[0].messages[-1]["content"]
        assert "- in `Virtualizer.measure`, dist/esm/index.js:3: `this.resizeItem(node, 1);`" in first


PASSED_ON = {  # a method nothing calls by name: it is handed on as an action (tenacity does this)
    "retrying.py": "class Retrying:\n    def __init__(self):\n        self.actions = []\n\n"
                   "    def _add_action(self, fn):\n        self.actions.append(fn)\n\n"
                   "    def _after_stop_check(self, state):\n        state.done = True\n\n"
                   "    def _after_retry_check(self, state):\n        # then _after_stop_check runs\n"
                   "        self._add_action(self._after_stop_check)\n",
}


def test_a_function_passed_on_as_a_value_lists_where_instead_of_callers(tmp_path):
    """No line calls `_after_stop_check`; one passes it on. With no list the model named the chunks
    it was shown; the list of uses is what the answer can stand on, and a made-up line listed
    past it keeps the answer from backed."""
    with workspace_tools(tmp_path, PASSED_ON) as (tools, settings):
        question = "What calls _after_stop_check?"
        right = ScriptedModel(["- in `Retrying._after_retry_check`, retrying.py:13: "
                               "`self._add_action(self._after_stop_check)`"])
        answer = only(run(right, tools, settings, question=question), ev.AnswerCompleted)[0]
        first = right.requests[0].messages[-1]["content"]
        header = prompts.PASSED_HEADER.format(name="_after_stop_check")
        listed = listed_under(first, header)
        # the comment that names it is no use
        assert listed.strip().splitlines() == [
            "- in `Retrying._after_retry_check`, retrying.py:13: `self._add_action(self._after_stop_check)`"]
        assert prompts.CALLERS_HEADER.format(name="_after_stop_check") not in first
        assert answer.support is Support.BACKED
        assert [b.span for b in answer.backing] == [LineSpan("retrying.py", 13, 13)]
        beyond = ScriptedModel(["- in `Retrying._after_retry_check`, retrying.py:13: "
                                "`self._add_action(self._after_stop_check)`\n"
                                "- in `Retrying._after_retry_check`, retrying.py:12: `self._after_stop_check(state)`"])
        answer = only(run(beyond, tools, settings, question=question), ev.AnswerCompleted)[0]
        assert answer.support is Support.PARTLY  # a shown line, with code it does not hold
        assert "a call at retrying.py:12 (the index found none there)" in answer.missing


ONLY_TESTS_CALL = {  # go-multierror's shape: the code stores the formatter, tests call it
    "format.go": "package multierror\n\nfunc ListFormatFunc(es []error) string {\n\treturn \"\"\n}\n",
    "multierror.go": "package multierror\n\nfunc (e *Error) Error() string {\n\tfn := e.ErrorFormat\n"
                     "\tif fn == nil {\n\t\tfn = ListFormatFunc\n\t}\n\treturn fn(e.Errors)\n}\n",
    "format_test.go": "package multierror\n\nfunc TestListFormatFuncSingle(t *testing.T) {\n"
                      "\tactual := ListFormatFunc(errors)\n}\n",
}


def test_when_only_tests_call_a_function_the_code_that_uses_it_is_listed_first(tmp_path):
    """A user's check on go-multierror: "What calls ListFormatFunc?" listed only the tests' calls;
    the answer named the tests and was backed, and `Error()`, which formats every multierror with
    it, was never mentioned."""
    with workspace_tools(tmp_path, ONLY_TESTS_CALL) as (tools, settings):
        question = "What calls ListFormatFunc?"
        tests_only = ScriptedModel(["- in `TestListFormatFuncSingle`, format_test.go:4: "
                                    "`actual := ListFormatFunc(errors)`"])
        answer = only(run(tests_only, tools, settings, question=question), ev.AnswerCompleted)[0]
        first = tests_only.requests[0].messages[-1]["content"]
        listed = listed_under(first, prompts.TESTS_CALL_HEADER.format(name="ListFormatFunc"))
        assert listed.strip().splitlines() == [
            "- in `Error.Error`, multierror.go:6: `fn = ListFormatFunc`",
            "- in `TestListFormatFuncSingle`, format_test.go:4: `actual := ListFormatFunc(errors)`"]
        assert answer.support is Support.PARTLY
        both = ScriptedModel(["`Error.Error` uses it as the default format (multierror.go:6); the test "
                              "`TestListFormatFuncSingle` calls it (format_test.go:4)."])
        answer = only(run(both, tools, settings, question=question), ev.AnswerCompleted)[0]
        assert answer.support is Support.BACKED


FACTORY = {  # debug's shape: the API defined inside one long function, which the index chunks whole
    "src/common.js": "function setup(env) {\n\tconst createDebug = {};\n"
                     + "".join(f"\tcreateDebug.option{n} = {n};\n" for n in range(140))
                     + "\tfunction enable(namespaces) {\n\t\tcreateDebug.namespaces = namespaces;\n\t}\n"
                       "\tcreateDebug.enable = enable;\n\treturn createDebug;\n}\n\nmodule.exports = setup;\n",
    "src/node.js": "const setup = require('./common');\nmodule.exports = setup(exports);\nexports.enable('x');\n",
}


def test_asked_where_a_helper_is_defined_the_first_prompt_says_where(tmp_path):
    """A user's check on debug: "Where is the enable function defined?" was answered with the end
    of `setup` (the chunk the index ranks); `function enable` is a helper inside it, which the
    symbol table does not hold. Its line comes before the chunks; a name the table defines (setup)
    gets no such line."""
    with workspace_tools(tmp_path, FACTORY) as (tools, settings):
        model = ScriptedModel(["`enable` is defined in src/common.js:143."])
        answer = only(run(model, tools, settings, question="Where is the enable function defined?"),
                      ev.AnswerCompleted)[0]
        first = model.requests[0].messages[-1]["content"]
        header = prompts.HELPER_DEFINED_HEADER.format(name="enable")
        assert f"{header}\n- src/common.js:143: `function enable(namespaces) {{`" in first
        assert first.index(header) < first.index(headers.INDEX_HEADER)
        assert answer.support is Support.BACKED
        model = ScriptedModel(["In src/common.js:1."])
        run(model, tools, settings, question="Where is the setup function defined?")
        assert "is defined inside another function" not in model.requests[0].messages[-1]["content"]


RESPONDS = {  # koa's shape: a plain-word function, called once
    "application.js": "function handleRequest(ctx) {\n  const handleResponse = () => respond(ctx);\n"
                      "  return handleResponse;\n}\n\nfunction respond(ctx) {\n  ctx.res.end(ctx.body);\n}\n",
    "README.md": "# app\n\nWe respond to every request, and render nothing.\n",
}


def test_a_plain_word_the_index_defines_gets_its_callers_listed(tmp_path):
    """A user's check on koa: "What calls respond?" got no callers list (`respond` is a plain
    word, which callee_of leaves alone) and the model wrote 768 tokens of unrelated code; a plain
    word the index does not define ("render" here) still gets none."""
    with workspace_tools(tmp_path, RESPONDS) as (tools, settings):
        model = ScriptedModel(["In `handleRequest`, application.js:2."])
        run(model, tools, settings, question="What calls respond?")
        first = model.requests[0].messages[-1]["content"]
        listed = listed_under(first, prompts.CALLERS_HEADER.format(name="respond"))
        assert listed.strip() == "- in `handleRequest`, application.js:2: `const handleResponse = () => respond(ctx);`"
        model = ScriptedModel(["Nothing does."])
        run(model, tools, settings, question="What calls render?")
        first = model.requests[0].messages[-1]["content"]
        assert "render`" not in first and "Nothing in this workspace calls" not in first


DOCOPT = {  # docopt's shape: one function calls the helper twice; another defines nothing that calls it
    "docopt.py": "def parse_defaults(doc):\n    return []\n\n\ndef parse_argv(tokens, options):\n"
                 "    return tokens\n\n\ndef docopt(doc, argv=None):\n    options = parse_defaults(doc)\n"
                 "    argv = parse_argv(argv, options)\n    more = parse_defaults(doc)\n    return argv, more\n",
}


def test_an_answer_saying_a_call_is_where_the_index_found_none_is_not_backed(tmp_path):
    """A user's check on docopt: "What calls parse_defaults?" answered "once in the `docopt`
    function and once in the `parse_argv` function" (both calls are in `docopt`) was backed by the
    two call lines: the answer names every caller the index found, and one it did not."""
    with workspace_tools(tmp_path, DOCOPT) as (tools, settings):
        question = "What calls parse_defaults?"
        wrong = ScriptedModel(["It is called twice in docopt.py, once in the `docopt` function and once in the "
                               "`parse_argv` function."])
        answer = only(run(wrong, tools, settings, question=question), ev.AnswerCompleted)[0]
        assert answer.support is Support.PARTLY
        assert "a call in parse_argv (the index found none there)" in answer.missing
        right = ScriptedModel(["It is called twice, both times in the `docopt` function (docopt.py:10, "
                               "docopt.py:12), before and after `parse_argv` parses the arguments."])
        answer = only(run(right, tools, settings, question=question), ev.AnswerCompleted)[0]
        assert answer.support is Support.BACKED  # parse_argv named, but not as a place a call is in


ENGINES = {  # true-myth's shape: the declared versions past the manifest's first chunk, a changelog's history
    "package.json": "{\n  \"name\": \"true-myth\",\n" + "".join(f"  \"k{n}\": {n},\n" for n in range(60))
                    + "  \"engines\": {\n    \"node\": \"18.* || >= 20.*\"\n  }\n}\n",
    "CHANGELOG.md": "# Changelog\n\n## 4.0.0\n\n- Dropped support for Node versions earlier than Node 12 LTS.\n",
    "src/index.ts": "export const VERSION = 9;\n",
}


def test_a_runtime_version_answer_is_checked_against_the_manifest_on_disk(tmp_path):
    """A user's check on true-myth: the first prompt showed package.json's first chunk and an old
    changelog entry; "Node.js 12 LTS and later" (wrong) was backed by the entry. The manifest's
    `"node"` line is read from disk (search_text at the workspace root): not backed, and that line
    is where to look."""
    with workspace_tools(tmp_path, ENGINES) as (tools, settings):
        question = "Which Node.js versions does true-myth declare support for?"
        wrong = ScriptedModel(["The project declares support for Node.js versions 12 LTS and later."])
        answer = only(run(wrong, tools, settings, question=question), ev.AnswerCompleted)[0]
        assert answer.support is Support.NOT_BACKED
        assert answer.closest[0].span.path == "package.json" and "18.*" in answer.closest[0].text
        right = ScriptedModel(["It declares Node.js 18, or 20 and later."])
        answer = only(run(right, tools, settings, question=question), ev.AnswerCompleted)[0]
        assert answer.support is Support.BACKED and answer.backing[0].span.path == "package.json"


def test_a_method_among_the_callers_is_named_by_its_own_name_or_its_type():
    from app.harness.first_prompt import more_callers
    from app.tools.base import Reference, TextHit

    def call(path: str, inside: str) -> Reference:
        return Reference(TextHit(LineSpan(path, 6, 6), "prefixFieldClashes(entry.Data)"), "call", inside)

    callers = (call("json_formatter.go", "JSONFormatter.Format"), call("text_formatter.go", "TextFormatter.Format"),
               call("logger.go", "Logger.WithFields"))
    said = "The JSONFormatter and the TextFormatter call prefixFieldClashes."
    assert [r.inside for r in more_callers(said, callers)] == ["Logger.WithFields"]
    assert more_callers(said + " So does `WithFields`.", callers) == ()
    assert len(more_callers("The formatters call it.", callers)) == 3  # "formatters" is no caller's name


def test_a_small_context_cuts_the_first_prompt_s_chunks_to_fit(tools):
    """A user who sets n_ctx 2048 keeps 1,024 for the reply: the 2,000-token chunk budget would not
    fit beside the system text and the tool schemas; the chunks are cut to the room left, and the
    question is still answered (it stopped with "no longer fits the model's context")."""
    model = ScriptedModel(["500."], context_length=2000)
    settings = Settings(n_threads=1, n_ctx=2000, context_reserve_tokens=300, intro_index_tokens=2000)
    events = run(model, tools, settings, question="What is the default maximum note length?")
    assert events[-1].reason is StopReason.ANSWERED
    first = model.requests[0].messages[-1]["content"]
    shown = first.split(headers.INDEX_HEADER, 1)[1].split("\n\nQuestion:", 1)[0].strip()
    assert 0 < model.count_tokens(shown) <= 300 and "DEFAULT_MAX_NOTE_LENGTH = 500" in shown


def test_a_list_whose_lines_share_a_long_path_is_not_a_loop():
    """Callers of one Java file share 60 characters of `, framework/src/.../CordovaWebViewImpl.java:`:
    the repeat guard cut a right answer to its first two callers (a user's check on cordova-android)."""
    from app.harness.turn_guards import RepeatGuard

    path = "framework/src/org/apache/cordova/CordovaWebViewImpl.java"
    reply = (f"- in `CordovaWebViewImpl.showWebPage`, {path}:225: `if (pluginManager.shouldAllowNavigation(url)) {{`\n"
             f"- in `CordovaWebViewImpl.EngineClient.onNavigationAttempt`, {path}:663: "
             "`} else if (pluginManager.shouldAllowNavigation(url)) {`\n"
             f"- in `CordovaWebViewImpl.loadUrlIntoView`, {path}:140: "
             "`if (!pluginManager.shouldAllowNavigation(url)) {`\n")
    guard = RepeatGuard(Settings().repeat_guard_chars)
    assert not any(guard.feed(reply[i:i + 3]) for i in range(0, len(reply), 3))
    # nor is a list of one file's lines with the same code, which differ only in their numbers
    calls = "".join(f"- `core/proxy.ts:{n}: markChanged(state)`\n" for n in (155, 177, 276, 301, 340, 388, 402))
    listing = RepeatGuard(Settings().repeat_guard_chars)
    assert not any(listing.feed(calls[i:i + 3]) for i in range(0, len(calls), 3))


def test_a_reply_that_copies_the_prompt_back_is_cut_where_the_copy_starts():
    """A user's check on more-itertools: the model wrote a line, then copied the layout (in a fence)
    and a chunk back for 67 s. The guard stops at the copy; the answer is what came before it."""
    from app.harness.turn_guards import RepeatGuard

    reply = ("`first()` raises `ValueError` when the iterable is empty and no default is given. The lines are:\n"
             "```\nThe project folder contains:\nmore_itertools/\nsetup.py\n```\n")
    guard = RepeatGuard(Settings().repeat_guard_chars)
    fed = [guard.feed(reply[i:i + 4]) for i in range(0, len(reply), 4)]
    assert fed[-1] and not fed[0]
    assert guard.kept() == "`first()` raises `ValueError` when the iterable is empty and no default is given."
    rewritten = RepeatGuard(Settings().repeat_guard_chars)
    assert rewritten.feed("It is 5.\n\nThe part of the project that best matches the question is a.py:1-9.")
    assert rewritten.kept() == "It is 5."
    quoting = RepeatGuard(Settings().repeat_guard_chars)  # code quoted, and the words in prose, are no copy
    assert not quoting.feed("```python\nhead = 'The project folder contains:'\n```\nIt holds src/.")

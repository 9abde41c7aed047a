"""The server backend against a real llama-cpp-python server running the default GGUF: a streamed
answer through `ask --server`, a tool call round trip, Stop mid-stream, the server killed in the
middle of an answer, a missing model, and the GUI's controller asking a question."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from app.harness.events import ModelTextStreamed, PromptRendered, RunStopped, ToolCallCompleted
from app.llm.base import TextDelta, TurnCompleted, TurnRequest
from app.llm.server_backend import connect_server
from app.llm.server_http import ServerError, ServerFailure
from app.settings import Settings

from .llama_server import RunningServer

pytestmark = pytest.mark.real_model

LONG = ("Write a long story about a lighthouse keeper and a fox, with many details, at least "
        "ten paragraphs.")


def ask_main(args: list[str], capsys: pytest.CaptureFixture) -> tuple[int, str, str]:
    from app.cli.main import main

    code = main(["ask", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def write_settings(home: Path, **values: object) -> None:
    from app.paths import app_paths
    from app.settings import save_settings

    save_settings(Settings(**values), app_paths().ensure().settings_file)


def test_ask_streams_an_answer_from_the_server(llama_server: RunningServer, project: Path,
                                                capsys, tmp_path: Path) -> None:
    trace = tmp_path / "trace.jsonl"
    code, out, err = ask_main(["--workspace", str(project), "--server", llama_server.url,
                               "--trace", str(trace), "What does notekeeper do?"], capsys)
    assert code == 0, err
    assert out.strip() and "Traceback" not in err
    events = [json.loads(line) for line in trace.read_text().splitlines()]
    started = next(e for e in events if not e["event"].startswith("index_"))  # the index comes first
    assert started["event"] == "run_started" and "smollm2-135m @ 127.0.0.1" in started["model"]
    streamed = [e["text"] for e in events if e["event"] == "model_text"]
    assert len(streamed) > 1, "the answer did not stream in pieces"
    turn = next(e for e in events if e["event"] == "model_turn")
    assert turn["usage"]["completion_tokens"] > 0 and turn["usage"]["first_token_seconds"] > 0
    assert events[-1]["event"] == "stopped" and events[-1]["reason"] != "model_error"


def test_a_tool_call_round_trip_through_the_server(llama_server: RunningServer, project: Path,
                                                    burrow_home: Path) -> None:
    """The first turn must call read_file (tool_choice names it): llama-cpp-python answers with
    structured tool_calls; the result goes back as a tool message and the model answers."""
    from app.harness.session import Session

    settings = Settings(tool_policy="first_call", force_answer_after_read="always",
                        n_ctx=4096, temperature=0.0)
    model = connect_server(llama_server.url, None, settings)
    with Session.open(project, model, settings) as session:
        events = list(session.ask("What is the default maximum note length?"))
    calls = [e for e in events if isinstance(e, ToolCallCompleted) and e.step >= 1]
    assert calls and calls[0].name == "read_file" and calls[0].ok, events
    assert model.structured_calls == 1 and model.text_calls == 0  # the path this server takes
    later = [e.text for e in events if isinstance(e, PromptRendered) and e.step > calls[0].step]
    head = calls[0].content.splitlines()[0]
    assert later and head in later[0], "the tool result never reached the model"
    stop = events[-1]
    assert isinstance(stop, RunStopped) and stop.reason in ("answered", "step_budget"), stop


def _text_call(path: str) -> str:
    return f'<tool_call>{{"name": "read_file", "arguments": {{"path": "{path}"}}}}</tool_call>'


def test_a_call_written_as_text_is_read_by_our_dialect(llama_server: RunningServer) -> None:
    """A server that hands back a call as text (its template has no tool support): the generic
    dialect reads it. Two examples in the conversation make the 135M model write one, greedily."""
    model = connect_server(llama_server.url, None, Settings(temperature=0.0))
    tool = {"type": "function", "function": {"name": "read_file", "description": "Read a file.",
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}}}}}
    messages = ({"role": "system", "content": "You call tools by writing <tool_call>{json}</tool_call>."},
                {"role": "user", "content": "Read setup.py"},
                {"role": "assistant", "content": _text_call("setup.py")},
                {"role": "user", "content": "Read main.py"},
                {"role": "assistant", "content": _text_call("main.py")},
                {"role": "user", "content": "Read README.md"})
    events = list(model.generate(TurnRequest(messages, tools=(tool,), max_tokens=48, temperature=0.0)))
    done = events[-1]
    assert isinstance(done, TurnCompleted) and "<tool_call>" in done.raw
    assert [(c.name, c.arguments) for c in done.reply.tool_calls] == [("read_file", {"path": "README.md"})]
    assert model.text_calls == 1 and model.structured_calls == 0  # parsed by our dialect
    assert not [e for e in events if isinstance(e, TextDelta)]  # call markup never shown


def test_stop_mid_stream_closes_the_stream_and_the_next_turn_works(llama_server: RunningServer) -> None:
    settings = Settings(temperature=0.0)
    model = connect_server(llama_server.url, None, settings)
    cancel = threading.Event()
    request = TurnRequest(({"role": "user", "content": LONG},), max_tokens=600)
    seen: list[object] = []
    for event in model.generate(request, cancel):
        seen.append(event)
        if isinstance(event, TextDelta) and not cancel.is_set():
            cancel.set()  # Stop, as soon as the answer streams
    done = seen[-1]
    assert isinstance(done, TurnCompleted) and done.stop_reason == "cancelled"
    deltas = [e for e in seen if isinstance(e, TextDelta)]
    assert len(deltas) == 1, "text kept coming after Stop"
    assert done.usage.completion_tokens < 600
    again = list(model.generate(TurnRequest(({"role": "user", "content": "Say hi."},),
                                            max_tokens=8)))
    assert isinstance(again[-1], TurnCompleted) and again[-1].stop_reason in ("stop", "length")


def test_the_server_killed_mid_answer_gives_a_named_stop_and_a_recorded_run(
        own_server: RunningServer, project: Path, burrow_home: Path) -> None:
    from app.harness.records import RunStore
    from app.harness.session import Session
    from app.paths import app_paths

    settings = Settings(temperature=0.0, max_answer_tokens=600, n_ctx=4096)
    model = connect_server(own_server.url, None, settings)
    events = []
    with Session.open(project, model, settings, paths=app_paths()) as session:
        for event in session.ask(LONG):
            events.append(event)
            if isinstance(event, ModelTextStreamed) and own_server.process.poll() is None:
                own_server.process.kill()  # the server dies while the answer streams
                own_server.process.wait()
    stop = events[-1]
    assert isinstance(stop, RunStopped) and stop.reason == "model_error"
    assert f"[{ServerFailure.DROPPED.value}]" in stop.message, stop.message
    runs = RunStore(app_paths()).list_runs(project)
    assert len(runs) == 1 and runs[0].question == LONG
    # and the next question against a dead server says so, as a named failure
    with pytest.raises(ServerError) as refused:
        connect_server(own_server.url, None, settings)
    assert refused.value.failure is ServerFailure.UNREACHABLE


def test_a_model_the_server_does_not_have_is_named(llama_server: RunningServer, project: Path,
                                                   capsys) -> None:
    code, _, err = ask_main(["--workspace", str(project), "--server", llama_server.url,
                             "--server-model", "no-such-model", "question"], capsys)
    assert code == 3
    assert "no model 'no-such-model'" in err and "smollm2-135m" in err
    assert ServerFailure.MODEL_MISSING.value in err


def test_the_gui_controller_answers_through_the_server(llama_server: RunningServer, project: Path,
                                                      burrow_home: Path) -> None:
    from app.gui.controller import ControllerState, SessionController
    from app.llm.server_backend import ServerModelRef
    from app.paths import app_paths

    controller = SessionController(app_paths(), settings=Settings(n_ctx=4096, temperature=0.0),
                                   models_home=burrow_home / "empty")
    found = [m for m in controller.discover_servers()]  # default ports: whatever runs here
    assert all(m.path.startswith("server:") for m in found)
    controller.set_workspace(project)
    key = ServerModelRef(llama_server.url, "smollm2-135m").key
    controller.begin_model_load()  # a server entry goes through the states a file model does
    info, model = controller.describe_and_load(key, describe=True)
    controller.end_model_load(model, key)
    assert info is None and controller.model is model and not model.is_remote
    assert controller.model_path == key and controller.state is ControllerState.IDLE
    cancel = controller.start_run()
    try:
        events = list(controller.iter_run("What does notekeeper do?", cancel))
    finally:
        controller.finish_run()
    assert any(isinstance(e, ModelTextStreamed) for e in events)
    stop = events[-1]
    assert isinstance(stop, RunStopped) and stop.reason != "model_error", stop
    assert len(controller.list_runs(project).runs) == 1


def test_models_lists_the_servers_models(llama_server: RunningServer, capsys) -> None:
    from app.cli.main import main

    assert main(["models", "--server", llama_server.url, "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [m["name"] for m in listed] == ["smollm2-135m"]
    assert listed[0]["path"] == f"server:smollm2-135m@{llama_server.url}"
    assert main(["models", "--server", llama_server.url]) == 0
    table = capsys.readouterr().out
    assert "smollm2-135m" in table and f"server 127.0.0.1:{llama_server.port}" in table


def test_the_eval_asks_a_server_model(llama_server: RunningServer, burrow_home: Path,
                                      tmp_path: Path) -> None:
    """`python -m bench.eval --server URL`: the eval's questions through the server backend, scored
    and merged under the server's model (what a user with a model on a local server runs)."""
    from bench.eval.__main__ import main as eval_main

    rows_file, results = tmp_path / "rows.json", tmp_path / "results.json"
    code = eval_main(["--server", llama_server.url, "--ids", "dotenv-01", "--set", "max_steps=2",
                      "--policy", "retrieval", "--json", str(rows_file), "--results", str(results)])
    assert code == 0
    rows = json.loads(rows_file.read_text())
    assert [r["id"] for r in rows] == ["dotenv-01"] and rows[0]["answer"].strip()
    assert rows[0]["seconds"] > 0 and rows[0]["support"] in ("backed", "partly_backed",
                                                                   "not_backed")
    run = next(iter(json.loads(results.read_text())["eval"]["runs"].values()))
    assert run["model"] == "server:smollm2-135m" and run["model_file"] == llama_server.url
    assert run["summary"]["questions"] == 1 and run["network_attempts"] == 0

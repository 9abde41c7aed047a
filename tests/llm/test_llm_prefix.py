"""The shared prompt prefix (system text, tool schemas, the workspace layout): evaluated once per
model and workspace, kept on disk, loaded by the next start."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from app.llm.base import TextDelta, TurnRequest
from app.settings import Settings

pytestmark = pytest.mark.real_model

SYSTEM = ({"role": "system", "content": "You answer questions about a project's code. " * 12},)
QUESTION = {"role": "user", "content": "Name one colour of the sky."}


def _answer(model) -> tuple[str, object]:
    events = list(model.generate(TurnRequest(messages=(*SYSTEM, QUESTION), temperature=0.0, max_tokens=16)))
    return "".join(e.text for e in events if isinstance(e, TextDelta)), events[-1]


def test_a_restart_loads_the_prefix_instead_of_evaluating_it(real_model_path, burrow_home) -> None:
    from app.llm.llama_backend import load_model

    settings = Settings(n_ctx=2048, n_threads=1)
    first = load_model(real_model_path, settings)
    cold = first.warm(SYSTEM, ())
    assert cold.tokens > 40 and cold.evaluated == cold.tokens and not cold.loaded
    again = first.warm(SYSTEM, ())
    assert again.evaluated == 0 and not again.loaded  # already in the KV cache
    reference, ref_done = _answer(first)
    assert ref_done.usage.cached_tokens >= cold.tokens - 1
    del first

    restarted = load_model(real_model_path, settings)  # a new start: the state comes from disk
    warm = restarted.warm(SYSTEM, ())
    assert warm.loaded and warm.evaluated == 0 and warm.tokens == cold.tokens
    text, done = _answer(restarted)
    assert done.usage.cached_tokens >= cold.tokens - 1  # only the question was evaluated
    assert text == reference  # the loaded state is the same state


def test_a_corrupt_state_file_is_evaluated_again(real_model_path, burrow_home) -> None:
    from app.llm.llama_backend import load_model

    settings = Settings(n_ctx=2048, n_threads=1)
    model = load_model(real_model_path, settings)
    model.warm(SYSTEM, ())
    for file in (burrow_home / "cache" / "prefix-states").glob("*.kv"):
        file.write_bytes(b"not a llama state")
    fresh = load_model(real_model_path, settings)
    warm = fresh.warm(SYSTEM, ())
    assert not warm.loaded and warm.evaluated == warm.tokens
    assert _answer(fresh)[0]
    for file in (burrow_home / "cache" / "prefix-states").glob("*.kv"):  # the right tokens' digest,
        file.write_bytes(file.read_bytes()[:32] + b"\0" * 64)  # then a state llama.cpp refuses
    again = load_model(real_model_path, settings)
    warm = again.warm(SYSTEM, ())
    assert not warm.loaded and warm.evaluated == warm.tokens
    assert _answer(again)[0]


# The workspace layout: the same for every question in one folder, so kept with the system text ----
FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "sample_project"
LAYOUT_SETTINGS = dict(n_ctx=4096, n_threads=1, max_answer_tokens=16, temperature=0.0)


def _first_turn(model, project: Path, question: str):
    """Ask through the real Session; the first model turn's events (its prompt and its usage)."""
    from app.harness.events import ModelTurnFinished, PromptRendered
    from app.harness.session import Session

    with Session.open(project, model, Settings(**LAYOUT_SETTINGS)) as session:
        events = list(session.ask(question))
    prompt = next(e for e in events if isinstance(e, PromptRendered))
    return prompt.text, next(e for e in events if isinstance(e, ModelTurnFinished)).usage


def _shared(project: Path):
    from app.harness.first_prompt import shared_prefix
    from app.harness.session import open_toolbox

    tools = open_toolbox(project, Settings(**LAYOUT_SETTINGS))
    try:
        return shared_prefix(tools.layout(), tools.label)
    finally:
        tools.workspace.close()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    target = tmp_path / "project"
    shutil.copytree(FIXTURE, target)
    return target


def test_a_new_question_after_a_restart_evaluates_only_its_own_tokens(real_model_path, burrow_home,
                                                                      project) -> None:
    from app.llm.llama_backend import load_model

    settings = Settings(**LAYOUT_SETTINGS)
    first = load_model(real_model_path, settings)
    _first_turn(first, project, "Where are notes saved?")
    shared = _shared(project)
    system_only = first.warm(shared.messages[:1], ()).tokens
    del first

    restarted = load_model(real_model_path, settings)  # `ask` again: a new process, same workspace
    text, usage = _first_turn(restarted, project, "Which function deletes a note?")
    kept = restarted.warm(shared.messages, (), scope=shared.scope)  # in memory now: a no-op
    assert kept.evaluated == 0 and kept.tokens > system_only + 10  # the layout is part of it
    assert text.index("notekeeper/") < text.index("Which function deletes a note?")
    assert usage.cached_tokens >= kept.tokens  # system text and layout came from disk
    assert usage.prompt_tokens == usage.prompt_total - usage.cached_tokens


def test_a_layout_change_replaces_the_kept_prefix(real_model_path, burrow_home, project) -> None:
    from app.llm.llama_backend import load_model

    settings = Settings(**LAYOUT_SETTINGS)
    before = _shared(project)
    cold = load_model(real_model_path, settings).warm(before.messages, (), scope=before.scope)
    assert not cold.loaded and cold.evaluated == cold.tokens
    states = sorted((burrow_home / "cache" / "prefix-states").glob("*.kv"))

    (project / "CHANGELOG.md").write_text("# Changes\n")  # a new top-level file: a new layout
    after = _shared(project)
    assert after.scope == before.scope and after.messages != before.messages
    changed = load_model(real_model_path, settings).warm(after.messages, (), scope=after.scope)
    assert not changed.loaded and changed.evaluated == changed.tokens  # the old state is not used
    assert sorted((burrow_home / "cache" / "prefix-states").glob("*.kv")) == states  # replaced
    again = load_model(real_model_path, settings).warm(after.messages, (), scope=after.scope)
    assert again.loaded and again.evaluated == 0 and again.tokens == changed.tokens
    text, usage = _first_turn(load_model(real_model_path, settings), project, "Where are notes saved?")
    assert "CHANGELOG.md" in text and usage.cached_tokens >= changed.tokens


def test_a_later_step_evaluates_only_its_own_tokens(real_model_path, burrow_home, project) -> None:
    """A step after the answer (a second stage, a quote for the verdict) extends the question's
    conversation: the question's evaluated prompt and the answer are reused, token for token."""
    from app.llm.llama_backend import load_model

    model = load_model(real_model_path, Settings(**LAYOUT_SETTINGS))
    question = (*SYSTEM, {"role": "user", "content": "The folder holds notes.py and store.py.\n\n"
                                                     "Question: Which file stores notes?"})
    first = _done(model, question)
    step = (*question, {"role": "assistant", "content": first.reply.content or "store.py"},
            {"role": "user", "content": "Quote the line that shows it."})
    later = _done(model, step)
    assert later.usage.cached_tokens >= first.usage.prompt_total + first.usage.completion_tokens - 1
    assert later.usage.prompt_tokens < 30


def test_tools_told_late_keep_the_question_s_evaluated_prompt(real_model_path, burrow_home) -> None:
    """The second stage offers tools after the first answer: told at the end of its note, not in
    the system turn, they leave everything evaluated before them in the cache."""
    from app.llm.llama_backend import load_model

    model = load_model(real_model_path, Settings(**LAYOUT_SETTINGS))
    question = (*SYSTEM, {"role": "user", "content": "Question: Which file stores notes?"})
    first = _done(model, question)
    tool = {"type": "function", "function": {"name": "read_file", "description": "Read a file.",
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}}}
    step = (*question, {"role": "assistant", "content": first.reply.content or "store.py"},
            {"role": "user", "content": "The lines shown do not say it. Look further."})
    late = list(model.generate(TurnRequest(messages=step, tools=(tool,), tools_late=True, temperature=0.0,
                                           max_tokens=16)))[-1]
    assert late.usage.cached_tokens >= first.usage.prompt_total + first.usage.completion_tokens - 1
    assert late.prompt.index("Look further.") < late.prompt.index("read_file")  # told after the note
    assert late.prompt.startswith(first.prompt[:late.prompt.index("Question:")])  # the system turn as it was
    told = list(model.generate(TurnRequest(messages=step, tools=(tool,), temperature=0.0, max_tokens=16)))[-1]
    assert told.prompt.index("read_file") < told.prompt.index("Question:")  # by default: in the system turn
    assert told.usage.prompt_tokens > late.usage.prompt_tokens + 20  # the question evaluated again


def _done(model, messages):
    return list(model.generate(TurnRequest(messages=messages, temperature=0.0, max_tokens=16)))[-1]


def test_only_the_most_recently_used_states_are_kept(real_model_path, burrow_home, monkeypatch) -> None:
    from app.llm import llama_state
    from app.llm.llama_backend import load_model

    monkeypatch.setattr(llama_state, "KEPT_STATES", 2)
    model = load_model(real_model_path, Settings(n_ctx=2048, n_threads=1))
    layouts = {name: (*SYSTEM, {"role": "user", "content": f"The project folder contains:\n{name}/\n\n"})
               for name in ("alpha", "beta", "gamma")}
    model.warm(layouts["alpha"], (), scope="alpha")
    model.warm(layouts["beta"], (), scope="beta")
    assert load_model(real_model_path, Settings(n_ctx=2048, n_threads=1)).warm(
        layouts["alpha"], (), scope="alpha").loaded  # alpha used again: beta is now the oldest
    model.warm(layouts["gamma"], (), scope="gamma")
    assert len(list((burrow_home / "cache" / "prefix-states").glob("*.kv"))) == 2
    fresh = load_model(real_model_path, Settings(n_ctx=2048, n_threads=1))
    assert fresh.warm(layouts["alpha"], (), scope="alpha").loaded
    assert fresh.warm(layouts["gamma"], (), scope="gamma").loaded
    assert not fresh.warm(layouts["beta"], (), scope="beta").loaded  # forgotten, evaluated again

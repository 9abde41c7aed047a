"""The verdict and the answer's paths in the window, through the real loop, tools and workspace
with a scripted model (issue 22, issue 25 item 12)."""

from __future__ import annotations

from pathlib import Path

from app.gui.main_window import MainWindow
from app.gui.render import parse_cite_href
from app.harness.prompts import SUPPORT_LABELS
from app.harness.verdict import Support
from app.values import LineSpan
from tests.gui.test_gui_chats import use_model
from tests.gui.test_gui_runs import ask


def test_paths_written_in_prose_are_links_at_their_lines(window: MainWindow, qtbot, project: Path) -> None:
    window.set_workspace(str(project))
    use_model(window, ["Numbers are added by `add`, in the `src/calc.py` file, lines 81-82. "
                       "The README.md says nothing of it."])
    ask(window, qtbot, "where are numbers added?")
    spans = {parse_cite_href(h) for h in window.chat.cite_anchor_hrefs()}
    assert LineSpan("src/calc.py", 81, 82) in spans  # a prose citation, linked at its lines
    assert LineSpan("README.md", 1, 1) in spans  # a bare path the workspace has
    assert LineSpan("src/calc.py", 81, 82) in window.runs.last_answer.citations


def test_the_badge_says_what_was_checked_and_a_guess_lists_the_closest_lines(
        window: MainWindow, qtbot, project: Path) -> None:
    window.set_workspace(str(project))
    use_model(window, ["Numbers are multiplied by a hardware coprocessor."])
    ask(window, qtbot, "where are numbers added?")
    answer = window.runs.last_answer
    shown = window.chat.toPlainText()
    assert answer.support is Support.NOT_BACKED and SUPPORT_LABELS[Support.NOT_BACKED] in shown
    assert "Closest lines Burrow read:" in shown
    assert "No source found" not in shown and "Not backed: no line" not in answer.answer


def test_a_claim_the_model_was_unsure_of_is_said_under_the_badge(window: MainWindow, qtbot, project: Path) -> None:
    from app.llm.base import ParsedReply, ParsedToolCall
    from app.llm.scripted import ScriptedModel

    window.set_workspace(str(project))
    read = ParsedReply("", (ParsedToolCall("read_file", {"path": "src/calc.py"}, '{"path": "src/calc.py"}'),))
    answer = "Numbers are added by `add`, which returns `a + b`."
    tokens = (("Numbers are added by `", -0.1), ("add", -1.8), ("`, which returns `", -0.1), ("a + b", -0.05),
              ("`.", 0.0))
    window.controller.model = ScriptedModel([read, answer], logprobs=[(), tokens])
    window.update_buttons()
    ask(window, qtbot, "which function adds numbers?")
    assert window.runs.last_answer.doubt is not None
    shown = window.chat.toPlainText()
    assert "The model was unsure of “add”" in shown and SUPPORT_LABELS[window.runs.last_answer.support] in shown

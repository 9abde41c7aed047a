"""`python -m app ask`: bad input gives a clear message and a non-zero exit, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.cli.main import main


def test_a_missing_workspace_is_a_clear_error(tmp_path: Path, capsys):
    code = main(["ask", "--workspace", str(tmp_path / "nowhere"), "what is this?"])
    err = capsys.readouterr().err
    assert code == 2 and "does not exist" in err and "Traceback" not in err


def test_a_file_is_not_a_workspace(tmp_path: Path, capsys):
    (tmp_path / "file.txt").write_text("x")
    assert main(["ask", "--workspace", str(tmp_path / "file.txt"), "q"]) == 2
    assert "is a file; choose the folder" in capsys.readouterr().err


def test_an_empty_workspace_name_is_refused_not_read_as_the_current_folder(capsys):
    assert main(["ask", "--workspace", "", "q"]) == 2
    assert "No folder was given" in capsys.readouterr().err


def test_a_saved_model_that_is_gone_falls_back_to_the_default_with_a_note(project: Path, capsys):
    """Defect 1 of issue 14: precedence --model, then settings, then the default model."""
    from app.cli.ask_cmd import _saved_or_default
    from app.llm.catalog import default_model_path

    assert _saved_or_default(str(project / "gone.gguf")) == Path(default_model_path())
    assert "gone.gguf) is missing; using the default model" in capsys.readouterr().err


@pytest.mark.parametrize("content", [b"", b"definitely not a model" * 100, b"GGUF\x03\x00\x00\x00"])
def test_a_bad_model_file_is_a_clear_error(project: Path, tmp_path: Path, capsys, content: bytes):
    model = tmp_path / "bad.gguf"
    model.write_bytes(content)
    code = main(["ask", "--workspace", str(project), "--model", str(model), "--json", "q"])
    captured = capsys.readouterr()
    assert code == 3 and "could not load the model" in captured.err
    assert captured.out == "" and "Traceback" not in captured.err


def test_a_missing_model_file_is_a_clear_error(project: Path, tmp_path: Path, capsys):
    assert main(["ask", "--workspace", str(project), "--model", str(tmp_path / "no.gguf"), "q"]) == 3
    assert "no.gguf" in capsys.readouterr().err


def test_a_bad_step_budget_is_refused(project: Path, capsys):
    assert main(["ask", "--workspace", str(project), "--max-steps", "0", "q"]) == 2
    assert "Step budget: Input should be greater than or equal to 1" in capsys.readouterr().err


def test_the_answer_is_printed_as_it_streams_not_at_the_end(capsys):
    """Each piece of the answer reaches stdout when the model writes it; the end adds only the
    harness's notes (test_ask_real.py checks a real model streams in pieces)."""
    from app.cli.ask_cmd import _Printer
    from app.harness import events as ev
    from app.llm.base import Usage

    printer = _Printer(as_json=False, trace=None)
    printer.show(ev.ModelTextStreamed(1, "The limit is "))
    assert capsys.readouterr().out == "The limit is "
    printer.show(ev.ModelTextStreamed(1, "500."))
    assert capsys.readouterr().out == "500."
    printer.show(ev.AnswerCompleted("The limit is 500.\n\nSources: a.py:3", (), 1, Usage(), 0.1,
                                    notes="Sources: a.py:3"))
    tail = capsys.readouterr().out  # the notes, then the verdict in words (not backed: no check ran)
    assert tail.startswith("\n\nSources: a.py:3\n") and "Not backed" in tail and "The limit" not in tail

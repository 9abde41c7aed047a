"""`python -m app models`: list, info and check, as a user runs them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _gguf_writer import write_gguf

from app.cli.main import main


def test_info_describes_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_gguf(tmp_path / "m.gguf", name="Tiny Test", arch="qwen2", ctx=32768)
    assert main(["models", "info", str(path)]) == 0
    out = capsys.readouterr().out
    assert "Tiny Test" in out and "qwen2" in out and "Q4_K_M" in out and "32768" in out


def test_info_on_a_bad_file_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "bad.gguf").write_text("hello")
    assert main(["models", "info", str(tmp_path / "bad.gguf")]) == 1
    assert "not a GGUF" in capsys.readouterr().err


def test_check_without_path_says_what_is_missing(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["models", "check"]) == 2
    assert "path" in capsys.readouterr().err


def test_check_on_a_missing_file_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["models", "check", str(tmp_path / "none.gguf")]) == 1
    assert "not found" in capsys.readouterr().err


def test_list_shows_models_from_other_apps(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    home = tmp_path / "home"
    write_gguf(home / ".lmstudio/models/o/r/found.gguf", name="Found In LM Studio")
    monkeypatch.setenv("HOME", str(home))
    assert main(["models", "list", "--json"]) == 0
    listed = {m["name"]: m for m in json.loads(capsys.readouterr().out)}
    assert listed["Found In LM Studio"]["source"] == "lmstudio"


@pytest.mark.real_model
def test_list_table_includes_the_default(real_model_path: Path, tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    assert main(["models"]) == 0
    out = capsys.readouterr().out
    from app.llm.catalog import default_model_path

    assert "Q4_K_M" in out and "default" in out and str(default_model_path()) in out


@pytest.mark.real_model
def test_check_loads_the_real_model(real_model_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["models", "check", str(real_model_path)]) == 0
    assert capsys.readouterr().out.startswith("OK:")

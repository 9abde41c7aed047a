"""Catalog, default model location and discovery of other apps' GGUF files (fake home dirs)."""

from __future__ import annotations

from pathlib import Path

import pytest
from _gguf_writer import write_gguf

from app.errors import ModelLoadError
from app.llm.catalog import (
    INSTALLED_MODEL_DIRS,
    default_model_candidates,
    default_model_path,
    describe_model,
    discover_models,
    load_catalog,
)
from app.paths import app_paths, project_root

CHATML = ("{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n"
          "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")


def test_catalog_names_the_default_model() -> None:
    catalog = load_catalog()
    entry = catalog.default_entry()
    assert entry.file == "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"  # chosen by the eval (docs/eval.md)
    assert entry.dialect == "hermes" and len(entry.sha256) == 64


def test_broken_catalog_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "catalog.json").write_text("{not json")
    with pytest.raises(ModelLoadError, match="catalog"):
        load_catalog(tmp_path / "catalog.json")


def test_search_order(tmp_path: Path) -> None:
    env = {"BURROW_MODEL": str(tmp_path / "mine.gguf"), "BURROW_HOME": str(tmp_path / "h")}
    order = default_model_candidates(env)
    name = "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
    assert order == [tmp_path / "mine.gguf", project_root() / "models" / name,
                     *(d / name for d in INSTALLED_MODEL_DIRS), tmp_path / "h" / "data" / "models" / name]


def test_env_override_wins(tmp_path: Path) -> None:
    mine = write_gguf(tmp_path / "mine.gguf")
    assert default_model_path({"BURROW_MODEL": str(mine), "BURROW_HOME": str(tmp_path)}) == mine


def test_env_override_to_a_missing_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ModelLoadError, match="BURROW_MODEL"):
        default_model_path({"BURROW_MODEL": str(tmp_path / "gone.gguf"), "BURROW_HOME": str(tmp_path)})


@pytest.mark.real_model
def test_repo_model_is_the_default(real_model_path: Path, tmp_path: Path) -> None:
    default = project_root() / "models" / load_catalog().default_entry().file
    assert default_model_path({"BURROW_HOME": str(tmp_path)}) == default


def _fake_home(home: Path) -> dict[str, Path]:
    blobs = home / ".ollama" / "models" / "blobs"
    files = {
        "lmstudio": write_gguf(home / ".lmstudio/models/org/repo/lm.Q4_K_M.gguf", name="LM Model",
                               template=CHATML),
        "gpt4all": write_gguf(home / ".local/share/nomic.ai/GPT4All/g4a.gguf", name="G4A"),
        "jan": write_gguf(home / "jan/models/jan-model/model.gguf", name="Jan Model", arch="qwen2"),
        "huggingface": write_gguf(home / ".cache/huggingface/hub/models--org--m/snapshots/abc123/m.gguf",
                                  name="HF Model"),
        "ollama": write_gguf(blobs / "sha256-1111", name="Ollama Model", arch="gemma2"),
    }
    (blobs / "sha256-2222").write_text('{"license": "not a model"}')
    write_gguf(home / ".lmstudio/models/org/split/big-00002-of-00002.gguf", name="Split Tail")
    (home / ".lmstudio/models/org/repo/broken.gguf").write_bytes(b"GGUF\x03\x00")
    return files


def test_discovery_finds_other_apps_models(tmp_path: Path) -> None:
    home = tmp_path / "home"
    files = _fake_home(home)
    user = write_gguf(app_paths().models_dir / "own.gguf", name="Own Model")
    found = {m.path: m for m in discover_models(home=home, include_default=False)}
    assert found[str(user)].source == "user"
    for source, path in files.items():
        assert found[str(path)].source == source
    assert len(found) == 6  # no split tail, no JSON blob, no truncated file
    assert found[str(files["ollama"])].architecture == "gemma2"
    assert found[str(files["lmstudio"])].quantization == "Q4_K_M"
    assert found[str(files["lmstudio"])].context_length == 4096


def test_discovery_is_bounded(tmp_path: Path) -> None:
    home = tmp_path / "home"
    _fake_home(home)
    assert len(discover_models(home=home, include_default=False, max_entries=3)) < 3


def test_symlinked_file_listed_once_and_dir_loops_are_safe(tmp_path: Path) -> None:
    home = tmp_path / "home"
    real = write_gguf(home / ".lmstudio/models/a/real.gguf")
    (home / "jan/models").mkdir(parents=True)
    (home / "jan/models/link.gguf").symlink_to(real)
    (home / "jan/models/loop").symlink_to(home / "jan")
    found = discover_models(home=home, include_default=False)
    assert [m.path for m in found] == [str(real)]


@pytest.mark.real_model
def test_default_is_listed_first(real_model_path: Path, tmp_path: Path) -> None:
    found = discover_models(home=tmp_path / "empty-home")
    default = project_root() / "models" / load_catalog().default_entry().file
    assert found[0].source == "default" and found[0].path == str(default)
    assert (found[0].architecture, found[0].quantization) == ("qwen2", "Q4_K_M")
    assert found[0].dialect == "hermes"


def test_describe_model_with_chatml_template(tmp_path: Path) -> None:
    info = describe_model(write_gguf(tmp_path / "x.gguf", template=CHATML))
    assert info.chat_template == CHATML and info.dialect and info.size_bytes > 0


def test_a_model_file_unchanged_since_is_not_read_again(tmp_path: Path, monkeypatch) -> None:
    import os

    from app.llm import catalog

    reads: list[str] = []
    real = catalog.read_header
    monkeypatch.setattr(catalog, "read_header", lambda p: (reads.append(str(p)), real(p))[1])
    path = write_gguf(tmp_path / "x.gguf", template=CHATML)
    first, again = describe_model(path), describe_model(path)
    assert first == again and len(reads) == 1
    write_gguf(path, template=CHATML, name="Renamed")  # replaced: another size and time
    os.utime(path, ns=(1, 1))
    assert describe_model(path).name == "Renamed" and len(reads) == 2
    path.write_bytes(b"broken now")  # an unusable file is never answered from before
    with pytest.raises(ModelLoadError):
        describe_model(path)


def test_describe_bad_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ModelLoadError):
        describe_model(tmp_path)

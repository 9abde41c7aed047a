"""The built bundle, run as a user would: no venv, no source tree, offscreen Qt, the real model.

These rebuild the bundle when app/, packaging/ or pyproject.toml changed (minutes; the first run on
a machine also compiles the portable llama-cpp-python wheel, which is then cached).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from _packaging_support import BUILD_TIMEOUT_S, MODEL, ROOT, bundle_env

FIXTURE = ROOT / "tests" / "fixtures" / "sample_project"
QUESTION = "Which file in the notekeeper folder loads the configuration? Look at the files."
RUN_TIMEOUT_S = 300

pytestmark = [pytest.mark.slow, pytest.mark.timeout(BUILD_TIMEOUT_S)]


def _home_with_model(tmp_path: Path) -> Path:
    """A BURROW_HOME whose user models folder holds the default model, as the model .deb would."""
    if not MODEL.is_file():
        pytest.skip("models/*.gguf is absent (run make setup)")
    models = tmp_path / "home" / "data" / "models"
    models.mkdir(parents=True)
    (models / MODEL.name).symlink_to(MODEL)
    return tmp_path / "home"


def _run(bundle: Path, args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([str(bundle / "burrow"), *args], env=env, cwd=bundle.parent, text=True,
                          capture_output=True, timeout=RUN_TIMEOUT_S)


def _last_json(stdout: str) -> dict:
    for line in reversed(stdout.strip().splitlines()):
        if line.startswith("{"):
            return json.loads(line)
    raise AssertionError(f"no JSON object on stdout:\n{stdout[-2000:]}")


def _smoke_args(bundle: Path, env: dict[str, str]) -> list[str]:
    """The GUI's own smoke mode when the build has it (window + model + loop), else `ask`."""
    help_text = _run(bundle, ["gui", "--help"], env).stdout
    if "--smoke-question" in help_text:
        return ["gui", "--workspace", str(FIXTURE), "--smoke-question", QUESTION]
    return ["ask", "--workspace", str(FIXTURE), "--json", QUESTION]


@pytest.mark.real_model
def test_bundle_answers_a_question_with_a_tool_call(bundle: Path, tmp_path: Path) -> None:
    env = bundle_env(_home_with_model(tmp_path), BURROW_GGML_VERBOSE="1")
    result = _run(bundle, _smoke_args(bundle, env), env)
    assert result.returncode == 0, result.stderr[-4000:]
    report = _last_json(result.stdout)
    assert report["tool_calls"], f"the model answered without a tool call: {report}"
    assert report["answer"].strip()
    # The portable build picked a CPU variant from the bundle's own folder.
    assert f"{bundle}/_internal/ggml_backends/libggml-cpu-" in result.stderr


@pytest.mark.real_model
def test_bundle_runs_on_a_lower_cpu_variant(bundle: Path, tmp_path: Path) -> None:
    """With only the x64 variant offered (the code for the oldest x86-64 CPUs: SSE2 only), ggml
    loads it and the model still works, as on a pre-AVX CPU. (A native build would die there
    with SIGILL.)"""
    lower = tmp_path / "backends"
    lower.mkdir()
    shutil.copy(bundle / "_internal" / "ggml_backends" / "libggml-cpu-x64.so", lower)
    env = bundle_env(_home_with_model(tmp_path), BURROW_GGML_VERBOSE="1", BURROW_GGML_BACKEND_DIR=str(lower))
    result = _run(bundle, ["models", "check", str(MODEL), "--json"], env)
    assert result.returncode == 0, result.stderr[-4000:]
    assert f"loaded CPU backend from {lower}/libggml-cpu-x64.so" in result.stderr
    assert json.loads(result.stdout)["ok"] is True


def test_bundle_says_so_when_no_model_is_installed(bundle: Path, tmp_path: Path) -> None:
    """First start without the model package: a clear message naming where it looked, no crash."""
    if Path("/opt/burrow-model").is_dir():
        pytest.skip("the model package is installed on this machine")
    env = bundle_env(tmp_path / "empty-home")
    result = _run(bundle, ["ask", "--workspace", str(FIXTURE), "hello"], env)
    assert result.returncode == 3, result.stderr
    assert "/opt/burrow-model/" in result.stderr and "Traceback" not in result.stderr


def test_bundle_has_ripgrep_and_no_unused_qt(bundle: Path) -> None:
    internal = bundle / "_internal"
    rg = internal / "bin" / "rg"
    assert subprocess.run([str(rg), "--version"], capture_output=True, text=True).stdout.startswith("ripgrep")
    qt_libs = {p.name.split(".so")[0] for p in internal.rglob("libQt6*.so*")}
    assert {"libQt6Core", "libQt6Gui", "libQt6Widgets"} <= qt_libs
    assert not qt_libs & {"libQt6WebEngineCore", "libQt6Quick", "libQt6Qml", "libQt6Pdf"}
    plugins = {p.name for p in internal.rglob("platforms/*.so")}
    assert {"libqxcb.so", "libqoffscreen.so"} <= plugins

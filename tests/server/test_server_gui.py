"""The window lists a running server's models after Refresh, loads one, answers with it, and shows
"answers computed on HOST" only for a model on another machine."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.llm.server_backend import ServerModelRef

from .llama_server import RunningServer

pytestmark = pytest.mark.real_model


@pytest.fixture
def window(qtbot, burrow_home: Path, llama_server: RunningServer):
    from app.gui.controller import SessionController
    from app.gui.main_window import MainWindow
    from app.paths import app_paths
    from app.settings import Settings

    settings = Settings(server_discovery_ports=(llama_server.port,), n_ctx=4096, temperature=0.0)
    controller = SessionController(app_paths(), settings=settings, models_home=burrow_home / "none")
    win = MainWindow(controller)
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    yield win
    win.shutdown()


def ask(window, qtbot, question: str, timeout: int) -> object:
    from PySide6.QtCore import Qt

    window.question.setFocus()
    qtbot.keyClicks(window.question, question)
    with qtbot.waitSignal(window.runFinished, timeout=timeout) as finished:
        qtbot.keyClick(window.question, Qt.Key.Key_Return)
    return finished.args[0]


def test_refresh_lists_the_servers_models_and_one_answers(window, qtbot, llama_server, project) -> None:
    key = ServerModelRef(llama_server.url, "smollm2-135m").key
    window.servers.refresh()
    qtbot.waitUntil(lambda: window.model_picker.combo.findData(key) >= 0, timeout=10000)
    label = window.model_picker.combo.itemText(window.model_picker.combo.findData(key))
    assert "smollm2-135m" in label and f"127.0.0.1:{llama_server.port}" in label
    assert "1 model(s) on 1 server(s)" in window.servers.found.text()
    with qtbot.waitSignal(window.modelLoaded, timeout=30000) as loaded:
        window.load_model(key, remember=True)
    assert loaded.args[0] == f"smollm2-135m @ 127.0.0.1:{llama_server.port}"
    assert not window.servers.remote.isVisible()  # loopback: nothing to warn about
    assert window.controller.settings.model_path == key  # remembered for the next start
    assert window.set_workspace(str(project))
    stop = ask(window, qtbot, "What does notekeeper do?", timeout=300000)
    assert stop is not None and stop.reason != "model_error"
    assert window.runs.streamed_chunks > 0


def test_a_remote_model_shows_where_answers_are_computed(window) -> None:
    from app.llm.server_backend import ServerChatModel
    from app.llm.server_http import parse_server_url
    from app.settings import Settings

    remote = ServerChatModel(parse_server_url("http://gpu-box.lan:11434"), "qwen", Settings())
    window.servers.show_model(remote)
    assert window.servers.remote.isVisible()
    assert window.servers.remote.text() == "Answers computed on gpu-box.lan"
    window.servers.show_model(object())
    assert not window.servers.remote.isVisible()


def test_a_remembered_server_model_is_loaded_at_start(qtbot, burrow_home: Path, llama_server: RunningServer) -> None:
    from app.gui.controller import ControllerState, SessionController
    from app.gui.main_window import MainWindow
    from app.paths import app_paths
    from app.settings import Settings

    key = ServerModelRef(llama_server.url, "smollm2-135m").key
    settings = Settings(model_path=key, server_discovery_ports=(llama_server.port,), n_ctx=4096)
    controller = SessionController(app_paths(), settings=settings, models_home=burrow_home / "none")
    win = MainWindow(controller)
    qtbot.addWidget(win)
    seen: list[ControllerState] = []
    controller.state_listeners.append(seen.append)
    try:
        with qtbot.waitSignal(win.modelLoaded, timeout=30000) as loaded:
            win.start_background()
        assert loaded.args[0] == f"smollm2-135m @ 127.0.0.1:{llama_server.port}"
        assert controller.model_path == key and seen[:2] == ["loading model", "idle"]
        assert win.model_picker.current_path() == key and not win.notice.text()
    finally:
        win.shutdown()

"""What the user may do in each controller state, and issue 14's first-day defects in the window:
the model fallback and picker, settings repair, corrupt history, progress, the viewer, wording."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
from PySide6.QtWidgets import QMessageBox

from app.errors import BurrowError, ModelLoadError
from app.gui.controller import ControllerState, SessionController
from app.gui.main_window import MainWindow
from app.gui.status import ProgressLine
from app.llm.scripted import ScriptedModel
from app.paths import app_paths
from app.values import LineSpan


class FakeLoader:
    """Loads a scripted model for the default file, refuses any other; `gate` holds a load."""

    def __init__(self, controller_default: Path) -> None:
        self.default, self.loaded = controller_default, []
        self.gate = threading.Event()
        self.gate.set()

    def __call__(self, path: Path, _settings) -> ScriptedModel:
        self.gate.wait(60)
        if path != self.default:
            raise ModelLoadError(f"{path}: not a GGUF model file")
        self.loaded.append(path)
        return ScriptedModel(["ok"], name="fake-default")


def make_window(qtbot, tmp_path: Path) -> tuple[MainWindow, FakeLoader]:
    probe = SessionController(app_paths(), models_home=tmp_path / "empty")
    loader = FakeLoader(probe.default_model_path())
    controller = SessionController(app_paths(), model_loader=loader, models_home=tmp_path / "empty")
    window = MainWindow(controller)
    qtbot.addWidget(window)
    window.show()
    return window, loader


def close_boxes(window: MainWindow) -> None:
    for box in window.findChildren(QMessageBox):
        box.accept()


def test_the_state_decides_what_may_be_done(home: Path, project: Path) -> None:
    controller = SessionController(app_paths())
    seen: list[ControllerState] = []
    controller.state_listeners.append(seen.append)
    controller.set_workspace(project)
    controller.begin_model_load()
    assert not controller.can_send and controller.can_change_workspace
    with pytest.raises(BurrowError, match="still loading"):
        controller.start_run()
    controller.end_model_load(ScriptedModel([]), "/m.gguf")
    assert controller.can_send
    controller.start_run()
    assert not controller.can_change_workspace and not controller.can_change_model
    with pytest.raises(BurrowError):
        controller.begin_model_load()
    controller.stop_run()
    controller.finish_run()
    assert seen == ["loading model", "idle", "running", "stopping", "idle"]


def test_a_missing_saved_model_falls_back_to_the_default_with_a_notice(qtbot, home: Path,
                                                                      tmp_path: Path,
                                                                      project: Path) -> None:
    gone = tmp_path / "gone.gguf"
    app_paths().ensure().settings_file.write_text(json.dumps({"model_path": str(gone)}))
    window, loader = make_window(qtbot, tmp_path)
    with qtbot.waitSignal(window.modelLoaded, timeout=30000):
        window.start_background()
    assert loader.loaded == [loader.default]
    assert "gone.gguf" in window.notice.text() and "default model" in window.notice.text()
    assert window.set_workspace(str(project))
    assert window.send_button.isEnabled()


def test_a_broken_saved_model_gives_way_to_the_default(qtbot, home: Path, tmp_path: Path) -> None:
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"not a model" * 10)
    app_paths().ensure().settings_file.write_text(json.dumps({"model_path": str(broken)}))
    window, loader = make_window(qtbot, tmp_path)
    with qtbot.waitSignal(window.modelLoaded, timeout=30000):
        window.start_background()
    assert "broken.gguf could not be loaded" in window.notice.text()
    assert window.model_picker.current_path() == str(loader.default)


def test_a_remembered_server_that_does_not_answer_gives_way_to_the_default(qtbot, home: Path,
                                                                           tmp_path: Path) -> None:
    gone = "server:big-model@http://127.0.0.1:9/v1"  # the discard port: nothing answers there
    app_paths().ensure().settings_file.write_text(json.dumps({"model_path": gone}))
    window, loader = make_window(qtbot, tmp_path)
    with qtbot.waitSignal(window.modelLoaded, timeout=30000):
        window.start_background()
    assert "big-model could not be loaded" in window.notice.text()
    assert window.model_picker.current_path() == str(loader.default)
    assert window.controller.state is ControllerState.IDLE


def test_after_a_broken_file_the_picker_shows_the_model_in_use(qtbot, home: Path,
                                                               tmp_path: Path) -> None:
    window, loader = make_window(qtbot, tmp_path)
    with qtbot.waitSignal(window.modelLoaded, timeout=30000):
        window.start_background()
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"not a model" * 10)
    with qtbot.waitSignal(window.modelFailed, timeout=30000):
        window.load_model(str(broken), remember=True)
    close_boxes(window)
    assert window.model_picker.current_path() == str(loader.default)
    assert window.model_picker.combo.findData(str(broken)) == -1
    assert "Still using fake-default" in window.model_picker.state.text()
    assert window.controller.settings.model_path is None  # the broken file was not remembered


def test_the_model_load_shows_progress_and_send_waits_for_it(qtbot, home: Path, tmp_path: Path,
                                                            project: Path) -> None:
    window, loader = make_window(qtbot, tmp_path)
    window.set_workspace(str(project))
    loader.gate.clear()
    window.start_background()
    assert window.status.bar.isVisible() and "Loading the model" in window.status.text()
    assert window.status.text().endswith(" s")  # the elapsed time
    assert not window.send_button.isEnabled() and not window.model_picker.combo.isEnabled()
    window.question.setPlainText("too early?")
    assert not window.runs.send() and "still loading" in window.notice.text()
    with qtbot.waitSignal(window.modelLoaded, timeout=30000):
        loader.gate.set()
    assert not window.status.bar.isVisible() and window.send_button.isEnabled()


def test_progress_counts_seconds_across_phases() -> None:
    now = [100.0]
    line = ProgressLine(clock=lambda: now[0])
    line.begin("Loading the model")
    assert line.text() == "Loading the model… 0 s" and line.busy
    now[0] += 3.4
    line.step("Running read_file")
    assert line.text() == "Running read_file… 3 s"
    line.end("Answered.")
    assert line.text() == "Answered." and not line.busy


def test_a_missing_model_file_is_reported_as_missing(home: Path, tmp_path: Path) -> None:
    with pytest.raises(ModelLoadError, match="does not exist"):
        SessionController(app_paths()).load_model(tmp_path / "nowhere.gguf")


def test_one_bad_setting_resets_only_itself_and_keeps_a_backup(home: Path) -> None:
    file = app_paths().ensure().settings_file
    original = json.dumps({"n_ctx": 100, "temperature": 0.7, "theme": "dark"})
    file.write_text(original, encoding="utf-8")
    controller = SessionController(app_paths())
    s = controller.settings
    assert (s.n_ctx, s.temperature, s.theme) == (8192, 0.7, "dark")
    assert "Context size" in controller.settings_notice and "n_ctx" not in controller.settings_notice
    backups = list(file.parent.glob("settings.json.broken-*"))
    assert [b.read_text() for b in backups] == [original]
    assert json.loads(file.read_text()) == {"temperature": 0.7, "theme": "dark"}
    assert SessionController(app_paths()).settings_notice == ""  # repaired once, then quiet


def test_backups_made_in_the_same_second_are_all_kept(home: Path, monkeypatch) -> None:
    import app.settings

    monkeypatch.setattr(app.settings.time, "strftime", lambda *_a: "20250101-000000")
    file = app_paths().ensure().settings_file
    for bad in ('{"n_ctx": 1', '{"n_ctx": 2'):
        file.write_text(bad, encoding="utf-8")
        assert SessionController(app_paths()).settings_notice
    kept = sorted(b.read_text() for b in file.parent.glob("settings.json.broken-*"))
    assert kept == ['{"n_ctx": 1', '{"n_ctx": 2']


def test_spin_box_ranges_are_what_validation_accepts(window: MainWindow) -> None:
    from app.settings import Settings

    dialog = window.open_settings()
    for box, field in ((dialog.n_ctx, "n_ctx"), (dialog.n_threads, "n_threads"),
                       (dialog.decode_threads, "decode_threads"),
                       (dialog.max_steps, "max_steps"), (dialog.temperature, "temperature")):
        for value in (box.minimum(), box.maximum()):
            Settings(**{field: value})  # accepted at both ends
        with pytest.raises(ValueError):
            Settings(**{field: box.minimum() - 1})
        with pytest.raises(ValueError):
            Settings(**{field: box.maximum() + 1})
    dialog.reject()


def test_the_settings_notice_stays_when_a_workspace_opens(qtbot, home: Path, tmp_path: Path,
                                                         project: Path) -> None:
    app_paths().ensure().settings_file.write_text('{"n_ctx": 100}', encoding="utf-8")
    window = MainWindow(SessionController(app_paths(), models_home=tmp_path), settings_later=True)
    qtbot.addWidget(window)
    window.adopt_settings()
    assert window.set_workspace(str(project))  # as --workspace does right after
    assert "Context size" in window.notice.text()


def test_corrupt_history_records_are_reported_in_the_window(window: MainWindow,
                                                            project: Path) -> None:
    from app.harness.records import RunStore

    folder = RunStore(app_paths()).folder(project.resolve())
    folder.mkdir(parents=True)
    (folder / "20250101-000000-abcdef.json").write_text("{broken", encoding="utf-8")
    assert window.set_workspace(str(project))
    assert "1 saved question(s)" in window.notice.text() and "set aside" in window.notice.text()


def test_the_busy_notice_goes_when_the_answer_ends(window: MainWindow, qtbot,
                                                   project: Path) -> None:
    window.set_workspace(str(project))
    window.controller.model = ScriptedModel(["one"])
    window.question.setPlainText("one")
    with qtbot.waitSignal(window.runFinished, timeout=30000):
        assert window.runs.send()
        window.question.setPlainText("two")
        assert not window.runs.send() and "already" in window.notice.text()
    assert "already" not in window.notice.text()


def test_the_viewer_colours_code_and_closes(qtbot) -> None:
    from app.gui.viewer import FileViewer

    viewer = FileViewer()
    qtbot.addWidget(viewer)
    viewer.show()
    viewer.show_span(LineSpan("calc.py", 2, 2), "# comment\ndef add(a, b):\n    return a + b\n")
    assert viewer.text.document().blockCount() == 3  # three numbered lines, as "of 3" says
    assert viewer.header.text().endswith("of 3")
    assert viewer.highlighter is not None and viewer.highlighter.language == "Python"
    line = viewer.text.document().findBlockByNumber(1)
    qtbot.waitUntil(lambda: len(line.layout().formats()) > 1)  # `def`, the name, the brackets
    viewer.buttons.button(viewer.buttons.StandardButton.Close).click()
    assert not viewer.isVisible()


def test_the_intro_points_to_the_workspace_on_the_left(window: MainWindow) -> None:
    assert "workspace on the left" in window.chat.toPlainText()


def _files(root: Path, n: int) -> Path:
    root.mkdir()
    for i in range(n):
        (root / f"m{i}.py").write_text(f"def f{i}():\n    return {i}\n")
    return root


def test_indexing_progress_shows_in_the_status_line(qtbot, home: Path, tmp_path: Path) -> None:
    """Issue 11: the first question of a workspace builds its index, and the window says how far."""
    from tests.gui.test_gui_runs import ask

    window, _loader = make_window(qtbot, tmp_path)
    window.set_workspace(str(_files(tmp_path / "proj", 120)))
    window.controller.model = ScriptedModel(["f3 returns 3."])
    window.update_buttons()
    phases: list[str] = []
    step = window.status.step
    window.status.step = lambda text: phases.append(text) or step(text)
    ask(window, qtbot, "what does f3 return?")
    shown = [p for p in phases if p.startswith("Indexing the workspace:")]
    assert shown and shown[-1] == "Indexing the workspace: 120 of 120 files"
    assert phases.index(shown[0]) < phases.index(next(p for p in phases if p.startswith("Writing")))


def test_a_real_run_emits_index_progress_before_the_question(qtbot, home: Path, tmp_path: Path) -> None:
    from app.gui.workers import RunWorker
    from app.harness.session import Session
    from app.settings import Settings

    seen: list = []
    session = Session.open(_files(tmp_path / "proj", 60), ScriptedModel(["f3 returns 3."]), Settings(n_threads=1))
    worker = RunWorker(lambda: session.ask("what does f3 return?"))
    worker.indexProgress.connect(seen.append)
    worker.runStarted.connect(seen.append)
    with qtbot.waitSignal(worker.finished, timeout=60000):
        worker.start()
    session.close()
    kinds = [type(e).__name__ for e in seen]
    assert kinds[-1] == "RunStarted" and kinds[-2] == "IndexReady" and "IndexProgress" in kinds
    assert seen[-2].files == 60 and any(getattr(e, "done", 0) == 60 for e in seen)


def test_the_question_modules_are_imported_beside_the_model_load() -> None:
    """start_background imports what a question runs on a worker thread; a renamed module would
    fail there silently (the warm-up reports nothing), so the names are checked here."""
    import subprocess
    import sys

    code = ("import sys; from app.gui.controller import warm_question_modules; warm_question_modules(); "
            "print(all(m in sys.modules for m in ('app.harness.session', 'app.harness.loop', "
            "'app.llm.server_discovery')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True"

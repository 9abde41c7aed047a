"""Screenshots of the real app under Xvfb (not a test; run by hand, see docs/gui.md).

    Xvfb :99 -screen 0 1280x720x24 &
    DISPLAY=:99 QT_QPA_PLATFORM=xcb BURROW_HOME=$(mktemp -d) \
        .venv/bin/python tests/gui/shoot_screens.py tests/fixtures/sample_project OUTDIR \
        "question || follow-up" [light|dark]

Opens the real window (real model, real loop) on the workspace, asks the questions (separated by
` || `, each continuing the chat), and after each stage runs ImageMagick's `import -window root`
to capture the whole X screen. SHOT_SCRIPTED=1 uses a scripted model instead (layout check).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from app.gui.controller import SessionController
from app.gui.main_window import MainWindow
from app.gui.theme import apply_theme
from app.paths import app_paths

SETTLE_MS = 700  # let the X server draw before capturing (a script, not a test)


def shoot(out: Path, name: str) -> None:
    """The whole X screen: ImageMagick's `import` where installed, else Qt's grab of the root."""
    QApplication.processEvents()
    path = out / f"{name}.png"
    if shutil.which("import"):
        subprocess.run(["import", "-window", "root", str(path)], check=True)
    else:
        QApplication.primaryScreen().grabWindow(0).save(str(path))
    print("captured", name, flush=True)


def main(workspace: str, out_dir: str, question: str, theme: str = "light") -> int:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    app = QApplication(sys.argv[:1])
    controller = SessionController(app_paths())
    controller.apply_settings(theme=theme)
    window = MainWindow(controller)
    window.set_dark(apply_theme(app, theme))
    window.set_workspace(workspace)
    window.showMaximized()
    questions = [q.strip() for q in question.split("||")]

    def ask_next() -> None:
        window.question.setPlainText(questions.pop(0))
        window.runs.send()

    def on_loaded(_name: str) -> None:
        window.question.setPlainText(questions[0])
        QTimer.singleShot(SETTLE_MS, lambda: (shoot(out, f"1-ready-{theme}"), ask_next()))

    def on_finished(_stop: object) -> None:
        if questions:
            QTimer.singleShot(0, ask_next)
            return
        last = window.activity.topLevelItem(window.activity.topLevelItemCount() - 1)
        if last is not None:
            last.setExpanded(True)  # one result excerpt open; the other rows stay visible
        QTimer.singleShot(SETTLE_MS, after_answer)

    def after_answer() -> None:
        shoot(out, f"2-answer-{theme}")
        cited = [c for turn in window.chat.turns for c in turn.citations or ()]
        if cited:
            window.open_citation(cited[0])
            QTimer.singleShot(SETTLE_MS, lambda: (shoot(out, f"3-viewer-{theme}"), app.exit(0)))
        else:
            app.exit(0)

    window.modelLoaded.connect(on_loaded)
    window.runFinished.connect(on_finished)
    if os.environ.get("SHOT_SCRIPTED"):  # layout check without the real model
        QTimer.singleShot(0, lambda: _load_scripted(window))
    else:
        QTimer.singleShot(0, window.start_background)
    return app.exec()


def _load_scripted(window: MainWindow) -> None:
    from app.llm.base import ParsedReply, ParsedToolCall
    from app.llm.scripted import ScriptedModel

    args = '{"path": "notekeeper/store.py"}'
    model = ScriptedModel([
        ParsedReply("", (ParsedToolCall("read_file", {"path": "notekeeper/store.py"}, args),)),
        ParsedReply("The store keeps notes in a JSON file (notekeeper/store.py:1-20).\n\n"
                    "```python\nstore = NoteStore(path)\n```"),
        ParsedReply("It is saved by `NoteManager.save_all()` in notekeeper/manager.py."),
    ], name="scripted (layout check)")
    window.controller.end_model_load(model, "scripted")
    window.model_picker.set_state(f"Ready: {model.name}")
    window.modelLoaded.emit(model.name)


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))

"""Screenshots of the real app under Xvfb (not a test; run by hand, see docs/gui.md).

    Xvfb :99 -screen 0 1280x720x24 &
    DISPLAY=:99 QT_QPA_PLATFORM=xcb BURROW_HOME=$(mktemp -d) \
        .venv/bin/python tests/gui/shoot_screens.py tests/fixtures/sample_project OUTDIR "question"

Opens the real window (real model, real loop) on the workspace, asks the question, and after each
stage runs ImageMagick's `import -window root` to capture the whole X screen.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from app.gui.main_window import MainWindow
from app.gui.session import SessionController
from app.gui.theme import apply_theme
from app.paths import app_paths

SETTLE_MS = 700  # let the X server draw before capturing (a script, not a test)


def shoot(out: Path, name: str) -> None:
    QApplication.processEvents()
    subprocess.run(["import", "-window", "root", str(out / f"{name}.png")], check=True)
    print("captured", name, flush=True)


def main(workspace: str, out_dir: str, question: str, theme: str = "light") -> int:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    app = QApplication(sys.argv[:1])
    controller = SessionController(app_paths())
    controller.apply_settings(theme=theme)
    window = MainWindow(controller)
    window.dark = window.chat.dark = apply_theme(app, theme)
    window.set_workspace(workspace)
    window.showMaximized()

    def on_loaded(_name: str) -> None:
        window.question.setPlainText(question)
        QTimer.singleShot(SETTLE_MS, lambda: (shoot(out, f"1-ready-{theme}"), window.runs.send()))

    def on_finished(_stop: object) -> None:
        last = window.activity.topLevelItem(window.activity.topLevelItemCount() - 1)
        if last is not None:
            last.setExpanded(True)  # one result excerpt open; the other rows stay visible
        QTimer.singleShot(SETTLE_MS, after_answer)

    def after_answer() -> None:
        shoot(out, f"2-answer-{theme}")
        answer = window.runs.last_answer
        if answer and answer.citations:
            window.open_citation(answer.citations[0])
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
    window.controller.model = ScriptedModel([
        ParsedReply("", (ParsedToolCall("read_file", {"path": "notekeeper/store.py"}, args),)),
        ParsedReply("The store keeps notes in a JSON file (notekeeper/store.py:1-20).\n\n"
                    "```python\nstore = NoteStore(path)\n```"),
    ], name="scripted (layout check)")
    window._on_model_loaded(window.controller.model)


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))

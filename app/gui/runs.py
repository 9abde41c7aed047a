"""One question at a time: starts the run worker, routes its signals to the views, stops it."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject

from app.errors import BurrowError
from app.gui.workers import RunWorker
from app.harness.events import (
    AnswerCompleted,
    RunStopped,
    StopReason,
    ToolCallCompleted,
    ToolCallRefused,
)

if TYPE_CHECKING:
    from app.gui.main_window import MainWindow



class RunPresenter(QObject):
    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.w = window
        self.worker: RunWorker | None = None
        self.last_answer: AnswerCompleted | None = None
        self.last_stop: RunStopped | None = None
        self.calls: list[ToolCallCompleted | ToolCallRefused] = []
        self.streamed_chunks = 0
        self.stop_latency_s: float | None = None
        self._stop_asked_at: float | None = None

    # commands ----------------------------------------------------------------------------
    def send(self) -> bool:
        question = self.w.question.toPlainText().strip()
        if not question:
            return False
        if self.w.loading_model:
            self.w.show_notice("The model is still loading; ask again when it is ready.")
            return False
        try:
            cancel = self.w.controller.start_run()
        except BurrowError as exc:
            self.w.show_notice(str(exc))
            return False
        self._reset(question)
        controller = self.w.controller
        self.worker = RunWorker(lambda: controller.iter_run(question, cancel), self)
        self._wire(self.worker)
        self.worker.start()
        self.update_buttons()
        self.w.set_status("Answering…")
        return True

    def stop(self) -> None:
        if self.w.controller.running:
            self._stop_asked_at = time.perf_counter()
            self.w.controller.stop_run()
            self.w.set_status("Stopping…")

    def shutdown(self) -> None:
        self.stop()
        if self.worker is not None:
            self.worker.wait(5000)

    def update_buttons(self) -> None:
        running = self.w.controller.running
        loading = self.w.loading_model
        ready = self.w.controller.model is not None and not loading
        self.w.send_button.setEnabled(ready and not running)
        self.w.stop_button.setEnabled(running)
        self.w.model_picker.set_busy(running or loading)
        self.w.drop_zone.setEnabled(not running)
        self.w.browse_button.setEnabled(not running)
        self.w.recent.setEnabled(not running)

    # plumbing ----------------------------------------------------------------------------
    def _reset(self, question: str) -> None:
        self.last_answer = self.last_stop = None
        self.calls = []
        self.streamed_chunks = 0
        self.stop_latency_s = self._stop_asked_at = None
        self.w.show_notice("")
        self.w.question.clear()
        self.w.activity.clear_calls()
        self.w.chat.begin(question)

    def _wire(self, worker: RunWorker) -> None:
        worker.textStreamed.connect(self._on_worker_textStreamed)
        worker.toolCallProposed.connect(self._on_worker_toolCallProposed)
        worker.toolCallFinished.connect(self._on_worker_toolCallFinished)
        worker.answerCompleted.connect(self._on_worker_answerCompleted)
        worker.runStopped.connect(self._on_worker_runStopped)
        worker.runFailed.connect(self._on_worker_runFailed)
        worker.finished.connect(self._on_worker_finished)

    def _on_worker_textStreamed(self, text: str) -> None:
        self.streamed_chunks += 1
        self.w.chat.append_text(text)

    def _on_worker_toolCallProposed(self, event) -> None:
        self.w.activity.add_proposed(event)
        self.w.set_status(f"Running {event.name}…")

    def _on_worker_toolCallFinished(self, event) -> None:
        self.calls.append(event)
        self.w.activity.add_finished(event)
        self.w.set_status("Thinking…")

    def _on_worker_answerCompleted(self, event: AnswerCompleted) -> None:
        self.last_answer = event
        self.w.chat.finish(event.text, event.citations)

    def _on_worker_runStopped(self, event: RunStopped) -> None:
        self.last_stop = event
        if event.reason is not StopReason.ANSWERED:
            self.w.chat.finish(None, note=event.message)

    def _on_worker_runFailed(self, message: str) -> None:
        self.w.chat.finish(None, note=message)
        self.w.show_notice(message)

    def _on_worker_finished(self) -> None:
        if self._stop_asked_at is not None:
            self.stop_latency_s = time.perf_counter() - self._stop_asked_at
        self.w.controller.finish_run()
        self.update_buttons()
        self.w.set_status(self._summary())
        if self.w.controller.workspace is not None:
            self.w.history.load(self.w.controller, self.w.controller.workspace)
        self.w.runFinished.emit(self.last_stop)

    def _summary(self) -> str:
        stop = self.last_stop
        if stop is None:
            return "The run failed."
        usage = stop.usage
        first = stop.message.split(";")[0].rstrip(".") + "."
        return (f"{first} {stop.steps} step(s), "
                f"{len(self.calls)} tool call(s), {usage.completion_tokens} tokens generated.")

    # history -----------------------------------------------------------------------------
    def show_record(self, run_id: str) -> None:
        if self.w.controller.running:
            self.w.show_notice("Stop the current answer before opening a past one.")
            return
        from app.gui.history import replay_record

        try:
            record = self.w.controller.load_run(run_id)
        except BurrowError as exc:
            self.w.show_notice(str(exc))
            return
        replay_record(record, self.w.chat, self.w.activity)

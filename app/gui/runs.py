"""One question at a time: starts the run worker, routes its events to the views it draws on, and
keeps the chat going. It is handed those views (not the window), and asks the controller's state
what may be done."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

from app.errors import BurrowError, WorkspaceError
from app.gui.chat_view import ChatTurn, ChatView, answered_turn
from app.gui.controller import ControllerState, NoticeKind, SessionController
from app.gui.status import NoticeBar, ProgressLine, index_status
from app.gui.widgets import ActivityPanel, QuestionEdit
from app.gui.workers import RunWorker

if TYPE_CHECKING:  # the harness loads with the first run, not before the window paints
    from app.harness.events import (
        AnswerCompleted,
        RunStarted,
        RunStopped,
        ToolCallCompleted,
        ToolCallProposed,
        ToolCallRefused,
    )
    from app.harness.records import RunRecord

# what the progress line says while the model works (it counts the seconds beside it)
READING_QUESTION = "Reading the question"
READING_RESULTS = "Reading what {tool} returned"
WRITING = "Writing the answer"
INDEXING = "Indexing the workspace: {done} of {total} files"
STOPPING = "Stopping"
CLEARED = "Cleared. The next question still continues this chat (New chat starts afresh); History reopens it."


@dataclass(frozen=True)
class RunViews:
    """The widgets a run draws on."""

    chat: ChatView
    activity: ActivityPanel
    question: QuestionEdit
    notices: NoticeBar
    progress: ProgressLine


class RunPresenter(QObject):
    runFinished = Signal(object)  # the RunStopped event, or None when the run failed
    stopRequested = Signal()

    def __init__(self, controller: SessionController, views: RunViews,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.controller = controller
        self.views = views
        self.worker: RunWorker | None = None
        self._run_id = ""  # the run going (or last gone), once it has started
        self.last_answer: AnswerCompleted | None = None
        self.last_stop: RunStopped | None = None
        self.calls: list[ToolCallCompleted | ToolCallRefused] = []
        self.streamed_chunks = 0
        self._chat_id = ""
        self.index_line = ""  # what the index skipped, said after the run (issue 25, fault 6)

    # commands ----------------------------------------------------------------------------
    def send(self) -> bool:
        question = self.views.question.toPlainText().strip()
        if not question:
            return False
        try:
            cancel = self.controller.start_run()
        except WorkspaceError as exc:  # a workspace notice: choosing one (any way) clears it
            self.views.notices.put(NoticeKind.WORKSPACE, str(exc))
            return False
        except BurrowError as exc:
            self.views.notices.put(NoticeKind.RUN, str(exc))
            return False
        self._reset(question)
        controller = self.controller
        self.worker = RunWorker(lambda: controller.iter_run(question, cancel), self)
        self._wire(self.worker)
        self.worker.start()
        self.views.progress.begin(READING_QUESTION)
        return True

    def stop(self) -> None:
        if self.controller.state is ControllerState.RUNNING:
            self.stopRequested.emit()
            self.controller.stop_run()
            self.views.progress.step(STOPPING)

    def shutdown(self) -> None:
        self.stop()
        if self.worker is not None:
            self.worker.wait(5000)

    def new_chat(self) -> bool:
        """Forget the conversation: the next question starts a new chat."""
        if self.controller.running:
            self.views.notices.put(NoticeKind.RUN, "Stop the current answer before a new chat.")
            return False
        self.controller.new_chat()
        self.views.chat.show_turns([])
        self.views.activity.clear_calls()
        self.views.notices.put(NoticeKind.RUN, "")
        self.views.progress.end("New chat: the next question starts afresh.")
        return True

    def clear_view(self) -> bool:
        """Empty the conversation and activity shown; unlike new_chat, the chat goes on (the next
        question still follows up), and its questions stay in the history."""
        if self.controller.running:
            self.views.notices.put(NoticeKind.RUN, "Stop the current answer before clearing.")
            return False
        self.views.chat.show_turns([])
        self.views.activity.clear_calls()
        self.views.notices.put(NoticeKind.RUN, "")
        self.views.progress.end(CLEARED if self.controller.chat is not None else "Cleared.")
        return True

    def show_chat(self, run_id: str) -> bool:
        """Reopen the chat a past run belongs to; the next question continues it."""
        if self.controller.running:
            self.views.notices.put(NoticeKind.RUN, "Stop the current answer before opening a past one.")
            return False
        try:
            records = self.controller.open_chat(run_id)
        except BurrowError as exc:
            self.views.notices.put(NoticeKind.HISTORY, str(exc))
            return False
        self.views.chat.show_turns([_turn(r) for r in records])
        if records:
            _replay_calls(records[-1], self.views.activity)
        self.views.progress.end(f"Reopened a chat of {len(records)} question(s); ask to continue it.")
        return True

    # plumbing ----------------------------------------------------------------------------
    def _reset(self, question: str) -> None:
        self.last_answer = self.last_stop = None
        self._chat_id = self._run_id = ""
        self.calls = []
        self.streamed_chunks = 0
        self.views.notices.put(NoticeKind.RUN, "")
        self.views.question.clear()
        self.views.activity.clear_calls()
        self.views.chat.begin(question)

    def _wire(self, worker: RunWorker) -> None:
        worker.runStarted.connect(self._on_worker_runStarted)
        worker.indexProgress.connect(self._on_worker_indexProgress)
        worker.textStreamed.connect(self._on_worker_textStreamed)
        worker.toolCallProposed.connect(self._on_worker_toolCallProposed)
        worker.toolCallFinished.connect(self._on_worker_toolCallFinished)
        worker.answerCompleted.connect(self._on_worker_answerCompleted)
        worker.runStopped.connect(self._on_worker_runStopped)
        worker.runFailed.connect(self._on_worker_runFailed)
        worker.finished.connect(self._on_worker_finished)

    def _on_worker_runStarted(self, event: RunStarted) -> None:
        self._chat_id, self._run_id = event.chat_id or event.run_id, event.run_id

    def _on_worker_indexProgress(self, event: object) -> None:
        from app.harness.events import IndexProgress

        if isinstance(event, IndexProgress):
            from app.index.values import describe_wait

            waiting = describe_wait(event.done, event.total) if event.waiting else ""
            self._phase(waiting or INDEXING.format(done=event.done, total=event.total))
        else:
            self.index_line = index_status(event) if event.skipped else ""

    def _on_worker_textStreamed(self, text: str) -> None:
        self.streamed_chunks += 1
        if self.controller.state is ControllerState.RUNNING:
            self._phase(WRITING)
        self.views.chat.append_text(text)

    def _on_worker_toolCallProposed(self, event: ToolCallProposed) -> None:
        self.views.activity.add_proposed(event)
        self._phase(f"Running {event.name}")

    def _on_worker_toolCallFinished(self, event: ToolCallCompleted | ToolCallRefused) -> None:
        self.calls.append(event)
        self.views.activity.add_finished(event)
        self._phase(READING_RESULTS.format(tool=event.name))

    def _phase(self, text: str) -> None:
        if self.views.progress.busy:
            self.views.progress.step(text)

    def _on_worker_answerCompleted(self, event: AnswerCompleted) -> None:
        self.last_answer = event
        self.views.chat.finish_answer(event)
        self.controller.answered(self._chat_id, event)

    def _on_worker_runStopped(self, event: RunStopped) -> None:
        from app.harness.events import StopReason

        self.last_stop = event
        if event.reason is not StopReason.ANSWERED:
            self.views.chat.finish(None, note=event.message)

    def _on_worker_runFailed(self, message: str) -> None:
        self.views.chat.finish(None, note=message)
        self.views.notices.put(NoticeKind.RUN, message)

    def _on_worker_finished(self) -> None:
        if self.last_answer is None and self._run_id:  # its record is saved by now
            self.controller.ended_unanswered(self._chat_id, self._run_id)
        if self.last_stop is not None:  # what was said while it ran no longer holds
            self.views.notices.put(NoticeKind.RUN, "")
        self.controller.finish_run()
        self.views.progress.end(" ".join(filter(None, (self._summary(), self.index_line))))
        self.runFinished.emit(self.last_stop)

    def _summary(self) -> str:
        stop = self.last_stop
        if stop is None:
            return "The run failed."
        first = stop.message.split(";")[0].rstrip(".") + "."
        return (f"{first} {stop.steps} step(s), {len(self.calls)} tool call(s), "
                f"{stop.usage.completion_tokens} tokens generated.")


def _turn(record: RunRecord) -> ChatTurn:
    """A saved run as a finished turn of the conversation."""
    from app.harness.events import AnswerCompleted

    answers = [e for e in record.run_events() if isinstance(e, AnswerCompleted)]
    if answers:
        return answered_turn(record.question, answers[-1])
    note = record.stop_message or "Stopped before an answer."
    return ChatTurn(record.question, record.answer, (), note.strip(), True)


def _replay_calls(record: RunRecord, activity: ActivityPanel) -> None:
    from app.harness.events import ToolCallCompleted, ToolCallProposed, ToolCallRefused

    activity.clear_calls()
    for event in record.run_events():
        if isinstance(event, ToolCallProposed):
            activity.add_proposed(event)
        elif isinstance(event, (ToolCallCompleted, ToolCallRefused)):
            activity.add_finished(event)

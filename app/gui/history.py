"""Past chats of the workspace, newest first; choosing one reopens the chat to continue it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QListWidget, QListWidgetItem, QWidget

from app.gui.qt_values import USER_ROLE

if TYPE_CHECKING:
    from app.harness.records import RunSummary


class HistoryPanel(QListWidget):
    runChosen = Signal(str)  # the id of a run of the chosen chat

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAccessibleName("Past chats")
        self.setWordWrap(True)
        self.setAlternatingRowColors(True)
        self.itemActivated.connect(self._on_self_itemActivated)
        self.itemClicked.connect(self._on_self_itemActivated)

    def show_runs(self, runs: Sequence[RunSummary]) -> None:
        """One row per chat (runs newest first): its first question, when it last ran, how many
        questions it holds and how its last one ended."""
        self.clear()
        for chat in _chats(runs):
            newest, first = chat[0], chat[-1]
            more = f" · {len(chat)} questions" if len(chat) > 1 else ""
            item = QListWidgetItem(f"{first.question}\n{newest.started_at[:16].replace('T', ' ')}"
                                   f" · {newest.stop_reason or 'unfinished'}{more}")
            item.setData(USER_ROLE, newest.id)
            item.setToolTip(newest.answer_excerpt or newest.question)
            self.addItem(item)

    def run_ids(self) -> list[str]:
        return [self.item(i).data(USER_ROLE) for i in range(self.count())]

    def _on_self_itemActivated(self, item: QListWidgetItem) -> None:
        self.runChosen.emit(item.data(USER_ROLE))


def _chats(runs: Sequence[RunSummary]) -> list[list[RunSummary]]:
    """Runs grouped by chat, newest chat first, each newest run first."""
    chats: dict[str, list[RunSummary]] = {}
    for run in runs:
        chats.setdefault(run.chat_id or run.id, []).append(run)
    return list(chats.values())

"""Past chats of the workspace, newest first; choosing one reopens the chat to continue it."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import QSize, Signal
from PySide6.QtWidgets import QListWidget, QListWidgetItem, QStyledItemDelegate, QWidget

from app.gui.qt_values import USER_ROLE

if TYPE_CHECKING:
    from app.harness.records import RunSummary

# A row is its chat's first question on one line, elided to the pane's width, then when and how it
# ended: a pasted 50,000-character question must not fill the pane. The tooltip shows the question
# as written, up to a screenful.
TITLE_CHARS = 200  # more than the widest pane shows; bounds the text Qt lays out for each row
TOOLTIP_CHARS = 1500  # the question's start, when longer; more would not fit on a screen
TOOLTIP_COLUMNS = 80  # a plain-text tooltip does not wrap by itself


class HistoryPanel(QListWidget):
    runChosen = Signal(str)  # the id of a run of the chosen chat

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAccessibleName("Past chats")
        self.setWordWrap(False)  # each line of a row is elided at the pane's edge instead
        self.setItemDelegate(_PaneWideRows(self))
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
            item = QListWidgetItem(f"{_title(first.question)}\n"
                                   f"{newest.started_at[:16].replace('T', ' ')}"
                                   f" · {_ended(newest.stop_reason)}{more}")
            item.setData(USER_ROLE, newest.id)
            item.setToolTip(_tooltip(first.question, newest.answer_excerpt))
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


class _PaneWideRows(QStyledItemDelegate):
    """Rows as wide as the pane, not as their text: a list lays rows out at their widest text
    and scrolls sideways to it, so without this nothing would be elided."""

    def sizeHint(self, option, index) -> QSize:  # noqa: N802 (Qt's name)
        return QSize(0, super().sizeHint(option, index).height())


def _title(question: str) -> str:
    """The question on one line (its line breaks and runs of spaces as one space)."""
    flat = " ".join(question.split())
    return flat if len(flat) <= TITLE_CHARS else flat[: TITLE_CHARS - 1] + "\u2026"


def _tooltip(question: str, answer_excerpt: str) -> str:
    """The question as written (its start when it is long, saying how long), then the answer's
    start."""
    shown = question.strip()
    if len(shown) > TOOLTIP_CHARS:
        shown = f"{shown[:TOOLTIP_CHARS]}\u2026 ({len(question):,} characters)"
    lines = [textwrap.fill(line, TOOLTIP_COLUMNS) for line in shown.splitlines()]
    return "\n".join(lines + ["", answer_excerpt] if answer_excerpt else lines)


def _ended(reason: str | None) -> str:
    """How a chat's last question ended, in the words of prompts.STOP_SHORT."""
    from app.harness.events import StopReason
    from app.harness.prompts import STOP_SHORT

    try:
        return STOP_SHORT[StopReason(reason)] if reason else "unfinished"
    except ValueError:  # a record from a newer Burrow
        return str(reason)

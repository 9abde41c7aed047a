"""The window's two ways of saying how things stand: notices (kept until their cause is gone) and
a progress line (what is being waited for, with the seconds it has taken so far)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QWidget

from app.gui.controller import NoticeKind

if TYPE_CHECKING:
    from app.harness.events import IndexReady

NOTICE_STYLE = "background:#fdecea;color:#611a15;padding:6px;border-radius:4px"
TICK_MS = 1000
INDEX_STATUS = "Index: {files} files, {chunks} chunks; {skipped}."


def index_status(ready: IndexReady) -> str:
    """How the code index stands after the refresh before a question, with what it left out and
    why (an unreadable folder is named), for the status line."""
    from app.index.values import describe_skipped

    skipped = describe_skipped(ready.skipped, ready.skipped_folders) or "nothing skipped"
    return INDEX_STATUS.format(files=ready.files, chunks=ready.chunks, skipped=skipped)


class NoticeBar(QLabel):
    """A red bar above the window's content with one line per current notice."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("", parent)
        self.setAccessibleName("Notice")
        self.setWordWrap(True)
        self.setVisible(False)
        self.setStyleSheet(NOTICE_STYLE)
        self._notices: dict[NoticeKind, str] = {}

    def put(self, kind: NoticeKind, text: str) -> None:
        """Show `text` for `kind` (replacing its previous notice); "" clears that kind."""
        self._notices.pop(kind, None)
        if text:
            self._notices[kind] = text
        self.setText("\n".join(self._notices.values()))
        self.setVisible(bool(self._notices))

    def notice(self, kind: NoticeKind) -> str:
        return self._notices.get(kind, "")


class ProgressLine(QWidget):
    """The status line: a message, or while something runs, a busy bar and its elapsed time."""

    def __init__(self, parent: QWidget | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(parent)
        self._clock = clock
        self.label = QLabel("", self)
        self.label.setAccessibleName("Status")
        self.bar = QProgressBar(self)
        self.bar.setAccessibleName("Progress")
        self.bar.setRange(0, 0)  # busy: how long a load or an answer takes is not known
        self.bar.setMaximumWidth(120)
        self.bar.setMaximumHeight(12)
        self.bar.setTextVisible(False)
        self.bar.setVisible(False)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.bar)
        layout.addWidget(self.label, 1)
        self._timer = QTimer(self)
        self._timer.setInterval(TICK_MS)
        self._timer.timeout.connect(self._on_timer_timeout)
        self._phase = ""
        self._started: float | None = None

    @property
    def busy(self) -> bool:
        return self._started is not None

    def begin(self, phase: str) -> None:
        """Start waiting for something ("Loading the model"); the clock starts at 0 s."""
        self._started = self._clock()
        self.step(phase)
        self.bar.setVisible(True)
        self._timer.start()

    def step(self, phase: str) -> None:
        """A new phase of the same wait (the clock keeps running); plain text when not busy."""
        self._phase = phase
        self._on_timer_timeout()

    def end(self, text: str) -> None:
        self._timer.stop()
        self._started = None
        self.bar.setVisible(False)
        self.step(text)

    def text(self) -> str:
        return self.label.text()

    def _on_timer_timeout(self) -> None:
        if self._started is None:
            self.label.setText(self._phase)
            return
        seconds = int(self._clock() - self._started)
        self.label.setText(f"{self._phase}… {seconds} s")

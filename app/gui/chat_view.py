"""The conversation: questions and answers rendered as Markdown, citations as clickable links.

Streamed text arrives a token at a time; re-rendering Markdown on every token would stall the UI
thread on long answers, so renders are coalesced to at most one per RENDER_INTERVAL_MS.
"""

from __future__ import annotations

import html
import time
from dataclasses import dataclass, field

from PySide6.QtCore import QTimer, QUrl, Signal
from PySide6.QtWidgets import QTextBrowser, QWidget

from app.gui.render import answer_html, parse_cite_href, sources_html
from app.tools.base import LineSpan

RENDER_INTERVAL_MS = 50
RENDER_IDLE_FACTOR = 4  # at least 4x the last render's time passes before the next one
EMPTY_HTML = ("<p style='color:gray'>Ask a question about the workspace below. The answer cites "
              "<i>file:lines</i>; click a citation to see those lines. Every file the model reads "
              "is listed under Tool activity.</p>")


@dataclass
class ChatTurn:
    question: str
    answer: str = ""
    citations: tuple[LineSpan, ...] | None = None  # None while the answer is unverified
    note: str = ""  # how the run ended when not with an answer
    done: bool = False
    html_cache: str = field(default="", repr=False)


class ChatView(QTextBrowser):
    citationClicked = Signal(object)  # LineSpan

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAccessibleName("Conversation")
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self.dark = False
        self.turns: list[ChatTurn] = []
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(RENDER_INTERVAL_MS)
        self._timer.timeout.connect(self.render_now)
        self.anchorClicked.connect(self._on_self_anchorClicked)
        self.render_now()

    def begin(self, question: str) -> None:
        self.turns.append(ChatTurn(question))
        self.render_now()

    def append_text(self, text: str) -> None:
        if self.turns:
            self.turns[-1].answer += text
            if not self._timer.isActive():
                self._timer.start()

    def finish(self, answer: str | None, citations: tuple[LineSpan, ...] = (), note: str = "") -> None:
        """Close the current turn; the verified answer text replaces what streamed."""
        if not self.turns:
            return
        turn = self.turns[-1]
        if answer is not None:
            turn.answer, turn.citations = answer, tuple(citations)
        turn.note = note or turn.note
        turn.done = True
        self.render_now()

    def show_turns(self, turns: list[ChatTurn]) -> None:
        self.turns = turns
        self.render_now()

    def render_now(self) -> None:
        self._timer.stop()
        started = time.perf_counter()
        self.setHtml("".join(self._turn_html(t) for t in self.turns) or EMPTY_HTML)
        self.verticalScrollBar().setValue(self.verticalScrollBar().maximum())
        # a long answer renders slower; space renders out so the UI thread stays mostly idle
        spent_ms = (time.perf_counter() - started) * 1000
        self._timer.setInterval(max(RENDER_INTERVAL_MS, int(spent_ms * RENDER_IDLE_FACTOR)))

    def _turn_html(self, turn: ChatTurn) -> str:
        if turn.done and turn.html_cache:
            return turn.html_cache
        question = html.escape(turn.question).replace("\n", "<br>")
        body = answer_html(turn.answer, turn.citations, self.dark) if turn.answer else (
            "" if turn.done else "<p><i>Thinking…</i></p>")
        sources = sources_html(turn.citations or ())
        note = f"<p><i>{html.escape(turn.note)}</i></p>" if turn.note else ""
        out = f"<h3>❯ {question}</h3>{body}{sources}{note}<hr>"
        if turn.done:
            turn.html_cache = out
        return out

    def answer_plain_text(self) -> str:
        return self.turns[-1].answer if self.turns else ""

    def _on_self_anchorClicked(self, url: QUrl) -> None:
        span = parse_cite_href(url.toString())
        if span is not None:
            self.citationClicked.emit(span)

    def cite_anchor_hrefs(self) -> list[str]:
        """The cite: links in the current document (tests click these)."""
        from app.gui.render import CITE_SCHEME

        doc, hrefs = self.document(), []
        block = doc.begin()
        while block.isValid():
            it = block.begin()
            while not it.atEnd():
                fmt = it.fragment().charFormat()
                if fmt.isAnchor() and fmt.anchorHref().startswith(CITE_SCHEME + ":"):
                    hrefs.append(fmt.anchorHref())
                it += 1
            block = block.next()
        return hrefs

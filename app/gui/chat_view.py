"""The conversation: questions and answers rendered as Markdown, citations as clickable links.

Streamed text arrives a token at a time. Re-rendering the whole answer per token would stall the
UI thread more and more as the answer grows, so while streaming (1) renders are coalesced and
spaced by their own cost, and (2) only the unfinished last block is re-rendered: finished blocks
(paragraphs, closed code fences) are converted once and appended. When the answer is complete,
the verified text is rendered once in full.

The view is built before the window's first paint with its contents, when it shows only a hint:
the renderer (app.gui.render, app.values, html) and the cursor classes load with the first turn.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from PySide6.QtCore import QTimer, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QTextBrowser, QWidget

if TYPE_CHECKING:
    from PySide6.QtCore import QUrl
    from PySide6.QtGui import QTextCursor

    from app.harness.events import AnswerCompleted
    from app.values import LineSpan

RENDER_INTERVAL_MS = 50
RENDER_IDLE_FACTOR = 4  # at least 4x the last render's time passes before the next one
EMPTY_HTML = ("<p style='color:gray'>Ask a question about the workspace on the left. The answer "
              "cites <i>file:lines</i>; click a citation to see those lines. Every file the model "
              "reads is listed under Tool activity. Follow-up questions continue the chat; New chat "
              "(Ctrl+N) starts a fresh one.</p>")


@dataclass
class ChatTurn:
    question: str
    answer: str = ""
    citations: tuple[LineSpan, ...] | None = None  # None while the answer is unverified
    note: str = ""  # how the run ended when not with an answer
    done: bool = False
    support: str = ""  # a Support value once the harness checked the answer ("" when none)
    unverified: tuple[str, ...] = ()  # names the answer uses that the workspace lacks
    detail: tuple[str, ...] = ()  # what the verdict checked: the backing line, or found / closest
    links: tuple[tuple[str, LineSpan], ...] = ()  # workspace paths the answer writes, as links
    html_cache: str = field(default="", repr=False)


def answer_body(event: AnswerCompleted) -> str:
    """The answer without the notes the harness appended (the view draws those itself)."""
    return event.answer


def answered_turn(question: str, event: AnswerCompleted) -> ChatTurn:
    from app.harness.prompts import verdict_detail

    detail = verdict_detail(event)
    return ChatTurn(question, answer_body(event), tuple(event.citations), done=True,
                    support=event.support.value, unverified=tuple(event.unverified),
                    detail=tuple(detail), links=tuple((link.text, link.span) for link in event.links))


class ChatView(QTextBrowser):
    citationClicked = Signal(object)  # LineSpan
    answerCopied = Signal(str)  # the text put on the clipboard

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAccessibleName("Conversation")
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self.dark = False
        self.turns: list[ChatTurn] = []
        self._tail_pos = -1  # document position where the streaming answer's unfinished tail starts
        self._done_chars = 0  # answer characters already appended as finished blocks
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(RENDER_INTERVAL_MS)
        self._timer.timeout.connect(self.render_now)
        self.anchorClicked.connect(self._on_self_anchorClicked)
        # not render_now(): an empty conversation has nothing to scroll to, and asking for the
        # scroll bar wraps it in Python and creates its enums (~1 ms) before the views first paint
        self.setHtml(EMPTY_HTML)

    def begin(self, question: str) -> None:
        self.turns.append(ChatTurn(question))
        self.render_now()

    def append_text(self, text: str) -> None:
        if self.turns and not self.turns[-1].done:
            self.turns[-1].answer += text
            if not self._timer.isActive():
                self._timer.start()

    def _render_stream(self) -> None:
        """Append newly finished blocks once; replace only the unfinished tail."""
        from app.gui.render import answer_html, split_finished_blocks

        started = time.perf_counter()
        turn = self.turns[-1]
        finished, tail = split_finished_blocks(turn.answer[self._done_chars:])
        cursor = self._cursor_at_end(self._tail_pos)
        cursor.removeSelectedText()
        if finished:
            cursor.insertHtml(answer_html(finished, None, self.dark))
            _new_block(cursor)
            self._done_chars += len(finished)
            self._tail_pos = cursor.position()
        if tail.strip():
            cursor.insertHtml(answer_html(tail, None, self.dark))
        self._after_render(started)

    def finish_answer(self, event: AnswerCompleted) -> None:
        """Close the current turn with the checked answer: its text, sources and support."""
        if self.turns:
            checked = answered_turn(self.turns[-1].question, event)
            self.turns[-1].support, self.turns[-1].unverified = checked.support, checked.unverified
            self.turns[-1].detail, self.turns[-1].links = checked.detail, checked.links
            self.finish(checked.answer, checked.citations)

    def finish(self, answer: str | None, citations: tuple[LineSpan, ...] = (), note: str = "") -> None:
        """Close the current turn; the verified answer text replaces what streamed."""
        if not self.turns:
            return
        turn = self.turns[-1]
        if answer is not None:
            turn.answer, turn.citations = answer, tuple(citations)
        turn.note = note or turn.note
        turn.done = True
        self._tail_pos = -1
        self.render_now()

    def show_turns(self, turns: list[ChatTurn]) -> None:
        """Replace the conversation (a reopened chat, or [] for a new one)."""
        self.turns = turns
        self._tail_pos = -1
        self.render_now()

    def render_now(self) -> None:
        """Render every turn in full (used at turn boundaries, not per token)."""
        self._timer.stop()
        if self.turns and not self.turns[-1].done and self._tail_pos >= 0:
            self._render_stream()
            return
        started = time.perf_counter()
        self.setHtml("".join(self._turn_html(t, i) for i, t in enumerate(self.turns)) or EMPTY_HTML)
        self._tail_pos, self._done_chars = -1, 0
        if self.turns and not self.turns[-1].done:  # streaming starts: answer blocks go here
            cursor = self._cursor_at_end()
            _new_block(cursor)
            self._tail_pos = cursor.position()
        self._after_render(started)

    def _cursor_at_end(self, anchor: int | None = None) -> QTextCursor:
        """A cursor at the document's end, selecting from `anchor` when given."""
        from PySide6.QtGui import QTextCursor

        cursor = QTextCursor(self.document())
        if anchor is None:
            cursor.movePosition(QTextCursor.MoveOperation.End)
        else:
            cursor.setPosition(anchor)
            cursor.movePosition(QTextCursor.MoveOperation.End, QTextCursor.MoveMode.KeepAnchor)
        return cursor

    def _after_render(self, started: float) -> None:
        self.verticalScrollBar().setValue(self.verticalScrollBar().maximum())
        # a long answer renders slower; space renders out so the UI thread stays mostly idle
        spent_ms = (time.perf_counter() - started) * 1000
        self._timer.setInterval(max(RENDER_INTERVAL_MS, int(spent_ms * RENDER_IDLE_FACTOR)))

    def _turn_html(self, turn: ChatTurn, index: int) -> str:
        if turn.done and turn.html_cache:
            return turn.html_cache
        from html import escape

        question = "<h3>❯ " + escape(_shown_question(turn.question)).replace("\n", "<br>") + "</h3>"
        if not turn.done:  # the streamed answer is appended below the question
            return question
        turn.html_cache = f"{question}{self._answer_html(turn, index)}<hr>"
        return turn.html_cache

    def _answer_html(self, turn: ChatTurn, index: int) -> str:
        """A finished turn's answer, the sources it does not name, its support badge and note."""
        from html import escape

        from app.gui import render

        body = render.answer_html(turn.answer, turn.citations, self.dark, turn.links) if turn.answer else ""
        body = render.flag_unverified(body, turn.unverified)
        # the answer may already name its sources inline; list only what the text lacks
        linked = {span for _, span in turn.links}  # prose citations are links in the text already
        sources = render.sources_html([c for c in turn.citations or ()
                                       if not _mentions(turn.answer, c) and c not in linked])
        badge = render.support_html(turn.support, turn.unverified, index if turn.answer else None,
                                    turn.detail)
        note = f"<p><i>{escape(turn.note)}</i></p>" if turn.note else ""
        return f"{body}{sources}{badge}{note}"

    def _on_self_anchorClicked(self, url: QUrl) -> None:
        from app.gui.render import COPY_SCHEME, parse_cite_href

        href = url.toString()
        if href.startswith(COPY_SCHEME + ":"):
            self.copy_answer(int(href.split(":", 1)[1]))
            return
        span = parse_cite_href(href)
        if span is not None:
            self.citationClicked.emit(span)

    def copy_answer(self, index: int) -> str:
        """Put a turn's answer on the clipboard (the Copy link under each answer)."""
        text = self.turns[index].answer if 0 <= index < len(self.turns) else ""
        if text:
            QGuiApplication.clipboard().setText(text)
            self.answerCopied.emit(text)
        return text

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


def _new_block(cursor: QTextCursor) -> None:
    """A new paragraph without the formats of the HTML before it."""
    from PySide6.QtGui import QTextBlockFormat, QTextCharFormat

    cursor.insertBlock(QTextBlockFormat(), QTextCharFormat())


def _mentions(text: str, span: LineSpan) -> bool:
    return str(span) in text or f"{span.path}:{span.start_line}-{span.end_line}" in text


QUESTION_SHOWN_CHARS = 2000  # a pasted log as a question is cut here in the chat (the record keeps it whole)


def _shown_question(question: str) -> str:
    if len(question) <= QUESTION_SHOWN_CHARS:
        return question
    return f"{question[:QUESTION_SHOWN_CHARS]}… ({len(question):,} characters; shown in part)"

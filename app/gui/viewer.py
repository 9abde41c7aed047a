"""A read-only file viewer opened from a citation, scrolled to the cited lines and highlighting them,
with the code coloured by pygments (the same styles as code in answers).

It never opens files itself: the text comes from a reader bound to the Workspace, so the same
confinement and secrets rules that bind the model bind the viewer.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable

from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontDatabase,
    QPainter,
    QPalette,
    QSyntaxHighlighter,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextFormat,
)
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPlainTextEdit,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from app.values import LineSpan

CONTEXT_LINES = 3
HIGHLIGHT_MAX_CHARS = 400_000  # larger files show uncoloured: lexing them would stall the window
FileReader = Callable[[str], str]  # workspace-relative path -> text; raises BurrowError


class LineNumberedText(QPlainTextEdit):
    """A read-only plain-text view with line numbers in a left margin (citations name lines)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.gutter = QWidget(self)
        self.gutter.paintEvent = self._paint_gutter
        self.blockCountChanged.connect(self._on_self_blockCountChanged)
        self.updateRequest.connect(self._on_self_updateRequest)
        self._on_self_blockCountChanged()

    def gutter_width(self) -> int:
        return 12 + self.fontMetrics().horizontalAdvance("9") * len(str(max(1, self.blockCount())))

    def _on_self_blockCountChanged(self, _count: int = 0) -> None:
        self.setViewportMargins(self.gutter_width(), 0, 0, 0)

    def _on_self_updateRequest(self, rect: QRect, dy: int) -> None:
        if dy:
            self.gutter.scroll(0, dy)
        else:
            self.gutter.update(0, rect.y(), self.gutter.width(), rect.height())

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        r = self.contentsRect()
        self.gutter.setGeometry(QRect(r.left(), r.top(), self.gutter_width(), r.height()))

    def _paint_gutter(self, event) -> None:
        painter = QPainter(self.gutter)
        painter.fillRect(event.rect(), self.palette().color(QPalette.ColorRole.AlternateBase))
        painter.setPen(self.palette().color(QPalette.ColorRole.PlaceholderText))
        block = self.firstVisibleBlock()
        top = round(self.blockBoundingGeometry(block).translated(self.contentOffset()).top())
        while block.isValid() and top <= event.rect().bottom():
            height = round(self.blockBoundingRect(block).height())
            painter.drawText(0, top, self.gutter.width() - 6, height, Qt.AlignmentFlag.AlignRight,
                             str(block.blockNumber() + 1))
            block, top = block.next(), top + height
        painter.end()


class CodeHighlighter(QSyntaxHighlighter):
    """Colours each line with pygments' tokens for the file's language (by its name).

    The whole file is lexed once and each line takes its colours from that, so a line inside a
    docstring or a multi-line comment is coloured as the string or comment it is part of: lexed on
    its own, "if the value is None" would read as code.
    """

    def __init__(self, document: QTextDocument, file_name: str, dark: bool) -> None:
        super().__init__(None)  # lexed before it is attached: attaching colours the lines
        from pygments.lexers import get_lexer_for_filename
        from pygments.styles import get_style_by_name
        from pygments.util import ClassNotFound

        try:
            self._lexer = get_lexer_for_filename(file_name, stripnl=False, ensurenl=False)
        except ClassNotFound:
            self._lexer = None
        self._style = get_style_by_name("monokai" if dark else "friendly")
        self._formats: dict[object, QTextCharFormat | None] = {}
        self._starts: list[int] = []  # document position where each token starts, ascending
        self._tokens: list[tuple[int, object]] = []  # (end position, token type), in that order
        if self._lexer is not None:
            self._lex(document.toPlainText())
        self.setDocument(document)

    @property
    def language(self) -> str:
        return self._lexer.name if self._lexer is not None else ""

    def _lex(self, text: str) -> None:
        """Token spans by document position (toPlainText keeps one character per position, and
        the unprocessed tokens keep the text's own offsets)."""
        for start, token, value in self._lexer.get_tokens_unprocessed(text + "\n"):
            if value and start < len(text) and self._format(token) is not None:
                self._starts.append(start)
                self._tokens.append((start + len(value), token))

    def highlightBlock(self, text: str) -> None:  # noqa: N802 (Qt's name)
        if not self._starts:
            return
        begin = self.currentBlock().position()
        end = begin + len(text)
        i = max(0, bisect.bisect_right(self._starts, begin) - 1)  # the token the line starts in
        while i < len(self._starts) and self._starts[i] < end:
            token_end, token = self._tokens[i]
            first, last = max(self._starts[i], begin), min(token_end, end)
            if last > first:
                self.setFormat(first - begin, last - first, self._format(token))
            i += 1

    def _format(self, token: object) -> QTextCharFormat | None:
        """The token's colours; None for plain text (whitespace, most names), which is left as
        is: fewer setFormat calls for Qt to lay out."""
        if token not in self._formats:
            style, fmt = self._style.style_for_token(token), QTextCharFormat()
            if style["color"]:
                fmt.setForeground(QColor(f"#{style['color']}"))
            if style["bold"]:
                fmt.setFontWeight(QFont.Weight.Bold)
            if style["italic"]:
                fmt.setFontItalic(True)
            self._formats[token] = fmt if fmt.propertyCount() else None
        return self._formats[token]


class FileViewer(QDialog):
    def __init__(self, parent: QWidget | None = None, dark: bool = False) -> None:
        super().__init__(parent)
        self.setWindowTitle("File viewer")
        self.setAccessibleName("File viewer")
        self.resize(820, 560)
        self._dark = dark
        self.header = QLabel(self)
        self.header.setAccessibleName("Viewed file and lines")
        self.text = LineNumberedText(self)
        self.text.setReadOnly(True)
        self.text.setAccessibleName("File contents")
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.text.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        self.buttons.rejected.connect(self.close)
        self.buttons.button(QDialogButtonBox.StandardButton.Close).setAccessibleName("Close viewer")
        layout = QVBoxLayout(self)
        layout.addWidget(self.header)
        layout.addWidget(self.text)
        layout.addWidget(self.buttons)
        self.span: LineSpan | None = None
        self.highlighter: CodeHighlighter | None = None

    def show_span(self, span: LineSpan, content: str) -> None:
        """Show the file, highlight span's lines and scroll them into view."""
        self.span = span
        total = content.count("\n") + (0 if content.endswith("\n") else 1)
        self.setWindowTitle(f"{span.path} (read-only)")
        self.header.setText(f"{span.path}, {_lines_label(span)} of {total}")
        # the file's final newline ends its last line; it does not start one more (numbered) line
        self.text.setPlainText(content.removesuffix("\n"))
        if self.highlighter is not None:
            self.highlighter.setDocument(None)
        self.highlighter = None
        if len(content) <= HIGHLIGHT_MAX_CHARS:  # coloured now, not a frame after it shows
            self.highlighter = CodeHighlighter(self.text.document(), span.path, self._dark)
            self.highlighter.rehighlight()
        self._highlight(span)

    def _highlight(self, span: LineSpan) -> None:
        doc = self.text.document()
        first = doc.findBlockByNumber(max(0, span.start_line - 1))
        last = doc.findBlockByNumber(max(0, min(span.end_line, doc.blockCount()) - 1))
        cursor = QTextCursor(first)
        # through the newline, so the last line is highlighted across the full width too
        end = min(last.position() + last.length(), doc.characterCount() - 1)
        cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
        selection = QTextEdit.ExtraSelection()
        selection.format.setBackground(QColor("#4a4a10" if self._dark else "#fff3a8"))
        selection.format.setProperty(QTextFormat.Property.FullWidthSelection, True)
        selection.cursor = cursor
        self.text.setExtraSelections([selection])
        self.text.setTextCursor(QTextCursor(first))
        # a plain-text edit scrolls by lines: put the span near the top, with a little context
        self.text.verticalScrollBar().setValue(max(0, span.start_line - 1 - CONTEXT_LINES))
        self.text.ensureCursorVisible()

    def first_visible_line(self) -> int:
        """1-based number of the top line on screen (for tests)."""
        return self.text.cursorForPosition(self.text.viewport().rect().topLeft()).blockNumber() + 1

    def last_visible_line(self) -> int:
        bottom = self.text.viewport().rect().bottomLeft()
        return self.text.cursorForPosition(bottom).blockNumber() + 1

    def highlighted_lines(self) -> tuple[int, int]:
        selections = self.text.extraSelections()  # keep alive: the cursor belongs to it
        cursor = QTextCursor(selections[0].cursor)
        doc = self.text.document()
        return (doc.findBlock(cursor.selectionStart()).blockNumber() + 1,
                doc.findBlock(max(cursor.selectionStart(), cursor.selectionEnd() - 1)).blockNumber() + 1)


def _lines_label(span: LineSpan) -> str:
    if span.start_line == span.end_line:
        return f"line {span.start_line}"
    return f"lines {span.start_line}–{span.end_line}"

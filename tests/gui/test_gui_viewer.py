"""The citation viewer colours a line as it reads in its file (a docstring line is string, not
code), and its header names one line as a line."""

from __future__ import annotations

from app.gui.viewer import FileViewer
from app.values import LineSpan

SOURCE = '''"""Module doc."""


def parse(value):
    """Return the value parsed.

    if the value is None, return it as it is; for a list, parse each item
    and yield from the class of each.
    """
    if value is None:
        return value
    return int(value)
'''


def colour_at(viewer: FileViewer, line: int, column: int) -> str:
    """The text colour the viewer draws at (1-based line, 0-based column)."""
    block = viewer.text.document().findBlockByNumber(line - 1)
    for each in block.layout().formats():
        if each.start <= column < each.start + each.length:
            return each.format.foreground().color().name()
    return ""


def open_viewer(qtbot, span: LineSpan, text: str) -> FileViewer:
    viewer = FileViewer()
    qtbot.addWidget(viewer)
    viewer.show()
    viewer.show_span(span, text)
    return viewer


def test_a_cited_docstring_line_is_coloured_as_the_string_it_is_part_of(qtbot) -> None:
    viewer = open_viewer(qtbot, LineSpan("pkg/parse.py", 7, 8), SOURCE)
    prose_if = colour_at(viewer, 7, 4)  # "if" in the docstring's prose
    docstring = colour_at(viewer, 5, 4)  # the docstring's opening quotes
    keyword_if = colour_at(viewer, 10, 4)  # the real `if` below it
    assert docstring and keyword_if and docstring != keyword_if
    assert prose_if == docstring
    assert colour_at(viewer, 8, 8) == docstring  # "yield", "from", "class" too
    assert viewer.highlighted_lines() == (7, 8)


def test_code_after_a_docstring_is_still_coloured_as_code(qtbot) -> None:
    viewer = open_viewer(qtbot, LineSpan("pkg/parse.py", 10, 11), SOURCE)
    assert colour_at(viewer, 10, 4) == colour_at(viewer, 4, 0)  # `if` as `def`: keywords
    assert colour_at(viewer, 10, 4) != colour_at(viewer, 5, 4)


def test_the_header_names_one_line_as_a_line(qtbot) -> None:
    text = "".join(f"line {i}\n" for i in range(1, 501))
    viewer = open_viewer(qtbot, LineSpan("big.py", 263, 263), text)
    assert viewer.header.text() == "big.py, line 263 of 500"
    viewer.show_span(LineSpan("big.py", 263, 270), text)
    assert viewer.header.text() == "big.py, lines 263–270 of 500"

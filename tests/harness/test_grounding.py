"""Which names an answer mentions, and which shown lines back it (no model needed)."""

from __future__ import annotations

from app.harness.citations import Evidence
from app.harness.grounding import NameLookup, Support, check_answer, mentioned_names
from app.tools.base import TextHit
from app.values import LineSpan

FILES = ("src/app/config.py", "README.md", "src/app/store.py")


def names() -> NameLookup:
    symbols = {"load_config", "MAX_NOTE_LENGTH", "Store", "add"}
    return NameLookup(lambda p: any(f == p or f.endswith("/" + p) for f in FILES),
                      lambda s: s.rsplit(".", 1)[-1] in symbols)


def evidence(lines: dict[tuple[str, int], str]) -> Evidence:
    ev = Evidence(lambda span: "same")
    hits = [TextHit(LineSpan(path, n, n), text) for (path, n), text in lines.items()]
    ev.add([LineSpan(path, 1, 100) for path in {p for p, _ in lines}], hits)
    return ev


def test_names_are_paths_and_code_symbols_not_prose_or_urls() -> None:
    paths, symbols = mentioned_names(
        "See `src/app/config.py` and store.py:3-9; `load_config()` calls Store.add() and "
        "parseSettings. Docs at https://example.com/x.py say the user_id is read. Plain words stay.")
    assert paths == ["src/app/config.py", "store.py"]
    assert symbols == ["load_config", "Store.add", "parseSettings", "user_id"]


def test_the_lines_an_answer_uses_become_its_sources() -> None:
    ev = evidence({("src/app/config.py", 12): "MAX_NOTE_LENGTH = 500",
                   ("src/app/config.py", 13): "EDITOR = 'nano'",
                   ("README.md", 1): "# Notes app"})
    check = check_answer("Notes are at most 500 characters long.", "How long can a note be?", (),
                         ev, names(), 10, 5)
    assert check.sources == (LineSpan("src/app/config.py", 12, 12),)
    assert check.support is Support.SUPPORTED and check.unverified == ()


def test_words_from_the_question_alone_do_not_make_a_source() -> None:
    ev = evidence({("README.md", 3): "Notes are stored in a JSON file."})
    check = check_answer("Notes are stored in a database.", "Where are notes stored?", (), ev,
                         names(), 10, 5)
    assert check.sources == () and check.support is Support.NONE


def test_invented_names_make_a_backed_answer_partial() -> None:
    ev = evidence({("src/app/config.py", 29): "def load_config(path):"})
    check = check_answer("`load_config` in config.py reads it, then `validate_user` in cmd/tasks.go.",
                         "How is the config read?", (), ev, names(), 10, 5)
    assert check.unverified == ("cmd/tasks.go", "validate_user")
    assert check.support is Support.PARTIAL and check.sources[0].path == "src/app/config.py"


def test_changed_lines_are_not_sources() -> None:
    ev = Evidence(lambda span: "now different")
    ev.shown[LineSpan("src/app/config.py", 1, 100)] = "as read"
    ev.lines[LineSpan("src/app/config.py", 12, 12)] = "MAX_NOTE_LENGTH = 500"
    check = check_answer("It is 500.", "What is the limit?", (), ev, names(), 10, 5)
    assert check.sources == () and check.support is Support.NONE


def test_names_written_as_code_back_an_answer_as_whole_names() -> None:
    ev = evidence({("setup.py", 40): "    extras_require={'cli': ['click>=5.0',]},",
                   ("src/app/store.py", 7): "client = connect(clients=3)"})
    check = check_answer("Install the `cli` extra.", "Which extra does the command-line tool need?",
                         (), ev, names(), 10, 5)
    assert check.sources == (LineSpan("setup.py", 40, 40),)  # `cli` is not in "client"


def test_a_code_span_counts_the_names_inside_it_not_the_question_s() -> None:
    ev = evidence({("lib/view.js", 81): "  var fn = require(mod).__express",
                   ("lib/view.js", 90): "  // the template engine module, by extension"})
    check = check_answer("It expects `require(mod).__express`.",
                         "What must an Express template engine module export?", (), ev,
                         names(), 10, 5)
    assert check.sources == (LineSpan("lib/view.js", 81, 81),)

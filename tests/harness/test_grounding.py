"""Which names an answer mentions, and which shown lines back it (no model needed)."""

from __future__ import annotations

from app.harness.citations import Evidence, find_prose_citations
from app.harness.grounding import NameLookup, Support, asked_names, check_answer, mentioned_names
from app.harness.verdict import ShownLine
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
    # a runtime's name is no file: "ws needs Node.js 10" was flagged "Not found in this workspace"
    assert mentioned_names("ws needs Node.js >=10 (package.json), like Vue.js apps do.")[0] == ["package.json"]
    # nor a language's: "converts them into JavaScript objects" struck "JavaScript" through as missing
    assert mentioned_names("qs.parse turns them into JavaScript objects, as on GitHub and macOS; "
                           "see parseQuery.")[1] == ["parseQuery"]


def test_the_lines_an_answer_uses_become_its_sources() -> None:
    ev = evidence({("src/app/config.py", 12): "MAX_NOTE_LENGTH = 500",
                   ("src/app/config.py", 13): "EDITOR = 'nano'",
                   ("README.md", 1): "# Notes app"})
    check = check_answer("`MAX_NOTE_LENGTH` is 500.", "How long can a note be?", (),
                         ev, names(), 10, 5)
    assert check.sources == (LineSpan("src/app/config.py", 12, 12),)
    assert check.support is Support.BACKED and check.unverified == ()
    assert check.verdict.backing[0].span == LineSpan("src/app/config.py", 12, 12)


def test_words_from_the_question_alone_do_not_make_a_source() -> None:
    ev = evidence({("README.md", 3): "Notes are stored in a JSON file."})
    check = check_answer("Notes are stored in a database.", "Where are notes stored?", (), ev,
                         names(), 10, 5)
    assert check.sources == () and check.support is Support.NOT_BACKED
    assert check.verdict.closest[0].span == LineSpan("README.md", 3, 3)  # where the user can look


def test_invented_names_make_a_backed_answer_partial() -> None:
    ev = evidence({("src/app/config.py", 29): "def load_config(path):"})
    check = check_answer("`load_config` in config.py reads it, then `validate_user` in cmd/tasks.go.",
                         "How is the config read?", (), ev, names(), 10, 5)
    assert check.unverified == ("cmd/tasks.go", "validate_user")
    assert check.support is Support.PARTLY and check.sources[0].path == "src/app/config.py"


def test_changed_lines_are_not_sources() -> None:
    ev = Evidence(lambda span: "now different")
    ev.shown[LineSpan("src/app/config.py", 1, 100)] = "as read"
    ev.lines[LineSpan("src/app/config.py", 12, 12)] = "MAX_NOTE_LENGTH = 500"
    check = check_answer("It is 500.", "What is the limit?", (), ev, names(), 10, 5)
    assert check.sources == () and check.support is Support.NOT_BACKED


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


def test_a_neighbouring_value_is_not_backed_by_a_line_about_another_subject() -> None:
    """The eval's failure: a real line holds the answer's value, but it is about something else."""
    ev = evidence({("lib/application.js", 82): "  this.set('etag', 'weak');",
                   ("lib/application.js", 84): "  this.set('query parser', 'extended');",
                   ("lib/utils.js", 91): "    case 'simple':"})
    found_anywhere = NameLookup(lambda p: True, lambda s: True)  # every name is in the workspace
    right = check_answer("The default query parser is `extended`.",
                         "Which query parser does an app use by default?", (), ev, found_anywhere, 10, 5)
    wrong = check_answer("The default query parser is `simple`.",
                         "Which query parser does an app use by default?", (), ev, found_anywhere, 10, 5)
    assert right.support is Support.BACKED
    assert right.verdict.backing[0].text == "  this.set('query parser', 'extended');"
    assert wrong.support is Support.PARTLY and "simple" in wrong.verdict.found


def test_a_prose_citation_is_a_citation_checked_against_the_file() -> None:
    ev = evidence({("src/app/config.py", 12): "MAX_NOTE_LENGTH = 500"})
    disk = {LineSpan("src/app/store.py", 3, 4): (ShownLine(LineSpan("src/app/store.py", 3, 3), "class Store:"),
                                                   ShownLine(LineSpan("src/app/store.py", 4, 4), "    pass"))}
    lookup = NameLookup(names().has_path, names().has_symbol,
                        lambda p: next((f for f in FILES if f == p or f.endswith("/" + p)), None),
                        lambda span: disk.get(span, ()))
    check = check_answer("The note store is `Store`, in `store.py`, lines 3-4.",
                         "Where is the note store defined?", (), ev, lookup, 10, 5)
    assert check.sources == (LineSpan("src/app/store.py", 3, 4),)
    assert check.support is Support.BACKED
    missing = check_answer("See `store.py`, lines 300-310.", "Where is the note store defined?", (), ev,
                           lookup, 10, 5)
    assert LineSpan("src/app/store.py", 300, 310) not in missing.sources  # past the file's end


def test_an_answer_that_names_the_wrong_file_for_a_definition_is_not_backed() -> None:
    ev = evidence({("src/app/config.py", 29): "def load_config(path):",
                   ("src/app/store.py", 1): "import json"})
    check = check_answer("The config is parsed in src/app/store.py:1.", "Where is the config parsed?",
                         (LineSpan("src/app/store.py", 1, 1),), ev, names(), 10, 5)
    assert check.support is Support.NOT_BACKED


def test_prose_citations_in_the_forms_models_write() -> None:
    forms = {"is in the `src/pkg/app.py` file, lines 1566-1616": ("src/pkg/app.py", 1566, 1616),
             "is defined in `src/pkg/scaffold.py`, lines 335-365": ("src/pkg/scaffold.py", 335, 365),
             "see src/a.py, line 9.": ("src/a.py", 9, 9),
             "in src/a.py (lines 12\u201330)": ("src/a.py", 12, 30),
             "src/a.py#L12-L30": ("src/a.py", 12, 30),
             "at lines 152-153 of `src/dotenv/main.py`": ("src/dotenv/main.py", 152, 153),
             "In the `lib/application.js` file, it is located at line 194.": ("lib/application.js", 194, 194)}
    for text, (path, start, end) in forms.items():
        (found,) = find_prose_citations(text)
        assert (found.path, found.start_line, found.end_line) == (path, start, end), text
    assert find_prose_citations("README.md:202-220 and 5 lines") == []
    # a list of lines and ranges before the path: each is a citation (a user's check on google/uuid:
    # "294" of "the lines 23 and 283-294 of the uuid.go file" was checked as a value the answer gave)
    listed = find_prose_citations("This is found in the lines 23 and 283-294 of the uuid.go file.")
    assert [(c.path, c.start_line, c.end_line) for c in listed] == [("uuid.go", 23, 23), ("uuid.go", 283, 294)]
    listed = find_prose_citations("see lines 5, 7, and 10 to 12 in `foo.py`")
    assert [(c.start_line, c.end_line) for c in listed] == [(5, 5), (7, 7), (10, 12)]
    listed = find_prose_citations("in `src/a.py`, lines 12 and 30")  # after the path too: two lines, not 12-30
    assert [(c.path, c.start_line, c.end_line) for c in listed] == [("src/a.py", 12, 12), ("src/a.py", 30, 30)]


def test_the_numbers_of_a_list_of_lines_are_no_claims() -> None:
    """The answer of 256 bytes was right, but "294" from its line list was a value found nowhere,
    and with the model unsure of 256 the answer was called a guess (not backed)."""
    lines = {("uuid.go", 37): "const randPoolSize = 16 * 16 // 256 bytes"}
    ev = evidence(lines)
    lookup = NameLookup(lambda p: p == "uuid.go", lambda s: False, lambda p: "uuid.go" if p == "uuid.go" else None,
                        lambda span: tuple(ShownLine(LineSpan("uuid.go", n, n), "x") for n in
                                           range(span.start_line, min(span.end_line, 294) + 1)))
    answer = "The pool holds 256 bytes. This is found in the lines 23 and 283-294 of the uuid.go file."
    check = check_answer(answer, "How many bytes does the randomness pool hold?", (), ev, lookup, 10, 5)
    assert not any("294" in m or "283" in m for m in check.verdict.missing), check.verdict.missing
    assert "256" in check.verdict.found


def _load_config_defined_in_config_py() -> tuple[Evidence, NameLookup]:
    """Shown: load_config's definition in config.py and a call in store.py; the symbol table
    defines it in config.py."""
    ev = evidence({("src/app/config.py", 29): "def load_config(path):",
                   ("src/app/store.py", 3): "config = load_config(PATH)"})
    table = {"load_config": (LineSpan("src/app/config.py", 29, 29),)}
    lookup = NameLookup(names().has_path, names().has_symbol,
                        lambda p: next((f for f in FILES if f == p or f.endswith("/" + p)), None),
                        lambda span: (ShownLine(span, "def load_config(path):"),),
                        lambda name: table.get(name, ()))
    return ev, lookup


def test_a_where_answer_is_checked_against_the_symbol_table() -> None:
    """Issue 22: "where is X defined" has one answer in the index; an answer naming another file is
    not backed whatever it cites, and shows the definition instead."""
    ev, lookup = _load_config_defined_in_config_py()
    wrong = check_answer("`load_config` is defined in `src/app/store.py`.", "Where is load_config defined?",
                         (), ev, lookup, 10, 5)
    right = check_answer("`load_config` is defined in `src/app/config.py`.", "Where is load_config defined?",
                         (), ev, lookup, 10, 5)
    assert wrong.support is Support.NOT_BACKED
    assert wrong.verdict.closest[0].span == LineSpan("src/app/config.py", 29, 29)
    assert right.support is Support.BACKED
    assert right.verdict.backing[0].span == LineSpan("src/app/config.py", 29, 29)


def test_of_several_definitions_in_the_named_file_the_one_the_answer_cites_is_shown() -> None:
    """once_cell's src/lib.rs defines `Lazy` twice (unsync, sync) and has impl blocks for each; the
    answer cited the sync struct's lines, and the line shown was an impl block 17 lines below it."""
    lines = {("src/lib.rs", 684): "    pub struct Lazy<T, F = fn() -> T> {",
             ("src/lib.rs", 1220): "    pub struct Lazy<T, F = fn() -> T> {",
             ("src/lib.rs", 1235): "    unsafe impl<T, F: Send> Sync for Lazy<T, F> where OnceCell<T>: Sync {}"}
    ev = evidence(lines)
    table = (LineSpan("src/lib.rs", 1235, 1235), LineSpan("src/lib.rs", 684, 684), LineSpan("src/lib.rs", 1220, 1220))
    lookup = NameLookup(lambda p: p == "src/lib.rs", lambda s: s == "Lazy", lambda p: p if p == "src/lib.rs" else None,
                        lambda span: (ShownLine(span, lines[(span.path, span.start_line)]),),
                        lambda name: table if name == "Lazy" else ())
    question = "Where is the sync `Lazy` type defined?"
    cited = check_answer("It is at src/lib.rs:1187-1219.", question, (LineSpan("src/lib.rs", 1187, 1219),), ev,
                         lookup, 10, 5)
    assert cited.support is Support.BACKED
    assert cited.verdict.backing[0].span == LineSpan("src/lib.rs", 1220, 1220)
    # no lines cited: the first definition in the file
    named = check_answer("`Lazy` is defined in `src/lib.rs`.", question, (), ev, lookup, 10, 5)
    assert named.verdict.backing[0].span == LineSpan("src/lib.rs", 684, 684)


def test_a_backing_line_outside_the_range_the_answer_cites_is_its_first_source() -> None:
    # a small model cites the header of a neighbouring chunk for a value it read elsewhere
    ev = evidence({("src/app/config.py", 3): "import os",
                   ("src/app/config.py", 12): "MAX_NOTE_LENGTH = 500"})
    cited = (LineSpan("src/app/config.py", 1, 4),)
    check = check_answer("`MAX_NOTE_LENGTH` is 500 (src/app/config.py:1-4).", "How long can a note be?",
                         cited, ev, names(), 10, 5)
    assert check.support is Support.BACKED
    assert check.sources == (LineSpan("src/app/config.py", 12, 12), *cited)


def test_a_backing_line_the_cited_range_misses_is_added_after_it() -> None:
    ev = evidence({("src/app/config.py", 10): "# the length of a note",
                   ("src/app/config.py", 12): "MAX_NOTE_LENGTH = 500"})
    cited = (LineSpan("src/app/config.py", 9, 10),)  # names the subject (note length), not the value
    check = check_answer("`MAX_NOTE_LENGTH` is 500 (src/app/config.py:9-10).", "How long can a note be?",
                         cited, ev, names(), 10, 5)
    assert check.sources == (*cited, LineSpan("src/app/config.py", 12, 12))
    held = (LineSpan("src/app/config.py", 11, 12),)  # a range that holds the backing line: nothing added
    check = check_answer("`MAX_NOTE_LENGTH` is 500 (src/app/config.py:11-12).", "How long can a note be?",
                         held, ev, names(), 10, 5)
    assert check.sources == held


def test_a_citation_by_the_end_of_a_shown_path_is_that_files_written_in_full() -> None:
    from app.harness.citations import StreamingCitationFilter, verify_answer

    ev = evidence({("src/dotenv/parser.py", 72): "def parse_stream(stream):",
                   ("src/app/config.py", 3): "x = 1", ("tests/app/config.py", 3): "y = 2"})
    text, kept = verify_answer("It is parser.py:72-75 and `dotenv/parser.py:72`.", ev)
    assert text == "It is src/dotenv/parser.py:72-75 and `src/dotenv/parser.py:72`."
    assert kept == (LineSpan("src/dotenv/parser.py", 72, 75), LineSpan("src/dotenv/parser.py", 72, 72))
    # two shown files end so: which one is meant is not known, so the citation is cut
    assert verify_answer("See config.py:3.", ev) == ("See.", ())
    streamed = StreamingCitationFilter(ev)
    assert streamed.feed("In parser.py:72 ") + streamed.flush() == "In src/dotenv/parser.py:72 "


def test_a_which_file_answer_cites_the_definition_in_the_file_it_names() -> None:
    """"Which file defines the JSON formatter?" answered "json_formatter.go" drew on no shown line,
    so it cited nothing; the file's own definition of the subject is where the user should look."""
    files = ("json_formatter.go", "text_formatter.go")
    outline = {"json_formatter.go": (ShownLine(LineSpan("json_formatter.go", 12, 12), "func init() {"),
                                     ShownLine(LineSpan("json_formatter.go", 24, 24), "type JSONFormatter struct {"))}
    lookup = NameLookup(lambda p: p in files, lambda s: False, lambda p: p if p in files else None,
                        definitions=lambda name: (), defined_in=lambda path: outline.get(path, ()))
    ev = evidence({("text_formatter.go", 30): "type TextFormatter struct {",
                   ("json_formatter.go", 22): "// JSONFormatter formats logs into parsable json"})
    check = check_answer("The file that defines the JSON formatter is `json_formatter.go`.",
                         "Which file defines the JSON formatter?", (), ev, lookup, 10, 5)
    assert check.support is Support.PARTLY, check.verdict
    assert check.sources[0] == LineSpan("json_formatter.go", 24, 24)
    assert LineSpan("json_formatter.go", 22, 22) in check.sources  # a shown line of it naming the subject
    assert LineSpan("json_formatter.go", 12, 12) not in check.sources  # a definition of something else
    # not a "where" question: no definitions are looked up
    other = check_answer("It is in `json_formatter.go`.", "How are fields sorted?", (), ev, lookup, 10, 5)
    assert LineSpan("json_formatter.go", 24, 24) not in other.sources


def test_where_a_function_is_called_from_is_not_checked_as_its_definition() -> None:
    """"Where is load_config called from?" is answered with the callers' files, which do not define
    it: the symbol table's word on definitions does not apply (it made right answers not backed)."""
    ev, lookup = _load_config_defined_in_config_py()
    check = check_answer("`load_config` is called in `src/app/store.py`: `config = load_config(PATH)`.",
                         "Where is load_config called from?", (), ev, lookup, 10, 5)
    assert check.support is not Support.NOT_BACKED
    assert not any("in the file named" in m for m in check.verdict.missing)
    assert check.sources[0] == LineSpan("src/app/store.py", 3, 3)


def _config_xml_parsed_in_java() -> tuple[Evidence, NameLookup]:
    """A Java project whose config.xml is parsed by ConfigXmlParser (a user's check, cordova-android)."""
    parser = "framework/src/org/apache/cordova/ConfigXmlParser.java"
    files = (parser, "framework/src/org/apache/cordova/Config.java", "templates/project/res/xml/config.xml")
    ev = evidence({(parser, 31): "public class ConfigXmlParser {",
                   (parser, 36): 'private static String DEFAULT_HOSTNAME = "localhost";',
                   ("templates/project/res/xml/config.xml", 26): '<widget id="org.apache.cordova" version="1.0">'})
    table = {"ConfigXmlParser": (LineSpan(parser, 31, 31),)}
    lookup = NameLookup(lambda p: any(f == p.rstrip("/") or f.endswith("/" + p.rstrip("/"))
                                      or f.startswith(p.rstrip("/") + "/") for f in files),
                        lambda s: s == "ConfigXmlParser",
                        lambda p: next((f for f in files if f == p or f.endswith("/" + p)), None),
                        lambda span: (ShownLine(span, "public class ConfigXmlParser {"),),
                        lambda name: table.get(name, ()))
    return ev, lookup


def test_a_file_the_question_names_is_not_where_the_answer_says_it_is() -> None:
    """"Where is config.xml parsed?" answered "in the ConfigXmlParser class" repeats the question's
    file: that is not the answer naming config.xml as the place, so the symbol table, which defines
    ConfigXmlParser elsewhere, does not make a right answer "not backed" (it did)."""
    ev, lookup = _config_xml_parsed_in_java()
    check = check_answer("The config.xml is parsed in the `ConfigXmlParser` class.",
                         "Where is config.xml parsed?", (), ev, lookup, 10, 5)
    assert check.support is Support.BACKED, check.verdict
    assert check.verdict.backing[0].span.path.endswith("ConfigXmlParser.java")
    # an answer that says the question's file is the place is still checked against the table
    wrong = check_answer("It is parsed in `templates/project/res/xml/config.xml` by `ConfigXmlParser`.",
                         "Where is config.xml parsed?", (), ev, lookup, 10, 5)
    assert wrong.support is not Support.BACKED


def test_a_folder_the_answer_names_is_a_place_checked_against_the_symbol_table() -> None:
    """"... the `ConfigXmlParser` class, which is located in the `framework/src/org/apache/cordova/`
    directory": the folder is where the answer says the class is, not a value to find in a line; the
    folder that holds the defining file agrees with the symbol table, another one does not."""
    ev, lookup = _config_xml_parsed_in_java()
    question = "Where is config.xml parsed?"
    right = check_answer("The config.xml is parsed in the `ConfigXmlParser` class, which is located in the "
                         "`framework/src/org/apache/cordova/` directory.", question, (), ev, lookup, 10, 5)
    assert right.support is Support.BACKED, right.verdict
    assert not any("framework" in m for m in right.verdict.missing)
    wrong = check_answer("It is parsed by `ConfigXmlParser`, in the templates/project/res/xml folder.",
                         question, (), ev, lookup, 10, 5)
    assert wrong.support is Support.NOT_BACKED, wrong.verdict
    assert any("in the file named" in m for m in wrong.verdict.missing)


def test_a_citation_of_lines_never_shown_keeps_its_shown_file_as_plain_text() -> None:
    """"set to 1024 in the file lib/ultrajson.h:273-274." (line 65 was shown, 273 was not): cutting
    the whole citation left "in the file."; the file was shown, so its path stays, without lines."""
    from app.harness.citations import StreamingCitationFilter, verify_answer

    ev = evidence({("lib/ultrajson.h", 65): "#define JSON_MAX_RECURSION_DEPTH 1024"})
    text = "It is set to 1024 in the file lib/ultrajson.h:273-274, see also lib/other.h:3."
    assert verify_answer(text, ev) == ("It is set to 1024 in the file lib/ultrajson.h, see also.", ())
    streamed = StreamingCitationFilter(ev)
    out = "".join(streamed.feed(text[i:i + 7]) for i in range(0, len(text), 7)) + streamed.flush()
    assert out == "It is set to 1024 in the file lib/ultrajson.h, see also ."
    assert verify_answer("In ultrajson.h:65.", ev) == ("In lib/ultrajson.h:65.", (LineSpan("lib/ultrajson.h", 65, 65),))


def test_a_where_answer_citing_other_lines_of_the_right_file_is_partly_backed() -> None:
    """A user's check on debug: "Where is the enable function defined?" answered src/common.js:231-269
    (the end of `setup`, where `createDebug.enable(...)` is called) and was backed; `function enable`
    is at line 162. The name is a plain word, "the enable function"; the file is right, the lines
    are not, and the user who clicks them lands elsewhere."""
    source = {("src/common.js", 162): "\tfunction enable(namespaces) {",
              ("src/common.js", 269): "\tcreateDebug.enable(createDebug.load());"}
    ev = evidence(source)
    table = {"enable": (LineSpan("src/common.js", 162, 205),)}
    lookup = NameLookup(lambda p: p == "src/common.js", lambda s: s == "enable",
                        lambda p: "src/common.js" if p.endswith("common.js") else None,
                        lambda span: (ShownLine(span, source[(span.path, span.start_line)]),),
                        lambda name: table.get(name, ()))
    question = "Where is the enable function defined?"
    apart = check_answer("The enable function is defined in src/common.js:231-269.", question,
                         (LineSpan("src/common.js", 231, 269),), ev, lookup, 10, 5)
    assert apart.support is Support.PARTLY
    assert "enable at src/common.js:162, not in the lines cited" in apart.verdict.missing
    assert apart.verdict.closest[0].span == LineSpan("src/common.js", 162, 162)
    for cited in (LineSpan("src/common.js", 160, 170), LineSpan("src/common.js", 180, 190)):  # at it, in its body
        inside = check_answer(f"The enable function is defined in {cited.path}:{cited.start_line}-{cited.end_line}.",
                              question, (cited,), ev, lookup, 10, 5)
        assert inside.support is Support.BACKED, cited
    # asked where it is implemented for a type, the table's definition decides nothing
    implements = check_answer("See src/common.js:231-269.", "Which file implements the enable function for Node?",
                              (LineSpan("src/common.js", 231, 269),), ev, lookup, 10, 5).verdict.missing
    assert not any("not in the lines cited" in m for m in implements), implements


def test_a_where_question_asks_for_the_thing_it_names_by_its_kind_not_the_names_around_it() -> None:
    """A user's check on h11: "Where is the Sentinel metaclass that NEED_DATA, PAUSED and the state
    constants are built on defined?" answered h11/_connection.py (where NEED_DATA and PAUSED are
    made with it) and was backed by `class NEED_DATA(Sentinel, metaclass=Sentinel):`, found as the
    definition the question described; `class Sentinel(type):` is in h11/_util.py."""
    source = {("h11/_util.py", 115): "class Sentinel(type):",
              ("h11/_connection.py", 40): "class NEED_DATA(Sentinel, metaclass=Sentinel):",
              ("h11/_connection.py", 44): "class PAUSED(Sentinel, metaclass=Sentinel):"}
    ev = evidence(source)
    table = {"Sentinel": (LineSpan("h11/_util.py", 115, 130),), "NEED_DATA": (LineSpan("h11/_connection.py", 40, 41),),
             "PAUSED": (LineSpan("h11/_connection.py", 44, 45),)}
    lookup = NameLookup(lambda p: p in ("h11/_util.py", "h11/_connection.py"), lambda s: s in table,
                        lambda p: p if p in ("h11/_util.py", "h11/_connection.py") else None,
                        lambda span: (ShownLine(span, source[(span.path, span.start_line)]),),
                        lambda name: table.get(name, ()),
                        definition_names=lambda: tuple((spans[0].path, name) for name, spans in table.items()))
    question = "Where is the Sentinel metaclass that NEED_DATA, PAUSED and the state constants are built on defined?"
    wrong = check_answer("The Sentinel metaclass is defined in the `h11/_connection.py` file, lines 39-44.",
                         question, (), ev, lookup, 10, 5)
    assert wrong.support is Support.NOT_BACKED, wrong.verdict
    assert "Sentinel in the file named" in wrong.verdict.missing
    assert wrong.verdict.closest[0].span == LineSpan("h11/_util.py", 115, 115)
    right = check_answer("The Sentinel metaclass is defined in `h11/_util.py`.", question, (), ev, lookup, 10, 5)
    assert right.support is Support.BACKED, right.verdict
    assert asked_names(question)[0] == "Sentinel"


def test_a_file_inside_quoted_code_is_no_file_the_answer_names() -> None:
    """A user's check on tomli: the answer quoted the error "... use `open('foo.toml', 'rb')`", and
    foo.toml, which the workspace lacks, made a right answer partly backed as naming a missing file."""
    answer = "It raises: use `open('foo.toml', 'rb')`, see `src/tomli/_parser.py` and pyproject.toml."
    paths, _ = mentioned_names(answer)
    assert paths == ["src/tomli/_parser.py", "pyproject.toml"]


def test_a_where_answer_naming_the_defining_file_in_words_of_place_is_backed() -> None:
    """A user's check on redux: "Where is the dispatch function defined?" answered "in the
    `dispatch` function inside the `createStore.ts` file, which is located in the `src`
    directory": right (a helper of createStore), and not backed, "inside" counted as a claim."""
    source = {("src/createStore.ts", 271): "  function dispatch(action: A) {"}
    ev = evidence(source)
    lookup = NameLookup(lambda p: p in ("src/createStore.ts", "createStore.ts"), lambda s: s in ("dispatch", "src"),
                        lambda p: "src/createStore.ts" if p.endswith("createStore.ts") else None,
                        lambda span: (ShownLine(span, source[(span.path, span.start_line)]),),
                        lambda name: (LineSpan("src/createStore.ts", 271, 330),) if name == "dispatch" else ())
    checked = check_answer("The dispatch function is defined in the `dispatch` function inside the `createStore.ts` "
                           "file, which is located in the `src` directory.", "Where is the dispatch function defined?",
                           (), ev, lookup, 10, 5)
    assert checked.support is Support.BACKED


def test_typescript_module_files_are_files() -> None:
    """`.mts` and `.cts` (and their `.d.mts` / `.d.cts` declarations, which npm packages ship) are
    named as files: checked against the workspace and linked (a user's check on defu: its
    `dist/defu.d.cts` was taken for a claim that no line holds)."""
    paths, _ = mentioned_names("It is declared in `dist/defu.d.cts` and built to dist/defu.mts.")
    assert {"dist/defu.d.cts", "dist/defu.mts"} <= set(paths)


def test_asked_the_default_cargo_features_the_manifest_is_read_past_the_shown_chunk() -> None:
    """A user's check on hex: the first prompt's Cargo.toml chunk cut the `[dependencies.serde]` head
    and ended at `default = ["std"]`, before `std = ["alloc"]`; the verdict reads the file from its
    start to a few lines past the default list (a read past the end reads nothing, as the tools do)."""
    from app.harness.grounding import _cargo_read_whole

    toml = ["[package]", "name = \"hex\"", "[dependencies.serde]", "optional = true", "[features]",
            "alloc = []", "default = [\"std\"]", "std = [\"alloc\"]", "[badges.maintenance]"]

    def read_lines(span: LineSpan) -> tuple[ShownLine, ...]:
        if span.path != "Cargo.toml" or span.end_line > len(toml):
            return ()
        return tuple(ShownLine(LineSpan("Cargo.toml", n, n), toml[n - 1])
                     for n in range(span.start_line, span.end_line + 1))

    names = NameLookup(lambda p: True, lambda n: True, read_lines=read_lines)
    shown = {LineSpan("Cargo.toml", 6, 6): "alloc = []", LineSpan("Cargo.toml", 7, 7): 'default = ["std"]'}
    asked = "Which Cargo features are turned on by default?"
    read = _cargo_read_whole(asked, shown, names)
    assert [line.text for line in read] == toml
    assert _cargo_read_whole("What does the std feature do?", shown, names) == ()
    assert _cargo_read_whole(asked, {LineSpan("src/lib.rs", 1, 1): "default = [1]"}, names) == ()
    ev = evidence({(s.path, s.start_line): t for s, t in shown.items()})
    check = check_answer("The default features are `std` and `serde`.", asked, (), ev, names, 5, 5)
    assert check.support is Support.NOT_BACKED

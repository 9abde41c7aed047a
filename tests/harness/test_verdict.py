"""The verdict's rules on plain values (no workspace, no model)."""

from __future__ import annotations

import pytest

from app.harness.events import AnswerCompleted
from app.harness.records import event_from_dict, event_to_dict
from app.harness.verdict import (
    POLAR_UNCHECKED,
    ShownLine,
    Support,
    Verdict,
    _about_a_shorter_name,
    _holds,
    _import_gets_another,
    _list_items,
    _listed_past_the_list,
    _yes_or_no,
    claims_of,
    judge,
)
from app.llm.base import Usage
from app.values import LineSpan

LINES = {LineSpan("lib/app.js", 80, 80): "  this.set('etag', 'weak');",
         LineSpan("lib/app.js", 81, 81): "  this.set('env', env);"}


def test_citations_and_line_numbers_are_places_not_claims() -> None:
    claims = claims_of("It is 'weak', set in lib/app.js:80 (see `lib/app.js`, lines 80-81).",
                       "What is the default etag?", ["lib/app.js"])
    assert claims.key == ("weak",)


def test_values_the_question_already_says_are_not_claims() -> None:
    assert claims_of("`dotenv run` does, with override `True`.", "Does `dotenv run` override?").key == ("true",)
    # ... but a value made of the question's words is new when the question does not spell it
    question = "Which request header does the RequestID middleware read an existing request id from?"
    assert claims_of('It reads the "X-Request-Id" header.', question).key == ("x-request-id",)
    assert claims_of("It reads the `request id` header.", question).key == ()


def test_an_answer_that_repeats_the_prompt_is_not_backed() -> None:
    verdict = judge("The project folder contains: lib/app.js 'weak'", "What is the default etag?",
                    LINES, echo=True)
    assert verdict.support is Support.NOT_BACKED and verdict.closest  # still says where to look


def test_the_prompt_copied_into_a_fenced_block_is_an_echo() -> None:
    """A user's check on more-itertools: the model copied the layout and a chunk, each in a fence."""
    from app.harness.headers import ECHOED
    from app.harness.verdict import is_echo

    copied = ("The file that holds the answer is. The lines are:\n```\nThe project folder contains:\n"
              "more_itertools/\nsetup.py\n```\n\nThe part of the project that best matches the question is "
              "more_itertools/more.py:197-221. The lines are:\n```python\ndef first(iterable, default=_marker):\n```")
    assert is_echo(copied, ECHOED)
    assert is_echo("```\nThe project folder contains:\nsrc/\n```", ECHOED)
    quoted = "It raises `ValueError`:\n```python\nraise ValueError('iterable is not divisible by n.')\n```"
    assert not is_echo(quoted, ECHOED)


def test_a_value_found_but_about_another_subject_is_partly_backed() -> None:
    verdict = judge("The default is `env`.", "What is the default etag?",
                    {LineSpan("lib/app.js", 10, 10): "  this.set('etag', 'weak');",
                     LineSpan("lib/app.js", 90, 90): "  this.set('env', env);"})
    assert verdict.support is Support.PARTLY and verdict.found == ("env",) and verdict.backing == ()


def test_records_before_the_claim_checks_read_as_the_new_verdicts() -> None:
    old = {"event": "answer", "text": "x", "citations": [], "steps": 1, "usage": {}, "seconds": 1.0,
           "support": "supported"}
    assert event_from_dict(old).support is Support.PARTLY  # a shared word, not a checked claim
    assert event_from_dict({**old, "support": "none"}).support is Support.NOT_BACKED


def test_the_verdict_s_lines_survive_a_record_round_trip() -> None:
    line = ShownLine(LineSpan("lib/app.js", 80, 80), "  this.set('etag', 'weak');")
    event = AnswerCompleted("x", (), 1, Usage(), 1.0, support=Support.BACKED, backing=(line,),
                            found=("weak",), left_out=(ShownLine(LineSpan("lib/b.js", 3, 3), "Router.handle"),))
    back = event_from_dict(event_to_dict(event))
    assert back.backing == (line,) and back.support is Support.BACKED and back.found == ("weak",)
    assert back.left_out == event.left_out


def test_the_symbol_table_gives_a_definition_s_own_line(project) -> None:
    from app.harness.session import open_toolbox
    from app.settings import Settings
    from app.tools.code_search import CodeSearch

    tools = open_toolbox(project, Settings(n_threads=1), code_search=CodeSearch())
    try:
        (span,) = tools.definitions("load_config")
        line = (project / span.path).read_text(encoding="utf-8").splitlines()[span.start_line - 1]
        assert span.path == "notekeeper/config.py" and line.startswith("def load_config(")
        assert tools.definitions("no_such_name") == ()
        defined = {hit.text for hit in tools.defined_in("notekeeper/config.py")}
        assert any(text.startswith("def load_config(") for text in defined)
        # outside the workspace, missing, or a file without an outline: nothing, and no error
        assert tools.defined_in("../../etc/passwd") == tools.defined_in("no/such.py") == ()
        assert tools.defined_in("README.md") == ()
    finally:
        tools.workspace.close()


def test_a_method_named_with_its_class_is_found_by_its_own_name() -> None:
    lines = {LineSpan("src/sessions.py", 282, 282): "    def rebuild_auth(self, prepared_request, response):",
             LineSpan("src/sessions.py", 298, 298): "        new_auth = get_netrc_auth(url)"}
    verdict = judge("`get_netrc_auth` is called in `SessionRedirectMixin.rebuild_auth` (src/sessions.py:298).",
                    "What calls get_netrc_auth?", lines, paths=["src/sessions.py"])
    assert verdict.found == ("sessionredirectmixin.rebuild_auth",)
    assert judge("It is called in `Session.prepare_request`.", "What calls get_netrc_auth?", lines).found == ()
    assert claims_of("See setup.py.", "Which file?").key == ()  # a file name is not a qualified name


STRINGIFY = {LineSpan("test/stringify.js", 641 + i, 641 + i): f"  st.equal(qs.stringify({{ a: {i} }}), 'a={i}');"
             for i in range(3)}


def test_a_place_that_names_the_subject_backs_a_where_answer_but_not_a_how_answer() -> None:
    """tuning3's qs-08: "The file that shows how qs.stringify notices ... is test/stringify.js:641-680"
    names a place and says nothing about how; a place is the answer only to a where question."""
    place = (LineSpan("test/stringify.js", 641, 680),)
    how = judge("The file that shows how qs.stringify notices that an object refers to itself is "
                "test/stringify.js:641-680.", "How does qs.stringify notice that an object refers to itself?",
                STRINGIFY, paths=["test/stringify.js"], places=place)
    where = judge("qs.stringify is tested in test/stringify.js:641-680.",
                  "Where is qs.stringify tested?", STRINGIFY, paths=["test/stringify.js"], places=place)
    # not backed since the twenty-second session: it states nothing but the place (verdict._only_cites)
    assert how.support is Support.NOT_BACKED and where.support is Support.BACKED


def test_media_types_are_claims() -> None:
    """tuning3's chi-05: a list of content types with one the lines never state is not backed."""
    lines = {LineSpan("middleware/compress.go", 18, 18): '\t"text/html",',
             LineSpan("middleware/compress.go", 19, 19): '\t"text/plain",',
             LineSpan("middleware/compress.go", 17, 17): "var defaultCompressibleContentTypes = []string{"}
    question = "Which content types does the Compress middleware compress by default?"
    claims = claims_of("It compresses text/html, text/plain and application/*/*.", question)
    assert claims.key == ("text/html", "text/plain", "application/*")
    verdict = judge("It compresses text/html, text/plain and application/*/*.", question, lines)
    assert verdict.support is not Support.BACKED and verdict.missing[:1] == ("application/*",)
    assert judge("It compresses text/html and text/plain.", question, lines).support is Support.BACKED


def test_plain_prose_is_backed_when_short_but_a_paragraph_of_explanation_is_not() -> None:
    """An answer with no value or name to check: a short statement whose words sit beside the
    subject is backed; a long explanation finds most of its words in any chunk about the subject."""
    lines = {LineSpan("src/fmt.rs", 10, 10): "// The alternate form prints the error and every cause in its chain,",
             LineSpan("src/fmt.rs", 11, 11): "// separated by colons; the plain form prints the outermost error only.",
             LineSpan("src/fmt.rs", 12, 12): "// A backtrace is printed when the error captured one; "
                                              "it is stored on the heap."}
    question = "How does the alternate form print an error?"
    short = judge("It prints every cause in the chain, separated by colons.", question, lines)
    assert short.support is Support.BACKED
    explained = ("The alternate form prints the backtrace stored on the heap when the error captured one, "
                 "separated by colons, while the plain form prints only the outermost error.")
    assert not claims_of(explained, question).key and len(claims_of(explained, question).prose) > 6
    assert judge(explained, question, lines).support is Support.PARTLY


def test_plain_prose_that_is_backed_shows_the_lines_its_words_sit_in() -> None:
    """A user's check on @tanstack/virtual-core: "The `smooth` scroll behavior is not fully
    supported with dynamic size." was backed, and the window showed no line under the badge: with
    no value, name or place, nothing was the backing. The lines holding its words beside the
    subject are."""
    warning = LineSpan("src/index.ts", 940, 940)
    lines = {LineSpan("src/index.ts", 345, 345): "  shouldAdjustScrollPositionOnItemSizeChange:",
             LineSpan("src/index.ts", 939, 939): "      console.warn(",
             warning: "        'The `smooth` scroll behavior is not fully supported with dynamic size.',",
             LineSpan("src/index.ts", 606, 606): "    () => [this.getMeasurementOptions(), this.itemSizeCache],"}
    verdict = judge("The `smooth` scroll behavior is not fully supported with dynamic size.",
                    "What happens if I use smooth scrolling with dynamically measured items?", lines)
    assert verdict.support is Support.BACKED and [b.span for b in verdict.backing] == [warning]


def test_values_placed_in_a_file_whose_lines_do_not_hold_them_are_not_backed() -> None:
    """tuning3's chi-07: "504 ... in the `throttle.go` file" backed by timeout.go's 504 line. The
    place an answer names is a claim too: it backs only when a line of that file holds a value."""
    lines = {LineSpan("middleware/timeout.go", 40, 40): "\t\t\tw.WriteHeader(http.StatusGatewayTimeout)",
             LineSpan("middleware/timeout.go", 10, 10): "// a 504 Gateway Timeout error to the client.",
             LineSpan("middleware/throttle.go", 60, 60): "\t\thttp.Error(w, errTimedOut, http.StatusTooManyRequests)"}
    question = "Which HTTP status does the Throttle middleware answer with when a request waited too long?"
    answer = "It answers with a 504 Gateway Timeout error, as `w.WriteHeader(http.StatusGatewayTimeout)` shows"
    wrong_file = judge(answer + " in the `throttle.go` file.", question, lines, paths=["throttle.go"],
                       files=["middleware/throttle.go"])
    assert wrong_file.support is Support.PARTLY
    assert "504 in middleware/throttle.go" in wrong_file.missing
    right_file = judge(answer + " in the `timeout.go` file.", question, lines, paths=["timeout.go"],
                       files=["middleware/timeout.go"])
    assert right_file.support is Support.BACKED
    assert judge(answer + ".", question, lines).support is Support.BACKED  # no file named: nothing to check


def test_an_answer_saying_nothing_calls_the_name_is_told_from_one_naming_a_caller():
    from app.harness.verdict import says_none_call

    for said in ("Nothing calls `compact`.", "There are no calls to compact in the code shown.",
                 "`compact` is not called anywhere in this workspace.", "It isn't used by any function.",
                 "None of the lines shown call it.", "The function is never invoked."):
        assert says_none_call(said), said
    for said in ("`save` calls `compact` (store.py:6).", "It is called by `save`. Nothing else uses `_rows`.",
                 "compact is used in main, not in tests.", "No."):
        assert not says_none_call(said), said


ATTRS_LINES = {LineSpan("src/attr/_make.py", 424, 424): "    init=True,  # each field in the order of its annotation",
               LineSpan("src/attr/_make.py", 425, 425): "    slots=True,"}


def test_a_how_answer_whose_only_values_are_literals_is_not_backed_by_them() -> None:
    """`True` sits beside any subject in code; as a how answer's only value it backs nothing (a wrong
    attrs answer was backed by `init=True`), while a value question keeps it as its claim."""
    question = "How does attrs decide the order of the arguments of the generated init?"
    how = judge("When `init` is `True`, each field is in the order of its annotation.", question, ATTRS_LINES)
    assert how.support is Support.PARTLY and "true" in how.found
    value = judge("It is `True`.", "What is the default value of slots?", ATTRS_LINES)
    assert value.support is Support.BACKED


def test_code_quoted_with_its_spaces_moved_is_the_same_code() -> None:
    """A user's check on pflag: `err:= f.parseArgs(arguments, set)` quoted from `err :=
    f.parseArgs(arguments, set)` was listed as missing under a backed answer."""
    lines = {LineSpan("flag.go", 1148, 1148): "\terr := f.parseArgs(arguments, set)",
             LineSpan("flag.go", 1129, 1129): "// Parse parses flag definitions from the argument list."}
    verdict = judge("Parse calls it: `err:= f.parseArgs(arguments, set)`.", "What does Parse call to read the flags?",
                    lines)
    assert "err:= f.parseargs(arguments, set)" in verdict.found and not verdict.missing
    # a short value still matches as written, and so does prose: `f (x)` is not `f(x)`, "max size" not "maxsize"
    assert not _holds("return f(x)", "f (x)") and not _holds("maxsize = 3", "max size = 3")


def test_code_quoted_with_semicolons_and_the_brace_the_prompt_left_out_is_the_same_code() -> None:
    """A user's check on deepmerge (no semicolons in its code): the right "`if (propertyIsUnsafe(
    target, key)) { return; }`" was not backed; the prompt showed the `if` and `return` lines, the
    closing `}` was left out of it, and the model closed the block with a `;` of its own."""
    lines = {LineSpan("index.js", 61, 61): "\tgetKeys(source).forEach(function(key) {",
             LineSpan("index.js", 62, 62): "\t\tif (propertyIsUnsafe(target, key)) {",
             LineSpan("index.js", 63, 63): "\t\t\treturn"}
    question = "What happens to a source key that exists on the target's prototype chain?"
    verdict = judge("It is skipped: `if (propertyIsUnsafe(target, key)) { return; }`.", question, lines)
    assert "if (propertyisunsafe(target, key)) { return; }" in verdict.found
    assert _holds("if (ok) {\n\treturn x\n}", "if (ok) { return x; }")
    # the brace left off holds only where the code stops: `{ return; }` is not `{ return foo }`
    assert not _holds("if (is_unsafe(target, key)) { return foo", "if (is_unsafe(target, key)) { return; }")
    # and a claim's other closing brackets stay: `setTimeout(fn, 100)` is not `setTimeout(fn, 1000)`
    assert not _holds("settimeout(fn, 1000)", "settimeout(fn, 100)")


ISATTY_LINES = {
    LineSpan("isatty_bsd.go", 9, 9): "// IsTerminal return true if the file descriptor is terminal.",
    LineSpan("isatty_bsd.go", 10, 10): "func IsTerminal(fd uintptr) bool {",
    LineSpan("isatty_bsd.go", 11, 11): "\t_, err := unix.IoctlGetTermios(int(fd), unix.TIOCGETA)",
    LineSpan("isatty_bsd.go", 12, 12): "\treturn err == nil",
    LineSpan("isatty_others.go", 12, 12): "// IsCygwinTerminal return true if the file descriptor is a cygwin or msys2",
    LineSpan("isatty_others.go", 14, 14): "func IsCygwinTerminal(fd uintptr) bool {",
    LineSpan("isatty_others.go", 15, 15): "\treturn false",
}


def test_an_answer_about_a_shorter_name_than_the_question_asks_is_not_backed_by_it() -> None:
    """A user's check on go-isatty: "What does IsCygwinTerminal return on Linux?" was answered with
    IsTerminal's ioctl and backed by IsTerminal's lines (the question's words "terminal" and "return"
    in them); IsCygwinTerminal returns false there."""
    question = "What does IsCygwinTerminal return on Linux?"
    wrong = judge("`IsTerminal` returns true if the file descriptor is terminal: "
                  "`unix.IoctlGetTermios(int(fd), unix.TIOCGETA)`.", question, ISATTY_LINES)
    assert wrong.support is not Support.BACKED
    assert "IsCygwinTerminal itself: the answer and its lines are about IsTerminal" in wrong.missing
    right = judge("It returns `false`: `func IsCygwinTerminal(fd uintptr) bool { return false }`.",
                  question, ISATTY_LINES)
    assert right.support is Support.BACKED, right
    # a name of other parts, or of the asked name's parts out of order, is no shorter form of it
    assert _about_a_shorter_name("It calls `TerminalIs`.", question, ()) is None
    assert _about_a_shorter_name("It calls `IsCygwin`.", question, ()) == ("IsCygwin", "IsCygwinTerminal")


def test_an_error_written_as_a_traceback_writes_it_is_held_by_the_line_that_raises_it() -> None:
    """A user's check on colorama: the right "`ValueError: wrap=False conflicts with any other
    arg=True`" was partly backed, the claim in no line; the line raises it."""
    line = "        raise ValueError('wrap=False conflicts with any other arg=True')"
    assert _holds(line.lower(), "valueerror: wrap=false conflicts with any other arg=true")
    assert _holds('throw new typeerror("expected a function, got " + typeof fn)', "typeerror: expected a function")
    # another error's name, or another message, is not held
    assert not _holds(line.lower(), "typeerror: wrap=false conflicts with any other arg=true")
    assert not _holds(line.lower(), "valueerror: wrap=true conflicts with any other")


def test_a_message_quoted_with_a_placeholder_is_held_by_the_template_that_builds_it() -> None:
    """A user's check on @helia/utils: "Could not load codec for {code}" quoted from
    `throw new UnknownCodecError(`Could not load codec for ${code}`)` was not found."""
    line = "    throw new unknowncodecerror(`could not load codec for ${code}`)"
    assert _holds(line, "could not load codec for {code}")
    assert _holds("raise valueerror(f'could not load codec for {code}')", "could not load codec for {code}")
    assert not _holds(line, "could not load codec for {name}")
    assert not _holds(line, "could not find codec for {code}")


PBKDF2_LINES = {
    LineSpan("src/pbkdf2.ts", 22, 22): " * Computes the Password-Based Key Derivation Function 2.",
    LineSpan("src/pbkdf2.ts", 24, 24): "export default function pbkdf2 (password: string, salt: string | Uint8Array, "
                                       "iterations: number, keySize: number, hash: string): string {",
    LineSpan("src/pbkdf2.ts", 27, 27): "  throw new InvalidParametersError(`Hash '${hash}' is not supported`)",
    LineSpan("src/pbkdf2.ts", 40, 40): "  return base64.encode(dek).substring(1)",
}


def test_an_answer_to_a_question_in_two_parts_is_at_most_partly_backed() -> None:
    """A user's check on @libp2p/crypto: "What happens if I call `pbkdf2('password', salt, 1000,
    32, 'sha256')`? And what format does pbkdf2 return?" answered with what pbkdf2 does in general,
    backed; three of four answers backed to two-part questions were wrong."""
    answer = ("The function `pbkdf2` computes the Password-Based Key Derivation Function 2 and returns the "
              "derived key as a `base64` string; it throws an error if the hash is not supported.")
    two = judge(answer, "What happens if I call `pbkdf2('password', salt, 1000, 32, 'sha256')` from @libp2p/crypto? "
                "And what format does pbkdf2 return?", PBKDF2_LINES)
    assert two.support is Support.PARTLY
    assert "an answer to each of the question's 2 parts (the lines back its words, not that)" in two.missing
    one = judge(answer, "What format does pbkdf2 return, and when does it throw?", PBKDF2_LINES)
    assert one.support is Support.BACKED, one
    # a "?" inside quotes ends no part
    quoted = judge(answer, "Which function answers 'Did you mean ...?' for pbkdf2's hash names?", PBKDF2_LINES)
    assert not any("parts" in m for m in quoted.missing)


WONKA = "src/operators.ts"
WONKA_LINES = {
    LineSpan(WONKA, 702, 702): "/** Maps emitted values using the passed reducer function.",
    LineSpan(WONKA, 706, 706): " * @returns An {@link Operator}.",
    LineSpan(WONKA, 710, 710): " * seed value and the first emitted value. The {@link Source} will then emit the",
    LineSpan(WONKA, 720, 720): "function scan<In, Out>(reducer: (acc: Out, value: In) => Out, seed: Out): Operator {",
    LineSpan(WONKA, 1461, 1461): "export { mergeAll as flatten, onPush as tap };",
}


def test_a_where_answer_citing_lines_that_do_not_name_the_thing_a_shown_line_declares_is_not_backed() -> None:
    """A user's check on wonka: "Where is the tap operator defined?" answered with `scan`'s lines,
    which name "Operator", and was backed; `onPush as tap` was shown at line 1461."""
    question = "Where is the tap operator defined? I can't find a function called tap anywhere in the source."
    wrong = judge("The tap operator is defined in the file src/operators.ts:702-741.", question, WONKA_LINES,
                  paths=[WONKA], places=(LineSpan(WONKA, 702, 741),))
    assert wrong.support is not Support.BACKED
    assert "where: tap is declared at src/operators.ts:1461, not in the lines cited" in wrong.missing
    assert wrong.closest[0].span == LineSpan(WONKA, 1461, 1461)
    right = judge("`tap` is `onPush` exported under another name, at src/operators.ts:1461.", question, WONKA_LINES,
                  paths=[WONKA], places=(LineSpan(WONKA, 1461, 1461),))
    assert not any("is declared at" in m for m in right.missing)


DEFU_LINES = {
    LineSpan("README.md", 106, 106): "`defuArrayFn` is similar to `defuFn` but **only applies to array values "
                                     "defined in defaults**.",
    LineSpan("README.md", 90, 90): "`defuFn` calls a function found in the object with the default value.",
    LineSpan("dist/defu.d.cts", 16, 16): "type MergeArrays<Destination, Source> = Destination extends Array<infer D>"
                                         " ? Array<D | Source> : Source | Destination;",
}


def test_a_line_about_a_longer_name_does_not_back_what_it_says_for_the_asked_one() -> None:
    """A user's check on defu: "What does defuFn do differently from defu?" was answered with what
    the README says of defuArrayFn ("only applies to array values defined in defaults"), said of
    defuFn, and backed by that line."""
    question = "What does defuFn do differently from defu?"
    wrong = judge("defuFn only applies to array values defined in defaults.", question, DEFU_LINES)
    assert wrong.support is not Support.BACKED
    assert "defuFn itself: the line at README.md:106 is about defuArrayFn" in wrong.missing
    # the line speaks of the longer name's own property; an answer naming that name says so itself
    named = judge("Unlike defuArrayFn, which only applies to array values defined in defaults, ...", question,
                  DEFU_LINES)
    assert not any("is about defuArrayFn" in m for m in named.missing)


def test_a_how_answer_backed_by_type_declarations_alone_is_not_backed() -> None:
    """A user's check on defu: "How are two arrays combined when defu merges them?" answered "using
    the `MergeArrays` function, which is defined in `dist/defu.d.cts`" (a type, and no how) would
    be backed by the type's line once `.d.cts` was known as a file. A build's declaration beside
    code still backs after it (see test_a_build_s_copy_backs_after_the_source)."""
    question = "How are two arrays combined when defu merges them?"
    answer = ("The two arrays are combined using the `MergeArrays` function, which is defined in the "
              "`dist/defu.d.cts` file.")
    verdict = judge(answer, question, DEFU_LINES, paths=("dist/defu.d.cts",))
    assert verdict.support is not Support.BACKED
    assert "how: only declarations back it (dist/defu.d.cts), no code that does it" in verdict.missing
    assert "dist/defu.d.cts" not in verdict.missing  # a path is a place, not a claim


def test_a_percentage_is_held_by_the_lines_fraction() -> None:
    """A user's check on golang-lru: "25% of the cache" (right) was partly backed, "25" in no line;
    the line sets `Default2QRecentRatio = 0.25`."""
    lines = {LineSpan("2q.go", 11, 11): "\t// Default2QRecentRatio is the ratio of the 2Q cache dedicated",
             LineSpan("2q.go", 12, 12): "\t// to recently added entries that have only been accessed once.",
             LineSpan("2q.go", 13, 13): "\tDefault2QRecentRatio = 0.25"}
    question = "What share of the 2Q cache goes to recently added entries by default?"
    verdict = judge("By default 25% of the cache, the `Default2QRecentRatio`.", question, lines)
    assert verdict.support is Support.BACKED and "25%" in verdict.found, verdict
    assert verdict.backing[0].span.start_line == 13
    wrong = judge("By default 50% of the cache, the `Default2QRecentRatio`.", question, lines)
    assert wrong.support is not Support.BACKED and "50%" in wrong.missing
    assert _holds("about 25% of them", "25%") and not _holds("ratio = 0.025", "25%")


def test_a_declaration_quoted_with_its_blocks_keyword_is_the_same_code() -> None:
    """A user's check on cenkalti/backoff: the right "`const DefaultMaxElapsedTime = 15 *
    time.Minute`" was partly backed; the line sits in a `const (` block and reads without `const`."""
    lines = {LineSpan("exponential.go", 78, 78): "const (",
             LineSpan("exponential.go", 80, 80): "\tDefaultMaxElapsedTime = 15 * time.Minute"}
    question = "What is the default maximum elapsed time of an ExponentialBackOff?"
    answer = "It is 15 minutes: `const DefaultMaxElapsedTime = 15 * time.Minute`."
    verdict = judge(answer, question, lines)
    assert verdict.support is Support.BACKED and not verdict.missing
    assert verdict.backing[0].span.start_line == 80
    assert _holds("pub(crate) max_retries: u32 = 3,", "pub max_retries: u32 = 3")  # modifiers differ too
    # a short name is no code: `const x` is not held by a line that only names x
    assert not _holds("x = compute()", "const x") and not _holds("limit = 10", "static limit")


def test_a_number_is_held_by_the_same_number_however_it_is_written() -> None:
    """A user's check on tenacity: "The default base of wait_exponential is 2.0" was not backed by
    `exp_base: float = 2`; and `2` is no claim that `2.5` holds."""
    lines = {LineSpan("tenacity/wait.py", 155, 155): "        exp_base: typing.Union[int, float] = 2,"}
    verdict = judge("The default base of wait_exponential is 2.0.", "What is the default base of wait_exponential?",
                    lines)
    assert verdict.support is Support.BACKED and verdict.found == ("2.0",)
    assert not _holds("    ratio = 2.5", "2") and _holds("timeout = 10.0", "10") and not _holds("port = 8080", "80")
    assert not _holds("date = 2006-01-02", "1")  # `01` is text, not the number 1


def test_a_number_compared_against_holds_no_other_spelling_of_it() -> None:
    """A user's check on humanize: the wrong "naturalsize returns '1.0 million' for 1000000 bytes"
    (it returns '1.0 MB'; '1.0 million' is intword's) was backed by `if abs_bytes == 1 and not gnu:`,
    as 1.0 is 1."""
    lines = {LineSpan("src/humanize/filesize.py", 34, 34): "def naturalsize(",
             LineSpan("src/humanize/filesize.py", 40, 40):
                 '    """Format a number of bytes like a human-readable filesize (e.g. 10 kB).',
             LineSpan("src/humanize/filesize.py", 93, 93): "    if abs_bytes == 1 and not gnu:",
             LineSpan("src/humanize/number.py", 190, 190):
                 "def intword(value: NumberOrString, format: str = \"%.1f\") -> str:",
             LineSpan("src/humanize/number.py", 206, 206): "        '1.0 million'"}
    question = "What does naturalsize return for 1000000 bytes by default?"
    verdict = judge("The `naturalsize` function returns '1.0 million' by default for 1000000 bytes.", question, lines)
    assert verdict.support is not Support.BACKED
    assert not _holds("if abs_bytes == 1 and not gnu:", "1.0") and not _holds("while n >= 2:", "2.0")
    # the same number as written still counts, and a value set, passed or returned is held in any spelling
    assert _holds("if abs_bytes == 1 and not gnu:", "1") and _holds("retries => 2,", "2.0")
    assert _holds("    exp_base: float = 2,", "2.0") and _holds("f(timeout=30)", "30.0")


def test_a_list_answer_is_backed_by_the_list_it_copies_not_past_its_end() -> None:
    """A user's check on ky: "Which HTTP methods are retried by default?" listed the six methods of
    `@default [...]` and two more from another file's list of every method, and was backed."""
    lines = {LineSpan("distribution/types/retry.d.ts", 1, 1): "export type RetryOptions = {",
             LineSpan("distribution/types/retry.d.ts", 9, 9): "    The HTTP methods allowed to retry.",
             LineSpan("distribution/types/retry.d.ts", 11, 11):
                 "    @default ['get', 'put', 'head', 'delete', 'options', 'trace']",
             LineSpan("distribution/types/retry.d.ts", 13, 13): "    methods?: string[];",
             LineSpan("distribution/core/constants.js", 3, 3):
                 "export const requestMethods = ['get', 'post', 'put', 'patch', 'head', 'delete'];"}
    question = "Which HTTP methods are retried by default?"
    wrong = ("The HTTP methods that are retried by default are:\n- `get`\n- `put`\n- `head`\n- `delete`\n"
             "- `options`\n- `trace`\n- `post`\n- `patch`")
    verdict = judge(wrong, question, lines)
    assert verdict.support is Support.PARTLY
    assert any(m.startswith("post, patch (not in the list at distribution/types/retry.d.ts:11")
               for m in verdict.missing)
    closest = [(line.span.path, line.span.start_line) for line in verdict.closest]  # the list first, each once
    assert closest[0] == ("distribution/types/retry.d.ts", 11) and len(closest) == len(set(closest))
    right = "The HTTP methods retried by default are `get`, `put`, `head`, `delete`, `options` and `trace`."
    assert judge(right, question, lines).support is Support.BACKED
    # a list spread over an if/elif chain is one list; a short list (three items) is left alone
    chain = {LineSpan("signer.py", 200 + 3 * i, 200 + 3 * i): f'        elif self.key_derivation == "{m}":'
             for i, m in enumerate(("concat", "django-concat", "hmac", "none"))}
    listed = "- `concat`\n- `django-concat`\n- `hmac`\n- `none`"
    assert _listed_past_the_list(listed, claims_of(listed, "Which?"), chain) is None
    assert _list_items("The codes are 413, 429, and 503.") == ["413", "429", "503"]


def test_a_file_name_inside_quoted_code_stays_in_the_code_claim() -> None:
    """A user's check on tomli: "... use `open('foo.toml', 'rb')`" lost its file name to the
    places taken out of an answer (the answer names foo.toml), leaving the claim `open(' ', 'rb')`
    that no line holds. A file name alone in ticks is still a place, not a claim."""
    answer = "It raises a `TypeError`: use `open('foo.toml', 'rb')`, as `src/tomli/_parser.py` says."
    claims = claims_of(answer, "What happens if I pass a file opened in text mode to load?",
                       ["foo.toml", "src/tomli/_parser.py"])
    assert "open('foo.toml', 'rb')" in claims.key and "src/tomli/_parser.py" not in claims.key
    assert not any(k.startswith("open(' '") for k in claims.key)


def test_a_name_in_capitals_is_a_claim_though_the_question_has_its_word() -> None:
    """A user's check on debug: "Which environment variable enables debug output in Node?" answered
    `DEBUG`, right, and was not backed: the answer's one value was the question's word "debug"."""
    lines = {LineSpan("src/node.js", 219, 219): "function load() {",
             LineSpan("src/node.js", 220, 220): "\t// Load the enabled debug namespaces from the environment variable",
             LineSpan("src/node.js", 221, 221): "\treturn process.env.DEBUG;"}
    question = "Which environment variable enables debug output in Node?"
    verdict = judge("The environment variable that enables debug output in Node is `DEBUG`.", question, lines)
    assert verdict.support is Support.BACKED and "debug" in verdict.found
    assert claims_of("It is `DEBUG`.", "What does DEBUG=1 turn on?").key == ()  # asked as written: no claim


def test_an_example_call_in_a_doc_comment_is_no_default() -> None:
    """A user's check on nanoid: "Which alphabet does nanoid use by default?" was answered with the
    alphabet of a JSDoc example, ` * const nanoid = customAlphabet('0123456789абвгдеё', 5)`, backed."""
    lines = {LineSpan("index.d.ts", 27, 27): " * ```js",
             LineSpan("index.d.ts", 28, 28): " * import { customAlphabet } from 'nanoid'",
             LineSpan("index.d.ts", 29, 29): " * const nanoid = customAlphabet('0123456789абвгдеё', 5)",
             LineSpan("index.d.ts", 30, 30): " * nanoid() //=> \"8951\"",
             LineSpan("url-alphabet/index.js", 1, 1): "export const urlAlphabet =",
             LineSpan("url-alphabet/index.js", 2, 2):
                 "  'useandom-26T198340PX75pxJACKVERYMINDBUSHWOLF_GQZbfghjklqvwyzrict'"}
    question = "Which alphabet does nanoid use by default?"
    wrong = judge("The default alphabet used by nanoid is '0123456789абвгдеё'.", question, lines)
    assert wrong.support is not Support.BACKED
    # not asked for a default, the example is what it is: the alphabet of that call
    asked = judge("It uses '0123456789абвгдеё'.", "Which alphabet does the customAlphabet example use?", lines)
    assert asked.support is Support.BACKED


def test_a_value_the_answer_repeats_past_the_question_is_its_claim() -> None:
    """A user's check on pkg/errors: "What does Wrap return when err is nil?" answered "Wrap returns
    nil when err is nil.", right, and was not backed: every value it wrote the question had."""
    lines = {LineSpan("errors.go", 183, 183): "// If err is nil, Wrap returns nil.",
             LineSpan("errors.go", 184, 184): "func Wrap(err error, message string) error {",
             LineSpan("errors.go", 185, 185): "\tif err == nil {",
             LineSpan("errors.go", 186, 186): "\t\treturn nil"}
    question = "What does Wrap return when err is nil?"
    assert judge("Wrap returns nil when err is nil.", question, lines).support is Support.BACKED
    assert judge("When err is nil, Wrap panics.", question, lines).support is Support.NOT_BACKED
    assert claims_of("When err is nil, Wrap panics.", question).key == ()  # said once, as asked


def test_a_quoted_run_of_spaces_is_a_value() -> None:
    """A user's check on go-spew: "What indent does the default config use?" answered `" "`, right,
    and was not backed: the value stripped of its spaces was no claim."""
    lines = {LineSpan("config.go", 105, 105): 'var Config = ConfigState{Indent: " "}',
             LineSpan("config.go", 106, 106): "// Indent specifies the string to use for each indentation level."}
    question = "What indent does the default config use?"
    assert judge('The default indent is " ".', question, lines).support is Support.BACKED
    assert judge('The default indent is "  " (two spaces).', question, lines).support is not Support.BACKED
    # a place taken out of the answer ("`setup.py:12-51`") leaves no quoted space behind
    assert claims_of("It is in `setup.py:12-51`.", "Where is the version?", ["setup.py"]).key == ()


def test_a_literal_in_prose_is_the_answer_to_a_default_question() -> None:
    """A user's check on backoff: "What is the default max_tries of on_exception?" answered "None",
    right, in plain words, and was only partly backed: no value was claimed."""
    lines = {LineSpan("backoff/_decorator.py", 123, 123): "def on_exception(wait_gen: _WaitGenerator,",
             LineSpan("backoff/_decorator.py", 126, 126):
                 "                 max_tries: Optional[_MaybeCallable[int]] = None,"}
    question = "What is the default max_tries of on_exception?"
    verdict = judge("The default max_tries of on_exception is None.", question, lines)
    assert verdict.support is Support.BACKED and verdict.found == ("none",)
    assert claims_of("It is None.", "How does on_exception retry?").key == ()  # not asked for a value


def test_code_quoted_across_two_lines_is_held_by_them_together() -> None:
    """A user's check on idna: the right "registers under "idna2008" ... `if name != "idna2008": return
    None`" was partly backed: the quote joins lines 109 and 110 of codec.py, which no one line holds."""
    lines = {LineSpan("idna/codec.py", 108, 108): "def search_function(name: str) -> Optional[codecs.CodecInfo]:",
             LineSpan("idna/codec.py", 109, 109): '    if name != "idna2008":',
             LineSpan("idna/codec.py", 110, 110): "        return None",
             LineSpan("idna/codec.py", 112, 112): "    return codecs.CodecInfo("}
    question = "Which codec name does the idna codec register under?"
    answer = 'It registers as "idna2008": `if name != "idna2008": return None`.'
    verdict = judge(answer, question, lines)
    assert verdict.support is Support.BACKED and not verdict.missing
    # lines apart (110 and 112 are not one statement) join nothing
    assert judge('It is `return None return codecs.CodecInfo(`.', question, lines).missing


def test_an_example_call_in_the_docs_is_no_default() -> None:
    """A user's check on tenacity: "@retry with no arguments retries 3 times" was backed by the
    README's `@retry(stop=stop_after_attempt(3))`; the code's default never stops. Asked for a
    default, a docs or test line holding the value only as a call's argument backs nothing."""
    readme = {LineSpan("README.rst", 489, 489): "    @retry(stop=stop_after_attempt(3))",
              LineSpan("README.rst", 490, 490): "    def stop_after_3_attempts():"}
    question = "How many times does a function decorated with @retry and no arguments retry?"
    assert judge("It is `3`.", question, readme).support is not Support.BACKED
    # the same line answers a question that is not about a default
    assert judge("It stops after `3` attempts.", "How many attempts does stop_after_3_attempts allow?",
                 readme).support is Support.BACKED
    # and the code's own default backs one
    code = {LineSpan("tenacity/__init__.py", 220, 220): "        stop: StopBaseT = stop_never,"}
    assert judge("It uses `stop_never`.", "What does @retry stop with by default?",
                 code).support is Support.BACKED


def test_a_default_the_shown_code_sets_otherwise_keeps_an_answer_from_backed() -> None:
    """A user's check on humanize: "`binary` is `True` by default" was backed by the docstring's
    "If `True`, uses binary suffixes"; the signature shown beside it says `binary: bool = False`."""
    lines = {LineSpan("src/humanize/filesize.py", 36, 36): "    binary: bool = False,",
             LineSpan("src/humanize/filesize.py", 69, 69):
                 "        binary (bool): If `True`, uses binary suffixes (KiB, MiB) with base"}
    question = "Does naturalsize use binary or decimal suffixes by default?"
    wrong = judge("Binary suffixes (KiB, MiB): `binary` is `True` by default.", question, lines)
    assert wrong.support is Support.PARTLY
    assert wrong.closest[0].span == LineSpan("src/humanize/filesize.py", 36, 36)
    assert "binary: bool = False, (the default a shown line sets)" in wrong.missing
    right = judge("Decimal suffixes: `binary` is `False` by default.", question, lines)
    assert right.support is Support.BACKED
    # a question that is not about a default is not judged by it
    assert judge("Binary suffixes (KiB, MiB) when `binary` is `True`.", "What does binary switch on?",
                 lines).support is Support.BACKED


def test_a_docs_page_s_or_a_test_s_example_sets_no_default() -> None:
    """A user's check on ofetch: "1 retry by default" is what its README says, and the example
    below it calls `ofetch(url, { retry: 3 })`: the example's value is no default the answer
    contradicts. The same line in code still is."""
    readme = {LineSpan("README.md", 127, 127): "The default for `retry` is `1` retry, except for `POST`, "
                                               "`PUT`, `PATCH`, and `DELETE` methods.",
              LineSpan("README.md", 133, 133): "  retry: 3,"}
    question = "How many times does ofetch retry a failed GET request by default?"
    answer = "The default for `retry` is `1` retry, except for `POST`, `PUT`, `PATCH`, and `DELETE`."
    assert judge(answer, question, readme).support is Support.BACKED
    test = {LineSpan("test/index.test.ts", 40, 40): "      retry: 3,"}  # a test's call, as the README's
    assert judge(answer, question, readme | test).support is Support.BACKED
    code = {LineSpan("src/defaults.ts", 4, 4): "  retry: 3,"}
    assert judge(answer, question, readme | code).support is Support.PARTLY


# An example's setting is no default, nor is a type declaration file's (it gives types, not
# values); a code line giving the other value still keeps the answer from backed.
EXAMPLE_SETTINGS = [
    pytest.param(  # a user's check on the Rust backoff crate: the crate docs' worked example
        {LineSpan("src/default.rs", 8, 8): "/// The default multiplier value (1.5 which is 50% increase).",
         LineSpan("src/default.rs", 9, 9): "pub const MULTIPLIER: f64 = 1.5;",
         LineSpan("src/lib.rs", 25, 25): "//!multiplier = 2"},
        "What is the default multiplier of the exponential backoff?",
        "The default multiplier of the exponential backoff is 1.5.",
        {LineSpan("src/exponential.rs", 44, 44): "            multiplier: 2,"}, id="doc-comment-example"),
    pytest.param(  # a user's check on p-retry: the usage example inside index.d.ts's doc comment
        {LineSpan("index.js", 34, 34): "\t\toptions.shouldRetry ??= () => true;",
         LineSpan("index.js", 35, 35): "\t\toptions.retries ??= 10;",
         LineSpan("index.d.ts", 125, 125): "\tretries: 5"},
        "How many times does pRetry retry by default?",
        "The default is 10 retries.",
        {LineSpan("src/defaults.js", 4, 4): "  retries: 5,"}, id="type-declaration-file"),
]


@pytest.mark.parametrize(("lines", "question", "answer", "code"), EXAMPLE_SETTINGS)
def test_an_example_or_a_declaration_sets_no_default(lines, question, answer, code) -> None:
    """"The default multiplier is 1.5" (right) was kept from backed by `//!multiplier = 2`; "the
    default is 10 retries" (right: `options.retries ??= 10;`) by `retries: 5` in index.d.ts."""
    assert judge(answer, question, lines).support is Support.BACKED
    assert judge(answer, question, lines | code).support is Support.PARTLY


def test_a_docs_example_s_setting_is_no_default() -> None:
    """A user's check on axios: "the default maximum response body size is 2000 bytes" was backed by
    the README's example request config (`maxContentLength: 2000,`); the default is -1. A docs line
    that says the value is the default still backs it, and so does the code's setting."""
    readme = {LineSpan("README.md", 496, 496): "  // `maxContentLength` defines the max size of the http response "
                                               "content in bytes allowed in node.js",
              LineSpan("README.md", 497, 497): "  maxContentLength: 2000,"}
    question = "What is the default maximum response body size?"
    answer = "The default maximum response body size is 2000 bytes, set by `maxContentLength`."
    wrong = judge(answer, question, readme)
    assert wrong.support is Support.PARTLY and "2000 beside the question's subject" in wrong.missing
    said = {LineSpan("README.md", 497, 497): "  maxContentLength: 2000, // default"}
    assert judge(answer, question, readme | said).support is Support.BACKED
    code = {LineSpan("lib/defaults/index.js", 136, 136): "  // the maximum size of a response body, in bytes",
            LineSpan("lib/defaults/index.js", 137, 137): "  maxContentLength: 2000,"}
    assert judge(answer, question, readme | code).support is Support.BACKED


def test_a_question_about_the_whole_project_is_about_every_line_read_for_it() -> None:
    """"What does this project do?" names no subject but asking words; the lines read for it (a
    package's doc comment) are about the project, so a short answer they hold is backed, and one
    they do not hold is not."""
    lines = {LineSpan("doc.go", 5, 5): "// Package uuid generates and inspects UUIDs.",
             LineSpan("doc.go", 7, 7): "// UUIDs are based on RFC 4122 and DCE 1.1: Authentication and Security"}
    question = "What does this project do?"
    assert judge("This project generates and inspects UUIDs.", question, lines).support is Support.BACKED
    assert judge("It serves web pages over HTTP.", question, lines).support is not Support.BACKED
    # Burrow asked about itself: a code comment a search showed is not what the project says of itself
    comment = {LineSpan("app/harness/verdict.py", 394, 394): "# This project generates and inspects UUIDs"}
    readme = {LineSpan("README.md", 1, 1): "# Burrow: answers about a private codebase, offline"}
    assert judge("This project generates and inspects UUIDs.", question, comment | readme).support \
        is not Support.BACKED


def test_a_line_with_the_claim_as_written_backs_before_one_with_its_own_name_only() -> None:
    """A user's check on either: "returns `L::default()`" was backed by `R::default()` first (the
    qualified claim is held by its own name, `default`); the line that says it comes first."""
    lines = {LineSpan("src/lib.rs", 445, 445): "            Either::Right(_) => L::default(),",
             LineSpan("src/lib.rs", 513, 513): "            Either::Left(_) => R::default(),"}
    verdict = judge("It returns `L::default()` for a `Right` value.",
                    "What does left_or_default return for a Right value?", lines)
    assert verdict.support is Support.BACKED
    assert verdict.backing[0].span.start_line == 445


def test_a_quoted_message_is_backed_by_a_line_that_quotes_it() -> None:
    """A user's check on ofetch: asked for the timeout's error message, "Request Timeout" was
    backed by the README's list of retried status codes; the message is a string in the code."""
    readme = {LineSpan("README.md", 116, 116): "- `408` - Request Timeout",
              LineSpan("README.md", 140, 140): "You can specify `timeout` to abort a request after a timeout."}
    question = "What error message does a request that times out give?"
    wrong = judge('The error message for a request that times out is "Request Timeout".', question, readme)
    assert wrong.support is Support.PARTLY
    assert "request timeout (quoted as a message in no line)" in wrong.missing
    assert "request timeout" not in wrong.found  # not found as a message: not said to be found
    code = {LineSpan("src/fetch.ts", 249, 249): '          "[TimeoutError]: The operation was aborted due to timeout"',
            LineSpan("src/fetch.ts", 246, 246): "    if (!context.options.signal && context.options.timeout) {"}
    right = judge('It is "[TimeoutError]: The operation was aborted due to timeout".', question, code)
    assert right.support is Support.BACKED


def test_asked_which_error_an_answer_naming_none_is_not_backed_by_its_words() -> None:
    """A user's check on redux: "What error is thrown when a reducer dispatches an action?" was
    answered with dispatch's doc comment copied, every word on its lines, and was backed; the error
    is `new Error('Reducers may not dispatch actions.')`."""
    store = "src/createStore.ts"
    doc = {LineSpan(store, 250, 250): "   * The base implementation only supports plain object actions.",
           LineSpan(store, 251, 251): "   * If you want to dispatch a Promise, an Observable, a thunk,",
           LineSpan(store, 252, 252): "   * or something else, see the documentation for the `redux-thunk` package.",
           LineSpan(store, 295, 295): "      throw new Error('Reducers may not dispatch actions.')"}
    question = "What error is thrown when a reducer dispatches an action?"
    cited = (LineSpan("src/createStore.ts", 250, 252),)
    copied = judge("The error is thrown when a reducer dispatches an action. The base implementation only supports "
                   "plain object actions. If you want to dispatch a Promise, an Observable, a thunk, or something "
                   "else, see the documentation for the `redux-thunk` package.", question, doc, places=cited)
    assert copied.support is Support.PARTLY
    assert "the error itself: no error name or message in the answer" in copied.missing
    named = judge('It throws an Error: "Reducers may not dispatch actions."', question, doc,
                  places=(LineSpan("src/createStore.ts", 295, 295),))
    assert named.support is Support.BACKED
    exc = {LineSpan("src/filelock/_error.py", 6, 6): "class Timeout(TimeoutError):  # noqa: N818",
           LineSpan("src/filelock/_api.py", 330, 330): "        raise Timeout(lock_filename)  # noqa: TRY301"}
    assert judge("The exception raised is `Timeout`.", "Which exception is raised when the lock cannot be acquired "
                 "in time?", exc).support is Support.BACKED


def test_asked_for_a_default_the_line_that_sets_the_value_backs_first() -> None:
    """A user's check on reselect: "The default cache size of lruMemoize is 1" was backed, and the
    lines shown as its backing were `if (cacheIndex > -1) {` and `entries.splice(cacheIndex, 1)`."""
    path = "src/lruMemoize.ts"
    lines = {LineSpan(path, 58, 58): "    if (cacheIndex > -1) {",
             LineSpan(path, 63, 63): "        entries.splice(cacheIndex, 1)",
             LineSpan(path, 64, 64): "        entries.unshift(entry) // the cache's most recent",
             LineSpan(path, 199, 199): "    maxSize = 1,",
             LineSpan(path, 200, 200): "    resultEqualityCheck  // cache results"}
    verdict = judge("The default cache size of `lruMemoize` is 1.", "What is the default cache size of lruMemoize?",
                    lines)
    assert verdict.support is Support.BACKED
    assert verdict.backing[0].span == LineSpan(path, 199, 199)


def test_a_default_tag_in_a_doc_comment_and_a_comparison_are_not_the_answers_default() -> None:
    """A user's check on reselect: "the input stability check runs every time by default ...
    `inputStabilityCheck` ... set to `'always'`" was backed by `inputStabilityCheck === 'always' ||`
    and a doc line listing the choices; the member's doc comment says `@default 'once'`."""
    types, utils = "src/types.ts", "src/utils.ts"
    lines = {LineSpan(types, 309, 309): "export interface DevModeChecks {",
             LineSpan(types, 311, 311): "   * Overrides the global input stability check for the selector.",
             LineSpan(types, 312, 312): "   * - `once` - Run only the first time the selector is called.",
             LineSpan(types, 313, 313): "   * - `always` - Run every time the selector is called.",
             LineSpan(types, 316, 316): "   * @default 'once'",
             LineSpan(types, 318, 318): "   * @since 5.0.0",
             LineSpan(types, 319, 319): "   */",
             LineSpan(types, 320, 320): "  inputStabilityCheck: DevModeCheckFrequency",
             LineSpan(utils, 151, 151): "        inputStabilityCheck === 'always' ||"}
    question = "How often does the input stability check run by default?"
    wrong = judge("The input stability check runs every time the selector is called by default. This is specified "
                  "in the `inputStabilityCheck` property of the `DevModeChecks` interface, which is set to "
                  "`'always'`.", question, lines, places=(LineSpan(types, 309, 320),))
    assert wrong.support is Support.PARTLY
    assert "@default 'once' (the default a shown line sets)" in wrong.missing
    assert LineSpan(utils, 151, 151) not in [b.span for b in wrong.backing + wrong.closest][:1]
    right = judge("By default `inputStabilityCheck` is `'once'`: it runs only the first time the selector is "
                  "called.", question, lines, places=(LineSpan(types, 309, 320),))
    assert right.support is Support.BACKED
    assert "once" in right.backing[0].text


def test_a_number_written_as_code_writes_it_is_a_value_to_check() -> None:
    """A user's check on filelock: "The default mode of the lock file is 0o644" had no value to
    check (`o644` a word) and was backed by the cited `def mode(self) -> int:`."""
    path = "src/filelock/_api.py"
    lines = {LineSpan(path, 86, 86): "        mode: int = 0o644,",
             LineSpan(path, 240, 240): "    def mode(self) -> int:",
             LineSpan(path, 241, 241): '        """:return: the file permissions for the lockfile"""'}
    question, cited = "What is the default mode of the lock file?", (LineSpan(path, 240, 242),)
    right = judge(f"The default mode of the lock file is 0o644. It is in {path}:240-242.", question, lines,
                  places=cited)
    assert right.support is Support.BACKED and right.backing[0].span == LineSpan(path, 86, 86)
    wrong = judge(f"The default mode of the lock file is 0o600. It is in {path}:240-242.", question, lines,
                  places=cited)
    assert wrong.support is not Support.BACKED and "0o600" in wrong.missing


def test_an_answer_saying_with_where_its_line_says_without_is_not_backed() -> None:
    """A user's check on pathspec: "How does a pattern that ends with a slash match?" was answered
    with the comment on patterns ending *without* a slash, "with" put in its place, and backed."""
    path = "pathspec/patterns/gitwildmatch.py"
    lines = {LineSpan(path, 202, 202): "\t\t\t# A pattern ending without a slash ('/') will match a file or a",
             LineSpan(path, 203, 203): '\t\t\t# directory (with paths underneath it). E.g., "foo" matches "foo",',
             LineSpan(path, 204, 204): '\t\t\t# "foo/bar", "foo/bar/baz", etc.'}
    question = "How does a pattern that ends with a slash match?"
    turned = judge('The pattern that ends with a slash matches any file or directory (with paths underneath it). '
                   'E.g., "foo" matches "foo", "foo/bar", "foo/bar/baz", etc.', question, lines)
    assert turned.support is Support.PARTLY
    assert "without a slash (the line says; the answer says with)" in turned.missing
    assert turned.closest[0].span == LineSpan(path, 202, 202)
    kept = judge('A pattern ending without a slash matches a file or a directory (with paths underneath it): '
                 '"foo" matches "foo", "foo/bar", "foo/bar/baz".', "How does a pattern without a slash match?", lines)
    assert kept.support is Support.BACKED


def test_a_how_answer_that_only_points_at_a_line_of_code_is_not_backed() -> None:
    """A user's check on eventemitter3: "How are listeners stored when there is only one listener
    for an event?" answered "The line `if (listeners.fn) return 1;` ... shows how listeners are
    stored ...", every word the question's own, and was backed."""
    lines = {LineSpan("index.js", 150, 150): "EventEmitter.prototype.listenerCount = function listenerCount(event) {",
             LineSpan("index.js", 155, 155): "  if (listeners.fn) return 1;"}
    question, cited = "How are listeners stored when there is only one listener for an event?", \
        (LineSpan("index.js", 143, 157),)
    pointing = judge("The line `if (listeners.fn) return 1;` in the file `index.js:143-157` shows how listeners are "
                     "stored when there is only one listener for an event.", question, lines, places=cited)
    assert pointing.support is Support.PARTLY
    assert "how: the answer quotes code and says nothing of what it does" in pointing.missing
    saying = judge("A single listener is kept as the listener object itself (`if (listeners.fn) return 1;`), "
                   "not wrapped in an array.", question,
                   {**lines, LineSpan("index.js", 66, 66): "  if (!emitter._events[evt]) emitter._events[evt] = "
                                                           "listener, emitter._eventsCount++;  // a single object, "
                                                           "wrapped in an array when a second comes"},
                   places=cited)
    assert "how: the answer quotes code and says nothing of what it does" not in saying.missing


def test_a_constant_the_subject_s_line_uses_backs_its_value() -> None:
    """A user's check on itoa: "The buffer is 40 bytes", right, was partly backed: the value is
    `const I128_MAX_LEN: usize = 40;`, 200 lines below `struct Buffer`'s `bytes: [..; I128_MAX_LEN]`."""
    path = "src/lib.rs"
    lines = {LineSpan(path, 56, 56): "pub struct Buffer {",
             LineSpan(path, 58, 58): "    bytes: [MaybeUninit<u8>; I128_MAX_LEN],",
             LineSpan(path, 281, 281): "const U128_MAX_LEN: usize = 39;",
             LineSpan(path, 282, 282): "const I128_MAX_LEN: usize = 40;"}
    question = "How large is the buffer?"
    right = judge("The buffer is 40 bytes large.", question, lines, places=(LineSpan(path, 282, 282),))
    assert right.support is Support.BACKED
    assert right.backing[0].span == LineSpan(path, 282, 282)
    wrong = judge("The buffer is 39 bytes large.", question, lines, places=(LineSpan(path, 281, 281),))
    assert wrong.support is not Support.BACKED  # no line near the buffer uses U128_MAX_LEN


def test_a_build_s_copy_backs_after_the_source() -> None:
    lines = {LineSpan("dist/cjs/FormApi.d.cts", 362, 362): "    removeFieldValue: (field: TField) => void",
             LineSpan("src/FormApi.ts", 1202, 1202): "  removeFieldValue = async (field: TField) => {"}
    verdict = judge("With `removeFieldValue`.", "How is an array field's item removed?", lines)
    assert [line.span.path for line in verdict.backing] == ["src/FormApi.ts", "dist/cjs/FormApi.d.cts"]


def test_the_question_s_words_written_as_one_identifier_are_no_claim_and_the_value_s_line_backs_first() -> None:
    """A user's check on fastify: "What is the default body limit?" answered "`bodyLimit` is
    1048576": `bodyLimit` is the question's own words, and the line shown first as backing holds
    the number, not just the name."""
    question = "What is the default body limit?"
    assert claims_of("The default `bodyLimit` is 1048576 bytes.", question).key == ("1048576",)
    lines = {LineSpan("docs/Server.md", 284, 284): "### `bodyLimit`",
             LineSpan("docs/Server.md", 285, 285): "The `bodyLimit` sets the body limit for `fastify` routes.",
             LineSpan("docs/Server.md", 286, 286): "+ Default: `1048576` bytes (1MiB)"}
    verdict = judge("The default body limit is 1048576 bytes, set for `fastify` routes.", question, lines)
    assert verdict.support is Support.BACKED and verdict.backing[0].span.start_line == 286


def test_a_generic_type_s_method_is_held_by_its_own_name() -> None:
    """The callers list writes a Rust method as `SmallVec<A>.set_len`; the line that defines it
    says `pub fn set_len(`, and the answer that copies the list's name is not missing it."""
    lines = {LineSpan("src/lib.rs", 690, 690): "    pub unsafe fn set_len(&mut self, new_len: usize) {",
             LineSpan("src/lib.rs", 697, 697): "        let (_, len_ptr, _) = self.triple_mut();"}
    verdict = judge("It is called in `SmallVec<A>.set_len`.", "What calls triple_mut?", lines)
    assert "smallvec<a>.set_len" in verdict.found and not verdict.missing


def test_asked_for_a_default_the_answer_s_number_must_sit_beside_the_subject_and_not_as_an_example() -> None:
    """tuning3's qc-02: "a failed mutation is retried 3 times by default" was backed by a doc line
    giving 3 as an example ("e.g. 3") and a line naming `MutationOptions`; the default is 0."""
    question = "How many times is a failed mutation retried by default?"
    answer = "A failed mutation is retried 3 times by default, set by the `retry` option of `MutationOptions`."
    docs = {LineSpan("src/types.ts", 181, 181): " * If set to an integer number, e.g. 3, failed mutations will retry.",
            LineSpan("src/types.ts", 183, 183): "  retry?: RetryValue<TError>",
            LineSpan("src/mutation.ts", 88, 88): "  options!: MutationOptions<TData, TError>"}
    verdict = judge(answer, question, docs)
    assert verdict.support is Support.PARTLY and "3 beside the question's subject" in verdict.missing
    assert "3" not in verdict.found
    defaults = {**docs, LineSpan("src/mutation.ts", 90, 90): "    retry: 3, // a failed mutation's retries"}
    assert judge(answer, question, defaults).support is Support.BACKED


def test_a_definition_reaches_to_its_last_member(project) -> None:
    """The symbol table's span of a class runs to the end of its last method (each a chunk of its
    own), so an answer citing a method's lines points into the class it was asked about."""
    from app.harness.session import open_toolbox
    from app.settings import Settings
    from app.tools.code_search import CodeSearch

    tools = open_toolbox(project, Settings(n_threads=1), code_search=CodeSearch())
    try:
        (span,) = tools.definitions("NoteStore")
        text = (project / span.path).read_text(encoding="utf-8").splitlines()
        assert text[span.start_line - 1].startswith("class NoteStore")
        last = max(i for i, line in enumerate(text, 1) if line.startswith("    def "))
        assert span.end_line > last  # past the last method's own line, into its body
    finally:
        tools.workspace.close()


def test_a_wrapper_is_not_where_the_logic_lives() -> None:
    """tuning3's semver-07: asked where the logic that checks a version against a requirement is,
    the answer named `VersionReq::matches`, which only calls `eval::matches_req`: partly backed,
    saying so. Asked where `matches` is defined, the same lines back it; a body that does the work
    backs it too."""
    from app.harness.verdict import Definition

    path = "src/lib.rs"
    wrapper = {LineSpan(path, 474, 474): "    /// Evaluate whether the given `Version` satisfies the requirement.",
               LineSpan(path, 476, 476): "    pub fn matches(&self, version: &Version) -> bool {",
               LineSpan(path, 477, 477): "        eval::matches_req(self, version)",
               LineSpan(path, 478, 478): "    }"}
    head = ShownLine(LineSpan(path, 476, 476), wrapper[LineSpan(path, 476, 476)])
    defined = Definition("matches", True, (head,))
    answer = "The logic is implemented in the `matches` method of `VersionReq`, in `src/lib.rs`."
    logic = "Where is the logic that checks a version against a whole requirement implemented?"
    verdict = judge(answer, logic, wrapper, defined=defined, files=[path])
    assert verdict.support is Support.PARTLY
    assert "the logic itself: matches only calls eval::matches_req" in verdict.missing
    named = "Where is the matches method of VersionReq defined?"
    answer_named = "The `matches` method of `VersionReq` is defined in `src/lib.rs`."
    assert judge(answer_named, named, wrapper, defined=defined, files=[path]).support is Support.BACKED
    working = {**wrapper, LineSpan(path, 477, 477): "        let ok = req.comparators.iter().all(|c| c.matches(v));",
               LineSpan(path, 478, 478): "        ok && pre_is_compatible(req, v)",
               LineSpan(path, 479, 479): "    }"}
    assert judge(answer, logic, working, defined=defined, files=[path]).support is Support.BACKED


def test_a_python_wrapper_and_an_unshown_body() -> None:
    from app.harness.verdict import Definition

    path = "pkg/config.py"
    lines = {LineSpan(path, 10, 10): "def load_config(path):",
             LineSpan(path, 11, 11): "    return _parse(read_text(path))",
             LineSpan(path, 12, 12): ""}
    head = ShownLine(LineSpan(path, 10, 10), "def load_config(path):")
    answer = "The config is parsed in `load_config` in `pkg/config.py`."
    question = "Where is the config parsing done?"
    verdict = judge(answer, question, lines, defined=Definition("load_config", True, (head,)), files=[path])
    assert verdict.support is Support.PARTLY and "the logic itself: load_config only calls _parse" in verdict.missing
    unshown = {LineSpan(path, 10, 10): "def load_config(path):"}  # the body was never shown: nothing to say
    kept = judge(answer, question, unshown, defined=Definition("load_config", True, (head,)), files=[path])
    assert not any(m.startswith("the logic itself") for m in kept.missing)


def test_a_link_s_path_backs_nothing() -> None:
    """A user's check on minimist: the changelog's link to `github.com/minimistjs/minimist/...` was
    the backing line shown for "the `minimist` package"; the README line that says it is shown."""
    question = "What does the stopEarly option do?"
    answer = ("The `minimist` option stopEarly, when true, populates `argv._` with everything after the "
              "first non-option.")
    link = "https://github.com/minimistjs/minimist/commit/471c7e4"
    lines = {LineSpan("CHANGELOG.md", 162, 162): f"- added stopEarly option [`471c7e4`]({link})",
             LineSpan("README.md", 79, 79): "* `opts.stopEarly` - when true, populate `argv._` with everything after "
                                            "the first non-option"}
    verdict = judge(answer, question, lines)
    assert verdict.support is Support.BACKED and [b.span.path for b in verdict.backing] == ["README.md"]


def test_an_answer_that_only_cites_is_not_backed_unless_a_place_was_asked() -> None:
    """A user's check on neverthrow: "Which function wraps a promise into a ResultAsync?" answered
    `dist/index.d.ts:5-42` and nothing else: partly backed, as if the range were an answer."""
    lines = {LineSpan("dist/index.d.ts", 5, 5): "declare class ResultAsync<T, E> implements PromiseLike<T> {",
             LineSpan("dist/index.d.ts", 6, 6): "    static fromPromise<T, E>(promise: PromiseLike<T>, f: Fn<E>);"}
    bare = "dist/index.d.ts:5-42"
    asked = "Which function wraps a promise into a ResultAsync?"
    assert judge(bare, asked, lines, places=(LineSpan("dist/index.d.ts", 5, 42),)).support is Support.NOT_BACKED
    where = "Which file declares ResultAsync?"
    assert judge(bare, where, lines, places=(LineSpan("dist/index.d.ts", 5, 42),),
                 files=["dist/index.d.ts"]).support is not Support.NOT_BACKED
    fenced = "It is:\n```ts\nstatic fromPromise<T, E>(promise: PromiseLike<T>, f: (e: unknown) => E);\n```"
    assert judge(fenced, asked, lines).support is not Support.NOT_BACKED  # code in a fence may be the answer


def test_a_file_named_for_a_where_question_is_backed_by_a_line_that_writes_its_path() -> None:
    """A user's check on flatted: "Which file do I get when I require('flatted') versus import it?"
    answered "`cjs/index.js` ... `esm/index.js`" (right) and was not backed, though package.json's
    export map was shown: a named file is the answer's claim, and a line beside the subject that
    writes its path states it. Every named file must be written; a file only some line names is not."""
    manifest = {LineSpan("package.json", 56, 56): '    ".": {',
                LineSpan("package.json", 57, 57): '      "types": "./types/index.d.ts",',
                LineSpan("package.json", 58, 58): '      "import": "./esm/index.js",',
                LineSpan("package.json", 59, 59): '      "default": "./cjs/index.js"',
                LineSpan("README.md", 40, 40): "const {parse, stringify} = require('flatted');"}
    question = "Which file do I get when I require('flatted') versus import it?"
    files = ["cjs/index.js", "esm/index.js"]
    answer = "The file you get when you require('flatted') is `cjs/index.js`, and when you import it `esm/index.js`."
    verdict = judge(answer, question, manifest, paths=files, files=files)
    assert verdict.support is Support.BACKED
    assert {b.span.start_line for b in verdict.backing} == {58, 59}
    guessed = ["cjs/index.js", "esm/flatted.js"]  # one of the two is written nowhere
    answer = "The file you get when you require('flatted') is `cjs/index.js`, and when you import it `esm/flatted.js`."
    assert judge(answer, question, manifest, paths=guessed, files=guessed).support is not Support.BACKED
    asked_how = "How do I require('flatted')?"  # not a where question: files are places, not its claims
    assert judge(answer, asked_how, manifest, paths=files, files=files).support is not Support.BACKED


@pytest.mark.parametrize("written", ["and above", "or higher", "or later"])
def test_a_minimum_version_written_as_and_above_is_backed(written) -> None:
    """A user's check: markupsafe's "The minimum Python version this release supports is Python 3.7
    ... the project supports Python 3.7 and above" (right) was partly backed on "above" alone."""
    lines = {LineSpan("setup.cfg", 33, 33): "python_requires = >= 3.7"}
    answer = f"The minimum Python version is 3.7, set by `python_requires`: the project supports 3.7 {written}."
    verdict = judge(answer, "What's the minimum Python version this release supports?", lines)
    assert verdict.support is Support.BACKED, verdict.missing


def test_an_answer_that_only_copies_the_chunks_shown_is_partly_backed() -> None:
    """A user's check on google/uuid: "Which string formats does uuid.Parse accept?" was answered
    with the prompt's chunks copied back under their headers, 768 tokens and no word of its own, and
    backed by the lines it copied. One quoted block with a word of its own stays backed."""
    lines = {LineSpan("uuid.go", 118, 118): "\tcase 36: // xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx",
             LineSpan("uuid.go", 119, 119): "\tcase 36 + 9: // urn:uuid:xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx",
             LineSpan("uuid.go", 140, 140): "\tcase 36 + 2: // {xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx}",
             LineSpan("uuid.go", 145, 145): "\tcase 32: // xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}
    question = "Which string formats does uuid.Parse accept?"
    copied = "".join(f"uuid.go:{n}-{n}\n```go\n{lines[LineSpan('uuid.go', n, n)]}\n```\n\n" for n in (118, 119, 140))
    verdict = judge(copied, question, lines)
    assert verdict.support is Support.PARTLY and "copies 3 blocks" in verdict.missing[-1]
    said = "It accepts the urn form:\n```go\n" + lines[LineSpan("uuid.go", 119, 119)] + "\n```"
    assert judge(said, question, lines).support is Support.BACKED


def test_a_version_written_as_a_tuple_holds_the_dotted_version() -> None:
    """A user's check on unicode-width: "Which Unicode version are unicode-width's tables based on?"
    answered "Unicode 15.0.0" (right) and was not backed: the line writes `(15, 0, 0)`."""
    lines = {LineSpan("src/tables.rs", 15, 15): "pub const UNICODE_VERSION: (u8, u8, u8) = (15, 0, 0);"}
    question = "Which Unicode version are unicode-width's tables based on?"
    assert judge("The tables are based on Unicode 15.0.0.", question, lines).support is Support.BACKED
    assert judge("The tables are based on Unicode 15.1.0.", question, lines).support is not Support.BACKED


@pytest.mark.parametrize(("line", "answer"), [
    ("    max = Math.pow(2, 16),", "The default max is 65536."),
    ("const max = 1 << 20", "The default max is 1048576."),
    ("max = 64 * 1024", "The default max is 65536."),
])
def test_a_number_the_code_computes_from_literals_is_held_by_the_computation(line, answer) -> None:
    """A user's check on optimism: "What is the default maximum number of cache entries for a
    function created with `wrap()`?" answered 65536 (right) and was partly backed, "65536" in no
    line: the code writes `Math.pow(2, 16)`. Another number is not held by it."""
    lines = {LineSpan("src/index.ts", 40, 40): "export function wrap(originalFunction, {",
             LineSpan("src/index.ts", 41, 41): line}
    question = "What is the default max of wrap?"
    assert judge(answer, question, lines).support is Support.BACKED
    assert judge(answer.replace("5536", "5535").replace("1048576", "1048575"), question,
                 lines).support is not Support.BACKED


def test_a_supported_runtime_version_backed_only_by_a_changelog_entry_is_partly_backed() -> None:
    """A user's check on true-myth: "Which Node.js versions does true-myth declare support for?"
    answered "Node.js 12 LTS and later" (wrong: package.json says `18.* || >= 20.*`), backed by
    an old release's changelog entry. The manifest's line backs it; the changelog's alone does not."""
    history = {LineSpan("CHANGELOG.md", 792, 792): "- Dropped support for Node versions earlier than Node 12 LTS."}
    question = "Which Node.js versions does true-myth declare support for?"
    answer = "The project declares support for Node.js versions 12 LTS and later."
    verdict = judge(answer, question, history)
    assert verdict.support is Support.PARTLY and "changelog" in verdict.missing[-1]
    manifest = {LineSpan("package.json", 111, 111): '    "node": "18.* || >= 20.*"'}
    right = "The project declares support for Node.js 18 and 20 or later."
    assert judge(right, question, manifest).support is Support.BACKED


def test_the_runtime_versions_a_manifest_declares_decide_a_version_answer() -> None:
    """A user's check on true-myth: "Which Node.js versions does true-myth declare support for?"
    answered "12 LTS and later" from an old changelog entry; package.json declares `18.* || >= 20.*`
    (a fact, like the symbol table's for a definition). An answer that gives none of the declared
    versions is not backed, one that gives them is backed by the declaration."""
    from app.harness.verdict import ShownLine, asked_runtime

    declared = (ShownLine(LineSpan("package.json", 111, 111), '    "node": "18.* || >= 20.*"'),)
    history = {LineSpan("CHANGELOG.md", 792, 792): "- Dropped support for Node versions earlier than Node 12 LTS."}
    question = "Which Node.js versions does true-myth declare support for?"
    assert asked_runtime(question) == "node"
    wrong = judge("It supports Node.js 12 LTS and later.", question, history, declared=declared)
    assert wrong.support is Support.NOT_BACKED and wrong.missing[-1] == "the version package.json:111 declares"
    assert wrong.closest[0] == declared[0]  # where to look
    right = judge("It supports Node.js v18, and 20 or later.", question, history, declared=declared)
    assert right.support is Support.BACKED and right.backing[0] == declared[0]
    assert asked_runtime("What version of python-dotenv is this?") is None  # a package named after it
    assert asked_runtime("What calls asUint8Array, and why does the Node version of it re-wrap the Buffer?") is None
    assert asked_runtime("Which Go version and which flag library does go.mod name?") == "go"
    both = judge("Go 1.15, and the flag library is yaml.", "Which Go version and which flag library does go.mod name?",
                 {}, declared=(ShownLine(LineSpan("go.mod", 3, 3), "go 1.15"),))
    assert both.support is not Support.BACKED  # it asks another thing the declaration does not hold


def test_a_yes_or_no_is_no_claim_a_line_states() -> None:
    """A user's check on mapstructure: "If the input is nil (or a typed nil pointer), does Decode
    overwrite the target field?" answered "Yes, ... Decode will overwrite the target field" (it does
    not: nothing is set unless ZeroFields is true) was backed by the comment beside the nil check,
    which holds the question's words whichever way the answer goes. An answer to a yes/no question is
    at most partly backed, the lines it found shown as the closest to read."""
    lines = {LineSpan("mapstructure.go", 421, 421):
             "func (d *Decoder) decode(name string, input interface{}, outVal reflect.Value) error {",
             LineSpan("mapstructure.go", 423, 423): "\tif input != nil {",
             LineSpan("mapstructure.go", 426, 426):
                 "\t\t// We need to check here if input is a typed nil. Typed nils won't",
             LineSpan("mapstructure.go", 427, 427): '\t\t// match the "input == nil" below so we check that here.',
             LineSpan("mapstructure.go", 428, 428): "\t\tif inputVal.Kind() == reflect.Ptr && inputVal.IsNil() {",
             LineSpan("mapstructure.go", 429, 429): "\t\t\tinput = nil",
             LineSpan("mapstructure.go", 433, 433): "\tif input == nil {",
             LineSpan("mapstructure.go", 434, 434):
                 "\t\t// If the data is nil, then we don't set anything, unless ZeroFields is set",
             LineSpan("mapstructure.go", 436, 436): "\t\tif d.config.ZeroFields {",
             LineSpan("mapstructure.go", 437, 437): "\t\t\toutVal.Set(reflect.Zero(outVal.Type()))"}
    question = "If the input is nil (or a typed nil pointer), does Decode overwrite the target field?"
    answer = ("Yes, if the input is nil (or a typed nil pointer), Decode will overwrite the target field. This is "
              "because the code checks if the input is nil and if so, it sets the target field to the zero value.")
    verdict = judge(answer, question, lines)
    assert verdict.support is Support.PARTLY and verdict.missing[0] == POLAR_UNCHECKED
    assert LineSpan("mapstructure.go", 426, 426) in [line.span for line in verdict.closest]
    # asked after a condition, or as the second question
    assert _yes_or_no("Yes, it polls.", "If CHOKIDAR_USEPOLLING=false, does chokidar poll?")
    assert _yes_or_no("It is on.", "What does `atomic` do, and is it on by default when usePolling is true?")
    assert _yes_or_no("Yes.", "What calls loadDocuments? Does load throw on two documents?")
    # not a yes/no: what it does, or a choice answered by naming one
    assert not _yes_or_no("It returns nil.", "What does Decode do with a nil input?")
    assert not _yes_or_no("Decimal suffixes.", "Does naturalsize use binary or decimal suffixes by default?")
    assert _yes_or_no("No, decimal ones.", "Does naturalsize use binary or decimal suffixes by default?")
    # a user's check on msw: alternatives the answer repeats are not chosen
    assets = "What is the default strategy, and are requests for static assets like .css or fonts reported?"
    assert _yes_or_no("It is 'warn'. Requests for static assets like .css or fonts are reported.", assets)


def test_what_an_import_gets_is_what_the_entry_fields_say() -> None:
    """A user's check on idb: "What file do I get with import { openDB } from 'idb' versus
    require('idb')?" answered "import ... is build/index.cjs" (the "default" file; `"import":
    "./build/index.js"`) and was backed, as a where-is answer: openDB is defined in the file it
    named. Asked what importing the package gets, the shown entry fields decide which file each way
    gets; an answer that gives a way another file is partly backed, the field shown."""
    from app.harness.grounding import asks_where_defined

    question = "What file do I get with import { openDB } from 'idb' versus require('idb')?"
    assert not asks_where_defined(question)  # openDB's definition is not what it asks
    fields = {LineSpan("package.json", n, n): text for n, text in [
        (6, '  "main": "./cjs/index.js",'), (53, '  "module": "./esm/index.js",'), (55, '  "exports": {'),
        (56, '    ".": {'), (57, '      "types": "./types/index.d.ts",'), (58, '      "import": "./esm/index.js",'),
        (59, '      "default": "./cjs/index.js"')]}
    asked = "Which file do I get when I require('flatted') versus import it?"
    right = "When you require('flatted'), you get the file `cjs/index.js`. When you import it, you get `esm/index.js`."
    assert judge(right, asked, fields).support is Support.BACKED
    swapped = "When you require('flatted'), you get `esm/index.js`. When you import it, you get `cjs/index.js`."
    verdict = judge(swapped, asked, fields)
    assert verdict.support is Support.PARTLY
    assert verdict.missing[0] == "what require gets: cjs/index.js (package.json:59)"
    assert verdict.closest[0].span == LineSpan("package.json", 59, 59)
    # without an export map, `require` gets "main" and a bundler's `import` "module"
    plain = {LineSpan("package.json", 3, 3): '  "main": "./dist/index.cjs",',
             LineSpan("package.json", 4, 4): '  "module": "./dist/index.mjs",'}
    assert _import_gets_another("require('superstruct') loads `dist/index.mjs`.", plain)[0] == \
        "what require gets: dist/index.cjs (package.json:3)"
    assert _import_gets_another("An import of 'superstruct' loads dist/index.mjs.", plain) is None


def test_what_an_import_gets_is_said_when_the_answer_is_not_backed_either() -> None:
    """A user's check on idb, asked again (twenty-seventh session): the wrong answer "With import {
    openDB } from 'idb' you get build/index.cjs, and with require('idb') you also get build/index.cjs"
    held no claim a line states, so it was partly backed with nothing listed as not found and
    README lines as the closest: the check of what each way gets ran on backed answers only, and
    read a sentence naming both ways as naming neither. Now a partly or not backed answer says
    what the way it names gets too, the field first among the lines to read, and a clause ("...,
    and with require ...", "... while ...") is read on its own."""
    question = "What file do I get with import { openDB } from 'idb' versus require('idb')?"
    fields = {LineSpan("package.json", n, n): text for n, text in [
        (5, '  "main": "./build/index.cjs",'), (6, '  "module": "./build/index.js",'),
        (8, '  "exports": {'), (9, '    ".": {'), (10, '      "types": "./build/index.d.ts",'),
        (11, '      "module": "./build/index.js",'), (12, '      "import": "./build/index.js",'),
        (13, '      "default": "./build/index.cjs"')]}
    readme = {LineSpan("README.md", 32, 32): "import { openDB, deleteDB, wrap, unwrap } from 'idb';"}
    wrong = ("With import { openDB } from 'idb' you get build/index.cjs, and with require('idb') you also "
             "get build/index.cjs (package.json:5).")
    verdict = judge(wrong, question, fields | readme)
    assert verdict.support is not Support.BACKED
    assert verdict.missing[0] == "what import gets: build/index.js (package.json:12)"
    assert verdict.closest[0].span == LineSpan("package.json", 12, 12)
    right = ("With import { openDB } from 'idb' you get build/index.js, and with require('idb') you get "
             "build/index.cjs (package.json:5-13).")
    assert judge(right, question, fields | readme).support is Support.BACKED
    assert _import_gets_another("import gets build/index.js while require gets build/index.js.", fields)[0] == \
        "what require gets: build/index.cjs (package.json:13)"
    # one clause naming both ways and one file gives both that file (a user's check on yargs-parser)
    assert _import_gets_another("Both import and require get build/index.js.", fields)[0] == \
        "what require gets: build/index.cjs (package.json:13)"
    assert _import_gets_another("require and import give build/index.cjs and build/index.js.", fields) is None


def test_a_verdict_lists_each_line_once() -> None:
    """A user's check on cachelib: "Where is the common interface ... defined?" was backed by
    `base.py:7: class BaseCache:` twice, the symbol table's definition line and the claim's backing
    line being the same line; a verdict keeps the first of each span, backing and closest alike."""
    head = ShownLine(LineSpan("src/cachelib/base.py", 7, 7), "class BaseCache:")
    sub = ShownLine(LineSpan("src/cachelib/memcached.py", 15, 15), "class MemcachedCache(BaseCache):")
    verdict = Verdict(Support.BACKED, (head, head, sub), (sub, head, sub), ("BaseCache",), ())
    assert verdict.backing == (head, sub)
    assert verdict.closest == (sub, head)


def test_asked_how_many_an_answer_without_a_number_is_not_backed() -> None:
    """A user's check on pkg/errors: "How deep a stack trace does this library capture when I create
    or wrap an error?" answered "The library captures a stack trace when you create or wrap an
    error." and was backed by the doc comment it restated; the depth (`const depth = 32`) is the
    claim, and an answer that gives no number (or word for one) is at most partly backed."""
    lines = {LineSpan(path, n, n): text for path, n, text in [
        ("errors.go", 68, "// New, Errorf, Wrap, and Wrapf record a stack trace at the point they are"),
        ("errors.go", 69, "// called."), ("stack.go", 163, "func callers() *stack {"),
        ("stack.go", 164, "\tconst depth = 32")]}
    asked = "How deep a stack trace does this library capture when I create or wrap an error?"
    restated = "The library records a stack trace at the point New, Errorf, Wrap and Wrapf are called (errors.go:68)."
    verdict = judge(restated, asked, lines)
    assert verdict.support is not Support.BACKED
    assert verdict.missing[0].startswith("a number")
    right = "At most 32: `const depth = 32` in callers (stack.go:163-164)."
    assert judge(right, asked, lines).support is Support.BACKED
    # a quantity in words is a quantity; a question that asks no quantity is left alone
    assert judge(restated.replace("records a stack trace", "records an unlimited stack trace"), asked,
                 lines).missing[:1] != (verdict.missing[0],)
    assert judge(restated, "When does the library record a stack trace?", lines).support is Support.BACKED


def test_default_cargo_features_are_the_default_list_and_what_it_turns_on() -> None:
    """A user's check on hex: "Which Cargo features are turned on by default ...?" answered "`std`
    and `serde`" and was backed (serde is an optional dependency; `default = ["std"]`, `std =
    ["alloc"]`). The answer's default features must be ones the list turns on."""
    toml = ["[dependencies.serde]", "version = \"1.0\"", "optional = true", "[dev-dependencies.serde]",
            "features = [\"derive\"]", "[features]", "alloc = []", "default = [\"std\"]", "std = [\"alloc\"]"]
    lines = {LineSpan("Cargo.toml", n, n): text for n, text in enumerate(toml, start=30)}
    lines[LineSpan("src/lib.rs", 36, 36)] = '#![cfg_attr(not(feature = "std"), no_std)]'
    asked = "Which Cargo features are turned on by default, and how does the crate switch to no_std?"
    wrong = "The Cargo features turned on by default are `std` and `serde`. Without std it is no_std (src/lib.rs:36)."
    verdict = judge(wrong, asked, lines)
    assert verdict.support is Support.NOT_BACKED
    assert verdict.missing[0] == "the default features Cargo.toml lists: alloc, std (Cargo.toml:37)"
    assert verdict.closest[0].span == LineSpan("Cargo.toml", 37, 37)
    for right in ("The default feature is `std`, which turns on `alloc`; `serde` is not on by default.",
                  "The default features are `std` and `alloc`."):
        assert judge(right, asked, lines).support is not Support.NOT_BACKED
    # what a feature whose own list is not shown turns on is unknown: no verdict from the list
    del lines[LineSpan("Cargo.toml", 38, 38)]
    assert judge("The default features are `std` and `alloc`.", asked, lines).support is not Support.NOT_BACKED
    # the manifest read from disk (grounding._cargo_read_whole) decides when given
    manifest = tuple(ShownLine(LineSpan("Cargo.toml", n, n), text) for n, text in enumerate(toml, start=30))
    assert judge(wrong, asked, lines, manifest=manifest).missing[0] == verdict.missing[0]


def test_default_cargo_features_written_one_a_line_and_one_left_out() -> None:
    """A user's check on textwrap: "Which Cargo features are enabled by default?" answered with the
    crate docs' "Default Features" list, `unicode-linebreak` and `unicode-width`, and was backed;
    Cargo.toml's `default = [` list, one item a line, also holds `smawk`. An answer that leaves a
    default feature out is partly backed (one the list does not turn on: not backed, as before)."""
    toml = ["[dependencies.smawk]", "version = \"0.3.1\"", "optional = true", "[features]", "default = [",
            '    "unicode-linebreak",', '    "unicode-width",', '    "smawk",', "]", "unicode-linebreak = []",
            "unicode-width = []", "terminal_size = []"]
    lines = {LineSpan("Cargo.toml", n, n): text for n, text in enumerate(toml, start=58)}
    lines[LineSpan("src/lib.rs", 119, 119)] = "//! * `unicode-linebreak`: enables finding words using the"
    lines[LineSpan("src/lib.rs", 127, 127)] = "//! * `unicode-width`: enables correct width computation"
    asked = "Which Cargo features are enabled by default in textwrap?"
    short = "The default features are `unicode-linebreak` and `unicode-width` (src/lib.rs:119-127)."
    verdict = judge(short, asked, lines)
    assert verdict.support is Support.PARTLY, verdict
    assert verdict.missing[0] == ("the default features Cargo.toml lists: smawk, unicode-linebreak, unicode-width "
                                  "(Cargo.toml:62)")
    assert verdict.closest[0].span == LineSpan("Cargo.toml", 62, 62)
    beyond = "The default features are `unicode-linebreak`, `unicode-width`, `smawk` and `terminal_size`."
    assert judge(beyond, asked, lines).support is Support.NOT_BACKED
    whole = "The default features are `unicode-linebreak`, `unicode-width` and `smawk` (Cargo.toml:62-66)."
    assert not judge(whole, asked, lines).missing


def test_a_how_or_why_answer_is_backed_at_the_name_it_asks_about() -> None:
    """A user's check on textwrap: "Why does Word's whitespace_width just return the byte length
    ...?" answered with the crate docs on display widths and was backed by them and a test 90 lines
    from `fn whitespace_width`; the answer (the unicode-width feature) was wrong. A how or why
    question about a code name is backed only by lines that name it or lie near a line that does."""
    lines = {LineSpan("src/lib.rs", 59, 59): "//! byte when UTF-8 encoded: `é` is `0xc3 0xa9` (two bytes) and `⚙` is",
             LineSpan("src/lib.rs", 61, 61): "//! `0xe2 0x9a 0x99` (three bytes) in UTF-8, respectively.",
             LineSpan("src/core.rs", 313, 313): "    fn whitespace_width(&self) -> f64 {",
             LineSpan("src/core.rs", 314, 314): "        self.whitespace.len() as f64",
             LineSpan("src/core.rs", 405, 405): '        assert_eq!(display_width("Café Plain"), 10);'}
    asked = ("Why does Word's whitespace_width just return the byte length of its whitespace string instead of "
             "computing a display width?")
    docs = ("Because `é` is `0xc3 0xa9` (two bytes) and `⚙` is `0xe2 0x9a 0x99` (three bytes) in UTF-8, "
            "respectively (src/lib.rs:59-61).")
    verdict = judge(docs, asked, lines)
    assert verdict.support is Support.PARTLY, verdict
    assert verdict.missing[-1].startswith("whitespace_width itself")
    # backed when a line naming it, or near one, backs it; and a question naming no code is left alone
    near = {**lines, LineSpan("src/lib.rs", 62, 62): "//! See `Word::whitespace_width`."}
    assert judge(docs, asked, near).support is Support.BACKED
    assert judge(docs, "Why does a word's width count bytes, not columns?", lines).support is Support.BACKED


def test_a_how_answer_is_not_backed_by_lines_that_only_name_things() -> None:
    """A user's check on cattrs: "How does MultiStrategyDispatch pick the hook to use for a given
    type?" answered with the wrong order and was backed by a shim's import and `__all__` lines and a
    class line: lines that name the thing say nothing of how it works."""
    shim = "from cattrs.dispatch import FunctionDispatch, MultiStrategyDispatch"
    lines = {LineSpan("src/cattr/dispatch.py", 1, 1): shim,
             LineSpan("src/cattr/dispatch.py", 3, 3): '__all__ = ["FunctionDispatch", "MultiStrategyDispatch"]',
             LineSpan("src/cattrs/dispatch.py", 31, 31): "class FunctionDispatch:",
             LineSpan("README.md", 40, 40): "The converter picks a hook by a direct dispatch first, after that"}
    asked = "How does MultiStrategyDispatch pick the hook to use for a given type?"
    answer = "MultiStrategyDispatch picks the hook with `FunctionDispatch` after a direct dispatch first."
    verdict = judge(answer, asked, lines)
    assert verdict.support is Support.PARTLY, verdict
    assert verdict.missing[-1].startswith("how: the lines backing it only import"), verdict.missing
    # a line of the code that does it backs it
    code = {LineSpan("README.md", 40, 40): lines[LineSpan("README.md", 40, 40)],
            LineSpan("src/cattrs/dispatch.py", 120, 120): "        # MultiStrategyDispatch: FunctionDispatch after the "
            "direct dispatch"}
    assert judge(answer, asked, code).support is Support.BACKED


def test_a_toml_table_is_held_by_its_path_however_the_answer_brackets_it() -> None:
    """A user's check on walkdir: the right "`winapi` and `winapi-util` ... in the
    `[target."cfg(windows)"].dependencies` section" was partly backed, that claim "in no line"; the
    lines are `[target."cfg(windows)".dependencies.winapi]` and `...winapi-util]`."""
    lines = {LineSpan("Cargo.toml", 31, 31): '[target."cfg(windows)".dependencies.winapi]',
             LineSpan("Cargo.toml", 32, 32): 'version = "0.3"',
             LineSpan("Cargo.toml", 35, 35): '[target."cfg(windows)".dependencies.winapi-util]',
             LineSpan("Cargo.toml", 36, 36): 'version = "0.1.1"'}
    asked = "Which dependencies does walkdir add only when building for Windows?"
    answer = 'It adds `winapi` and `winapi-util`, in the `[target."cfg(windows)"].dependencies` section.'
    verdict = judge(answer, asked, lines)
    assert verdict.support is Support.BACKED, verdict
    # another table is not it
    other = answer.replace('[target."cfg(windows)"].dependencies', "[target.'cfg(unix)'].dependencies")
    assert "[target.'cfg(unix)'].dependencies" in judge(other, asked, lines).missing


def test_where_the_code_does_something_is_not_backed_by_docs_alone() -> None:
    """A user's check on yargs-parser: "..., where does it get split into separate arguments?"
    answered "by `require('yargs-parser').detailed(args, opts={})`" and was backed by README lines
    (the README's heading for that call); the splitting is tokenizeArgString's. Asked where the code
    does something, an answer only docs back is at most partly backed; asked about the docs, not."""
    lines = {LineSpan("README.md", 130, 130): "### require('yargs-parser').detailed(args, opts={})",
             LineSpan("README.md", 132, 132): "Parses a command line string, returning detailed information.",
             LineSpan("build/lib/tokenize-arg-string.js", 7, 7): "export function tokenizeArgString(argString) {"}
    asked = "Where does a command line string get split into separate arguments?"
    docs_only = "It is split by `require('yargs-parser').detailed(args, opts={})`, which parses a command line string."
    verdict = judge(docs_only, asked, lines)
    assert verdict.support is Support.PARTLY
    assert verdict.missing == ("where in the code: only docs back it (README.md)",)
    assert judge(docs_only, "Where does the README say a command line string gets split?", lines).support \
        is Support.BACKED
    code = "It is split by `tokenizeArgString` in build/lib/tokenize-arg-string.js:7."
    assert judge(code, asked, lines).support is Support.BACKED


def test_a_where_answer_is_not_backed_by_a_range_naming_one_everyday_word_of_the_question() -> None:
    """A user's check on Redux Toolkit: "Which file has the logic that actually refetches subscribed
    RTK Query queries when the window regains focus or the network comes back online?" answered
    `src/devtoolsExtension.ts:7-73`, whose doc comment says "deserialize it back": backed. A range
    names the subject in code, or with two of its words in comments and prose."""
    question = ("Which file has the logic that actually refetches subscribed RTK Query queries when the window "
                "regains focus or the network comes back online?")
    docs = {LineSpan("src/devtoolsExtension.ts", 7, 7): "export interface DevToolsEnhancerOptions {",
            LineSpan("src/devtoolsExtension.ts", 64, 64): "   * key. So you can deserialize it back while importing.",
            LineSpan("src/devtoolsExtension.ts", 73, 73): "        reviver?: (key: string, value: unknown) => any"}
    place = (LineSpan("src/devtoolsExtension.ts", 7, 73),)
    verdict = judge("src/devtoolsExtension.ts:7-73", question, docs, paths=["src/devtoolsExtension.ts"],
                    places=place, files=["src/devtoolsExtension.ts"])
    assert verdict.support is not Support.BACKED
    assert "the question's subject in src/devtoolsExtension.ts:7-73" in verdict.missing
    # two of its words in a comment, or one in code, name it (marshmallow's `missing = _Missing()`)
    focus = {LineSpan("src/windowEventHandling.ts", 11, 11): "// refetch the queries on focus",
             LineSpan("src/windowEventHandling.ts", 30, 30): "  return undefined"}
    assert judge("src/windowEventHandling.ts:11-30", question, focus, paths=["src/windowEventHandling.ts"],
                 places=(LineSpan("src/windowEventHandling.ts", 11, 30),),
                 files=["src/windowEventHandling.ts"]).support is Support.BACKED
    missing = {LineSpan("src/marshmallow/utils.py", 44, 44): "missing = _Missing()"}
    assert judge("The missing sentinel is defined in the `src/marshmallow/utils.py` file, lines 41-44.",
                 "Where is the missing sentinel defined?", missing, paths=["src/marshmallow/utils.py"],
                 places=(LineSpan("src/marshmallow/utils.py", 41, 44),),
                 files=["src/marshmallow/utils.py"]).support is Support.BACKED


def test_framing_words_are_no_claims() -> None:
    """A user's check on @tanstack/form-core: a right answer ("... is "Invalid Form Values". This
    error message is defined in the `normalizeError` function, which is called by the `validateSync`
    function in the `FormApi` and `FieldApi` classes.") was partly backed on "like" and "classes"."""
    lines = {LineSpan("src/FormApi.ts", 1112, 1112): "function normalizeError(rawError?: ValidationError) {",
             LineSpan("src/FormApi.ts", 1114, 1114): "    if (typeof rawError !== 'string') {",
             LineSpan("src/FormApi.ts", 1115, 1115): "      return 'Invalid Form Values'",
             LineSpan("src/FormApi.ts", 700, 700): "  validateSync = (cause: ValidationCause) => {",
             LineSpan("src/FormApi.ts", 90, 90): "export class FormApi<TFormData> {",
             LineSpan("src/FieldApi.ts", 80, 80): "export class FieldApi<TData> {",
             LineSpan("src/FieldApi.ts", 990, 990): "  const error = normalizeError(rawError)"}
    question = ("If one of my field or form validators returns something truthy that isn't a string (say `true` or "
                "an object), what error message ends up stored in the errorMap?")
    answer = ("The error message stored in the errorMap when one of the field or form validators returns something "
              "truthy that isn't a string (like `true` or an object) is \"Invalid Form Values\". This error message "
              "is defined in the `normalizeError` function, which is called by the `validateSync` function in the "
              "`FormApi` and `FieldApi` classes.")
    claims = claims_of(answer, question)
    assert "like" not in claims.words.values() and "classes" not in claims.words.values()
    assert judge(answer, question, lines).support is Support.BACKED
    # a why answer's connectives (a check on @trpc/server: "... because it needs to create the
    # context first so that any error handler can access ... will not be able to handle it properly")
    why = claims_of("It calls createContext() first because it needs the context, so the handler is able to "
                    "read it and handle the error properly.", "Why does it call createContext() first?")
    assert not {"because", "needs", "able", "properly"} & set(why.words.values())


def test_a_measure_s_adjective_finds_its_noun_on_the_line() -> None:
    """Tuning3's qs-01: "How deep does qs.parse nest objects by default?" answered 5, held by the
    defaults' `depth: 5,` (no word of the question on or near it)."""
    lines = {LineSpan("lib/parse.js", 18, 18): "    decoder: utils.decode,",
             LineSpan("lib/parse.js", 20, 20): "    depth: 5,",
             LineSpan("lib/parse.js", 80, 80): "    var limit = options.parameterLimit ? undefined : 1000;"}
    question = "How deep does qs.parse nest objects by default?"
    verdict = judge("The default depth for qs.parse is 5.", question, lines)
    assert verdict.support is Support.BACKED
    assert verdict.backing[0].span.start_line == 20
    assert judge("The default depth for qs.parse is 1000.", question, lines).support is not Support.BACKED


def test_where_a_claim_was_said_to_be_written_is_no_claim() -> None:
    """Tuning's itsd-20 and tuning2's requests-09: "The line that specifies the build backend",
    "This is determined by the line `python_requires=">=3.8"`": right answers partly backed on the
    framing verb alone."""
    claims = claims_of("This is determined by the line `python_requires`; pyproject.toml specifies it.",
                       "Which Python version is required?")
    assert not {"determined", "specifies"} & set(claims.words.values())


def test_a_verb_in_ies_is_the_question_s_own_word() -> None:
    """Tuning3's cmdr-06: "Which exit code and error code does an InvalidArgumentError carry?",
    answered "The InvalidArgumentError carries an exit code of 1 ...": "carries" is the question's
    "carry", not a claim of its own."""
    question = "Which exit code and error code does an InvalidArgumentError carry?"
    claims = claims_of("The InvalidArgumentError carries an exit code of 1 and the code 'commander.invalidArgument'.",
                       question)
    assert not any(claims.word(p) == "carries" for p in claims.prose)
    assert claims.key


def test_a_where_answer_citing_only_a_build_s_copy_of_the_source_shown_is_partly_backed() -> None:
    """A user's check on @tanstack/pacer: "Which file has the code that deeply compares ...?"
    answered `dist/cjs/compare.d.cts:6`, a build's declaration of src/compare.ts's function (shown
    too), and was backed."""
    lines = {LineSpan("src/compare.ts", 2, 2): " * This function returns `a` if `b` is deeply equal.",
             LineSpan("src/compare.ts", 6, 6): "export function replaceEqualDeep<T>(a: unknown, b: T): T {",
             LineSpan("dist/cjs/compare.d.cts", 6, 6): "export declare function replaceEqualDeep<T>(a: unknown): T;"}
    question = "Which file has the code that deeply compares an old value with a new one?"
    copy = (LineSpan("dist/cjs/compare.d.cts", 6, 6),)
    verdict = judge("dist/cjs/compare.d.cts:6", question, lines, places=copy)
    assert verdict.support is Support.PARTLY
    assert verdict.closest[0].span == LineSpan("src/compare.ts", 6, 6)
    assert "the source at src/compare.ts:6, not its build's copy" in verdict.missing
    source = (LineSpan("src/compare.ts", 6, 6),)
    assert judge("src/compare.ts:6", question, lines, places=source).support is Support.BACKED
    # asked about the build, its file is the answer
    built = "Which file in the CommonJS build declares the function that deeply compares values?"
    assert judge("dist/cjs/compare.d.cts:6", built, lines, places=copy).support is Support.BACKED


def test_a_place_and_one_word_is_no_reason() -> None:
    """Tuning3's cmdr-11: "Why does commander listen for SIGINT, SIGTERM and other signals after
    spawning an executable subcommand?" answered "... because it is configured to do so in the
    `command.js` file, lines 2230-2245", backed by the place alone."""
    lines = {LineSpan("lib/command.js", 2231, 2231): "    const signals = ['SIGTERM', 'SIGINT']; // configured",
             LineSpan("lib/command.js", 2232, 2232): "    signals.forEach((signal) => {",
             LineSpan("lib/command.js", 2233, 2233): "      process.on(signal, () => {",
             LineSpan("lib/command.js", 2234, 2234): "        if (proc.killed === false && proc.exitCode === null) {",
             LineSpan("lib/command.js", 2236, 2236): "          proc.kill(signal); // forward the signal to the child"}
    question = ("Why does commander listen for SIGINT, SIGTERM and other signals after spawning an executable "
                "subcommand?")
    places = (LineSpan("lib/command.js", 2231, 2236),)
    vacuous = ("Commander listens for SIGINT, SIGTERM, and other signals after spawning an executable subcommand "
               "because it is configured to do so in `lib/command.js:2231-2236`.")
    assert judge(vacuous, question, lines, places=places).support is Support.PARTLY
    reason = "It forwards the signal to the child process, killing it, `lib/command.js:2231-2236`."
    assert judge(reason, question, lines, places=places).support is Support.BACKED


def test_asked_why_the_question_s_own_number_written_again_is_no_claim() -> None:
    """Tuning3's semver-09: "Why does Identifier keep strings of up to 8 bytes inline?" answered with
    the question's "8 bytes" twice and a made-up reason, backed by the lines holding 8."""
    question = "Why does Identifier keep strings of up to 8 bytes inline?"
    answer = ("Identifier keeps strings of up to 8 bytes inline because it is designed to use the entire 8 bytes "
              "of a pointer for inline storage.")
    assert claims_of(answer, question).key == ()
    # asked for a value, the number written more often than the question does is the answer's own
    assert claims_of("Wrap returns nil when err is nil.", "What does Wrap return when err is nil?").key == ("nil",)


def test_a_rust_macro_as_called_is_held_by_its_definition() -> None:
    """A user's check on bitflags: "Which macro actually computes the value returned by the
    generated all() method, and where is it defined?" answered "The `__impl_all_bitflags!` macro
    ... It is defined in the `src/lib.rs` file", right, not backed with its definition shown."""
    lines = {LineSpan("src/lib.rs", 387, 387): "macro_rules! __impl_all_bitflags {",
             LineSpan("src/lib.rs", 350, 350): "macro_rules! bitflags {"}
    question = ("In bitflags, which macro actually computes the value returned by the generated all() method, "
                "and where is it defined?")
    verdict = judge("The `__impl_all_bitflags!` macro computes it, in `src/lib.rs:387`.", question, lines,
                    places=(LineSpan("src/lib.rs", 387, 387),))
    assert "__impl_all_bitflags!" in verdict.found
    wrong = judge("The `__impl_some_bitflags!` macro computes it, in `src/lib.rs:387`.", question, lines,
                  places=(LineSpan("src/lib.rs", 387, 387),))
    assert "__impl_some_bitflags!" not in wrong.found

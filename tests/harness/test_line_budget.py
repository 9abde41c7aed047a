"""The first prompt's line-level fitter: real chunks of text in, the lines worth showing out."""

from __future__ import annotations

from app.harness import prompts
from app.harness.first_prompt import chunk_block
from app.harness.line_budget import FittedChunk, LineRole, fit_chunks, roles
from app.index.values import ChunkKind
from app.tools.base import ChunkLines, TextHit
from app.values import LineSpan


def chunk(path: str, text: str, start: int = 1, kind: ChunkKind = ChunkKind.FUNCTION) -> ChunkLines:
    rows = text.split("\n")
    lines = tuple(TextHit(LineSpan(path, start + i, start + i), row) for i, row in enumerate(rows))
    return ChunkLines(LineSpan(path, start, start + len(rows) - 1), kind, "", lines)


def words(text: str) -> int:
    return len(text.split())


def render(piece: FittedChunk) -> str:
    return chunk_block(piece.lines, False, piece.chunk.lines)


def shown(pieces: tuple[FittedChunk, ...]) -> str:
    return "\n\n".join(render(p) for p in pieces)


RETRY = '''import os
import time
from typing import Any


@cached
def retry_delay(attempt: int) -> float:
    """Seconds to wait.

    The wait doubles with each attempt, up to a cap.
    """
    # backoff grows, never beyond the ceiling
    return min(BASE_DELAY * 2 ** attempt, MAX_WAIT)'''


def test_imports_decorators_and_docs_without_the_questions_words_are_left_out_with_a_marker():
    pieces = fit_chunks([chunk("src/retry.py", RETRY)], "how long is the retry delay?", 1000, words, render)
    text = shown(pieces)
    assert "import os" not in text and "from typing" not in text and "@cached" not in text
    assert "Seconds to wait" not in text and "backoff grows" not in text
    assert "def retry_delay(attempt: int) -> float:" in text and "return min(BASE_DELAY" in text
    assert f"float:\n    {prompts.OMITTED_LINES}\n    return min(" in text  # the docstring's gap is marked
    assert text.startswith("src/retry.py:7-13\n```python\ndef retry_delay")  # the range shown, to cite


def test_a_doc_paragraph_that_holds_a_question_word_is_shown_whole():
    pieces = fit_chunks([chunk("src/retry.py", RETRY)], "does the wait double?", 1000, words, render)
    text = shown(pieces)
    assert "    The wait doubles with each attempt, up to a cap." in text
    assert "Seconds to wait." in text  # its own paragraph holds 'wait' too
    assert "import os" not in text


def test_a_block_an_earlier_chunk_showed_is_shown_once():
    section = "## Retry\n\nThe retry delay doubles each time.\nIt stops at MAX_WAIT seconds.\nSet RETRY_OFF to stop."
    first = chunk("README.md", section, 10, ChunkKind.SECTION)
    copy = chunk("docs/index.md", section + "\nSee the API page for retry_delay.", 3, ChunkKind.SECTION)
    pieces = fit_chunks([first, copy], "what is the retry delay?", 1000, words, render)
    assert [p.chunk.span.path for p in pieces] == ["README.md", "docs/index.md"]
    assert [h.text for h in pieces[1].lines] == ["See the API page for retry_delay."]


def test_a_lone_repeated_line_is_common_code_and_stays():
    one = chunk("a.py", "def load(path):\n    data = read_bytes(path)\n    return parse(data)")
    two = chunk("b.py", "def load_many(paths):\n    data = read_bytes(path)\n    return [parse(data)]")
    pieces = fit_chunks([one, two], "how is data loaded?", 1000, words, render)
    assert "    data = read_bytes(path)" in [h.text for h in pieces[1].lines]


def test_a_long_chunk_is_cut_to_windows_around_the_questions_words_and_its_definition_line():
    body = [f"    step_{n} = compute({n})" for n in range(80)]
    body[50] = "    timeout_seconds = 30  # the request timeout"
    long = chunk("src/client.py", "def send(request):\n" + "\n".join(body))
    pieces = fit_chunks([long], "how long is the timeout?", 10_000, words, render)
    texts = [h.text for h in pieces[0].lines]
    assert texts[0] == "def send(request):"
    assert "    timeout_seconds = 30  # the request timeout" in texts
    assert "    step_49 = compute(49)" in texts and "    step_51 = compute(51)" in texts  # context
    assert "    step_10 = compute(10)" not in texts and len(texts) <= 8
    assert render(pieces[0]).startswith("src/client.py:1-54\n")
    assert render(pieces[0]).count(prompts.OMITTED_LINES) == 1  # between the definition and the window


def test_a_past_tense_in_ied_meets_its_verb_in_the_code():
    """query-core (tuning3): "How many times is a failed mutation retried by default?" stemmed
    'retried' as 'retri', so `retry: this.options.retry ?? 0`, inside a long method ranked fifth,
    held no question word and was cut from the first prompt; the answer said 3 (queries' default)."""
    body = [f"      step{n}: this.options.step{n}," for n in range(40)]
    body[16] = "      retry: this.options.retry ?? 0,"
    execute = chunk("src/mutation.ts", "  async execute(variables: TVariables) {\n    this.#retryer = createRetryer({\n"
                    + "\n".join(body) + "\n    })\n  }", start=164, kind=ChunkKind.METHOD)
    first = chunk("src/types.ts", "export interface MutationOptions {\n  mutationFn?: MutationFunction\n}")
    second = chunk("src/mutationCache.ts", "export class MutationCache {\n  #mutations = new Set<Mutation>()\n}")
    pieces = fit_chunks([first, second, execute], "How many times is a failed mutation retried by default?",
                        10_000, words, render)
    assert "      retry: this.options.retry ?? 0," in [h.text for p in pieces for h in p.lines]


def test_the_chunks_fill_the_budget_in_rank_order_and_a_smaller_one_fits_after_a_big_one():
    big = chunk("big.py", "def timeout_table():\n" + "\n".join(f"    t{n} = timeout({n})" for n in range(60)))
    small = chunk("small.py", "def default_timeout():\n    return 30")
    top = chunk("top.py", "TIMEOUT = 30")
    budget = 40
    pieces = fit_chunks([top, big, small], "timeout", budget, words, render)
    assert sum(words(render(p)) + 2 for p in pieces) <= budget
    assert [p.chunk.span.path for p in pieces][0] == "top.py" and pieces[-1].chunk.span.path == "small.py"
    assert fit_chunks([top], "timeout", 0, words, render) == ()


def test_prose_and_config_keep_their_hash_lines():
    readme = chunk("README.md", "# Install\n\npip install burrow", kind=ChunkKind.SECTION)
    assert roles(readme) == [LineRole.CODE, LineRole.BLANK, LineRole.CODE]
    code = chunk("a.py", '# note\nimport os\n@cache\ndef f():\n    """Doc\n    more\n    """\n    return 1')
    assert roles(code) == [LineRole.COMMENT, LineRole.IMPORT, LineRole.DECORATOR, LineRole.CODE,
                           LineRole.COMMENT, LineRole.COMMENT, LineRole.COMMENT, LineRole.CODE]


def test_search_code_returns_its_chunks_as_data_with_the_lines_it_showed(tools):
    outcome = tools.run("c1", "search_code", '{"query": "default maximum note length", "limit": 3}')
    assert outcome.ok and outcome.chunks
    assert tuple(c.span for c in outcome.chunks) == outcome.spans
    assert tuple(h for c in outcome.chunks for h in c.lines) == outcome.hits
    first = outcome.chunks[0]
    assert first.kind in ChunkKind and [h.span.start_line for h in first.lines] == list(
        range(first.span.start_line, first.span.end_line + 1))
    assert all(h.text in outcome.content for h in first.lines)


def test_import_lists_over_several_lines_and_attributes_are_told_in_every_language():
    go = chunk("main.go", 'package main\n\nimport (\n\t"fmt"\n\t"os"\n)\n\nfunc main() {}', kind=ChunkKind.CODE)
    assert roles(go) == [LineRole.IMPORT, LineRole.BLANK, *[LineRole.IMPORT] * 4, LineRole.BLANK, LineRole.CODE]
    py = chunk("a.py", "from x import (\n    a,\n    b,\n)\nLIMIT = 3", kind=ChunkKind.IMPORTS)
    assert roles(py) == [LineRole.IMPORT] * 4 + [LineRole.CODE]
    rust = chunk("lib.rs", "use std::{\n    fmt,\n};\n#[derive(Debug)]\nstruct Limit(u32);", kind=ChunkKind.CLASS)
    assert roles(rust) == [LineRole.IMPORT] * 3 + [LineRole.DECORATOR, LineRole.CODE]
    ts = chunk("a.ts", "import {\n  retry,\n} from './retry';\n/* long\n note */\nconst limit = 2;")
    assert roles(ts) == [LineRole.IMPORT] * 3 + [LineRole.COMMENT] * 2 + [LineRole.CODE]


def test_a_gap_in_the_lines_search_code_showed_is_marked() -> None:
    """A long chunk reaches the first prompt as its first lines and the lines past them that hold
    the question's words (ChunkHit.focus): the lines between were never shown, and say so."""
    lines = [TextHit(LineSpan("package.json", n, n), text) for n, text in
             ((1, "{"), (2, '  "name": "@acme/crypto",'), (110, '  "browser": {'),
              (111, '    "./dist/hmac.js": "./dist/hmac.browser.js"'))]
    block = chunk_block(lines, False, lines).splitlines()
    assert block[0] == "package.json:1-111"
    assert block[4:6] == ["  " + prompts.OMITTED_LINES, '  "browser": {']
    # lines the chunk has and are blank between two shown ones are no gap worth a mark
    blank = [lines[0], TextHit(LineSpan("package.json", 3, 3), "}")]
    whole = [*blank[:1], TextHit(LineSpan("package.json", 2, 2), ""), blank[1]]
    assert prompts.OMITTED_LINES not in chunk_block(blank, False, whole)


def test_a_line_holding_the_question_s_words_is_shown_with_the_list_it_opens():
    """A user's check on textwrap: Cargo.toml's `default = [` list, one feature a line, was cut two
    lines after the word line, and "smawk" was left out of the prompt and the answer."""
    rows = [f'dep{i} = "0.{i}"' for i in range(40)] + [
        "[features]", "default = [", '    "unicode-linebreak",', '    "unicode-width",', '    "smawk",', "]",
        "unicode-linebreak = []"]
    toml = chunk("Cargo.toml", "\n".join(rows), kind=ChunkKind.CONFIG)
    (piece,) = fit_chunks([toml], "Which Cargo features are enabled by default?", 2000, words, render)
    text = render(piece)
    assert '"smawk",' in text and text.count("]") >= 2
    # a list that does not close within one_hop.LIST_CLOSE_LINES is not followed
    rows = rows[:42] + [f'    "f{i}",' for i in range(20)] + ["]"]
    (piece,) = fit_chunks([chunk("Cargo.toml", "\n".join(rows), kind=ChunkKind.CONFIG)],
                          "Which Cargo features are enabled by default?", 2000, words, render)
    assert '"f10",' not in render(piece)


def test_how_deep_meets_depth_and_how_wide_meets_width():
    """tuning3's qs-01, "How deep does qs.parse nest objects by default?": `depth: 5,` in the defaults
    object held no question word and was cut, `parameterLimit: 1000,` beside `parseArrays` was kept,
    and the model answered 1000."""
    rows = ["var defaults = {"] + [f"    option{i}: false," for i in range(12)] + [
        "    depth: 5,", "    delimiter: '&',", "    duplicates: 'combine',", "    ignoreQueryPrefix: false,",
        "    interpretNumericEntities: false,", "    parameterLimit: 1000,", "    parseArrays: true,",
        "    plainObjects: false,"] + [f"    other{i}: true," for i in range(12)] + ["};"]
    defaults = chunk("lib/parse.js", "\n".join(rows), kind=ChunkKind.CODE)
    (piece,) = fit_chunks([defaults], "How deep does qs.parse nest objects by default?", 2000, words, render)
    assert "depth: 5," in render(piece)
    width = chunk("lib/help.js", "\n".join(rows[:13] + ["    const helpWidth = helper.helpWidth || 80;"] + rows[13:]),
                  kind=ChunkKind.CODE)
    (piece,) = fit_chunks([width], "How wide is the help text?", 2000, words, render)
    assert "helpWidth || 80" in render(piece)


def test_asked_why_the_comment_right_above_the_code_is_shown():
    """A user's check on structlog: the two comment lines above `kw["exc_info"] = sys.exc_info()`
    said why it is called up front, in words the question does not use."""
    code = chunk("src/log.py", 'async def aexception(self, event, **kw):\n    """Log asynchronously."""\n'
                               "    # It has to be read this early, because it is no longer\n"
                               "    # available once control is passed to the executor.\n"
                               '    if kw.get("exc_info", True) is True:\n'
                               '        kw["exc_info"] = sys.exc_info()\n'
                               "    # the exception is logged in a thread\n"
                               "    return await run_in_executor(self.exception, event, kw)")
    why = shown(fit_chunks([code], "Why does aexception call sys.exc_info() itself instead of setting exc_info "
                                   "to True like the sync exception method?", 1000, words, render))
    assert "no longer\n    # available once control is passed to the executor." in why
    how = shown(fit_chunks([code], "How does aexception call sys.exc_info() instead of setting exc_info "
                                   "to True like the sync exception method?", 1000, words, render))
    assert "It has to be read this early" not in how

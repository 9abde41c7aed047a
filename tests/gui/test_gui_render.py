"""Answer rendering: Markdown, highlighted code, citations as links (and not inside code)."""

from __future__ import annotations

import re

from app.gui.render import answer_html, cite_href, linkify_citations, parse_cite_href
from app.values import LineSpan


def test_citations_become_links_that_name_their_lines() -> None:
    html = answer_html("Adding happens in `src/calc.py:81-82`, see README.md:3.")
    assert '<a href="cite:src/calc.py:81-82">src/calc.py:81-82</a>' in html
    assert '<a href="cite:README.md:3-3">README.md:3</a>' in html


def test_a_link_parses_back_to_its_span() -> None:
    span = LineSpan("pkg/my file.py", 4, 9)
    assert parse_cite_href(cite_href(span)) == span
    assert parse_cite_href("https://example.com") is None


def test_code_blocks_are_highlighted_and_never_linkified() -> None:
    text = "Look:\n\n```python\ndef f():\n    return 'a.py:1'\n```\n"
    html = answer_html(text)
    assert "cite:" not in html
    assert "<pre" in html and 'style="color' in html  # pygments colours, inlined for Qt


def test_only_verified_paths_become_links_once_the_answer_is_final() -> None:
    text = "Real README.md:1-2 and invented fake.py:3"
    out = linkify_citations(text, [LineSpan("README.md", 1, 2)])
    assert "(cite:README.md:1-2)" in out and "cite:fake.py" not in out


def test_model_html_is_shown_as_text_not_markup() -> None:
    assert "<script>" not in answer_html("<script>alert(1)</script>")


def test_model_picker_line_names_size_quantization_context_and_dialect() -> None:
    from app.gui.model_picker import describe
    from app.llm.base import ModelInfo

    info = ModelInfo(path="/m/x.gguf", name="SmolLM2 135M", size_bytes=98_362_432, parameters="135M",
                     quantization="Q4_1", context_length=8192, dialect="generic", source="default")
    assert describe(info) == "SmolLM2 135M · 98.4 MB · 135M · Q4_1 · ctx 8192 · dialect generic · default"


def test_a_model_has_one_size_in_the_picker_and_in_models() -> None:
    from app.cli.models_cmd import _row
    from app.gui.model_picker import describe
    from app.llm.base import ModelInfo

    info = ModelInfo(path="/m/x.gguf", name="x", size_bytes=98_362_432)
    assert _row(info)[1] == "98.4 MB" and " 98.4 MB " in describe(info)


def test_the_window_links_exactly_what_the_harness_accepts_as_a_citation() -> None:
    """One grammar (app.values): dash kinds, the `L` prefix and `./` read alike on both sides."""
    from app.gui.render import linkify_citations
    from app.values import find_citations

    text = "See ./src/a.py:L3-L9, b.md:4\u20136 and `c/d.ts:12` but not v1.2:3 or http://x.io/a.py:4."
    harness = [str(c.span) for c in find_citations(text)]
    linked = re.findall(r"\[([^\]]+)\]\(cite:", linkify_citations(text))
    assert harness == ["src/a.py:3-9", "b.md:4-6", "c/d.ts:12"]
    assert linked == harness


def test_model_picker_line_shows_the_eval_measurement_from_the_catalog() -> None:
    from app.gui.model_picker import describe
    from app.llm.base import ModelInfo

    info = ModelInfo(path="/m/q.gguf", name="Qwen", size_bytes=491_400_064, dialect="hermes",
                     source="user", extra={"measured": {"correct": 30, "questions": 69,
                                                        "median_seconds": 12.4}})
    assert describe(info) == (
        "Qwen · 491.4 MB · dialect hermes · eval 30/69 right, 12 s/question · user")


def test_a_code_block_ends_with_its_last_line_not_an_empty_one() -> None:
    html = answer_html("Run:\n\n```\nnotekeeper add Meeting\n```\n\nThat adds it.")
    assert "notekeeper add Meeting</code></pre>" in html  # Qt would draw the newline as a line


def test_paths_an_answer_writes_become_links_at_their_lines() -> None:
    """Issue 25 item 12: "`src/pkg/app.py` file, lines 3-9" and a bare "src/pkg/util.py" link."""
    from app.gui.render import answer_html, parse_cite_href
    from app.values import LineSpan

    text = "It is in the `src/pkg/app.py` file, lines 3-9, and uses src/pkg/util.py.\n\n```\nsrc/pkg/app.py\n```"
    links = (("`src/pkg/app.py` file, lines 3-9", LineSpan("src/pkg/app.py", 3, 9)),
             ("src/pkg/util.py", LineSpan("src/pkg/util.py", 1, 1)))
    rendered = answer_html(text, (), links=links)
    hrefs = re.findall(r'href="([^"]+)"', rendered)
    assert [parse_cite_href(h) for h in hrefs] == [LineSpan("src/pkg/app.py", 3, 9),
                                                   LineSpan("src/pkg/util.py", 1, 1)]


def test_the_verdict_detail_links_its_backing_line() -> None:
    from app.gui.render import support_html

    shown = support_html("backed", (), None, ["Backed by src/a.py:12: LIMIT = 5"])
    assert 'href="cite:src/a.py:12-12"' in shown and "Backed" in shown


def test_callers_an_answer_leaves_out_are_linked_in_the_verdict_detail() -> None:
    from app.gui.render import support_html
    from app.harness.events import AnswerCompleted
    from app.harness.prompts import verdict_detail
    from app.harness.verdict import ShownLine, Support
    from app.llm.base import Usage

    answer = AnswerCompleted("It is called by handleUpgrade.", (), 1, Usage(), 1.0, support=Support.PARTLY,
                             left_out=(ShownLine(LineSpan("lib/sender.js", 186, 186), "Sender.close"),))
    shown = support_html("partly_backed", (), None, verdict_detail(answer))
    assert "Sender.close" in shown and 'href="cite:lib/sender.js:186-186"' in shown


def test_a_path_written_as_code_is_a_link_not_its_markdown_source() -> None:
    """"The file ... is `json_formatter.go`." showed "[json_formatter.go](cite:json_formatter.go:1-1)"
    in the window: the link was made inside the code span."""
    from app.gui.render import answer_html, parse_cite_href
    from app.values import LineSpan

    span = LineSpan("json_formatter.go", 1, 1)
    rendered = answer_html("The file that defines it is `json_formatter.go`. Run `go vet json_formatter.go`.",
                           (), links=(("json_formatter.go", span),))
    assert "cite:" not in re.sub(r'href="[^"]+"', "", rendered)  # no link source shown as text
    hrefs = re.findall(r'href="([^"]+)"', rendered)
    assert [parse_cite_href(h) for h in hrefs] == [span]  # the path alone; not inside a longer command
    assert "<code>json_formatter.go</code>" in rendered and "<code>go vet json_formatter.go</code>" in rendered


def test_a_list_right_under_a_line_of_text_is_a_list() -> None:
    """A user's check on ky: "are:\\n- `get`\\n- `put`" was drawn as one line, "are: - get - put"."""
    html = answer_html("The methods retried are:\n- `get`\n- `put`\n1. first\n\n"
                       "Then:\n* `head`\n  more of it\n* `trace`")
    assert html.count("<li>") == 5 and "<ul>" in html and "<ol>" in html
    fenced = answer_html("```\nx = 1\n- not a list\n```")
    assert "<li>" not in fenced  # code stays code
    assert answer_html("A *word* and 2 - 1 = 1.").count("<li>") == 0

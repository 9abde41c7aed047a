"""Answer text to HTML: Markdown (python-markdown), code highlighted by pygments, citations as links.

Pure functions (no Qt), so the rules are tested without a window. Citations `path:12-30` become
`cite:` links that the chat view turns into a read-only viewer at those lines.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable
from urllib.parse import quote, unquote

from app.values import CITATION_RE, LineSpan

CITE_SCHEME = "cite"
# the harness's citation grammar (app.values), plus the backticks models often put around it
_CITATION = re.compile(r"`?(?:" + CITATION_RE.pattern + r")`?")
_FENCE = re.compile(r"(^```.*?(?:^```[^\n]*$|\Z))", re.S | re.M)


def cite_href(span: LineSpan) -> str:
    return f"{CITE_SCHEME}:{quote(str_span(span), safe='/:-._')}"


def str_span(span: LineSpan) -> str:
    return f"{span.path}:{span.start_line}-{span.end_line}"


def parse_cite_href(href: str) -> LineSpan | None:
    """The span a `cite:` link names, or None for any other link."""
    if not href.startswith(f"{CITE_SCHEME}:"):
        return None
    match = re.fullmatch(r"(.+):(\d+)-(\d+)", unquote(href[len(CITE_SCHEME) + 1:]))
    if not match:
        return None
    start, end = int(match.group(2)), int(match.group(3))
    return LineSpan(match.group(1), min(start, end), max(start, end))


def linkify_citations(text: str, allowed: Iterable[LineSpan] | None = None) -> str:
    """Markdown with each citation outside fenced code turned into a `cite:` link.

    With `allowed`, only citations whose path was verified by the harness become links (the
    harness drops invalid ones from the answer; this guards the streamed, unverified text).
    """
    paths = None if allowed is None else {s.path for s in allowed}
    parts = _FENCE.split(text)
    return "".join(p if p.startswith("```") else _linkify_plain(p, paths) for p in parts)


def _linkify_plain(text: str, paths: set[str] | None) -> str:
    def replace(match: re.Match[str]) -> str:
        path, start = match.group("path"), int(match.group("start"))
        end = int(match.group("end") or start)
        if paths is not None and path not in paths:
            return match.group(0)
        span = LineSpan(path, min(start, end), max(start, end))
        return f"[{html.escape(str(span))}]({cite_href(span)})"

    return _CITATION.sub(replace, text.replace("<", "&lt;"))


def split_finished_blocks(text: str) -> tuple[str, str]:
    """(finished, tail): finished ends at the last blank line outside an open code fence.

    Finished blocks no longer change as more tokens stream in, so they are rendered only once.
    """
    cut, fence_open, pos = 0, False, 0
    for line in text.splitlines(keepends=True):
        pos += len(line)
        if line.lstrip().startswith("```"):
            fence_open = not fence_open
            if not fence_open and line.endswith("\n"):
                cut = pos  # a closed fence is a finished block
        elif not fence_open and not line.strip() and line.endswith("\n"):
            cut = pos
    return text[:cut], text[cut:]


def markdown_to_html(text: str, dark: bool = False) -> str:
    """Render Markdown with pygments colours inlined (Qt's rich text has no stylesheet classes)."""
    import markdown

    style = "monokai" if dark else "friendly"
    return markdown.markdown(
        text,
        extensions=["fenced_code", "codehilite", "tables", "sane_lists"],
        extension_configs={"codehilite": {"noclasses": True, "guess_lang": False,
                                          "pygments_style": style}},
    )


def answer_html(text: str, citations: Iterable[LineSpan] | None = None, dark: bool = False) -> str:
    return markdown_to_html(linkify_citations(text, citations), dark)


def sources_html(citations: Iterable[LineSpan]) -> str:
    """A 'Sources' line of links under an answer."""
    links = [f'<a href="{cite_href(s)}">{html.escape(str(s))}</a>' for s in citations]
    return f"<p><b>Sources:</b> {' · '.join(links)}</p>" if links else ""


def warm_up() -> str:
    """Import markdown and pygments and load a lexer off the UI thread, before the first answer.

    The first render otherwise pays for those imports (over half a second) on the UI thread.
    """
    return answer_html("warm-up\n\n```python\nx = 1\n```\n")

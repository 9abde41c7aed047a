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
COPY_SCHEME = "copy"  # copy:N puts turn N's answer on the clipboard
UNVERIFIED_TIP = "Not found in this workspace: Burrow could not find this file or name"
UNVERIFIED_STYLE = "color:#c0392b;text-decoration:line-through"
# badge colours per Support value (text on a light tint that reads in both themes)
SUPPORT_STYLES = {
    "backed": "background:#d8f0dc;color:#1b5e20",
    "partly_backed": "background:#fff1c2;color:#6d4c00",
    "not_backed": "background:#fdecea;color:#8a1c13",
}
_TAG = re.compile(r"(<[^>]*>)")
# the harness's citation grammar (app.values), plus the backticks models often put around it
_CITATION = re.compile(r"`?(?:" + CITATION_RE.pattern + r")`?")
_PRE_END = re.compile(r"\n(</code></pre>)")
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


def link_paths(text: str, links: Iterable[tuple[str, LineSpan]]) -> str:
    """Markdown with each workspace path the answer writes (as the harness found them: "`a.py`
    lines 3-9", "src/a.py") turned into a `cite:` link at its lines, outside code fences and
    outside links already made."""
    ordered = sorted({(written, span) for written, span in links if written}, key=lambda x: -len(x[0]))
    if not ordered:
        return text
    spans = dict(ordered)

    def replace(match: re.Match[str]) -> str:
        written = match.group(0)
        return f"[{written.replace('`', '')}]({cite_href(spans[written])})"

    def code_span(part: str) -> str:
        """A code span that is a path the answer names (`a.py`) becomes a link as a whole; a link
        inside one would show as its Markdown source ("[a.py](cite:a.py:1-1)")."""
        span = spans.get(part[1:-1])
        return f"[{part}]({cite_href(span)})" if span is not None else part

    # first the forms with backticks in them ("`a.py` lines 3-9"), then paths in plain text and
    # code spans that are a path; never inside fenced code, other code spans or links already made
    ticked, plain = [w for w, _ in ordered if "`" in w], [w for w, _ in ordered if "`" not in w]
    for forms, code in ((ticked, r"(?!)"), (plain, r"`[^`\n]+`")):
        if not forms:
            continue
        pattern = re.compile("|".join(r"(?<![\w/.\[])" + re.escape(w) + r"(?![\w/])" for w in forms))
        parts = re.split(rf"(```.*?(?:```|$)|\[[^\]]*\]\([^)]*\)|{code})", text, flags=re.S)
        text = "".join(p if p.startswith(("```", "[")) else code_span(p) if p.startswith("`") and len(p) > 1
                       else pattern.sub(replace, p) for p in parts)
    return text


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


_LIST_ITEM = re.compile(r"\s{0,3}(?:[-*+]|\d{1,3}[.)])\s+\S")


def _lists_apart(text: str) -> str:
    """A blank line before a list that starts right under a line of text, outside code fences: the
    model writes "The methods are:\n- `get`\n- `put`", which CommonMark reads as a list and
    Python-Markdown as one paragraph ("are: - get - put", a user's check on ky)."""
    out: list[str] = []
    fence, prev = False, ""
    for line in text.split("\n"):
        if line.lstrip().startswith("```"):
            fence = not fence
        elif not fence and _LIST_ITEM.match(line) and prev.strip() and not prev[:1].isspace() and (
                not _LIST_ITEM.match(prev) or _ordered(prev) != _ordered(line)):  # or a list of the other kind
            out.append("")
        out.append(line)
        prev = line
    return "\n".join(out)


def _ordered(line: str) -> bool:
    return line.lstrip()[:1].isdigit()


def markdown_to_html(text: str, dark: bool = False) -> str:
    """Render Markdown with pygments colours inlined (Qt's rich text has no stylesheet classes)."""
    import markdown

    style = "monokai" if dark else "friendly"
    rendered = markdown.markdown(
        _lists_apart(text),
        extensions=["fenced_code", "codehilite", "tables", "sane_lists"],
        extension_configs={"codehilite": {"noclasses": True, "guess_lang": False,
                                          "pygments_style": style}},
    )
    # Qt's rich text shows a code block's final newline as one more, empty, shaded line
    return _PRE_END.sub(r"\1", rendered)


def answer_html(text: str, citations: Iterable[LineSpan] | None = None, dark: bool = False,
                links: Iterable[tuple[str, LineSpan]] = ()) -> str:
    return markdown_to_html(link_paths(linkify_citations(text, citations), links), dark)


def sources_html(citations: Iterable[LineSpan]) -> str:
    """A 'Sources' line of links under an answer."""
    links = [f'<a href="{cite_href(s)}">{html.escape(str(s))}</a>' for s in citations]
    return f"<p><b>Sources:</b> {' · '.join(links)}</p>" if links else ""


def flag_unverified(html_text: str, names: Iterable[str]) -> str:
    """Strike through (red, with a tooltip) each name the workspace lacks, wherever the rendered
    answer shows it as text (tags and attributes are left alone)."""
    escaped = sorted({html.escape(n, quote=False) for n in names if n}, key=len, reverse=True)
    if not escaped:
        return html_text
    pattern = re.compile(r"(?<![\w/.])(?:" + "|".join(map(re.escape, escaped)) + r")(?![\w/])")
    mark = f'<span style="{UNVERIFIED_STYLE}" title="{UNVERIFIED_TIP}">\\g<0></span>'
    parts = _TAG.split(html_text)
    return "".join(p if p.startswith("<") else pattern.sub(mark, p) for p in parts)


def support_html(support: str, unverified: Iterable[str], copy_index: int | None,
                 detail: Iterable[str] = ()) -> str:
    """The line under an answer: its verdict badge (the harness's words) with what was checked
    (the backing line, or what was found and the closest lines), the names it uses that the
    workspace lacks, and a Copy link."""
    from app.harness.prompts import SUPPORT_LABELS
    from app.harness.verdict import Support

    parts = []
    if support:
        level = Support(support)
        label = html.escape(SUPPORT_LABELS[level])
        parts.append(f'<span style="{SUPPORT_STYLES[level.value]}">&nbsp;{label}&nbsp;</span>')
        parts += [_linked_detail(line) for line in detail]
    missing = [f'<span style="{UNVERIFIED_STYLE}" title="{UNVERIFIED_TIP}">{html.escape(n)}</span>'
               for n in unverified]
    if missing:
        parts.append("Not found in this workspace: " + ", ".join(missing))
    if copy_index is not None:
        parts.append(f'<a href="{COPY_SCHEME}:{copy_index}">Copy answer</a>')
    return f"<p>{' · '.join(parts)}</p>" if parts else ""


def _linked_detail(line: str) -> str:
    """A verdict detail line, its `path:line` references as links."""
    escaped = html.escape(line, quote=False)
    return _CITATION.sub(lambda m: f'<a href="{cite_href(_span_of(m))}">{m.group(0)}</a>', escaped)


def _span_of(match: re.Match[str]) -> LineSpan:
    start = int(match.group("start"))
    end = int(match.group("end") or start)
    return LineSpan(match.group("path"), min(start, end), max(start, end))


def warm_up() -> str:
    """Import markdown and pygments and load a lexer off the UI thread, before the first answer.

    The first render otherwise pays for those imports (over half a second) on the UI thread.
    """
    return answer_html("warm-up\n\n```python\nx = 1\n```\n")

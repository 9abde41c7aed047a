"""Does the workspace back an answer? What the check gathers for the verdict (app.harness.verdict):
the lines this run showed (and a prose citation's lines read from disk), the places the answer
cites, the files it names, the symbol table's word on a "where is X" answer; and its sources.

A small model invents files and functions and restates the README as if it had read the code.
So: every file path and code symbol an answer names is checked against the workspace (a miss is
reported as unverified and keeps the answer from being backed), and a line shown in this run
becomes a source only when the answer uses what it holds (a number, an identifier, a quoted
value, a name written as code, or several of its words that the question did not already say) or
names its file. A not-backed answer has no sources: its closest lines are listed instead.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from app.harness.citations import Evidence, find_prose_citations, merge_spans
from app.harness.headers import ECHOED
from app.harness.verdict import (
    DEFAULT_FEATURES_QUESTION,
    KINDS_OF_NAMES,
    NUMBER,
    PLAIN,
    URL,
    WHERE_QUESTION,
    WORD,
    Definition,
    ShownLine,
    Support,
    Uncalled,
    Verdict,
    asked_runtime,
    holds_subject,
    is_echo,
    judge,
    name_parts,
    names_subject,
    subject_of,
    within,
)
from app.index.intent import callee_of, imports_the_package, is_test_path
from app.values import LineSpan, find_citations

__all__ = ["AnswerCheck", "NameLookup", "Support", "check_answer"]


@dataclass(frozen=True)
class AnswerCheck:
    support: Support
    sources: tuple[LineSpan, ...]  # model citations that held, then lines the answer draws on
    unverified: tuple[str, ...]  # files and symbols the answer names that the workspace lacks
    verdict: Verdict | None = None  # the claim checks behind `support`
    links: tuple[PathLink, ...] = ()  # workspace files the answer's text names, for links


@dataclass(frozen=True)
class PathLink:
    """Words of an answer that name a workspace file, and the lines they point at."""

    text: str
    span: LineSpan


def _no_lines(span: LineSpan) -> tuple[ShownLine, ...]:
    return ()


@dataclass(frozen=True)
class NameLookup:
    """How names are looked up in the workspace (the loop passes its tools' views)."""

    has_path: Callable[[str], bool]
    has_symbol: Callable[[str], bool]
    resolve_path: Callable[[str], str | None] = field(default=lambda name: None)
    read_lines: Callable[[LineSpan], tuple[ShownLine, ...]] = field(default=_no_lines)
    definitions: Callable[[str], tuple[LineSpan, ...]] = field(default=lambda name: ())  # symbol table
    defined_in: Callable[[str], tuple[ShownLine, ...]] = field(default=lambda path: ())  # a file's definitions
    definition_names: Callable[[], tuple[tuple[str, str], ...]] = field(default=lambda: ())  # (path, name) each
    declared: Callable[[str], tuple[ShownLine, ...]] = field(default=lambda runtime: ())  # a manifest's version lines


EXTENSIONS = ("py pyi js mjs cjs jsx ts mts cts tsx go rs java kt c h cc cpp hpp cs rb php swift scala sh "
              "md rst txt toml cfg ini yaml yml json lock xml html css sql gradle mod sum").split()
_PATH = re.compile(r"(?<![\w/.@:-])(?:\.{1,2}/)?(?:[\w@+-][\w.@+-]*/)*[\w@+-][\w.@+-]*\.(?:"
                   + "|".join(EXTENSIONS) + r")(?![\w/])")
_TICKED = re.compile(r"`([^`\n]{2,80})`")
# names of runtimes and libraries written like files: "ws needs Node.js 10" names no file
PRODUCT_NAMES = frozenset(n.lower() for n in (
    "Node.js", "Deno.js", "Vue.js", "Next.js", "Nuxt.js", "Express.js", "React.js", "Ember.js",
    "Backbone.js", "Angular.js", "Three.js", "D3.js", "Chart.js", "Socket.io", "Bun.sh"))
# languages, platforms and tools written in mixed case, which read like code names: "converts them
# into JavaScript objects" names nothing the workspace should define (it was struck through as
# missing)
WELL_KNOWN_NAMES = frozenset(n.lower() for n in (
    "JavaScript", "TypeScript", "CoffeeScript", "ECMAScript", "LiveScript", "ActionScript", "WebAssembly",
    "GitHub", "GitLab", "BitBucket", "PyPI", "NuGet", "RubyGems", "CocoaPods", "NumPy", "SciPy", "PyTorch",
    "TensorFlow", "PySide", "PyQt", "FastAPI", "WebSocket", "WebSockets", "WebKit", "WebGL", "WebRTC",
    "WebView", "PostgreSQL", "MySQL", "GraphQL", "MongoDB", "MariaDB", "DynamoDB", "CouchDB", "InfluxDB",
    "ClickHouse", "RabbitMQ", "ZeroMQ", "ElasticSearch", "OpenAPI", "OpenSSL", "OpenSSH", "OpenBSD",
    "FreeBSD", "NetBSD", "OpenTelemetry", "PowerShell", "IntelliJ", "PyCharm", "GoLand", "JetBrains",
    "macOS", "iOS", "iPadOS", "iPhone", "iPad", "tvOS", "watchOS", "LaTeX", "YouTube", "WordPress",
    "CircleCI", "AppVeyor", "DevOps", "VirtualBox", "CloudFlare", "DigitalOcean", "HashiCorp"))
_IDENT = re.compile(r"^[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*(?:\(\))?$")
_CODEY = re.compile(r"(?<![\w.])([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)(?=\(\))|"
                    r"(?<![\w.])([a-z]+_\w+|[a-z]+[A-Z]\w*|[A-Z][a-z0-9]+[A-Z]\w*)(?![\w])")
_NAME = re.compile(r"[A-Za-z_]\w*")
_QUOTED = re.compile(r"[\"']([^\"'\n]{2,60})[\"']")


def check_answer(text: str, question: str, cited: tuple[LineSpan, ...], evidence: Evidence,
                 names: NameLookup, max_names: int, max_sources: int,
                 tokens: Sequence[tuple[str, float]] = (), complete: bool = True,
                 calls: tuple[ShownLine, ...] = (), uncalled: Uncalled | None = None,
                 listed: tuple[ShownLine, ...] = (), not_callers: tuple[str, ...] = ()) -> AnswerCheck:
    """The verdict on `text` (verdict.judge), its sources and the names the workspace lacks.

    Sources: the model's own citations that held, then its prose citations ("`a.py` lines 3-9",
    checked like `a.py:3-9`; a range the run never showed is read from disk), then the lines
    that back the answer, then the lines it draws on. When no range the answer cites holds a line
    that backs it, those lines are added: after the ranges, or before them when no range names the
    question's subject (a small model cites the header of a neighbouring chunk, "main.py, lines
    25-28", for a value it read elsewhere). `tokens`: the answer's, with their log-probabilities.
    `complete`: False when the index knows more than the answer says (callers it leaves out); then,
    like an answer naming what the workspace lacks, it is at most partly backed. `calls`: for a
    "what calls X" question, the calls the index found when the answer names every one of them (a
    deterministic fact, like the symbol table's for "where is X": verdict.judge); `uncalled`: the
    index defines that function and found nothing that calls or uses it; `listed`: every call
    the first prompt listed (tests' too), which an answer copying the list may name; `not_callers`:
    definitions the answer says a call is in that hold none of the calls found."""
    unverified = unverified_names(text, names, max_names)
    lines = _current_lines(evidence)
    prose, read = _prose_sources(text, evidence, names)
    lines.update({line.span: line.text for line in read})
    places = tuple(dict.fromkeys((*cited, *prose)))
    paths, _ = mentioned_names(text)
    files = {p for p in (names.resolve_path(w) for w in _places_named(paths, question)) if p}
    folders = named_folders(text, names)
    defined = _definition_check(text, question, files | {p.path for p in places}, names, set(folders.values()),
                                places)
    verdict = judge(text, question, lines, paths=[*paths, *folders], places=places, echo=is_echo(text, ECHOED),
                    defined=defined, files=files, tokens=tokens, calls=calls,
                    uncalled=uncalled, listed=listed, not_callers=not_callers,
                    declared=names.declared(runtime) if (runtime := asked_runtime(question)) else (),
                    manifest=_cargo_read_whole(question, lines, names))
    if (unverified or not complete) and verdict.support is Support.BACKED:  # names what is not there, or leaves out
        verdict = Verdict(Support.PARTLY, (), verdict.backing, verdict.found, verdict.missing + unverified)
    sources = places
    backing = tuple(b.span for b in verdict.backing)
    if places and backing and not any(within(span, p) for span in backing for p in places):
        cited = [t for span, t in lines.items() if any(within(span, p) for p in places)]
        sources = (*backing, *places) if not holds_subject(question, cited) else (*places, *backing)
    if not sources and verdict.support is not Support.NOT_BACKED:
        drawn = _group(_score_lines(text, question, lines, _named_paths(text)))
        sources = tuple(dict.fromkeys([*(b.span for b in verdict.backing), *drawn]))
    if verdict.support is not Support.NOT_BACKED:
        sources = (*_definitions_named(question, files, sources, names), *sources)
    return AnswerCheck(verdict.support, sources[:max(max_sources, len(places))], unverified, verdict,
                       answer_links(text, names))


def _cargo_read_whole(question: str, lines: dict[LineSpan, str], names: NameLookup) -> tuple[ShownLine, ...]:
    """Asked which Cargo features are on by default, the lines of the Cargo.toml whose `default =
    [...]` line was shown, read from disk from its start to a few lines past that line (a chunk may
    cut the `[dependencies.serde]` head and end before the list of what `std` turns on, as hex's
    did); () otherwise."""
    if not DEFAULT_FEATURES_QUESTION.search(question):
        return ()
    shown = next((s for s, text in lines.items() if s.path.rsplit("/", 1)[-1] == "Cargo.toml"
                  and re.match(r"\s*default\s*=\s*\[", text)), None)
    if shown is None:
        return ()
    after = next((read for n in MANIFEST_AFTER
                  if (read := names.read_lines(LineSpan(shown.path, 1, shown.start_line + n)))), ())
    merged = {s: ShownLine(s, text) for s, text in lines.items() if s.path == shown.path}
    merged.update({line.span: line for line in after})
    return tuple(merged[s] for s in sorted(merged))


MANIFEST_AFTER = (40, 20, 10, 5, 2, 1)  # lines read after a shown `default = [...]`, the most the file has


def _places_named(paths: list[str], question: str) -> list[str]:
    """The paths an answer names as places. For a "where" question, not a file it names as the
    question wrote it ("where is config.xml parsed?" -> "config.xml is parsed in ..."): that names
    the subject, not where it is."""
    if not asks_where_defined(question):
        return paths
    asked = {p.lower() for p in mentioned_names(question)[0]}
    return [p for p in paths if p.lower() not in asked]


def _prose_sources(text: str, evidence: Evidence, names: NameLookup
                   ) -> tuple[tuple[LineSpan, ...], tuple[ShownLine, ...]]:
    """Prose citations that hold (resolved to workspace paths), and the lines read from disk for
    the ranges this run never showed."""
    spans: list[LineSpan] = []
    read: list[ShownLine] = []
    for prose in find_prose_citations(text):
        path = names.resolve_path(prose.path)
        if path is None:
            continue
        span = LineSpan(path, prose.start_line, prose.end_line)
        if not evidence.is_valid(span):
            lines = names.read_lines(span)
            if not lines:
                continue  # past the file's end, or unreadable: not a citation
            read.extend(lines)
        if span not in spans:
            spans.append(span)
    return tuple(spans), tuple(read)


def asks_where_defined(question: str) -> bool:
    """A "where is X / which file" question about a definition; "where is X called from?" asks
    for X's callers, whose files are not where X is defined."""
    return bool(WHERE_QUESTION.search(question)) and callee_of(question) is None and not imports_the_package(question)


def _definition_check(text: str, question: str, named: set[str], names: NameLookup,
                      folders: frozenset[str] | set[str] = frozenset(),
                      places: tuple[LineSpan, ...] = ()) -> Definition | None:
    """For a "where is X" question: does a file the answer names (or the folder it names, that
    holds the file itself) hold X's definition, as the index's symbol table has it? None when the
    question is not one, or no name is in the table. Of several definitions in the files named
    (a Rust type's struct and its impl blocks, a name in two modules of one file), the one nearest
    the lines the answer cites is the line shown: the symbol table's order is no order (a user's
    check on once_cell: "sync Lazy ... src/lib.rs:1187-1218" was backed by `unsafe impl ... Sync
    for Lazy` 17 lines below the struct the answer pointed at)."""
    if not asks_where_defined(question) or not (named or folders):
        return None
    # the thing the question asks for by its kind first: "Where is the Sentinel metaclass that
    # NEED_DATA, PAUSED and the state constants are built on defined?" (a user's check on h11) asks
    # for Sentinel (h11/_util.py); "h11/_connection.py", where NEED_DATA is, had been backed
    for name in dict.fromkeys([*_plain_named(question), *mentioned_names(text)[1], *mentioned_names(question)[1]]):
        spans = names.definitions(name)
        if not spans:
            continue
        agree = [s for s in spans if s.path in named or _folder_of(s.path, folders)]
        where = min(agree, key=lambda s: _distance(s, places)) if agree else spans[0]
        line = _first_line(where)
        return Definition(name, bool(agree), names.read_lines(line) or (ShownLine(line, name),),
                          bool(agree) and _cited_apart(where, places))
    return _described_definition(question, named, names)


# A name a question writes as a plain word, by the kind of thing it is: "Where is the enable function
# defined?" (a user's check on debug: the answer cited src/common.js:231-269, the end of `setup`, and
# was backed; `function enable` is at line 162), "Where is Parse defined?".
_PLAIN_NAMED = re.compile(
    rf"\bthe\s+([A-Za-z_]\w{{2,}})\s+(?:{KINDS_OF_NAMES})\b|"
    r"^\s*where\s+(?:is|are)\s+([A-Za-z_]\w{2,})\s+(?:defined|declared)\b", re.IGNORECASE)


def asked_names(question: str) -> list[str]:
    """The names a "where is X defined" question asks about: written as code, or as a plain word
    with the kind of thing it is ("the enable function")."""
    return list(dict.fromkeys([*_plain_named(question), *mentioned_names(question)[1]]))


def _plain_named(question: str) -> list[str]:
    """Such names, when the question asks where one is defined or declared: the symbol table has
    a trait's definition, not the file that implements it for a type (tuning3's anyhow-12, "Which
    file implements the Context trait for Result and Option?", right, was not backed by lib.rs's
    `pub trait Context`)."""
    if not re.search(r"\b(?:defin|declar)", question, re.IGNORECASE):
        return []
    return [m.group(1) or m.group(2) for m in _PLAIN_NAMED.finditer(question)]


# Lines between a definition and the nearest range the answer cites in its file for the answer to
# point at it (a doc comment or decorator above the line the table has).
CITED_SLACK = 3


def _first_line(span: LineSpan) -> LineSpan:
    return LineSpan(span.path, span.start_line, span.start_line)


def _cited_apart(definition: LineSpan, places: tuple[LineSpan, ...]) -> bool:
    """The answer cites lines of the definition's file and none of them is in the definition (or
    CITED_SLACK lines above it): tuning3's qs-07 named lib/utils.js right and cited 254-265, the
    exports list; `var merge = function merge(` is line 47."""
    cited = [p for p in places if p.path == definition.path]
    top = definition.start_line - CITED_SLACK
    return bool(cited) and not any(p.start_line <= definition.end_line and p.end_line >= top for p in cited)


def _distance(span: LineSpan, places: tuple[LineSpan, ...]) -> tuple[float, str, int]:
    """How far a definition's line is from the nearest cited place of its file (0 inside one),
    then where it is: the nearest first, else the first in the file."""
    gaps = [0 if p.start_line <= span.start_line <= p.end_line
            else min(abs(span.start_line - p.start_line), abs(span.start_line - p.end_line))
            for p in places if p.path == span.path]
    return (min(gaps) if gaps else math.inf, span.path, span.start_line)


def _described_definition(question: str, named: set[str], names: NameLookup) -> Definition | None:
    """A "where" question that describes what it asks for instead of naming it ("which file
    defines the JSON formatter?"): when the definitions whose own names name the subject
    (`JSONFormatter`) are all in one file (tests aside) and the answer names that file, the symbol
    table agrees. Several files, or none, decide nothing; nor does a file the answer names that is
    not the one (on the tuning sets, three such answers were right: a description is looser than a
    name)."""
    subject, acronyms = subject_of(question), _acronyms(question)
    found = [(path, name) for path, name in names.definition_names()
             if not is_test_path(path) and names_subject(subject, own := name.rsplit(".", 1)[-1])
             and acronyms <= set(name_parts(own))]
    files = {path for path, _ in found}
    if len(files) != 1 or not files <= named:
        return None
    name = found[0][1]
    spans = [s for s in names.definitions(name) if s.path in files]
    return Definition(name, True, names.read_lines(_first_line(spans[0])) if spans else ())


# A short word the question writes in capitals is a name's part (the subject's stems are 4 letters
# or more): "Where is the ARC cache implemented?" describes `ARCCache`, not golang-lru's `Cache`
# and `TwoQueueCache` beside it (a user's check: the right "arc.go" was partly backed).
_ACRONYM = re.compile(r"(?<![\w.])[A-Z][A-Z0-9]{1,3}(?![\w.])")


def _acronyms(question: str) -> set[str]:
    return {a.lower() for a in _ACRONYM.findall(question)}


DEFINITIONS_CITED = 2  # definition lines a "which file" answer cites, at most


def _definitions_named(question: str, files: set[str], sources: tuple[LineSpan, ...],
                       names: NameLookup) -> tuple[LineSpan, ...]:
    """For a "where is X / which file" question: the definition lines, in the files the answer
    names, that name X (`type JSONFormatter struct` for "which file defines the JSON formatter?"),
    when no source already holds one. A right "json_formatter.go" then cites where in it X is."""
    if not asks_where_defined(question) or not files:
        return ()
    subject = subject_of(question)
    found = [d.span for path in sorted(files) for d in names.defined_in(path) if names_subject(subject, d.text)]
    if any(within(span, s) for span in found for s in sources):
        return ()
    return tuple(found[:DEFINITIONS_CITED])


def answer_links(text: str, names: NameLookup) -> tuple[PathLink, ...]:
    """Every workspace file the text names, as written, with the lines a citation gives it (else
    its first line): the window makes each a link."""
    out: dict[str, PathLink] = {}
    for match in find_citations(text):
        path = names.resolve_path(match.span.path)
        if path:
            out.setdefault(match.text, PathLink(match.text, LineSpan(path, *_ordered(match.span))))
    for cite in find_prose_citations(text):
        path = names.resolve_path(cite.path)
        if path:
            written = text[cite.start:cite.end].strip()
            out.setdefault(written, PathLink(written, LineSpan(path, cite.start_line, cite.end_line)))
    for written in mentioned_names(text)[0]:
        path = names.resolve_path(written)
        if path and written not in out:
            out[written] = PathLink(written, LineSpan(path, 1, 1))
    return tuple(out.values())


# A folder an answer names ("located in the `framework/src/org/apache/cordova/` directory"): a path
# of one or more folders, with no file extension at its end.
_FOLDER = re.compile(r"(?<![\w/.@:-])((?:[\w@+-][\w.@+-]*/)+[\w@+-]*)(?![\w.@+/-])")


def named_folders(text: str, names: NameLookup) -> dict[str, str]:
    """The workspace folders the answer names: as written -> the folder (no trailing slash). A
    written name that is a file, or that no workspace file lies under, is not one (`text/html`)."""
    out: dict[str, str] = {}
    for written in _FOLDER.findall(URL.sub(" ", text)):
        folder = written.removeprefix("./").rstrip("/")
        if "/" in written and folder and names.resolve_path(folder) is None and names.has_path(folder + "/"):
            out.setdefault(written, folder)
    return out


def _folder_of(path: str, folders: set[str]) -> bool:
    """The file lies directly in one of the folders (written whole, or by its last parts)."""
    parent = path.rsplit("/", 1)[0] if "/" in path else ""
    return any(parent == f or parent.endswith("/" + f) for f in folders)


def _ordered(span: LineSpan) -> tuple[int, int]:
    return min(span.start_line, span.end_line), max(span.start_line, span.end_line)


def mentioned_names(text: str) -> tuple[list[str], list[str]]:
    """(paths, symbols) an answer names, in order, without duplicates; URLs and citations' line
    numbers are not names."""
    prose = URL.sub(" ", text)
    paths = _unique(m.group(0) for m in _PATH.finditer(_TICKED.sub(_path_or_blank, prose))
                    if m.group(0).lower() not in PRODUCT_NAMES)
    paths += _unique(c.span.path for c in find_citations(prose) if c.span.path not in paths)
    symbols: list[str] = []
    for ticked in _TICKED.findall(prose):
        name = ticked.strip()
        if _IDENT.match(name) and not _PATH.fullmatch(name):
            symbols.append(name.removesuffix("()"))
    for match in _CODEY.finditer(_TICKED.sub(" ", prose)):
        symbols.append(match.group(1) or match.group(2))
    return paths, [s for s in _unique(symbols) if s not in paths and not _in_any_path(s, paths)
                   and s.lower() not in WELL_KNOWN_NAMES]


def _path_or_blank(code: re.Match[str]) -> str:
    """A code span that is a path, as written; any other code blanked: the file in `open('foo.toml',
    'rb')` (a user's check on tomli, quoting an error message) is no file the answer says the
    workspace has."""
    return code.group(0) if _PATH.fullmatch(code.group(1).strip().strip("'\"")) else " "


def unverified_names(text: str, names: NameLookup, limit: int) -> tuple[str, ...]:
    paths, symbols = mentioned_names(text)
    missing = [p for p in paths[:limit] if not names.has_path(p)]
    room = max(0, limit - len(paths))
    missing += [s for s in symbols[:room] if not names.has_symbol(s)]
    return tuple(missing)


def _in_any_path(symbol: str, paths: list[str]) -> bool:
    return any(symbol in path for path in paths)


def _unique(items: Iterable[str]) -> list[str]:
    seen: dict[str, None] = {}
    for item in items:
        seen.setdefault(item.removeprefix("./"), None)
    return list(seen)


def _current_lines(evidence: Evidence) -> dict[LineSpan, str]:
    """Single lines shown in this run whose file still reads the same (fingerprints checked once)."""
    current = [span for span, digest in evidence.shown.items()
               if digest is not None and evidence.fingerprint(span) == digest]
    return {line: text for line, text in evidence.lines.items()
            if any(within(line, span) for span in current)}


def _named_paths(text: str) -> set[str]:
    paths, _ = mentioned_names(text)
    return {p.removeprefix("./") for p in paths}


@dataclass(frozen=True)
class Terms:
    """What an answer says that its question did not: `strong` (numbers, identifiers, quoted
    values; found anywhere in a line), `code` (names inside the answer's `code spans`, found as
    whole names: `cli` is not in "client") and `weak` (other content words, cut to 5 letters)."""

    strong: set[str]
    code: set[str]
    weak: set[str]


def answer_terms(text: str, question: str) -> Terms:
    asked = {w.lower() for w in WORD.findall(question)} | set(NUMBER.findall(question))
    strong = {n for n in NUMBER.findall(text) if n not in asked and len(n) > 1}
    strong |= {q.strip().lower() for q in _QUOTED.findall(text) if q.strip().lower() not in asked}
    weak: set[str] = set()
    for word in WORD.findall(URL.sub(" ", text)):
        low = word.lower()
        if low in asked or low in PLAIN:
            continue
        if "_" in word or any(c.isupper() for c in word[1:]):  # an identifier or an acronym (MIT)
            strong.add(low)
        elif len(low) >= 4:
            weak.add(low[:5])
    return Terms(strong, _code_names(text, asked | strong), weak)


def _code_names(text: str, known: set[str]) -> set[str]:
    """Names of 3+ characters inside the answer's code spans (`require(mod).__express`); a span
    that is a file path names a file, which the score counts apart."""
    names: set[str] = set()
    for ticked in _TICKED.findall(URL.sub(" ", text)):
        if _PATH.fullmatch(ticked.strip()):
            continue
        names |= {n.lower() for n in _NAME.findall(ticked) if len(n) >= 3}
    return {n for n in names if n not in known and n not in PLAIN}


def _score_lines(text: str, question: str, lines: dict[LineSpan, str],
                 named: set[str]) -> dict[LineSpan, int]:
    """A score per shown line: 2 per strong or code term it holds, 1 per weak one; a line of a
    file the answer names scores at least 1, 2 when it also names the question's subject (the
    answer "json_formatter.go" to "which file defines the JSON formatter?" draws on the lines of
    that file that do: `type JSONFormatter struct`). Lines under 2 do not back the answer."""
    terms = answer_terms(text, question)
    subject = subject_of(question)
    scores: dict[LineSpan, int] = {}
    for span, line in lines.items():
        low = line.lower()
        words = {w.lower()[:5] for w in WORD.findall(line)}
        score = 2 * sum(term in low for term in terms.strong) + len(terms.weak & words)
        if terms.code:
            score += 2 * len(terms.code & {n.lower() for n in _NAME.findall(line)})
        if _names_file(span.path, named):
            score += 1 + names_subject(subject, line)
        if score >= 2:
            scores[span] = score
    return scores


def _names_file(path: str, named: set[str]) -> bool:
    return path in named or any(path.endswith("/" + name) for name in named)


def _group(scored: dict[LineSpan, int], gap: int = 2) -> list[LineSpan]:
    """Supporting lines grouped into spans (lines at most `gap` apart join), best total first."""
    spans = merge_spans(LineSpan(s.path, s.start_line, s.end_line + gap) for s in scored)
    totals = []
    for span in spans:
        inside = [s for s in scored if within(s, span)]
        last = max(s.end_line for s in inside)
        totals.append((-sum(scored[s] for s in inside), LineSpan(span.path, span.start_line, last)))
    return [span for _, span in sorted(totals)]

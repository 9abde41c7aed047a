"""Ranking: BM25 over weighted fields, then a re-ranking that knows what a developer asks for.

BM25 (FTS5) finds candidates with any query term; the re-ranking then rewards chunks that hold
more of the question's distinct terms (BM25 alone lets one frequent word win; a long chunk counts
only those it holds together), chunks that define a name the question mentions, and spreads the
list over files so one long file cannot fill it, near copies of one file taking one place.
"""

from __future__ import annotations

import bisect
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, replace

from app.index.intent import (
    BUILD_WORDS,
    PROSE_KINDS,
    Intent,
    callee_of,
    intent_of,
    is_copy_path,
    is_test_path,
    prior,
)
from app.index.one_hop import COMMENT_MARKS, closing_lines, with_definitions_after_comments, with_references
from app.index.setters import with_setters
from app.index.store import Store
from app.index.terms import STOP_WORDS, query_terms, related, word_parts
from app.index.terms import terms as line_terms
from app.index.values import ChunkHit, ChunkKind
from app.settings import Settings

# BM25 weight of each FTS column: names and paths say what a chunk is about, docstrings and
# comments say it in words, the body mostly repeats names used elsewhere.
FIELD_WEIGHTS = (8.0, 5.0, 2.0, 1.0)  # symbols, path, doc, body
COVERAGE_POWER = 0.5  # score x (share of the question's terms the chunk holds) ** this
# A chunk longer than this counts the question's words it holds together: in its name and path
# and in its best window of this many lines (see _together), for the TOGETHER_CANDIDATES best
TOGETHER_LINES = 6
TOGETHER_CANDIDATES = 50
_NEWLINE = re.compile("\n")
DEFINES_BOOST = 1.8  # the chunk defines a name the question mentions
MENTIONS_BOOST = 1.3  # the chunk assigns a name the question mentions (a constant, a config key)
JOINED_WORDS = 4  # words in a row that may spell one name (see _joined)
COMMON_SHARE = 0.06  # terms in more than this share of chunks do not select candidates ...
MIN_MATCH_TERMS = 2  # ... unless fewer than this many terms would be left
PRUNE_FROM_CHUNKS = 5000  # a smaller index scores every match in a few milliseconds anyway
_KIND_WEIGHT = {ChunkKind.TEXT: 0.85, ChunkKind.IMPORTS: 0.5}
PLUMBING_WEIGHT = 0.5  # __eq__, __repr__ ...: they name the class but rarely answer about it
_PLUMBING = {"__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__hash__", "__repr__",
             "__str__", "__len__", "__bool__", "__iter__", "__contains__", "__format__"}
BARE_HEADER_LINES = 2  # a class header this short (just `class X:`) says nothing but its name ...
BARE_HEADER_WEIGHT = 0.6  # ... which the symbol table answers anyway
# "what calls X": chunks that call X rank up, X's own definition after them (tuning2's ten such
# questions: their evidence spans in the top 5 went from 71% to 91%)
CALLER_BOOST = 2.0
CALLEE_WEIGHT = 0.5
MAX_CALLERS = 50  # chunks with a call looked at (a name called everywhere is not a question's X)
CALLER_FLOOR_RANK = 4  # a caller scores at least what the fifth chunk does, before its boost
# a phrase the question quotes: the chunks that hold it, as callers are raised
QUOTE_BOOST = 2.0
MIN_QUOTE_WORDS = 3  # a message, not a name
_QUOTED = re.compile(r"(?<![\w])(['\"“‘])(.+?)(?:\1|[”’])(?![\w])")
# Code in a build output or vendored folder, when the candidates also hold code outside one (see
# _built_beside_source).
COPY_WEIGHT = 0.3
MAX_PROSE = 2  # README and docs sections among the top chunks, unless the question asks about docs
# Code chunks of one file sharing this share of their words are near copies (`error!`, `warn!`,
# `info!`, `debug!`, `trace!` in log's macros.rs): one of them takes a place, the others only
# what the rest leave (see _diversify)
NEAR_COPY_SHARE = 0.8
_WORD = re.compile(r"\w+")
FOCUS_CONTEXT = 2  # lines shown around each line of a long chunk that holds a question word (see _focused)
# Of the lines shown of a long chunk, what its lines past them may take at most: the three tuning
# sets' evidence in the shown lines of a top-5 chunk 227 -> 241 of 268 with 0.35 and 0.5 (0.25 lost
# one); in the first prompt, evidence half shown or more 192 -> 209 with 0.35, 208 with 0.5 (which
# cut ws-01's defaults object from a 120-line constructor's first 60 lines).
FOCUS_SHARE = 0.35


def search(store: Store, query: str, limit: int, settings: Settings, references: int = 0) -> tuple[ChunkHit, ...]:
    """The best `limit` chunks for `query`; the first `references` of them each followed by the
    top-level definitions of its file that it uses (see one_hop.py), and a value question's
    declared field by the statement that sets it (see setters.py), beyond `limit`."""
    words = query_terms(query)
    if not words or limit < 1:
        return ()
    groups = {w: {w, *related(w)} for w in words}  # a synonym counts for the word it stands for
    matchable = list(dict.fromkeys(t for group in groups.values() for t in group))
    df, total = _document_counts(store, matchable)
    ranked = _bm25(store, _selective(matchable, df, total), settings.index_search_candidates)
    if not ranked:
        return ()
    weights = _rarity(groups, df, total)
    coverage = _coverage(store, ranked, groups, weights)
    intent = intent_of(query)
    scored = _scores(ranked, coverage, _symbol_boosts(store, query, intent.locate))
    scored = _together(store, scored, coverage, groups, weights)
    if intent.locate:
        scored = _defined_first(store, scored, query, intent)
    if callee := callee_of(query):
        scored = _callers_first(store, scored, callee)
    for phrase in quoted(query):
        scored = _holding_first(store, scored, phrase)
    hits = _tests_last(_hits(store, scored, intent), intent)
    found = with_definitions_after_comments(store, _diversify(store, hits, limit, settings.index_max_hits_per_file,
                                                              _prose_room(intent, limit)))
    found = with_references(store, found, references) if references else found
    found = with_setters(store, found, query, set(words))
    owner = _owners(groups)
    return tuple(_focused(hit, owner, weights, settings.index_hit_max_lines) for hit in found)


def _focused(hit: ChunkHit, owner: dict[str, set[str]], weights: dict[str, float], shown: int) -> ChunkHit:
    """`hit` with the lines a caller shows of it (`focus`) when it is longer than the `shown` lines
    a hit shows and some of the question's words are past them: those lines (first those whose
    FOCUS_CONTEXT lines around hold the most of the words, each with those lines, FOCUS_SHARE of
    `shown` at most), after as many of its first lines as leave room, where a definition's
    signature, defaults and most answers are (`owner`: each term the question word it counts for).
    A user's check on @libp2p/crypto: "which modules are swapped for
    browser-specific implementations?" found package.json (one 120-line chunk), whose first 60
    lines were shown and whose `"browser"` field is at lines 110-118; 14 of the three tuning sets'
    268 questions had their evidence only past the shown lines of a top-5 chunk."""
    lines = hit.text.split("\n")
    if len(lines) <= shown or shown <= 2 * FOCUS_CONTEXT + 1:
        return hit
    weight = [weight_of({w for t in line_terms(line) if t in owner for w in owner[t]}, weights) for line in lines]
    if not any(weight[shown:]):
        return hit
    # a line whose neighbours hold the words too first: a field of eight `"./x.js": "./x.browser.js"`
    # lines before three scripts that each say "browser" once
    near = [sum(weight[max(0, i - FOCUS_CONTEXT):i + FOCUS_CONTEXT + 1]) for i in range(len(lines))]
    chosen: set[int] = set()
    for at in sorted((i for i in range(shown, len(lines)) if weight[i] > 0), key=lambda i: (-near[i], -weight[i], i)):
        around = {i for i in range(at - FOCUS_CONTEXT, at + FOCUS_CONTEXT + 1) if shown <= i < len(lines)}
        # in a config chunk, a list or table shown to where it closes (one_hop.LIST_CLOSE_LINES; in code
        # too it would change 47 of the 398 eval questions' first prompts: not measured, not done)
        if hit.kind is ChunkKind.CONFIG:
            around |= {i for i in closing_lines(lines, at, max(around)) if i >= shown}
        if len(chosen | around) > FOCUS_SHARE * shown:
            break
        chosen |= around
    start = iter(range(len(lines)))
    while len(chosen) < shown:
        chosen.add(next(start))
    return replace(hit, focus=tuple(hit.start_line + i for i in sorted(chosen)[:shown]))


def weight_of(words: Iterable[str], weights: dict[str, float]) -> float:
    """The words' weights added up exactly (math.fsum), so in any order the same: a set's order
    changes with each process's string hashing, a float sum with it, and near-ties fell either way
    (tuning3's qs-01 had one first prompt in one run and another in the next)."""
    return math.fsum(weights[w] for w in words)


def _rarity(groups: dict[str, set[str]], df: dict[str, int], total: int) -> dict[str, float]:
    """Each question word's weight for coverage, by its rarity: holding 'express' in express's own
    code says little, holding 'parser' says much."""
    return {w: math.log(1 + total / (1 + max(df.get(t, 0) for t in g))) for w, g in groups.items()}


def _coverage(store: Store, ranked: dict[int, float], groups: dict[str, set[str]],
              weights: dict[str, float]) -> dict[int, float]:
    """The weighted share of the question's words each ranked chunk holds (0 to 1)."""
    whole = sum(weights.values()) or 1.0
    marks = ",".join("?" * len(ranked))
    rows = store.execute(
        "SELECT rowid, symbols || ' ' || path || ' ' || doc || ' ' || body FROM fts "
        f"WHERE rowid IN ({marks})",
        tuple(ranked),
    )
    wanted = {t for group in groups.values() for t in group}
    return {rowid: _held(groups, weights, _present(text, wanted)) / whole for rowid, text in rows}


def _together(store: Store, scored: dict[int, float], coverage: dict[int, float], groups: dict[str, set[str]],
              weights: dict[str, float]) -> dict[int, float]:
    """The best TOGETHER_CANDIDATES chunks scored by the question's words they hold together: in
    their name and path, and in the window of TOGETHER_LINES lines that holds the most of them
    (by weight). A 90-line function holds a question's words scattered over unrelated lines; the
    6 lines that set the value hold them together (the three tuning sets: span recall@5 232 ->
    237 of 268, none lost). A window holds no more than the whole chunk, so a chunk's score only
    goes down; those below the best TOGETHER_CANDIDATES keep theirs (they rarely reach the top)."""
    top = [cid for cid in sorted(scored, key=scored.__getitem__, reverse=True)[:TOGETHER_CANDIDATES]
           if coverage.get(cid, 0.0) > 0.0]
    if not top:
        return scored
    marks = ",".join("?" * len(top))
    rows = store.execute(
        "SELECT f.rowid, f.symbols || ' ' || f.path, c.text FROM fts f JOIN chunks c ON c.id = f.rowid "
        f"WHERE f.rowid IN ({marks}) AND c.end - c.start >= ?",
        (*top, TOGETHER_LINES),
    )
    owner = _owners(groups)
    spelled, terms = _spellings(owner), set(owner)
    whole = sum(weights.values()) or 1.0
    out = dict(scored)
    for cid, head, text in rows:
        words = set().union(*(owner[t] for t in _present(head, terms)))
        held = _best_window(weights, words, text, owner, spelled) / whole
        out[cid] = scored[cid] * (min(held, coverage[cid]) / coverage[cid]) ** COVERAGE_POWER
    return out


def _owners(groups: dict[str, set[str]]) -> dict[str, set[str]]:
    """Each term of the question's word groups: the question words it counts for."""
    owner: dict[str, set[str]] = {}
    for word, group in groups.items():
        for term in group:
            owner.setdefault(term, set()).add(word)
    return owner


def _spellings(wanted: Iterable[str]) -> re.Pattern:
    """Where a wanted term may be written, lower-cased: its stem's start (`retry` in "retries",
    "max_retries"). A line it finds is a candidate, its terms then checked one by one."""
    return re.compile("|".join(sorted({re.escape(t[:-1] if t.endswith("y") else t) for t in wanted})))


def _best_window(weights: dict[str, float], head: set[str], text: str, owner: dict[str, set[str]],
                 spelled: re.Pattern) -> float:
    """The weight of the question words in `head` and in the TOGETHER_LINES lines of `text` that
    hold the most of them (`owner`: each term the question word it counts for)."""
    breaks = [m.start() for m in _NEWLINE.finditer(text)]
    lines = text.split("\n")
    found: list[tuple[int, set[str]]] = []  # (line, its question words) for the lines holding any
    low = text.lower()  # as long as the text but for a few letters ('İ'): a line found is only a candidate
    for at in sorted({min(bisect.bisect_left(breaks, m.start()), len(lines) - 1) for m in spelled.finditer(low)}):
        if here := set().union(*(owner[t] for t in line_terms(lines[at]) if t in owner)):
            found.append((at, here))
    best = weight_of(head, weights)
    for first, (start, _) in enumerate(found):
        window = set(head)
        for at, here in found[first:]:
            if at >= start + TOGETHER_LINES:
                break
            window |= here
        best = max(best, weight_of(window, weights))
    return best


def _present(terms: str, wanted: set[str]) -> set[str]:
    """The wanted terms a space-separated term string holds: a few substring scans cost less than
    splitting all of a chunk's terms (a third of the time on Django's index)."""
    padded = f" {terms} "
    return {t for t in wanted if f" {t} " in padded}


def _scores(ranked: dict[int, float], coverage: dict[int, float], boosts: dict[int, float]) -> dict[int, float]:
    """BM25, scaled down for the question's words a chunk lacks and up for a name it defines."""
    return {cid: bm25 * coverage.get(cid, 0.0) ** COVERAGE_POWER * boosts.get(cid, 1.0) for cid, bm25 in ranked.items()}


def _callers_first(store: Store, scored: dict[int, float], callee: str) -> dict[int, float]:
    """Chunks that call `callee` up, from at least the score the list's fifth chunk has (also
    ones the words did not find); the chunk that only defines it after them."""
    rows = store.execute("SELECT c.id, c.symbol, c.text, f.path FROM chunks c JOIN files f ON f.id = c.file_id "
                         "WHERE instr(c.text, ?) OR instr(c.text, ?) LIMIT ?",
                         (callee + "(", callee + "!(", MAX_CALLERS + 1))
    if not rows or len(rows) > MAX_CALLERS:
        return scored
    call = re.compile(r"(?<![\w$])" + re.escape(callee) + r"!?\s*\(")
    base = _floor(scored)
    out, defining, callers = dict(scored), [], []
    # a build's copy of a caller is not raised when the source has callers too (transpiled, it
    # differs in text, so the copy check keeps it)
    copies = [is_copy_path(path) for *_, path in rows]
    skip_copies = any(copies) and not all(copies)
    for (cid, symbol, text, _), copy in zip(rows, copies, strict=True):
        own = symbol.rsplit(".", 1)[-1] == callee
        if len(call.findall(text)) - own > 0:  # a call beyond its own definition line
            if copy and skip_copies:
                continue
            out[cid] = max(out.get(cid, 0.0), base) * CALLER_BOOST
            callers.append(out[cid])
        elif own:
            defining.append(cid)
    for cid in defining:  # after its callers: the question starts from it, they answer it
        out[cid] = min([out.get(cid, base), *callers]) * CALLEE_WEIGHT
    return out


def _floor(scored: dict[int, float]) -> float:
    """The score of the list's fifth chunk (CALLER_FLOOR_RANK): what a raised chunk starts from."""
    ranks = sorted(scored.values(), reverse=True)
    return max(ranks[min(CALLER_FLOOR_RANK, len(ranks) - 1)] if ranks else 0.0, 1e-9)  # BM25 can be 0 in a tiny index


def quoted(question: str) -> list[str]:
    """Messages the question quotes ('Did you mean ...?', "invalid header value"), as a developer
    copies them from the program's output, without the quote's dots and end mark."""
    found = []
    for _, text in _QUOTED.findall(question):
        text = re.sub(r"\s*(\.\.\.|…)\s*", " ", text).strip(" ?!.:,;")
        if len(text.split()) >= MIN_QUOTE_WORDS:  # 'trust proxy' is a setting's name, used everywhere
            found.append(text)
    return found


def _holding_first(store: Store, scored: dict[int, float], phrase: str) -> dict[int, float]:
    """Chunks holding `phrase` (any case) up, from at least the score the list's fifth chunk has."""
    rows = store.execute("SELECT id FROM chunks WHERE instr(lower(text), ?) LIMIT ?",
                         (phrase.lower(), MAX_CALLERS + 1))
    if not rows or len(rows) > MAX_CALLERS:
        return scored
    base = _floor(scored)
    out = dict(scored)
    for (cid,) in rows:
        out[cid] = max(out.get(cid, 0.0), base) * QUOTE_BOOST
    return out


def _held(groups: dict[str, set[str]], weights: dict[str, float], present: set[str]) -> float:
    return sum(weights[w] for w, group in groups.items() if group & present)


def _document_counts(store: Store, words: list[str]) -> tuple[dict[str, int], int]:
    marks = ",".join("?" * len(words))
    df = dict(store.execute(f"SELECT term, doc FROM vocab WHERE term IN ({marks})", tuple(words)))
    return df, store.chunk_count() or 1


def _selective(words: list[str], df: dict[str, int], total: int) -> list[str]:
    """The query terms worth matching on: a term in a large share of all chunks ('object', 'get')
    adds little to BM25 but makes it score most of the index. They still count for coverage."""
    present = sorted((w for w in words if df.get(w)), key=lambda w: df[w])
    if total < PRUNE_FROM_CHUNKS:
        return present
    rare = [w for w in present if df[w] <= COMMON_SHARE * total]
    return rare if len(rare) >= MIN_MATCH_TERMS else present[:MIN_MATCH_TERMS]


def _bm25(store: Store, words: list[str], limit: int) -> dict[int, float]:
    if not words:
        return {}
    match = " OR ".join('"' + w.replace('"', '""') + '"' for w in words)
    weights = ", ".join(str(w) for w in FIELD_WEIGHTS)
    rows = store.execute(
        f"SELECT rowid, -bm25(fts, {weights}) AS s FROM fts WHERE fts MATCH ? "
        "ORDER BY s DESC LIMIT ?",
        (match, limit),
    )
    return dict(rows)


def _names(query: str) -> set[str]:
    """The names a question may spell out, lower-case (the symbol table's names are)."""
    names = {w.lower() for w in query.replace("`", " ").replace("(", " ").replace(")", " ").split()}
    names = {n.strip(".,:;?!'\"") for n in names} - {""}
    names |= {re.split(r"::|\.", n)[-1] for n in names}  # `anyhow::Result`, `fields.DateTime`: the name's own part
    return {n for n in names if len(word_parts(n)) > 1 or len(n) >= 4}


def _symbol_boosts(store: Store, query: str, locate: bool = False) -> dict[int, float]:
    """Chunks defining (or assigning) a name the question spells out: `QuerySet`, `MAX_ITEMS`.
    Asked where a name is defined, a module-level assignment is its definition (`missing =
    _Missing()`) as much as a `def` is."""
    names = _names(query) | _joined(query)
    if not names:
        return {}
    marks = ",".join("?" * len(names))
    rows = store.execute(
        f"SELECT chunk_id, max(exact) FROM symbols WHERE name IN ({marks}) GROUP BY chunk_id",
        tuple(names),
    )
    return {cid: DEFINES_BOOST if exact or locate else MENTIONS_BOOST for cid, exact in rows}


# Asked where a name is defined, the few chunks that define it are the answer, whatever the
# question's other words: "Where is the Parse function defined?" (a user's check on google/uuid)
# ranked `func Parse` eighth, below five methods whose doc comments say "only defined for Version 2
# UUIDs". The words that frame such a question name no symbol.
DEFINED_FIRST_MAX = 3  # more definitions of one name (a `Parse` per type): the words must choose
DEFINED_FIRST_BOOST = 1.05  # above the best chunk the words found
_FRAMING = frozenset("where which what file files module modules function functions method methods class classes "
                     "type types struct interface variable constant defined define defines declared declare "
                     "implemented implement implements located live lives declares itself".split())
# "Where is X defined?", "Which file declares X?": not "Why does the metaclass delete the declared
# fields?" nor "What is the Rust version declared in Cargo.toml?" (tuning3's mm-09 and semver-11,
# whose first prompts this rule changed before it asked for where or which file).
_DEFINITION_ASKED = re.compile(r"^\s*(?:where\b|(?:in\s+)?(?:which|what)\s+(?:file|module|folder|package|crate)\b)"
                               r".*\b(?:defin(?:ed|es?)|declare[sd]?|implement(?:ed|s)?)\b", re.IGNORECASE | re.DOTALL)


def _defined_first(store: Store, scored: dict[int, float], query: str, intent: Intent) -> dict[int, float]:
    """Asked where a name is defined ("defined", "declared", "implemented"), the chunks that define
    it first, when the question spells out one name the index defines and it has at most
    DEFINED_FIRST_MAX definitions (tests only when the question asks about tests, a build's copy
    only when the source has none). A question naming two defined names ("the registry that lets
    Nested refer to a schema") says by its words which one it means."""
    names = _names(query) - _FRAMING
    if not names or not scored or not _DEFINITION_ASKED.search(query):
        return scored
    marks = ",".join("?" * len(names))
    rows = store.execute(
        "SELECT DISTINCT s.chunk_id, s.name, f.path FROM symbols s JOIN chunks c ON c.id = s.chunk_id "
        f"JOIN files f ON f.id = c.file_id WHERE s.exact = 1 AND s.name IN ({marks})",
        tuple(names),
    )
    rows = [(cid, name, path) for cid, name, path in rows if intent.tests or not is_test_path(path)]
    if any(not is_copy_path(path) for *_, path in rows):
        rows = [row for row in rows if not is_copy_path(row[2])]
    if not rows or len({re.split(r"::|\.", name)[-1] for _, name, _ in rows}) > 1 or len(rows) > DEFINED_FIRST_MAX:
        return scored
    top = max(scored.values()) * DEFINED_FIRST_BOOST
    out = dict(scored)
    for cid, *_ in rows:
        out[cid] = top + out.get(cid, 0.0) * 1e-3  # among themselves, as the words ranked them
    return out


def _joined(query: str) -> set[str]:
    """Names a question spells as words: "the default error handler" for `defaultErrorHandler` or
    `default_error_handler` (the symbol table's names are lower-case), two to JOINED_WORDS words
    in a row (a user's check on fastify: "Which file defines the default error handler?" ranked
    `function defaultErrorHandler` below the seven chunks shown, under 'file' and 'defines')."""
    tokens = re.findall(r"[\w.:$`()]+", query)
    if any(_NAMED.search(t) for t in tokens):  # it spells the name itself: that is the one to find
        return set()
    out: set[str] = set()
    for words in re.split(r"[^\w\s]+", query):  # runs within one clause
        plain = [w.lower() for w in words.split()]
        for size in range(2, JOINED_WORDS + 1):
            for at in range(len(plain) - size + 1):
                run = plain[at:at + size]
                if not any(w in STOP_WORDS or not w.isalpha() for w in run):
                    out |= {"".join(run), "_".join(run)}
    return out


_NAMED = re.compile(r"`|_|[a-z][A-Z]|\w\(|\.\w|::")


def _hits(store: Store, scored: dict[int, float], intent: Intent | None = None) -> list[ChunkHit]:
    """Scored chunks, best first, without their text (see with_text): most are never shown."""
    marks = ",".join("?" * len(scored))
    rows = store.execute(
        "SELECT c.id, f.path, c.start, c.end, c.kind, c.symbol, length(c.text) FROM chunks c "
        f"JOIN files f ON f.id = c.file_id WHERE c.id IN ({marks})",
        tuple(scored),
    )
    copies_weigh = COPY_WEIGHT if _built_beside_source(rows, intent) else 1.0
    types = _types_only(store, [row[0] for row in rows if ChunkKind(row[4]) is ChunkKind.CLASS]) \
        if intent is not None and intent.logic else set()
    hits = []
    for cid, path, start, end, kind_name, symbol, size in rows:
        kind = ChunkKind(kind_name)
        score = scored[cid] * _weight(path, kind, start, end, symbol, intent)
        score *= copies_weigh if is_copy_path(path) else 1.0
        score *= TYPE_ONLY_WEIGHT if cid in types else 1.0
        hits.append(_Scored(cid, size, ChunkHit(path, start, end, kind, symbol, score, "")))
    return sorted(hits, key=lambda h: (-h.hit.score, h.hit.path, h.hit.start_line))


# A type that only describes (a TypeScript interface or type alias, a Go struct or interface type,
# a Rust struct, enum or trait): its first line past its doc comment.
_TYPE_ONLY = re.compile(r"(?:export\s+)?(?:declare\s+)?(?:interface|type)\s+[\w$]+(?!\s*\()|"
                        r"(?:pub(?:\([^)]*\))?\s+)?(?:struct|enum|trait)\s")
TYPE_ONLY_WEIGHT = 0.3


def _types_only(store: Store, ids: list[int]) -> set[int]:
    """Of the class-like chunks `ids`, the types that only describe: asked where the logic is, such
    a chunk is weighed down (TYPE_ONLY_WEIGHT, below a docs section's LOCATE_WEIGHT: it holds no
    logic at all). A user's check on Redux Toolkit: "Which file has the logic that actually
    refetches subscribed RTK Query queries when the window regains focus ...?" showed two options
    types whose doc comments hold every word, then setupListeners and a devtools options type, and
    not `buildWindowEventHandler` (ranked fifth), which the answer was."""
    if not ids:
        return set()
    marks = ",".join("?" * len(ids))
    rows = store.execute(  # a long type is split: its first piece says what it is
        "SELECT c.id, (SELECT substr(o.text, 1, 2000) FROM chunks o WHERE o.file_id = c.file_id "
        f"AND o.symbol = c.symbol ORDER BY o.start LIMIT 1) FROM chunks c WHERE c.id IN ({marks})", tuple(ids))
    return {cid for cid, head in rows if _TYPE_ONLY.match(_first_code_line(head))}


def _first_code_line(text: str) -> str:
    return next((s for line in text.split("\n") if (s := line.strip()) and not s.startswith(COMMENT_MARKS)), "")


def _built_beside_source(rows: list, intent: Intent | None) -> bool:
    """The candidates hold code from a build output or vendored folder (dist/qs.js, a bundle of
    lib/) and code from outside one, and the question does not ask about builds: the built copy
    only repeats the source, transpiled (a user's check on @tanstack/virtual-core, whose callers and
    defaults were cited from dist/esm/index.js beside src/index.ts)."""
    if intent is not None and intent.words & BUILD_WORDS:
        return False
    code = [is_copy_path(row[1]) for row in rows if ChunkKind(row[4]) not in PROSE_KINDS]
    return any(code) and not all(code)


def _weight(path: str, kind: ChunkKind, start: int, end: int, symbol: str, intent: Intent | None) -> float:
    """How much a chunk's own shape and place count, apart from its text matching the question."""
    weight = _KIND_WEIGHT.get(kind, 1.0) * (prior(path, kind, start, intent) if intent else 1.0)
    return weight * _shape(kind, symbol, end - start + 1)


def _shape(kind: ChunkKind, symbol: str, lines: int) -> float:
    if kind is ChunkKind.METHOD and symbol.rsplit(".", 1)[-1] in _PLUMBING:
        return PLUMBING_WEIGHT
    if kind is ChunkKind.CLASS and lines <= BARE_HEADER_LINES:
        return BARE_HEADER_WEIGHT
    return 1.0


@dataclass(frozen=True)
class _Scored:
    id: int
    size: int  # characters of text: with kind, symbol and line count, how copies are told
    hit: ChunkHit


def _tests_last(found: list[_Scored], intent: Intent) -> list[_Scored]:
    """Unless the question asks about tests, test chunks come after every other candidate: they
    fill only what the rest leave. A test states a default by exercising it (`depth: 5` in a
    dozen asserts) and outranked the one line of the code that sets it (tuning3: span recall@5
    100 -> 104 of 134, file 122 -> 125; the other two tuning sets unchanged)."""
    if intent.tests:
        return found
    return [h for h in found if not is_test_path(h.hit.path)] + [h for h in found if is_test_path(h.hit.path)]


def _prose_room(intent: Intent, limit: int) -> int:
    """How many of the `limit` places prose (README and docs sections) may take: all of them for
    what the project is, for docs, and for history (a changelog's entries are prose)."""
    return limit if intent.overview or intent.history or intent.docs else min(limit, MAX_PROSE)


def _diversify(store: Store, found: list[_Scored], limit: int, per_file: int, prose: int) -> tuple[ChunkHit, ...]:
    """Best first, at most `per_file` chunks per file and `prose` prose chunks (the rest fill
    only what code leaves), overlapping windows and copies left out, near copies of a chosen
    chunk of the same file after everything else. The five level macros of log's macros.rs
    (`error!` ... `trace!`, 8 lines each, the same but for the level) took five places and the
    per-file cap, and `log!` itself, which answers what they expand to, was never shown (the
    three tuning sets: span recall@5 +3 of 268, none lost)."""
    chosen: list[_Scored] = []
    later: list[_Scored] = []  # prose beyond its room, near copies: after everything else
    seen: set[tuple] = set()  # the same section in two files (docs/index.md copying README.md) once
    words: dict[int, set[str]] = {}
    for item in found:
        if len(chosen) == limit:
            break
        if item.hit.kind in PROSE_KINDS and sum(c.hit.kind in PROSE_KINDS for c in chosen) >= prose:
            later.append(item)
        elif _near_copy(store, item, [c for c in chosen if c.hit.path == item.hit.path], words):
            later.append(item)
        else:
            _take(item, chosen, seen, per_file)
    for item in later:
        if len(chosen) == limit:
            break
        _take(item, chosen, seen, per_file)
    return _with_text(store, chosen)


def _near_copy(store: Store, item: _Scored, same_file: list[_Scored], words: dict[int, set[str]]) -> bool:
    """`item`, code, shares NEAR_COPY_SHARE of its words (with the other's, as sets) with a chunk
    of `same_file`; `words` caches each chunk's words."""
    if not same_file or item.hit.kind in PROSE_KINDS:  # a changelog's entries look alike and each answers
        return False
    if missing := [c.id for c in (item, *same_file) if c.id not in words]:
        marks = ",".join("?" * len(missing))
        texts = dict(store.execute(f"SELECT id, text FROM chunks WHERE id IN ({marks})", tuple(missing)))
        words.update({cid: set(_WORD.findall(texts.get(cid, "").lower())) for cid in missing})
    mine = words[item.id]
    return bool(mine) and any(len(mine & words[c.id]) >= NEAR_COPY_SHARE * len(mine | words[c.id]) for c in same_file)


def _take(item: _Scored, chosen: list[_Scored], seen: set[tuple], per_file: int) -> None:
    """Add `item` unless its file is full, it overlaps a chosen window of its file, or it is a copy."""
    hit = item.hit
    same = [c.hit for c in chosen if c.hit.path == hit.path]
    copy = (item.size, hit.kind, hit.symbol, hit.end_line - hit.start_line)
    if len(same) >= per_file or any(_overlap(c, hit) for c in same) or copy in seen:
        return
    seen.add(copy)
    chosen.append(item)


def _with_text(store: Store, chosen: list[_Scored]) -> tuple[ChunkHit, ...]:
    if not chosen:
        return ()
    marks = ",".join("?" * len(chosen))
    texts = dict(
        store.execute(
            f"SELECT id, text FROM chunks WHERE id IN ({marks})", tuple(c.id for c in chosen)
        )
    )
    return tuple(replace(c.hit, text=texts.get(c.id, "")) for c in chosen)


def _overlap(a: ChunkHit, b: ChunkHit) -> bool:
    return a.start_line <= b.end_line and b.start_line <= a.end_line


def find_symbol(store: Store, name: str, limit: int) -> tuple[ChunkHit, ...]:
    key = name.strip().lower()
    if not key:
        return ()
    rows = store.execute(
        "SELECT chunk_id, (name = ?) AS same, exact FROM symbols WHERE name >= ? AND name < ? "
        "ORDER BY same DESC, exact DESC, length(name) LIMIT ?",
        (key, key, key + "\U0010ffff", limit * 4),
    )
    order = _symbol_ranks(rows)
    if not order:
        return ()
    wanted = name.strip()
    found = sorted(_hits(store, order), key=lambda s: s.hit.symbol.rsplit(".", 1)[-1] != wanted)
    return _with_text(store, found[:limit])  # the name in the same case first


def _symbol_ranks(rows: list[tuple[int, int, int]]) -> dict[int, float]:
    """Each chunk's score from its best row: the whole name before a prefix, a definition before a mention."""
    order: dict[int, float] = {}
    for rank, (chunk_id, same, exact) in enumerate(rows):
        order.setdefault(chunk_id, float(len(rows) - rank + (1000 if same else 0) + (100 if exact else 0)))
    return order

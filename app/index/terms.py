"""Code-aware terms: the words a developer would search by, from code, prose and paths alike.

`parse_config` gives `parse_config`, `parse` and `config`; `HTTPServerError` gives
`httpservererror`, `http`, `server` and `error`; `os.path.join` gives the dotted whole and its
parts.
Every word part is lightly stemmed (`raised`, `raises`, `raising` -> `rais`), whole identifiers
are kept exact, so a query for the identifier itself still ranks the exact match first.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from functools import lru_cache

# A dotted identifier, or a run of letters/digits in any script (prose in other languages).
_TOKEN = re.compile(
    r"\d+(?:\.\d+)+|[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*(?![^\W_])|[^\W_]+"
)
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_DOUBLE_END = re.compile(r"([b-df-hj-kmnp-rtv-xz])\1$")
MIN_TERM_CHARS = 2
MAX_TERM_REPEAT = 4  # BM25 saturates in a term's count: more copies only grow the index
MAX_TERM_CHARS = 60  # longer runs are hashes or base64, never something a person types

# Words that carry no meaning in a question or a sentence; code keywords stay (their idf is low).
STOP_WORDS = frozenset(
    """
a an and are as at be been but by can could did do does doing done for from had has have how i if
in into is it its me my no not of on or our so such than that the their them then there these this
those to too us was we were what when where which who whom why will with would you your about also
any each just more most other some very should shall may might must get gets got
""".split()
)


def stem(word: str) -> str:
    """A light suffix stripper: enough to meet plurals and -ed/-ing forms, never a dictionary."""
    if len(word) <= 3 or not word.isascii() or not word.isalpha():
        return word
    if word.endswith(("ies", "ied")) and len(word) > 4:  # retries, retried: retry
        word = word[:-3] + "y"
    elif word.endswith("sses"):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    for suffix in ("ing", "ed"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = _DOUBLE_END.sub(r"\1", word[: -len(suffix)])
            break
    return word[:-1] if word.endswith("e") and len(word) > 3 else word


def word_parts(identifier: str) -> list[str]:
    """snake_case, camelCase and dotted names split into lowercase words."""
    words: list[str] = []
    for piece in re.split(r"[._]+", identifier):
        words += [w.lower() for w in _CAMEL.findall(piece)] if piece else []
    return words


def _is_compound(token: str) -> bool:
    return (
        "_" in token.strip("_")
        or "." in token
        or not (token.islower() or token.isupper() or token.istitle())
    )


def terms(text: str, keep_stop_words: bool = True) -> list[str]:
    """Every term of `text`, in order, repeated as often as it occurs (BM25 counts them)."""
    out: list[str] = []
    expand = _expand_all if keep_stop_words else _expand_content
    for token in _TOKEN.findall(text):
        out += expand(token)
    return out


def term_string(text: str) -> str:
    """The terms of `text` as one space-separated string, as the index stores them. Order is lost
    (BM25 needs only counts), which lets each distinct token be expanded once."""
    parts: list[str] = []
    for token, count in Counter(_TOKEN.findall(text)).items():
        expanded = _expanded_string(token)
        if expanded:
            parts.append(
                expanded if count == 1 else " ".join([expanded] * min(count, MAX_TERM_REPEAT))
            )
    return " ".join(parts)


@lru_cache(maxsize=262144)  # a tree repeats its names endlessly: expanding each once is 20x faster
def _expanded_string(token: str) -> str:
    return " ".join(_expand_all(token))


@lru_cache(maxsize=262144)
def _expand_all(token: str) -> tuple[str, ...]:
    return _expand(token, True)


@lru_cache(maxsize=4096)
def _expand_content(token: str) -> tuple[str, ...]:
    return _expand(token, False)


def _expand(token: str, keep_stop_words: bool) -> tuple[str, ...]:
    if len(token) > MAX_TERM_CHARS:
        return ()
    out: list[str] = []
    if _is_compound(token):
        out.append(token.lower().strip("_."))
    if "." in token:  # each part of `TimestampSigner.sign` is a name of its own, too
        out += [p.lower().strip("_") for p in token.split(".") if "." not in p and _is_compound(p)]
    for word in word_parts(token) if token.isascii() else [token.lower()]:
        if len(word) >= MIN_TERM_CHARS and (keep_stop_words or word not in STOP_WORDS):
            out.append(stem(word))
    return tuple(out)


def name_term(name: str) -> str:
    """The one index term an identifier is stored under wherever it is written (the whole name,
    lowercased, for compound names; its stem for a plain word), or "" for a non-name."""
    expanded = _expand_all(name.strip()) if _TOKEN.fullmatch(name.strip()) else ()
    return expanded[0] if expanded else ""


def path_terms(rel: str) -> list[str]:
    """A path's folders, file name and their words: `app/tools/rg_files.py` gives `rg_files.py`,
    `rg_files`, `rg`, `files`, `tools`, `app`, `py`."""
    name = rel.rsplit("/", 1)[-1].lower()
    stem_name = name.rsplit(".", 1)[0] if "." in name.strip(".") else ""
    return [
        name,
        *([stem_name] if stem_name else []),
        *terms(rel.replace("/", " ").replace("-", " ")),
    ]


def query_terms(question: str) -> list[str]:
    """The distinct terms of a question, stop words dropped, in first-seen order; a phrasal verb the
    code writes as one word ("times out": `loadUrlTimeoutValue`) brings that word too."""
    return _unique(terms(question, keep_stop_words=False) + [stem(c) for c in compounds(question)])


# Phrasal verbs that code names as one word: a question says "before it times out", the code
# `timeout`; "falls back", `fallback` (a user's check on cordova-android: the 20-second page load
# timeout, `LoadUrlTimeoutValue`, was not among the chunks for "how long ... before it times out?").
_COMPOUND_WORDS = {("time", "out"): "timeout", ("log", "in"): "login", ("log", "out"): "logout",
                   ("set", "up"): "setup", ("look", "up"): "lookup", ("shut", "down"): "shutdown",
                   ("clean", "up"): "cleanup", ("start", "up"): "startup", ("fall", "back"): "fallback",
                   ("roll", "back"): "rollback", ("tear", "down"): "teardown", ("back", "up"): "backup",
                   ("sign", "in"): "signin", ("check", "out"): "checkout"}
_VERB_FORMS = {form: verb for verb, forms in (
    ("time", "time times timed timing"), ("log", "log logs logged logging"), ("set", "set sets setting"),
    ("look", "look looks looked looking"), ("shut", "shut shuts shutting"),
    ("clean", "clean cleans cleaned cleaning"), ("start", "start starts started starting"),
    ("fall", "fall falls fell falling fallen"), ("roll", "roll rolls rolled rolling"),
    ("tear", "tear tears tore tearing torn"), ("back", "back backs backed backing"),
    ("sign", "sign signs signed signing"), ("check", "check checks checked checking"),
) for form in forms.split()}
_PHRASAL = re.compile(r"\b([a-z]+)\s+(out|in|up|down|back)\b", re.IGNORECASE)


def compounds(question: str) -> list[str]:
    """The one-word forms of the phrasal verbs in `question` (`timeout` for "timed out")."""
    found = (_COMPOUND_WORDS.get((_VERB_FORMS.get(m.group(1).lower(), ""), m.group(2).lower()))
             for m in _PHRASAL.finditer(question))
    return [word for word in found if word]


# Words a question uses for what code calls otherwise; each side is searched for the other.
_SYNONYMS = (
    ("directory", "dir", "folder"),
    ("command", "subcommand", "cli"),
    ("configuration", "config", "settings"),
    ("environment", "env", "environ"),
    ("argument", "arg", "args", "param"),
    ("parameter", "param", "arg"),
    ("initialize", "init"),
    ("authentication", "auth"),
    ("database", "db"),
    ("error", "exception", "err"),
    ("delete", "remove"),
    ("serialize", "dump", "dumps"),
    ("deserialize", "load", "loads"),
    ("message", "msg"),
    ("request", "req"),
    ("response", "res"),
    ("function", "func", "fn"),
    ("length", "len"),
    ("maximum", "max"),
    ("minimum", "min"),
    ("number", "num"),
    ("string", "str"),
    ("bigger", "larger", "exceed", "exceeds", "exceeded"),
    ("frozen", "freeze"),
    ("copy", "clone"),
    ("callback", "handler"),
    ("retry", "retries"),
    ("start", "begin"),
    # a measure's adjective and its noun, which stemming does not join: "How deep does qs.parse
    # nest objects by default?" is answered by `depth: 5,` (tuning3's qs-01; the line was cut from
    # the first prompt as holding no question word, and the model gave parameterLimit's 1000)
    ("deep", "depth"),
    ("wide", "width"),
)
_RELATED: dict[str, tuple[str, ...]] = {}
_SYNONYMS_OF: dict[str, tuple[str, ...]] = {}  # a word -> the other words of its groups, as written
for _group in _SYNONYMS:
    for _word in _group:
        _RELATED[stem(_word)] = tuple(
            dict.fromkeys(stem(w) for w in _group if stem(w) != stem(_word))
        )
        _SYNONYMS_OF[_word] = _SYNONYMS_OF.get(_word, ()) + tuple(w for w in _group if w != _word)


def synonyms(word: str) -> tuple[str, ...]:
    """The other words of `word`'s synonym groups, as written (`deep` -> `depth`)."""
    return _SYNONYMS_OF.get(word.lower(), ())


def related(term: str) -> tuple[str, ...]:
    """Other terms that name the same thing (`folder` -> `dir`, `directori`; `parser` -> `pars`,
    as code names the doer by its verb: parse_stream, load_config, handle_error)."""
    agent = term.endswith("er") and len(term) >= 6 and term.isalpha()
    doer = (stem(term[:-2] + "e"),) if agent else ()
    return _RELATED.get(term, ()) + doer


def _unique(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(i for i in items if i))

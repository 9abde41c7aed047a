"""What a question asks for, and how much a chunk's place says about whether it can answer.

Measured on the eval questions: answers live in source far more often than in tests, changelogs
or generated copies (PKG-INFO repeats the README, egg-info repeats setup.py), yet those match a
question's words just as well. So they rank lower unless the question asks for them.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import TypeVar

from app.index.terms import query_terms, stem
from app.index.values import ChunkKind

GENERATED_WEIGHT = 0.3
CHANGELOG_WEIGHT = 0.45  # ... and HISTORY_BOOST when the question is about releases
HISTORY_BOOST = 1.6
CODE_BOOST = 1.35  # definitions, when the question asks about functions, errors, defaults ...
OVERVIEW_BOOST = 2.0  # the top-level README, when the question asks what the project is
OVERVIEW_MAX_TERMS = 3
README_START_LINES = 30  # "the README's start": where a project says what it is
# A question asking where a thing is (which file, function or module defines it) is answered by
# code: prose and tests that describe or use the thing weigh less. Tuning set: one more question
# with its evidence first, none lost (0.4 and 0.8 measured the same).
LOCATE_WEIGHT = 0.6
FILE_NAME_BOOST = 1.5  # the question names the file's own name ('parser', 'variables')
# A question about what a project needs or declares to install and build (a Python or Node.js
# version, a dependency's range, an optional add-on, a Cargo feature) is answered by its manifest
# (package.json, setup.py, go.mod, Cargo.toml), which a README's prose about the same words outranks.
MANIFEST_BOOST = 2.0

_GENERATED = re.compile(
    r"(^|/)(PKG-INFO|[^/]+\.egg-info/.*|package-lock\.json|yarn\.lock|"
    r"[^/]+\.min\.(js|css)|[^/]+\.map)$"
)
_CHANGELOG = re.compile(r"(^|/)(change(s|log)|history|news|releases?)([._-][^/]*)?$", re.IGNORECASE)
_TESTS = re.compile(
    r"(^|/)(tests?|__tests__|spec|testing)/|(^|/)(test_[^/]*|[^/]*_test\.\w+|"
    r"[^/]*\.(test|spec)\.\w+|conftest\.py)$"
)
_COPIES = re.compile(r"(^|/)(dist|build|out|vendor|node_modules|third_party)/")
_LICENSE = re.compile(r"(^|/)(licen[cs]e|copying|notice)([._-][^/]*)?$", re.IGNORECASE)
_LICENSE_WORDS = {stem(w) for w in "license licence licensed copyright copying permission".split()}
LICENSE_WEIGHT = 0.3  # legal text matches everyday words ('provided', 'use') in every question
_README = re.compile(r"^readme(\.\w+)?$", re.IGNORECASE)
_CODE_WORDS = {
    stem(w)
    for w in """function method class implemented implementation defined
    raise raised exception error return returns argument parameter default module called call
    variable constant attribute decorator signature subclass inherit""".split()
}
_HISTORY_WORDS = {
    stem(w) for w in "release released changelog changed change version history new".split()
}
_TEST_WORDS = {stem(w) for w in "test tests tested testing fixture".split()}
_DOC_WORDS = {stem(w) for w in "readme docs documentation documented example examples tutorial guide".split()}
_PACKAGING_WORDS = {
    stem(w) for w in """version versions depend depends dependency dependencies requirement requirements
    require requires install installed engine engines extra extras feature features toolchain rustc
    msrv peer optional""".split()
}
_MANIFEST = re.compile(r"(^|/)(package\.json|setup\.py|setup\.cfg|pyproject\.toml|go\.mod|cargo\.toml|"
                       r"requirements[^/]*\.txt|pipfile|composer\.json|deno\.json)$", re.IGNORECASE)
_OVERVIEW = re.compile(
    r"^\s*what\s+(is|does|are)\b.*\b(for|do|does|about|is)?\s*\??\s*$", re.IGNORECASE
)
# A short "what is / what does" question that asks for a default, names code ("What is the default
# of autoreset in init?", "What does app.listen do?") or puts a condition ("What does Must do when
# err is not nil?") is about that, not the whole project: a user's check on colorama got the
# README's first 120 lines ahead of `def init(autoreset=False`, and the model answered from its
# example `init(autoreset=True)`; one on go-version got go.mod's first line.
_NOT_THE_WHOLE = re.compile(r"\bdefaults?\b|[A-Za-z_$][\w$]*(?:\.[A-Za-z_$]|_\w|\()|\b[a-z]+[A-Z]\w*|"
                            r"(?i:\b(?:when|if|unless|while|after|before)\b)")
_LOCATE = re.compile(
    r"\b(where\b|which\s+(file|module|function|class|method|package|folder|directory)\b|"
    r"(defined|implemented|declared)\b)", re.IGNORECASE)
# "what calls X", "which functions call X()", "where is X called from / used": X's callers answer,
# not X's definition (which holds X's name as often as any caller does)
_NAME = r"`?((?:[A-Za-z_][\w]*(?:::|\.))*[A-Za-z_]\w*)`?(?:\(\))?`?"
# "What calls the inner `actionCreator` function ...?", "... calls the helper `baz`": an article and
# a word for the kind of function before the name (a user's check on typescript-fsa: the question
# got no callers list, and its "defined inside" made it a where-is question, backed by X's own line)
_BEFORE_NAME = r"(?:the\s+)?(?:(?:inner|nested|private|internal|local|helper|exported|public)\s+)*"
_CALLERS = (
    # "which function calls X", not "which function runs when you call X()" (who calls is the user)
    re.compile(r"\b(?:what|which|who)\b[^?]*?(?<!\byou )(?<!\bwe )(?<!\bi )(?<!\bto )\bcalls?\s+" + _BEFORE_NAME
               + _NAME, re.IGNORECASE),
    re.compile(r"\bcallers?\s+of\s+" + _NAME, re.IGNORECASE),
    re.compile(r"\bwhere\s+(?:is|are|does|do)\s+" + _NAME + r"\s+(?:get\s+)?(?:called|used|invoked)", re.IGNORECASE),
)
# Asked where the logic is ("Which file has the logic that actually refetches ...?", "where is X
# implemented"): code that does it, not a type that describes it (see ranking._types_only).
_LOGIC = re.compile(r"\b(?:logic|implement(?:s|ed|ation|ing)?|actually)\b", re.IGNORECASE)
PROSE_KINDS = (ChunkKind.SECTION, ChunkKind.TEXT)  # README and docs sections, other text
_CODE_KINDS = (ChunkKind.CLASS, ChunkKind.FUNCTION, ChunkKind.METHOD, ChunkKind.CODE)


@dataclass(frozen=True)
class Intent:
    code: bool
    history: bool
    tests: bool
    overview: bool
    words: frozenset[str]
    locate: bool = False  # where is X / which file, function or module: code answers, not prose
    packaging: bool = False  # what the project needs or declares to install and build
    docs: bool = False  # the README, docs, examples: prose answers
    logic: bool = False  # where the code that does something is (locate, and "logic", "implemented")


def callee_of(question: str) -> str | None:
    """The function a "what calls X" question asks about (its last name part: `logger` for
    `log::logger()`), or None."""
    for pattern in _CALLERS:
        if found := pattern.search(question):
            written, name = found.group(0), re.split(r"::|\.", found.group(1))[-1]
            code_like = "`" in written or "(" in written or re.search(r"_|[a-z][A-Z]|::|\.|\d", found.group(1))
            return name if code_like and len(name) >= 3 else None  # "what does it call when ..."
    return None


# "What calls respond?": a plain word at the question's end, which callee_of leaves alone (it may be
# English: "what does it call when ..."), is a function's name when the index defines it (see
# first_prompt._callers_call; a user's check on koa, whose `respond(ctx)` got no callers list).
_PLAIN_CALLEE = re.compile(r"^\s*(?:what|which|who)\b[^?]*?\bcalls?\s+([A-Za-z_]\w{2,})\s*\?\s*$", re.IGNORECASE)
_NOT_NAMES = frozenset("it this that them these those him her one".split())


def plain_callee(question: str) -> str | None:
    """The plain word a "what calls X?" question ends in, when callee_of finds no name."""
    if callee_of(question) is not None or not (found := _PLAIN_CALLEE.match(question)):
        return None
    return None if found.group(1).lower() in _NOT_NAMES else found.group(1)


# Where a project says what it is: its README, its manifest, its entry module (app/harness/overview.py
# reads them for a question about the whole, and the verdict checks such an answer against them).
README_NAMES = ("README.md", "README.rst", "README.txt", "README", "readme.md")
MANIFEST_NAMES = ("package.json", "pyproject.toml", "setup.cfg", "setup.py", "Cargo.toml", "go.mod")
# a crate's `//!` docs, a Go package's doc comment, an index module's exports
ENTRY_NAMES = ("src/lib.rs", "src/main.rs", "doc.go", "src/index.ts", "src/index.js", "index.ts", "index.js",
               "lib/index.js", "src/main.ts", "main.go")


def is_readme(name: str) -> bool:
    """`README.md`, `Readme.rst`, `readme` ...: a file name, not a path."""
    return _README.match(name) is not None


def describes_project(path: str) -> bool:
    """A top-level README or manifest, a known entry module or a package's `__init__.py`."""
    name = path.rsplit("/", 1)[-1]
    return ("/" not in path and (is_readme(name) or name in MANIFEST_NAMES)) \
        or path in ENTRY_NAMES or (name == "__init__.py" and not is_test_path(path))


def is_test_path(path: str) -> bool:
    """A test file or a file under a tests folder."""
    return _TESTS.search(path) is not None


# Type declaration files: what things are called and typed, no values and no behaviour
# (`index.d.ts`, `index.d.cts`, a Python stub).
_DECLARATIONS = re.compile(r"\.d\.[cm]?ts$|\.pyi$")


def is_changelog_path(path: str) -> bool:
    """A changelog, history, news or releases file: what changed, release by release."""
    return _CHANGELOG.search(path) is not None


def is_declaration_path(path: str) -> bool:
    """A type declaration file (`.d.ts`, `.d.mts`, `.d.cts`, `.pyi`)."""
    return _DECLARATIONS.search(path) is not None


# Words a question about a build itself uses (dist/, a bundle, vendored code): a build's copy is
# then an answer, not a repeat of the source (ranking's copy weight, the verdict's copy rule).
BUILD_WORDS = frozenset(
    stem(w) for w in "dist build built bundle bundled compiled minified transpiled vendor vendored".split())


def asks_about_builds(question: str) -> bool:
    """The question is about a build's output or what importing the package gets."""
    return bool(intent_of(question).words & BUILD_WORDS) or imports_the_package(question)


def is_copy_path(path: str) -> bool:
    """A file under a build output or vendored folder (dist/, build/, vendor/ ...): a copy."""
    return _COPIES.search(path) is not None


# A question about importing the package itself ("What happens if I do `import '@noble/hashes'`
# (the root module)?", "Do require('js-yaml') and import from 'js-yaml' load the same file?"): what
# it gets is in the manifest's entry fields and the entry module, which a search for the question's
# words seldom ranks (a user's check: neither was shown, and both answers were wrong). A quoted
# specifier that is no relative path, `import name` in backticks, or "the root module".
_IMPORTS_PACKAGE = re.compile(
    r"""(?:\bimport\b[^'"?]{0,40}?|\brequire\s*\(\s*)['"](?![./])[\w@][\w@./-]*['"]|`import\s+\w+`|\broot\s+module\b"""
    r"""|\brequire\(\)|\b(?:require|import)\s+it\b""",  # "when I require() it versus import it" (yargs-parser)
    re.IGNORECASE)


def imports_the_package(question: str) -> bool:
    """The question asks what importing a package (the workspace's, as a user writes it) gives."""
    return _IMPORTS_PACKAGE.search(question) is not None


# package.json's fields that name the file an import gets, as `"key": "./path"` lines, and which of
# them each way of importing reads: with an export map, its "." entry or its conditions (Node's
# "require" / "import", "node", bundlers' "module", "default"); without one, "main" (and a
# bundler's "module" for `import`). A file's path only: engines' `"node": ">=14.0.0"` is none.
ENTRY_FIELD = re.compile(r'^\s*"(\.|require|node|default|import|module|main)"\s*:\s*"(?:\./)?([^"<>=~^|\s]+\.[a-z]+)"')
_IMPORT_WAYS = {"require": ((".", "require", "node", "default"), ("main",)),
                "import": ((".", "import", "module", "default"), ("module", "main"))}
IMPORT_WAYS = tuple(_IMPORT_WAYS)
T = TypeVar("T")


def entry_fields(lines: Iterable[tuple[str, T]]) -> dict[str, tuple[str, T]]:
    """Each entry field (ENTRY_FIELD) the `(text, what)` lines state: its file and the `what` of its
    line, the first of each key (the "." entry's, above the subpaths')."""
    fields: dict[str, tuple[str, T]] = {}
    for text, what in lines:
        if (m := ENTRY_FIELD.match(text)) and m[1] not in fields:
            fields[m[1]] = (m[2], what)
    return fields


def entry_key(keys: Collection[str], way: str) -> str | None:
    """Of the entry fields a package.json shows (ENTRY_FIELD's keys), the one `way` ("require" or
    "import") gets its file from."""
    mapped = any(k in keys for k in (".", "require", "import", "node", "default"))
    return next((k for k in _IMPORT_WAYS[way][0 if mapped else 1] if k in keys), None)


def intent_of(question: str) -> Intent:
    words = set(query_terms(question))
    locate = bool(_LOCATE.search(question))
    overview = (bool(_OVERVIEW.match(question)) and len(words) <= OVERVIEW_MAX_TERMS
                and not _NOT_THE_WHOLE.search(question))
    return Intent(
        bool(words & _CODE_WORDS),
        bool(words & _HISTORY_WORDS),
        bool(words & _TEST_WORDS),
        overview,
        frozenset(words),
        locate,
        bool(words & _PACKAGING_WORDS),
        bool(words & _DOC_WORDS),
        locate and bool(_LOGIC.search(question)),
    )


@lru_cache(maxsize=8192)  # a few hundred candidates per query share a few dozen files
def prior(path: str, kind: ChunkKind, start: int, intent: Intent) -> float:
    """A factor for a chunk's score from where it lives and what it is."""
    name = path.rsplit("/", 1)[-1]
    if _GENERATED.search(path):
        return GENERATED_WEIGHT
    weight = 1.0
    if _CHANGELOG.search(path):
        weight *= HISTORY_BOOST if intent.history else CHANGELOG_WEIGHT
    if _LICENSE.search(path) and not intent.words & _LICENSE_WORDS:
        weight *= LICENSE_WEIGHT
    # tests need no weight here: ranking._tests_last puts them after every other chunk unless the
    # question asks about tests (a weight of 0.6 was here before; it let a dozen asserts win)
    if intent.code and kind in _CODE_KINDS:
        weight *= CODE_BOOST
    if intent.locate and (kind in PROSE_KINDS or (_TESTS.search(path) and not intent.tests)):
        weight *= LOCATE_WEIGHT
    if intent.overview and "/" not in path and _README.match(name) and start <= README_START_LINES:
        weight *= OVERVIEW_BOOST
    if intent.packaging and _MANIFEST.search(path):
        weight *= MANIFEST_BOOST
    if stem(name.split(".", 1)[0].lower()) in intent.words:
        weight *= FILE_NAME_BOOST
    return weight

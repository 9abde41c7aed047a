"""Scoring one answer against a question: pure functions over text, spans and the code base."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from bench.eval.ask import Cited
from bench.eval.questions import Evidence, has_keywords

# Extensions that make a word in an answer a file name (so "os.path" or "hashlib.sha1" are not).
FILE_EXTENSIONS = (
    "py", "pyi", "js", "mjs", "cjs", "ts", "tsx", "jsx", "json", "md", "rst", "txt", "toml", "cfg",
    "ini", "yml", "yaml", "go", "rs", "java", "c", "h", "cpp", "hpp", "rb", "sh", "lock", "html",
    "css", "in", "bat", "typed", "xml",
)
_FILE_LIKE = re.compile(
    r"(?<![\w./-])((?:[\w.-]+/)*[\w-][\w.-]*\.(?:" + "|".join(FILE_EXTENSIONS) + r"))(?![\w/-])",
    re.IGNORECASE)
_URL = re.compile(r"\b(?:https?|ftp|file)://\S+|\bwww\.\S+", re.IGNORECASE)
# Product names spelled like files: never counted as invented.
NOT_FILES = frozenset({"node.js", "vue.js", "next.js", "react.js", "consolidate.js", "socket.io",
                       "d3.js", "three.js", "chart.js", "nuxt.js"})


def is_correct(text: str, keywords: Sequence[Sequence[str]]) -> bool:
    """Every keyword group has an alternative in the text (case-insensitive; numbers whole)."""
    return has_keywords(text, keywords)


def overlaps(cited: Cited, span: Evidence) -> bool:
    return (_norm(cited.path) == _norm(span.path)
            and cited.start <= span.end and span.start <= cited.end)


def is_grounded(citations: Iterable[Cited], evidence: Iterable[Evidence]) -> bool:
    """A citation overlaps an evidence span."""
    spans = list(evidence)
    return any(overlaps(c, s) for c in citations for s in spans)


def citation_valid(cited: Cited, root: Path) -> bool:
    """The cited file exists inside the code base and the lines are within it."""
    file = (root / cited.path).resolve()
    if not file.is_relative_to(root.resolve()) or not file.is_file():
        return False
    with file.open("rb") as fh:
        count = sum(1 for _ in fh)
    return 1 <= cited.start <= cited.end <= count


@dataclass(frozen=True)
class FileIndex:
    """Every file of a code base, relative and lower-cased, to check names an answer uses."""

    paths: frozenset[str]

    @classmethod
    def of(cls, root: Path) -> FileIndex:
        return cls(frozenset(p.relative_to(root).as_posix().lower()
                             for p in root.rglob("*") if p.is_file()))

    def exists(self, name: str) -> bool:
        """A relative path, or a tail of one ("dotenv/main.py", "main.py", "./src/x.py")."""
        wanted = _norm(name).lower()
        return wanted in self.paths or any(p.endswith("/" + wanted) for p in self.paths)


def file_names(text: str) -> list[str]:
    """File-like names in an answer (URLs and product names like Node.js left out), in order."""
    found: list[str] = []
    text = _URL.sub(" ", text)
    for match in _FILE_LIKE.finditer(text):
        name = match.group(1).rstrip(".")
        called = f"{name}(" in text  # bodyParser.json(): a member called in code, not a file
        if name.lower() not in NOT_FILES and not called and name not in found:
            found.append(name)
    return found


def invented_paths(text: str, files: FileIndex) -> list[str]:
    """File names the answer uses that do not exist in the code base."""
    return [name for name in file_names(text) if not files.exists(name)]


def _norm(path: str) -> str:
    path = path.replace("\\", "/")
    while path.startswith("./"):
        path = path[2:]
    return path.lstrip("/")

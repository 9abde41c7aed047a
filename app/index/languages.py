"""Which tree-sitter grammar parses a file, loaded lazily and only if its wheel is installed.

file_outline and the code index share these tables, so both know the same languages.
"""

from __future__ import annotations

import importlib
from functools import cache

# language -> (grammar module, function returning the language pointer)
GRAMMARS = {
    "python": ("tree_sitter_python", "language"),
    "javascript": ("tree_sitter_javascript", "language"),
    "typescript": ("tree_sitter_typescript", "language_typescript"),
    "tsx": ("tree_sitter_typescript", "language_tsx"),
    "go": ("tree_sitter_go", "language"),
    "rust": ("tree_sitter_rust", "language"),
    "java": ("tree_sitter_java", "language"),
    "c": ("tree_sitter_c", "language"),
    "cpp": ("tree_sitter_cpp", "language"),
}
EXTENSIONS = {
    ".py": "python",
    ".pyi": "python",
    ".js": "javascript",
    ".jsx": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".c": "c",
    ".h": "cpp",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".cxx": "cpp",
    ".hpp": "cpp",
    ".hh": "cpp",
    ".hxx": "cpp",
    ".c++": "cpp",
    ".h++": "cpp",
}


def language_for(path: str) -> str | None:
    name = path.rsplit("/", 1)[-1].lower()
    return next((lang for ext, lang in EXTENSIONS.items() if name.endswith(ext)), None)


@cache
def parser_for(language: str):
    """A tree-sitter Parser for `language`, or None when its grammar wheel is not installed.

    Cached: building a Language from the grammar's pointer costs more than parsing a small file.
    Parsers are not thread-safe; callers use them from one thread at a time (the index locks).
    """
    try:
        import tree_sitter  # lazy: the window and --help must not wait for the grammars

        module, func = GRAMMARS[language]
        grammar = tree_sitter.Language(getattr(importlib.import_module(module), func)())
    except (ImportError, AttributeError, KeyError, ValueError):
        return None
    return tree_sitter.Parser(grammar)

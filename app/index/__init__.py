"""The code index: one SQLite FTS5 index per workspace of the definitions, sections and windows
a developer would recognise, ranked for questions and names (see docs/index.md)."""

from app.index.index import CodeIndex
from app.index.values import ChunkHit, ChunkKind, IndexStats

__all__ = ["ChunkHit", "ChunkKind", "CodeIndex", "IndexStats"]

"""CodeIndex: build, refresh and search one workspace's index.

Files are listed and read only through the Workspace, so the index sees exactly what the tools
may see: .gitignore, the secrets policy, hard links, binary files and symlinks out are all kept
out by the same code. A refresh compares (size, mtime_ns, inode) per file and touches only what
changed; the database lives in the user data dir, never inside the workspace.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path

from app.errors import BurrowError
from app.index import ranking
from app.index.chunking import ChunkLimits, chunk_file
from app.index.store import ChunkRow, FileState, Store, database_path
from app.index.terms import path_terms, term_string
from app.index.values import Chunk, ChunkHit, ChunkKind, IndexStats, Progress
from app.paths import app_paths
from app.settings import Settings
from app.workspace import Entry, Workspace

_WALK_DEPTH = 64  # as Workspace.file_list: deeper trees are not code anyone asks about
_DEFINITIONS = (ChunkKind.CLASS, ChunkKind.FUNCTION, ChunkKind.METHOD)
# The settings whose change alters what is indexed: another value means a rebuild.
_FINGERPRINT = (
    "index_max_file_bytes",
    "index_window_lines",
    "index_window_overlap",
    "index_chunk_max_lines",
    "index_config_max_lines",
    "secrets_policy",
    "allow_hardlinks",
    "respect_gitignore",
    "file_scan_max_bytes",
)


class CodeIndex:
    """The index of one workspace. Thread-safe: calls are serialised."""

    def __init__(self, workspace: Workspace, settings: Settings, store: Store) -> None:
        self._ws = workspace
        self._settings = settings
        self._store = store
        self._mutex = threading.Lock()

    @classmethod
    def open(
        cls, workspace: Workspace, settings: Settings, data_dir: Path | None = None
    ) -> CodeIndex:
        """Open (or create) the index; a corrupt or outdated one is silently replaced."""
        data = data_dir or app_paths().data_dir
        path = database_path(data, workspace.root)
        inside = path.resolve().is_relative_to(workspace.root)
        return cls(workspace, settings, Store(None if inside else path, _fingerprint(settings)))

    @property
    def database(self) -> Path | None:
        """The database file, or None when kept in memory (the data dir is in the workspace)."""
        return self._store.path

    @property
    def built(self) -> bool:
        return self._store.complete

    def close(self) -> None:
        self._store.close()

    # building ----------------------------------------------------------------------------------
    def refresh(self, progress: Progress | None = None) -> IndexStats:
        """Bring the index up to date: index added and changed files, drop removed ones."""
        with self._mutex:
            return self._guarded(lambda: self._refresh(progress, False))

    def rebuild(self, progress: Progress | None = None) -> IndexStats:
        """Forget everything and index the whole workspace again."""
        with self._mutex:
            return self._guarded(lambda: self._refresh(progress, True))

    def ensure_built(self, progress: Progress | None = None) -> IndexStats | None:
        """Build on first use; an index built before is used as it is (None)."""
        return None if self.built else self.refresh(progress)

    def _guarded(self, work: Callable[[], IndexStats]) -> IndexStats:
        try:
            return work()
        except sqlite3.DatabaseError:  # damaged under us (disk, another program): start over once
            self._store.rollback()
            with self._store.locked():
                self._store.reset()
            return work()

    def _refresh(self, progress: Progress | None, rebuild: bool) -> IndexStats:
        started = time.perf_counter()
        with self._store.locked():
            rebuilt = rebuild or not self._store.current() or self._store.rebuilt
            if rebuild or not self._store.current():
                self._store.reset()
            self._store.rebuilt = False
            listing = self._ws.list_tree(".", _WALK_DEPTH, files_only=True)
            known = self._store.file_states()
            entries = {e.rel: e for e in listing.entries}
            todo = [e for e in entries.values() if _state(e) != known.get(e.rel, (0, None))[1]]
            gone = [file_id for rel, (file_id, _) in known.items() if rel not in entries]
            self._write(todo, gone, known, progress)
        files, chunks = self._store.counts()
        seconds = time.perf_counter() - started
        return IndexStats(files, chunks, seconds, len(todo), len(gone), rebuilt, listing.truncated)

    def _write(self, todo: list[Entry], gone: list[int], known: dict, progress: Progress | None) -> None:
        self._store.begin()
        try:
            for file_id in gone:
                self._store.remove_file(file_id)
            self._write_files(todo, known, progress)
            self._store.mark_complete()
            self._store.commit()
        except BaseException:
            self._store.rollback()
            raise

    def _write_files(self, todo: list[Entry], known: dict, progress: Progress | None) -> None:
        """Replace each changed file's rows, committing every index_commit_files files."""
        limits = _limits(self._settings)
        step = self._settings.index_commit_files
        for done, entry in enumerate(todo, 1):
            if entry.rel in known:
                self._store.remove_file(known[entry.rel][0])
            self._store.add_file(entry.rel, _state(entry), self._rows(entry, limits))
            if done % step == 0:
                self._store.commit()
                self._store.begin()
            if progress is not None:
                progress(done, len(todo))

    def _rows(self, entry: Entry, limits: ChunkLimits) -> list[ChunkRow]:
        """The file's chunks as rows; a file the rules refuse, binary or too big gives none."""
        if entry.size > self._settings.index_max_file_bytes:
            return []
        try:
            doc = self._ws.read_text(entry.rel)
        except BurrowError:  # refused (secret, hard link) or gone since the walk
            return []
        if doc.binary:
            return []
        lines = doc.text.split("\n")
        lines = [ln[:-1] if ln.endswith("\r") else ln for ln in lines]
        if lines and lines[-1] == "":
            lines.pop()
        return _to_rows(entry.rel, chunk_file(entry.rel, lines, limits))

    # searching ---------------------------------------------------------------------------------
    def search(self, query: str, limit: int = 8) -> tuple[ChunkHit, ...]:
        """The chunks that best answer `query`, best first, at most `limit` (and a few per file)."""
        with self._mutex:
            try:
                return ranking.search(self._store, query, limit, self._settings)
            except sqlite3.DatabaseError:
                return ()  # a damaged index finds nothing; the next refresh rebuilds it

    def find_symbol(self, name: str, limit: int = 20) -> tuple[ChunkHit, ...]:
        """Where `name` is defined: exact names first (any case), then names that start with it."""
        with self._mutex:
            try:
                return ranking.find_symbol(self._store, name, limit)
            except sqlite3.DatabaseError:
                return ()

    def best_chunks(
        self, question: str, token_budget: int, count_tokens: Callable[[str], int]
    ) -> tuple[ChunkHit, ...]:
        """The best chunks for a question that fit in `token_budget` tokens (first prompt)."""
        hits = self.search(question, self._settings.search_code_max_results)
        return ranking.fit_budget(hits, token_budget, count_tokens)


def _fingerprint(settings: Settings) -> str:
    return json.dumps({k: getattr(settings, k) for k in _FINGERPRINT}, sort_keys=True)


def _limits(settings: Settings) -> ChunkLimits:
    window = settings.index_window_lines
    return ChunkLimits(
        window,
        min(settings.index_window_overlap, window // 2),
        settings.index_chunk_max_lines,
        settings.index_config_max_lines,
    )


def _state(entry: Entry) -> FileState:
    return FileState(entry.size, entry.mtime_ns, entry.inode)


def _to_rows(rel: str, chunks: list[Chunk]) -> list[ChunkRow]:
    where = " ".join(path_terms(rel))
    named: set[str] = set()
    rows: list[ChunkRow] = []
    for c in chunks:
        names = _definition_names(c, named) + [(n.lower(), False) for n in c.names]
        head = term_string(c.symbol + " " + " ".join(c.names))
        rows.append(ChunkRow(c.start, c.end, c.kind.value, c.symbol, c.text, head, where, term_string(c.doc),
                             term_string(c.text), tuple(names)))
    return rows


def _definition_names(c: Chunk, named: set[str]) -> list[tuple[str, bool]]:
    """The names a chunk defines (qualified and bare), only for the first chunk of its symbol."""
    if c.kind not in _DEFINITIONS or not c.symbol or c.symbol in named:
        return []
    named.add(c.symbol)  # a long definition's later windows are not where it is defined
    bare = c.symbol.rsplit(".", 1)[-1]
    return [(c.symbol.lower(), True)] + ([(bare.lower(), True)] if bare != c.symbol else [])

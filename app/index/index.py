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
from app.index.terms import name_term, path_terms, term_string
from app.index.values import SKIP_WORDS, Chunk, ChunkHit, ChunkKind, IndexStats, Progress
from app.paths import app_paths
from app.settings import Settings
from app.workspace import Entry, Listing, MissingPathError, UnreadablePathError, Workspace
from app.workspace.values import split_lines

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
    def refresh(self, progress: Progress | None = None, waiting: Progress | None = None) -> IndexStats:
        """Bring the index up to date: index added and changed files, drop removed ones. While
        another process is indexing this workspace, `waiting` hears how far that one is."""
        with self._mutex:
            return self._guarded(lambda: self._refresh(progress, False, waiting))

    def rebuild(self, progress: Progress | None = None, waiting: Progress | None = None) -> IndexStats:
        """Forget everything and index the whole workspace again."""
        with self._mutex:
            return self._guarded(lambda: self._refresh(progress, True, waiting))

    def _guarded(self, work: Callable[[], IndexStats]) -> IndexStats:
        try:
            return work()
        except sqlite3.DatabaseError:  # damaged under us (disk, another program): start over once
            self._store.rollback()
            with self._store.locked():
                self._store.reset()
            return work()

    def _refresh(self, progress: Progress | None, rebuild: bool, waiting: Progress | None = None) -> IndexStats:
        started = time.perf_counter()
        with self._store.locked(waiting):
            rebuilt = rebuild or not self._store.current() or self._store.rebuilt
            if rebuild or not self._store.current():
                self._store.reset()
            self._store.rebuilt = False
            listing = self._ws.list_tree(".", _WALK_DEPTH, files_only=True)
            known = self._store.file_states()
            entries = {e.rel: e for e in listing.entries}
            changed = [e for e in entries.values() if _state(e) != known.get(e.rel, (0, None))[1]]
            # a chmod changes neither size nor mtime: files unreadable last time are tried again
            retry = [entries[r] for r in self._store.skipped_paths("unreadable") - {e.rel for e in changed}
                     if r in entries]
            gone = [file_id for rel, (file_id, _) in known.items() if rel not in entries]
            self._write(changed + retry, gone, known, progress)
            skipped = _skipped(listing, self._store.skipped_counts())
        files, chunks = self._store.counts()
        seconds = time.perf_counter() - started
        return IndexStats(files, chunks, seconds, len(changed), len(gone), rebuilt, listing.truncated,
                          skipped, listing.skipped_folders, paths=tuple(e.rel for e in listing.entries))

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
            self._store.add_file(entry.rel, _state(entry), *self._rows(entry, limits))
            if done % step == 0:
                self._store.commit()
                self._store.begin()
            self._store.note_progress(done, len(todo))  # for a process waiting for the lock
            if progress is not None:
                progress(done, len(todo))

    def _rows(self, entry: Entry, limits: ChunkLimits) -> tuple[list[ChunkRow], str]:
        """The file's chunks as rows, and why there are none (a key of SKIP_WORDS) when it is
        too big, unreadable, refused by the rules or binary ('' when it is gone or empty)."""
        if entry.size > self._settings.index_max_file_bytes:
            return [], "too_big"
        try:
            doc = self._ws.read_text(entry.rel)
        except UnreadablePathError:
            return [], "unreadable"
        except MissingPathError:  # gone since the walk: the next refresh drops it
            return [], ""
        except BurrowError:  # refused by the rules (hard link, special file)
            return [], "refused"
        if doc.binary:
            return [], "binary"
        return _to_rows(entry.rel, chunk_file(entry.rel, split_lines(doc.text), limits)), ""

    # searching ---------------------------------------------------------------------------------
    def search(self, query: str, limit: int = 8, references: int = 0) -> tuple[ChunkHit, ...]:
        """The chunks that best answer `query`, best first, at most `limit` (and a few per file);
        the first `references` of them followed by the definitions they use (one hop)."""
        with self._mutex:
            try:
                return ranking.search(self._store, query, limit, self._settings, references)
            except sqlite3.DatabaseError:
                return ()  # a damaged index finds nothing; the next refresh rebuilds it

    def find_symbol(self, name: str, limit: int = 20) -> tuple[ChunkHit, ...]:
        """Where `name` is defined: exact names first (any case), then names that start with it."""
        with self._mutex:
            try:
                return ranking.find_symbol(self._store, name, limit)
            except sqlite3.DatabaseError:
                return ()

    def definition_names(self, limit: int = 50000) -> tuple[tuple[str, str], ...]:
        """(path, qualified name) of every class, function and method chunk: what the symbol table
        knows is defined where, for a "which file defines the JSON formatter?" check."""
        with self._mutex:
            try:
                rows = self._store.execute(
                    "SELECT f.path, c.symbol FROM chunks c JOIN files f ON f.id = c.file_id "
                    "WHERE c.symbol != '' AND c.kind IN (?, ?, ?) ORDER BY f.path, c.start LIMIT ?",
                    (ChunkKind.CLASS.value, ChunkKind.FUNCTION.value, ChunkKind.METHOD.value, limit))
            except sqlite3.DatabaseError:
                return ()
        return tuple((path, symbol) for path, symbol in rows)

    def mentions(self, name: str, limit: int = 200) -> tuple[ChunkHit, ...]:
        """Chunks whose code holds `name` as a term (as the index split it: `cfg.load_config(x)`
        holds `load_config`), in file order, without a score: where a name is used or called."""
        term = name_term(name)
        if not term:
            return ()
        with self._mutex:
            try:
                rows = self._store.execute(
                    "SELECT f.path, c.start, c.end, c.kind, c.symbol, c.text FROM fts "
                    "JOIN chunks c ON c.id = fts.rowid JOIN files f ON f.id = c.file_id "
                    "WHERE fts MATCH ? ORDER BY f.path, c.start LIMIT ?",
                    ('body:"' + term.replace('"', '""') + '"', limit))
            except sqlite3.DatabaseError:
                return ()
        return tuple(ChunkHit(p, s, e, ChunkKind(k), sym, 0.0, text) for p, s, e, k, sym, text in rows)


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


def _skipped(listing: Listing, in_store: dict[str, int]) -> tuple[tuple[str, int], ...]:
    """Per reason, what the walk left out and the files the index holds without text."""
    counts = {k: listing.hidden.get(k) + in_store.get(k, 0) for k in SKIP_WORDS}
    return tuple((k, n) for k, n in counts.items() if n)


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

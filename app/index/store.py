"""The index on disk: one SQLite file per workspace (FTS5 for ranking, plain tables for the rest).

Concurrency: WAL lets readers search while a writer refreshes; writers take an exclusive lock on
a file beside the database, so two Burrow processes never interleave their changes. The writer
keeps its progress in that file, so a process waiting for the lock can say how far the other one
is (it polls every LOCK_POLL_S; opening a store never waits for the lock). A database
that cannot be read, or one written by another schema or other settings, is deleted and rebuilt
under that lock: the index is a cache, and losing it costs one build, never an error.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sqlite3
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

SCHEMA_VERSION = "13"  # also when the terms or the chunker's definitions change (13: long configs cut at tables)
# Our terms are lowercase words, identifiers with '_' and dotted names: FTS5 must keep them whole.
_TOKENIZER = "unicode61 remove_diacritics 2 tokenchars '_.'"
# How often a process waiting for another one's index lock looks again (and reports its progress):
# a refresh of an unchanged tree takes ~0.3 s, so a longer wait would mostly be idle.
LOCK_POLL_S = 0.2
_PROGRESS_BYTES = 32  # "done total" at the start of the lock file, padded
Waiting = Callable[[int, int], None]  # (files the other process has done, files it has to do)
_SCHEMA = f"""
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE files(id INTEGER PRIMARY KEY, path TEXT UNIQUE NOT NULL, size INTEGER NOT NULL,
                   mtime_ns INTEGER NOT NULL, inode INTEGER NOT NULL, skipped TEXT NOT NULL DEFAULT '');
CREATE TABLE chunks(id INTEGER PRIMARY KEY, file_id INTEGER NOT NULL, start INTEGER NOT NULL,
                    end INTEGER NOT NULL, kind TEXT NOT NULL, symbol TEXT NOT NULL,
                    text TEXT NOT NULL);
CREATE INDEX chunks_by_file ON chunks(file_id);
CREATE TABLE symbols(name TEXT NOT NULL, chunk_id INTEGER NOT NULL, exact INTEGER NOT NULL);
CREATE INDEX symbols_by_name ON symbols(name);
CREATE INDEX symbols_by_chunk ON symbols(chunk_id);
CREATE VIRTUAL TABLE fts USING fts5(symbols, path, doc, body, tokenize="{_TOKENIZER}");
CREATE VIRTUAL TABLE vocab USING fts5vocab(fts, row);
"""


@dataclass(frozen=True)
class FileState:
    """What a file looked like when it was indexed; any difference means read it again."""

    size: int
    mtime_ns: int
    inode: int


@dataclass(frozen=True)
class ChunkRow:
    """A chunk ready to store: its place, its text and its terms per FTS column."""

    start: int
    end: int
    kind: str
    symbol: str
    text: str
    symbols: str  # space-separated terms, one string per FTS column
    path: str
    doc: str
    body: str
    names: tuple[tuple[str, bool], ...]  # (lowercased name, exact) for the symbol table


def database_path(data_dir: Path, root: Path) -> Path:
    """One file per workspace, named by a hash of its resolved path (and its name, for people)."""
    digest = hashlib.sha256(os.fsencode(str(root))).hexdigest()[:20]
    safe = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in root.name)[:40] or "root"
    return data_dir / "index" / f"{safe}-{digest}.sqlite3"


class Store:
    """The SQL of the index. Not thread-safe by itself: CodeIndex serialises calls."""

    def __init__(self, path: Path | None, fingerprint: str) -> None:
        self.path = path  # None: in memory (the data dir lies inside the workspace)
        self._fingerprint = fingerprint
        self._conn = self._connect()
        self._lock_fd = -1  # the lock file while this store holds the lock
        self.rebuilt = self._prepare()

    # opening -----------------------------------------------------------------------------------
    def _connect(self) -> sqlite3.Connection:
        target = ":memory:" if self.path is None else str(self.path)
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(target, timeout=60.0, isolation_level=None, check_same_thread=False)
        self._inode = _inode(self.path)
        self._chunk_count: tuple[tuple[int, int], int] | None = None  # ((changes, data_version), count)
        with contextlib.suppress(sqlite3.DatabaseError):  # not a database: current() says so
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
        return conn

    def _prepare(self) -> bool:
        """Make the schema current; True when it had to start from nothing. Never waits: while
        another process holds the lock, the next refresh resets it (it takes the lock, reporting)."""
        if self.current():
            return False
        with self.locked(wait=False) as held:
            if held and not self.current():  # another process may have rebuilt it meanwhile
                self.reset()
                return True
        return False

    def current(self) -> bool:
        """The file is a readable database of this schema, built with these settings."""
        try:
            return (
                self._meta("schema") == SCHEMA_VERSION
                and self._meta("settings") == self._fingerprint
            )
        except sqlite3.DatabaseError:
            return False

    @property
    def complete(self) -> bool:
        """A build has finished at least once (else a search would see a partial index)."""
        try:
            return self.current() and self._meta("complete") == "1"
        except sqlite3.DatabaseError:
            return False

    def _meta(self, key: str) -> str | None:
        row = self._conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def reset(self) -> None:
        """Delete the database and start an empty one (call with the lock held)."""
        self._conn.close()
        if self.path is not None:
            for suffix in ("", "-wal", "-shm"):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(f"{self.path}{suffix}")
        self._conn = self._connect()
        self._conn.executescript(_SCHEMA)
        self._conn.executemany(
            "INSERT INTO meta VALUES (?, ?)",
            [("schema", SCHEMA_VERSION), ("settings", self._fingerprint)],
        )

    def close(self) -> None:
        self._conn.close()

    # locking -----------------------------------------------------------------------------------
    @contextlib.contextmanager
    def locked(self, waiting: Waiting | None = None, wait: bool = True) -> Iterator[bool]:
        """Exclusive across processes; reconnects when another process replaced the file. While
        another process holds it, `waiting` hears that one's progress; with wait=False it yields
        False at once instead of waiting (True when held)."""
        if self.path is None:
            yield True
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(f"{self.path}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            if not _lock(fd, waiting, wait):
                yield False
                return
            self._lock_fd = fd
            self.note_progress(0, 0)  # what a waiter reads until the files to do are known
            if self._replaced():
                self._conn.close()
                self._conn = self._connect()
            yield True
        finally:
            self._lock_fd = -1
            os.close(fd)  # closing the descriptor releases the lock

    def note_progress(self, done: int, total: int) -> None:
        """Tell processes waiting for the lock how far this one is (files done of files to do)."""
        if self._lock_fd >= 0:
            os.pwrite(self._lock_fd, f"{done} {total}".ljust(_PROGRESS_BYTES).encode(), 0)

    def _replaced(self) -> bool:
        return _inode(self.path) != self._inode

    # reading -----------------------------------------------------------------------------------
    def file_states(self) -> dict[str, tuple[int, FileState]]:
        rows = self._conn.execute("SELECT path, id, size, mtime_ns, inode FROM files")
        return {p: (i, FileState(s, m, n)) for p, i, s, m, n in rows}

    def skipped_counts(self) -> dict[str, int]:
        """Files kept in the index without text, per reason (binary, too_big, unreadable, ...)."""
        rows = self._conn.execute("SELECT skipped, count(*) FROM files WHERE skipped != '' GROUP BY skipped")
        return dict(rows.fetchall())

    def skipped_paths(self, reason: str) -> set[str]:
        rows = self._conn.execute("SELECT path FROM files WHERE skipped = ?", (reason,))
        return {r[0] for r in rows}

    def counts(self) -> tuple[int, int]:
        files = self._conn.execute("SELECT count(*) FROM files").fetchone()[0]
        return files, self.chunk_count()

    def chunk_count(self) -> int:
        """The number of chunks, counted again only after a write (this connection's or another's):
        a count is a scan of the table, and every search needs it."""
        version = (self._conn.total_changes, self._conn.execute("PRAGMA data_version").fetchone()[0])
        if self._chunk_count is None or self._chunk_count[0] != version:
            self._chunk_count = (version, self._conn.execute("SELECT count(*) FROM chunks").fetchone()[0])
        return self._chunk_count[1]

    def execute(self, sql: str, params: tuple = ()) -> list[tuple]:
        return self._conn.execute(sql, params).fetchall()

    # writing -----------------------------------------------------------------------------------
    def begin(self) -> None:
        self._conn.execute("BEGIN IMMEDIATE")

    def commit(self) -> None:
        self._conn.execute("COMMIT")

    def rollback(self) -> None:
        if self._conn.in_transaction:
            self._conn.execute("ROLLBACK")

    def mark_complete(self) -> None:
        self._conn.execute("INSERT OR REPLACE INTO meta VALUES ('complete', '1')")

    def remove_file(self, file_id: int) -> None:
        ids = [
            (r[0],)
            for r in self._conn.execute("SELECT id FROM chunks WHERE file_id = ?", (file_id,))
        ]
        self._conn.executemany("DELETE FROM fts WHERE rowid = ?", ids)
        self._conn.executemany("DELETE FROM symbols WHERE chunk_id = ?", ids)
        self._conn.execute("DELETE FROM chunks WHERE file_id = ?", (file_id,))
        self._conn.execute("DELETE FROM files WHERE id = ?", (file_id,))

    def add_file(self, rel: str, state: FileState, rows: list[ChunkRow], skipped: str = "") -> None:
        """A file and its chunks; `skipped` says why a file has none (binary, too_big, ...)."""
        cur = self._conn.execute(
            "INSERT INTO files(path, size, mtime_ns, inode, skipped) VALUES (?, ?, ?, ?, ?)",
            (rel, state.size, state.mtime_ns, state.inode, skipped),
        )
        if not rows:
            return
        self._add_chunks(cur.lastrowid, rows)

    def _add_chunks(self, file_id: int, rows: list[ChunkRow]) -> None:
        first = self._conn.execute("SELECT coalesce(max(id), 0) + 1 FROM chunks").fetchone()[0]
        ids = range(first, first + len(rows))  # chosen here: one executemany per table, not a call per row
        self._conn.executemany(
            "INSERT INTO chunks VALUES (?, ?, ?, ?, ?, ?, ?)",
            [(i, file_id, r.start, r.end, r.kind, r.symbol, r.text) for i, r in zip(ids, rows, strict=True)],
        )
        self._conn.executemany(
            "INSERT INTO fts(rowid, symbols, path, doc, body) VALUES (?, ?, ?, ?, ?)",
            [(i, r.symbols, r.path, r.doc, r.body) for i, r in zip(ids, rows, strict=True)],
        )
        self._conn.executemany(
            "INSERT INTO symbols VALUES (?, ?, ?)",
            [(n, i, int(exact)) for i, r in zip(ids, rows, strict=True) for n, exact in r.names],
        )


def _inode(path: Path | None) -> int:
    try:
        return os.stat(path).st_ino if path is not None else 0
    except FileNotFoundError:
        return -1


def _lock(fd: int, waiting: Waiting | None, wait: bool) -> bool:
    """Take the lock; while another process holds it, report its progress every LOCK_POLL_S.
    False only when wait=False and the lock is taken."""
    try:
        import fcntl
    except ImportError:  # Windows: msvcrt locks a byte range (no progress is reported there)
        import msvcrt

        while True:
            with contextlib.suppress(OSError):
                msvcrt.locking(fd, msvcrt.LK_LOCK if wait else msvcrt.LK_NBLCK, 1)
                return True
            if not wait:
                return False
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if not wait:
                return False
        if waiting is not None:
            waiting(*_read_progress(fd))
        time.sleep(LOCK_POLL_S)


def _read_progress(fd: int) -> tuple[int, int]:
    """The lock holder's (done, total); (0, 0) while it lists files or before it wrote any."""
    try:
        done, total = os.pread(fd, _PROGRESS_BYTES, 0).split()[:2]
        return int(done), int(total)
    except (OSError, ValueError):
        return 0, 0

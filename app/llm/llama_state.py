"""The prompt prefix every question shares, evaluated once per model and kept on disk.

Every first prompt starts with the same text: the chat template's opening, the system prompt, the
tool schemas and, within one workspace, its layout (often most of the prompt's tokens). The
backend evaluates that prefix once per loaded model and keeps the KV cache of sequence 0 for it
in the cache dir; a restart loads it (milliseconds) instead of evaluating it again.

A prefix with a scope (the workspace) has one file per (model, context settings, scope): a
changed layout overwrites it instead of adding files. Every file starts with the digest of the
exact tokens it holds, so a stale one (the layout changed) is never loaded. An unscoped prefix
(the system text alone) is keyed by its tokens as well. Part of the llama-cpp backend: only it
and llama_backend import llama_cpp.
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import logging
import os
from pathlib import Path
from typing import Any

from app.paths import app_paths
from app.storage import atomic_write_bytes

log = logging.getLogger(__name__)

STATE_FORMAT = 2  # bump when the file layout changes: older files are then ignored
_SEQ = 0
_DIGEST_BYTES = 32  # each file starts with the sha256 of the tokens its state holds
# A state is ~28 KB per token with the 1.5B default (3-10 MB for system text and layout): one per
# workspace would grow without end, so only the most recently used ones are kept.
KEPT_STATES = 16


def state_file(model_path: str, tokens: list[int], context: dict[str, Any], scope: str = "") -> Path:
    """Where the KV state of this prefix of this model file is kept: one file per scope (its
    tokens may change), else one per exact token list."""
    stat = Path(model_path).stat()
    key = json.dumps([STATE_FORMAT, str(Path(model_path).resolve()), stat.st_size, stat.st_mtime_ns,
                      context, ["scope", scope] if scope else tokens])
    digest = hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]
    return app_paths().cache_dir / "prefix-states" / f"{digest}.kv"


def _tokens_digest(tokens: list[int]) -> bytes:
    return hashlib.sha256(json.dumps(tokens).encode("ascii")).digest()


def save_state(llm: Any, file: Path, tokens: list[int]) -> None:
    """Write sequence 0's KV cache (llm has evaluated exactly `tokens`) to file, atomically."""
    import llama_cpp

    ctx = llm._ctx.ctx
    size = llama_cpp.llama_state_seq_get_size(ctx, _SEQ)
    buffer = (ctypes.c_uint8 * size)()
    written = llama_cpp.llama_state_seq_get_data(ctx, buffer, size, _SEQ)
    try:
        atomic_write_bytes(file, _tokens_digest(tokens) + bytes(buffer)[:written])
        _forget_old_states(file.parent)
    except OSError as exc:  # a cache: a full disk costs the next start some seconds, nothing else
        log.warning("could not keep the prompt prefix state in %s: %s", file, exc)


def load_state(llm: Any, file: Path, tokens: list[int]) -> bool:
    """Put a saved prefix back into an empty context; False (context left empty) when the file is
    missing, holds other tokens (a workspace whose layout changed) or llama.cpp refuses it."""
    import llama_cpp

    try:
        data = file.read_bytes()
    except OSError:
        return False
    if data[:_DIGEST_BYTES] != _tokens_digest(tokens):
        return False
    data = data[_DIGEST_BYTES:]
    llm.reset()
    buffer = (ctypes.c_uint8 * len(data)).from_buffer_copy(data)
    if llama_cpp.llama_state_seq_set_data(llm._ctx.ctx, buffer, len(data), _SEQ) <= 0:  # 0: refused
        llm._ctx.kv_cache_seq_rm(-1, 0, -1)
        llm.reset()
        return False
    llm.input_ids[: len(tokens)] = tokens
    llm.n_tokens = len(tokens)
    try:
        os.utime(file)  # used now: the last to be forgotten
    except OSError:
        pass
    return True


def _forget_old_states(folder: Path) -> None:
    """Delete all but the KEPT_STATES most recently used state files (a cache: a deleted one only
    costs its workspace's next question the prefix's evaluation)."""
    def used(file: Path) -> float:
        try:
            return file.stat().st_mtime
        except OSError:
            return 0.0

    for old in sorted(folder.glob("*.kv"), key=used, reverse=True)[KEPT_STATES:]:
        old.unlink(missing_ok=True)

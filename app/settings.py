"""User settings: one pydantic model, saved as JSON in the config dir.

Every limit the tools, the loop and the model use lives here with a default, so nothing is a magic
number somewhere else. A broken settings file never stops the app: it is set aside as a backup and
the defaults are used.
"""

from __future__ import annotations

import json
import logging
import os
import time
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from app.errors import SettingsError
from app.storage import atomic_write_text

log = logging.getLogger(__name__)


def _physical_cores() -> int:
    """llama.cpp runs best on physical cores; without psutil, assume 2-way SMT above 4 CPUs."""
    try:
        import psutil  # optional (a dev dependency): knows the real count

        if n := psutil.cpu_count(logical=False):
            return int(n)
    except ImportError:
        pass
    logical = os.cpu_count() or 1
    return max(1, logical // 2) if logical > 4 else logical


class ToolPolicy(str, Enum):
    """How a model may use the tools for its first answer (see Settings.tool_policy)."""

    AUTO = "auto"  # the model's measured best, else its dialect's default
    RETRIEVAL = "retrieval"  # no tools: it answers from the first prompt's index chunks
    OFFERED = "offered"  # it may call them
    FIRST_CALL = "first_call"  # its first turn must be one valid call

    def __str__(self) -> str:  # as run labels and the eval print it
        return self.value


class Settings(BaseModel):
    model_config = ConfigDict(extra="ignore", validate_assignment=True)

    # model runtime
    model_path: str | None = Field(None, description="GGUF file to use; None means the default model")
    n_ctx: int = Field(8192, ge=512, le=262144, description="context size in tokens")
    n_threads: int = Field(default_factory=_physical_cores, ge=1, le=256)
    n_batch: int = Field(512, ge=16, le=8192)
    decode_threads: int = Field(0, ge=0, le=256, description="threads generating each token; 0: half "
                                "of n_threads (cpu_backends.generation_threads)")
    time_decode_threads: bool = Field(False, description="time half and all of n_threads while "
                                      "generating and keep the faster (app/llm/decode_threads.py); "
                                      "off: with OpenMP waiting passively the gain was small")
    flash_attn: bool = Field(True, description="llama.cpp's fused attention: prompts ~6% faster on CPU "
                             "with the 1.5B default (docs/eval.md)")
    use_mmap: bool = True
    temperature: float = Field(0.2, ge=0.0, le=2.0)
    max_answer_tokens: int = Field(768, ge=16, le=32768)
    seed: int = Field(1234)
    answer_samples: int = Field(0, ge=0, le=4, description="answers sampled again from the first "
                                "prompt (cached) to see whether the model says the same (0: off)")
    sample_temperature: float = Field(0.7, gt=0.0, le=2.0)

    # agent loop
    max_steps: int = Field(8, ge=1, le=100, description="step budget: model turns per question")
    context_reserve_tokens: int = Field(1024, ge=64, description="kept free for the reply")
    intro_readme_lines: int = Field(30, ge=0, le=1000, description="README lines put in the first prompt")
    repeat_guard_chars: int = Field(
        60, ge=0, le=10000, description="stop a reply whose last N chars already appeared (0: off)")
    tool_policy: ToolPolicy = Field(
        ToolPolicy.AUTO, description="how the model may use tools: retrieval = none (it answers from the "
        "first prompt's index chunks), offered = it may call them, first_call = its first turn "
        "must be one valid call; auto = the model's measured best (models/catalog.json 'policy'), "
        "else retrieval for models without native tool calls and offered for the others")
    known_paths_max: int = Field(300, ge=0, le=100000, description="paths offered to a path grammar")
    max_evidence_citations: int = Field(5, ge=1, le=100, description="sources listed under an answer, at most")
    verify_max_names: int = Field(
        12, ge=0, le=200, description="file and symbol names of an answer checked against the workspace")
    verify_paths_max: int = Field(
        20000, ge=0, le=1_000_000, description="files listed to check the paths an answer names")
    force_answer_after_read: Literal["auto", "always", "never"] = Field(
        "auto", description="force the answer after the first good read; auto: for models without native tools")
    second_stage: bool = Field(
        False, description="when the first answer is not backed by the lines shown (or the model says they "
        "do not show it), offer the tools with a note saying what is missing, and let the model look. Off: "
        "with the 1.5B default it changed no answer on 14 tuning questions, +16 s where it started (docs/harness.md)")
    acting_max_calls: int = Field(
        2, ge=1, le=50, description="good tool calls the model may make in the second stage or a "
        "follow-up before it must answer")
    acting_read_lines: int = Field(
        60, ge=1, le=100000, description="lines one call of the second stage or a follow-up shows at most "
        "(read_file's max_lines; search_code and find_references list proportionally fewer results): a "
        "200-line read cost ~60 s of prompt on 2 cores and a small model copied it out as its answer")

    # workspace rules
    secrets_policy: bool = Field(True, description="refuse files that look like credentials")
    allow_hardlinks: bool = Field(False, description="read regular files with more than one link")
    respect_gitignore: bool = True

    # tool output limits
    read_max_lines: int = Field(200, ge=1, le=100000)
    read_max_bytes: int = Field(16000, ge=256, le=10_000_000)
    read_max_line_chars: int = Field(400, ge=40, le=100000)
    list_max_entries: int = Field(200, ge=1, le=100000)
    find_max_results: int = Field(100, ge=1, le=100000)
    search_max_results: int = Field(50, ge=1, le=100000)
    search_max_per_file: int = Field(10, ge=1, le=100000)
    search_timeout_s: float = Field(10.0, gt=0, le=600)
    walk_max_entries: int = Field(50000, ge=100, description="stop walking a huge tree after this many entries")
    max_path_chars: int = Field(1024, ge=64, le=4096)
    file_scan_max_bytes: int = Field(
        32 * 1024 * 1024, ge=4096, description="read/search at most this much of one file; larger files say so"
    )

    # inference server (an OpenAI-compatible server the user already runs: docs/server.md)
    server_url: str | None = Field(None, description="base URL, e.g. http://127.0.0.1:11434/v1; "
                                   "None: the in-process model")
    server_model: str | None = Field(None, description="the server's model id; None: its first")
    server_allowed_host: str | None = Field(
        None, description="the one non-loopback host a server may be on; the network guard lets "
        "through exactly this host at the server URL's port (None: loopback only)")
    server_timeout_s: float = Field(120.0, gt=0, le=3600,
                                    description="a turn fails after this long without a byte")
    server_connect_timeout_s: float = Field(5.0, gt=0, le=120)
    server_discovery_ports: tuple[int, ...] = Field(
        (11434, 1234, 8080), description="loopback ports probed for servers: Ollama, LM Studio, "
        "llama-server")
    server_discovery_timeout_s: float = Field(0.5, gt=0, le=30,
                                              description="per probe; a server that is down is absent")

    # code index (app/index): one SQLite FTS5 file per workspace in the data dir
    index_max_file_bytes: int = Field(1_000_000, ge=1024, description="larger files: not indexed")
    index_window_lines: int = Field(
        40, ge=4, le=2000, description="lines per window of plain text and module-level code")
    index_window_overlap: int = Field(8, ge=0, le=1000, description="lines windows share")
    index_chunk_max_lines: int = Field(
        120, ge=4, le=5000, description="a longer definition or section is split into windows")
    index_config_max_lines: int = Field(
        150, ge=1, le=5000, description="a config file up to this long is one chunk")
    index_search_candidates: int = Field(
        200, ge=10, le=10000, description="chunks BM25 ranks before the re-ranking")
    index_max_hits_per_file: int = Field(5, ge=1, le=100, description="chunks per file in results")
    index_hit_max_lines: int = Field(60, ge=1, le=10000, description="lines shown per chunk")
    index_commit_files: int = Field(
        400, ge=1, le=100000, description="files written per transaction while building")
    search_code_max_results: int = Field(
        20, ge=1, le=200, description="the most chunks one search_code call returns")
    intro_index_tokens: int = Field(
        2000, ge=0, le=100000, description="tokens of best-ranked chunks in the first prompt (1500 "
        "with 5 chunks until wave 3's sixth session: 7 fewer right on the tuning sets; 900: fewer still; "
        "docs/eval.md)")
    intro_numbered_lines: bool = Field(
        False, description="number every line of those chunks (costs ~30% more tokens with Qwen)")
    intro_index_chunks: int = Field(
        7, ge=0, le=50, description="chunks the first prompt's index search asks for, at most")

    # app
    theme: Literal["light", "dark", "system"] = "system"


# The names a user sees for the fields the window offers (Settings dialog labels); messages about
# any other field use its name with spaces.
FIELD_LABELS = {
    "model_path": "Model", "n_ctx": "Context size", "n_threads": "Threads",
    "decode_threads": "Generation threads",
    "temperature": "Temperature", "max_steps": "Step budget", "secrets_policy": "Secrets policy",
    "theme": "Theme",
}


def field_label(name: str) -> str:
    return FIELD_LABELS.get(name, name.replace("_", " ").capitalize())


def field_bounds(name: str) -> tuple[float | None, float | None]:
    """(lowest, highest) value the Settings model accepts for a numeric field (None: no bound), so a
    widget's range is exactly what validation allows."""
    low = high = None
    for rule in Settings.model_fields[name].metadata:
        low = getattr(rule, "ge", low)
        high = getattr(rule, "le", high)
        if getattr(rule, "gt", None) is not None:
            low = rule.gt
    return low, high


@dataclass(frozen=True)
class SettingsLoad:
    """Settings read from disk, and what was wrong with the file (nothing when it was fine)."""

    settings: Settings
    reset: tuple[str, ...] = ()  # fields whose saved value was refused and is back to its default
    backup: Path | None = None  # where the file as it was is kept; None when it was fine
    unreadable: bool = False  # the file was not a JSON object at all: every field is a default


def load_settings(path: Path) -> Settings:
    """Read settings; a missing file gives defaults, a broken one is repaired (see read_settings)."""
    return read_settings(path).settings


def read_settings(path: Path) -> SettingsLoad:
    """Read settings, keeping every valid field: refused values go back to their defaults, the file
    as it was is kept as a backup (never overwriting an earlier one) and the repaired file saved."""
    if not path.exists():
        return SettingsLoad(Settings())
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        data = None
    if not isinstance(data, dict):
        return SettingsLoad(Settings(), backup=_set_aside(path), unreadable=True)
    kept, reset = _valid_fields(data)
    if not reset:
        return SettingsLoad(Settings.model_validate(kept))
    backup = _set_aside(path)
    try:
        atomic_write_text(path, json.dumps(kept, indent=2))
    except OSError as exc:
        log.warning("could not save the repaired settings: %s", exc)
    return SettingsLoad(Settings.model_validate(kept), tuple(reset), backup)


def _valid_fields(data: dict) -> tuple[dict, list[str]]:
    """(the fields Settings accepts, the names of those it refuses)."""
    try:
        Settings.model_validate(data)
        return data, []
    except ValidationError as exc:
        bad = {str(err["loc"][0]) for err in exc.errors() if err.get("loc")}
    kept = {k: v for k, v in data.items() if k not in bad}
    return kept, sorted(bad)


def _set_aside(path: Path) -> Path | None:
    """Move the file to a backup name no earlier backup has (two in one second both survive)."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    for n in range(1, 1000):
        backup = path.with_name(f"{path.name}.broken-{stamp}" + (f"-{n}" if n > 1 else ""))
        try:
            os.link(path, backup)  # fails if the name exists: an earlier backup is never replaced
        except FileExistsError:
            continue
        except OSError:
            return None
        path.unlink(missing_ok=True)
        log.warning("settings file %s had invalid values; kept the original as %s", path, backup.name)
        return backup
    return None


def save_settings(settings: Settings, path: Path) -> None:
    """Write atomically: a crash mid-write leaves the old file, never half a file."""
    atomic_write_text(path, settings.model_dump_json(indent=2))


def update_settings(settings: Settings, **changes: object) -> Settings:
    """Return a copy with changes applied, or raise SettingsError naming the bad value."""
    try:
        return Settings.model_validate({**settings.model_dump(), **changes})
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = first.get("loc", ())
        field = field_label(str(loc[0])) if loc else "Settings"
        raise SettingsError(f"{field}: {first.get('msg', 'invalid value')}") from None

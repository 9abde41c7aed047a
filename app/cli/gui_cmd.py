"""`python -m app [gui] [--workspace DIR] [--model PATH]`: open the desktop app.

Qt is imported only after the display check, so a headless machine gets a clear message instead of
a Qt platform-plugin abort.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Mapping

SMOKE_ENV = "BURROW_SMOKE_QUESTION"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--workspace", metavar="DIR", help="open this folder as the workspace")
    parser.add_argument("--model", metavar="PATH", help="load this GGUF instead of the default model")
    parser.add_argument("--smoke-question", metavar="TEXT", default=os.environ.get(SMOKE_ENV),
                        help="show the window, load the model, ask TEXT, print the answer and tool "
                             f"calls as JSON and exit (packaging check; also ${SMOKE_ENV}); runs "
                             "offscreen when there is no display")
    parser.add_argument("--timing", action="store_true",
                        help="print JSON lines: when the window showed, and the longest UI-thread "
                             "stall of each run")


def has_display(environ: Mapping[str, str], platform: str) -> bool:
    """On Linux/BSD Qt needs X11 or Wayland, unless a platform plugin is named explicitly."""
    if not platform.startswith(("linux", "freebsd", "openbsd")):
        return True
    return any(environ.get(k) for k in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"))


def run(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    if not has_display(os.environ, sys.platform):
        if not args.smoke_question:
            print("burrow: no display found (DISPLAY and WAYLAND_DISPLAY are unset), so the window "
                  "cannot open.\nAsk from the terminal instead:\n"
                  "  python -m app ask --workspace DIR \"your question\"", file=sys.stderr)
            return 2
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    from app.gui.app import LaunchOptions, launch

    return launch(LaunchOptions(workspace=args.workspace, model=args.model,
                                smoke_question=args.smoke_question, timing=args.timing,
                                started_at=started))


"""`python -m app`: the desktop app by default, or a command (ask, tool, models)."""

import sys

from app.cli.main import main

if __name__ == "__main__":
    sys.exit(main())

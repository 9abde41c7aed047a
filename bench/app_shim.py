"""`python -m bench.app_shim ARGS`: `python -m app ARGS`, with the suite's llama.cpp workaround if asked."""

from __future__ import annotations

import sys

from bench.llama_env import install_if_asked

if __name__ == "__main__":
    install_if_asked()
    from app.cli.main import main

    sys.exit(main(sys.argv[1:]))

"""The command line: argparse with one module per command, imported only when it runs."""

from __future__ import annotations

import argparse
import importlib
import sys

from app import __version__

# command name -> (module under app.cli, one-line help)
COMMANDS = {
    "gui": ("gui_cmd", "open the desktop app (the default)"),
    "ask": ("ask_cmd", "ask a question about a workspace from the terminal"),
    "tool": ("tool_cmd", "run one tool call (or a batch) against a workspace, as the model would"),
    "models": ("models_cmd", "list, describe and check GGUF models"),
    "index": ("index_cmd", "build or refresh a workspace's code index (search_code uses it)"),
}


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The full parser, or (only=NAME) one with just that command: a command's module is imported
    to build its arguments, and the window should not wait for ask's or models' imports."""
    parser = argparse.ArgumentParser(
        prog="python -m app",
        description="Burrow: ask questions about a private codebase, answered by a local model. "
        "Nothing leaves this machine.",
    )
    parser.add_argument("--version", action="version", version=f"burrow {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module, help_text) in COMMANDS.items():
        if only is not None and name != only:
            continue
        p = sub.add_parser(name, help=help_text, description=help_text)
        _command_module(module).add_arguments(p)
    return parser


def _command_module(module: str):
    return importlib.import_module(f"app.cli.{module}")


def main(argv: list[str] | None = None) -> int:
    from app.netguard import install_network_guard

    install_network_guard()  # before any command runs: Burrow never reaches the network
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or (argv[0].startswith("-") and argv[0] not in ("-h", "--help", "--version")):
        argv.insert(0, "gui")
    only = argv[0] if argv[0] in COMMANDS else None
    args = build_parser(only).parse_args(argv)
    module = _command_module(COMMANDS[args.command][0])
    try:
        return int(module.run(args) or 0)
    except KeyboardInterrupt:
        print("\nstopped", file=sys.stderr)
        return 130

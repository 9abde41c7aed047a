"""`python -m app models`: list the default and discovered models, describe one, test-load one,
or install one from the catalog.

`models --server URL` lists the models of an OpenAI-compatible inference server instead.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from pathlib import Path

from app.errors import BurrowError
from app.llm.base import ModelInfo


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", nargs="?", choices=("list", "info", "check", "install"),
                        default="list",
                        help="list (default): the default model and GGUF files found on disk; "
                        "info PATH: describe a file from its header; check PATH: load it and say "
                        "so; install NAME: download a catalog model into your models folder")
    parser.add_argument("path", nargs="?",
                        help="a .gguf file (for info and check) or a catalog name (for install)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument("--server", metavar="URL", help="list the models of this inference server "
                        "(e.g. http://127.0.0.1:11434/v1) instead of GGUF files")


def run(args: argparse.Namespace) -> int:
    try:
        if args.server:
            return _list_server(args.server, args.json)
        if args.action == "list":
            return _list(args.json)
        if not args.path:
            what = "a catalog model name" if args.action == "install" else "the path of a .gguf file"
            print(f"models {args.action}: give {what}", file=sys.stderr)
            return 2
        return _on_path(args)
    except BurrowError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1


def _on_path(args: argparse.Namespace) -> int:
    """install, info or check, on the model name or file given."""
    if args.action == "install":
        from app.cli.models_install import install

        return install(args.path)
    if args.action == "info":
        return _info(Path(args.path), args.json)
    return _check(Path(args.path), args.json)


def _row(info: ModelInfo) -> list[str]:
    return [info.name, info.size_text, info.parameters, info.quantization,
            str(info.context_length or "?"), info.dialect, info.source, info.path]


def _table(rows: list[list[str]]) -> str:
    head = ["NAME", "SIZE", "PARAMS", "QUANT", "CONTEXT", "DIALECT", "SOURCE", "PATH"]
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(r, widths, strict=True)).rstrip() for r in [head, *rows]]
    return "\n".join(lines)


def _public(info: ModelInfo) -> dict:
    data = asdict(info)
    data["chat_template"] = bool(info.chat_template)  # the full template is noise in a listing
    return data


def _list(as_json: bool) -> int:
    from app.llm.catalog import discover_models

    models = discover_models()
    if as_json:
        print(json.dumps([_public(m) for m in models], indent=1))
    elif not models:
        print("No models found. Run `make setup` to install the default model, or put .gguf files "
              "in the models folder.")
    else:
        print(_table([_row(m) for m in models]))
    return 0


def _list_server(url: str, as_json: bool) -> int:
    from app.llm.server_backend import check_allowed
    from app.llm.server_discovery import server_model_infos
    from app.llm.server_http import parse_server_url
    from app.paths import app_paths
    from app.settings import load_settings

    settings = load_settings(app_paths().settings_file)
    address = parse_server_url(url)
    check_allowed(address, settings)
    models = server_model_infos(address, settings.server_connect_timeout_s)
    if as_json:
        print(json.dumps([_public(m) for m in models], indent=1))
    elif not models:
        print(f"The server at {address.base_url} has no models loaded.")
    else:
        print(_table([_row(m) for m in models]))
    return 0


def _info(path: Path, as_json: bool) -> int:
    from app.llm.catalog import describe_model

    info = describe_model(path, "user")
    if as_json:
        print(json.dumps(_public(info), indent=1))
        return 0
    for label, value in (("name", info.name), ("path", info.path), ("size", info.size_text),
                         ("architecture", info.architecture), ("parameters", info.parameters),
                         ("quantization", info.quantization), ("context", info.context_length),
                         ("dialect", info.dialect),
                         ("chat template", "yes" if info.chat_template else "none (generic prompt)")):
        print(f"{label:14} {value}")
    return 0


def _check(path: Path, as_json: bool) -> int:
    from app.llm.llama_backend import load_model
    from app.paths import app_paths
    from app.settings import load_settings

    model = load_model(path, load_settings(app_paths().settings_file))
    report = {"ok": True, "name": model.name, "dialect": model.dialect_name,
              "context": model.context_length, "load_seconds": round(model.load_seconds, 3),
              "tokens_in_hello": model.count_tokens("Hello, world!")}
    if as_json:
        print(json.dumps(report, indent=1))
    else:
        print(f"OK: {model.name} loaded in {model.load_seconds:.2f}s "
              f"(dialect {model.dialect_name}, context {model.context_length} tokens)")
    return 0

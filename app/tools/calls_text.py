"""How tools write a call back to the model: `read_file(path="a.py", start_line=201)`."""

from __future__ import annotations

import json


def call_text(name: str, **arguments: object) -> str:
    """A call written exactly as the model should send it next (JSON-quoted values)."""
    args = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in arguments.items() if v is not None)
    return f"{name}({args})"


def cut_note(what: str, next_call: str) -> str:
    """Every truncation says what was cut and the exact call that gets more."""
    return f"[cut: {what}; next: {next_call}]"

"""Between model and executor: validate a proposed call, then run it. Nothing raises out of here.

CONTRACT (implemented by the workspace/tools issue):

    executor = ToolExecutor(workspace, settings)
    executor.schemas() -> list[ToolSpec]            # OpenAI-style, derived from pydantic models
    executor.run(call_id, name, raw_arguments) -> CallOutcome

A failure at any stage (unknown tool, arguments not a JSON object, pydantic refusal, execution
error) gives CallOutcome(ok=False) with a message that tells the model what to fix.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.tools.base import LineSpan


@dataclass(frozen=True)
class CallOutcome:
    call_id: str
    name: str
    raw_arguments: str
    arguments: dict[str, Any] | None  # validated arguments, None when validation failed
    ok: bool
    content: str  # exactly what the model receives
    refused: bool = False  # True when validation (not execution) failed
    seconds: float = 0.0
    spans: tuple[LineSpan, ...] = ()

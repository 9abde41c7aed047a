"""A sandboxed Jinja2 environment that renders chat templates the way Hugging Face does.

Matching transformers' environment matters: templates rely on trim_blocks/lstrip_blocks, on a
tojson that keeps non-ASCII text and accepts indent/separators, and on raise_exception and
strftime_now. There is no autoescape: user text must reach the model exactly as typed.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from typing import Any

import jinja2
from jinja2.ext import loopcontrols
from jinja2.sandbox import ImmutableSandboxedEnvironment

from app.errors import ChatTemplateError


def _raise_exception(message: str) -> None:
    raise jinja2.exceptions.TemplateError(message)


def _tojson(value: Any, ensure_ascii: bool = False, indent: int | None = None,
            separators: tuple[str, str] | None = None, sort_keys: bool = False) -> str:
    return json.dumps(value, ensure_ascii=ensure_ascii, indent=indent,
                      separators=separators, sort_keys=sort_keys)


def make_environment(now: Callable[[], datetime]) -> ImmutableSandboxedEnvironment:
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True,
                                        extensions=[loopcontrols])
    env.filters["tojson"] = _tojson
    env.globals["raise_exception"] = _raise_exception
    env.globals["strftime_now"] = lambda fmt: now().strftime(fmt)
    return env


def compile_template(source: str, now: Callable[[], datetime]) -> jinja2.Template:
    """Compile a chat template; a broken one raises ChatTemplateError, not a Jinja traceback."""
    try:
        return make_environment(now).from_string(source)
    except jinja2.exceptions.TemplateError as exc:
        raise ChatTemplateError(f"The model's chat template does not compile: {exc}") from exc


def render_template(template: jinja2.Template, **variables: Any) -> str:
    try:
        return template.render(**variables)
    except jinja2.exceptions.TemplateError as exc:
        raise ChatTemplateError(f"The model's chat template refused this conversation: {exc}") from exc
    except (TypeError, KeyError, AttributeError, IndexError, ValueError) as exc:
        raise ChatTemplateError(f"The model's chat template failed on this conversation: {exc!r}") from exc

"""Tool-call dialects: how each family of open models is prompted and how its calls are read.

    from app.llm.dialects import dialect_for_template
    d = dialect_for_template(template_text_or_None, bos_token="", eos_token="")
    prompt = d.render(messages, tools)          # OpenAI-style messages and tools
    reply = d.parse(raw_output)                 # ParsedReply: content, tool_calls, reasoning
"""

from app.llm.dialects.base import Dialect
from app.llm.dialects.detect import DIALECTS, dialect_by_name, dialect_class, dialect_for_template

__all__ = ["DIALECTS", "Dialect", "dialect_by_name", "dialect_class", "dialect_for_template"]

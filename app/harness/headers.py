"""The first prompt's headers, in one place: the prompt writes them (app.harness.prompts), and the
reply checks find them when a small model copies the prompt back instead of answering (the
verdict's echo test, app.harness.grounding; the stream's prompt-copy stop, app.harness.turn_guards).
A leaf module: prompts imports grounding, so grounding cannot import prompts."""

from __future__ import annotations

import re

LAYOUT_HEADER = "The project folder contains:"
INDEX_HEADER = "The parts of the project that best match the question (each as path:first-last line, then its lines):"
# The chunks' header as a small model rewrites it ("The part of the project that best matches the
# question is more_itertools/more.py:197-221"), a regular expression.
INDEX_HEADER_REWORDED = r"The parts? of the project that best match(?:es)? the question"
# A reply that holds a header, in its prose or at the start of a fenced block, repeats the prompt.
ECHOED = re.compile(f"{re.escape(LAYOUT_HEADER)}|{INDEX_HEADER_REWORDED}", re.IGNORECASE)

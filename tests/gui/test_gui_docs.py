"""The window's guide names the model the window really loads by default (the catalog's)."""

from __future__ import annotations

import re
from pathlib import Path

from app.llm.catalog import load_catalog

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "gui.md"


def test_the_guide_names_the_catalog_default_model() -> None:
    default = load_catalog().default_entry().id  # e.g. qwen2.5-coder-1.5b-instruct-q4_k_m
    named = re.findall(r"default(?: model)? \(([^)]*)", GUIDE.read_text(encoding="utf-8"), re.I)
    assert named, "docs/gui.md no longer says which model loads by default"
    for each in named:
        assert "-".join(each.lower().split()).startswith(default), each

"""A small real project written to disk for the model figures (ask, the tool loop, the GUI)."""

from __future__ import annotations

from pathlib import Path

FILES: dict[str, str] = {
    "README.md": (
        "# Larder\n\nLarder tracks what is in a kitchen pantry and when it expires.\n\n"
        "Run `python -m larder report` to list items that expire this week.\n"
        "Configuration lives in `larder/config.py`; storage is a JSON file.\n"
    ),
    "larder/__init__.py": '"""Larder: pantry inventory."""\n\n__version__ = "1.4.2"\n',
    "larder/config.py": (
        '"""Settings for Larder."""\n\nDEFAULT_STORE = "~/.larder/store.json"\n'
        "EXPIRY_WARNING_DAYS = 7\nMAX_ITEMS = 5000\n"
    ),
    "larder/store.py": (
        '"""Reading and writing the pantry store."""\n\nimport json\nfrom pathlib import Path\n\n'
        "from larder.config import DEFAULT_STORE, MAX_ITEMS\n\n\n"
        "def load_items(path: str = DEFAULT_STORE) -> list[dict]:\n"
        '    """Load every item from the JSON store."""\n'
        "    items = json.loads(Path(path).expanduser().read_text())\n"
        "    return items[:MAX_ITEMS]\n\n\n"
        "def save_items(items: list[dict], path: str = DEFAULT_STORE) -> None:\n"
        "    Path(path).expanduser().write_text(json.dumps(items, indent=2))\n"
    ),
    "larder/report.py": (
        '"""The weekly expiry report."""\n\nimport datetime as dt\n\n'
        "from larder.config import EXPIRY_WARNING_DAYS\nfrom larder.store import load_items\n\n\n"
        "def expiring_soon(today: dt.date) -> list[dict]:\n"
        "    limit = today + dt.timedelta(days=EXPIRY_WARNING_DAYS)\n"
        '    return [i for i in load_items() if dt.date.fromisoformat(i["expires"]) <= limit]\n'
    ),
    "tests/test_report.py": (
        "import datetime as dt\n\nfrom larder.report import expiring_soon\n\n\n"
        "def test_nothing_expires_in_empty_store(monkeypatch):\n"
        '    monkeypatch.setattr("larder.report.load_items", lambda: [])\n'
        "    assert expiring_soon(dt.date(2024, 1, 1)) == []\n"
    ),
}

QUESTION = "How many days before expiry does Larder warn, and where is that set?"


def write_fixture(root: Path) -> Path:
    for rel, text in FILES.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root

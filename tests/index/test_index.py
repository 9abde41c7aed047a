"""The index on real folders: workspace rules, incremental refresh, damaged databases, ranking."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from app.index import ChunkKind, CodeIndex
from app.settings import Settings
from app.workspace import Workspace
from tests.index.conftest import paths, write

ROOT = Path(__file__).resolve().parent.parent.parent
SMALL = {
    "README.md": "# Larder\n\nLarder tracks what is in a pantry.\n\n## Expiry\n\n"
    "It warns seven days ahead.\n",
    "larder/config.py": '"""Settings."""\n\nEXPIRY_WARNING_DAYS = 7\nMAX_ITEMS = 5000\n',
    "larder/store.py": "def load_items(path):\n    return []\n\n\n"
    "def save_items(items):\n    pass\n",
}


def indexed_paths(index: CodeIndex) -> set[str]:
    with sqlite3.connect(index.database) as conn:
        return {
            row[0]
            for row in conn.execute("SELECT path FROM files f JOIN chunks c ON c.file_id = f.id")
        }


def chunk_ids(index: CodeIndex, rel: str) -> list[int]:
    with sqlite3.connect(index.database) as conn:
        return [
            r[0]
            for r in conn.execute(
                "SELECT c.id FROM chunks c JOIN files f ON f.id = c.file_id "
                "WHERE f.path = ? ORDER BY c.id",
                (rel,),
            )
        ]


def test_build_then_search_and_find_symbol(make_index) -> None:
    index = make_index(SMALL)
    stats = index.refresh()
    assert (stats.files, stats.changed, stats.removed, stats.rebuilt) == (3, 3, 0, True)
    assert stats.chunks >= 5
    top = index.search("how many days before expiry does it warn", 3)
    assert top[0].path in ("larder/config.py", "README.md")
    assert "larder/config.py" in paths(top)
    (found,) = index.find_symbol("save_items")
    assert (found.path, found.start_line, found.kind) == ("larder/store.py", 5, ChunkKind.FUNCTION)
    assert [h.symbol for h in index.find_symbol("load")] == ["load_items"]  # a prefix finds it too
    assert index.find_symbol("EXPIRY_WARNING_DAYS")[0].path == "larder/config.py"


def test_the_database_is_in_the_data_dir_never_in_the_workspace(
    make_index, burrow_home: Path, tmp_path: Path
) -> None:
    index = make_index(SMALL)
    index.refresh()
    assert index.database is not None and index.database.is_relative_to(burrow_home)
    assert sorted(p.name for p in (tmp_path / "proj").rglob("*") if p.is_file()) == [
        "README.md",
        "config.py",
        "store.py",
    ]


def test_a_data_dir_inside_the_workspace_keeps_the_index_in_memory(tmp_path: Path) -> None:
    root = write(tmp_path / "ws", SMALL)
    settings = Settings()
    with Workspace(root, settings) as ws:
        index = CodeIndex.open(ws, settings, data_dir=root / "data")
        assert index.refresh().files == 3 and index.database is None
        assert index.search("expiry")
    assert not (root / "data").exists()


def test_the_workspace_rules_keep_files_out(make_index, tmp_path: Path) -> None:
    outside = write(tmp_path / "outside", {"secret_plan.py": "def outside_only():\n    pass\n"})
    files = {
        **SMALL,
        ".gitignore": "build/\n",
        "build/gen.py": "def generated_only():\n    pass\n",
        ".env": "API_TOKEN=hunter2\n",
        "id_rsa": "PRIVATE KEY\n",
        "blob.bin": b"\x00\x01binary_only\x00",
        "huge.txt": "huge_only " * 300,
        "linked.py": "def hardlinked_only():\n    pass\n",
    }
    root = write(tmp_path / "proj", files)
    os.link(root / "linked.py", tmp_path / "second-link.py")
    (root / "escape.py").symlink_to(outside / "secret_plan.py")
    index = make_index(root, index_max_file_bytes=2048)
    index.refresh()
    assert indexed_paths(index) == {
        "README.md",
        "larder/config.py",
        "larder/store.py",
        ".gitignore",
    }
    for word in (
        "generated_only",
        "hunter2",
        "PRIVATE",
        "binary_only",
        "huge_only",
        "hardlinked_only",
        "outside_only",
    ):
        assert index.search(word) == (), word


def test_refresh_touches_only_changed_added_and_removed_files(make_index, tmp_path: Path) -> None:
    index = make_index({**SMALL, "larder/extra.py": "def extra():\n    pass\n"})
    index.refresh()
    untouched = chunk_ids(index, "larder/store.py")
    root = tmp_path / "proj"
    (root / "larder/config.py").write_text("RETRY_DELAY = 3\n")
    (root / "larder/new.py").write_text("def fresh_function():\n    pass\n")
    (root / "larder/extra.py").unlink()
    seen: list[tuple[int, int]] = []
    stats = index.refresh(lambda done, total: seen.append((done, total)))
    assert (stats.changed, stats.removed, stats.files, stats.rebuilt) == (2, 1, 4, False)
    assert seen == [(1, 2), (2, 2)]
    assert chunk_ids(index, "larder/store.py") == untouched
    assert index.find_symbol("fresh_function") and not index.find_symbol("extra")
    assert index.find_symbol("RETRY_DELAY") and not index.find_symbol("MAX_ITEMS")
    assert index.refresh().changed == 0


def test_a_corrupt_database_is_rebuilt_silently(make_index) -> None:
    index = make_index(SMALL)
    index.refresh()
    db = index.database
    index.close()
    for suffix in ("-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    db.write_bytes(b"this is not a database" * 100)
    again = make_index(SMALL)
    stats = again.refresh()
    assert stats.rebuilt and stats.files == 3
    assert again.find_symbol("save_items")


def test_an_old_schema_or_other_settings_rebuild(make_index, tmp_path: Path) -> None:
    root = write(tmp_path / "proj", SMALL)
    index = make_index(root)
    index.refresh()
    with sqlite3.connect(index.database) as conn:
        conn.execute("UPDATE meta SET value = '0' WHERE key = 'schema'")
    index.close()
    stats = make_index(root).refresh()
    assert stats.rebuilt and stats.changed == 3
    assert make_index(root).refresh().changed == 0
    assert make_index(root, index_window_lines=20).refresh().rebuilt


def test_rebuild_forgets_everything(make_index) -> None:
    index = make_index(SMALL)
    index.refresh()
    stats = index.rebuild()
    assert stats.rebuilt and stats.changed == 3 and stats.files == 3


def test_ranking_on_burrows_own_source(make_index) -> None:
    """Real files: the Burrow checkout itself (the index lives in the test's BURROW_HOME)."""
    index = make_index(ROOT / "app")
    index.refresh()
    assert "workspace/workspace.py" in paths(index.search("hard links are refused", 5))
    assert index.find_symbol("Workspace")[0].path == "workspace/workspace.py"
    assert index.search("BeneathOpener", 3)[0].path == "workspace/opener.py"
    assert "workspace/secrets.py" in paths(index.search("secret file name patterns", 5))
    assert "tools/reading.py" in paths(index.search("read_file numbered lines", 5))


def test_the_chunk_count_follows_writes_of_this_index_and_of_another_process(make_index, tmp_path: Path) -> None:
    index = make_index(SMALL)
    index.refresh()
    store = index._store
    before = store.chunk_count()
    assert before == store.counts()[1] > 0
    write(tmp_path / "proj", {"larder/more.py": "def one():\n    pass\n\n\ndef two():\n    pass\n"})
    index.refresh()
    assert store.chunk_count() == store.counts()[1] > before
    other = make_index(tmp_path / "proj")  # a second connection to the same database, as another process has
    (tmp_path / "proj" / "larder/more.py").unlink()
    other.refresh()
    assert store.chunk_count() == before

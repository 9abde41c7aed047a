"""The Session: one object wires a question, and brings the code index up to date first."""

from __future__ import annotations

from pathlib import Path

from app.harness import events as ev
from app.harness.session import Session
from app.llm.scripted import ScriptedModel
from app.settings import Settings


def _project(root: Path, files: int) -> Path:
    for n in range(files):
        (root / "pkg").mkdir(parents=True, exist_ok=True)
        (root / "pkg" / f"mod{n}.py").write_text(f'def rule_{n}():\n    """Rule {n}."""\n    return {n}\n')
    return root


def test_the_index_is_refreshed_with_progress_before_the_question(tmp_path: Path) -> None:
    root = _project(tmp_path / "proj", 120)
    settings = Settings(n_threads=1)
    with Session.open(root, ScriptedModel(["Rule 7 returns 7."]), settings) as session:
        events = list(session.ask("What does rule_7 return?"))
    progress = [e for e in events if isinstance(e, ev.IndexProgress)]
    ready = [e for e in events if isinstance(e, ev.IndexReady)]
    first_run = next(i for i, e in enumerate(events) if isinstance(e, ev.RunStarted))
    assert progress and progress[-1].done == progress[-1].total == 120
    assert [p.done for p in progress] == sorted(p.done for p in progress)
    assert len(ready) == 1 and ready[0].files == 120 and ready[0].changed == 120
    assert events.index(ready[0]) < first_run  # before the question, not during it
    (root / "pkg" / "mod3.py").write_text("def rule_3():\n    return 33\n")
    with Session.open(root, ScriptedModel(["33."]), settings) as session:
        again = [e for e in session.ask("What does rule_3 return?") if isinstance(e, ev.IndexReady)]
    assert again[0].changed == 1  # only the touched file is read again


def _count_walks(monkeypatch) -> list[str]:
    """Records every walk of the whole tree (a listing deeper than one folder)."""
    from app.workspace import Workspace

    walks: list[str] = []
    real = Workspace.list_tree

    def counted(self, path=".", depth=1, **kw):
        if depth > 1:
            walks.append(path)
        return real(self, path, depth, **kw)

    monkeypatch.setattr(Workspace, "list_tree", counted)
    return walks


def test_a_question_walks_the_tree_once(tmp_path: Path, monkeypatch) -> None:
    root = _project(tmp_path / "proj", 5)
    walks = _count_walks(monkeypatch)
    model = ScriptedModel(["Rule 1 returns 1.", "Rule 2 returns 2."])
    with Session.open(root, model, Settings(n_threads=1)) as session:
        list(session.ask("What does rule_1 return?"))
        assert len(walks) == 1  # the index refresh's walk also gives the run its known paths
        (root / "pkg" / "new.py").write_text("def rule_new():\n    return 0\n")
        events = list(session.ask("What does rule_2 return?"))
    assert len(walks) == 2
    assert next(e for e in events if isinstance(e, ev.IndexReady)).changed == 1


def test_a_session_with_its_own_tools_still_refreshes_its_index(tmp_path: Path) -> None:
    from app.tools.registry import ToolRegistry, default_tools

    root = _project(tmp_path / "proj", 3)
    made: list[object] = []

    def tools(code_search) -> ToolRegistry:
        made.append(code_search)
        return default_tools(code_search)

    with Session.open(root, ScriptedModel(["Rule 1 returns 1."]), Settings(n_threads=1), tools=tools) as session:
        events = list(session.ask("What does rule_1 return?"))
    ready = [e for e in events if isinstance(e, ev.IndexReady)]
    assert len(made) == 1 and len(ready) == 1 and ready[0].files == 3
    found = next(e for e in events if isinstance(e, ev.ToolCallCompleted) and e.name == "search_code")
    assert "pkg/mod1.py" in found.content

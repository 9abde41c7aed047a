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

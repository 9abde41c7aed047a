"""The eval's chat runner with a scripted model: a follow-up is asked in the first question's
chat (its history carries the first turn), and the cache is reset once per chat, not per turn."""

from __future__ import annotations

from pathlib import Path

from app.llm.scripted import ScriptedModel
from app.settings import Settings
from bench.eval.ask import ask_chat


class CountingModel(ScriptedModel):
    """A scripted model that counts cache resets (the real backend's reset)."""

    resets = 0

    def reset(self) -> None:
        self.resets += 1


def test_a_follow_up_is_asked_in_the_first_questions_chat(tmp_path: Path) -> None:
    (tmp_path / "shapes.py").write_text("def area(w, h):\n    return w * h\n")
    model = CountingModel(["area is defined in shapes.py.", "Nothing in the project calls area."])
    first, second = ask_chat(("Where is area defined?", "Who calls it?"), tmp_path, model,
                             Settings())
    assert "shapes.py" in first.text and "Nothing" in second.text
    assert model.resets == 1 and len(model.requests) == 2
    history = [str(m.get("content", "")) for m in model.requests[1].messages]
    assert any("Where is area defined?" in c for c in history)
    assert any("area is defined in shapes.py." in c for c in history)
    assert not any("Who calls it?" in c for c in (str(m.get("content", "")) for m in model.requests[0].messages))

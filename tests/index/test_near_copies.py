"""Near copies in one file (a family of level functions) take one place among the top chunks."""

from __future__ import annotations

import pytest

from app.index import ranking

LEVELS = ("error", "warn", "info", "debug", "trace")
LOGGING = "".join(
    f'''def {level}(message, target=None):
    """Log a record at the {level} level: the call passes its target on."""
    return log({level.upper()}, message, target=target)


'''
    for level in LEVELS
) + '''def log(level, message, target=None):
    """Write a record at `level`.

    Without a target the record goes to the module that made the call.
    """
    if target is None:
        target = caller_module()
    sink = find_sink(level)
    sink.write(level, message)
    return sink
'''
FILES = {"logging_lib/levels.py": LOGGING,
         **{f"logging_lib/util_{i}.py": f"def helper_{i}(value):\n    return value * {i}\n" for i in range(12)}}
QUESTION = "What target does a log record get when the call passes no target?"


def test_one_near_copy_takes_a_place_and_the_other_chunks_get_theirs(make_index,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    index = make_index(FILES)
    index.refresh()
    top = [h.symbol for h in index.search(QUESTION, 5)]
    assert "log" in top and len(set(top) & set(LEVELS)) < 5
    monkeypatch.setattr(ranking, "NEAR_COPY_SHARE", 1.01)  # the rule off: the five copies fill the file's places
    assert sorted(h.symbol for h in index.search(QUESTION, 5)) == sorted(LEVELS)

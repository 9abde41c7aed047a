"""A long chunk counts the question's words it holds together, not scattered over its lines."""

from __future__ import annotations

import pytest

from app.index import ranking

FILLER = "\n".join(f"    buffer.append(part_{i})" for i in range(30))
FILES = {
    # named after the question's words, and it holds the other two, thirty lines apart
    "client/transport.py": f'''def follow_redirects(request):
    """Send a request, however many hops it takes."""
    for hop in request.hops:
        log(hop)
{FILLER}
    if request.stop:
        return request.last
    return request
''',
    # the lines that answer: every word of the question within three lines
    "client/options.py": '''def apply_policy(options):
    # follow at most this many redirects, then stop
    limit = options.get("max_redirects", 30)
    if limit < 0:
        raise ValueError("limit")
    options["stop_after"] = limit
    return options
''',
    **{f"client/util_{i}.py": f"def helper_{i}(value):\n    return value * {i}\n" for i in range(12)},
}
QUESTION = "How many redirects does it follow before it stops?"


def test_the_chunk_holding_the_words_together_ranks_first(make_index, monkeypatch: pytest.MonkeyPatch) -> None:
    index = make_index(FILES)
    index.refresh()
    assert [h.path for h in index.search(QUESTION, 2)] == ["client/options.py", "client/transport.py"]
    monkeypatch.setattr(ranking, "TOGETHER_CANDIDATES", 0)  # the rule off: the name and the count win
    assert [h.path for h in index.search(QUESTION, 2)] == ["client/transport.py", "client/options.py"]


def test_a_spelling_the_stem_changes_is_still_found() -> None:
    """`retry` is how the index stores "retries" and "max_retries": their lines are found by the
    stem's start, then checked term by term."""
    owner = {"retry": {"retry"}, "stop": {"stop"}}
    spelled = ranking._spellings(owner)
    text = "def policy(options):\n    # at most this many retries\n    limit = options.max_retries\n    stop(limit)\n"
    assert ranking._best_window({"retry": 2.0, "stop": 1.0}, set(), text, owner, spelled) == 3.0

"""The model's certainty of its claims, and how it weighs on the verdict (no model: token lists as
the in-process backend reports them)."""

from __future__ import annotations

import math

from app.harness.certainty import SURE, Certainty, least_certain
from app.harness.events import AnswerCompleted
from app.harness.prompts import verdict_detail
from app.harness.records import event_from_dict, event_to_dict
from app.harness.verdict import Support, judge
from app.llm.base import Usage
from app.values import LineSpan

QUESTION = "What is the default etag?"
ANSWER = "The default etag is `weak`."
LINES = {LineSpan("lib/app.js", 80, 80): "  this.set('etag', 'weak');",
         LineSpan("lib/app.js", 81, 81): "  this.set('env', env);"}


def tokens(value_logprob: float) -> tuple[tuple[str, float], ...]:
    """ANSWER as tokens; the value's two tokens carry value_logprob (the rest are certain)."""
    return (("The", -0.01), (" default", 0.0), (" et", 0.0), ("ag", 0.0), (" is", 0.0), (" `", -0.5),
            ("we", value_logprob), ("ak", -0.001), ("`.", 0.0))


def test_the_weakest_token_of_any_claim_is_the_answer_s_certainty() -> None:
    sure = least_certain(tokens(-1.3), ["weak"])
    assert sure == Certainty("weak", -1.3) and sure.percent == round(100 * math.exp(-1.3))
    # tokens outside every claim (the backtick before it) do not count; a claim not in the text is skipped
    assert least_certain(tokens(-0.01), ["weak", "strong"]) == Certainty("weak", -0.01)
    assert least_certain((), ["weak"]) is None and least_certain(tokens(-1.0), ["strong"]) is None


def test_a_backed_claim_the_model_was_unsure_of_is_only_partly_backed() -> None:
    assert judge(ANSWER, QUESTION, LINES, tokens=tokens(SURE + 0.1)).support is Support.BACKED
    verdict = judge(ANSWER, QUESTION, LINES, tokens=tokens(SURE - 0.1))
    assert verdict.support is Support.PARTLY and verdict.doubt.claim == "weak"
    assert judge(ANSWER, QUESTION, LINES).support is Support.BACKED  # no probabilities: the claims alone


def test_only_the_lead_claim_s_certainty_weighs() -> None:
    """tuning3's click-06: "80 ... in the `__init__` method of `HelpFormatter`" was right, and made
    partly backed by `__init__` (where, not what) at -1.47; the lead claim is the value."""
    lines = {LineSpan("src/click/formatting.py", 102, 102): "class HelpFormatter:",
             LineSpan("src/click/formatting.py", 114, 114): "        width = max(min(width, 80), 50)",
             LineSpan("src/click/formatting.py", 110, 110): "    def __init__(self, indent_increment=2, width=None):"}
    answer = "The maximum width is 80, set in the `__init__` method of `HelpFormatter`."
    pieces = (("The maximum width is ", -0.01), ("80", -0.05), (", set in the `", -0.1), ("__init__", -1.47),
              ("` method of `", -0.1), ("HelpFormatter", -0.2), ("`.", 0.0))
    question = "What is the maximum width of formatted help text when no width is given?"
    assert judge(answer, question, lines, tokens=pieces).support is Support.BACKED
    unsure = tuple((p, -1.2 if p == "80" else lp) for p, lp in pieces)
    verdict = judge(answer, question, lines, tokens=unsure)
    assert verdict.support is Support.PARTLY and verdict.doubt.claim == "80"


def test_certainty_never_raises_or_sinks_a_partly_backed_answer_whose_claims_were_found() -> None:
    """Raising a partly backed answer on near certainty, and sinking any doubted one to not backed,
    were tried and dropped: both lost precision on the second tuning set (app.harness.certainty).
    Here the value is in the lines, only not beside the subject: partly backed however unsure."""
    far = {LineSpan("lib/app.js", 10, 10): "  this.set('etag', fn);",
           LineSpan("lib/app.js", 90, 90): "  var mode = 'weak';"}
    assert judge(ANSWER, QUESTION, far).support is Support.PARTLY
    for logprob in (-0.01, SURE - 0.1, -3.0):
        verdict = judge(ANSWER, QUESTION, far, tokens=tokens(logprob))
        assert verdict.support is Support.PARTLY
        assert (verdict.doubt is None) == (logprob >= SURE)  # the doubt is still said


def test_the_doubt_is_said_under_the_verdict_and_survives_a_record() -> None:
    event = AnswerCompleted(ANSWER, (), 1, Usage(), 1.0, support=Support.PARTLY,
                            token_logprobs=tokens(-1.3), doubt=Certainty("weak", -1.3))
    percent = event.doubt.percent
    assert verdict_detail(event)[0] == f"The model was unsure of “weak” (it gave what it wrote a {percent}% chance)"
    back = event_from_dict(event_to_dict(event))
    assert back.doubt == event.doubt and back.token_logprobs == tokens(-1.3)


def test_the_doubted_claim_is_named_as_the_answer_wrote_it() -> None:
    written = (("Call ", 0.0), ("server", -0.7), (".handle", -0.1), ("Upgrade", -0.2), ("()", 0.0))
    assert least_certain(written, ["server.handleupgrade"]) == Certainty("server.handleUpgrade", -0.7)


def test_a_guess_is_not_backed() -> None:
    """tuning3's qc-04: "10 minutes", unsure of the 10, which no shown line holds beside the one
    claim found ("minutes"): not backed, with the doubt said. Sure of it, the same lines leave it
    partly backed; with its number in the lines it is no guess."""
    question = "How long does unused query data stay in the cache by default?"
    answer = "Unused query data stays in the cache for 10 minutes by default."
    lines = {LineSpan("src/hydration.ts", 27, 27): "  // gcTime in minutes, for hydrated queries",
             LineSpan("src/removable.ts", 30, 30): "    this.gcTime = Math.max(this.gcTime || 0, newGcTime ?? 5 * 60)"}
    pieces = (("Unused query data stays in the cache for ", -0.05), ("1", -1.2), ("0", -0.1),
              (" minutes", -0.2), (" by default.", -0.05))
    verdict = judge(answer, question, lines, tokens=pieces)
    assert verdict.support is Support.NOT_BACKED and verdict.doubt.claim == "10" and "10" in verdict.missing
    sure = tuple((p, -0.01) for p, _ in pieces)
    assert judge(answer, question, lines, tokens=sure).support is Support.PARTLY
    held = {**lines, LineSpan("src/hydration.ts", 28, 28): "  const unusedMinutes = 10 // default for unused data"}
    assert judge(answer, question, held, tokens=pieces).support is Support.PARTLY


def test_missing_prose_words_make_no_guess() -> None:
    """A user's check on neverthrow: "returns the default value ... passed as an argument", right,
    unsure of an incidental `ResultAsync` the lines hold; only prose words missing: partly backed."""
    question = "What does unwrapOr return on an Err result?"
    answer = "`unwrapOr` returns the default value passed as an argument, in the `ResultAsync` class."
    lines = {LineSpan("README.md", 1093, 1093): "#### `ResultAsync.unwrapOr` (method)",
             LineSpan("README.md", 1101, 1101): "class ResultAsync<T, E> {"}
    pieces = (("`unwrapOr` returns the default value passed as an argument, in the `", -0.05),
              ("Result", -1.06), ("Async", -0.1), ("` class.", -0.05))
    verdict = judge(answer, question, lines, tokens=pieces)
    assert verdict.doubt is not None and verdict.doubt.claim == "ResultAsync"
    assert verdict.support is Support.PARTLY

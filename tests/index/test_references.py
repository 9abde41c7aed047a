"""One hop of references: a found chunk brings the top-level definitions of its file that it uses."""

from __future__ import annotations

RETRY_TS = """import { sleep } from './sleep';

const retryCodes = [408, 413, 429, 500, 502, 503, 504];
const retryLimit = 2;
const unrelated = 'x';

export class Client {
  send(url: string) {
    return fetch(url);
  }
}

function helperThatIsVeryLong() {
""" + "".join(f"  step{n}();\n" for n in range(40)) + """}

export const defaults = {
  limit: retryLimit,
  statusCodes: retryCodes,
  backoff: helperThatIsVeryLong,
};
"""


def test_the_best_chunk_brings_the_constants_it_uses_cut_to_their_statements(make_index):
    index = make_index({"src/retry.ts": RETRY_TS, "src/other.ts": "export const retryLimit = 9;\n"})
    index.refresh()
    plain = index.search("default retry options statusCodes", 1)
    assert plain[0].symbol == "defaults" or "statusCodes" in plain[0].text
    found = index.search("default retry options statusCodes", 1, references=1)
    assert found[0] == plain[0]
    brought = [(h.path, h.start_line, h.end_line, h.text) for h in found[1:]]
    assert brought == [("src/retry.ts", 4, 4, "const retryLimit = 2;"),
                       ("src/retry.ts", 3, 3, "const retryCodes = [408, 413, 429, 500, 502, 503, 504];")]


def test_members_long_definitions_and_the_chunks_own_name_are_not_brought(make_index):
    source = '''MAX_SIZE = 10


def grow(items):
    """Grow the items."""
    helper = items.MAX_SIZE
    return grow(items) + [big_table(helper)]


def big_table(x):
''' + "".join(f"    row_{n} = x\n" for n in range(30))
    index = make_index({"pkg/grow.py": source})
    index.refresh()
    found = index.search("grow the items", 1, references=1)
    assert [h.symbol for h in found] == ["grow"]  # MAX_SIZE only as a member, big_table too long


def test_a_doc_comment_kept_apart_from_its_definition_is_found_with_it(make_index):
    source = """function other() {
  return 1;
}

/**
 * Compile "proxy trust" value to function.
 * A number trusts that many hops.
 */

exports.compileTrust = function(val) {
  if (typeof val === 'number') {
    return function(a, i){ return i < val };
  }
  return proxyaddr.compile(val || []);
}
"""
    index = make_index({"lib/utils.js": source})
    index.refresh()
    hits = index.search("how many hops", 2)
    assert [(h.start_line, h.end_line) for h in hits] == [(5, 15)]
    assert hits[0].symbol == "exports.compileTrust" and "return proxyaddr.compile" in hits[0].text
    assert hits[0].text.split("\n")[4] == ""  # the blank line between them

"""Where a declared field gets its value: a value question brings the statement that sets the field
a found declaration describes (app.index.setters), from a real index over real files."""

from __future__ import annotations

from app.index.setters import asked_field
from app.index.terms import query_terms

TYPES_TS = """export interface CacheOptions {
  /**
   * How many times a failed load is tried again.
   */
  retry?: number
  /**
   * The time in milliseconds that unused cache data remains in memory.
   * When the cache becomes unused, its data is garbage collected after this duration.
   */
  gcTime?: number
  name?: string
}
"""

REMOVABLE_TS = """export abstract class Removable {
  gcTime!: number

  protected updateGcTime(newGcTime: number | undefined): void {
    // five minutes unless one is given
    this.gcTime = Math.max(
      this.gcTime || 0,
      newGcTime ?? 5 * 60 * 1000,
    )
  }

  protected clear() {
    this.gcTime = undefined
  }
}
"""

TEST_TS = """it("keeps unused cache data in memory", () => {
  const options = { gcTime: 99 }
  expect(options.gcTime ?? 1).toBe(99)
})
"""

QUESTION = "How long does unused cache data stay in memory by default?"


def _hits(index, question):
    return [(h.path, h.start_line, h.end_line) for h in index.search(question, 3)]


def test_a_value_question_brings_the_statement_that_sets_the_field_right_after_its_declaration(make_index):
    index = make_index({"src/types.ts": TYPES_TS, "src/removable.ts": REMOVABLE_TS,
                        "src/cache.test.ts": TEST_TS})
    index.refresh()
    found = index.search(QUESTION, 3)
    declaration = next(i for i, h in enumerate(found) if h.path == "src/types.ts")
    setter = found[declaration + 1]  # not the test's `options.gcTime ?? 1`: a test's value is an example
    # from the comment above it to the statement's closing bracket, not the `this.gcTime || 0,` line alone
    assert (setter.path, setter.start_line, setter.end_line) == ("src/removable.ts", 5, 9)
    assert setter.text.splitlines()[1].strip() == "this.gcTime = Math.max("
    assert "5 * 60 * 1000" in setter.text


def test_a_question_that_asks_no_value_gets_no_setter(make_index):
    index = make_index({"src/types.ts": TYPES_TS, "src/removable.ts": REMOVABLE_TS})
    index.refresh()
    assert ("src/removable.ts", 5, 9) not in _hits(index, "Where is unused cache data kept in memory?")


def test_an_assignment_without_a_value_is_no_default(make_index):
    bare = REMOVABLE_TS.replace("newGcTime ?? 5 * 60 * 1000,", "newGcTime,").replace(
        "this.gcTime || 0,", "this.gcTime,")
    index = make_index({"src/types.ts": TYPES_TS, "src/removable.ts": bare})
    index.refresh()
    found = index.search(QUESTION, 3)
    assert [h.path for h in found] == ["src/types.ts"]  # not `this.gcTime = undefined` either


def test_a_go_struct_literal_sets_a_field_inline(make_index):
    source = """package throttle

// Opts represents a set of throttling options.
type Opts struct {
\tLimit int
\t// how long a request waits in the backlog before it times out
\tBacklogTimeout time.Duration
}
"""
    use = """package throttle

func other() int {
\treturn 1
}

func New(limit int) func() {
\treturn WithOpts(Opts{Limit: limit, BacklogTimeout: 60 * time.Second})
}
"""
    index = make_index({"opts.go": source, "middleware/new.go": use})
    index.refresh()
    found = index.search("How long does a request wait in the backlog by default?", 1)
    assert [(h.path, h.start_line, h.end_line) for h in found] == [("opts.go", 3, 8),
                                                                   ("middleware/new.go", 8, 8)]


def test_the_asked_field_is_the_one_whose_doc_holds_most_of_the_question():
    words = set(query_terms(QUESTION))
    assert asked_field(TYPES_TS, words) == "gcTime"
    # two fields with as many of the question's words: neither stands out
    assert asked_field(TYPES_TS, set(query_terms("How many times is it tried by default?"))) == "retry"
    tie = "interface X {\n  // cache size\n  a?: number\n  // cache size\n  b?: number\n}\n"
    assert asked_field(tie, set(query_terms("What is the default cache size?"))) is None
    # a field whose line sets its value already is its own answer
    assert asked_field("class C:\n    # cache size in memory\n    size: int = 3\n",
                       set(query_terms("What is the default cache size in memory?"))) is None


def test_a_block_doc_without_stars_names_the_field_and_a_comment_sets_nothing(make_index):
    options = """export type Options = {
    /**
    Whether queued tasks start running as soon as they are added.

    @default true
    */
    readonly autoStart?: boolean;
    /**
    Class with an `enqueue` method.
    */
    readonly queueClass?: string;
};
"""
    queue = """export class Queue {
    constructor(options) {
        options = {
            queueClass: 'PriorityQueue',
            autoStart: true,
            ...options,
        };
        this.paused = options.autoStart === false;
    }

    /**
    Start running the queued tasks again (no need when `options.autoStart = false` was never set).
    */
    start() {
        this.paused = false;
    }
}
"""
    index = make_index({"src/options.ts": options, "src/queue.js": queue})
    index.refresh()
    assert asked_field(options, set(query_terms("Do queued tasks start running by default?"))) == "autoStart"
    found = index.search("Do queued tasks start running by default?", 2)
    setters = [h for h in found if h.path == "src/queue.js" and "autoStart: true" in h.text]
    assert [(h.start_line, h.end_line) for h in setters] == [(3, 6)]  # the object literal, not the comment


def test_a_destructuring_default_sets_the_field(make_index):
    options = """export interface CacheOptions {
  /**
   * How precisely the age of an entry is measured, in milliseconds.
   */
  ttlResolution?: number
  max?: number
}
"""
    cache = """export class Cache {
  constructor(options) {
    const { max = 0, ttlResolution = 1, dispose } = options
    this.max = max
    this.dispose = dispose
  }
}
"""
    minified = "var C=function(o){" + "".join(f"var a{n}=o.a{n}||{n};" for n in range(40)) + \
        "var ttlResolution=o.ttlResolution||5;return {age:0,entry:1,precisely:2,measured:3}};\n"
    index = make_index({"src/options.ts": options, "src/cache.js": cache, "src/cache.min.js": minified})
    index.refresh()
    found = index.search("How precisely is the age of an entry measured by default?", 1)  # not the minified copy
    assert [(h.path, h.start_line, h.end_line) for h in found] == [("src/options.ts", 1, 7), ("src/cache.js", 3, 3)]

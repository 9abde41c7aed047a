"""Code-aware terms: identifiers split and kept whole, prose lightly stemmed, paths as terms."""

from __future__ import annotations

from app.index.terms import path_terms, query_terms, stem, term_string, terms


def test_snake_camel_and_dotted_names_split_and_kept_whole() -> None:
    assert terms("parse_config") == ["parse_config", "pars", "config"]
    assert terms("HTTPServerError") == ["httpservererror", "http", "server", "error"]
    assert terms("os.path.join") == ["os.path.join", "os", "path", "join"]
    assert terms("getUserName") == ["getusername", "get", "user", "nam"]


def test_plain_words_are_stemmed_alike() -> None:
    assert stem("raised") == stem("raises") == stem("raise") == stem("raising")
    assert stem("queries") == stem("query")
    # "How many times is a failed mutation retried by default?": 'retri' met no `retry` in the code
    assert stem("retried") == stem("retries") == stem("retry") == stem("retrying")
    assert stem("copied") == stem("copy") and stem("queried") == stem("query") and stem("applied") == stem("apply")
    assert stem("handlers") == stem("handler")
    assert stem("is") == "is"


def test_questions_drop_stop_words_and_repeats() -> None:
    assert query_terms("Which exception is raised when the parser fails? The parser!") == [
        "exception",
        "rais",
        "parser",
        "fail",
    ]


def test_path_parts_are_terms() -> None:
    found = path_terms("app/tools/rg_files.py")
    assert found[0] == "rg_files.py"
    assert {"app", "tool", "rg_files", "rg", "fil", "py"} <= set(found)


def test_term_string_keeps_counts_for_bm25() -> None:
    assert sorted(term_string("retry retry delay").split()) == ["delay", "retry", "retry"]


def test_non_ascii_prose_is_kept() -> None:
    assert "größe" in terms("Die Größe")


def test_a_doer_in_a_question_meets_the_verb_in_code() -> None:
    from app.index.terms import related

    assert related(stem("parser")) == (stem("parse"),)
    assert stem("dir") in related(stem("folder"))
    assert stem("begin") in related(stem("start"))  # "must start with" asks for "must begin with"


def test_a_phrasal_verb_meets_the_one_word_the_code_uses() -> None:
    """"before it times out" is `timeout` in code (`loadUrlTimeoutValue`; cordova-android)."""
    from app.index.terms import compounds, query_terms

    assert compounds("How long before the page load times out?") == ["timeout"]
    assert compounds("What happens when it falls back, and who logged in or set up the db?") == [
        "fallback", "login", "setup"]
    assert compounds("Does it time in or look out?") == []  # not one word in code
    assert "timeout" in query_terms("When does a request time out?")
    assert query_terms("What is the default port?") == ["default", "port"]

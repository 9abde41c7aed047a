"""The eval's scoring on hand-made answers: correct, grounded, valid citations, invented paths."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.eval.ask import Cited
from bench.eval.questions import Evidence
from bench.eval.scoring import (
    FileIndex,
    citation_valid,
    file_names,
    invented_paths,
    is_correct,
    is_grounded,
)


@pytest.fixture
def codebase(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "src" / "dotenv").mkdir(parents=True)
    (root / "src" / "dotenv" / "main.py").write_text("".join(f"line {i}\n" for i in range(1, 41)))
    (root / "README.md").write_text("# proj\nhello\n")
    (root / "package.json").write_text("{}\n")
    return root


def test_every_keyword_group_must_appear_in_any_case() -> None:
    keywords = [["list"], ["json", "JSON"], ["shell", "sh script"]]
    assert is_correct("Formats: LIST, json and shell.", keywords)
    assert not is_correct("Formats: list and json.", keywords)  # the shell group is missing
    assert is_correct("It uses SHA1.", [["sha1", "sha-1"]])
    assert not is_correct("", [["sha1"]])


def test_a_flag_keyword_is_a_whole_flag() -> None:
    """tuning3's cmdr-02 ("default flags of the help option?", keywords -h and --help) scored
    "`-e, --HELP`", the README's example of changing them, as right: `-h` is in `--HELP`."""
    keywords = [["-h"], ["--help"]]
    assert is_correct("They are `-h, --help`.", keywords) and is_correct("-h and --HELP", keywords)
    assert not is_correct("The default flags are `-e, --HELP`.", keywords)
    assert is_correct("It prefixes them with --no-color.", [["--no-"]])  # a prefix stays a substring


def test_grounded_needs_a_citation_overlapping_an_evidence_span() -> None:
    evidence = [Evidence(path="src/dotenv/main.py", start=10, end=20)]
    assert is_grounded([Cited("src/dotenv/main.py", 20, 25)], evidence)  # touches the last line
    assert is_grounded([Cited("./src/dotenv/main.py", 1, 10)], evidence)
    assert not is_grounded([Cited("src/dotenv/main.py", 21, 30)], evidence)
    assert not is_grounded([Cited("README.md", 10, 20)], evidence)
    assert not is_grounded([], evidence)


def test_citations_are_valid_only_for_real_lines_inside_the_code_base(codebase: Path) -> None:
    assert citation_valid(Cited("src/dotenv/main.py", 1, 40), codebase)
    assert not citation_valid(Cited("src/dotenv/main.py", 39, 41), codebase)  # past the end
    assert not citation_valid(Cited("src/dotenv/main.py", 0, 3), codebase)
    assert not citation_valid(Cited("src/dotenv/cli.py", 1, 1), codebase)  # no such file
    (codebase.parent / "outside.py").write_text("x\n")
    assert not citation_valid(Cited("../outside.py", 1, 1), codebase)


def test_invented_paths_are_file_names_the_code_base_lacks(codebase: Path) -> None:
    answer = ("The parser is in src/dotenv/main.py (see dotenv/main.py:3-9 and main.py); config in "
              "package.json and readme.md. Tasks live in cmd/tasks.go and setup.py.")
    assert invented_paths(answer, FileIndex.of(codebase)) == ["cmd/tasks.go", "setup.py"]


def test_urls_module_names_product_names_and_calls_are_not_files() -> None:
    answer = ("Express runs on Node.js; see https://expressjs.com/guide.html. It calls "
              "os.path.join and hashlib.sha1, version 1.0.1, and reads .env files. "
              "app.use(bodyParser.json()); the `bodyParser.json` middleware parses bodies.")
    assert file_names(answer) == []


def test_each_file_name_is_reported_once_without_trailing_punctuation() -> None:
    assert file_names("Open lib/view.js. Then lib/view.js, then View.js!") == [
        "lib/view.js", "View.js"]


def test_a_number_keyword_must_stand_alone() -> None:
    assert is_correct("The default offset is 2.", [["2"]])
    assert is_correct("It exits with exit(2)", [["2"]])
    assert not is_correct("It has 12 parts, version 2.0, and 2x speed", [["2"]])
    assert is_correct("Requires Node.js 0.10 or higher", [["0.10"]])
    assert not is_correct("Requires Node.js 0.100", [["0.10"]])
    assert is_correct("It requires at least v18.", [["18"]])  # tuning3's cmdr-13, scored wrong before
    assert not is_correct("It requires dev18 or rev18", [["18"]])

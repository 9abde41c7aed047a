"""search_text: ripgrep finds candidate lines; the text shown is re-read through the workspace.

ripgrep walks by name, so a symlink swapped in mid-search could make it read outside. It only
tells us (path, line number); each path is then checked and the line read through the Workspace,
which applies every rule (confinement, secrets, hard links, binary). What rg saw is never shown.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field

from app.errors import PathRefusedError, ToolExecutionError
from app.tools.base import TextHit, ToolOutput
from app.tools.calls_text import call_text, cut_note
from app.tools.reading import clip_line, current_lines
from app.tools.rg import RgRun, find_rg, run_rg
from app.values import LineSpan
from app.workspace import Workspace, human_size
from app.workspace.ignore import glob_regex
from app.workspace.lexical import has_control_chars

_REGEX_LIMIT = "20M"  # rg compiles to automata: no backtracking, and these bound its memory


class SearchTextArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    pattern: str = Field(min_length=1, max_length=1000,
                         description="regular expression (Rust regex syntax) to search for")
    path: str = Field(".", description="file or folder to search in, relative to the workspace root")
    glob: str | None = Field(None, max_length=200, description="only search files whose name matches, e.g. '*.py'")
    fixed_strings: bool = Field(False, description="treat the pattern as literal text, not a regex")
    ignore_case: bool = Field(False, description="match upper and lower case alike")
    offset: int = Field(0, ge=0, description="skip this many results (to page through many matches)")


@dataclass(frozen=True)
class Hit:
    rel: str
    line: int


def search_text(ws: Workspace, args: SearchTextArgs) -> ToolOutput:
    """Search file contents with a regular expression; results are 'path:line: text'.

    Args:
        pattern: regular expression to search for.
        path: file or folder to search in.
        glob: only search files whose name matches.
        fixed_strings: treat the pattern as literal text.
        ignore_case: match upper and lower case alike.
        offset: skip this many results.
    """
    rel = ws.normalize(args.path)
    per_file = _per_file_cap(ws, args, rel)
    run, hits = _search(ws, args, rel, per_file)
    return _render(ws, args, rel, hits, per_file, run.timed_out, run.more)


def _per_file_cap(ws: Workspace, args: SearchTextArgs, rel: str) -> int:
    """Refuse a bad glob or an unsearchable file; how many hits to keep per file."""
    single_file = ws.kind(rel) == "file"
    _check_glob(args.glob)
    if single_file:
        _check_searchable(ws, rel)
    return ws.settings.search_max_results if single_file else ws.settings.search_max_per_file


def _search(ws: Workspace, args: SearchTextArgs, rel: str, per_file: int) -> tuple[RgRun, list[Hit]]:
    settings = ws.settings
    want = args.offset + settings.search_max_results + 1
    run = run_rg(_argv(ws, args, rel, per_file), ws.root_fd, ws.root, settings.search_timeout_s, want)
    if run.more:  # capped: which hits make the cut must not depend on rg's thread timing
        run = run_rg(_argv(ws, args, rel, per_file, sort=True), ws.root_fd, ws.root,
                     settings.search_timeout_s, want)
    # rg's --sort=path makes it single-threaded (2x slower), so an uncapped run is sorted here
    # (a tracked file .gitignore matches may come twice: named, and inside a folder named to search)
    unique = {(hit.rel, hit.line): hit for hit in _parse(ws, run.lines)}
    hits = sorted(unique.values(), key=lambda hit: (hit.rel.split("/"), hit.line))
    if not hits and run.returncode == 2 and run.stderr.strip():
        raise ToolExecutionError(_rg_error(run.stderr))
    return run, hits


def _argv(ws: Workspace, args: SearchTextArgs, rel: str, per_file: int, sort: bool = False) -> list[str]:
    s = ws.settings
    argv = [str(find_rg()), "--no-config", "--no-messages", "--line-number", "--no-heading", "--with-filename",
            "--null", "--color=never", *(["--sort=path"] if sort else []), "--max-columns=1",
            "--no-follow", "--one-file-system",
            "--hidden", "--glob=!.git", "--no-require-git", f"--max-count={per_file + 1}",
            f"--max-filesize={s.file_scan_max_bytes}", f"--regex-size-limit={_REGEX_LIMIT}",
            f"--dfa-size-limit={_REGEX_LIMIT}"]
    if not s.respect_gitignore:
        argv.append("--no-ignore")
    if args.glob:
        argv += _glob_args(args.glob)
    argv += ["--fixed-strings"] if args.fixed_strings else []
    argv += ["--ignore-case"] if args.ignore_case else []
    return [*argv, "-e", args.pattern, "--", rel, *_tracked_ignored(ws, rel, args.glob)]


def _tracked_ignored(ws: Workspace, rel: str, glob: str | None) -> tuple[str, ...]:
    """Files git tracks that a .gitignore matches: rg skips them while walking, not when named (and
    then applies no glob to them, so the glob is applied here)."""
    files = ws.tracked_ignored(rel) if ws.kind(rel) == "dir" else ()
    if not glob or not files:
        return files
    negated, glob = glob.startswith("!"), glob.removeprefix("!")
    regexes = [glob_regex(g) for g in _braces(glob)]
    return tuple(f for f in files if negated != any(r.match(f if "/" in glob else f.rsplit("/", 1)[-1])
                                                    for r in regexes))


def _braces(glob: str) -> list[str]:
    """`*.{py,md}` as `*.py` and `*.md` (rg's globs have braces, the workspace's regexes do not)."""
    found = re.search(r"\{([^{}]*)\}", glob)
    if not found:
        return [glob]
    return [g for part in found.group(1).split(",")
            for g in _braces(glob[:found.start()] + part + glob[found.end():])]


def _glob_args(glob: str) -> list[str]:
    """A name glob becomes a file type: rg lets --glob override .gitignore, a type filter does not."""
    if "/" in glob or ":" in glob or glob.startswith("!"):
        return [f"--glob={glob}"]  # path globs have no type form; rg then also searches ignored files
    return [f"--type-add=burrowglob:{glob}", "--type=burrowglob"]


def _check_searchable(ws: Workspace, rel: str) -> None:
    """rg applies --max-filesize and binary skipping only while walking, not to a file named outright."""
    size, sniffed = ws.probe(rel)
    if sniffed.binary:
        raise ToolExecutionError(f"{rel} is a binary file ({sniffed.kind}, {human_size(size)}); it is not searched")
    if size > ws.settings.file_scan_max_bytes:
        raise ToolExecutionError(f"{rel} is {human_size(size)}, larger than the search limit of "
                                 f"{human_size(ws.settings.file_scan_max_bytes)}; read parts of it with read_file")


def _check_glob(glob: str | None) -> None:
    if glob is not None and (has_control_chars(glob) or not glob.strip()):
        raise PathRefusedError("glob must be a non-empty pattern such as '*.py' without control characters")


def _parse(ws: Workspace, lines: tuple[bytes, ...]) -> list[Hit]:
    hits: list[Hit] = []
    for raw in lines:
        path_bytes, sep, rest = raw.partition(b"\0")
        number = rest.split(b":", 1)[0]
        if not sep or not number.isdigit():
            continue
        try:
            rel = ws.normalize(path_bytes.decode("utf-8"))
        except (UnicodeDecodeError, PathRefusedError):
            continue  # names we could not open again are not shown
        hits.append(Hit(rel, int(number)))
    return hits


def _render(ws: Workspace, args: SearchTextArgs, rel: str, hits: list[Hit], per_file: int,
            timed_out: bool, more: bool) -> ToolOutput:
    cap = ws.settings.search_max_results
    shown, capped_files = _lines(ws, hits, per_file)
    page = shown[args.offset:args.offset + cap]
    where = "the workspace" if rel == "." else rel
    count = f"{len(page)} match" + ("" if len(page) == 1 else "es")
    out = [f"{count} for {args.pattern!r} in {where}" + (":" if page else ".")]
    out += [f"{hit.span.path}:{hit.span.start_line}: {hit.text}" for hit in page]
    total = len(shown) + (1 if more else 0)  # rg was stopped with results left: at least one more
    out += _notes(args, rel, total, len(page), capped_files, timed_out)
    return ToolOutput("\n".join(out), tuple(hit.span for hit in page), hits=tuple(page))


def _lines(ws: Workspace, hits: list[Hit], per_file: int) -> tuple[list[TextHit], list[str]]:
    """The hits the workspace lets us show. A refused file (secret, hard link, unreadable) is left
    out without a trace: a count would let its content be probed one pattern at a time."""
    shown: list[TextHit] = []
    capped: dict[str, None] = {}  # files with more than per_file hits, in order (an ordered set)
    counts: Counter[str] = Counter()
    for hit, line in _visible(ws, hits):
        counts[hit.rel] += 1
        if counts[hit.rel] > per_file:
            capped[hit.rel] = None
            continue
        text = clip_line(line.strip(), ws.settings.read_max_line_chars)
        shown.append(TextHit(LineSpan(hit.rel, hit.line, hit.line), text))
    return shown, list(capped)


def _visible(ws: Workspace, hits: list[Hit]) -> Iterator[tuple[Hit, str]]:
    """Each hit the rules let us show, with its line's text (each file read once)."""
    texts: dict[str, list[str] | None] = {}
    for hit in hits:
        if ws.is_secret(hit.rel):
            continue  # silently: even a count would tell the model that a secret matched
        if hit.rel not in texts:
            texts[hit.rel] = current_lines(ws, hit.rel)
        lines = texts[hit.rel]
        if lines is not None and hit.line <= len(lines):
            yield hit, lines[hit.line - 1]


def _notes(args: SearchTextArgs, rel: str, total: int, shown: int, capped_files: list[str],
           timed_out: bool) -> list[str]:
    notes: list[str] = []
    base = {"pattern": args.pattern, "glob": args.glob}
    flags = {"fixed_strings": args.fixed_strings or None, "ignore_case": args.ignore_case or None}
    for path in capped_files[:5]:
        notes.append(cut_note(f"more matches in {path}", call_text("search_text", **base, path=path, **flags)))
    if args.offset + shown < total:
        notes.append(cut_note(f"showed results {args.offset + 1}-{args.offset + shown}",
                              call_text("search_text", **base, path=rel, **flags, offset=args.offset + shown)))
    if timed_out:
        notes.append("[cut: the search ran out of time; results so far are shown. Narrow it with path= or glob=, "
                     "or simplify the pattern]")
    notes.append("(.gitignored, binary, secret-looking and hard-linked files are not searched)")
    return notes


def _rg_error(stderr: str) -> str:
    text = " ".join(stderr.replace("rg: ", "").split())[:400]
    if "size limit" in text:
        return f"the regex is too large to compile ({text}); simplify it"
    return f"the pattern is not a valid regex: {text}. Use fixed_strings=true to search literal text"

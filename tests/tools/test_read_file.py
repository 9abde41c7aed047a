"""read_file as the model meets it: numbered lines, honest headers, and cuts that say how to go on."""

from __future__ import annotations

import codecs
import re

from app.values import LineSpan

NEXT = re.compile(r'next: read_file\(path="([^"]+)", start_line=(\d+)\)')


def test_numbered_lines_and_header_with_line_count(make_call) -> None:
    call = make_call({"src/app.py": "import os\n\ndef main():\n    return 1\n"})
    out = call("read_file", path="src/app.py")
    assert out.ok
    assert out.content.splitlines()[0] == "src/app.py (lines 1-4 of 4, 36 B)"
    assert "3| def main():" in out.content
    assert out.spans == (LineSpan("src/app.py", 1, 4),)


def test_following_the_next_call_reads_the_whole_file_exactly_once(make_call) -> None:
    lines = [f"line {i}" for i in range(1, 451)]
    call = make_call({"big.txt": "\n".join(lines) + "\n"}, read_max_lines=200)
    seen: list[str] = []
    args = {"path": "big.txt"}
    for _ in range(10):
        out = call("read_file", **args)
        seen += [row.split("| ", 1)[1] for row in out.content.splitlines()[1:] if "| " in row]
        match = NEXT.search(out.content)
        if not match:
            break
        args = {"path": match.group(1), "start_line": int(match.group(2))}
    assert seen == lines


def test_byte_cap_stops_early_and_says_where_to_continue(make_call) -> None:
    call = make_call({"wide.txt": ("y" * 300 + "\n") * 100}, read_max_bytes=2000)
    out = call("read_file", path="wide.txt")
    assert len(out.content.encode()) < 2300
    match = NEXT.search(out.content)
    assert match and int(match.group(2)) > 1
    assert out.spans[0].end_line == int(match.group(2)) - 1


def test_long_lines_are_cut_with_a_note(make_call) -> None:
    call = make_call({"min.js": "var a=" + "1" * 5000 + ";\n"}, read_max_line_chars=100)
    out = call("read_file", path="min.js")
    assert "[... line cut: 5007 chars, showing the first 100]" in out.content


def test_start_line_past_the_end_is_an_error_with_a_fix(make_call) -> None:
    call = make_call({"a.txt": "one\ntwo\n"})
    out = call("read_file", path="a.txt", start_line=50)
    assert not out.ok and "has 2 lines" in out.content and 'read_file(path="a.txt", start_line=1)' in out.content


def test_boms_and_bad_bytes_decode(make_call) -> None:
    call = make_call({
        "u8.txt": codecs.BOM_UTF8 + "café\n".encode(),
        "u16.txt": codecs.BOM_UTF16_LE + "naïve\nzwei\n".encode("utf-16-le"),
        "bad.txt": b"ok \xff\xfe here\n",
        "crlf.txt": b"a\r\nb\r\n",
    })
    assert "1| café" in call("read_file", path="u8.txt").content
    u16 = call("read_file", path="u16.txt").content
    assert "1| naïve" in u16 and "2| zwei" in u16 and "utf-16-le with BOM" in u16
    assert "1| ok \ufffd\ufffd here" in call("read_file", path="bad.txt").content
    assert "1| a\n2| b" in call("read_file", path="crlf.txt").content


def test_binary_file_gives_type_and_size_not_bytes(make_call) -> None:
    call = make_call({"logo.png": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + b"\x00" * 100})
    out = call("read_file", path="logo.png")
    assert out.ok and out.content == "logo.png: binary file (PNG image, 116 B); its bytes are not shown."


def test_empty_file_and_folder_and_missing(make_call) -> None:
    call = make_call({"empty.txt": "", "dir/x.txt": "x"})
    assert call("read_file", path="empty.txt").content == "empty.txt (empty file, 0 lines)"
    folder = call("read_file", path="dir")
    assert not folder.ok and 'list_dir(path="dir")' in folder.content
    missing = call("read_file", path="src/nope.py")
    assert not missing.ok and 'find_files(pattern="nope.py")' in missing.content


def test_secrets_refused_unless_policy_off(make_call, tmp_path) -> None:
    files = {".env": "TOKEN=1\n", "deploy/server.PEM": "k\n", ".git/config": "[remote]\n", "envy.py": "ok\n"}
    strict = make_call(files)
    for path in (".env", "deploy/server.PEM", ".git/config"):
        out = strict("read_file", path=path)
        assert not out.ok and "secrets policy" in out.content
    assert strict("read_file", path="envy.py").ok
    assert make_call(files, secrets_policy=False)("read_file", path=".env").ok


def test_unicode_names_and_deep_trees_read_fine(make_call) -> None:
    deep = "/".join(f"d{i}" for i in range(40)) + "/leaf.py"
    call = make_call({"données/résumé.py": "x = 1\n", "日本語/読む.md": "# 題\n", deep: "y = 2\n"})
    assert call("read_file", path="données/résumé.py").ok
    assert "1| # 題" in call("read_file", path="日本語/読む.md").content
    assert call("read_file", path=deep).ok

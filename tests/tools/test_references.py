"""find_references: definitions and uses from the code index, through the real executor and workspace."""

from __future__ import annotations

import json

import pytest

from app.values import LineSpan

FILES = {
    "pkg/config.py": (
        '"""Settings."""\n'
        "\n"
        "\n"
        "@cached\n"
        "def load_config(path):\n"
        '    """Read the file."""\n'
        "    return {}\n"
    ),
    "pkg/cli.py": (
        "from pkg.config import load_config\n"
        "\n"
        "\n"
        "def main():\n"
        "    # load_config_extra is another name\n"
        "    cfg = load_config('a.toml')\n"
        "    return cfg\n"
        "\n"
        "\n"
        "class Runner:\n"
        "    def start(self):\n"
        "        return pkg.config.load_config (None)\n"
    ),
    "web/app.js": "function loadConfig() { return 1 }\nconst x = loadConfig();\n",
    "README.md": "# Demo\n\nCall `load_config` to read settings.\n",
    ".env": "load_config = secret\n",
}


@pytest.fixture
def refs(make_executor):
    """refs(files, name=..., limit=...) -> the find_references outcome through the real executor."""
    return lambda files, **args: make_executor(files).run("c1", "find_references", json.dumps(args))


def lines_of(out) -> list[str]:
    return out.content.splitlines()


def test_definition_and_every_call_and_use_as_path_line(refs) -> None:
    out = refs(FILES, symbol="load_config")
    assert out.ok, out.content
    text = lines_of(out)
    assert text[0] == "'load_config': defined in 1 place(s), used on 4 line(s)"
    assert text[1].startswith("pkg/config.py:5: defined (function load_config, lines 4-7): def load_config(path):")
    assert text[2:4] == ["pkg/cli.py:6: call in main (pkg/cli.py:4): cfg = load_config('a.toml')",
                         "pkg/cli.py:12: call in Runner.start (pkg/cli.py:11): return pkg.config.load_config (None)"]
    assert "pkg/cli.py:1: use: from pkg.config import load_config" in text
    assert "README.md:3: use: Call `load_config` to read settings." in text
    assert not any("load_config_extra" in line or ".env" in line for line in text)  # whole names; secrets refused
    assert LineSpan("pkg/cli.py", 6, 6) in out.spans and LineSpan("pkg/config.py", 5, 5) in out.spans
    assert LineSpan("pkg/cli.py", 4, 4) in out.spans  # the definition a call sits in is shown too
    assert {h.span for h in out.hits} == set(out.spans)


def test_a_dotted_name_finds_calls_of_its_last_part_in_any_language(refs) -> None:
    out = refs(FILES, symbol="app.loadConfig")
    assert out.ok, out.content
    assert "web/app.js:1: defined (function loadConfig, lines 1-1)" in out.content
    assert "web/app.js:2: call: const x = loadConfig();" in out.content


def test_a_name_nothing_defines_or_uses_says_what_to_try(refs) -> None:
    out = refs(FILES, symbol="parse_everything")
    assert not out.ok and "search_code" in out.content


def test_not_a_name_is_refused_with_a_hint(refs) -> None:
    out = refs(FILES, symbol="load config()")
    assert out.refused and "symbol" in out.content


def test_uses_beyond_the_limit_are_cut_with_the_call_for_the_rest(refs) -> None:
    many = {"m.py": "def tick():\n    pass\n" + "".join(f"tick()  # {i}\n" for i in range(12))}
    out = refs(many, symbol="tick", limit=5)
    assert out.ok and len([line for line in lines_of(out) if ": call" in line]) == 5
    assert lines_of(out)[-1] == '[cut: showed 5 of 12 uses; next: find_references(symbol="tick", limit=12)]'


def test_lines_changed_since_indexing_are_read_as_they_are_now(make_executor) -> None:
    ex = make_executor(FILES)
    assert ex.run("c1", "find_references", json.dumps({"symbol": "load_config"})).ok  # builds the index
    cli = ex.workspace.root / "pkg" / "cli.py"
    cli.write_text(cli.read_text().replace("'a.toml'", "'b.toml'").replace("pkg.config.load_config", "start"))
    out = ex.run("c2", "find_references", json.dumps({"symbol": "load_config"}))
    assert "pkg/cli.py:6: call in main (pkg/cli.py:4): cfg = load_config('b.toml')" in out.content
    assert "a.toml" not in out.content and "pkg/cli.py:12" not in out.content


def test_a_call_is_labelled_with_the_innermost_definition_around_it(refs) -> None:
    files = {"src/store.ts": (
        "export function enable() {\n"
        "  class DraftMap {\n"
        "    get(key) {\n"
        "      return createProxy(key)\n"
        "    }\n"
        "  }\n"
        "}\n"
        "export class Immer {\n"
        "  produce = (base) => {\n"
        "    const proxy = createProxy(base)\n"
        "    return proxy\n"
        "  }\n"
        "}\n"
        "export function createProxy(value) { return value }\n")}
    out = refs(files, symbol="createProxy")
    assert out.ok, out.content
    assert "src/store.ts:4: call in DraftMap.get (src/store.ts:3): return createProxy(key)" in lines_of(out)
    assert "src/store.ts:10: call in Immer.produce (src/store.ts:9): const proxy = createProxy(base)" in lines_of(out)
    assert [(r.inside, r.hit.span.start_line) for r in out.references] == [("DraftMap.get", 4),
                                                                    ("Immer.produce", 10)]


def test_a_go_method_is_labelled_with_its_receiver_type(refs) -> None:
    """Two `Format` methods of two formatters: the bare name said nothing of which one calls."""
    files = {
        "json_formatter.go": ("package logrus\n\ntype JSONFormatter struct{}\n\n"
                              "func (f *JSONFormatter) Format(entry *Entry) ([]byte, error) {\n"
                              "\tprefixFieldClashes(entry.Data)\n\treturn nil, nil\n}\n"),
        "text_formatter.go": ("package logrus\n\ntype TextFormatter struct{}\n\n"
                              "func (f TextFormatter) Format(entry *Entry) ([]byte, error) {\n"
                              "\tprefixFieldClashes(entry.Data)\n\treturn nil, nil\n}\n"),
        "formatter.go": "package logrus\n\nfunc prefixFieldClashes(data Fields) {}\n",
    }
    out = refs(files, symbol="prefixFieldClashes")
    assert out.ok, out.content
    assert sorted(r.inside for r in out.references) == ["JSONFormatter.Format", "TextFormatter.Format"]
    assert ("json_formatter.go:6: call in JSONFormatter.Format (json_formatter.go:5): "
            "prefixFieldClashes(entry.Data)") in lines_of(out)


def test_a_go_method_with_a_doc_comment_is_defined_on_its_func_line_not_called_there(refs) -> None:
    """Go doc comments start with the name ("// MethodNotAllowedHandler returns ..."): the comment
    was shown as the definition and the `func (mx *Mux) MethodNotAllowedHandler()` line as a call."""
    files = {"mux.go": ("package chi\n\ntype Mux struct{}\n\n"
                        "// MethodNotAllowedHandler returns the default Mux 405 responder.\n"
                        "func (mx *Mux) MethodNotAllowedHandler() http.HandlerFunc {\n\treturn nil\n}\n\n"
                        "func (mx *Mux) routeHTTP() {\n\tmx.MethodNotAllowedHandler().ServeHTTP(w, r)\n}\n")}
    out = refs(files, symbol="MethodNotAllowedHandler")
    assert out.ok, out.content
    assert out.definitions[0].span == LineSpan("mux.go", 6, 6), out.content
    assert out.definitions[0].text.startswith("func (mx *Mux) MethodNotAllowedHandler()")
    assert [(r.hit.span.start_line, r.inside) for r in out.references] == [(11, "Mux.routeHTTP")]


def test_a_call_inside_a_c_macro_is_labelled_with_the_macro(refs) -> None:
    """ujson grows its buffer through `Buffer_Reserve`, a function-like macro: the call in it had no
    definition around it, so "what calls Buffer_Realloc?" was shown no caller."""
    files = {"enc.c": ("static void Buffer_Realloc(Encoder *enc, size_t needed)\n{\n  enc->size *= 2;\n}\n\n"
                       "#define Buffer_Reserve(__enc, __len) \\\n"
                       "    if ((size_t) ((__enc)->end - (__enc)->offset) < (size_t) (__len))  \\\n"
                       "    {   \\\n      Buffer_Realloc((__enc), (__len));\\\n    }   \\\n\n"
                       "static void encode(Encoder *enc)\n{\n  Buffer_Reserve(enc, 128);\n}\n")}
    out = refs(files, symbol="Buffer_Realloc")
    assert out.ok, out.content
    assert [(r.hit.span.start_line, r.inside) for r in out.references] == [(9, "Buffer_Reserve")], out.content
    outline = refs(files, symbol="Buffer_Reserve")
    assert [(r.hit.span.start_line, r.inside) for r in outline.references] == [(14, "encode")], outline.content


def test_a_name_with_parentheses_in_a_comment_is_a_use_not_a_call(refs) -> None:
    """A Javadoc line (`* shouldAllowNavigation(). It's generally unsafe ...`) was listed as a call,
    and the model named the class around it as a caller."""
    files = {"CordovaPlugin.java": ("public class CordovaPlugin {\n"
                                    "    /**\n     * Like shouldAllowNavigation(), for the bridge.\n     */\n"
                                    "    public Boolean shouldAllowBridgeAccess(String url) {\n"
                                    "        return shouldAllowNavigation(url);\n    }\n\n"
                                    "    public Boolean shouldAllowNavigation(String url) {\n"
                                    "        return null;\n    }\n}\n")}
    out = refs(files, symbol="shouldAllowNavigation")
    assert out.ok, out.content
    assert [(r.hit.span.start_line, r.how) for r in out.references] == [(6, "call"), (3, "use")], out.content


def test_a_short_definition_nothing_uses_is_shown_whole(refs) -> None:
    """Nothing calls `OnInitialize`; what it does with its arguments is where a question about them
    goes next, so its lines come with the answer (and are evidence); a long one is not shown."""
    files = {"cobra.go": "package cobra\n\n// OnInitialize sets the passed functions to be run.\n"
                         "func OnInitialize(y ...func()) {\n\tinitializers = append(initializers, y...)\n}\n",
             "long.go": "package cobra\n\nfunc Long() {\n" + "\tstep()\n" * 20 + "}\n"}
    out = refs(files, symbol="OnInitialize")
    text = lines_of(out)
    assert "(no other line uses it)" in text and "its lines, cobra.go:3-6:" in text
    assert "\tinitializers = append(initializers, y...)" in text
    assert LineSpan("cobra.go", 5, 5) in {h.span for h in out.hits}
    assert not any(line.startswith("its lines") for line in lines_of(refs(files, symbol="Long")))


FACTORY = {  # debug's src/common.js: the library's API defined inside one long function
    "src/common.js": (
        "function setup(env) {\n"                                   # 1
        "\tcreateDebug.selectColor = selectColor;\n"                # 2
        + "".join(f"\tcreateDebug.option{n} = {n};\n" for n in range(140))  # 3-142
        + "\t/** Turns namespaces on. */\n"                         # 143
        "\tfunction enable(namespaces) {\n"                         # 144
        "\t\tcreateDebug.namespaces = namespaces;\n"                # 145
        "\t}\n"                                                     # 146
        "\tconst disable = () => {\n"                               # 147
        "\t\tenable('');\n"                                         # 148
        "\t};\n"                                                    # 149
        "\tcreateDebug.enable(createDebug.load());\n"               # 150
        "\treturn createDebug;\n"                                   # 151
        "}\n"
        "\n"
        "function enabled(name) {\n"                                # 154
        "\treturn true;\n"
        "}\n"
        "module.exports = setup;\n"
    ),
    "src/node.js": "const setup = require('./common');\nmodule.exports = setup(exports);\nexports.enable('x');\n",
}


def test_a_function_defined_inside_another_is_found_where_the_symbol_table_has_none(refs, make_executor) -> None:
    """The index chunks `setup` whole (its helpers belong to it), so the symbol table has no
    `enable`: find_references and the answer check's definitions look inside the functions that
    hold the name, with the outline's walker."""
    out = refs(FACTORY, symbol="enable")
    assert out.ok, out.content
    text = lines_of(out)
    assert text[0] == "'enable': defined in 1 place(s), used on 3 line(s)", text
    assert text[1] == "src/common.js:144: defined (function enable, lines 143-146): function enable(namespaces) {"
    assert "src/common.js:148: call in disable (src/common.js:147): enable('');" in text
    assert "src/node.js:3: call: exports.enable('x');" in text
    executor = make_executor(FACTORY)
    assert executor.definitions("enable") == (LineSpan("src/common.js", 144, 146),)
    assert executor.definitions("disable") == (LineSpan("src/common.js", 147, 149),)
    # the table's own definitions win; a name nothing defines has none
    assert executor.definitions("enabled") == (LineSpan("src/common.js", 154, 156),)
    assert executor.definitions("selectColor") == ()


def test_a_helper_in_a_build_s_copy_is_found_only_when_the_source_has_none(make_executor, tmp_path) -> None:
    """tanstack/history ships dist/cjs/index.cjs beside src/index.ts; "Where is the flush function
    defined?" was answered with the build's copy."""
    files = {"src/index.ts": FACTORY["src/common.js"], "dist/cjs/index.cjs": FACTORY["src/common.js"]}
    executor = make_executor(files)
    assert executor.definitions("enable") == (LineSpan("src/index.ts", 144, 146),)
    assert [h.span for h in executor.helper_definitions("enable")] == [LineSpan("src/index.ts", 144, 144)]
    (tmp_path / "proj" / "src" / "index.ts").unlink()
    assert make_executor({}).definitions("disable") == (LineSpan("dist/cjs/index.cjs", 147, 149),)


def test_a_method_of_an_object_a_function_returns_is_found_inside_it(make_executor) -> None:
    """nanoevents: `createNanoEvents = () => ({ emit(event, ...args) {...}, on(event, cb) {...} })`."""
    source = ("export let createNanoEvents = () => ({\n  emit(event, ...args) {\n"
              "    for (const cb of this.events[event] || []) cb(...args)\n  },\n  events: {},\n"
              "  on(event, cb) {\n    (this.events[event] ||= []).push(cb)\n  }\n})\n")
    executor = make_executor({"index.js": source, "test.js": "emitter.emit('tick')\n"})
    assert executor.definitions("emit") == (LineSpan("index.js", 2, 4),)
    assert [h.text for h in executor.helper_definitions("on")] == ["on(event, cb) {"]

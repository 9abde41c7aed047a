"""file_outline for every language we promise, parsed by the real tree-sitter grammars."""

from __future__ import annotations

import pytest

SAMPLES = {
    "m.py": ("class Shape:\n    def area(self, k):\n        return 0\n\nasync def load(path):\n    pass\n",
             ["class Shape  L1-3", "  def area(self, k)  L2-3", "def load(path)  L5-6"]),
    "m.js": ("class Cart {\n  total(items) { return 0 }\n  add = (item) => {}\n  size = 0\n}\nfunction pay(x) {}\n"
             "const ship = (a) => a;\nconst wrap = b => b;\n",
             ["class Cart  L1-5", "  method total(items)  L2-2", "  method add(item)  L3-3", "function pay(x)  L6-6",
              "const ship(a)  L7-7", "const wrap(b)  L8-8"]),
    "m.ts": ("interface Item { id: number }\nexport class Store {\n  get(id: number): Item { return null as any }\n"
             "  put: Put = (item: Item) => {}\n}\ntype Id = number;\nenum Color { Red }\n",
             ["interface Item  L1-1", "class Store  L2-5", "  method get(id: number)  L3-3",
              "  method put(item: Item)  L4-4", "type Id  L6-6", "enum Color  L7-7"]),
    "m.tsx": ("export function App(props: P) {\n  return <div/>;\n}\n", ["function App(props: P)  L1-3"]),
    "m.go": ("package m\n\ntype Server struct{}\n\nfunc (s *Server) Run(port int) error {\n\treturn nil\n}\n\n"
             "func main() {}\n",
             ["type Server  L3-3", "method Server.Run(port int)  L5-7", "func main()  L9-9"]),
    "m.rs": ("struct Point { x: i32 }\nimpl Point {\n    fn norm(&self) -> i32 { 0 }\n}\ntrait Draw {}\n"
             "fn main() {}\npub type Result<T, E = Error> = core::result::Result<T, E>;\n",
             ["struct Point  L1-1", "impl Point  L2-4", "  fn norm(&self)  L3-3", "trait Draw  L5-5",
              "fn main()  L6-6", "type Result  L7-7"]),
    "M.java": ("public class M {\n  public M() {}\n  int size(String s) { return 0; }\n}\n",
               ["class M  L1-4", "  constructor M()  L2-2", "  method size(String s)  L3-3"]),
    "m.c": ("struct node { int v; };\nstatic int add(int a, int b) {\n  return a + b;\n}\n",
            ["struct node  L1-1", "function add(int a, int b)  L2-4"]),
    "m.cpp": ("namespace geo {\nclass Box {\n public:\n  int area() const { return 0; }\n};\n}\n"
              "int Box::volume() { return 1; }\n",
              ["namespace geo  L1-6", "  class Box  L2-5", "    function area() const  L4-4",
               "function Box::volume()  L7-7"]),
}


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_outline_per_language(make_call, name: str) -> None:
    source, expected = SAMPLES[name]
    out = make_call({name: source})("file_outline", path=name)
    assert out.ok, out.content
    assert out.content.splitlines()[1:] == expected


def test_outline_pages_and_refuses_unknown_languages(make_call) -> None:
    source = "".join(f"def f{i}():\n    pass\n" for i in range(30))
    call = make_call({"many.py": source, "notes.md": "# hi\n"}, list_max_entries=10)
    out = call("file_outline", path="many.py")
    assert 'next: file_outline(path="many.py", start_line=21)' in out.content
    assert call("file_outline", path="many.py", start_line=21).content.splitlines()[1] == "def f10()  L21-22"
    unknown = call("file_outline", path="notes.md")
    assert not unknown.ok and 'read_file(path="notes.md")' in unknown.content


# Shapes the code index's walker knew before file_outline did: JS methods assigned to a prototype
# or to exports, Go type aliases and grouped type declarations. Both now share one walker.
ONLY_THE_INDEX_KNEW = {
    "layer.js": ("function Layer(path) {}\n\nLayer.prototype.match = function match(path) {\n  return 1\n}\n"
                 "exports.init = function (app) {};\n",
                 ["function Layer(path)  L1-1", "function Layer.match  L3-5", "function exports.init  L6-6"],
                 {"Layer", "Layer.match", "exports.init"}),
    "types.go": ("package m\n\ntype (\n\tA struct{}\n\tB = A\n)\n\ntype ID = string\n",
                 ["type A  L4-4", "type B  L5-5", "type ID  L8-8"], {"A", "B", "ID"}),
}


@pytest.mark.parametrize("name", sorted(ONLY_THE_INDEX_KNEW))
def test_outline_shows_the_definitions_the_index_chunks(make_call, name: str) -> None:
    from app.index.chunking import ChunkLimits, chunk_file

    source, expected, symbols = ONLY_THE_INDEX_KNEW[name]
    out = make_call({name: source})("file_outline", path=name)
    assert out.content.splitlines()[1:] == expected
    chunks = chunk_file(name, source.split("\n"), ChunkLimits(window=10, overlap=2, max_lines=40, config_lines=30))
    assert symbols <= {c.symbol for c in chunks}


def test_outline_reuses_one_parser_per_language(make_call, monkeypatch) -> None:
    import tree_sitter

    call = make_call({"a.py": "def f():\n    pass\n", "b.py": "class C:\n    pass\n"})
    assert call("file_outline", path="a.py").ok
    built: list[object] = []
    real = tree_sitter.Parser
    monkeypatch.setattr(tree_sitter, "Parser", lambda *a: built.append(a) or real(*a))
    assert call("file_outline", path="b.py").content.splitlines()[1] == "class C  L1-2"
    assert built == []

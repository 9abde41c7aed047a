"""Definitions as chunks, by tree-sitter: each function and method with the comments and docstring
that belong to it; each class (struct, trait, impl, interface) as a header chunk of its own lines
outside its methods; module-level code between definitions as windows.

Only statement-level nodes are visited, never expressions or function bodies: a function's nested
helpers belong to it, and walking every node of a large tree in Python would cost seconds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from app.index.values import Chunk, ChunkKind

_FUNCTIONS = {
    "function_definition",
    "function_declaration",
    "generator_function_declaration",
    "method_definition",
    "method_declaration",
    "constructor_declaration",
    "function_item",
    "function_signature_item",
    "arrow_function",
    "function_expression",
    "function",
    "generator_function",
}
_CONTAINERS = {
    "class_definition",
    "class_declaration",
    "abstract_class_declaration",
    "class_specifier",
    "struct_specifier",
    "union_specifier",
    "enum_specifier",
    "interface_declaration",
    "enum_declaration",
    "record_declaration",
    "annotation_type_declaration",
    "struct_item",
    "enum_item",
    "trait_item",
    "impl_item",
    "union_item",
    "type_declaration",
    "type_alias_declaration",
}
# Nodes to look inside for definitions: files, bodies of classes and namespaces, wrappers.
_DESCEND = {
    "module",
    "program",
    "source_file",
    "translation_unit",
    "compilation_unit",
    "block",
    "if_statement",
    "else_clause",
    "elif_clause",
    "try_statement",
    "except_clause",
    "finally_clause",
    "with_statement",
    "decorated_definition",
    "export_statement",
    "lexical_declaration",
    "variable_declaration",
    "variable_declarator",
    "class_body",
    "body",
    "declaration_list",
    "field_declaration_list",
    "namespace_definition",
    "internal_module",
    "module_declaration",
    "mod_item",
    "template_declaration",
    "preproc_ifdef",
    "preproc_if",
    "preproc_else",
    "linkage_specification",
    "ambient_declaration",
    "statement_block",
    "interface_body",
    "enum_body",
    "enum_body_declarations",
    "expression_statement",
}
_WRAPPERS = {
    "decorated_definition",
    "export_statement",
    "lexical_declaration",
    "expression_statement",
    "variable_declaration",
    "template_declaration",
    "ambient_declaration",
}
_COMMENTS = {"comment", "line_comment", "block_comment"}


@dataclass(frozen=True)
class Definition:
    kind: ChunkKind
    name: str  # qualified: 'Class.method'
    start: int  # 0-based rows, inclusive, comments and decorators included
    end: int
    doc: str
    container: bool


def definitions(tree, source: bytes) -> list[Definition]:
    found: list[Definition] = []
    _visit(tree.root_node, "", source, found)
    return found


def _visit(node, owner: str, source: bytes, found: list[Definition]) -> None:
    for child in node.named_children:
        kind = _kind_of(child, owner)
        name = _name(child) if kind else None
        if kind and name:
            qualified = f"{owner}.{name}" if owner else name
            start, doc = _leading(child, source)
            container = kind is ChunkKind.CLASS
            doc += _docstring(child, source)
            found.append(Definition(kind, qualified, start, child.end_point[0], doc, container))
            if container:
                _visit(child, qualified, source, found)
        elif child.type in _DESCEND or child.type.endswith("_body"):
            _visit(child, owner, source, found)


def _kind_of(node, owner: str) -> ChunkKind | None:
    if node.type in _CONTAINERS:
        return ChunkKind.CLASS if _has_body(node) else None
    if node.type in ("arrow_function", "function_expression", "function", "generator_function"):
        return None  # anonymous: named through the variable_declarator that holds it
    if node.type == "variable_declarator":
        value = node.child_by_field_name("value")
        return ChunkKind.FUNCTION if value is not None and value.type in _FUNCTIONS else None
    if node.type == "assignment_expression":  # JS: `Layer.prototype.match = function match() {}`
        value = node.child_by_field_name("right")
        return ChunkKind.FUNCTION if value is not None and value.type in _FUNCTIONS else None
    if node.type in _FUNCTIONS:
        return ChunkKind.METHOD if owner else ChunkKind.FUNCTION
    return None


def _has_body(node) -> bool:
    if node.type in ("struct_specifier", "enum_specifier", "union_specifier", "class_specifier"):
        return node.child_by_field_name("body") is not None  # not a mere `struct x *p;` reference
    return True


def _name(node) -> str | None:
    if node.type == "impl_item":
        target, trait = node.child_by_field_name("type"), node.child_by_field_name("trait")
        return _short(target) if trait is None else f"{_short(trait)} for {_short(target)}"
    if node.type == "assignment_expression":
        left = node.child_by_field_name("left")
        return _short(left).replace(".prototype.", ".") if left is not None else None
    if node.type == "type_declaration":
        spec = next((c for c in node.named_children if c.type in ("type_spec", "type_alias")), None)
        return _name(spec) if spec is not None else None
    named = node.child_by_field_name("name")
    if named is not None:
        return _short(named)
    return _declarator_name(node.child_by_field_name("declarator"))


def _declarator_name(declarator) -> str | None:
    """C/C++: the name is inside (pointer) function declarators, the innermost one."""
    while declarator is not None:
        inner = declarator.child_by_field_name("declarator")
        if inner is None:
            return _short(declarator)
        declarator = inner
    return None


def _short(node) -> str:
    text = " ".join(node.text.decode("utf-8", "replace").split())
    return text[:80]


def _leading(node, source: bytes) -> tuple[int, str]:
    """The first row including decorators, export/const wrappers and the comments just above."""
    outer = node
    while outer.parent is not None and outer.parent.type in _WRAPPERS:
        outer = outer.parent
    start = outer.start_point[0]
    comments: list[str] = []
    prev = outer.prev_named_sibling
    while prev is not None and prev.type in _COMMENTS and prev.end_point[0] >= start - 1:
        start = prev.start_point[0]
        comments.append(source[prev.start_byte : prev.end_byte].decode("utf-8", "replace"))
        prev = prev.prev_named_sibling
    return start, "\n".join(reversed(comments))


def _docstring(node, source: bytes) -> str:
    """Python's docstring: the first statement of the body when it is a string."""
    body = node.child_by_field_name("body")
    if body is None or node.type not in ("function_definition", "class_definition"):
        return ""
    first = body.named_children[0] if body.named_children else None
    if first is None or first.type != "expression_statement" or not first.named_children:
        return ""
    string = first.named_children[0]
    return (
        source[string.start_byte : string.end_byte].decode("utf-8", "replace")
        if string.type == "string"
        else ""
    )


# Module-level names worth finding by symbol: `MAX_ITEMS = 5000`, `const port = 80`, `var x int`.
_ASSIGNED = re.compile(
    r"^(?:export\s+)?(?:(?:pub\s+)?(?:const|let|var|static|final|public|private)\s+)*"
    r"(?:[\w<>\[\], ]+\s+)??([A-Za-z_]\w*)\s*(?::[^=\n]{0,80})?(?<![=!<>])=(?!=)",
    re.MULTILINE,
)


_IMPORT_LINE = re.compile(
    r"\s*(?:import\b|from\s+[\w.]+\s+import\b|#\s*include\b|use\s+[\w:]+|using\s+[\w.]+|"
    r"package\s+[\w.]+|(?:const|let|var)\s+[\w{}\s,]+=\s*require\(|[\w\s,]*,\s*$|\)\s*$|"
    r"\}\s*from\s|['\"][^'\"]+['\"];?\s*$)"
)
_REMARKS = ("#", "//", "/*", "*", "\"\"\"")  # licence headers, docstrings: not counted
IMPORTS_SHARE = 0.6  # this share of a code chunk's lines import something: a list of imports


def mostly_imports(text: str) -> bool:
    """Import lists match many names yet rarely answer a question; they rank lower."""
    lines = [ln for ln in text.split("\n") if ln.strip() and not ln.lstrip().startswith(_REMARKS)]
    hits = sum(1 for ln in lines if _IMPORT_LINE.match(ln))
    return bool(lines) and hits >= IMPORTS_SHARE * len(lines)


def assigned_names(text: str) -> tuple[str, ...]:
    """Names given a value at the start of a line (no indentation): constants and settings."""
    return tuple(dict.fromkeys(m.group(1) for m in _ASSIGNED.finditer(text)))


def code_chunks(lines: list[str], defs: list[Definition], max_lines: int, window: int, overlap: int) -> list[Chunk]:
    """Chunks for definitions (long ones split), class headers and the code between definitions."""
    chunks: list[Chunk] = []
    # owner of each line: '' module level, a class's name, or None inside a function
    covered: list[str | None] = [""] * len(lines)
    for d in defs:
        if d.container:
            _mark(covered, d, d.name)
        else:
            _mark(covered, d, None)
            chunks += spans(lines, d.start, d.end, d.kind, d.name, d.doc, max_lines, overlap)
    docs = {d.name: d.doc for d in reversed(defs) if d.container}  # an impl's name may repeat
    for name, doc in docs.items():
        chunks += _leftovers(lines, covered, name, ChunkKind.CLASS, doc, max_lines, overlap)
    chunks += _leftovers(lines, covered, "", ChunkKind.CODE, "", window, overlap)
    return chunks


def _mark(covered: list[str | None], d: Definition, owner: str | None) -> None:
    for row in range(d.start, min(d.end, len(covered) - 1) + 1):
        covered[row] = owner


def _leftovers(lines: list[str], covered: list[str | None], owner: str, kind: ChunkKind, doc: str, window: int,
               overlap: int) -> list[Chunk]:
    """Windows over the runs of lines that belong to `owner` itself and are not all blank."""
    chunks: list[Chunk] = []
    for row, end in _runs(covered, owner):
        first, last = _trimmed(lines, row, end)
        if first <= last and any(any(ch.isalnum() for ch in lines[r]) for r in range(first, last + 1)):
            chunks += spans(lines, first, last, kind, owner, doc, window, overlap)
    return chunks


def _runs(covered: list[str | None], owner: str) -> list[tuple[int, int]]:
    """The first and last row of each unbroken run of rows that `owner` holds."""
    runs: list[tuple[int, int]] = []
    row = 0
    while row < len(covered):
        if covered[row] != owner:
            row += 1
            continue
        end = row
        while end + 1 < len(covered) and covered[end + 1] == owner:
            end += 1
        runs.append((row, end))
        row = end + 1
    return runs


def _trimmed(lines: list[str], first: int, last: int) -> tuple[int, int]:
    """The rows without blank lines at either end (first > last when they are all blank)."""
    while first <= last and not lines[first].strip():
        first += 1
    while last > first and not lines[last].strip():
        last -= 1
    return first, last


def spans(lines: list[str], start: int, end: int, kind: ChunkKind, symbol: str, doc: str, size: int,
          overlap: int) -> list[Chunk]:
    """One chunk for rows start..end, or overlapping windows of `size` when it is longer."""
    out: list[Chunk] = []
    while end > start and not lines[end].strip():
        end -= 1
    first = start
    while True:
        last = min(end, first + size - 1)
        out.append(_window(lines, first, last, kind, symbol, doc if first == start else ""))
        if last >= end:
            return out
        first = max(first + 1, last + 1 - overlap)


def _window(lines: list[str], first: int, last: int, kind: ChunkKind, symbol: str, doc: str) -> Chunk:
    text = "\n".join(lines[first : last + 1])
    names = assigned_names(text) if kind is ChunkKind.CODE else ()
    what = ChunkKind.IMPORTS if kind is ChunkKind.CODE and mostly_imports(text) else kind
    return Chunk(first + 1, last + 1, what, symbol, text, doc, names)

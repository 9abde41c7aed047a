"""The definitions in a source file, by tree-sitter: one walker and one node table for the code index
(a chunk per definition) and the file_outline tool (a line per definition).

The index walks only statement-level nodes: a function's nested helpers belong to it, and walking
every node of a large tree in Python would cost seconds. The outline (`everywhere=True`) also looks
inside functions and expressions, so it lists nested helpers and callbacks' definitions too.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from enum import Enum

from app.index.languages import parser_for
from app.index.values import ChunkKind


class Role(Enum):
    FUNCTION = "function"  # a method when it is inside a container
    CONTAINER = "container"  # a class, struct, trait, impl, interface: the index's header chunk
    SCOPE = "scope"  # a namespace or module: the outline lists it, the index only looks inside


# node type -> (role, the word the outline shows); LANGUAGE_WORDS overrides the word per language.
NODES: dict[str, tuple[Role, str]] = {
    "function_definition": (Role.FUNCTION, "function"),
    "function_declaration": (Role.FUNCTION, "function"),
    "generator_function_declaration": (Role.FUNCTION, "function"),
    "function_signature": (Role.FUNCTION, "function"),
    "method_definition": (Role.FUNCTION, "method"),
    "method_declaration": (Role.FUNCTION, "method"),
    "constructor_declaration": (Role.FUNCTION, "constructor"),
    "function_item": (Role.FUNCTION, "fn"),
    "function_signature_item": (Role.FUNCTION, "fn"),
    "macro_definition": (Role.FUNCTION, "macro"),
    "preproc_function_def": (Role.FUNCTION, "macro"),  # C: `#define Buffer_Reserve(enc, len) ...`
    "variable_declarator": (Role.FUNCTION, "const"),  # JS: `const ship = (a) => a`
    "assignment_expression": (Role.FUNCTION, "function"),  # JS: `Layer.prototype.match = function`
    "public_field_definition": (Role.FUNCTION, "method"),  # TS: `produce: IProduce = (base) => {`
    "field_definition": (Role.FUNCTION, "method"),  # JS: `produce = (base) => {` in a class body
    "class_definition": (Role.CONTAINER, "class"),
    "class_declaration": (Role.CONTAINER, "class"),
    "class": (Role.CONTAINER, "class"),
    "abstract_class_declaration": (Role.CONTAINER, "class"),
    "class_specifier": (Role.CONTAINER, "class"),
    "struct_specifier": (Role.CONTAINER, "struct"),
    "union_specifier": (Role.CONTAINER, "union"),
    "enum_specifier": (Role.CONTAINER, "enum"),
    "interface_declaration": (Role.CONTAINER, "interface"),
    "enum_declaration": (Role.CONTAINER, "enum"),
    "record_declaration": (Role.CONTAINER, "record"),
    "annotation_type_declaration": (Role.CONTAINER, "@interface"),
    "struct_item": (Role.CONTAINER, "struct"),
    "enum_item": (Role.CONTAINER, "enum"),
    "trait_item": (Role.CONTAINER, "trait"),
    "impl_item": (Role.CONTAINER, "impl"),
    "union_item": (Role.CONTAINER, "union"),
    "type_spec": (Role.CONTAINER, "type"),  # Go: inside a `type` declaration, one per name
    "type_alias": (Role.CONTAINER, "type"),
    "type_alias_declaration": (Role.CONTAINER, "type"),
    "type_item": (Role.CONTAINER, "type"),  # Rust: `pub type Result<T, E = Error> = ...`
    "namespace_definition": (Role.SCOPE, "namespace"),
    "internal_module": (Role.SCOPE, "namespace"),
    "mod_item": (Role.SCOPE, "mod"),
}
LANGUAGE_WORDS: dict[str, dict[str, str]] = {
    "python": {"function_definition": "def"},
    "go": {"function_declaration": "func"},
}
# nodes that define a function only when their value is one (`const f = () => ...`)
_VALUED = {"variable_declarator": "value", "assignment_expression": "right", "public_field_definition": "value",
           "field_definition": "value"}
_ANONYMOUS = {"arrow_function", "function_expression", "function", "generator_function"}
_SPECIFIERS = {"struct_specifier", "enum_specifier", "union_specifier", "class_specifier"}
_GO_SPECS = ("type_spec", "type_alias")
# Nodes to look inside for definitions: files, bodies of classes and namespaces, wrappers.
_DESCEND = {
    "module", "program", "source_file", "translation_unit", "compilation_unit", "block",
    "if_statement", "else_clause", "elif_clause", "try_statement", "except_clause",
    "finally_clause", "with_statement", "decorated_definition", "export_statement",
    "lexical_declaration", "variable_declaration", "variable_declarator", "class_body", "body",
    "declaration_list", "field_declaration_list", "template_declaration", "preproc_ifdef",
    "preproc_if", "preproc_else", "linkage_specification", "ambient_declaration",
    "statement_block", "interface_body", "enum_body", "enum_body_declarations",
    "expression_statement", "type_declaration", "namespace_definition", "internal_module",
    "module_declaration", "mod_item",
}
# A definition's lines start at these wrappers around it (decorators, `export`, `const`).
_WRAPPERS = {
    "decorated_definition", "export_statement", "lexical_declaration", "expression_statement",
    "variable_declaration", "template_declaration", "ambient_declaration", "type_declaration",
}
_COMMENTS = {"comment", "line_comment", "block_comment"}


@dataclass(frozen=True)
class Definition:
    kind: ChunkKind  # CLASS for containers (and scopes), else FUNCTION or METHOD
    word: str  # what the outline calls it: 'def', 'class', 'fn', 'method' ...
    name: str  # qualified: 'Class.method'
    label: str  # as the outline shows it: the name with its parameters
    start: int  # 0-based rows, inclusive, comments and decorators included
    end: int
    line: int  # 0-based row where the node itself starts (after its comments and decorators)
    doc: str
    role: Role
    depth: int  # definitions around it

    @property
    def container(self) -> bool:
        return self.role is Role.CONTAINER


_PARSE_LOCK = threading.Lock()  # parsers are cached per language and are not thread-safe


def parse_definitions(source: bytes, language: str, everywhere: bool = False) -> list[Definition] | None:
    """The definitions in `source`, or None when `language`'s grammar is not installed."""
    parser = parser_for(language)
    if parser is None:
        return None
    with _PARSE_LOCK:
        tree = parser.parse(source)
    return definitions(tree, source, language, everywhere)


def definitions(tree, source: bytes, language: str = "", everywhere: bool = False) -> list[Definition]:
    found: list[Definition] = []
    words = LANGUAGE_WORDS.get(language, {})
    _visit(tree.root_node, _Owner("", 0), source, words, everywhere, found)
    return found


@dataclass(frozen=True)
class _Owner:
    name: str  # qualified name of the container around, or ''
    depth: int


def _visit(node, owner: _Owner, source: bytes, words: dict[str, str], everywhere: bool,
           found: list[Definition]) -> None:
    for child in node.named_children:
        role = _role_of(child)
        name = _name(child) if role else None
        if role and name:
            d = _definition(child, role, name, owner, source, words)
            found.append(d)
            if role is Role.CONTAINER:
                _visit(child, _Owner(d.name, owner.depth + 1), source, words, everywhere, found)
            elif role is Role.SCOPE or everywhere:
                _visit(child, _Owner(owner.name, owner.depth + 1), source, words, everywhere, found)
        elif everywhere or child.type in _DESCEND or child.type.endswith("_body"):
            _visit(child, owner, source, words, everywhere, found)


def _definition(node, role: Role, name: str, owner: _Owner, source: bytes, words: dict[str, str]) -> Definition:
    receiver = None if owner.name else _receiver(node)
    qualified = f"{owner.name or receiver}.{name}" if owner.name or receiver else name
    if role is Role.FUNCTION:
        kind = ChunkKind.METHOD if (owner.name or receiver) and node.type not in (
            "variable_declarator", "assignment_expression") else ChunkKind.FUNCTION
    else:
        kind = ChunkKind.CLASS
    start, doc = _leading(node, source)
    word = words.get(node.type, NODES[node.type][1])
    label = _label(node)
    return Definition(kind, word, qualified, f"{receiver}.{label}" if receiver else label, start,
                      _last_row(node), node.start_point[0], doc + _docstring(node, source), role, owner.depth)


def _last_row(node) -> int:
    """The node's last row; a C macro's node ends after its newline, at column 0 of the next row."""
    row, column = node.end_point
    return row - 1 if column == 0 and row > node.start_point[0] else row


def _receiver(node) -> str | None:
    """Go: the type a method's receiver names (`func (f *JSONFormatter) Format` -> JSONFormatter), so
    the method is `JSONFormatter.Format` as a class's method is `Class.method` (a Go file's methods
    sit at its top level; a bare `Format` said nothing of which of five formatters it was)."""
    receiver = node.child_by_field_name("receiver") if node.type == "method_declaration" else None
    queue = [receiver] if receiver is not None else []
    while queue:  # breadth first: `*List[T]` names List before its type argument T
        current = queue.pop(0)
        if current.type == "type_identifier":
            return _short(current)
        queue.extend(current.named_children)
    return None


def _role_of(node) -> Role | None:
    entry = NODES.get(node.type)
    if entry is None:
        return None
    if node.type in _SPECIFIERS:  # not a mere `struct x *p;` reference
        return entry[0] if node.child_by_field_name("body") is not None else None
    if node.type in _VALUED:
        value = node.child_by_field_name(_VALUED[node.type])
        return entry[0] if value is not None and value.type in _ANONYMOUS else None
    return entry[0]


def _name(node) -> str | None:
    if node.type == "impl_item":
        target, trait = node.child_by_field_name("type"), node.child_by_field_name("trait")
        return _short(target) if trait is None else f"{_short(trait)} for {_short(target)}"
    if node.type == "assignment_expression":
        left = node.child_by_field_name("left")
        return _short(left).replace(".prototype.", ".") if left is not None else None
    named = node.child_by_field_name("name") or node.child_by_field_name("property")
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


def _label(node) -> str:
    """The name with its parameters; C/C++'s declarator already holds both."""
    if node.type == "impl_item" or node.type == "assignment_expression":
        return _name(node) or ""
    named = node.child_by_field_name("name") or node.child_by_field_name("property")
    if named is None:
        declarator = node.child_by_field_name("declarator")
        return _text(declarator) if declarator is not None else ""
    params = node.child_by_field_name("parameters")
    if node.type in _VALUED and (value := node.child_by_field_name(_VALUED[node.type])) is not None:
        params = value.child_by_field_name("parameters")  # `x => x` has one bare `parameter`
        if params is None and (bare := value.child_by_field_name("parameter")) is not None:
            return f"{_text(named)}({_text(bare)})"
    return _text(named) + (_text(params) if params is not None else "")


def _short(node) -> str:
    return " ".join(node.text.decode("utf-8", "replace").split())[:80]


def _text(node) -> str:
    text = " ".join(node.text.decode("utf-8", "replace").split())
    return text if len(text) <= 120 else text[:117] + "..."


def _leading(node, source: bytes) -> tuple[int, str]:
    """The first row including decorators, export/const wrappers and the comments just above."""
    outer = node
    while outer.parent is not None and outer.parent.type in _WRAPPERS and not _grouped(outer):
        outer = outer.parent
    start = outer.start_point[0]
    comments: list[str] = []
    prev = outer.prev_named_sibling
    while prev is not None and prev.type in _COMMENTS and prev.end_point[0] >= start - 1:
        start = prev.start_point[0]
        comments.append(source[prev.start_byte : prev.end_byte].decode("utf-8", "replace"))
        prev = prev.prev_named_sibling
    return start, "\n".join(reversed(comments))


def _grouped(node) -> bool:
    """Go's `type ( A ...; B ... )`: each type starts at its own line, not at the group's."""
    parent = node.parent
    return parent.type == "type_declaration" and sum(c.type in _GO_SPECS for c in parent.named_children) > 1


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

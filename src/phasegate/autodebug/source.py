"""Small, exact edits of Python source text, for the patterns that build candidates.

Every function takes and returns the whole text of a file, so a candidate is simply the new
text. Line endings are kept as the file has them. Columns are 0-based character offsets;
the AST's UTF-8 byte offsets are converted by :func:`node_span`.
"""

from __future__ import annotations

import ast
import io
import sys
import tokenize
import warnings
from collections.abc import Callable, Iterator
from typing import Literal

from phasegate.autodebug.import_gaps import vacated_lines
from phasegate.autodebug.import_joins import stands_alone

__all__ = [
    "Span",
    "ast_equal",
    "binding",
    "compiles",
    "count_names",
    "enclosing_function",
    "insert_import",
    "insert_lines",
    "leading_imports",
    "line_indent",
    "node_span",
    "parse",
    "rename_names",
    "replace_span",
    "segment",
    "split_lines",
    "top_level_names",
]

Span = tuple[int, int, int, int]  # line, col, end_line, end_col


def split_lines(text: str) -> list[str]:
    """The lines of ``text`` with their line endings, split at ``\n`` only (as the AST is).

    ``str.splitlines`` would also split at form feeds and other separators that Python
    source may hold inside a line.
    """
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def parse(text: str) -> ast.Module | None:
    """The syntax tree of ``text``, or None if it does not parse."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escape sequences and the like
            return ast.parse(text)
    except (SyntaxError, ValueError):
        return None


def compiles(text: str, filename: str = "<candidate>") -> bool:
    """Whether ``text`` compiles as a module (no syntax or indentation error)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(text, filename, "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return False
    return True


def ast_equal(a: str, b: str) -> bool:
    """Whether two sources have the same syntax tree (formatting and comments aside)."""
    tree_a, tree_b = parse(a), parse(b)
    if tree_a is None or tree_b is None:
        return False
    return ast.dump(tree_a) == ast.dump(tree_b)


def _char_col(text: str, byte_col: int) -> int:
    return len(text.encode("utf-8")[:byte_col].decode("utf-8", errors="replace"))


_POSITION = ("lineno", "col_offset", "end_lineno", "end_col_offset")


def node_span(node: ast.AST, lines: list[str]) -> Span | None:
    """``(line, col, end_line, end_col)`` of ``node`` in characters, or None if unknown."""
    known = [getattr(node, attribute, None) for attribute in _POSITION]
    position = [value for value in known if isinstance(value, int)]
    if len(position) < len(_POSITION):
        return None
    line, col, end_line, end_col = position
    return (
        line,
        _char_col(_line_text(lines, line), col),
        end_line,
        _char_col(_line_text(lines, end_line), end_col),
    )


def _line_text(lines: list[str], line: int) -> str:
    """The text of 1-based ``line``, or "" if the file has no such line."""
    return lines[line - 1] if 0 < line <= len(lines) else ""


def _offset(lines: list[str], line: int, col: int) -> int:
    return sum(len(text) for text in lines[: line - 1]) + col


def segment(text: str, span: Span) -> str:
    """The text of ``span``."""
    lines = split_lines(text)
    return text[_offset(lines, span[0], span[1]) : _offset(lines, span[2], span[3])]


def replace_span(text: str, span: Span, new: str) -> str:
    """``text`` with ``span`` replaced by ``new``."""
    lines = split_lines(text)
    start = _offset(lines, span[0], span[1])
    end = _offset(lines, span[2], span[3])
    return text[:start] + new + text[end:]


def _newline(text: str) -> str:
    return "\r\n" if "\r\n" in text else "\n"


def line_indent(line: str) -> str:
    """The leading whitespace of ``line``."""
    return line[: len(line) - len(line.lstrip(" \t"))]


def insert_lines(text: str, before_line: int, new_lines: list[str]) -> str:
    """Insert ``new_lines`` (without endings) before 1-based ``before_line``."""
    lines = split_lines(text)
    newline = _newline(text)
    if lines and not lines[-1].endswith(("\n", "\r")):
        lines[-1] += newline
    block = [line + newline for line in new_lines]
    index = max(0, min(before_line - 1, len(lines)))
    return "".join(lines[:index] + block + lines[index:])


def _import_key(stmt: ast.Import | ast.ImportFrom) -> tuple[int, int, str]:
    """Where an import sorts, as isort and ruff order them: ``__future__``, the standard
    library, other absolute imports, relative imports; ``import x`` before ``from x``."""
    if isinstance(stmt, ast.ImportFrom):
        module = stmt.module or ""
        # After the module, the first name: a file that imports one name per statement
        # (isort's ``force_single_line``) keeps a module's statements in the names' order.
        name = f"{'.' * stmt.level}{module} {stmt.names[0].name}".lower()
        return (_from_section(module, stmt.level), 1, name)
    module = stmt.names[0].name
    return (_absolute_section(module), 0, module.lower())


def _from_section(module: str, level: int) -> int:
    """The section of ``from module import ...``: 0 ``__future__``, 3 relative, else absolute."""
    if module == "__future__":
        return 0
    return 3 if level else _absolute_section(module)


def _absolute_section(module: str) -> int:
    """1 for a module of the standard library (a private one too: ``_thread``), 2 for any
    other absolute import."""
    from phasegate.autodebug.stdlib import is_stdlib_module

    top = module.split(".")[0]
    return 1 if top in sys.stdlib_module_names or is_stdlib_module(top) else 2


def _plain_import_key(stmt: ast.Import | ast.ImportFrom) -> tuple[int, int, str]:
    """isort's order with ``force_sort_within_sections``: by module, ``import`` or ``from``."""
    section, _kind, module = _import_key(stmt)
    return (section, 0, module.lstrip("."))


def _sorted_by(
    header: list[ast.Import | ast.ImportFrom],
    key: Callable[[ast.Import | ast.ImportFrom], tuple[int, int, str]],
) -> bool:
    keys = [key(stmt) for stmt in header]
    return keys == sorted(keys)


def _is_dunder_assignment(stmt: ast.stmt) -> bool:
    """``__all__ = ...``, ``__version__ = ...``: what may sit among a module's imports."""
    targets = stmt.targets if isinstance(stmt, ast.Assign) else []
    return bool(targets) and all(
        isinstance(t, ast.Name) and t.id.startswith("__") and t.id.endswith("__") for t in targets
    )


def _imports_follow(body: list[ast.stmt]) -> bool:
    """Whether imports come after the leading dunder assignments of ``body``."""
    for stmt in body:
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            return True
        if not _is_dunder_assignment(stmt):
            return False
    return False


def _name_key(alias: ast.alias) -> tuple[int, str]:
    """isort's order of imported names: CONSTANTS, Classes, functions."""
    name = alias.name
    kind = 0 if name.isupper() and len(name) > 1 else 1 if name[:1].isupper() else 2
    return (kind, name.lower())


def _from_statement(stmt: ast.ImportFrom, aliases: list[ast.alias], indent: str) -> str:
    names = [f"{a.name} as {a.asname}" if a.asname else a.name for a in aliases]
    head = f"from {'.' * stmt.level}{stmt.module or ''} import "
    line = head + ", ".join(names)
    if len(indent) + len(line) <= 100:
        return line
    body = "".join(f"{indent}    {name},\n" for name in names)
    return f"{head}(\n{body}{indent})"


ImportNode = ast.Import | ast.ImportFrom
ImportKey = Callable[[ImportNode], tuple[int, int, str]]


def insert_import(text: str, statement: str) -> str | None:
    """Add the import ``statement`` as a careful person would; None if the text does not parse.

    A name imported from a module the file already imports from joins that statement.
    Otherwise the statement goes among the module's leading imports where isort would put
    it, or after the docstring, or after leading comment lines.
    """
    tree = parse(text)
    new = _import_statement(statement)
    if tree is None or new is None:
        return None
    lines = split_lines(text)
    header, after = leading_imports(tree)
    if isinstance(new, ast.ImportFrom):
        joined = _joinable_import(header, new)
        if joined is not None:
            return _joined(text, lines, joined, new)
    line = _future_bound(tree, new, _import_line(header, new, after, lines))
    result = insert_lines(text, line, [statement])
    # A place no rule foresaw must not turn a file that compiles into one that does not.
    return result if compiles(result) or not compiles(text) else None


def _future_bound(tree: ast.Module, new: ImportNode, line: int) -> int:
    """``line``, moved where Python accepts the import: a ``__future__`` import before every
    statement but the docstring and the other ``__future__`` imports, any other after them."""
    futures = [s for s in tree.body if isinstance(s, ast.ImportFrom) and s.module == "__future__"]
    if isinstance(new, ast.ImportFrom) and new.module == "__future__":
        start = 1 if tree.body and _is_docstring(tree.body[0]) else 0
        rest = [s for s in tree.body[start:] if s not in futures]
        return min(line, rest[0].lineno) if rest else line
    return max(line, _line_after(futures[-1])) if futures else line


def _import_statement(statement: str) -> ImportNode | None:
    """The one import ``statement`` holds, or None if it holds no import."""
    tree = parse(statement)
    new = tree.body[0] if tree is not None and tree.body else None
    return new if isinstance(new, (ast.Import, ast.ImportFrom)) else None


def leading_imports(tree: ast.Module) -> tuple[list[ImportNode], int]:
    """The module's leading imports, and the last line of its docstring and leading dunder
    assignments before them (0 if none)."""
    header: list[ImportNode] = []
    after = 0
    for index, stmt in enumerate(tree.body):
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            header.append(stmt)
        elif _ends_imports(tree.body, index, bool(header)):
            break
        after = stmt.end_lineno or stmt.lineno
    return header, after


def _ends_imports(body: list[ast.stmt], index: int, imports_seen: bool) -> bool:
    """Whether ``body[index]``, not an import, ends the module's leading imports: anything
    but the docstring and leading dunder assignments does; so does ``__all__ = ...`` after
    the imports, or with none after it."""
    stmt = body[index]
    if _is_dunder_assignment(stmt):
        return imports_seen or not _imports_follow(body[index:])
    return not (index == 0 and _is_docstring(stmt))


def _is_docstring(stmt: ast.stmt) -> bool:
    return (
        isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Constant)
        and isinstance(stmt.value.value, str)
    )


def _joinable_import(header: list[ImportNode], new: ast.ImportFrom) -> ast.ImportFrom | None:
    """The ``from`` import of the same module ``new`` can join (not a ``*`` import); none
    when the file imports one name per statement (two ``from`` imports of one module), or
    keeps ``new`` on a line of its own (:mod:`phasegate.autodebug.import_joins`)."""
    if _one_name_per_statement(header):
        return None
    for stmt in header:
        if (
            isinstance(stmt, ast.ImportFrom)
            and (stmt.module, stmt.level) == (new.module, new.level)
            and all(a.name != "*" for a in stmt.names)
        ):
            return None if stands_alone(header, new, stmt) else stmt
    return None


def _one_name_per_statement(header: list[ImportNode]) -> bool:
    """Whether the file imports from a module in two statements or more, as isort's
    ``force_single_line`` writes them."""
    modules = [(s.module, s.level) for s in header if isinstance(s, ast.ImportFrom)]
    return len(modules) != len(set(modules))


def _joined(text: str, lines: list[str], stmt: ast.ImportFrom, new: ast.ImportFrom) -> str | None:
    """``text`` with the names of ``new`` added to ``stmt``, in isort's order."""
    span = node_span(stmt, lines)
    if span is None:
        return None
    known = {(a.name, a.asname) for a in stmt.names}
    merged = [*stmt.names, *(a for a in new.names if (a.name, a.asname) not in known)]
    indent = line_indent(lines[stmt.lineno - 1])
    return replace_span(text, span, _from_statement(stmt, sorted(merged, key=_name_key), indent))


def _import_line(header: list[ImportNode], new: ImportNode, after: int, lines: list[str]) -> int:
    """The line the new import goes before: as the file orders its imports already
    (isort's default, or by module alone; else its own order), or after
    the docstring and leading comments."""
    if not header:
        return (after or _leading_comments(lines)) + 1
    for key in (_import_key, _plain_import_key):
        if _sorted_by(header, key):
            return _line_in_order(header, key, new)
    return _vacated_line(header, new, lines) or _line_in_own_order(header, new)


def _vacated_line(header: list[ImportNode], new: ImportNode, lines: list[str]) -> int | None:
    """Where a block of one import was, when the header shows one such place (see
    :mod:`phasegate.autodebug.import_gaps`) and ``new`` is of a group none of its imports is
    of: a lone block was the only one of its group."""
    if _import_group(new) in {_import_group(stmt) for stmt in header}:
        return None
    places = vacated_lines([(s.lineno, s.end_lineno or s.lineno) for s in header], lines)
    return places[0] if len(places) == 1 else None


def _import_group(stmt: ImportNode) -> tuple[int, str]:
    """The group an import is kept in: its section, and for another project's module, that
    project (its top-level package)."""
    section = _import_key(stmt)[0]
    return (section, _top_module(stmt) if section == 2 else "")


def _line_in_order(imports: list[ImportNode], key: ImportKey, new: ImportNode) -> int:
    """Before the first of ``imports`` that sorts after ``new``, else after the last."""
    wanted = key(new)
    later = next((stmt for stmt in imports if key(stmt) > wanted), None)
    return later.lineno if later is not None else _line_after(imports[-1])


def _line_after(stmt: ast.stmt) -> int:
    return (stmt.end_lineno or stmt.lineno) + 1


def _leading_comments(lines: list[str]) -> int:
    """How many comment lines (a shebang, a licence) the file begins with."""
    count = 0
    while count < len(lines) and lines[count].lstrip().startswith("#"):
        count += 1
    return count


def _line_in_own_order(header: list[ImportNode], new: ImportNode) -> int:
    """An order of the file's own: the import goes into the block of imports (imports with
    no blank line between them) that holds its section, ordered as that block is ordered;
    else before the first import of its kind (``import`` or ``from``) and section that sorts
    after it, in that block or else anywhere (else after the last of them), where a file
    out of order most often had it; with none of its kind, where isort would put it."""
    block = _own_block(header, new) or []
    for key in (_import_key, _plain_import_key):
        if block and _sorted_by(block, key):
            return _line_in_order(block, key, new)
    group = _same_kind(block, new) or _same_kind(header, new)
    return _line_in_order(group or header, _import_key, new)


def _import_blocks(header: list[ImportNode]) -> list[list[ImportNode]]:
    """The imports in runs of adjacent lines: isort's sections, as blank lines mark them."""
    blocks: list[list[ImportNode]] = []
    for stmt in header:
        if blocks and stmt.lineno == _line_after(blocks[-1][-1]):
            blocks[-1].append(stmt)
        else:
            blocks.append([stmt])
    return blocks


def _top_module(stmt: ImportNode) -> str:
    """The top-level package an import reads, with the dots of a relative one."""
    if isinstance(stmt, ast.ImportFrom):
        return "." * stmt.level + (stmt.module or "").split(".")[0]
    return stmt.names[0].name.split(".")[0]


def _own_block(header: list[ImportNode], new: ImportNode) -> list[ImportNode] | None:
    """The block ``new`` belongs in: of those holding its section, one that imports from
    its top-level package (first party and third party share a section here), else the one
    with most imports of its section; None when no block holds its section."""
    section, top = _import_key(new)[0], _top_module(new)
    held = [block for block in _import_blocks(header) if _count_in_section(block, section)]
    return max(held, key=lambda block: _block_fit(block, section, top), default=None)


def _block_fit(block: list[ImportNode], section: int, top: str) -> tuple[bool, int]:
    """How well a block suits an import of ``top`` in ``section``: its package, then its size."""
    return (top in {_top_module(stmt) for stmt in block}, _count_in_section(block, section))


def _count_in_section(block: list[ImportNode], section: int) -> int:
    return sum(_import_key(stmt)[0] == section for stmt in block)


def _same_kind(imports: list[ImportNode], new: ImportNode) -> list[ImportNode]:
    """Those of ``imports`` of ``new``'s section and kind (``import`` or ``from``)."""
    wanted = _import_key(new)[:2]
    return [stmt for stmt in imports if _import_key(stmt)[:2] == wanted]


def _name_tokens(text: str) -> Iterator[tuple[tokenize.TokenInfo, tokenize.TokenInfo | None]]:
    """Each NAME token with the significant token before it."""
    previous: tokenize.TokenInfo | None = None
    skip = {tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT}
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.NAME:
                yield token, previous
            if token.type not in skip:
                previous = token
    except (tokenize.TokenError, SyntaxError):
        return


Role = Literal["name", "attribute", "any"]


def _wanted(previous: tokenize.TokenInfo | None, role: Role) -> bool:
    """Whether a name after ``previous`` plays ``role``: an attribute follows a dot (or
    ``def``/``class``, renamed with it), a plain name does not follow a dot."""
    before = previous.string if previous is not None else ""
    if role == "name":
        return before != "."
    if role == "attribute":
        return before in (".", "def", "class")
    return True


def _occurrences(
    text: str, name: str, first_line: int, last_line: int | None, role: Role
) -> list[tokenize.TokenInfo]:
    """The NAME tokens of ``name`` playing ``role`` between the lines given."""
    return [
        token
        for token, previous in _name_tokens(text)
        if token.string == name
        and first_line <= token.start[0] <= (last_line or token.start[0])
        and _wanted(previous, role)
    ]


def count_names(
    text: str,
    name: str,
    *,
    first_line: int = 1,
    last_line: int | None = None,
    role: Role = "any",
) -> int:
    """How many times the identifier ``name`` occurs (as a token) between the lines given."""
    return len(_occurrences(text, name, first_line, last_line, role))


def rename_names(
    text: str,
    old: str,
    new: str,
    *,
    first_line: int = 1,
    last_line: int | None = None,
    role: Role = "any",
) -> str | None:
    """Rename the identifier ``old`` to ``new`` between the lines given; None if absent.

    ``role="name"`` leaves attribute accesses (``x.old``) alone; ``role="attribute"`` renames
    only those and a ``def``/``class`` of that name. Strings and comments are never touched.
    """
    hits = _occurrences(text, old, first_line, last_line, role)
    if not hits:
        return None
    for token in reversed(hits):
        text = replace_span(text, (*token.start, *token.end), new)
    return text


def top_level_names(body: list[ast.stmt]) -> set[str]:
    """The names the statements of a module's or a class's body bind at its own level:
    defined, imported, or assigned to a plain name."""
    names: set[str] = set()
    for statement in body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(statement.name)
        elif isinstance(statement, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in statement.names)
        elif isinstance(statement, (ast.Assign, ast.AnnAssign)):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            names.update(t.id for t in targets if isinstance(t, ast.Name))
    return names


def enclosing_function(
    tree: ast.Module, line: int
) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The innermost function whose body holds ``line`` (the one that starts last)."""
    holding = [
        node
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        and node.lineno <= line <= (node.end_lineno or node.lineno)
    ]
    return max(holding, key=lambda node: node.lineno, default=None)


def binding(scope: ast.AST, name: str) -> tuple[int, str] | None:
    """Where ``name`` is first bound directly in ``scope`` (a module or a function).

    Returns ``(line, how)`` with ``how`` one of ``parameter``, ``assigned``, ``imported``,
    ``defined``; nested functions and classes are not looked into.
    """
    parameter = _parameter(scope, name)
    if parameter is not None:
        return parameter.lineno, "parameter"
    body = (
        scope.body if isinstance(scope, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef)) else []
    )
    found = [how for node in _walk_scope(body) if (how := _binds(node, name)) is not None]
    return min(found) if found else None


def _parameter(scope: ast.AST, name: str) -> ast.arg | None:
    """The parameter ``name`` of a function or lambda ``scope``."""
    if not isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        return None
    args = scope.args
    every = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
    return next((arg for arg in every if arg is not None and arg.arg == name), None)


def _binds(node: ast.AST, name: str) -> tuple[int, str] | None:
    """``(line, how)`` when ``node`` binds ``name``: assigns, imports or defines it."""
    if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store):
        return node.lineno, "assigned"
    if isinstance(node, (ast.Import, ast.ImportFrom)) and any(
        (alias.asname or alias.name.split(".")[0]) == name for alias in node.names
    ):
        return node.lineno, "imported"
    definitions = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    if isinstance(node, definitions) and node.name == name:
        return node.lineno, "defined"
    return None


def _walk_scope(body: list[ast.stmt]) -> Iterator[ast.AST]:
    """The nodes of a scope's body, not descending into nested functions and classes."""
    stack: list[ast.AST] = list(reversed(body))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        stack.extend(reversed(list(ast.iter_child_nodes(node))))

"""Faults for real projects, made by AST mutation operators: every place each could go.

Each operator walks one source file's syntax tree and yields a :class:`Mutant` for every
place it can inject its fault: the file's complete new text, changed by one exact edit at the
node's position, so every other byte of the file stays as it was. The operators make the same
kinds of slip as the hand-written corpus (``fixtures/faults/``), in code nobody wrote for
auto-debug:

========== ======================== ==========================================================
class      operator                 the fault
========== ======================== ==========================================================
syntax     ``drop-colon``           the ``:`` ending a ``def``/``class``/``if``/``for``/...
           ``drop-paren``           the ``)`` closing a one-line call
           ``drop-comma``           the ``,`` between two arguments of a one-line call
           ``drop-quote``           the closing quote of a one-line string
           ``indent``               a statement indented one level too deep
name       ``name-typo``            one use of a name inside a function, misspelt
attribute  ``attribute-typo``       one ``x.attr`` read inside a function, misspelt
import     ``drop-from-import``     a module-level ``from m import a, b`` deleted
           ``drop-import``          a module-level ``import m`` deleted
           ``module-typo``          the module of an import misspelt
           ``imported-name-typo``   a name of ``from m import name`` misspelt
type       ``drop-argument``        a positional argument (a variable or ``x.attr``) left out
                                    of a call of the project's own function
           ``keyword-typo``         a keyword of such a call misspelt
none       ``drop-none-guard``      ``if x is None: <one or two statements>`` deleted
========== ======================== ==========================================================

A misspelling is one edit (two neighbouring letters swapped, a letter dropped or doubled), and
never a name the file or the builtins already have. Whether a test notices a mutant is decided
later, by running the tests (``real_bench.py`` screens them).
"""

from __future__ import annotations

import ast
import builtins
import io
import itertools
import keyword
import random
import tokenize
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass

__all__ = ["CLASSES", "OPERATORS", "Mutant", "mutants", "typo"]

CLASSES = ("syntax", "name", "attribute", "import", "type", "none")


@dataclass(frozen=True)
class Mutant:
    """One injected fault: ``file`` (relative to the project root) rewritten as ``text``."""

    id: str
    error_class: str
    operator: str
    file: str
    line: int
    text: str
    description: str
    #: The lines of the function the fault is in, or None at module or class level.
    scope: tuple[int, int] | None
    #: For a deleted import, the names it bound (the tests of their users catch it).
    names: tuple[str, ...] = ()


# -- text positions ---------------------------------------------------------------------------


class _Text:
    """A file's text with AST positions (UTF-8 byte columns) turned into string offsets."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.lines = text.split("\n")
        self._starts = [0]
        for line in self.lines[:-1]:
            self._starts.append(self._starts[-1] + len(line) + 1)

    def offset(self, line: int, byte_col: int) -> int:
        raw = self.lines[line - 1].encode("utf-8")[:byte_col]
        return self._starts[line - 1] + len(raw.decode("utf-8", errors="replace"))

    def span(self, node: ast.AST) -> tuple[int, int]:
        return (
            self.offset(node.lineno, node.col_offset),  # type: ignore[attr-defined]
            self.offset(node.end_lineno, node.end_col_offset),  # type: ignore[attr-defined]
        )

    def replace(self, start: int, end: int, new: str) -> str:
        return self.text[:start] + new + self.text[end:]

    def line_start(self, line: int) -> int:
        return self._starts[line - 1]


def _compiles(text: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(text, "<mutant>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return False
    return True


def _tokens(text: str) -> list[tokenize.TokenInfo]:
    try:
        return list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return []


# -- misspelling ------------------------------------------------------------------------------


def typo(name: str, rng: random.Random, taken: set[str]) -> str | None:
    """One realistic misspelling of ``name`` that is a free identifier, or None."""
    core_start = len(name) - len(name.lstrip("_"))
    core = range(core_start, len(name))
    options: list[str] = []
    for i in core:
        if i + 1 < len(name) and name[i] != name[i + 1] and name[i + 1] != "_":
            options.append(name[:i] + name[i + 1] + name[i] + name[i + 2 :])  # swap
        if name[i].isalpha() and len(name) - core_start > 2:
            options.append(name[:i] + name[i + 1 :])  # drop
        if name[i].isalpha():
            options.append(name[: i + 1] + name[i] + name[i + 1 :])  # double
    rng.shuffle(options)
    for option in options:
        if (
            option.isidentifier()
            and not keyword.iskeyword(option)
            and option not in taken
            and option != name
            and not option[core_start:].startswith(("_", *"0123456789"))
        ):
            return option
    return None


def _identifiers(text: str) -> set[str]:
    return {t.string for t in _tokens(text) if t.type == tokenize.NAME} | set(dir(builtins))


# -- what is inside what ------------------------------------------------------------------------


def _functions(tree: ast.Module) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    return [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]


def _scope_of(
    functions: list[ast.FunctionDef | ast.AsyncFunctionDef], line: int
) -> tuple[int, int] | None:
    """The lines of the innermost function whose body holds ``line``."""
    best: tuple[int, int] | None = None
    for function in functions:
        first, last = function.body[0].lineno, function.end_lineno or function.lineno
        if first <= line <= last and (best is None or first >= best[0]):
            best = (function.lineno, last)
    return best


def _parents(tree: ast.AST) -> dict[int, ast.AST]:
    return {id(child): node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}


def _is_docstring(node: ast.AST, parents: dict[int, ast.AST]) -> bool:
    statement = parents.get(id(node))
    owner = parents.get(id(statement)) if statement is not None else None
    body = getattr(owner, "body", None)
    return isinstance(statement, ast.Expr) and isinstance(body, list) and body[:1] == [statement]


@dataclass
class _File:
    path: str
    text: _Text
    tree: ast.Module
    functions: list[ast.FunctionDef | ast.AsyncFunctionDef]
    parents: dict[int, ast.AST]
    taken: set[str]

    def mutant(
        self,
        error_class: str,
        operator: str,
        node_line: int,
        col: int,
        new_text: str,
        description: str,
        *,
        names: tuple[str, ...] = (),
    ) -> Mutant:
        return Mutant(
            id=f"{self.path}:{node_line}:{col}:{operator}",
            error_class=error_class,
            operator=operator,
            file=self.path,
            line=node_line,
            text=new_text,
            description=description,
            scope=_scope_of(self.functions, node_line),
            names=names,
        )


Operator = Callable[[_File, random.Random], Iterator[Mutant]]


# -- syntax -------------------------------------------------------------------------------------

_COMPOUND = (
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.If,
    ast.For,
    ast.While,
    ast.With,
)


def _drop_colon(source: _File, rng: random.Random) -> Iterator[Mutant]:
    tokens = _tokens(source.text.text)
    for node in ast.walk(source.tree):
        if not isinstance(node, _COMPOUND):
            continue
        body = node.body[0]
        colons = [
            t
            for t in tokens
            if t.type == tokenize.OP
            and t.string == ":"
            and (node.lineno, 0) <= t.start < (body.lineno, body.col_offset)
        ]
        if not colons:
            continue
        line, col = colons[-1].start
        start = source.text.offset(line, len(source.text.lines[line - 1][:col].encode()))
        new = source.text.replace(start, start + 1, "")
        if not _compiles(new):
            kind = type(node).__name__.lower().replace("functiondef", "def")
            yield source.mutant("syntax", "drop-colon", line, col, new, f"the colon of a {kind}")


def _one_line_calls(source: _File) -> Iterator[ast.Call]:
    for node in ast.walk(source.tree):
        if isinstance(node, ast.Call) and node.lineno == node.end_lineno:
            yield node


def _drop_paren(source: _File, rng: random.Random) -> Iterator[Mutant]:
    for call in _one_line_calls(source):
        end = source.text.span(call)[1]
        if source.text.text[end - 1] != ")":
            continue
        new = source.text.replace(end - 1, end, "")
        if not _compiles(new):
            yield source.mutant(
                "syntax", "drop-paren", call.lineno, call.end_col_offset or 0, new,
                f"the closing parenthesis of `{ast.unparse(call.func)}(...)`",
            )  # fmt: skip


def _drop_comma(source: _File, rng: random.Random) -> Iterator[Mutant]:
    for call in _one_line_calls(source):
        items: list[ast.AST] = [*call.args, *call.keywords]
        items.sort(key=lambda n: (n.lineno, n.col_offset))  # type: ignore[attr-defined]
        if len(items) < 2 or any(isinstance(i, ast.Starred) for i in items):
            continue
        index = rng.randrange(len(items) - 1)
        _, end = source.text.span(items[index])
        following, _ = source.text.span(items[index + 1])
        between = source.text.text[end:following]
        if between.count(",") != 1 or between.strip() != ",":
            continue
        comma = end + between.index(",")
        new = source.text.replace(comma, comma + 1, "")
        if not _compiles(new):
            yield source.mutant(
                "syntax", "drop-comma", call.lineno, call.col_offset, new,
                f"a comma between the arguments of `{ast.unparse(call.func)}(...)`",
            )  # fmt: skip


def _drop_quote(source: _File, rng: random.Random) -> Iterator[Mutant]:
    for node in ast.walk(source.tree):
        if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
            continue
        if node.lineno != node.end_lineno or _is_docstring(node, source.parents):
            continue
        if isinstance(source.parents.get(id(node)), ast.JoinedStr):
            continue
        start, end = source.text.span(node)
        literal = source.text.text[start:end]
        if literal[-3:] in ('"""', "'''") or literal[-1] not in "'\"":
            continue
        if literal.lstrip("rbuRBU")[:1] != literal[-1] or literal.count(literal[-1]) != 2:
            continue  # implicit concatenation, or a quote inside
        new = source.text.replace(end - 1, end, "")
        if not _compiles(new):
            yield source.mutant(
                "syntax", "drop-quote", node.lineno, node.col_offset, new,
                f"the closing quote of {literal}",
            )  # fmt: skip


_SIMPLE = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr, ast.Return)


def _indent(source: _File, rng: random.Random) -> Iterator[Mutant]:
    for function in source.functions:
        for block in _blocks(function):
            for previous, statement in itertools.pairwise(block):
                if not isinstance(previous, _SIMPLE) or not isinstance(statement, _SIMPLE):
                    continue
                if statement.lineno != statement.end_lineno or previous.end_lineno == (
                    statement.lineno
                ):
                    continue
                at = source.text.line_start(statement.lineno)
                new = source.text.replace(at, at, "    ")
                if not _compiles(new):
                    yield source.mutant(
                        "syntax", "indent", statement.lineno, statement.col_offset, new,
                        "a statement indented one level too deep",
                    )  # fmt: skip


def _blocks(function: ast.AST) -> Iterator[list[ast.stmt]]:
    for node in ast.walk(function):
        for name in ("body", "orelse", "finalbody"):
            block = getattr(node, name, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                yield block


# -- names and attributes --------------------------------------------------------------------


def _in_function(source: _File, node: ast.AST) -> bool:
    return _scope_of(source.functions, node.lineno) is not None  # type: ignore[attr-defined]


def _name_typo(source: _File, rng: random.Random) -> Iterator[Mutant]:
    for node in ast.walk(source.tree):
        if not (isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)):
            continue
        if len(node.id) < 3 or not _in_function(source, node):
            continue
        wrong = typo(node.id, rng, source.taken)
        if wrong is None:
            continue
        start, end = source.text.span(node)
        new = source.text.replace(start, end, wrong)
        yield source.mutant(
            "name", "name-typo", node.lineno, node.col_offset, new,
            f"`{node.id}` misspelt `{wrong}`",
        )  # fmt: skip


def _attribute_typo(source: _File, rng: random.Random) -> Iterator[Mutant]:
    for node in ast.walk(source.tree):
        if not (isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load)):
            continue
        if not isinstance(node.value, ast.Name) or not _in_function(source, node):
            continue
        attr = node.attr
        if len(attr) < 3 or (attr.startswith("__") and attr.endswith("__")):
            continue
        wrong = typo(attr, rng, source.taken)
        if wrong is None:
            continue
        _, end = source.text.span(node)
        new = source.text.replace(end - len(attr), end, wrong)
        if source.text.text[end - len(attr) : end] != attr:
            continue
        yield source.mutant(
            "attribute", "attribute-typo", node.lineno, node.col_offset, new,
            f"`{ast.unparse(node)}` misspelt `.{wrong}`",
        )  # fmt: skip


# -- imports ----------------------------------------------------------------------------------


def _whole_lines(source: _File, node: ast.stmt) -> tuple[int, int] | None:
    """The offsets of the lines ``node`` fills alone, or None if it shares them."""
    first = source.text.lines[node.lineno - 1]
    last_line = node.end_lineno or node.lineno
    last = source.text.lines[last_line - 1]
    start, end = source.text.span(node)
    if (
        first[: len(first) - len(first.lstrip())]
        != source.text.text[source.text.line_start(node.lineno) : start]
    ):
        return None
    if source.text.text[end : source.text.line_start(last_line) + len(last)].strip():
        return None
    return source.text.line_start(node.lineno), source.text.line_start(last_line) + len(last) + 1


def _used_in_functions(source: _File, names: set[str]) -> bool:
    for node in ast.walk(source.tree):
        if (
            isinstance(node, ast.Name)
            and node.id in names
            and isinstance(node.ctx, ast.Load)
            and _in_function(source, node)
        ):
            return True
    return False


def _drop_from_import(source: _File, rng: random.Random) -> Iterator[Mutant]:
    for statement in source.tree.body:
        if not isinstance(statement, ast.ImportFrom) or statement.module == "__future__":
            continue
        names = {a.asname or a.name for a in statement.names}
        if "*" in names or not _used_in_functions(source, names):
            continue
        lines = _whole_lines(source, statement)
        if lines is None:
            continue
        yield source.mutant(
            "import", "drop-from-import", statement.lineno, 0,
            source.text.replace(*lines, ""), f"`{ast.unparse(statement)}` deleted",
            names=tuple(sorted(names)),
        )  # fmt: skip


def _drop_import(source: _File, rng: random.Random) -> Iterator[Mutant]:
    for statement in source.tree.body:
        if not isinstance(statement, ast.Import) or len(statement.names) != 1:
            continue
        alias = statement.names[0]
        bound = alias.asname or alias.name.split(".")[0]
        if not _used_in_functions(source, {bound}):
            continue
        lines = _whole_lines(source, statement)
        if lines is None:
            continue
        yield source.mutant(
            "import", "drop-import", statement.lineno, 0, source.text.replace(*lines, ""),
            f"`{ast.unparse(statement)}` deleted", names=(bound,),
        )  # fmt: skip


def _module_typo(source: _File, rng: random.Random) -> Iterator[Mutant]:
    for statement in source.tree.body:
        if isinstance(statement, ast.ImportFrom) and statement.module:
            if statement.module == "__future__":
                continue
            module = statement.module
        elif isinstance(statement, ast.Import) and len(statement.names) == 1:
            if statement.names[0].asname is None and "." in statement.names[0].name:
                continue  # `import a.b` binds `a`: a typo in `b` is still an import fault
            module = statement.names[0].name
        else:
            continue
        last = module.rpartition(".")[2]
        wrong = typo(last, rng, source.taken)
        if wrong is None:
            continue
        start, end = source.text.span(statement)
        written = source.text.text[start:end]
        at = written.find(module)
        if at < 0:
            continue
        cut = start + at + len(module) - len(last)
        new = source.text.replace(cut, cut + len(last), wrong)
        yield source.mutant(
            "import", "module-typo", statement.lineno, 1, new,
            f"the module `{module}` misspelt `{wrong}`",
        )  # fmt: skip


def _imported_name_typo(source: _File, rng: random.Random) -> Iterator[Mutant]:
    tokens = _tokens(source.text.text)
    for statement in source.tree.body:
        if not isinstance(statement, ast.ImportFrom) or statement.module == "__future__":
            continue
        alias = rng.choice(statement.names)
        if alias.name == "*":
            continue
        wrong = typo(alias.name, rng, source.taken)
        if wrong is None:
            continue
        end = (statement.end_lineno or statement.lineno, statement.end_col_offset or 0)
        found = [
            t
            for t in tokens
            if t.type == tokenize.NAME
            and t.string == alias.name
            and (statement.lineno, statement.col_offset) <= t.start < end
        ]
        token = found[-1] if alias.asname is None else (found[0] if found else None)
        if token is None:
            continue
        line, col = token.start
        at = source.text.offset(line, len(source.text.lines[line - 1][:col].encode()))
        if alias.asname is None and source.text.text[at : at + len(alias.name)] != alias.name:
            continue
        new = source.text.replace(at, at + len(alias.name), wrong)
        yield source.mutant(
            "import", "imported-name-typo", statement.lineno, 2, new,
            f"`{alias.name}` misspelt `{wrong}` in `{ast.unparse(statement)}`",
        )  # fmt: skip


# -- calls ----------------------------------------------------------------------------------------


def _callee(
    source: _File, call: ast.Call
) -> tuple[ast.FunctionDef | ast.AsyncFunctionDef, bool] | None:
    """The definition a call reaches in the same file, and whether ``self`` is bound."""
    func = call.func
    if isinstance(func, ast.Name):
        for statement in source.tree.body:
            if (
                isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef))
                and statement.name == func.id
            ):
                return statement, False
            if isinstance(statement, ast.ClassDef) and statement.name == func.id:
                init = _method(statement, "__init__")
                return (init, True) if init is not None else None
        return None
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        if func.value.id not in ("self", "cls"):
            return None
        owner = _enclosing_class(source, call)
        method = _method(owner, func.attr) if owner is not None else None
        if method is None or any(
            isinstance(d, ast.Name) and d.id == "staticmethod" for d in method.decorator_list
        ):
            return None
        return method, True
    return None


def _method(owner: ast.ClassDef, name: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    for statement in owner.body:
        functions = (ast.FunctionDef, ast.AsyncFunctionDef)
        if isinstance(statement, functions) and statement.name == name:
            return statement
    return None


def _enclosing_class(source: _File, node: ast.AST) -> ast.ClassDef | None:
    parent = source.parents.get(id(node))
    while parent is not None and not isinstance(parent, ast.ClassDef):
        parent = source.parents.get(id(parent))
    return parent


def _plain_call(call: ast.Call) -> bool:
    return not any(isinstance(a, ast.Starred) for a in call.args) and all(
        k.arg is not None for k in call.keywords
    )


def _drop_argument(source: _File, rng: random.Random) -> Iterator[Mutant]:
    for call in ast.walk(source.tree):
        if not isinstance(call, ast.Call) or not call.args or not _plain_call(call):
            continue
        found = _callee(source, call)
        if found is None or not _in_function(source, call):
            continue
        function, bound = found
        args = function.args
        if args.vararg is not None:
            continue
        positional = [*args.posonlyargs, *args.args][1 if bound else 0 :]
        required = len(positional) - len(args.defaults)
        given = {k.arg for k in call.keywords}
        if any(p.arg in given for p in positional[: len(call.args)]):
            continue
        missing_after = sum(1 for p in positional[:required] if p.arg not in given) - (
            len(call.args) - 1
        )
        if missing_after <= 0:
            continue  # the call would still fit: no TypeError
        index = rng.randrange(len(call.args))
        dropped = call.args[index]
        if not (
            isinstance(dropped, ast.Name)
            or (isinstance(dropped, ast.Attribute) and isinstance(dropped.value, ast.Name))
        ):
            continue
        items: list[ast.AST] = [*call.args, *call.keywords]
        items.sort(key=lambda n: (n.lineno, n.col_offset))  # type: ignore[attr-defined]
        position = items.index(dropped)
        start, end = source.text.span(dropped)
        if position + 1 < len(items):
            end = source.text.span(items[position + 1])[0]
        elif position > 0:
            start = source.text.span(items[position - 1])[1]
        if source.text.text[start:end].count(",") > 1:
            continue
        new = source.text.replace(start, end, "")
        yield source.mutant(
            "type", "drop-argument", call.lineno, call.col_offset, new,
            f"the argument `{ast.unparse(dropped)}` left out of "
            f"`{ast.unparse(call.func)}(...)`",
        )  # fmt: skip


def _keyword_typo(source: _File, rng: random.Random) -> Iterator[Mutant]:
    for call in ast.walk(source.tree):
        if not isinstance(call, ast.Call) or not call.keywords or not _plain_call(call):
            continue
        found = _callee(source, call)
        if found is None or not _in_function(source, call) or found[0].args.kwarg is not None:
            continue
        chosen = rng.choice(call.keywords)
        assert chosen.arg is not None
        wrong = typo(chosen.arg, rng, source.taken)
        start, _ = source.text.span(chosen)
        if wrong is None or source.text.text[start : start + len(chosen.arg)] != chosen.arg:
            continue
        new = source.text.replace(start, start + len(chosen.arg), wrong)
        yield source.mutant(
            "type", "keyword-typo", call.lineno, call.col_offset, new,
            f"the keyword `{chosen.arg}=` misspelt `{wrong}=` in "
            f"`{ast.unparse(call.func)}(...)`",
        )  # fmt: skip


# -- None guards --------------------------------------------------------------------------------


def _drop_none_guard(source: _File, rng: random.Random) -> Iterator[Mutant]:
    for function in source.functions:
        for block in _blocks(function):
            if len(block) < 2:
                continue
            for statement in block:
                if not _is_none_guard(statement):
                    continue
                lines = _whole_lines(source, statement)
                if lines is None:
                    continue
                assert isinstance(statement, ast.If)
                yield source.mutant(
                    "none", "drop-none-guard", statement.lineno, statement.col_offset,
                    source.text.replace(*lines, ""),
                    f"the guard `if {ast.unparse(statement.test)}:` deleted",
                )  # fmt: skip


def _is_none_guard(statement: ast.stmt) -> bool:
    if not isinstance(statement, ast.If) or statement.orelse or len(statement.body) > 2:
        return False
    test = statement.test
    if not (
        isinstance(test, ast.Compare)
        and len(test.ops) == 1
        and isinstance(test.ops[0], ast.Is)
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value is None
    ):
        return False
    subject = test.left
    if not isinstance(subject, (ast.Name, ast.Attribute)):
        return False
    return all(
        isinstance(s, (ast.Assign, ast.AugAssign, ast.Return, ast.Raise, ast.Expr))
        for s in statement.body
    )


OPERATORS: dict[str, tuple[Operator, ...]] = {
    "syntax": (_drop_colon, _drop_paren, _drop_comma, _drop_quote, _indent),
    "name": (_name_typo,),
    "attribute": (_attribute_typo,),
    "import": (_drop_from_import, _drop_import, _module_typo, _imported_name_typo),
    "type": (_drop_argument, _keyword_typo),
    "none": (_drop_none_guard,),
}


def mutants(path: str, text: str, error_class: str, seed: str) -> dict[str, list[Mutant]]:
    """Every mutant of ``error_class`` for one file, by operator name (deterministic)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return {}
    source = _File(path, _Text(text), tree, _functions(tree), _parents(tree), _identifiers(text))
    found: dict[str, list[Mutant]] = {}
    for operator in OPERATORS[error_class]:
        rng = random.Random(f"{seed}:{path}:{operator.__name__}")
        seen: set[str] = set()
        for mutant in operator(source, rng):
            if mutant.id not in seen and mutant.text != text:
                seen.add(mutant.id)
                found.setdefault(mutant.operator, []).append(mutant)
    return found

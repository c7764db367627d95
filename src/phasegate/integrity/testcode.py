"""What a test module holds, read from its syntax tree: its tests and what weakens them.

pytest's default collection rules are applied statically (files ``test_*.py`` and
``*_test.py``, functions ``test*``, classes ``Test*`` without ``__init__`` and their ``test*``
methods, nothing marked ``__test__ = False``), so the base commit's tests are known without
installing or importing it. Each test carries the facts the evidence engine compares: skip
and xfail marks, skip calls, assertions and what can stop them from failing, ``pytest.approx``
tolerances, and the names it patches.
"""

from __future__ import annotations

import ast
import fnmatch
import hashlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import TypeGuard

from phasegate.gates.parsed import ending_name
from phasegate.integrity.conftest_hooks import add_binding, bound_hooks
from phasegate.integrity.conftest_patches import replaced_code
from phasegate.integrity.escapes import CATCHING, assert_lines, escaped_asserts, or_true
from phasegate.jsonvalues import is_number

__all__ = [
    "DEFAULT_APPROX",
    "Approx",
    "ModuleFacts",
    "SkipFeature",
    "TestFacts",
    "is_test_file",
    "read_module",
]

TEST_FILE_PATTERNS = ("test_*.py", "*_test.py")
#: pytest.approx's tolerances when none is given.
DEFAULT_APPROX = (1e-6, 1e-12)
_SKIP_DECORATORS = {"skip", "skipif", "skipIf", "skipUnless"}
_SKIP_CALLS = {"skip", "skipTest", "importorskip"}
#: Calls that put a mark on a test from a fixture or a hook, as a decorator would.
_MARK_ADDERS = {"applymarker", "add_marker"}
#: The marks a mark adder given a mark's name (``add_marker("xfail")``) puts on a test, by kind.
_NAMED_MARKS = {"skip": "skip", "skipif": "skip", "xfail": "xfail"}
_BROAD = {"Exception", "BaseException"}
_PATCHERS = {"setattr", "patch", "object"}


@dataclass(frozen=True)
class SkipFeature:
    """Something that makes a test not count: ``kind`` is ``skip``, ``xfail`` or
    ``importorskip``; ``how`` is what the source says (``@pytest.mark.skip``)."""

    kind: str
    how: str
    line: int
    #: The test class the mark is on, for a class mark; else "".
    owner: str = ""


@dataclass(frozen=True)
class Approx:
    """One ``pytest.approx`` call and the tolerances it allows."""

    rel: float
    abs: float
    line: int
    #: The expected value (``2.0`` for ``2``), when it is a literal; else "".
    expected: str = ""


@dataclass
class TestFacts:
    """One test function, as pytest would collect it, with what the evidence engine compares."""

    __test__ = False  # not a pytest test class, despite the name

    name: str  # "test_mean" or "TestCalc::test_mean"
    line: int
    collected: bool
    body_digest: str
    #: The body's syntax tree as text, to recognize the test renamed and edited at once.
    body_dump: str = ""
    skips: list[SkipFeature] = field(default_factory=list)
    assertions: int = 0
    constant_asserts: list[int] = field(default_factory=list)
    swallowed_asserts: list[int] = field(default_factory=list)
    #: Assertions that never run or whose failure is dropped (:mod:`.escapes`).
    escaped_asserts: list[int] = field(default_factory=list)
    early_returns: list[int] = field(default_factory=list)
    #: Calls reading the source text of code (``inspect.getsource``): such a test fails for
    #: every mutant, whatever the code returns (review s17r).
    source_reads: list[int] = field(default_factory=list)
    broad_raises: list[int] = field(default_factory=list)
    approx: list[Approx] = field(default_factory=list)
    #: Assertions comparing an expression with itself (``f(x) == f(x)``), with their text.
    self_compares: list[tuple[int, str]] = field(default_factory=list)
    #: The literals the test's assertions compare exactly with ``==`` (``2.0`` for ``2``).
    exact_literals: set[str] = field(default_factory=set)
    patched_self: dict[str, int] = field(default_factory=dict)
    referenced: set[str] = field(default_factory=set)


@dataclass
class ModuleFacts:
    """A Python file: its functions that look like tests, and skips outside any test."""

    path: str
    test_file: bool
    tests: dict[str, TestFacts] = field(default_factory=dict)
    module_skips: list[SkipFeature] = field(default_factory=list)
    #: Collection and outcome hooks, ``collect_ignore`` lists and the project's code replaced
    #: at import (conftest.py): name -> (line, digest).
    collection_controls: dict[str, tuple[int, str]] = field(default_factory=dict)
    #: Names of the functions and classes the module defines at its top level (methods are
    #: left out: their common names, ``get`` or ``append``, would excuse any deleted test).
    defined: set[str] = field(default_factory=set)
    #: Every function's body fingerprint -> its name and line.
    function_digests: dict[str, tuple[str, int]] = field(default_factory=dict)


def is_test_file(path: str) -> bool:
    """Whether pytest collects ``path`` by its default ``python_files`` patterns."""
    name = PurePosixPath(path).name
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in TEST_FILE_PATTERNS)


def read_module(
    path: str, tree: ast.Module, first_party: frozenset[str] = frozenset()
) -> ModuleFacts:
    """The facts of one parsed module. ``first_party`` names the project's own packages."""
    facts = ModuleFacts(path=path, test_file=is_test_file(path))
    reader = _TestReader(
        module_collected=facts.test_file and not _marked_not_test(tree.body),
        imported=_first_party_imports(tree, first_party),
        not_tests=_functions_marked_not_test(tree.body),
    )
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            facts.defined.add(node.name)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            reader.read_function(node, facts)
        elif isinstance(node, ast.ClassDef):
            reader.read_class(node, facts)
    facts.module_skips = sorted(
        [*facts.module_skips, *_skips_outside_tests(tree)], key=lambda feature: feature.line
    )
    facts.function_digests = _function_digests(tree)
    if PurePosixPath(path).name == "conftest.py":
        facts.collection_controls = conftest_controls(tree, first_party)
    return facts


def conftest_controls(
    tree: ast.Module, first_party: frozenset[str] = frozenset()
) -> dict[str, tuple[int, str]]:
    """What a conftest module (or one it star-imports) binds that can change the run; a name
    bound twice (an honest ``def`` and an import after it) keeps both bindings' texts."""
    controls: dict[str, tuple[int, str]] = {}
    for found in (bound_hooks(tree, _hook_name), _collection_controls(tree)):
        for name, (line, text) in found.items():
            add_binding(controls, name, line, text)
    return {**controls, **replaced_code(tree, first_party)}


@dataclass(frozen=True)
class _TestReader:
    """What decides, for each top-level function and class of one module, if pytest collects it."""

    module_collected: bool
    imported: frozenset[str]
    not_tests: set[str]

    def read_function(
        self, node: ast.FunctionDef | ast.AsyncFunctionDef, facts: ModuleFacts
    ) -> None:
        """A module-level ``test*`` function: one test."""
        if node.name.startswith("test"):
            collected = self.module_collected and node.name not in self.not_tests
            facts.tests[node.name] = _test_facts(node, node.name, collected, self.imported)

    def read_class(self, node: ast.ClassDef, facts: ModuleFacts) -> None:
        """A ``Test*`` class: its class-level skip marks and its ``test*`` methods."""
        if not node.name.startswith("Test"):
            return
        collected = self.module_collected and _collects_class(node)
        facts.module_skips.extend(
            SkipFeature(f.kind, f"{f.how} on class {node.name}", f.line, node.name)
            for f in _decorator_skips(node.decorator_list)
        )
        for child in node.body:
            if _is_test_function(child):
                name = f"{node.name}::{child.name}"
                facts.tests[name] = _test_facts(child, name, collected, self.imported)


def _is_test_function(node: ast.AST) -> TypeGuard[ast.FunctionDef | ast.AsyncFunctionDef]:
    """A function pytest takes for a test by its default ``python_functions`` prefix."""
    return isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith(
        "test"
    )


def _collects_class(node: ast.ClassDef) -> bool:
    """pytest skips a test class marked ``__test__ = False`` or with an ``__init__``."""
    has_init = any(
        isinstance(child, ast.FunctionDef) and child.name == "__init__" for child in node.body
    )
    return not has_init and not _marked_not_test(node.body)


def _function_digests(tree: ast.Module) -> dict[str, tuple[str, int]]:
    """Every function's body fingerprint -> its name and line."""
    return {
        _digest(node): (node.name, node.lineno)
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    }


def _digest(node: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    """A fingerprint of a function's body, to recognize it under another name."""
    body = ast.Module(body=node.body, type_ignores=[])
    return hashlib.sha256(ast.dump(body).encode()).hexdigest()


def _test_facts(
    node: ast.FunctionDef | ast.AsyncFunctionDef,
    name: str,
    collected: bool,
    imported: frozenset[str],
) -> TestFacts:
    facts = TestFacts(
        name=name,
        line=node.lineno,
        collected=collected,
        body_digest=_digest(node),
        body_dump=ast.dump(ast.Module(body=node.body, type_ignores=[])),
        skips=_decorator_skips(node.decorator_list),
    )
    own = list(_own_nodes(node))
    last_check, called = _read_body(own, node.decorator_list, facts)
    facts.referenced |= called
    facts.swallowed_asserts = _swallowed_asserts(node)
    facts.escaped_asserts = escaped_asserts(node)
    facts.early_returns = [
        child.lineno for child in own if isinstance(child, ast.Return) and child.lineno < last_check
    ]
    facts.source_reads = _source_reads(node, own)
    facts.patched_self = _patched_self(node, name, called, imported)
    return facts


#: The calls that give the source text of an object.
_SOURCE_READERS = frozenset({"getsource", "getsourcelines"})


def _source_reads(node: ast.FunctionDef | ast.AsyncFunctionDef, own: list[ast.AST]) -> list[int]:
    """The lines of calls reading the source of code the test does not make itself: a class it
    defines or builds (attrs' tests read the ``__init__`` attrs generated) is its own."""
    local = {*_defined_inside(node), *_assigned(own)}
    return [call.lineno for call in _source_calls(own) if _root_name(call) not in local]


def _source_calls(own: list[ast.AST]) -> list[ast.Call]:
    return [child for child in own if isinstance(child, ast.Call) and _reads_source(child)]


def _reads_source(call: ast.Call) -> bool:
    return ending_name(call.func) in _SOURCE_READERS


def _defined_inside(node: ast.AST) -> list[str]:
    """The functions and classes defined inside ``node`` (not ``node`` itself)."""
    inside = (child for child in ast.walk(node) if child is not node)
    return [child.name for child in inside if isinstance(child, _DEFINITIONS)]


def _assigned(own: list[ast.AST]) -> list[str]:
    return [child.id for child in own if isinstance(child, ast.Name) and _stores(child)]


def _stores(name: ast.Name) -> bool:
    return isinstance(name.ctx, ast.Store)


def _root_name(call: ast.Call) -> str:
    """The first name of the call's first argument (``calc`` of ``calc.mean``)."""
    names = (
        child.id for arg in call.args[:1] for child in ast.walk(arg) if isinstance(child, ast.Name)
    )
    return next(names, "")


_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _read_body(
    own: list[ast.AST], decorators: list[ast.expr], facts: TestFacts
) -> tuple[int, set[str]]:
    """Read a test's asserts, calls and names into ``facts``; the line of its last check and
    the names it calls."""
    # The decorators were read as marks already; read again as calls, a mark would count twice
    # (and a strict xfail would count as a plain one).
    marks = {id(decorator) for decorator in decorators}
    last_check = 0
    called: set[str] = set()
    for child in own:
        if isinstance(child, ast.Assert):
            last_check = max(last_check, _read_assert(child, facts))
        elif isinstance(child, ast.Call):
            called.update(_callee(child.func))
            last_check = max(last_check, _read_call(child, facts, is_mark=id(child) in marks))
        elif isinstance(child, (ast.Name, ast.Attribute)):
            facts.referenced.update(_callee(child))
    return last_check, called


def _read_assert(statement: ast.Assert, facts: TestFacts) -> int:
    """Count an ``assert`` (or note it cannot fail); its line, the latest check so far."""
    if _is_constant(statement.test):
        facts.constant_asserts.append(statement.lineno)
    else:
        facts.assertions += 1
    if _compared_with_itself(statement.test):
        facts.self_compares.append((statement.lineno, ast.unparse(statement.test)))
    facts.exact_literals.update(_exact_literals(statement.test))
    return statement.lineno


def _exact_literals(test: ast.expr) -> list[str]:
    """The literal sides of an ``==`` comparison (``2`` of ``mean(x) == 2``), as
    :func:`_literal_text` gives them."""
    if not (isinstance(test, ast.Compare) and isinstance(test.ops[0], ast.Eq)):
        return []
    sides = (_literal_text(test.left), _literal_text(test.comparators[0]))
    return [side for side in sides if side]


def _literal_text(expr: ast.expr | None) -> str:
    """A literal as comparable text: a number by its value (``2``, ``2.0`` and ``+2`` are
    ``2.0``; ``-2`` is ``-2.0``), another constant as written; "" for anything else."""
    if expr is None or not isinstance(_unsigned(expr), ast.Constant):
        return ""
    try:
        value = ast.literal_eval(expr)
    except ValueError:  # a sign on a string
        return ""
    return repr(float(value)) if is_number(value) else ast.unparse(expr)


def _unsigned(expr: ast.expr) -> ast.expr:
    """``2`` of ``-2`` and ``+2``; any other expression itself."""
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, (ast.USub, ast.UAdd)):
        return expr.operand
    return expr


#: Comparisons true of any value compared with itself (a NaN aside).
_REFLEXIVE = (ast.Eq, ast.Is, ast.LtE, ast.GtE)


def _compared_with_itself(test: ast.expr) -> bool:
    """``a == a``: one comparison whose two sides are the same expression."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return False
    same = ast.dump(test.left) == ast.dump(test.comparators[0])
    return same and isinstance(test.ops[0], _REFLEXIVE)


#: Calls that check something besides ``assert*``: ``pytest.raises``, ``pytest.warns``, ...
_CHECK_CALLS = {"raises", "warns", "fail"}
_RAISES_CALLS = {"raises", "assertRaises"}


def _read_call(call: ast.Call, facts: TestFacts, *, is_mark: bool) -> int:
    """Read one call of a test body into ``facts``; its line if it checks something, else 0."""
    dotted = _dotted(call.func)
    last = dotted.rsplit(".", 1)[-1]
    if last in _RAISES_CALLS and call.args and _dotted(call.args[0]) in _BROAD:
        facts.broad_raises.append(call.lineno)
    skip = None if is_mark else _skip_call(dotted, last, call.lineno)
    if skip is not None:
        facts.skips.append(skip)
    if last == "approx":
        facts.approx.append(_approx(call))
    if last.startswith("assert") or last in _CHECK_CALLS:
        facts.assertions += 1
        return call.lineno
    return 0


def _skip_call(dotted: str, last: str, line: int) -> SkipFeature | None:
    """A call inside a test that skips or xfails it, read as the feature it is."""
    if last in _SKIP_CALLS:
        return SkipFeature(_skip_kind(last), f"{dotted}()", line)
    if last == "xfail" and dotted.startswith(("pytest", "xfail")):
        return SkipFeature("xfail", f"{dotted}()", line)
    return None


def _callee(expr: ast.expr) -> list[str]:
    """The name ``expr`` ends in, as a list to add to a set (none for a call or a subscript)."""
    name = ending_name(expr)
    return [] if name is None else [name]


def _patched_self(
    node: ast.FunctionDef | ast.AsyncFunctionDef,
    name: str,
    called: set[str],
    imported: frozenset[str],
) -> dict[str, int]:
    """The names a test both patches and calls, when they are its subject or first-party."""
    patched_self: dict[str, int] = {}
    for patched, line in _patched_names(node):
        if patched in called and (patched in name or patched in imported):
            patched_self.setdefault(patched, line)
    return patched_self


def _own_nodes(node: ast.AST) -> Iterator[ast.AST]:
    """The nodes of a function's body, not those of functions or classes defined in it."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(child, (ast.expr, ast.stmt, ast.excepthandler, ast.withitem, ast.keyword)):
            yield child
        yield from _own_nodes(child)


def _dotted(expr: ast.AST) -> str:
    if isinstance(expr, ast.Call):
        return _dotted(expr.func)
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Attribute):
        inner = _dotted(expr.value)
        return f"{inner}.{expr.attr}" if inner else expr.attr
    return ""


def _skip_kind(last: str) -> str:
    return "importorskip" if last == "importorskip" else "skip"


def _decorator_skips(decorators: list[ast.expr]) -> list[SkipFeature]:
    found: list[SkipFeature] = []
    for decorator in decorators:
        dotted = _dotted(decorator)
        last = dotted.rsplit(".", 1)[-1]
        if last in _SKIP_DECORATORS:
            found.append(SkipFeature("skip", f"@{dotted}", decorator.lineno))
        elif last == "expectedFailure" or (last == "xfail" and not _strict(decorator)):
            found.append(SkipFeature("xfail", f"@{dotted}", decorator.lineno))
        elif last == "parametrize" and _no_values(decorator):
            found.append(SkipFeature("skip", f"@{dotted} with no values", decorator.lineno))
    return found


def _no_values(parametrize: ast.expr) -> bool:
    """``parametrize("x", [])``: pytest skips a test given an empty set of values."""
    if not isinstance(parametrize, ast.Call):
        return False
    given = parametrize.args[1:2] + [k.value for k in parametrize.keywords if k.arg == "argvalues"]
    return any(isinstance(v, (ast.List, ast.Tuple)) and not v.elts for v in given)


def _strict(decorator: ast.expr) -> bool:
    if not isinstance(decorator, ast.Call):
        return False
    return any(
        keyword.arg == "strict"
        and isinstance(keyword.value, ast.Constant)
        and keyword.value.value is True
        for keyword in decorator.keywords
    )


def _assigns_name(node: ast.stmt, name: str) -> TypeGuard[ast.Assign]:
    """Whether ``node`` is an assignment to the bare name ``name``."""
    return isinstance(node, ast.Assign) and any(
        isinstance(target, ast.Name) and target.id == name for target in node.targets
    )


def _assigned_marks(node: ast.Assign) -> list[ast.expr]:
    """The marks of ``pytestmark = ...``: one mark or a list or tuple of them."""
    value = node.value
    return list(value.elts) if isinstance(value, (ast.List, ast.Tuple)) else [value]


def _pytestmark(body: list[ast.stmt]) -> list[SkipFeature]:
    for node in body:
        if _assigns_name(node, "pytestmark"):
            return [
                SkipFeature(f.kind, f"pytestmark = {f.how.removeprefix('@')}", f.line)
                for f in _decorator_skips(_assigned_marks(node))
            ]
    return []


def _is_false(expr: ast.expr) -> bool:
    return isinstance(expr, ast.Constant) and not expr.value


def _marked_not_test(body: list[ast.stmt]) -> bool:
    return any(_assigns_name(node, "__test__") and _is_false(node.value) for node in body)


def _functions_marked_not_test(body: list[ast.stmt]) -> set[str]:
    """The functions a module takes out of collection with ``name.__test__ = False``."""
    return {
        owner
        for node in body
        if isinstance(node, ast.Assign) and _is_false(node.value)
        for owner in map(_test_flag_owner, node.targets)
        if owner
    }


def _test_flag_owner(target: ast.expr) -> str:
    """``name`` of ``name.__test__`` as an assignment target; "" for any other target."""
    if (
        isinstance(target, ast.Attribute)
        and target.attr == "__test__"
        and isinstance(target.value, ast.Name)
    ):
        return target.value.id
    return ""


def _is_constant(test: ast.expr) -> bool:
    """An assertion that cannot fail: a true constant, a non-empty tuple, ``x or True``."""
    if isinstance(test, ast.Constant):
        return bool(test.value)
    return (isinstance(test, ast.Tuple) and bool(test.elts)) or or_true(test)


#: ``try`` and, from Python 3.11, ``try`` / ``except*`` (whose handlers read the same).
_TRIES: tuple[type[ast.Try], ...] = (ast.Try, getattr(ast, "TryStar", ast.Try))


def _swallowed_asserts(function: ast.AST) -> list[int]:
    """Lines of assertions inside a ``try`` whose handler catches AssertionError quietly."""
    lines: list[int] = []
    for node in ast.walk(function):
        if isinstance(node, _TRIES) and _swallows_assertions(node):
            lines += assert_lines(node.body)
    return lines


def _swallows_assertions(statement: ast.Try) -> bool:
    """A ``try`` with a handler that catches AssertionError, and none of those re-raises."""
    catching = [h for h in statement.handlers if _catches_assertions(h)]
    return bool(catching) and not any(_reraises(h) for h in catching)


def _catches_assertions(handler: ast.ExceptHandler) -> bool:
    if handler.type is None:
        return True
    types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any(_dotted(one).rsplit(".", 1)[-1] in CATCHING for one in types)


def _reraises(handler: ast.ExceptHandler) -> bool:
    return any(isinstance(node, ast.Raise) for node in ast.walk(handler))


def _approx(call: ast.Call) -> Approx:
    # pytest.approx(expected, rel=None, abs=None, nan_ok=False): by position or by keyword.
    values: dict[str, ast.expr] = dict(zip(("rel", "abs"), call.args[1:3], strict=False))
    values.update({k.arg: k.value for k in call.keywords if k.arg in ("rel", "abs")})
    rel, absolute = DEFAULT_APPROX
    expected = call.args[0] if call.args else None
    return Approx(
        _number(values.get("rel"), rel),
        _number(values.get("abs"), absolute),
        call.lineno,
        _literal_text(expected),
    )


def _number(expr: ast.expr | None, default: float) -> float:
    """A literal number; ``default`` for none, or for anything else (a name, ``None``)."""
    if expr is None:
        return default
    try:
        value = ast.literal_eval(expr)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return default
    return float(value) if is_number(value) else default


def _patched_names(function: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[tuple[str, int]]:
    """The attribute names a test patches: ``monkeypatch.setattr``, ``mock.patch`` and kin."""
    calls = [n for n in ast.walk(function) if isinstance(n, ast.Call)]
    calls += [d for d in function.decorator_list if isinstance(d, ast.Call)]
    for call in calls:
        patched = _patch_target(call)
        if patched:
            yield patched, call.lineno


def _patcher(dotted: str) -> str:
    """Which patcher a call is (``setattr``, ``patch``, ``object``), or "" for none."""
    last = dotted.rsplit(".", 1)[-1]
    if last == "setattr":
        return last if dotted.startswith("monkeypatch") else ""
    if last == "object":
        return last if dotted.endswith("patch.object") else ""
    return last if last in _PATCHERS else ""


def _patch_target(call: ast.Call) -> str:
    """The attribute name a patching call replaces, or "" when it is none or not literal."""
    patcher = _patcher(_dotted(call.func))
    if not patcher:
        return ""
    if patcher in ("setattr", "object") and len(call.args) > 1:
        named = _string(call.args[1])
        if named is not None:
            return named
    dotted_target = _string(call.args[0]) if call.args else None
    return dotted_target.rsplit(".", 1)[-1] if dotted_target is not None else ""


def _string(expr: ast.expr) -> str | None:
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        return expr.value
    return None


def _first_party_imports(tree: ast.Module, first_party: frozenset[str]) -> frozenset[str]:
    """The names imported from the project itself: from its packages or relatively."""
    return frozenset(
        alias.asname or alias.name
        for node in tree.body
        if isinstance(node, ast.ImportFrom) and _from_first_party(node, first_party)
        for alias in node.names
    )


def _from_first_party(node: ast.ImportFrom, first_party: frozenset[str]) -> bool:
    if node.level > 0:
        return True
    return node.module is not None and node.module.split(".", 1)[0] in first_party


def _skips_outside_tests(tree: ast.Module) -> list[SkipFeature]:
    """Skip calls at module level or in helpers and fixtures: they skip tests from outside."""
    found: list[SkipFeature] = _pytestmark(tree.body)
    # Marks of test classes and of ``pytestmark`` are read as marks already: not again as calls.
    marks = {id(mark) for mark in _mark_nodes(tree.body)}
    stack: list[ast.AST] = list(tree.body)
    while stack:
        node = stack.pop()
        if _is_test_function(node):
            continue
        if isinstance(node, ast.Call) and id(node) not in marks:
            found.extend(_skip_call_outside(node))
        stack.extend(ast.iter_child_nodes(node))
    return sorted(found, key=lambda feature: feature.line)


def _skip_call_outside(call: ast.Call) -> list[SkipFeature]:
    """``pytest.skip()`` and kin called outside a test (a bare ``skip()`` counts too)."""
    dotted = _dotted(call.func)
    last = dotted.rsplit(".", 1)[-1]
    if last in _SKIP_CALLS and dotted.startswith(("pytest", "skip", "importorskip")):
        return [SkipFeature(_skip_kind(last), f"{dotted}()", call.lineno)]
    if last in _MARK_ADDERS:  # request.applymarker(pytest.mark.xfail(run=False))
        return _decorator_skips(call.args) + _named_marks(call, dotted)
    return []


def _named_marks(call: ast.Call, dotted: str) -> list[SkipFeature]:
    """A mark adder given a mark's name: ``request.node.add_marker("xfail")`` (not strict)."""
    names = [arg.value for arg in call.args[:1] if isinstance(arg, ast.Constant)]
    return [
        SkipFeature(_NAMED_MARKS[name], f"{dotted}({name!r})", call.lineno)
        for name in names
        if name in _NAMED_MARKS
    ]


def _mark_nodes(body: list[ast.stmt]) -> Iterator[ast.expr]:
    """The decorators of the module's test classes and the values of its ``pytestmark``."""
    for node in body:
        if isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            yield from node.decorator_list
        elif _assigns_name(node, "pytestmark"):
            yield from _assigned_marks(node)


#: conftest.py hooks that can take tests out of a run.
COLLECTION_HOOKS = frozenset(
    {
        "pytest_collection_modifyitems",
        "pytest_ignore_collect",
        "pytest_collect_file",
        "pytest_pycollect_makeitem",
        "pytest_deselected",
        "pytest_runtest_setup",
        "pytest_collection",
    }
)

#: conftest.py hooks that can change the outcome a test (or the run) is reported with: a
#: hookwrapper on ``pytest_pyfunc_call`` that forces a result swallows the test's exception, one
#: on ``pytest_runtest_makereport`` rewrites ``report.outcome``; ``pytest_plugins`` loads
#: modules whose hooks can do the same.
OUTCOME_HOOKS = frozenset(
    {
        "pytest_runtest_protocol",
        "pytest_runtest_call",
        "pytest_runtest_teardown",
        "pytest_runtest_makereport",
        "pytest_runtest_logreport",
        "pytest_runtestloop",
        "pytest_pyfunc_call",
        "pytest_fixture_setup",
        "pytest_report_teststatus",
        "pytest_report_from_serializable",
        "pytest_make_collect_report",
        "pytest_collectreport",
        "pytest_sessionfinish",
        "pytest_plugins",
    }
)


def _collection_controls(tree: ast.Module) -> dict[str, tuple[int, str]]:
    controls: dict[str, tuple[int, str]] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and (
            _hook_name(node) in COLLECTION_HOOKS | OUTCOME_HOOKS
        ):
            controls[_hook_name(node)] = (node.lineno, ast.dump(node))
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.Expr)):
            _add_ignore_list(controls, node)
            _add_plugins_list(controls, node)
    return controls


def _hook_name(function: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    """The hook a function implements: its name, or ``specname`` of its ``hookimpl``."""
    keywords = {w.arg: w.value for node in function.decorator_list for w in _keywords(node)}
    specname = keywords.get("specname")
    return str(specname.value) if isinstance(specname, ast.Constant) else function.name


def _keywords(decorator: ast.expr) -> list[ast.keyword]:
    return decorator.keywords if isinstance(decorator, ast.Call) else []


def _add_plugins_list(controls: dict[str, tuple[int, str]], node: ast.stmt) -> None:
    """A statement that sets or extends ``pytest_plugins`` (modules loaded as plugins)."""
    text = ast.dump(node)
    if "'pytest_plugins'" in text:
        line, before = controls.get("pytest_plugins", (node.lineno, ""))
        controls["pytest_plugins"] = (line, before + text)


def _add_ignore_list(controls: dict[str, tuple[int, str]], node: ast.stmt) -> None:
    """A statement that sets or extends ``collect_ignore(_glob)``: all of them, together, are
    one control (at the first one's line)."""
    text = ast.dump(node)
    name = next((n for n in ("collect_ignore_glob", "collect_ignore") if f"'{n}'" in text), None)
    if name is not None:
        line, before = controls.get(name, (node.lineno, ""))
        controls[name] = (line, before + text)

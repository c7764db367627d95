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
_CATCHES_ASSERTIONS = {"AssertionError", "Exception", "BaseException"}
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
    early_returns: list[int] = field(default_factory=list)
    broad_raises: list[int] = field(default_factory=list)
    approx: list[Approx] = field(default_factory=list)
    patched_self: dict[str, int] = field(default_factory=dict)
    referenced: set[str] = field(default_factory=set)


@dataclass
class ModuleFacts:
    """A Python file: its functions that look like tests, and skips outside any test."""

    path: str
    test_file: bool
    tests: dict[str, TestFacts] = field(default_factory=dict)
    module_skips: list[SkipFeature] = field(default_factory=list)
    #: Collection hooks and ``collect_ignore`` lists (conftest.py): name -> (line, digest).
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
    module_collected = facts.test_file and not _marked_not_test(tree.body)
    imported = _first_party_imports(tree, first_party)
    not_tests = _functions_marked_not_test(tree.body)
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            facts.defined.add(node.name)
            if node.name.startswith("test"):
                collected = module_collected and node.name not in not_tests
                facts.tests[node.name] = _test_facts(node, node.name, collected, imported)
        elif isinstance(node, ast.ClassDef):
            facts.defined.add(node.name)
            if node.name.startswith("Test"):
                collected = (
                    module_collected
                    and not _marked_not_test(node.body)
                    and not any(
                        isinstance(child, ast.FunctionDef) and child.name == "__init__"
                        for child in node.body
                    )
                )
                facts.module_skips.extend(
                    SkipFeature(f.kind, f"{f.how} on class {node.name}", f.line, node.name)
                    for f in _decorator_skips(node.decorator_list)
                )
                for child in node.body:
                    if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) and (
                        child.name.startswith("test")
                    ):
                        name = f"{node.name}::{child.name}"
                        facts.tests[name] = _test_facts(child, name, collected, imported)
    facts.module_skips = sorted(
        [*facts.module_skips, *_skips_outside_tests(tree)], key=lambda feature: feature.line
    )
    facts.function_digests = {
        _digest(node): (node.name, node.lineno)
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    }
    if PurePosixPath(path).name == "conftest.py":
        facts.collection_controls = _collection_controls(tree)
    return facts


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
    # The decorators were read as marks above; read again as calls, a mark would count twice
    # (and a strict xfail would count as a plain one).
    marks = {id(decorator) for decorator in node.decorator_list}
    last_check = 0
    called: set[str] = set()
    for child in own:
        if isinstance(child, ast.Assert):
            if _is_constant(child.test):
                facts.constant_asserts.append(child.lineno)
            else:
                facts.assertions += 1
            last_check = max(last_check, child.lineno)
        elif isinstance(child, ast.Call):
            dotted = _dotted(child.func)
            last = dotted.rsplit(".", 1)[-1]
            if isinstance(child.func, ast.Name):
                called.add(child.func.id)
            elif isinstance(child.func, ast.Attribute):
                called.add(child.func.attr)
            if last.startswith("assert") or last in {"raises", "warns", "fail"}:
                facts.assertions += 1
                last_check = max(last_check, child.lineno)
            if (
                last in {"raises", "assertRaises"}
                and child.args
                and _dotted(child.args[0]) in _BROAD
            ):
                facts.broad_raises.append(child.lineno)
            if id(child) in marks:
                pass
            elif last in _SKIP_CALLS:
                facts.skips.append(SkipFeature(_skip_kind(last), f"{dotted}()", child.lineno))
            elif last == "xfail" and dotted.startswith(("pytest", "xfail")):
                facts.skips.append(SkipFeature("xfail", f"{dotted}()", child.lineno))
            if last == "approx":
                facts.approx.append(_approx(child))
        elif isinstance(child, ast.Name):
            facts.referenced.add(child.id)
        elif isinstance(child, ast.Attribute):
            facts.referenced.add(child.attr)
    facts.referenced |= called
    facts.swallowed_asserts = _swallowed_asserts(node)
    facts.early_returns = [
        child.lineno for child in own if isinstance(child, ast.Return) and child.lineno < last_check
    ]
    for patched, line in _patched_names(node):
        if patched in called and (patched in name or patched in imported):
            facts.patched_self.setdefault(patched, line)
    return facts


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
    return found


def _strict(decorator: ast.expr) -> bool:
    if not isinstance(decorator, ast.Call):
        return False
    return any(
        keyword.arg == "strict"
        and isinstance(keyword.value, ast.Constant)
        and keyword.value.value is True
        for keyword in decorator.keywords
    )


def _pytestmark(body: list[ast.stmt]) -> list[SkipFeature]:
    for node in body:
        if isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == "pytestmark" for target in node.targets
        ):
            value = node.value
            marks = list(value.elts) if isinstance(value, (ast.List, ast.Tuple)) else [value]
            return [
                SkipFeature(f.kind, f"pytestmark = {f.how.removeprefix('@')}", f.line)
                for f in _decorator_skips(marks)
            ]
    return []


def _marked_not_test(body: list[ast.stmt]) -> bool:
    return any(
        isinstance(node, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == "__test__" for t in node.targets)
        and isinstance(node.value, ast.Constant)
        and not node.value.value
        for node in body
    )


def _functions_marked_not_test(body: list[ast.stmt]) -> set[str]:
    names: set[str] = set()
    for node in body:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if (
                    isinstance(target, ast.Attribute)
                    and target.attr == "__test__"
                    and isinstance(target.value, ast.Name)
                    and isinstance(node.value, ast.Constant)
                    and not node.value.value
                ):
                    names.add(target.value.id)
    return names


def _is_constant(test: ast.expr) -> bool:
    """An assertion that cannot fail: a true constant or a non-empty tuple."""
    if isinstance(test, ast.Constant):
        return bool(test.value)
    return isinstance(test, ast.Tuple) and bool(test.elts)


def _swallowed_asserts(function: ast.AST) -> list[int]:
    """Lines of assertions inside a ``try`` whose handler catches AssertionError quietly."""
    lines: list[int] = []
    for node in ast.walk(function):
        if not isinstance(node, ast.Try):
            continue
        catching = [h for h in node.handlers if _catches_assertions(h)]
        if not catching or any(_reraises(h) for h in catching):
            continue
        for statement in node.body:
            lines.extend(n.lineno for n in ast.walk(statement) if isinstance(n, ast.Assert))
    return lines


def _catches_assertions(handler: ast.ExceptHandler) -> bool:
    if handler.type is None:
        return True
    types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any(_dotted(one).rsplit(".", 1)[-1] in _CATCHES_ASSERTIONS for one in types)


def _reraises(handler: ast.ExceptHandler) -> bool:
    return any(isinstance(node, ast.Raise) for node in ast.walk(handler))


def _approx(call: ast.Call) -> Approx:
    rel, absolute = DEFAULT_APPROX
    values: dict[str, ast.expr] = {}
    if len(call.args) > 1:
        values["rel"] = call.args[1]
    if len(call.args) > 2:
        values["abs"] = call.args[2]
    values.update({k.arg: k.value for k in call.keywords if k.arg in ("rel", "abs")})
    if "rel" in values:
        rel = _number(values["rel"], rel)
    if "abs" in values:
        absolute = _number(values["abs"], absolute)
    return Approx(rel, absolute, call.lineno)


def _number(expr: ast.expr, default: float) -> float:
    try:
        value = ast.literal_eval(expr)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return default
    return (
        float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else default
    )


def _patched_names(function: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[tuple[str, int]]:
    """The attribute names a test patches: ``monkeypatch.setattr``, ``mock.patch`` and kin."""
    calls = [n for n in ast.walk(function) if isinstance(n, ast.Call)]
    calls += [d for d in function.decorator_list if isinstance(d, ast.Call)]
    for call in calls:
        dotted = _dotted(call.func)
        last = dotted.rsplit(".", 1)[-1]
        if last not in _PATCHERS or (last == "object" and not dotted.endswith("patch.object")):
            continue
        if last == "setattr" and not dotted.startswith("monkeypatch"):
            continue
        target = call.args[1] if last in ("setattr", "object") and len(call.args) > 1 else None
        if isinstance(target, ast.Constant) and isinstance(target.value, str):
            yield target.value, call.lineno
        elif call.args and isinstance(call.args[0], ast.Constant):
            named = call.args[0].value
            if isinstance(named, str):
                yield named.rsplit(".", 1)[-1], call.lineno


def _first_party_imports(tree: ast.Module, first_party: frozenset[str]) -> frozenset[str]:
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.split(".", 1)[0] in first_party:
                names.update(alias.asname or alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level > 0:
            names.update(alias.asname or alias.name for alias in node.names)
    return frozenset(names)


def _skips_outside_tests(tree: ast.Module) -> list[SkipFeature]:
    """Skip calls at module level or in helpers and fixtures: they skip tests from outside."""
    found: list[SkipFeature] = _pytestmark(tree.body)
    # Marks of test classes and of ``pytestmark`` are read as marks already: not again as calls.
    marks = {id(mark) for mark in _mark_nodes(tree.body)}
    stack: list[ast.AST] = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith(
            "test"
        ):
            continue
        if isinstance(node, ast.Call) and id(node) not in marks:
            dotted = _dotted(node.func)
            last = dotted.rsplit(".", 1)[-1]
            if last in _SKIP_CALLS and dotted.startswith(("pytest", "skip", "importorskip")):
                found.append(SkipFeature(_skip_kind(last), f"{dotted}()", node.lineno))
        stack.extend(ast.iter_child_nodes(node))
    return sorted(found, key=lambda feature: feature.line)


def _mark_nodes(body: list[ast.stmt]) -> Iterator[ast.expr]:
    """The decorators of the module's test classes and the values of its ``pytestmark``."""
    for node in body:
        if isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            yield from node.decorator_list
        elif isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == "pytestmark" for target in node.targets
        ):
            value = node.value
            yield from value.elts if isinstance(value, (ast.List, ast.Tuple)) else [value]


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


def _collection_controls(tree: ast.Module) -> dict[str, tuple[int, str]]:
    controls: dict[str, tuple[int, str]] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and (
            node.name in COLLECTION_HOOKS
        ):
            controls[node.name] = (node.lineno, ast.dump(node))
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.Expr)):
            text = ast.dump(node)
            for name in ("collect_ignore_glob", "collect_ignore"):
                if f"'{name}'" in text:
                    line, before = controls.get(name, (node.lineno, ""))
                    controls[name] = (line, before + text)
                    break
    return controls

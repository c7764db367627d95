"""Names: the one a missing-name error reports, those the source defines, those a test uses.

A red may fail with an ``ImportError``, ``AttributeError`` or ``NameError`` only when it names
a symbol the test uses and the project has not written yet. The exception's message is the
only place the missing name appears; its forms are fixed by CPython (the same from 3.10 to
3.13), and :func:`parse_missing` reads them exactly, answering ``None`` for anything else.
What the source defines is read with :mod:`ast` from the files, never by importing them.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

__all__ = ["MissingSymbol", "SourceIndex", "judge_missing", "parse_missing", "referenced_names"]

SymbolKind = Literal["module", "import", "module-attribute", "attribute", "name"]

_MODULE = re.compile(r"^No module named '([^']+)'")
_IMPORT = re.compile(
    r"^cannot import name '([^']+)' from (?:partially initialized module )?'([^']+)'"
)
_MODULE_ATTRIBUTE = re.compile(
    r"^(?:partially initialized )?module '([^']+)' has no attribute '([^']+)'"
)
_OBJECT_ATTRIBUTE = re.compile(r"^'([^']+)' object has no attribute '([^']+)'")
_TYPE_ATTRIBUTE = re.compile(r"^type object '([^']+)' has no attribute '([^']+)'")
_NAME = re.compile(r"^(?:global )?name '([^']+)' is not defined")


@dataclass(frozen=True)
class MissingSymbol:
    """What a missing-name error says is missing, and where it was looked for."""

    kind: SymbolKind
    name: str
    owner: str | None = None

    def __str__(self) -> str:
        if self.kind == "module":
            return f"module {self.name!r}"
        if self.owner is not None:
            return f"{self.owner}.{self.name}"
        return repr(self.name)


#: A message pattern, the kind of symbol it reports, and the groups of its name and owner.
_Reading = tuple[re.Pattern[str], SymbolKind, int, int]
_IMPORT_READINGS: tuple[_Reading, ...] = ((_MODULE, "module", 1, 0), (_IMPORT, "import", 1, 2))
_NAME_READINGS: tuple[_Reading, ...] = ((_NAME, "name", 1, 0),)
#: For each missing-name error, the message patterns tried in order.
_READINGS: dict[str, tuple[_Reading, ...]] = {
    "ModuleNotFoundError": _IMPORT_READINGS,
    "ImportError": _IMPORT_READINGS,
    "AttributeError": (
        (_MODULE_ATTRIBUTE, "module-attribute", 2, 1),
        (_OBJECT_ATTRIBUTE, "attribute", 2, 1),
        (_TYPE_ATTRIBUTE, "attribute", 2, 1),
    ),
    "NameError": _NAME_READINGS,
    "UnboundLocalError": _NAME_READINGS,
}


def parse_missing(exc_type: str, message: str) -> MissingSymbol | None:
    """The missing symbol of an ``ImportError``/``AttributeError``/``NameError`` message."""
    for pattern, kind, name, owner in _READINGS.get(exc_type.rsplit(".", 1)[-1], ()):
        match = pattern.match(message)
        if match:
            return MissingSymbol(kind, match.group(name), match.group(owner) if owner else None)
    return None


@dataclass
class SourceIndex:
    """What the project's source files define, read with :mod:`ast`."""

    #: dotted module name -> path of its file, relative to the project root
    modules: dict[str, str] = field(default_factory=dict)
    #: dotted module name -> the names its top level defines or imports
    module_names: dict[str, set[str]] = field(default_factory=dict)
    #: class name -> attributes its body or its methods (``self.x = ...``) define
    class_attributes: dict[str, set[str]] = field(default_factory=dict)
    #: class name -> where it is defined
    class_paths: dict[str, str] = field(default_factory=dict)
    #: every function, class and top-level name defined anywhere -> where
    defined: dict[str, str] = field(default_factory=dict)
    #: files that could not be parsed
    unreadable: list[str] = field(default_factory=list)

    @property
    def top_packages(self) -> set[str]:
        """The first part of every module name: the project's own import roots."""
        return {name.split(".", 1)[0] for name in self.modules}

    @classmethod
    def build(cls, root: Path, paths: Iterable[str]) -> SourceIndex:
        """Index the source files ``paths`` (relative to ``root``)."""
        index = cls()
        declared: dict[str, str] = {}  # defs and classes win over imports and assignments
        for relpath in sorted(paths):
            try:
                tree = ast.parse((root / relpath).read_bytes(), filename=relpath)
            except (OSError, SyntaxError, ValueError):
                index.unreadable.append(relpath)
                continue
            index._add_module(_module_name(root, relpath), relpath, tree)
            index._add_definitions(relpath, tree, declared)
        index.defined.update(declared)
        return index

    def _add_module(self, module: str, relpath: str, tree: ast.Module) -> None:
        """A module's file and the names its top level binds (defined there, unless a def or
        class elsewhere claims the name)."""
        self.modules[module] = relpath
        self.module_names[module] = set(_top_level_names(tree.body))
        for name in self.module_names[module]:
            self.defined.setdefault(name, relpath)

    def _add_definitions(self, relpath: str, tree: ast.Module, declared: dict[str, str]) -> None:
        """Every class (with its attributes) and function of a file, at any depth."""
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                attributes = self.class_attributes.setdefault(node.name, set())
                attributes.update(_class_attributes(node))
                self.class_paths.setdefault(node.name, relpath)
                declared.setdefault(node.name, relpath)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                declared.setdefault(node.name, relpath)


def referenced_names(source: str | bytes) -> set[str]:
    """Every identifier a test file uses: names, attributes, imported names and modules."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return set()
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.Attribute):
            names.add(node.attr)
        elif isinstance(node, ast.alias):
            names.update(node.name.split("."))
            names.add(node.name)
            if node.asname:
                names.add(node.asname)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.update(node.module.split("."))
            names.add(node.module)
    return names


def judge_missing(symbol: MissingSymbol, index: SourceIndex, referenced: set[str]) -> str | None:
    """``None`` if ``symbol`` is not written yet and the test uses it; else why it is not."""
    judge = _ALREADY_OR_NOT_OURS.get(symbol.kind, _name_defined)
    reason = judge(symbol, index)
    if reason is not None:
        return reason
    leaf = symbol.name.rsplit(".", 1)[-1]
    if leaf not in referenced and symbol.name not in referenced:
        return f"the test file does not use the name {leaf!r}"
    return None


def _module_exists(symbol: MissingSymbol, index: SourceIndex) -> str | None:
    top = symbol.name.split(".", 1)[0]
    if top not in index.top_packages:
        return _not_ours(f"module {top!r}", index)
    if symbol.name in index.modules:
        return f"module {symbol.name!r} exists already ({index.modules[symbol.name]})"
    return None


def _module_name_defined(symbol: MissingSymbol, index: SourceIndex) -> str | None:
    module = symbol.owner or ""
    if module not in index.modules:
        return _not_ours(f"module {module!r}", index)
    if symbol.name in index.module_names.get(module, set()):
        return f"{module}.{symbol.name} is defined already ({index.modules[module]})"
    return None


def _attribute_defined(symbol: MissingSymbol, index: SourceIndex) -> str | None:
    owner = symbol.owner or ""
    if owner not in index.class_attributes:
        return f"{owner!r} is not a class of the project's source"
    if symbol.name in index.class_attributes[owner]:
        return f"{owner}.{symbol.name} is defined already ({index.class_paths[owner]})"
    return None


def _name_defined(symbol: MissingSymbol, index: SourceIndex) -> str | None:
    if symbol.name in index.defined:
        return (
            f"{symbol.name!r} is defined in {index.defined[symbol.name]} already: "
            "the test does not import it"
        )
    return None


#: For each kind of missing symbol: why it is not missing (written already, or not the
#: project's), or None when it is. Any other kind is a bare name.
_ALREADY_OR_NOT_OURS: dict[str, Callable[[MissingSymbol, SourceIndex], str | None]] = {
    "module": _module_exists,
    "import": _module_name_defined,
    "module-attribute": _module_name_defined,
    "attribute": _attribute_defined,
}


def _not_ours(what: str, index: SourceIndex) -> str:
    packages = ", ".join(sorted(index.top_packages)) or "none found"
    return f"{what} is not part of the project's source (its packages: {packages})"


def _module_name(root: Path, relpath: str) -> str:
    """The dotted import name of a file: its folders up to the first without ``__init__``."""
    path = root / relpath
    parts = [] if path.name == "__init__.py" else [path.stem]
    folder = path.parent
    while folder != root and (folder / "__init__.py").is_file():
        parts.insert(0, folder.name)
        folder = folder.parent
    return ".".join(parts) or path.parent.name


def _top_level_names(body: list[ast.stmt]) -> Iterator[str]:
    for node in body:
        yield from _bound_names(node)


_BLOCKS = (ast.If, ast.Try, ast.With, ast.For, ast.While)


def _bound_names(node: ast.stmt) -> Iterator[str]:
    """The names a statement binds in its scope, looking into blocks (``if``, ``try``...)."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        yield node.name
    elif isinstance(node, (ast.Import, ast.ImportFrom)):
        yield from _imported_names(node)
    elif isinstance(node, _BLOCKS):
        yield from _block_names(node)
    else:  # an assignment binds its targets; any other statement binds nothing
        for target in _assignment_targets(node):
            yield from _target_names(target)


def _imported_names(node: ast.Import | ast.ImportFrom) -> Iterator[str]:
    """``import a.b`` binds ``a``; ``from m import x as y`` binds ``y``."""
    for alias in node.names:
        if alias.asname:
            yield alias.asname
        else:
            yield alias.name.split(".", 1)[0] if isinstance(node, ast.Import) else alias.name


def _block_names(node: ast.stmt) -> Iterator[str]:
    for block in ("body", "orelse", "finalbody"):
        yield from _top_level_names(getattr(node, block, []))
    for handler in getattr(node, "handlers", []):
        yield from _top_level_names(handler.body)


def _assignment_targets(node: ast.AST) -> list[ast.expr]:
    """What an assignment (plain, annotated or augmented) assigns to; nothing for others."""
    if isinstance(node, ast.Assign):
        return node.targets
    if isinstance(node, (ast.AnnAssign, ast.AugAssign)):
        return [node.target]
    return []


def _target_names(target: ast.expr) -> Iterator[str]:
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            yield from _target_names(element)


def _class_attributes(node: ast.ClassDef) -> set[str]:
    """A class's names: those its body binds and those its methods assign on ``self``."""
    attributes = set(_top_level_names(node.body))
    for member in node.body:
        if isinstance(member, (ast.FunctionDef, ast.AsyncFunctionDef)) and member.args.args:
            attributes |= _self_attributes(member)
    return attributes


def _self_attributes(method: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """The attributes a method assigns on its first argument (``self.x = ...``)."""
    self_name = method.args.args[0].arg
    return {
        target.attr
        for inner in ast.walk(method)
        for target in _assignment_targets(inner)
        if isinstance(target, ast.Attribute)
        and isinstance(target.value, ast.Name)
        and target.value.id == self_name
    }

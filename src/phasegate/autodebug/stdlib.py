"""The standard library as a source of missing imports: its module names and public symbols.

Module names come from :data:`sys.stdlib_module_names` (and the public submodules of its
packages, found without importing them). A symbol is looked up only when a failure needs it:
the sources that mention the name are found by a text search, and only those modules are
imported to confirm the symbol is public there. Modules with import side effects or
deprecation warnings are never imported.
"""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil
import re
import sys
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib.machinery import ModuleSpec
from pathlib import Path
from types import ModuleType

__all__ = [
    "StdlibModule",
    "attribute_names",
    "is_stdlib_module",
    "modules_defining",
    "offers",
    "stdlib_modules",
]

# Importing these does something (opens a browser, prints, needs a display) or warns that
# the module is deprecated (PEP 594); they are never suggested.
_NEVER = frozenset(
    {
        "antigravity", "this", "idlelib", "turtledemo", "turtle", "tkinter", "ensurepip",
        "pydoc_data", "lib2to3", "distutils", "imp", "aifc", "audioop", "cgi", "cgitb",
        "chunk", "crypt", "imghdr", "mailcap", "msilib", "nis", "nntplib", "ossaudiodev",
        "pipes", "sndhdr", "spwd", "sunau", "telnetlib", "uu", "xdrlib", "asynchat",
        "asyncore", "smtpd", "test", "msvcrt", "winreg", "winsound", "_winapi",
    }
)  # fmt: skip


@dataclass(frozen=True)
class StdlibModule:
    """A public standard-library module and its source file (None for built-in modules)."""

    name: str
    origin: str | None


def _public(name: str) -> bool:
    return not any(part.startswith("_") for part in name.split(".")) and (
        name.split(".")[0] not in _NEVER
    )


@lru_cache(maxsize=1)
def stdlib_modules() -> tuple[StdlibModule, ...]:
    """Every public top-level standard-library module and the submodules of its packages."""
    found: list[StdlibModule] = []
    names: frozenset[str] = getattr(sys, "stdlib_module_names", frozenset())
    for name in sorted(n for n in names if _public(n)):
        spec = _find_spec(name)
        if spec is None:
            continue
        origin = spec.origin if spec.origin and spec.origin.endswith(".py") else None
        found.append(StdlibModule(name, origin))
        found.extend(_public_submodules(name, spec))
    return tuple(found)


def _find_spec(name: str) -> ModuleSpec | None:
    """How the top-level module ``name`` would be imported, or None if it cannot be."""
    try:
        return importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None


def _public_submodules(name: str, spec: ModuleSpec) -> Iterator[StdlibModule]:
    """The public submodules of the package ``name``, found without importing them."""
    for sub in pkgutil.iter_modules(spec.submodule_search_locations or []):
        full = f"{name}.{sub.name}"
        if _public(full):
            yield StdlibModule(full, _submodule_source(sub))


def _submodule_source(sub: pkgutil.ModuleInfo) -> str | None:
    """The source file of a submodule, or None if it has none on disk."""
    folder = Path(getattr(sub.module_finder, "path", ""))
    source = folder / sub.name / "__init__.py" if sub.ispkg else folder / f"{sub.name}.py"
    return str(source) if source.is_file() else None


@cache
def _stdlib_names() -> frozenset[str]:
    return frozenset(module.name for module in stdlib_modules())


def is_stdlib_module(name: str) -> bool:
    """Whether ``name`` is a public standard-library module (``json``, ``os.path``)."""
    return name == "os.path" or name in _stdlib_names()


@cache
def _source(origin: str) -> str:
    try:
        return Path(origin).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ""


def _offer(module_name: str, symbol: str) -> tuple[int, bool, bool] | None:
    """``(id of the object, defined there, listed in __all__)``, or None if not offered.

    "Defined there" means the object (or, for a ``typing`` alias, what it aliases) names this
    module as its own: ``collections.OrderedDict`` is, ``typing.OrderedDict`` is not.
    """
    module = _import_quietly(module_name)
    value = getattr(module, symbol, None)
    if value is None or isinstance(value, ModuleType):
        return None
    listed = symbol in getattr(module, "__all__", ())
    own = _defined_in(value, module_name)
    if not (listed or own):
        return None  # imported from elsewhere for the module's own use
    return id(value), own, listed


def _import_quietly(module_name: str) -> ModuleType | None:
    """The module, imported with its warnings silenced; None if it cannot be imported here."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return importlib.import_module(module_name)
    except Exception:  # noqa: BLE001 - a module that cannot be imported here offers nothing
        return None


def _defined_in(value: object, module_name: str) -> bool:
    """Whether ``value`` (or what a ``typing`` alias aliases) names ``module_name`` as its
    own; a package owns what its submodules define (json owns json.decoder.JSONDecodeError)."""
    owner = getattr(getattr(value, "__origin__", value), "__module__", None)
    if not isinstance(owner, str):
        return False
    return owner.lstrip("_") == module_name or owner.startswith(f"{module_name}.")


def offers(module_name: str, symbol: str) -> bool:
    """Whether the standard-library module ``module_name`` offers ``symbol`` publicly."""
    return not symbol.startswith("_") and _offer(module_name, symbol) is not None


def modules_defining(symbol: str) -> list[str]:
    """The standard-library modules that offer ``symbol`` publicly, best first.

    First the modules that define it rather than re-export it, then shallower ones, then
    those that list it in ``__all__``, then shorter names. Of several modules offering the same
    object (``asyncio`` and ``asyncio.tasks``), only the best is kept.
    """
    if not symbol.isidentifier() or symbol.startswith("_"):
        return []
    word = re.compile(rf"\b{re.escape(symbol)}\b")
    offers: list[tuple[tuple[bool, int, bool, int, str], int]] = []
    for module in stdlib_modules():
        offer = _offer(module.name, symbol) if _may_offer(module, word) else None
        if offer is not None:
            identity, own, listed = offer
            rank = (not own, module.name.count("."), not listed, len(module.name), module.name)
            offers.append((rank, identity))
    best: dict[int, str] = {}
    for rank, identity in sorted(offers):
        best.setdefault(identity, rank[-1])  # the best module offering each object
    return list(best.values())


def _may_offer(module: StdlibModule, word: re.Pattern[str]) -> bool:
    """Whether ``module`` may offer the symbol ``word`` finds: its source mentions it or
    star-imports; a module without source (built in) is asked."""
    if module.origin is None:
        return True
    text = _source(module.origin)
    return "import *" in text or word.search(text) is not None


@cache
def attribute_names(module_name: str) -> frozenset[str]:
    """The names an attribute read on ``module_name`` or on what it holds may have: the
    module's own, and those of its classes and submodules (``inspect.Parameter.KEYWORD_ONLY``,
    ``os.path.isfile``); empty for a module that is not a public standard-library one."""
    module = _import_quietly(module_name) if is_stdlib_module(module_name) else None
    if module is None:
        return frozenset()
    names = set(dir(module))
    for value in list(vars(module).values()):
        if isinstance(value, (type, ModuleType)):
            names.update(dir(value))
    return frozenset(names)

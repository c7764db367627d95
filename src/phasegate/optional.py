"""Optional dependencies: import them on demand, or say exactly how to install them.

The core of phasegate needs only pytest, pluggy, pydantic, packaging and filelock. The tools
behind the checks, the context index of auto-debug and pytest-bdd come from extras; asking for
a feature whose extra is missing raises :class:`~phasegate.errors.MissingDependencyError` with
the ``pip install`` command that fixes it.
"""

from __future__ import annotations

import importlib
import importlib.util
from types import ModuleType

from phasegate.errors import MissingDependencyError

__all__ = ["is_available", "require"]


def is_available(module: str) -> bool:
    """Whether ``module`` can be imported, without importing it."""
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def require(module: str, *, what: str, package: str, extra: str) -> ModuleType:
    """Import ``module`` for ``what``, or raise with the install command for ``extra``."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingDependencyError(what, package, extra) from exc

"""The exceptions phasegate raises, and what a front end does with each.

::

    PhasegateError                  anything phasegate reports as its own error
    ├── UsageError                  the user asked for something that cannot be done: exit 4
    │   ├── ConfigError             a bad key or value in [tool.phasegate] or a flag
    │   └── MissingDependencyError  an optional dependency is not installed (says how to install)
    └── StoreError                  the artifacts folder cannot be read or written: exit 4
        └── SchemaVersionError      a file written by a newer major schema version

Every message names the file, key or value at fault and what is allowed instead, so the
front ends (the pytest plugin and the ``phasegate`` command) print it as it is.
"""

from __future__ import annotations

__all__ = [
    "USAGE_ERROR_EXIT_CODE",
    "ConfigError",
    "MissingDependencyError",
    "PhasegateError",
    "SchemaVersionError",
    "StoreError",
    "UsageError",
]

#: pytest's own exit code for usage errors; the ``phasegate`` command uses it too.
USAGE_ERROR_EXIT_CODE = 4


class PhasegateError(Exception):
    """Base class of every error phasegate raises on purpose."""


class UsageError(PhasegateError):
    """The request cannot be carried out as given (exit code 4)."""


class ConfigError(UsageError):
    """A key or value in ``[tool.phasegate]`` (or a command-line flag) is not allowed."""


class MissingDependencyError(UsageError):
    """An optional dependency is missing; the message carries the install command."""

    def __init__(self, what: str, package: str, extra: str) -> None:
        self.package = package
        self.extra = extra
        self.install_command = f"pip install 'pytest-phasegate[{extra}]'"
        super().__init__(
            f"{what} needs {package}, which is not installed; "
            f"install it with: {self.install_command}"
        )


class StoreError(PhasegateError):
    """The artifacts folder (``.phasegate/`` by default) cannot be used."""


class SchemaVersionError(StoreError):
    """A file was written by a newer major version of phasegate's schema."""

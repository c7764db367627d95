"""Run the tools behind the checks: found or explained, timed out or answered, parsed or refused.

Every tool runs as ``python -m <module>`` with the interpreter phasegate runs under, so the
tools of the project's own environment are used, with an argument list (never a shell string)
and a timeout. A tool runs in a process group of its own (:mod:`phasegate.processes`): at the
timeout the tool and everything it started are killed. A missing tool, a timeout, a crash or
output that cannot be parsed raises :class:`~phasegate.gates.protocol.CheckError` with the
reason and the fix.

Fail closed means positive recognition: :func:`parse_json` refuses empty output (a tool that
printed nothing said nothing, not "no findings"), and each check then refuses a document of a
shape it does not know (:func:`expect`).
"""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.metadata
import importlib.util
import json
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar, overload

from phasegate.gates.helper_env import helper_environment
from phasegate.gates.protocol import CheckError
from phasegate.model.gate import ToolInfo
from phasegate.processes import GroupTimeout, run_in_group

__all__ = [
    "INSTALL_HINT",
    "ToolRun",
    "expect",
    "module_binary",
    "parse_json",
    "require_tool",
    "run_tool",
]

#: The extra that installs every tool behind the built-in checks.
INSTALL_HINT = "pip install 'pytest-phasegate[gate]'"

#: Output kept in an error message, from its end.
_TAIL_CHARS = 1500


@dataclass(frozen=True)
class ToolRun:
    """What a tool printed and how it exited."""

    returncode: int
    stdout: str
    stderr: str


def require_tool(module: str, distribution: str) -> ToolInfo:
    """The tool's name and version, or a :class:`CheckError` saying how to install it."""
    if importlib.util.find_spec(module) is None:
        raise CheckError(
            f"{distribution} is not installed, so this check cannot run",
            fix=f"{INSTALL_HINT}  (or: pip install {distribution})",
        )
    try:
        version = importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        version = "unknown"
    return ToolInfo(name=distribution, version=version)


def run_tool(
    module: str,
    args: Sequence[str],
    *,
    cwd: Path,
    timeout_s: float,
    ok_codes: Sequence[int] = (0,),
    stdin: str | None = None,
    program: Sequence[str] | None = None,
) -> ToolRun:
    """Run ``python -m module args``; an exit code outside ``ok_codes`` is a CheckError.

    ``program`` runs instead of ``python -m module`` when the module is only a way to start it
    (ruff's module execs ruff's binary, see :func:`module_binary`).
    """
    command = [*(program or [sys.executable, "-m", module]), *args]
    try:
        finished = run_in_group(
            command,
            cwd=cwd,
            timeout_s=timeout_s,
            input=stdin.encode("utf-8") if stdin is not None else None,
            env=helper_environment(),  # not measured by the project's coverage settings
        )
    except GroupTimeout as exc:
        raise CheckError(
            f"{module} did not finish within {timeout_s:g}s (it was stopped, with every "
            "process it started)",
            fix="raise timeout_s for this check in the gate or in [tool.phasegate.checks]",
        ) from exc
    except OSError as exc:
        raise CheckError(f"{module} could not be started: {exc}") from exc
    run = ToolRun(
        finished.returncode,
        finished.stdout.decode("utf-8", errors="replace"),
        finished.stderr.decode("utf-8", errors="replace"),
    )
    if finished.returncode not in ok_codes:
        raise CheckError(
            f"{module} exited with status {finished.returncode}: {_tail(run)}",
            fix=f"run `{_shown(command)}` in the project to see the whole output",
        )
    return run


#: Modules whose ``__main__`` runs only under ``if __name__ == "__main__":``, so that importing
#: it only defines its finder: every ruff release's does.
_GUARDED_MAINS = frozenset({"ruff"})


def module_binary(module: str, finder: str, cwd: Path) -> list[str] | None:
    """The binary ``python -m module`` would exec, found by the function ``finder`` of the
    module's ``__main__`` (imported, not run); None when ``module`` is not known to guard its
    ``__main__`` (:data:`_GUARDED_MAINS`), when a child in ``cwd`` would import another
    ``module`` than this process would (the children's ``PYTHONPATH`` or ``cwd`` holds one), or
    no binary is found. The caller then runs ``python -m module``.

    A tool such as ruff ships a binary and a module whose only job is to find it and exec it:
    starting Python for that costs as much as a small project's whole lint. Asking the same
    module where its binary is runs the same tool without that start. Only a guarded
    ``__main__`` may be imported for that: many tools run on the import of theirs (black's calls
    its main unguarded), which would read pytest's arguments and exit inside the check's thread.
    """
    if module not in _GUARDED_MAINS or not _children_import_ours(module, cwd):
        return None
    found = _found_file(module, finder)
    return [found] if found else None


def _children_import_ours(module: str, cwd: Path) -> bool:
    """Whether ``python -m module`` in ``cwd`` would import the ``module`` this process would."""
    own = importlib.util.find_spec(module)
    children = os.environ.get("PYTHONPATH", "").split(os.pathsep)
    searched = [str(cwd), *filter(None, children), *sys.path]
    theirs = importlib.machinery.PathFinder.find_spec(module, searched)
    return own is not None and theirs is not None and own.origin == theirs.origin


def _found_file(module: str, finder: str) -> str | None:
    """The file ``module.__main__.finder()`` names; None when it fails or names no file.

    The ``__main__`` is what ``python -m module`` runs: ruff's has had ``find_ruff_bin`` since
    before 0.6, where the package itself exports it only in later releases.
    """
    try:
        found = getattr(importlib.import_module(f"{module}.__main__"), finder)()
    except (ImportError, AttributeError, OSError):
        return None
    return found if isinstance(found, str) and os.path.isfile(found) else None


def parse_json(module: str, text: str) -> object:
    """The tool's JSON output (any JSON value, narrowed by the check that reads it), or a
    CheckError quoting the start of what it printed.

    Empty output is refused too: a tool asked for JSON always prints a document, even an
    empty list, when it finished its work.
    """
    if not text.strip():
        raise CheckError(
            f"{module} printed nothing where its JSON report was expected, so nothing was measured",
            fix=f"run `python -m {module}` in the project to see what it does",
        )
    try:
        return json.loads(text)
    except ValueError as exc:
        raise CheckError(
            f"{module} printed output that is not JSON ({exc}): {text[:300]!r}",
            fix=f"check that the installed {module} supports JSON output",
        ) from exc


_T = TypeVar("_T")
_U = TypeVar("_U")


@overload
def expect(module: str, value: object, kind: type[_T], what: str) -> _T: ...


@overload
def expect(module: str, value: object, kind: tuple[type[_T], type[_U]], what: str) -> _T | _U: ...


def expect(module: str, value: object, kind: type | tuple[type, ...], what: str) -> object:
    """``value``, typed, if it is of ``kind``, else a CheckError naming the tool and what was
    expected.

    ``bool`` never passes for ``int`` (JSON ``true`` is not a count).
    """
    wanted = kind if isinstance(kind, tuple) else (kind,)
    refused = isinstance(value, bool) and bool not in wanted
    if refused or not isinstance(value, wanted):
        raise CheckError(
            f"{module} printed a document of an unknown shape: {what} is {value!r:.200}",
            fix=f"check that the installed {module} is a release phasegate supports",
        )
    return value


def _tail(run: ToolRun) -> str:
    text = (run.stderr.strip() or run.stdout.strip()) or "(no output)"
    return text if len(text) <= _TAIL_CHARS else "..." + text[-_TAIL_CHARS:]


def _shown(command: Sequence[str]) -> str:
    shown = ["python", *command[1:6]]
    return " ".join(shown) + (" ..." if len(command) > 6 else "")

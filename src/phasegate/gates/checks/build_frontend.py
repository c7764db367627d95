"""The build check's PEP 517 front end, in this process: ``build``'s ``ProjectBuilder``.

``python -m build --no-isolation`` is a Python process of its own that imports ``build``,
``packaging`` and ``pyproject_hooks``, only to start each of the backend's hooks in a fresh
Python of its own. The build check runs in the static checks' process, which imports them once:
here the same library calls the same hooks in the same order, with the same checks between them,
and the front end's own start is gone from the build's path.

What it does, as ``python -m build --no-isolation`` does: the backend's requirements for the
sdist checked against this environment (``check_dependencies``: ``[build-system].requires``
and what ``get_requires_for_build_sdist`` adds), the sdist built from the source tree, then
extracted, and the same for the wheel from the extracted sdist (or from the source tree alone,
``wheel_only``). Requirements that are missing are said in ``build``'s words ("Missing
dependencies:"), so that the check's isolated retry reads both front ends the same way.

Each hook runs through :mod:`phasegate.processes`: a process group of its own, started by the
check's thread (so that a check past its timeout has it killed), and killed whole when the
build's deadline passes, which is then the check's error. The hooks' output is kept, in the
order they ran, for the last lines a failing build shows. Any other failure ``build`` raises
(a backend that crashes, ends without answering, names a file it did not write) is a failed
build, as ``python -m build`` reports it with status 1. What the front end itself raises
otherwise (a ``TypeError`` in the hooks' runner, an ``AttributeError`` from a ``build`` release
whose API moved) is phasegate's own fault, not the project's: the check's error, never a
failed build.

Each hook's Python runs with its garbage collector off (:data:`_COLLECTOR_OFF`): it runs one
hook and exits, and its collections walked what importing the backend made, to free almost
nothing. The hook script is run as ``python SCRIPT ARGS`` runs it (its folder first on
``sys.path``, the arguments after it), through ``runpy``; a command of another shape is run as
given.

Hand-written here: the sdist's check (one top-level folder holding ``PKG-INFO``) and its
extraction, which ``build`` keeps private in its command line module.

Isolated builds are left to ``python -m build`` (:mod:`phasegate.gates.checks.build`): its
isolated environment installs the requirements with pip in processes it starts itself, which
this front end could not keep in the check's process group and deadline.
"""

from __future__ import annotations

import subprocess
import tarfile
import zlib
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Literal

from phasegate import clock
from phasegate.gates.helper_env import helper_environment
from phasegate.gates.protocol import CheckError
from phasegate.gates.scratch import scratch_folder
from phasegate.gates.tools import ToolRun
from phasegate.processes import GroupTimeout, run_in_group

__all__ = ["IN_PROCESS", "build_in_process", "collector_off"]

#: Whether this Python's ``tarfile`` has PEP 706's ``data`` filter (3.10.12, 3.11.4 and later),
#: which extracting the sdist needs: without it, the build check runs ``python -m build``.
IN_PROCESS = hasattr(tarfile, "data_filter")


#: ``python -c`` code that runs the script and arguments after it as ``python SCRIPT ARGS``
#: would, with the garbage collector off: the script's folder (symbolic links resolved) takes
#: the place of the current folder ``-c`` put first on ``sys.path`` (none under
#: ``PYTHONSAFEPATH``, and then none for the script either).
_COLLECTOR_OFF = (
    "import gc, os, runpy, sys\n"
    "gc.disable()\n"
    "del sys.argv[0]\n"
    "if sys.path and sys.path[0] == '':\n"
    "    sys.path[0] = os.path.dirname(os.path.realpath(sys.argv[0]))\n"
    "runpy.run_path(sys.argv[0], run_name='__main__')\n"
)


def collector_off(cmd: Sequence[str]) -> list[str]:
    """``cmd``, a hook's ``[python, SCRIPT.py, ARGS...]``, run with the collector off; any
    other command as given."""
    if len(cmd) < 2 or not cmd[1].endswith(".py"):
        return list(cmd)
    return [cmd[0], "-c", _COLLECTOR_OFF, *cmd[1:]]


class _Hooks:
    """The runner ``ProjectBuilder`` starts each hook with, and what the hooks printed."""

    def __init__(self, timeout_s: float) -> None:
        self.timeout_s = timeout_s
        self.deadline = clock.monotonic() + timeout_s
        self.stdout: list[str] = []
        self.stderr: list[str] = []

    def __call__(
        self,
        cmd: Sequence[str],
        cwd: str | None = None,
        extra_environ: Mapping[str, str] | None = None,
    ) -> None:
        """Run one hook to its end; CalledProcessError on a status other than 0, as
        ``pyproject_hooks``' own runner raises; CheckError past the deadline."""
        try:
            finished = run_in_group(
                collector_off(cmd),
                cwd=Path(cwd or "."),
                timeout_s=max(0.0, self.deadline - clock.monotonic()),
                env={**helper_environment(), **(extra_environ or {})},
            )
        except GroupTimeout as exc:
            self._keep(exc.stdout, exc.stderr)
            raise CheckError(
                f"the build did not finish within {self.timeout_s:g}s (it was stopped, with "
                "every process it started)",
                fix="raise timeout_s for this check in the gate or in [tool.phasegate.checks]",
            ) from exc
        except OSError as exc:
            raise CheckError(f"the build backend could not be started: {exc}") from exc
        except Exception as exc:  # else ``build`` would wrap it as the backend's own failure
            raise CheckError(
                f"the build check's hook runner failed: {type(exc).__name__}: {exc}",
                fix="this is a bug in phasegate's build front end; please report it with this "
                "message",
            ) from exc
        self._keep(finished.stdout, finished.stderr)
        if finished.returncode != 0:
            raise subprocess.CalledProcessError(finished.returncode, list(cmd))

    def _keep(self, stdout: bytes, stderr: bytes) -> None:
        self.stdout.append(stdout.decode("utf-8", errors="replace"))
        self.stderr.append(stderr.decode("utf-8", errors="replace"))

    def say(self, line: str) -> None:
        """A line of the front end's own, among the hooks' output as ``build`` prints it."""
        self.stderr.append(line + "\n")

    def ran(self, returncode: int) -> ToolRun:
        """What the build printed and how it ended, as :func:`~phasegate.gates.tools.run_tool`
        gives it for ``python -m build``."""
        return ToolRun(returncode, "".join(self.stdout), "".join(self.stderr))


class _Unmet(Exception):
    """The backend's requirements that this environment does not have."""


def build_in_process(
    source: Path,
    out: Path,
    *,
    timeout_s: float,
    wheel_only: bool = False,
    on_sdist: Callable[[Path], None] | None = None,
) -> ToolRun:
    """Build the sdist and then the wheel from it (or the wheel alone) into ``out``;
    ``on_sdist`` is told of the sdist as soon as it is built, before the wheel's build.

    Status 0 when both were built, 1 when the build failed (its output says why); a
    CheckError when a hook did not end within ``timeout_s`` (counted from here), could not
    be started, or the hooks' runner failed. Any other exception, a bug of this front end,
    goes through (the check's error).
    """
    from build import BuildBackendException, BuildException

    hooks = _Hooks(timeout_s)
    try:
        if wheel_only:
            _built(source, "wheel", out, hooks)
        else:
            sdist = _built(source, "sdist", out, hooks)
            if on_sdist is not None:
                on_sdist(sdist)
            with scratch_folder("phasegate-sdist-") as folder:
                _built(_extracted(sdist, folder), "wheel", out, hooks)
    except BuildBackendException as exc:
        if isinstance(exc.exception, CheckError):
            raise exc.exception from None
        hooks.say(f"ERROR {exc}")
        return hooks.ran(1)
    except (
        BuildException,
        _Unmet,
        OSError,
        ValueError,
        tarfile.TarError,
        EOFError,
        zlib.error,
    ) as exc:
        # What the project's build raises (a requirement that does not parse is a ValueError,
        # an sdist cut short an EOFError), said as ``python -m build`` says it, status 1;
        # anything else is this front end's bug.
        hooks.say(f"ERROR {exc}")
        return hooks.ran(1)
    return hooks.ran(0)


def _built(source: Path, distribution: Literal["sdist", "wheel"], out: Path, hooks: _Hooks) -> Path:
    """The ``distribution`` built from ``source`` into ``out``, its requirements met first."""
    from build import ProjectBuilder

    builder = ProjectBuilder(source, runner=hooks)
    hooks.say(f"* Getting build dependencies for {distribution}...")
    unmet = builder.check_dependencies(distribution)
    if unmet:
        chains = sorted(" -> ".join(chain) for chain in unmet)
        raise _Unmet("Missing dependencies:\n" + "".join(f"\t{chain}\n" for chain in chains))
    hooks.say(f"* Building {distribution}...")
    return Path(builder.build(distribution, out))


def _extracted(sdist: Path, into: Path) -> Path:
    """The sdist's one top-level folder, extracted into ``into``; OSError, ValueError or
    TarError when it cannot be read, is not one folder holding ``PKG-INFO``, or holds a member
    that would be written outside ``into``."""
    with tarfile.open(sdist) as archive:
        members = archive.getmembers()
        tops = {member.name.split("/", 1)[0] for member in members} - {""}
        top = next(iter(tops)) if len(tops) == 1 else None
        if top is None or not any(m.name == f"{top}/PKG-INFO" and m.isfile() for m in members):
            raise ValueError(
                f"{sdist.name} is not a source distribution: it must hold one top-level "
                f"folder with a PKG-INFO, it holds {sorted(tops)}"
            )
        archive.extractall(into, filter="data")
    return into / top

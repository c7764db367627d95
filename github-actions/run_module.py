"""Run an installed module as ``python -m`` would, without the working directory on ``sys.path``.

``python -m phasegate`` puts the working directory first on ``sys.path``, and in the action that
is the change under check: a change adding a top-level ``phasegate/`` package had its own code
run as ``phasegate review import-pr`` and ``phasegate report github``, able to record any
review or publish any verdict (review s17d, 7). Run as a script, this file puts its own folder
(the action's) there instead, so the installed module is the one run; that is ``python -P``,
which Python 3.10 lacks. Before running anything it refuses a working directory that holds a
module named like the judge (``phasegate``, ``pytest``, ``_pytest``, ``pluggy``): the gate step's
``python -m pytest`` keeps the working directory on ``sys.path`` (projects import their code
so), and would load such a module as the judge itself.

Usage: ``python run_module.py MODULE [ARGS...]``. Exit status 4, and a message naming the file,
when the working directory shadows the judge.
"""

from __future__ import annotations

import runpy
import sys
from importlib.machinery import PathFinder
from pathlib import Path

#: The modules that judge: the working directory must not hold one of them.
JUDGE = ("phasegate", "pytest", "_pytest", "pluggy")


def shadows(folder: Path) -> list[str]:
    """The files of ``folder`` that Python would import as one of :data:`JUDGE`."""
    found = (PathFinder.find_spec(name, [str(folder)]) for name in JUDGE)
    return sorted(spec.origin for spec in found if spec is not None and spec.origin)


def main(argv: list[str]) -> int:
    shadowing = shadows(Path.cwd())
    if shadowing:
        print(
            f"::error title=phasegate::the working directory holds {', '.join(shadowing)}, "
            "which Python would import in place of the installed phasegate or pytest (python -m "
            "puts the working directory first on sys.path): the change would judge itself; "
            "rename it or move it under src/",
            file=sys.stdout,
        )
        return 4
    module, *arguments = argv
    sys.argv = [module, *arguments]
    runpy.run_module(module, run_name="__main__", alter_sys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

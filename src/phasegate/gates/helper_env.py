"""The environment phasegate's own helper processes run in: the project's, minus coverage's hook.

The gate measures a project's tests with coverage.py, under the project's own coverage
settings. A project that sets ``[tool.coverage.run] patch = ["subprocess"]`` (attrs does)
asks coverage to measure every Python process the tests start: coverage puts
``COVERAGE_PROCESS_CONFIG`` in the environment, and a ``.pth`` hook starts a measurement in any
process that inherits it. phasegate's helpers (the process running the static checks, ruff,
bandit, mypy, the build, pip) are not the project's tests: measured, they cost the run more
than half again in CPU time and leave ``.coverage.*`` files in the project. So they run
without those variables; the project's own subprocesses, started by its tests, keep them.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

__all__ = ["COVERAGE_HOOK_VARIABLES", "helper_environment"]

#: What makes coverage.py's ``.pth`` hook measure a new process.
COVERAGE_HOOK_VARIABLES = ("COVERAGE_PROCESS_CONFIG", "COVERAGE_PROCESS_START")


def helper_environment(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """``base`` (default: this process's environment) without coverage's subprocess hook."""
    source = os.environ if base is None else base
    return {name: value for name, value in source.items() if name not in COVERAGE_HOOK_VARIABLES}

"""The pytest process imports no ``packaging`` for the checks: only their measuring does.

The deps and build checks import ``packaging`` inside the functions that measure, which run in
the static checks' process; the test imports every check module and the plugin in a fresh
interpreter and compares the ``packaging`` modules loaded before (by pytest itself) and after.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

_SCRIPT = """
import importlib, json, pkgutil, sys
import pytest

def loaded():
    return sorted(name for name in sys.modules if name.partition(".")[0] == "packaging")

before = loaded()
import phasegate.gates.checks as checks
names = [found.name for found in pkgutil.iter_modules(checks.__path__, checks.__name__ + ".")]
for name in names:
    importlib.import_module(name)
import phasegate.plugin, phasegate.plugin.gate
after = loaded()
import phasegate.gates.module_providers
measuring = loaded()
print(json.dumps({"checks": names, "before": before, "after": after, "measuring": measuring}))
"""


@pytest.mark.slow
def test_importing_the_checks_and_the_plugin_loads_no_packaging(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", _SCRIPT],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert {"phasegate.gates.checks.deps", "phasegate.gates.checks.build"} <= set(report["checks"])
    assert report["after"] == report["before"]
    # What the deps check's measuring imports does load it, so the probe sees it.
    assert "packaging.utils" in report["measuring"]

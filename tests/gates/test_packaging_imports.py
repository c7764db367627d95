"""The pytest process imports no ``packaging`` for the checks: only their measuring does.

What the deps and build checks need ``packaging`` for is in modules of their own
(``checks/deps_measure.py``, ``checks/build_measure.py``), which the checks import where they
measure, in the static checks' process. The test imports every other check module and the
plugin in a fresh interpreter and compares the ``packaging`` modules loaded before (by pytest
itself) and after; then it imports the measuring modules, which do load it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import python_json

_SCRIPT = """
import importlib, json, pkgutil, sys
import pytest

def loaded():
    return sorted(name for name in sys.modules if name.partition(".")[0] == "packaging")

before = loaded()
import phasegate.gates.checks as checks
found = [found.name for found in pkgutil.iter_modules(checks.__path__, checks.__name__ + ".")]
names = [name for name in found if not name.endswith("_measure")]
for name in names:
    importlib.import_module(name)
import phasegate.plugin, phasegate.plugin.gate
after = loaded()
measures = [name for name in found if name.endswith("_measure")]
for name in measures:
    importlib.import_module(name)
measuring = loaded()
print(json.dumps({"checks": names, "measures": measures, "before": before, "after": after,
                  "measuring": measuring}))
"""


@pytest.mark.slow
def test_importing_the_checks_and_the_plugin_loads_no_packaging(tmp_path: Path) -> None:
    report = python_json(_SCRIPT, cwd=tmp_path)
    assert {"phasegate.gates.checks.deps", "phasegate.gates.checks.build"} <= set(report["checks"])
    assert report["measures"] == [
        "phasegate.gates.checks.build_measure",
        "phasegate.gates.checks.deps_measure",
    ]
    assert report["after"] == report["before"]
    # What the checks' measuring imports does load it, so the probe sees it.
    assert {"packaging.metadata", "packaging.requirements"} <= set(report["measuring"])

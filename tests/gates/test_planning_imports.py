"""Planning a check imports none of what only its measuring needs.

The pytest process imports the module of every check its gate names (to validate the options
and conditions) but measures none of the static checks, and measures the mutation check only
against a base. So the security check's ruff policy reader and bandit exclusion rules, the
mutation check's mutant maker, and the integrity check's reading of the change and its
families (its options' default reason pattern lives in ``phasegate.integrity`` itself), are
imported where those checks measure. The test imports the
check modules in a fresh interpreter and lists which of those modules were loaded.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import python_json

_MEASURING_ONLY = [
    "phasegate.gates.checks.bandit_excludes",
    "phasegate.gates.mutants",
    "phasegate.gates.ruff_policy",
    "phasegate.integrity.sources",
    "phasegate.integrity.suppressions",
    "phasegate.integrity.trick",
]

_SCRIPT = """
import json, sys
import phasegate.gates.checks.integrity, phasegate.gates.checks.mutation
import phasegate.gates.checks.security
print(json.dumps(sorted(name for name in sys.argv[1:] if name in sys.modules)))
"""


@pytest.mark.slow
def test_importing_the_security_mutation_and_integrity_checks_loads_none_of_their_measuring(
    tmp_path: Path,
) -> None:
    assert python_json(_SCRIPT, *_MEASURING_ONLY, cwd=tmp_path) == []

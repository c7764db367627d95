"""Small git projects with a real problem at the base commit and a change on top of it."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

from phasegate.gates.checks.integrity import IntegrityCheck, IntegrityOptions
from phasegate.gates.newcode import resolve_new_code
from phasegate.gates.project import GateProject
from phasegate.gates.protocol import CheckContext, Measurement, SessionData
from phasegate.store import Store
from tests.conftest import git

#: The project at the base: ``mean`` is wrong, and its test fails.
CALC = '''\
"""Statistics."""


def mean(values):
    """The arithmetic mean."""
    return sum(values) / (len(values) - 1)


def total(values):
    """The sum."""
    return sum(values)
'''

TESTS = """\
import pytest

from calc import mean, total


def test_mean():
    assert mean([1, 2, 3]) == 2


def test_total():
    assert total([1, 2]) == 3
"""

BASE_FILES = {
    "pyproject.toml": '[project]\nname = "calc"\nversion = "0.1"\n',
    "src/calc/__init__.py": CALC,
    "tests/test_calc.py": TESTS,
}

#: The honest fix of the base's problem.
FIXED_CALC = CALC.replace("(len(values) - 1)", "len(values)")


@dataclass
class Change:
    """A repository whose ``main`` holds the base; the work tree holds the change."""

    root: Path

    def write(self, files: Mapping[str, str | None]) -> Change:
        """Write (or, for ``None``, delete) files in the work tree."""
        for name, text in files.items():
            path = self.root / name
            if text is None:
                path.unlink()
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text, encoding="utf-8")
        return self

    def commit(self, message: str = "fix: the change") -> Change:
        git(self.root, "add", "-A")
        git(self.root, "commit", "-qm", message)
        return self

    def context(
        self, base: str | None = "main", session: SessionData | None = None
    ) -> CheckContext:
        store = Store(self.root / ".phasegate")
        return CheckContext(
            project=GateProject(self.root, excluded=(store.root,)),
            new_code=resolve_new_code(self.root, base, {}),
            store=store,
            timeout_s=60.0,
            session=session,
        )

    def measure(self, base: str | None = "main", **options: object) -> Measurement:
        """The integrity check's measurement of the change against ``base``."""
        return IntegrityCheck().measure(
            self.context(base), IntegrityOptions.model_validate(options)
        )

    def sentences(self, base: str | None = "main", **options: object) -> list[str]:
        """Each finding as ``path:line message``."""
        measurement = self.measure(base, **options)
        assert measurement.skipped is None, measurement.skipped
        return [
            f"{f.path}:{f.line} {f.message}" if f.line else f"{f.path} {f.message}"
            for f in measurement.findings
        ]


MakeChange = Callable[..., Change]


@pytest.fixture
def make_change(tmp_path: Path) -> MakeChange:
    """A git repository at the base (default: the calc project), on a branch for the change."""

    def make(files: Mapping[str, str] | None = None) -> Change:
        root = tmp_path / "project"
        change = Change(root).write(dict(files if files is not None else BASE_FILES))
        git(root, "init", "-q", "-b", "main")
        change.commit("feat: statistics")
        git(root, "checkout", "-qb", "change")
        return change

    return make

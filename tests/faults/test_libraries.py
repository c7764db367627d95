"""Libraries phasegate calls in-process (griffe, coverage.py's report) misbehaving: an error.

griffe is a library, so its faults are put in place of its functions: it raises, answers
something that is not a module, answers a module read from somewhere else, or hangs. The
coverage check reads coverage.py's JSON report: it is given no report, ``{}``, a document of
another shape, and totals that do not add up.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import griffe
import pytest

from phasegate.gates.protocol import SessionData
from tests.faults.conftest import Tried
from tests.faults.kit import a_run, judge, refused, small_project
from tests.gates.samples import git


@pytest.fixture
def tagged(tmp_path: Path) -> Path:
    root = small_project(tmp_path / "project")
    git(root, "tag", "v1.0")
    return root


def _elsewhere(tmp_path: Path) -> Any:
    other = tmp_path / "elsewhere" / "small"
    other.mkdir(parents=True)
    (other / "__init__.py").write_text('"""Another package of the same name."""\n')
    return griffe.load("small", search_paths=[other.parent], allow_inspection=False)


def _raise(*_args: Any, **_kwargs: Any) -> Any:
    raise RuntimeError("griffe fell over")


def _hang(*_args: Any, **_kwargs: Any) -> Any:
    time.sleep(4)
    raise RuntimeError("woke up too late")


@pytest.mark.parametrize("check_id", ["docs", "breaking"])
@pytest.mark.parametrize(
    "fault", ["raises", "answers None", "answers a module read from elsewhere", "hangs"]
)
def test_griffe_misbehaving_is_an_error(
    check_id: str,
    fault: str,
    tagged: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    tried: Tried,
) -> None:
    answers = {
        "raises": _raise,
        "answers None": lambda *_a, **_k: None,
        "answers a module read from elsewhere": lambda *_a, **_k: _elsewhere(tmp_path),
        "hangs": _hang,
    }
    monkeypatch.setattr(griffe, "load", answers[fault])
    with tried("libraries", f"griffe {fault} ({check_id})"):
        verdict, result = judge(tagged, check_id, timeout_s=1.5 if fault == "hangs" else 30.0)
        refused(verdict, result)


def test_griffe_failing_to_compare_is_an_error(
    tagged: Path, monkeypatch: pytest.MonkeyPatch, tried: Tried
) -> None:
    monkeypatch.setattr(griffe, "find_breaking_changes", _raise)
    with tried("libraries", "griffe raises while comparing APIs (breaking)"):
        verdict, result = judge(tagged, "breaking")
        refused(verdict, result, "griffe fell over")


GOOD_FILE = {"executed_lines": [1, 2, 4], "missing_lines": [5], "excluded_lines": []}
COVERAGE_FAULTS: dict[str, Any] = {
    "no report at all": None,
    "{}": {},
    "a list, not a report": [],
    "files without totals": {"meta": {}, "files": {"src/small/__init__.py": GOOD_FILE}},
    "totals that do not add up": {
        "meta": {"branch_coverage": False},
        "files": {"src/small/__init__.py": GOOD_FILE},
        "totals": {"num_statements": 4, "covered_lines": 4},
    },
    "line numbers that are not numbers": {
        "meta": {},
        "files": {"src/small/__init__.py": {"executed_lines": "all", "missing_lines": []}},
        "totals": {"num_statements": 0, "covered_lines": 0},
    },
    "no file measured in a project with source": {
        "meta": {},
        "files": {},
        "totals": {"num_statements": 0, "covered_lines": 0},
    },
}


#: Branches a report could hold that are not pairs of line numbers, with totals that count
#: them as a plain ``len`` would (so only a look at each branch can refuse them).
BRANCH_FAULTS: dict[str, Any] = {
    "a string": "ab",
    "a number": 3,
    "line numbers, not pairs": [1, 2],
    "triples": [[1, 2, 3], [2, 3, 4]],
    "pairs of strings": [["1", "2"], ["2", "3"]],
}


@pytest.mark.parametrize("fault", sorted(BRANCH_FAULTS))
def test_coverage_branches_that_are_not_pairs_of_line_numbers_are_an_error(
    fault: str, tmp_path: Path, tried: Tried
) -> None:
    root = small_project(tmp_path / "project")
    branches = BRANCH_FAULTS[fault]
    counted = len(branches) if isinstance(branches, (str, list)) else 0
    entry = {**GOOD_FILE, "executed_branches": branches, "missing_branches": []}
    document = {
        "meta": {"branch_coverage": True},
        "files": {"src/small/__init__.py": entry},
        "totals": {
            "num_statements": 4,
            "covered_lines": 3,
            "num_branches": counted,
            "covered_branches": counted,
        },
    }
    session = SessionData(run=a_run(), coverage_json=document)
    with tried("libraries", f"coverage report: executed branches that are {fault}"):
        verdict, result = judge(root, "coverage", session=session)
        refused(verdict, result, "src/small/__init__.py", "not pairs of line numbers")


@pytest.mark.parametrize("fault", sorted(COVERAGE_FAULTS))
def test_a_coverage_report_that_is_not_coverage_pys_is_an_error(
    fault: str, tmp_path: Path, tried: Tried
) -> None:
    root = small_project(tmp_path / "project")
    session = SessionData(
        run=a_run(),
        coverage_json=COVERAGE_FAULTS[fault],
        coverage_problem="the measurement broke" if COVERAGE_FAULTS[fault] is None else None,
    )
    with tried("libraries", f"coverage report: {fault}"):
        verdict, result = judge(root, "coverage", session=session)
        refused(verdict, result)

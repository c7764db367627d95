"""bandit's library, which the security check runs in-process, replaced by a fake that
misbehaves: it crashes, hangs, or makes a report of a shape bandit never makes. The gate must
fail closed."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

import pytest

from phasegate.gates.checks import security
from tests.faults.conftest import Tried
from tests.faults.kit import judge, refused, small_project

_RESULT = {
    "test_id": "B602",
    "filename": "src/small/__init__.py",
    "issue_severity": "HIGH",
    "issue_confidence": "HIGH",
    "issue_text": "subprocess call with shell=True",
    "line_number": 5,
    "col_offset": 4,
}
_SCANNED = {"src/small/__init__.py": {}, "src/small/more.py": {}}


def _report(result: object) -> dict[str, object]:
    return {"results": [result], "errors": [], "metrics": {"_totals": {"nosec": 0}, **_SCANNED}}


#: (what is wrong, the report the fake makes, what the reason names)
BAD_REPORTS = [
    ("no results list", {"errors": [], "metrics": {}}, "without a results list"),
    ("no metrics", {"results": [], "errors": []}, "unknown shape"),
    (
        "a file given but not scanned",
        {"results": [], "errors": [], "metrics": {"_totals": {"nosec": 0}}},
        "2 files it was given",
    ),
    ("a line that is text", _report({**_RESULT, "line_number": "5"}), "a result's line_number"),
    (
        "no line",
        _report({k: v for k, v in _RESULT.items() if k != "line_number"}),
        "a result's line_number",
    ),
    ("no test id", _report({**_RESULT, "test_id": None}), "a result's test_id"),
    ("a result that is a list", _report(["B602"]), "a result"),
]


@pytest.fixture(scope="module")
def committed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return small_project(tmp_path_factory.mktemp("small"))


def _project(committed: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(committed, tmp_path / "project", symlinks=True))


@pytest.mark.parametrize(
    ("fault", "report", "named"), BAD_REPORTS, ids=[fault for fault, *_ in BAD_REPORTS]
)
def test_a_report_of_an_unknown_shape_is_an_error(
    fault: str,
    report: dict[str, object],
    named: str,
    committed: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    tried: Tried,
) -> None:
    monkeypatch.setattr(security, "bandit_report", lambda *_args: report)
    with tried("tools", f"bandit's library (security) makes a report with {fault}"):
        verdict, result = judge(_project(committed, tmp_path), "security")
        refused(verdict, result, named)


def test_a_crash_of_the_library_is_an_error(
    committed: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tried: Tried
) -> None:
    def crash(*_args: object) -> dict[str, object]:
        raise RuntimeError("the fake library crashed")

    monkeypatch.setattr(security, "bandit_report", crash)
    with tried("tools", "bandit's library (security) crashes"):
        verdict, result = judge(_project(committed, tmp_path), "security")
        refused(verdict, result, "the fake library crashed")


def test_a_hung_library_is_judged_at_its_timeout(
    committed: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tried: Tried
) -> None:
    released = threading.Event()

    def hang(*_args: object) -> dict[str, object]:
        released.wait(timeout=60)
        return _report(_RESULT)

    monkeypatch.setattr(security, "bandit_report", hang)
    try:
        with tried("tools", "bandit's library (security) hangs"):
            verdict, result = judge(_project(committed, tmp_path), "security", timeout_s=1.0)
            refused(verdict, result, "did not finish within 1s")
    finally:
        released.set()  # the check's thread ends; the test leaves nothing running

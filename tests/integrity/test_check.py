"""The integrity check as a gate sees it: no base, a broken git, a run's collection."""

from __future__ import annotations

import stat
from datetime import datetime, timezone
from pathlib import Path

import pytest

from phasegate.gates.checks.integrity import IntegrityCheck, IntegrityOptions
from phasegate.gates.newcode import NewCode
from phasegate.gates.protocol import CheckError, SessionData
from phasegate.model.gate import BaseInfo
from phasegate.model.run import Counts, Environment, Invocation, Location, Outcome, RunReport
from phasegate.model.run import TestRecord as Record

from .conftest import FIXED_CALC, TESTS, MakeChange


def test_without_a_base_it_is_skipped_saying_why(make_change: MakeChange) -> None:
    change = make_change().write(
        {"tests/test_calc.py": TESTS.replace("def test_mean", "@pytest.mark.skip\ndef test_mean")}
    )
    measurement = change.measure(base=None)
    assert measurement.skipped is not None
    assert measurement.skipped.startswith("no base to judge the change against")
    assert measurement.metrics["tricks"] is None


def test_a_project_can_refuse_to_run_without_a_base(make_change: MakeChange) -> None:
    with pytest.raises(CheckError, match="no base to judge the change against"):
        make_change().measure(base=None, missing_base="error")


def test_a_missing_base_option_is_checked() -> None:
    with pytest.raises(ValueError, match="missing_base"):
        IntegrityOptions.model_validate({"missing_base": "pass"})


def test_a_base_named_but_unreadable_is_an_error(make_change: MakeChange) -> None:
    change = make_change()
    context = change.context()
    context.new_code = NewCode(BaseInfo(ref="main", note="git diff against main failed"))
    with pytest.raises(CheckError, match="could not be read: git diff against main failed"):
        IntegrityCheck().measure(context, IntegrityOptions())


def test_a_base_commit_git_does_not_have_is_an_error(make_change: MakeChange) -> None:
    change = make_change().write({"src/calc/__init__.py": FIXED_CALC})
    context = change.context()
    context.new_code = NewCode(BaseInfo(ref="gone", sha="0" * 40, available=True), {}, frozenset())
    with pytest.raises(CheckError, match="git diff"):
        IntegrityCheck().measure(context, IntegrityOptions())


FAKE_GITS = {
    "crashes": "echo 'fatal: index file corrupt' >&2\nexit 128\n",
    "hangs": "sleep 30\n",
    "prints-garbage": "printf 'no/such/file.py\\0'\n",
    "prints-nothing": "exit 0\n",
}


@pytest.mark.parametrize("behaviour", sorted(FAKE_GITS))
def test_a_git_that_misbehaves_is_an_error(
    make_change: MakeChange, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, behaviour: str
) -> None:
    change = make_change().write({"src/calc/__init__.py": FIXED_CALC})
    context = change.context()  # found with the real git
    context.timeout_s = 2.0
    fake = tmp_path / "bin" / "git"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\n" + FAKE_GITS[behaviour])
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", str(fake.parent))
    with pytest.raises(CheckError):
        IntegrityCheck().measure(context, IntegrityOptions())


def test_a_file_that_does_not_parse_is_an_error_naming_it(make_change: MakeChange) -> None:
    change = make_change().write({"tests/test_calc.py": TESTS + "\ndef broken(:\n"})
    with pytest.raises(CheckError, match=r"tests/test_calc\.py does not parse at the work tree"):
        change.measure()


def _run(nodeids: list[str]) -> SessionData:
    now = datetime.now(timezone.utc)
    records = [
        Record(
            nodeid=nodeid,
            outcome=Outcome.PASSED,
            phases={},
            duration_s=0.0,
            location=Location(path=nodeid.split("::")[0], line=1, domain=nodeid),
        )
        for nodeid in nodeids
    ]
    report = RunReport(
        run_id="r1",
        started_at=now,
        finished_at=now,
        duration_s=0.0,
        environment=Environment.model_construct(),
        invocation=Invocation.model_construct(),
        exit_status=0,
        counts=Counts(collected=len(records), passed=len(records)),
        incomplete=False,
        tests=records,
    )
    return SessionData(run=report)


def test_a_test_the_run_deselected_is_caught(make_change: MakeChange) -> None:
    change = make_change().write({"src/calc/__init__.py": FIXED_CALC})
    context = change.context(session=_run(["tests/test_calc.py::test_total"]))
    measurement = IntegrityCheck().measure(context, IntegrityOptions())
    assert [f"{f.path}:{f.line} {f.message}" for f in measurement.findings] == [
        "tests/test_calc.py:6 test_mean was not collected by this run (deselected by -k, -m, "
        "--deselect or a hook): a test that does not run proves nothing"
    ]


def test_a_run_of_every_test_or_of_other_files_deselects_nothing(make_change: MakeChange) -> None:
    change = make_change().write({"src/calc/__init__.py": FIXED_CALC})
    for nodeids in (
        ["tests/test_calc.py::test_mean", "tests/test_calc.py::test_total[1]"],
        ["tests/test_other.py::test_one"],
    ):
        context = change.context(session=_run(nodeids))
        assert IntegrityCheck().measure(context, IntegrityOptions()).findings == []


def test_the_findings_are_counted_by_family(make_change: MakeChange) -> None:
    change = make_change().write(
        {"tests/test_calc.py": TESTS.replace("def test_mean", "@pytest.mark.skip\ndef test_mean")}
    )
    measurement = change.measure()
    assert measurement.metrics == {
        "tricks": 1,
        "evidence_weakened": 1,
        "suppressions_added": 0,
        "configuration_weakened": 0,
    }
    assert measurement.score < 1
    assert measurement.summary.startswith(
        "1 trick(s) weaken the evidence since main; first: tests/test_calc.py:6 test_mean newly "
        "skipped"
    )
    (finding,) = measurement.findings
    assert (finding.rule, finding.path, finding.line) == ("newly-skipped", "tests/test_calc.py", 6)

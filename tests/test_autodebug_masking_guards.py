"""A None guard kept in a function the tests of failures still left run: said to mask them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from phasegate.autodebug.diagnosis import Candidate, Diagnosis, FileEdit
from phasegate.autodebug.engine import Engine, FailedTest
from phasegate.autodebug.localize import CONTEXTS_DATA_ENV, Spectrum, collect_spectrum
from phasegate.autodebug.masking_guards import guarded_function, masked_failures
from phasegate.autodebug.partial_repairs import KeptRepair, PartialGuards
from phasegate.autodebug.project import Project, TestFiles
from phasegate.autodebug.runner import RunResult
from phasegate.autodebug.settings import AutodebugSettings
from phasegate.autodebug.validate import Baseline
from phasegate.autodebug.withdrawals import withdrawal_reasons
from phasegate.autodebug.workspace import Workspace
from phasegate.model.autodebug import AutodebugFailure, AutodebugReport, CandidateAttempt
from tests.autodebug_support import SameRuns

BEFORE = (
    "class Parser:\n"
    "    def parse(self, value):\n"
    "        def clean(text):\n"
    "            return text.strip()\n"
    "        return clean(value)\n"
    "\n"
    "\n"
    "def to_bool(value):\n"
    "    return value.strip() == 'true'\n"
)
#: ``to_bool`` guarded: the ``if`` is on line 9.
GUARDED = BEFORE.replace(
    "    return value.strip() ==",
    "    if value is None:\n        return value\n    return value.strip() ==",
)
#: The same guard in a file whose lines moved before it, as a later repair leaves it.
MOVED = "import os\n\n\n" + GUARDED


def _left(entry_id: str, *tests: str, cls: str = "assertion") -> AutodebugFailure:
    return AutodebugFailure(
        id=entry_id,
        error_class=cls,
        pattern=cls,
        kind="assert",
        tests=list(tests),
        exc_type="AssertionError",
        message="assert 2 == 0",
        path="tests/test_it.py",
        line=5,
        explanation="an assertion",
        outcome="localized",
    )


def _guard(text: str = GUARDED) -> Candidate:
    return Candidate("none-guard", "put back `if value is None`", [FileEdit("pkg/it.py", text)], 1)


#: The test of the None failure the guard repairs: the guarded function failed in it.
OWN = ["tests/test_it.py::test_guarded"]


def _spectrum(**running: set[str]) -> Spectrum:
    """A spectrum where each function of ``pkg/it.py`` (by name) was run by the given tests."""
    covered = {("pkg/it.py", name.replace("__", "."), 1): tests for name, tests in running.items()}
    return Spectrum(covered=covered, outcomes={})


def test_the_guarded_function_is_the_innermost_holding_the_guard() -> None:
    assert guarded_function(BEFORE, FileEdit("pkg/it.py", GUARDED)) == "to_bool"
    nested = BEFORE.replace(
        "            return text.strip()",
        "            if text is None:\n                return ''\n            return text.strip()",
    )
    assert guarded_function(BEFORE, FileEdit("pkg/it.py", nested)) == "Parser.parse.<locals>.clean"


def test_a_guard_outside_any_function_or_in_a_text_that_cannot_be_read_has_no_function() -> None:
    module_level = "x = None\nif x is None:\n    x = 1\n"
    assert guarded_function("x = None\n", FileEdit("pkg/it.py", module_level)) is None
    assert guarded_function(None, FileEdit("pkg/it.py", GUARDED)) is None  # not UTF-8 before
    assert guarded_function(BEFORE, FileEdit("pkg/it.py", GUARDED + "def (:\n")) is None


def test_a_failure_left_whose_test_runs_the_guarded_function_is_named() -> None:
    left = [_left("02", "tests/test_it.py::test_default"), _left("03", "tests/test_it.py::test_b")]
    spectrum = _spectrum(to_bool={"tests/test_it.py::test_default"})
    why = masked_failures(_guard(), {"pkg/it.py": BEFORE}, left, spectrum, OWN)
    assert why is not None
    assert why == "the tests of failures still left (02) run the function it guards"


def test_the_guarded_function_is_matched_by_name_where_its_lines_moved() -> None:
    left = [_left("02", "tests/test_it.py::test_default")]
    spectrum = _spectrum(to_bool={"tests/test_it.py::test_default"})  # its line as it was
    moved_before = "import os\n\n\n" + BEFORE
    assert (
        masked_failures(_guard(MOVED), {"pkg/it.py": moved_before}, left, spectrum, OWN) is not None
    )


def test_a_guard_no_failure_left_runs_is_kept() -> None:
    spectrum = _spectrum(
        to_bool={"tests/test_it.py::test_guarded"},
        Parser__parse={"tests/test_it.py::test_default"},  # another function only
    )
    left = [_left("02", "tests/test_it.py::test_default")]
    assert masked_failures(_guard(), {"pkg/it.py": BEFORE}, left, spectrum, OWN) is None


def test_a_guard_whose_reach_cannot_be_told_while_failures_are_left_masks_them() -> None:
    # Fails closed: no spectrum, a failure without a test to measure, a guard in no function.
    left = [_left("02", "tests/test_it.py::test_default")]
    no_spectrum = masked_failures(_guard(), {"pkg/it.py": BEFORE}, left, None, OWN)
    assert no_spectrum is not None
    assert "(02)" in no_spectrum
    assert "no per-test coverage was read in this run" in no_spectrum
    collection = [_left("04", "tests/test_broken.py", cls="other")]
    untested = masked_failures(_guard(), {"pkg/it.py": BEFORE}, collection, _spectrum(), OWN)
    assert untested is not None
    assert "04 has no test to measure" in untested
    module_level = Candidate(
        "none-guard", "g", [FileEdit("pkg/it.py", "if x is None:\n    x = 1\n")], 1
    )
    outside = masked_failures(module_level, {"pkg/it.py": ""}, left, _spectrum(), OWN)
    assert outside is not None
    assert "outside any function" in outside


def test_a_spectrum_blind_to_the_guarded_function_cannot_tell_and_masks_the_failures_left() -> None:
    # Not even the guard's own failure's test ran its function: the spectrum cannot see it (a
    # contexts file never written reads as empty; code run in a subprocess is not seen).
    left = [_left("02", "tests/test_it.py::test_default")]
    empty = Spectrum(covered={}, outcomes={"tests/test_it.py::test_default": "failed"})
    elsewhere = _spectrum(Parser__parse={"tests/test_it.py::test_default", *OWN})
    for blind in (empty, elsewhere):
        why = masked_failures(_guard(), {"pkg/it.py": BEFORE}, left, blind, OWN)
        assert why is not None
        assert why.startswith("failures are still left (02), and whether they run")
        assert "did not see the function it guards run" in why


def test_a_spectrum_where_only_a_failure_left_ran_the_guarded_function_names_it() -> None:
    left = [_left("02", "tests/test_it.py::test_default")]
    spectrum = _spectrum(to_bool={"tests/test_it.py::test_default"})  # not the guard's own test
    why = masked_failures(_guard(), {"pkg/it.py": BEFORE}, left, spectrum, OWN)
    assert why == "the tests of failures still left (02) run the function it guards"


def test_a_failure_left_without_a_test_is_not_said_repaired_by_the_guards_trial() -> None:
    # ``all`` over no tests is True: such a failure must not count as passed in the trial.
    own = _left("01", *OWN, cls="none")
    own.outcome = "repaired"
    untested = _left("04", cls="other")
    trial = RunResult(outcomes={OWN[0]: "passed", "tests/test_it.py::test_default": "passed"})
    kept = [KeptRepair("01", _guard(), {"pkg/it.py": BEFORE}, trial=trial)]
    spectrum = _spectrum(to_bool=set(OWN))
    [(_repair, why)] = withdrawal_reasons(kept, [own, untested], spectrum)
    assert "04 has no test to measure" in why.because


def _same_runs(result: RunResult, scratch: Path) -> SameRuns:
    """A runner whose every re-run of ``tests/test_it.py`` reports ``result``."""
    return SameRuns(result, scratch, "tests/test_it.py")


class _GuardToBool:
    """A None pattern that guards ``value`` in ``to_bool`` of ``pkg/it.py``."""

    name = "none"
    error_class = "none"

    def classify(self, failure: object) -> None:
        return None

    def propose(self, diagnosis: Diagnosis, project: Project) -> list[Candidate]:
        return [_guard()]

    def explain(self, diagnosis: Diagnosis, candidate: Candidate | None) -> str:
        return "AttributeError: `value` is None"


ONE, TWO = "tests/test_it.py::test_none", "tests/test_it.py::test_default"


def _run_with_a_failure_left(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    mode: str,
    running_to_bool: set[str],
    two_with_the_guard: str = "failed",
    collect: Callable[..., Spectrum] | None = None,
) -> tuple[AutodebugReport, set[str]]:
    """A run where the guard in ``to_bool`` passes its own failure's test while an assertion
    (``TWO``) ends ``two_with_the_guard`` in its trial, with a spectrum where
    ``running_to_bool`` ran ``to_bool`` (or the one ``collect`` collects)."""
    from phasegate.autodebug import engine as engine_module

    monkeypatch.setattr(
        engine_module,
        "collect_spectrum",
        collect or (lambda *_args: _spectrum(to_bool=running_to_bool, Parser__parse={TWO})),
    )
    monkeypatch.setattr(engine_module, "lost_guard_candidates", lambda *_args: [])
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "it.py").write_bytes(BEFORE.encode())
    failed = [
        FailedTest(
            ONE,
            Diagnosis("none", "none", "none-attribute", "AttributeError", "strip", "pkg/it.py", 9),
        ),
        FailedTest(
            TWO,
            Diagnosis("assertion", "assertion", "assert", "AssertionError", "assert 2 == 0", "", 0),
        ),
    ]
    after = RunResult(
        outcomes={ONE: "passed", TWO: two_with_the_guard},
        failures={TWO: "AssertionError: assert 2 == 0"} if two_with_the_guard == "failed" else {},
    )
    diffs: set[str] = set()
    project = Project(tmp_path, TestFiles(["tests/*"]))
    engine = Engine(
        project=project,
        patterns=[_GuardToBool()],
        runner=_same_runs(after, tmp_path),  # type: ignore[arg-type]
        workspace=Workspace(project, tmp_path / "journal.json"),
        settings=AutodebugSettings(),
        mode=mode,  # type: ignore[arg-type]
        baseline=Baseline({ONE: "failed", TWO: "failed"}),
        write=lambda path, _text: diffs.add(path),
        remove=diffs.remove,  # KeyError for a diff never written
    )
    return engine.run(failed), diffs


@pytest.mark.parametrize("mode", ["apply", "suggest"])
def test_a_guard_whose_function_an_assertion_left_runs_is_withdrawn_and_taken_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    pytest.importorskip("coverage")
    report, diffs = _run_with_a_failure_left(tmp_path, monkeypatch, mode, {ONE, TWO})
    guard, assertion = report.failures
    assert (guard.outcome, assertion.outcome) == ("escalated", "localized")
    assert guard.escalation is not None
    assert (
        "failures still left (02-assertion) run the function it guards" in guard.escalation.reason
    )
    assert "put back `if value is None`" in guard.escalation.reason  # the guard, by name
    assert guard.explanation.endswith("(withdrawn: failures still left run the function it guards)")
    assert guard.attempts[-1].status == "rejected"
    assert (tmp_path / "pkg" / "it.py").read_bytes() == BEFORE.encode()  # byte for byte
    assert diffs == set()  # written when kept, removed when withdrawn
    assert not (tmp_path / "journal.json").exists()  # the take-out was journaled and closed
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pkg"]  # nothing written beside


def test_a_guard_that_also_passed_the_tests_of_a_failure_suggest_mode_leaves_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Suggest mode leaves the tree as it was, so the assertion stays failing; yet its test
    # passed in the guard's trial: the guard repairs it too and masks nothing.
    pytest.importorskip("coverage")
    report, diffs = _run_with_a_failure_left(tmp_path, monkeypatch, "suggest", {ONE, TWO}, "passed")
    assert [f.outcome for f in report.failures] == ["repaired", "localized"]
    assert diffs == {"autodebug/01-none.diff"}
    assert (tmp_path / "pkg" / "it.py").read_text() == BEFORE


@pytest.mark.parametrize("mode", ["apply", "suggest"])
@pytest.mark.parametrize("running_to_bool", [set(), {TWO}], ids=["nobody", "only-the-left"])
def test_a_guard_whose_own_failures_test_the_spectrum_did_not_see_run_it_is_withdrawn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: str, running_to_bool: set[str]
) -> None:
    # The guard's own test (ONE) must have run to_bool; a spectrum that did not see it is
    # blind to that function, and a blind spectrum is no proof that nothing left runs it.
    pytest.importorskip("coverage")
    report, diffs = _run_with_a_failure_left(tmp_path, monkeypatch, mode, running_to_bool)
    guard, assertion = report.failures
    assert (guard.outcome, assertion.outcome) == ("escalated", "localized")
    assert guard.escalation is not None
    assert "02-assertion" in guard.escalation.reason
    assert guard.attempts[-1].status == "rejected"
    assert (tmp_path / "pkg" / "it.py").read_bytes() == BEFORE.encode()  # byte for byte
    assert diffs == set()


class _TornContexts:
    """A runner whose run under per-test coverage leaves its data file torn."""

    runs = 0

    def run(self, selection: object = None, **options: Any) -> RunResult:
        Path(options["env"][CONTEXTS_DATA_ENV]).write_bytes(b"SQLite format 3\x00")
        return RunResult(outcomes={ONE: "passed", TWO: "failed"})


def test_a_torn_per_test_coverage_file_is_no_spectrum_and_the_guard_is_withdrawn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Read, it raised out of the run before the end-of-run withdrawals: the guard stayed.
    pytest.importorskip("coverage")

    def torn(_runner: object, project: Project, scratch: Path, *_args: object) -> Spectrum:
        return collect_spectrum(_TornContexts(), project, scratch)  # type: ignore[arg-type]

    report, diffs = _run_with_a_failure_left(tmp_path, monkeypatch, "apply", set(), collect=torn)
    guard, assertion = report.failures
    assert (guard.outcome, assertion.outcome) == ("escalated", "escalated")  # nothing ranked
    assert guard.escalation is not None
    assert "no per-test coverage was read in this run" in guard.escalation.reason
    assert any(
        w.startswith("localization could not run: its per-test coverage data could not be read")
        for w in report.warnings
    )
    assert (tmp_path / "pkg" / "it.py").read_bytes() == BEFORE.encode()
    assert diffs == set()


def test_a_localization_that_breaks_still_has_the_guards_judged_before_the_run_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The withdrawal is the run's last step: an error out of localization (a bug of its own)
    # must not leave a guard that may mask a failure in the tree, unjudged.
    pytest.importorskip("coverage")

    def broken(*_args: object) -> Spectrum:
        raise RuntimeError("localization broke")

    with pytest.raises(RuntimeError, match="localization broke"):
        _run_with_a_failure_left(tmp_path, monkeypatch, "apply", set(), collect=broken)
    assert (tmp_path / "pkg" / "it.py").read_bytes() == BEFORE.encode()
    assert not (tmp_path / "journal.json").exists()


def test_a_failure_whose_work_breaks_still_has_the_guards_kept_before_it_judged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The assertion is never worked on: not attempted, it is a failure left all the same.
    pytest.importorskip("coverage")
    real_work_on = Engine._work_on

    def work_on(engine: Engine, entry_id: str, group: Any) -> AutodebugFailure:
        if entry_id == "02-assertion":
            raise RuntimeError("validation broke")
        return real_work_on(engine, entry_id, group)

    monkeypatch.setattr(Engine, "_work_on", work_on)
    with pytest.raises(RuntimeError, match="validation broke"):
        _run_with_a_failure_left(tmp_path, monkeypatch, "apply", {ONE})
    assert (tmp_path / "pkg" / "it.py").read_bytes() == BEFORE.encode()
    assert not (tmp_path / "journal.json").exists()


def test_a_guard_whose_function_no_failure_left_runs_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("coverage")
    report, diffs = _run_with_a_failure_left(tmp_path, monkeypatch, "apply", {ONE})
    assert [f.outcome for f in report.failures] == ["repaired", "localized"]
    assert (tmp_path / "pkg" / "it.py").read_text() == GUARDED
    assert diffs == {"autodebug/01-none.diff"}


TWO_USES = "def f(x):\n    return x.strip()\n\n\ndef h(y):\n    return y.lower()\n"
GUARD_F = TWO_USES.replace(
    "    return x.strip()", "    if x is None:\n        return x\n    return x.strip()"
)
BOTH = GUARD_F.replace(
    "    return y.lower()", "    if y is None:\n        return y\n    return y.lower()"
)
T_F, T_ASSERT, T_H = (
    "tests/test_a.py::test_f",
    "tests/test_a.py::test_assert",
    "tests/test_a.py::test_h",
)


def _entry(entry_id: str, test: str, cls: str, outcome: str) -> AutodebugFailure:
    attempt = CandidateAttempt(
        rank=1,
        kind="none-guard",
        description="g",
        score=1.0,
        files=["pkg/a.py"],
        diff="",
        status="kept",
        reason="the failing tests pass",
    )
    return AutodebugFailure(
        id=entry_id,
        error_class=cls,
        pattern=cls,
        kind="k",
        tests=[test],
        exc_type="E",
        message="m",
        path="pkg/a.py" if cls == "none" else "tests/test_a.py",
        line=2,
        explanation="e",
        outcome=outcome,  # type: ignore[arg-type]
        attempts=[attempt] if outcome == "repaired" else [],
    )


@pytest.mark.parametrize("apply", [True, False])
def test_a_failure_a_withdrawal_leaves_withdraws_the_guards_it_calls_for_in_turn(
    tmp_path: Path, apply: bool
) -> None:
    # The guard in f masks an assertion whose test runs f; once it is withdrawn, its own None
    # failure of pkg/a.py is left, so the guard in h, at another use of that file, goes too.
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.py").write_text(BOTH if apply else TWO_USES)
    in_f = Candidate("none-guard", "guard x in f", [FileEdit("pkg/a.py", GUARD_F)], 1)
    guard_h = BOTH if apply else BOTH.replace("    if x is None:\n        return x\n", "")
    in_h = Candidate("none-guard", "guard y in h", [FileEdit("pkg/a.py", guard_h)], 1)
    kept = [
        KeptRepair("01", in_f, {"pkg/a.py": TWO_USES}),
        KeptRepair("04", in_h, {"pkg/a.py": GUARD_F if apply else TWO_USES}),
    ]
    entries = [
        _entry("01", T_F, "none", "repaired"),
        _entry("03", T_ASSERT, "assertion", "localized"),
        _entry("04", T_H, "none", "repaired"),
    ]
    spectrum = Spectrum(
        covered={("pkg/a.py", "f", 1): {T_F, T_ASSERT}, ("pkg/a.py", "h", 5): {T_H}}, outcomes={}
    )
    project = Project(tmp_path, TestFiles(["tests/*"]))
    h_passes = RunResult(outcomes={T_H: "passed"})  # the guard in h passes without the one in f
    PartialGuards(
        project=project,
        workspace=Workspace(project, tmp_path / "journal.json"),
        runner=_same_runs(h_passes, tmp_path),  # type: ignore[arg-type]
        baseline=Baseline({T_F: "failed", T_ASSERT: "failed", T_H: "failed"}),
        apply=apply,
        write=lambda _path, _text: None,
        remove=lambda _path: None,
        progress=lambda _message: None,
        warnings=[],
    ).withdraw(entries, kept, {}, spectrum)
    assert [entry.outcome for entry in entries] == ["escalated", "localized", "escalated"]
    assert entries[2].escalation is not None
    assert "01-none" not in entries[2].escalation.reason  # its own reason: the file's None left
    assert "01 in pkg/a.py" in entries[2].escalation.reason
    assert kept == []
    assert (tmp_path / "pkg" / "a.py").read_bytes() == TWO_USES.encode()  # apply: both out
    assert withdrawal_reasons(kept, entries, spectrum) == []  # nothing more to withdraw

"""How a re-run is judged: the failing tests must pass, and nothing that passed may fail."""

from __future__ import annotations

from pathlib import Path

import pytest

from phasegate.autodebug.diagnosis import Candidate, FileEdit
from phasegate.autodebug.project import Project, TestFiles
from phasegate.autodebug.runner import RerunLimit, RunResult, full_limit
from phasegate.autodebug.validate import (
    SMALL_RUN,
    Baseline,
    fresh_baseline,
    judge,
    one_run_suffices,
    renamed_outcomes,
    target_selection,
    validate,
)
from phasegate.autodebug.workspace import Workspace

BASELINE = Baseline(
    {
        "tests/test_a.py::test_fixed": "failed",
        "tests/test_a.py::test_fine": "passed",
        "tests/test_b.py::test_other": "passed",
        "tests/test_b.py::test_skip": "skipped",
    },
    {"tests/test_c.py"},
)


def run(outcomes: dict[str, str], **kwargs: object) -> RunResult:
    return RunResult(outcomes=outcomes, **kwargs)  # type: ignore[arg-type]


def test_the_target_passes_and_nothing_else_changes() -> None:
    result = run({**BASELINE.outcomes, "tests/test_a.py::test_fixed": "passed"})
    stage = judge(result, ["tests/test_a.py::test_fixed"], BASELINE, stage="suite")
    assert stage.passed
    assert stage.tests == 4
    assert stage.detail == "4 test(s) ran; the failing tests pass and nothing new fails"


def test_a_target_still_failing_is_named_with_its_error() -> None:
    result = run(dict(BASELINE.outcomes), failures={"tests/test_a.py::test_fixed": "NameError: x"})
    stage = judge(result, ["tests/test_a.py::test_fixed"], BASELINE, stage="targets")
    assert not stage.passed
    assert stage.still_failing == ["tests/test_a.py::test_fixed"]
    assert "NameError: x" in stage.detail


def test_a_test_that_passed_before_and_fails_now_is_a_regression() -> None:
    outcomes = {
        **BASELINE.outcomes,
        "tests/test_a.py::test_fixed": "passed",
        "tests/test_b.py::test_other": "error",
    }
    stage = judge(run(outcomes), ["tests/test_a.py::test_fixed"], BASELINE, stage="suite")
    assert not stage.passed
    assert stage.new_failures == ["tests/test_b.py::test_other"]
    assert stage.detail == "1 test(s) that passed before now fail: tests/test_b.py::test_other"


def test_a_test_that_no_longer_runs_is_a_regression() -> None:
    outcomes = {
        "tests/test_a.py::test_fixed": "passed",
        "tests/test_a.py::test_fine": "passed",
        "tests/test_b.py::test_skip": "skipped",
    }
    stage = judge(run(outcomes), ["tests/test_a.py::test_fixed"], BASELINE, stage="suite")
    assert stage.new_failures == ["tests/test_b.py::test_other"]


def test_a_new_collection_error_is_one_regression_for_its_whole_module() -> None:
    outcomes = {"tests/test_a.py::test_fixed": "passed", "tests/test_a.py::test_fine": "passed"}
    result = run(outcomes, collection_errors={"tests/test_b.py": "ImportError: y"})
    stage = judge(result, ["tests/test_a.py::test_fixed"], BASELINE, stage="suite")
    assert stage.new_failures == ["tests/test_b.py"]


def test_the_targets_stage_looks_only_at_the_modules_it_ran() -> None:
    outcomes = {"tests/test_a.py::test_fixed": "passed", "tests/test_a.py::test_fine": "passed"}
    stage = judge(
        run(outcomes),
        ["tests/test_a.py::test_fixed"],
        BASELINE,
        stage="targets",
        modules={"tests/test_a.py"},
    )
    assert stage.passed


def test_a_module_that_failed_to_collect_must_collect_and_all_its_tests_pass() -> None:
    fixed = {**BASELINE.outcomes, "tests/test_c.py::test_one": "passed"}
    assert judge(run(fixed), ["tests/test_c.py"], BASELINE, stage="suite").passed
    partly = {**fixed, "tests/test_c.py::test_two": "failed"}
    assert not judge(run(partly), ["tests/test_c.py"], BASELINE, stage="suite").passed
    empty = run(dict(BASELINE.outcomes))
    assert not judge(empty, ["tests/test_c.py"], BASELINE, stage="suite").passed


def test_a_re_run_that_could_not_report_fails_its_stage() -> None:
    stage = judge(
        run({}, error="the re-run took longer than 5s and was stopped"),
        ["tests/test_a.py::test_fixed"],
        BASELINE,
        stage="suite",
    )
    assert not stage.passed
    assert stage.detail == "the re-run took longer than 5s and was stopped"


def test_the_baseline_moves_on_after_a_kept_repair() -> None:
    baseline = Baseline(dict(BASELINE.outcomes), set(BASELINE.collection_errors))
    baseline.update(run({"tests/test_a.py::test_fixed": "passed"}))
    assert baseline.outcomes == {"tests/test_a.py::test_fixed": "passed"}
    assert baseline.collection_errors == set()


@pytest.mark.parametrize(
    ("base_args", "expected", "whole"),
    [
        # The run named the failing module itself: the targets stage is the whole run.
        (["tests/test_a.py"], ["tests/test_a.py"], True),
        # It named tests one by one: only those run, and that is the whole run.
        (
            ["tests/test_a.py::test_one", "tests/test_a.py::test_two[1]"],
            ["tests/test_a.py::test_one", "tests/test_a.py::test_two[1]"],
            True,
        ),
        # Another module too: the failing module's named tests, then the whole run.
        (["tests/test_a.py::test_one", "tests/test_b.py"], ["tests/test_a.py::test_one"], False),
        # Everything (no paths): the module, then the whole run.
        ([], ["<root>/tests/test_a.py"], False),
    ],
)
def test_the_targets_stage_runs_what_the_run_named_of_the_failing_module(
    tmp_path: Path, base_args: list[str], expected: list[str], whole: bool
) -> None:
    selection, whole_run = target_selection(base_args, ["tests/test_a.py"], tmp_path, tmp_path)
    assert selection == [item.replace("<root>", str(tmp_path)) for item in expected]
    assert whole_run is whole


def test_a_small_run_or_one_mostly_of_the_targets_is_re_run_once_whole() -> None:
    assert one_run_suffices(BASELINE, {"tests/test_a.py"})
    many = {f"tests/test_{n}.py::test_x": "passed" for n in range(SMALL_RUN + 1)}
    big = Baseline({**many, "tests/test_a.py::test_fixed": "failed"})
    assert not one_run_suffices(big, {"tests/test_a.py"})
    inside = {f"tests/test_a.py::t{n}": "passed" for n in range(SMALL_RUN + 1)}
    assert one_run_suffices(Baseline({**many, **inside}), {"tests/test_a.py"})


class _Recorder:
    """A runner that answers every re-run with the same outcomes and notes what it ran."""

    def __init__(self, result: RunResult, cwd: Path, base_args: list[str]) -> None:
        self.result = result
        self.cwd = cwd
        self.base_args = base_args
        self.selections: list[object] = []

    def run(self, selection: object = None, **_: object) -> RunResult:
        self.selections.append(selection)
        return self.result


@pytest.mark.parametrize(("size", "runs"), [(3, [None]), (SMALL_RUN + 1, ["targets", None])])
def test_a_small_run_validates_a_candidate_with_one_re_run(
    tmp_path: Path, size: int, runs: list[object]
) -> None:
    (tmp_path / "mod.py").write_text("x = lenght\n")
    others = {f"tests/test_b.py::test_{n}": "passed" for n in range(size)}
    baseline = Baseline({"tests/test_a.py::test_fixed": "failed", **others})
    fixed = RunResult(outcomes={**others, "tests/test_a.py::test_fixed": "passed"})
    runner = _Recorder(fixed, tmp_path, ["tests/test_a.py", "tests/test_b.py"])
    project = Project(tmp_path, TestFiles(["tests/*"]))
    verdict = validate(
        Candidate("rename", "x", [FileEdit("mod.py", "x = length\n")], 1.0),
        ["tests/test_a.py::test_fixed"],
        workspace=Workspace(project, tmp_path / "journal.json"),
        runner=runner,  # type: ignore[arg-type]
        baseline=baseline,
        keep=False,
    )
    assert verdict.passed
    assert [s.stage for s in verdict.stages] == ["targets", "suite"]
    assert [None if s is None else "targets" for s in runner.selections] == runs
    assert (tmp_path / "mod.py").read_text() == "x = lenght\n"  # suggest mode: restored


def test_run_once_whole_a_regression_elsewhere_fails_the_suite_stage_not_the_targets(
    tmp_path: Path,
) -> None:
    (tmp_path / "mod.py").write_text("x = lenght\n")
    baseline = Baseline({"tests/test_a.py::test_fixed": "failed", "tests/test_b.py::t": "passed"})
    broken = RunResult(
        outcomes={"tests/test_a.py::test_fixed": "passed"},
        collection_errors={"tests/test_b.py": "ImportError: y"},
    )
    runner = _Recorder(broken, tmp_path, ["tests/test_a.py", "tests/test_b.py"])
    project = Project(tmp_path, TestFiles(["tests/*"]))
    verdict = validate(
        Candidate("rename", "x", [FileEdit("mod.py", "x = length\n")], 1.0),
        ["tests/test_a.py::test_fixed"],
        workspace=Workspace(project, tmp_path / "journal.json"),
        runner=runner,  # type: ignore[arg-type]
        baseline=baseline,
        keep=True,
    )
    assert runner.selections == [None]
    assert [s.passed for s in verdict.stages] == [True, False]
    assert verdict.stages[1].new_failures == ["tests/test_b.py"]
    assert (tmp_path / "mod.py").read_text() == "x = lenght\n"  # rejected: restored


def test_a_pending_baseline_is_not_taken_when_the_re_run_is_clean(tmp_path: Path) -> None:
    (tmp_path / "mod.py").write_text("x = lenght\n")
    taken: list[str] = []
    baseline = Baseline({}, {"tests/test_a.py"})  # the run stopped at a collection error
    baseline.pending = lambda: taken.append("taken")
    fixed = RunResult(outcomes={"tests/test_a.py::t": "passed", "tests/test_b.py::t": "passed"})
    runner = _Recorder(fixed, tmp_path, [])
    project = Project(tmp_path, TestFiles(["tests/*"]))
    verdict = validate(
        Candidate("rename", "x", [FileEdit("mod.py", "x = length\n")], 1.0),
        ["tests/test_a.py"],
        workspace=Workspace(project, tmp_path / "journal.json"),
        runner=runner,  # type: ignore[arg-type]
        baseline=baseline,
        keep=True,
    )
    assert verdict.passed
    assert (taken, runner.selections) == ([], [None])
    assert (tmp_path / "mod.py").read_text() == "x = length\n"


def test_a_pending_baseline_is_taken_on_the_original_files_when_a_re_run_shows_a_failure(
    tmp_path: Path,
) -> None:
    # test_b failed before the candidate too: only the complete "before" can tell, so it is
    # taken (with the original files back), and the candidate is tried again against it.
    (tmp_path / "mod.py").write_text("x = lenght\n")
    seen: list[str] = []
    baseline = Baseline({}, {"tests/test_a.py"})

    def take() -> None:
        seen.append((tmp_path / "mod.py").read_text())
        baseline.outcomes = {"tests/test_b.py::t": "failed"}

    baseline.pending = take
    run = RunResult(outcomes={"tests/test_a.py::t": "passed", "tests/test_b.py::t": "failed"})
    runner = _Recorder(run, tmp_path, [])
    project = Project(tmp_path, TestFiles(["tests/*"]))
    verdict = validate(
        Candidate("rename", "x", [FileEdit("mod.py", "x = length\n")], 1.0),
        ["tests/test_a.py"],
        workspace=Workspace(project, tmp_path / "journal.json"),
        runner=runner,  # type: ignore[arg-type]
        baseline=baseline,
        keep=True,
    )
    assert seen == ["x = lenght\n"]
    assert verdict.passed
    assert runner.selections == [None, None]
    assert baseline.pending is None
    assert (tmp_path / "mod.py").read_text() == "x = length\n"


def test_a_test_whose_parameter_id_changes_between_runs_is_judged_under_its_new_id() -> None:
    # marshmallow parametrizes with the time of day: the re-run names the same tests anew
    before = Baseline(
        {
            "tests/test_d.py::test_when[11:20:49]": "failed",
            "tests/test_d.py::test_when[12:00:00]": "passed",
            "tests/test_d.py::test_fixed": "failed",
        }
    )
    targets = ["tests/test_d.py::test_when[11:20:49]", "tests/test_d.py::test_fixed"]
    renamed = {
        "tests/test_d.py::test_when[11:21:07]": "passed",
        "tests/test_d.py::test_fixed": "passed",
    }
    passing = {**renamed, "tests/test_d.py::test_when[12:00:18]": "passed"}
    assert judge(run(passing), targets, before, stage="targets").passed
    one_fails = {**renamed, "tests/test_d.py::test_when[12:00:18]": "failed"}
    stage = judge(run(one_fails), targets, before, stage="targets")
    assert stage.still_failing == ["tests/test_d.py::test_when[11:20:49]"]
    assert stage.new_failures == ["tests/test_d.py::test_when[12:00:00]"]
    one_vanished = judge(run(renamed), targets, before, stage="targets")
    assert one_vanished.still_failing == ["tests/test_d.py::test_when[11:20:49]"]
    assert one_vanished.new_failures == ["tests/test_d.py::test_when[12:00:00]"]


def test_only_parametrized_tests_of_the_same_function_stand_for_a_vanished_id() -> None:
    known = ["t.py::test_x[a1]", "t.py::test_y", "t.py::test_z[b1]"]
    outcomes = {
        "t.py::test_x[a2]": "passed",
        "t.py::test_y2": "passed",
        "t.py::test_w[b1]": "passed",
    }
    assert renamed_outcomes(outcomes, known) == {**outcomes, "t.py::test_x[a1]": "passed"}
    skipped = {"t.py::test_x[a2]": "skipped"}
    assert renamed_outcomes(skipped, known) == skipped


def test_a_repair_that_changes_what_a_test_is_parametrized_over_renames_nothing() -> None:
    # [yaml] became [yml]: the same count, all passing, but not the same test under a new id
    known = ["t.py::test_fmt[json]", "t.py::test_fmt[yaml]", "t.py::test_fmt[toml]"]
    outcomes = dict.fromkeys(
        ["t.py::test_fmt[json]", "t.py::test_fmt[yml]", "t.py::test_fmt[toml]"], "passed"
    )
    assert renamed_outcomes(outcomes, known) == outcomes
    before = Baseline(dict.fromkeys(known, "passed"))
    stage = judge(run(outcomes), [], before, stage="suite")
    assert stage.new_failures == ["t.py::test_fmt[yaml]"]


PARTIAL = Baseline({"tests/test_a.py::test_build": "failed"}, partial=True)
# The wrong repair renames the public `total` to the fault's `totl`: test_a passes, test_b
# (which waited forever on the faulty tree) passes, test_c, with no result before, fails.
RENAMED = {
    "tests/test_a.py::test_build": "passed",
    "tests/test_b.py::test_wait": "passed",
    "tests/test_c.py::test_total_attribute": "failed",
}


def test_a_failing_test_a_partial_before_has_no_result_for_is_a_new_failure() -> None:
    stage = judge(run(RENAMED), ["tests/test_a.py::test_build"], PARTIAL, stage="suite")
    assert not stage.passed
    assert stage.new_failures == ["tests/test_c.py::test_total_attribute"]
    assert stage.detail == (
        "1 test(s) that passed before or have no result before now fail: "
        "tests/test_c.py::test_total_attribute"
    )
    complete = Baseline(dict(PARTIAL.outcomes))
    assert judge(run(RENAMED), ["tests/test_a.py::test_build"], complete, stage="suite").passed


def test_a_partial_before_leaves_the_tests_of_a_module_that_failed_to_collect_to_its_target() -> (
    None
):
    before = Baseline({}, {"tests/test_c.py"}, partial=True)
    outcomes = {"tests/test_c.py::test_one": "passed", "tests/test_c.py::test_two": "failed"}
    stage = judge(run(outcomes), ["tests/test_c.py"], before, stage="suite")
    assert (stage.still_failing, stage.new_failures) == (["tests/test_c.py"], [])


class _Runs:
    """A runner that answers each re-run in turn and notes the limit it was given."""

    def __init__(self, results: list[RunResult], cwd: Path) -> None:
        self.results = results
        self.cwd = cwd
        self.base_args = ["tests"]
        self.limits: list[object] = []

    def run(self, selection: object = None, **kwargs: object) -> RunResult:
        self.limits.append(kwargs.get("limit"))
        return self.results.pop(0)


def test_a_wrong_repair_is_not_kept_when_the_fresh_baseline_cannot_be_taken(
    tmp_path: Path,
) -> None:
    # `pytest -x` stopped after test_a; the fresh run of the suite is stopped (test_b waits
    # forever on the faulty tree), so the "before" stays partial, and test_c, failing after
    # the candidate, counts against it.
    (tmp_path / "calc.py").write_text("def total(v):\n    return sum(v)\n")
    stopped = RunResult(error="the re-run took longer than 600s (the default timeout_s) ...")
    runner = _Runs([run(RENAMED), stopped, run(RENAMED)], tmp_path)
    baseline = Baseline(dict(PARTIAL.outcomes), partial=True)
    notes: list[str] = []
    baseline.pending = lambda: notes.append(
        fresh_baseline(runner, baseline, None, "-x")  # type: ignore[arg-type]
    )
    project = Project(tmp_path, TestFiles(["tests/*"]))
    verdict = validate(
        Candidate("rename", "x", [FileEdit("calc.py", "def totl(v):\n    return sum(v)\n")], 1.0),
        ["tests/test_a.py::test_build"],
        workspace=Workspace(project, tmp_path / "journal.json"),
        runner=runner,  # type: ignore[arg-type]
        baseline=baseline,
        keep=True,
    )
    assert not verdict.passed
    assert verdict.stages[-1].new_failures == ["tests/test_c.py::test_total_attribute"]
    assert (tmp_path / "calc.py").read_text() == "def total(v):\n    return sum(v)\n"
    # The fresh baseline had the whole timeout_s, not the bound of the partial run's time.
    assert runner.limits == [None, full_limit(None), None]
    assert notes[0].startswith("the run was incomplete (-x) and a fresh baseline could not be")
    assert notes[0].endswith("a failing test this run has no result for counted as newly failing")
    assert baseline.partial


def test_a_fresh_baseline_taken_makes_the_before_complete_within_the_set_timeout(
    tmp_path: Path,
) -> None:
    whole = run({**RENAMED, "tests/test_a.py::test_build": "failed"})
    runner = _Runs([whole], tmp_path)
    baseline = Baseline(dict(PARTIAL.outcomes), partial=True)
    note = fresh_baseline(runner, baseline, 900.0, "-x")  # type: ignore[arg-type]
    assert runner.limits == [RerunLimit(900.0, "timeout_s in [tool.phasegate.autodebug]")]
    assert (baseline.partial, baseline.outcomes) == (False, whole.outcomes)
    assert note.endswith("repairs were judged against a fresh run of the suite (3 test(s))")

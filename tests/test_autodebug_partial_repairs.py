"""Guards kept at one use of a None while other uses still fail: which are withdrawn, and how
the report says so."""

from __future__ import annotations

from pathlib import Path

from phasegate.autodebug.diagnosis import Candidate, FileEdit
from phasegate.autodebug.partial_repairs import (
    KeptRepair,
    PartialGuards,
    escalate_fixed_by,
    undone,
    unproven,
    withdraw,
)
from phasegate.autodebug.project import Project, TestFiles
from phasegate.autodebug.validate import Baseline
from phasegate.autodebug.withdrawals import unrepaired_nones, withdrawal_reasons
from phasegate.autodebug.workspace import Workspace
from phasegate.model.autodebug import AutodebugFailure, CandidateAttempt, Repair


def _failure(
    entry_id: str, outcome: str, path: str = "pkg/box.py", cls: str = "none"
) -> AutodebugFailure:
    return AutodebugFailure(
        id=entry_id,
        error_class=cls,
        pattern=cls,
        kind="none-operand",
        tests=[f"tests/test_box.py::test_{entry_id}"],
        exc_type="TypeError",
        message="unsupported operand",
        path=path,
        line=3,
        explanation="TypeError: `width` is None",
        outcome=outcome,  # type: ignore[arg-type]
    )


def _kept(entry_id: str, kind: str = "none-guard", path: str = "pkg/box.py") -> KeptRepair:
    candidate = Candidate(kind, f"put back a guard for {entry_id}", [FileEdit(path, "new\n")], 1.0)
    return KeptRepair(entry_id, candidate, {path: "old\n"})


def test_only_none_failures_left_failing_count_as_unrepaired() -> None:
    entries = [
        _failure("01", "escalated"),
        _failure("02", "localized"),
        _failure("03", "repaired"),
        _failure("04", "escalated", cls="name"),
        _failure("05", "escalated", path="pkg/other.py"),
        _failure("06", "not-attempted"),  # beyond max_failures: left failing too
        _failure("07", "fixed-by-another-repair"),
    ]
    assert unrepaired_nones(entries) == {
        "pkg/box.py": ["01", "02", "06"],
        "pkg/other.py": ["05"],
    }


def test_guards_in_a_file_still_failing_on_none_are_withdrawn_last_first() -> None:
    kept = [
        _kept("01"),
        _kept("02", kind="missing-return"),  # a repair at the origin stays
        _kept("03", path="pkg/elsewhere.py"),  # no None failure is left in that file
        _kept("04"),
    ]
    entries = [_failure(f"0{n}", "repaired") for n in range(1, 5)] + [_failure("05", "escalated")]
    partial = withdrawal_reasons(kept, entries, None)
    assert [repair.entry_id for repair, _why in partial] == ["04", "03", "01"]
    shorts = [why.short for _repair, why in partial]
    assert shorts[0] == shorts[2] == "other uses of the None still fail"
    # 03: the failure left may run its function, and with no coverage that cannot be told
    assert shorts[1] == "failures still left run the function it guards"


def test_nothing_is_withdrawn_when_every_failure_is_repaired() -> None:
    repaired = [_failure("01", "repaired"), _failure("02", "repaired")]
    repaired.append(_failure("06", "fixed-by-another-repair"))
    assert withdrawal_reasons([_kept("01"), _kept("02")], repaired, None) == []


def _repaired(entry_id: str) -> AutodebugFailure:
    """A failure of ``pkg/box.py`` repaired by a guard, its diff written."""
    entry = _failure(entry_id, "repaired")
    entry.repair = Repair(
        files=["pkg/box.py"], diff="-", diff_file=f"autodebug/{entry_id}.diff", applied=True
    )
    entry.attempts = [
        CandidateAttempt(
            rank=1,
            kind="none-guard",
            description="a guard",
            score=1.0,
            files=["pkg/box.py"],
            diff="-",
            status="kept",
            reason="the failing tests pass",
        )
    ]
    return entry


def test_a_withdrawn_guard_turns_its_failure_into_an_escalation_naming_the_others() -> None:
    entry = _repaired("02")
    entries = [_failure("01", "escalated"), entry, _failure("04", "localized")]
    [(_repair, reason)] = withdrawal_reasons([_kept("02")], entries, None)
    withdraw(entry, _kept("02"), reason)
    assert entry.outcome == "escalated"
    assert entry.repair is None
    assert entry.attempts[0].status == "rejected"
    assert "withdrawn" in entry.attempts[0].reason
    assert entry.escalation is not None
    assert "01, 04 in pkg/box.py" in entry.escalation.reason
    assert entry.escalation.tried == 1


def test_a_failure_fixed_only_by_a_withdrawn_guard_is_escalated_too() -> None:
    by_withdrawn = _failure("03", "fixed-by-another-repair")
    by_other = _failure("04", "fixed-by-another-repair")
    escalate_fixed_by([by_withdrawn, by_other], {"03": ["01", "02"], "04": ["01"]}, ["02"])
    assert by_withdrawn.outcome == "escalated"
    assert by_withdrawn.escalation is not None
    assert "02" in by_withdrawn.escalation.reason
    assert by_withdrawn.explanation.endswith("(that repair was withdrawn)")
    assert by_other.outcome == "fixed-by-another-repair"
    # a later round withdraws 01: 04 is escalated, 03 keeps what the first round said of it
    escalate_fixed_by([by_withdrawn, by_other], {"03": ["01", "02"], "04": ["01"]}, ["01"])
    assert by_other.outcome == "escalated"
    assert by_withdrawn.explanation.count("(that repair was withdrawn)") == 1
    assert "02" in by_withdrawn.escalation.reason


def test_a_change_is_undone_on_a_text_later_edits_changed_around_it() -> None:
    before = "a = w\nb = nmae\nc = z\n"
    after = "if w is None:\n    w = 1\na = w\nb = nmae\nc = z\n"
    current = "import os\nif w is None:\n    w = 1\na = w\nb = len\nc = z\n"
    assert undone(before, after, current) == "import os\na = w\nb = len\nc = z\n"
    replaced = "a = 1 if w is None else w\nb = nmae\nc = z\n"
    assert undone(before, replaced, "a = 1 if w is None else w\nb = len\n") == "a = w\nb = len\n"


def test_a_change_whose_lines_were_rewritten_is_not_undone() -> None:
    before = "a = w\nb = nmae\n"
    after = "if w is None:\n    w = 1\na = w\nb = nmae\n"
    assert undone(before, after, "if w is None:\n    w = 2\na = w\nb = nmae\n") is None
    assert undone(before, after, "if w is None:\n    pass\n    w = 1\na = w\n") is None  # split
    assert undone(before, after, "a = w\nb = nmae\n") is None  # gone already
    assert undone("a = 1\nb = 2\n", "a = 1\n", "a = 1\n") is None  # a removal: put back where?


def test_a_change_whose_lines_repeat_beside_it_is_not_undone() -> None:
    # the review's fuzz case: which "    w = 1" is the guard's cannot be told once a later
    # edit went in among the copies (taken out, the wrong one would be)
    before = "y = x\n    w = 1\n    w = 1\n"
    after = "y = x\nif w is None:\n    w = 1\n    w = 1\n    w = 1\n"
    current = "y = x\nif w is None:\n    w = 1\nz = 456\n    w = 1\n    w = 1\n"
    assert undone(before, after, current) is None
    # without repeats the same edit is undone
    unique = "y = x\nif w is None:\n    w = 1\nz = 456\n    w = 2\n    w = 3\n"
    assert (
        undone(
            "y = x\n    w = 2\n    w = 3\n",
            "y = x\nif w is None:\n    w = 1\n    w = 2\n    w = 3\n",
            unique,
        )
        == "y = x\nz = 456\n    w = 2\n    w = 3\n"
    )


def test_a_change_whose_lines_occur_twice_in_the_current_text_is_not_undone() -> None:
    # the review's wide fuzz: the project's own copy of the guard was a few lines away in
    # the repair's text; later edits deleted the lines between, so the copies now touch and
    # the matcher may take the project's copy for the guard (a statement would move)
    before = "if a:\nreturn x\n    return\nif w is None:\n    w = 1\nreturn x\nif a:\n"
    after = "if w is None:\n    w = 1\nreturn x\n    return\nif w is None:\n    w = 1\n"
    after += "return x\nif a:\n"
    current = "if w is None:\n    w = 1\nif w is None:\n    w = 1\nreturn x\n"
    assert undone(before, after, current) is None
    # with the project's copy gone, the guard's block occurs once and is undone
    once = "if w is None:\n    w = 1\nreturn x\n    return\nreturn x\nif a:\n"
    assert undone(before, after, once) == "if a:\nreturn x\n    return\nreturn x\nif a:\n"


def test_a_repair_kept_after_a_withdrawn_guard_is_unproven_once_its_tests_fail() -> None:
    attempt = {
        "rank": 1,
        "kind": "typo",
        "description": "respell",
        "score": 1.0,
        "files": ["pkg/box.py"],
        "diff": "-",
        "status": "kept",
        "reason": "the failing tests pass",
    }
    later = _failure("03", "repaired", cls="name")
    later.attempts = [CandidateAttempt(**attempt)]  # type: ignore[arg-type]
    left = _failure("02", "escalated")  # a guard withdrawn, left in a file rewritten later
    left.attempts = [CandidateAttempt(**{**attempt, "status": "rejected"})]  # type: ignore[arg-type]
    left_before = left.model_copy(deep=True)
    for entry in (later, left):
        unproven(entry, ["01"], None)
    assert later.outcome == "escalated"
    assert later.attempts[0].status == "rejected"
    assert later.escalation is not None
    assert "passed with the repair of 01 in the tree, and fail once" in later.escalation.reason
    assert left == left_before  # keeps its own reason


def test_a_guard_in_a_file_that_was_not_utf8_text_is_left_and_escalated(tmp_path: Path) -> None:
    guarded = "a = 1 if w is None else w\n"
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "box.py").write_text(guarded)
    candidate = Candidate("none-guard", "guard w", [FileEdit("pkg/box.py", guarded)], 1.0)
    kept = [KeptRepair("01", candidate, {"pkg/box.py": None})]  # its file before: not UTF-8
    entries = [_repaired("01"), _failure("02", "escalated")]
    project = Project(tmp_path, TestFiles(["tests/*"]))
    removed: list[str] = []
    warnings: list[str] = []
    PartialGuards(
        project=project,
        workspace=Workspace(project, tmp_path / "journal.json"),
        runner=None,  # type: ignore[arg-type]  # nothing is re-run: no repair came after it
        baseline=Baseline({}),
        apply=True,
        write=lambda _path, _text: None,
        remove=removed.append,
        progress=lambda _message: None,
        warnings=warnings,
    ).withdraw(entries, kept, {})
    assert (tmp_path / "pkg" / "box.py").read_text() == guarded  # never read as ""
    assert removed == []  # its diff stays: the tree holds the guard
    assert entries[0].outcome == "escalated"
    assert entries[0].escalation is not None
    reason = entries[0].escalation.reason
    assert "pkg/box.py was not readable as UTF-8 text before the repair" in reason
    assert "revert it by hand (its diff: autodebug/01.diff)" in reason
    assert any("its change stays in pkg/box.py" in warning for warning in warnings)

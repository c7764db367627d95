"""Engine helpers: diffs that apply, and lines followed through kept repairs."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from phasegate.autodebug.diagnosis import Candidate, Diagnosis, FileEdit
from phasegate.autodebug.engine import Engine, FailedTest, remap_line, unified_diff
from phasegate.autodebug.project import Project, TestFiles
from phasegate.autodebug.runner import RunResult
from phasegate.autodebug.settings import AutodebugSettings
from phasegate.autodebug.validate import Baseline
from phasegate.autodebug.workspace import Workspace
from phasegate.model.autodebug import SuspiciousFunction
from phasegate.plugin.autodebug import interrupted_message
from tests.autodebug_support import SameRuns

OLD = "import os\n\n\ndef f():\n    return lenght\n"
NEW = "import os\nimport sys\n\n\ndef f():\n    return length\n"


def test_a_line_moves_with_the_lines_inserted_above_it() -> None:
    assert remap_line(OLD, NEW, 1) == 1
    assert remap_line(OLD, NEW, 4) == 5
    assert remap_line(OLD, NEW, 5) is None  # the line itself changed


def test_the_diff_names_both_sides_and_marks_a_missing_final_newline() -> None:
    diff = unified_diff("pkg/mod.py", "x = 1\n", "x = 2")
    assert diff.startswith("--- a/pkg/mod.py\n+++ b/pkg/mod.py\n")
    assert diff.endswith("+x = 2\n\\ No newline at end of file\n")


@pytest.mark.slow
def test_the_diff_applies_with_git(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "mod.py").write_text(OLD)
    (tmp_path / "fix.diff").write_text(unified_diff("pkg/mod.py", OLD, NEW))
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    subprocess.run(["git", "apply", "fix.diff"], cwd=tmp_path, check=True)
    assert (tmp_path / "pkg" / "mod.py").read_text() == NEW


class _OneCandidate:
    """A pattern that proposes one fixed rewrite of ``mod.py``."""

    name = "name"
    error_class = "name"

    def classify(self, failure: object) -> None:
        return None

    def propose(self, diagnosis: Diagnosis, project: Project) -> list[Candidate]:
        return [Candidate("typo", "a guess", [FileEdit("mod.py", "x = 2\n")], 0.9)]

    def explain(self, diagnosis: Diagnosis, candidate: Candidate | None) -> str:
        return "NameError"


def _same_runs(result: RunResult, scratch: Path) -> SameRuns:
    """A runner whose every re-run of ``tests/test_a.py`` reports ``result``."""
    return SameRuns(result, scratch, "tests/test_a.py")


def test_a_test_still_failing_on_its_own_message_has_not_moved_to_a_look_alike(
    tmp_path: Path,
) -> None:
    # Two failures with the same message at two places. A candidate for the first that fixes
    # one of its tests but leaves the other failing *with that same message* is no repair of
    # the first that merely hands the test on to the second.
    (tmp_path / "mod.py").write_text("x = 1\n")
    message = "name 'valeu' is not defined"
    first = Diagnosis("name", "name", "undefined", "NameError", message, "mod.py", 1)
    second = Diagnosis("name", "name", "undefined", "NameError", message, "mod.py", 5)
    failed = [
        FailedTest("tests/test_a.py::test_one", first),
        FailedTest("tests/test_a.py::test_two", first),
        FailedTest("tests/test_a.py::test_three", second),
    ]
    after = RunResult(
        outcomes={
            "tests/test_a.py::test_one": "passed",
            "tests/test_a.py::test_two": "failed",
            "tests/test_a.py::test_three": "failed",
        },
        failures={
            "tests/test_a.py::test_two": f"NameError: {message}",
            "tests/test_a.py::test_three": f"NameError: {message}",
        },
    )
    project = Project(tmp_path, TestFiles(["tests/*"]))
    engine = Engine(
        project=project,
        patterns=[_OneCandidate()],
        runner=_same_runs(after, tmp_path),  # type: ignore[arg-type]
        workspace=Workspace(project, tmp_path / "journal.json"),
        settings=AutodebugSettings(localize=False),
        mode="apply",
        baseline=Baseline({t.nodeid: "failed" for t in failed}),
        write=lambda _path, _text: None,
        remove=lambda _path: None,
    )
    report = engine.run(failed)
    assert report.failures[0].outcome == "escalated"
    assert (tmp_path / "mod.py").read_text() == "x = 1\n"


def test_a_module_that_collects_after_a_repair_is_not_fixed_while_one_of_its_tests_fails(
    tmp_path: Path,
) -> None:
    # The first repair also lets tests/test_b.py collect, but one of its tests fails: the
    # module's failure is not "fixed by another repair" (its tests do not all pass).
    (tmp_path / "mod.py").write_text("x = 1\n")
    first = Diagnosis(
        "name", "name", "undefined", "NameError", "name 'a' is not defined", "mod.py", 1
    )
    second = Diagnosis(
        "name", "name", "undefined", "NameError", "name 'b' is not defined", "mod.py", 5
    )
    failed = [FailedTest("tests/test_a.py::test_one", first), FailedTest("tests/test_b.py", second)]
    after = RunResult(
        outcomes={
            "tests/test_a.py::test_one": "passed",
            "tests/test_b.py::test_x": "passed",
            "tests/test_b.py::test_y": "failed",
        },
        failures={"tests/test_b.py::test_y": "AssertionError: assert 1 == 2"},
    )
    project = Project(tmp_path, TestFiles(["tests/*"]))
    engine = Engine(
        project=project,
        patterns=[_OneCandidate()],
        runner=_same_runs(after, tmp_path),  # type: ignore[arg-type]
        workspace=Workspace(project, tmp_path / "journal.json"),
        settings=AutodebugSettings(localize=False),
        mode="apply",
        baseline=Baseline({"tests/test_a.py::test_one": "failed"}, {"tests/test_b.py"}),
        write=lambda _path, _text: None,
        remove=lambda _path: None,
    )
    report = engine.run(failed)
    assert [failure.outcome for failure in report.failures] == ["repaired", "escalated"]
    assert (tmp_path / "mod.py").read_text() == "x = 2\n"


@pytest.mark.parametrize("covered", [False, True])
def test_a_localization_that_ranks_nothing_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, covered: bool
) -> None:
    pytest.importorskip("coverage")
    from phasegate.autodebug import engine as engine_module
    from phasegate.autodebug.localize import Spectrum

    (tmp_path / "mod.py").write_text("def f():\n    return 1\n")
    nodeid = "tests/test_a.py::test_one"
    diagnosis = Diagnosis("assertion", "assertion", "assert", "AssertionError", "1 == 2", "", 0)
    tests = {nodeid} if covered else {"tests/test_a.py::test_other"}
    spectrum = Spectrum(covered={("mod.py", "f", 1): tests}, outcomes={nodeid: "failed"})
    monkeypatch.setattr(engine_module, "collect_spectrum", lambda *_args: spectrum)
    project = Project(tmp_path, TestFiles(["tests/*"]))
    engine = Engine(
        project=project,
        patterns=[],
        runner=_same_runs(RunResult(outcomes={nodeid: "failed"}), tmp_path),  # type: ignore[arg-type]
        workspace=Workspace(project, tmp_path / "journal.json"),
        settings=AutodebugSettings(),
        mode="suggest",
        baseline=Baseline({nodeid: "failed"}),
        write=lambda _path, _text: None,
        remove=lambda _path: None,
    )
    report = engine.run([FailedTest(nodeid, diagnosis)])
    ranked_nothing = [w for w in report.warnings if "localization ranked no function" in w]
    if covered:
        assert report.failures[0].outcome == "localized"
        assert not ranked_nothing
    else:
        assert report.failures[0].outcome == "escalated"
        assert len(ranked_nothing) == 1
        assert nodeid in ranked_nothing[0]


def test_the_lost_guard_search_reads_more_suspects_than_the_report_lists(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("coverage")
    from phasegate.autodebug import engine as engine_module
    from phasegate.autodebug.localize import Spectrum

    (tmp_path / "mod.py").write_text("".join(f"def f{n}():\n    return {n}\n" for n in range(8)))
    nodeid, other = "tests/test_a.py::test_one", "tests/test_a.py::test_two"
    diagnosis = Diagnosis("assertion", "assertion", "assert", "AssertionError", "1 == 2", "", 0)
    # f0 is run by the failing test only; each next one by one more passing test.
    passing = [f"tests/test_a.py::test_p{n}" for n in range(8)]
    covered = {("mod.py", f"f{n}", 2 * n + 1): {nodeid, *passing[:n]} for n in range(8)}
    outcomes = {nodeid: "failed", other: "passed", **dict.fromkeys(passing, "passed")}
    monkeypatch.setattr(
        engine_module, "collect_spectrum", lambda *_args: Spectrum(covered, outcomes)
    )
    seen: list[list[str]] = []

    def record(_d: object, _p: object, suspects: list[SuspiciousFunction]) -> list[Candidate]:
        seen.append([s.function for s in suspects])
        return []

    monkeypatch.setattr(engine_module, "lost_guard_candidates", record)
    project = Project(tmp_path, TestFiles(["tests/*"]))
    engine = Engine(
        project=project,
        patterns=[],
        runner=_same_runs(RunResult(outcomes={nodeid: "failed"}), tmp_path),  # type: ignore[arg-type]
        workspace=Workspace(project, tmp_path / "journal.json"),
        settings=AutodebugSettings(localize_top=2),
        mode="suggest",
        baseline=Baseline({nodeid: "failed"}),
        write=lambda _path, _text: None,
        remove=lambda _path: None,
    )
    report = engine.run([FailedTest(nodeid, diagnosis)])
    assert [s.function for s in report.failures[0].suspicious] == ["f0", "f1"]
    assert seen == [[f"f{n}" for n in range(8)]]


class _GuardAtFirstUse:
    """A None pattern that guards the use on line 1 of ``mod.py`` and knows nothing else."""

    name = "none"
    error_class = "none"

    def classify(self, failure: object) -> None:
        return None

    def propose(self, diagnosis: Diagnosis, project: Project) -> list[Candidate]:
        if diagnosis.line != 1:
            return []
        edit = FileEdit("mod.py", "x = 1 if w is None else w\n")
        return [Candidate("none-guard", "put back a guard", [edit], 0.9)]

    def explain(self, diagnosis: Diagnosis, candidate: Candidate | None) -> str:
        return "TypeError: `w` is None"


@pytest.mark.parametrize("mode", ["apply", "suggest"])
def test_a_guard_kept_while_another_none_of_its_file_fails_is_withdrawn(
    tmp_path: Path, mode: str
) -> None:
    (tmp_path / "mod.py").write_text("x = w\n")
    first = Diagnosis("none", "none", "none-operand", "TypeError", "unsupported", "mod.py", 1)
    second = Diagnosis("none", "none", "none-iterated", "TypeError", "not iterable", "mod.py", 5)
    failed = [FailedTest("tests/test_a.py::test_one", first)]
    failed.append(FailedTest("tests/test_a.py::test_two", second))
    after = RunResult(
        outcomes={"tests/test_a.py::test_one": "passed", "tests/test_a.py::test_two": "failed"},
        failures={"tests/test_a.py::test_two": "TypeError: not iterable"},
    )
    diffs: set[str] = set()
    project = Project(tmp_path, TestFiles(["tests/*"]))
    engine = Engine(
        project=project,
        patterns=[_GuardAtFirstUse()],
        runner=_same_runs(after, tmp_path),  # type: ignore[arg-type]
        workspace=Workspace(project, tmp_path / "journal.json"),
        settings=AutodebugSettings(localize=False),
        mode=mode,  # type: ignore[arg-type]
        baseline=Baseline({t.nodeid: "failed" for t in failed}),
        write=lambda path, _text: diffs.add(path),
        remove=diffs.remove,  # KeyError for a diff never written
    )
    report = engine.run(failed)
    assert [f.outcome for f in report.failures] == ["escalated", "escalated"]
    assert report.failures[0].attempts[0].status == "rejected"
    assert report.failures[0].escalation is not None
    assert "02-none in mod.py" in report.failures[0].escalation.reason
    assert (tmp_path / "mod.py").read_text() == "x = w\n"
    assert diffs == set()  # written when kept, removed when withdrawn
    assert not (tmp_path / "journal.json").exists()


class _RunsInTurn:
    """A runner whose re-runs report ``results`` in turn (the last one from then on)."""

    def __init__(self, results: list[RunResult], scratch: Path) -> None:
        self.results = results
        self.base_args: list[str] = ["tests/test_a.py"]
        self.cwd = scratch
        self.scratch = scratch

    def run(self, selection: object = None, **_: object) -> RunResult:
        return self.results.pop(0) if len(self.results) > 1 else self.results[0]


def test_a_localized_failure_a_guard_kept_after_it_fixed_is_said_fixed_by_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The first failure's own guard fails; the second's, kept after it, makes both pass: the
    # first is fixed by that repair, not left localized.
    pytest.importorskip("coverage")
    from phasegate.autodebug import engine as engine_module
    from phasegate.autodebug.localize import Spectrum

    (tmp_path / "mod.py").write_text("def f(x=None):\n    return x\n")
    one, two = "tests/test_a.py::test_one", "tests/test_a.py::test_two"
    first = Diagnosis("assertion", "assertion", "assert", "AssertionError", "1 == 2", "", 0)
    second = Diagnosis("other", "other", "other", "ValueError", "bad", "", 0)
    spectrum = Spectrum(covered={("mod.py", "f", 1): {one, two}}, outcomes={one: "failed"})
    monkeypatch.setattr(engine_module, "collect_spectrum", lambda *_args: spectrum)
    guards = iter(["def f(x=None):\n    return x or 0\n", "def f(x=None):\n    return x or 1\n"])
    monkeypatch.setattr(
        engine_module,
        "lost_guard_candidates",
        lambda *_args: [Candidate("none-guard", "a guard", [FileEdit("mod.py", next(guards))], 1)],
    )
    failing = RunResult(
        outcomes={one: "failed", two: "failed"},
        failures={one: "AssertionError: 1 == 2", two: "ValueError: bad"},
    )
    passing = RunResult(outcomes={one: "passed", two: "passed"})
    project = Project(tmp_path, TestFiles(["tests/*"]))
    engine = Engine(
        project=project,
        patterns=[],
        # each failure: re-run unchanged, then its guard (the first's fails, the second's passes)
        runner=_RunsInTurn([failing, failing, failing, passing], tmp_path),  # type: ignore[arg-type]
        workspace=Workspace(project, tmp_path / "journal.json"),
        settings=AutodebugSettings(),
        mode="apply",
        baseline=Baseline({one: "failed", two: "failed"}),
        write=lambda _path, _text: None,
        remove=lambda _path: None,
    )
    report = engine.run([FailedTest(one, first), FailedTest(two, second)])
    assert [f.outcome for f in report.failures] == ["fixed-by-another-repair", "repaired"]
    assert report.failures[0].explanation.endswith(
        "the tests pass since a later repair of this run"
    )
    assert (tmp_path / "mod.py").read_text() == "def f(x=None):\n    return x or 1\n"


def _failing(*rows: tuple[str, str, str, str, str, str, int]) -> list[FailedTest]:
    """One failed test of ``tests/test_a.py`` per row: ``(test, class, kind, exception, message,
    path, line)``; the class is the diagnosis's pattern too."""
    return [
        FailedTest(f"tests/test_a.py::test_{test}", Diagnosis(cls, cls, kind, exc, msg, path, line))
        for test, cls, kind, exc, msg, path, line in rows
    ]


class _GuardThenRespell:
    """Guards the None on line 1 of ``mod.py`` and respells the name on line 2, each on the
    file as it is now; ``respell`` is the line-2 rewrite."""

    error_class = "none"

    def __init__(self, name: str, respell: tuple[str, str]) -> None:
        self.name = name
        self.respell = respell

    def classify(self, failure: object) -> None:
        return None

    def propose(self, diagnosis: Diagnosis, project: Project) -> list[Candidate]:
        text = project.read("mod.py") or ""
        if diagnosis.pattern == "none" and diagnosis.line == 1:
            edit = FileEdit("mod.py", text.replace("a = w", "a = 1 if w is None else w"))
            return [Candidate("none-guard", "guard w", [edit], 0.9)]
        if diagnosis.pattern == "name":
            edit = FileEdit("mod.py", text.replace(*self.respell))
            return [Candidate("typo", "respell nmae", [edit], 0.9)]
        return []

    def explain(self, diagnosis: Diagnosis, candidate: Candidate | None) -> str:
        return "x"


class _RunsOnTheTree:
    """A runner whose outcomes follow ``mod.py``: test_one passes with the guard, test_two
    with the respelt name, test_three never."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.base_args: list[str] = ["tests/test_a.py"]
        self.cwd = root
        self.scratch = root

    def run(self, selection: object = None, **_: object) -> RunResult:
        text = (self.root / "mod.py").read_text()
        passed = {
            "tests/test_a.py::test_one": "w is None" in text,
            "tests/test_a.py::test_two": "nmae" not in text,
            "tests/test_a.py::test_three": False,
        }
        messages = {
            "tests/test_a.py::test_one": "TypeError: a",
            "tests/test_a.py::test_two": "NameError: nmae",
            "tests/test_a.py::test_three": "TypeError: c",
        }
        return RunResult(
            outcomes={test: "passed" if ok else "failed" for test, ok in passed.items()},
            failures={test: messages[test] for test, ok in passed.items() if not ok},
        )


_LONG_AGO = 1_000_000_000_123_456_789  # a file's times, in nanoseconds


def _guard_then_respell(
    tmp_path: Path,
    mode: str,
    respell: tuple[str, str],
    texts: dict[str, str] | None = None,
    runs: type[_RunsOnTheTree] = _RunsOnTheTree,
) -> tuple[list[str], list[str], set[str]]:
    """Run the engine on a guard for line 1, a respelling on line 2 and a None left failing
    on line 3 of one file: the outcomes, the run's warnings, and the diffs left written (their
    last texts in ``texts``). The file's times are :data:`_LONG_AGO` before the run."""
    (tmp_path / "mod.py").write_text("a = w\nb = nmae\nc = z\n")
    os.utime(tmp_path / "mod.py", ns=(_LONG_AGO, _LONG_AGO))
    failed = _failing(
        ("one", "none", "none-operand", "TypeError", "a", "mod.py", 1),
        ("two", "name", "name-typo", "NameError", "nmae", "mod.py", 2),
        ("three", "none", "none-operand", "TypeError", "c", "mod.py", 3),
    )
    project = Project(tmp_path, TestFiles(["tests/*"]))
    diffs: set[str] = set()
    written = texts if texts is not None else {}
    engine = Engine(
        project=project,
        patterns=[_GuardThenRespell("none", respell), _GuardThenRespell("name", respell)],
        runner=runs(tmp_path),  # type: ignore[arg-type]
        workspace=Workspace(project, tmp_path / "journal.json"),
        settings=AutodebugSettings(localize=False),
        mode=mode,  # type: ignore[arg-type]
        baseline=Baseline({t.nodeid: "failed" for t in failed}),
        write=lambda path, text: (diffs.add(path), written.__setitem__(path, text)),
        remove=diffs.remove,
    )
    report = engine.run(failed)
    written.update({f.id: f.repair.diff for f in report.failures if f.repair})
    outcomes = [f.outcome for f in report.failures]
    assert report.failures[0].attempts[0].status == "rejected"  # kept, then withdrawn
    assert report.failures[0].escalation is not None
    return outcomes, [report.failures[0].escalation.reason, *report.warnings], diffs


@pytest.mark.parametrize("mode", ["apply", "suggest"])
def test_a_partial_guard_in_a_file_a_later_repair_rewrote_is_withdrawn_in_both_modes(
    tmp_path: Path, mode: str
) -> None:
    outcomes, _, diffs = _guard_then_respell(tmp_path, mode, ("nmae", "len"))
    assert outcomes == ["escalated", "repaired", "escalated"]
    assert diffs == {"autodebug/02-name.diff"}
    # in apply mode the guard is taken out and the later repair stays
    tree = "a = w\nb = len\nc = z\n" if mode == "apply" else "a = w\nb = nmae\nc = z\n"
    assert (tmp_path / "mod.py").read_text() == tree
    assert not (tmp_path / "journal.json").exists()


class _RunsWithTheGuardOnly(_RunsOnTheTree):
    """As :class:`_RunsOnTheTree`, but test_two passes only with the guard there too."""

    def run(self, selection: object = None, **_: object) -> RunResult:
        result = super().run(selection)
        if "w is None" not in (self.root / "mod.py").read_text():
            result.outcomes["tests/test_a.py::test_two"] = "failed"
            result.failures["tests/test_a.py::test_two"] = "TypeError: b"
        return result


def test_a_repair_of_the_guards_file_is_re_run_once_the_guard_is_taken_out(
    tmp_path: Path,
) -> None:
    texts: dict[str, str] = {}
    outcomes, _, diffs = _guard_then_respell(
        tmp_path, "apply", ("nmae", "len"), texts, _RunsWithTheGuardOnly
    )
    assert outcomes == ["escalated", "escalated", "escalated"]
    # unproven, the respelling is taken out too, from the diff rewritten without the guard
    assert "w is None" not in texts["autodebug/02-name.diff"]
    assert (tmp_path / "mod.py").read_text() == "a = w\nb = nmae\nc = z\n"
    # as it was before the run, the file has its times back (the guard's trial found them)
    assert (tmp_path / "mod.py").stat().st_mtime_ns == _LONG_AGO
    assert diffs == set()  # both diffs removed


@pytest.mark.slow
def test_a_repair_kept_after_a_guard_taken_out_has_a_diff_that_applies_to_the_tree(
    tmp_path: Path,
) -> None:
    texts: dict[str, str] = {}
    _guard_then_respell(tmp_path, "apply", ("nmae", "len"), texts)
    diff = texts["autodebug/02-name.diff"]
    assert texts["02-name"] == diff  # the report's diff is the file's
    assert "w is None" not in diff
    original = tmp_path / "original"
    original.mkdir()
    (original / "mod.py").write_text("a = w\nb = nmae\nc = z\n")
    (original / "fix.diff").write_text(diff)
    subprocess.run(["git", "init", "-q"], cwd=original, check=True)
    subprocess.run(["git", "apply", "fix.diff"], cwd=original, check=True)
    assert (original / "mod.py").read_text() == (tmp_path / "mod.py").read_text()


def test_a_guard_taken_out_leaves_its_file_byte_for_byte_as_it_was(tmp_path: Path) -> None:
    # CRLF line ends, no newline at the end, a time long past: all as they were after
    original = b"a = w\r\nb = 1\r\nc = z"
    path = tmp_path / "mod.py"
    path.write_bytes(original)
    os.utime(path, ns=(1_000_000_000_123_456_789, 1_000_000_000_123_456_789))
    failed = [
        FailedTest(
            f"tests/test_a.py::test_{name}",
            Diagnosis("none", "none", "none-operand", "TypeError", message, "mod.py", line),
        )
        for name, message, line in (("one", "a", 1), ("three", "c", 3))
    ]
    project = Project(tmp_path, TestFiles(["tests/*"]))
    engine = Engine(
        project=project,
        patterns=[_GuardThenRespell("none", ("", ""))],
        runner=_RunsOnTheTree(tmp_path),  # type: ignore[arg-type]
        workspace=Workspace(project, tmp_path / "journal.json"),
        settings=AutodebugSettings(localize=False),
        mode="apply",
        baseline=Baseline({t.nodeid: "failed" for t in failed}),
        write=lambda _path, _text: None,
        remove=lambda _path: None,
    )
    report = engine.run(failed)
    assert [f.outcome for f in report.failures] == ["escalated", "escalated"]
    assert report.failures[0].attempts[0].status == "rejected"  # kept, then withdrawn
    assert path.read_bytes() == original
    assert path.stat().st_mtime_ns == 1_000_000_000_123_456_789


def test_a_partial_guard_whose_lines_a_later_repair_rewrote_stays_but_is_escalated(
    tmp_path: Path,
) -> None:
    # the respelling rewrites the guard's own line too: the guard cannot be taken out
    outcomes, said, diffs = _guard_then_respell(
        tmp_path, "apply", ("w\nb = nmae", "w  # len\nb = len")
    )
    assert outcomes == ["escalated", "repaired", "escalated"]
    assert (tmp_path / "mod.py").read_text() == "a = 1 if w is None else w  # len\nb = len\nc = z\n"
    assert "revert it by hand (its diff: autodebug/01-none.diff)" in said[0]
    assert diffs == {"autodebug/01-none.diff", "autodebug/02-name.diff"}  # the guard's stays
    assert any("its change stays in mod.py" in warning for warning in said[1:])


class _Interrupting:
    """A name pattern that is interrupted (Ctrl-C) while it proposes."""

    name = "name"
    error_class = "name"

    def classify(self, failure: object) -> None:
        return None

    def propose(self, diagnosis: Diagnosis, project: Project) -> list[Candidate]:
        raise KeyboardInterrupt

    def explain(self, diagnosis: Diagnosis, candidate: Candidate | None) -> str:
        return "x"


def test_a_repair_kept_before_an_interrupt_has_its_diff_written_and_is_said_applied(
    tmp_path: Path,
) -> None:
    (tmp_path / "mod.py").write_text("a = w\nb = nmae\nc = z\n")
    failed = _failing(
        ("one", "none", "none-operand", "TypeError", "a", "mod.py", 1),
        ("two", "name", "name-typo", "NameError", "nmae", "mod.py", 2),
    )
    diffs: dict[str, str] = {}
    project = Project(tmp_path, TestFiles(["tests/*"]))
    engine = Engine(
        project=project,
        patterns=[_GuardThenRespell("none", ("", "")), _Interrupting()],
        runner=_RunsOnTheTree(tmp_path),  # type: ignore[arg-type]
        workspace=Workspace(project, tmp_path / "journal.json"),
        settings=AutodebugSettings(localize=False),
        mode="apply",
        baseline=Baseline({t.nodeid: "failed" for t in failed}),
        write=diffs.__setitem__,
        remove=diffs.pop,
    )
    with pytest.raises(KeyboardInterrupt):
        engine.run(failed)
    assert (tmp_path / "mod.py").read_text() == "a = 1 if w is None else w\nb = nmae\nc = z\n"
    assert list(diffs) == ["autodebug/01-none.diff"]
    assert "+a = 1 if w is None else w" in diffs["autodebug/01-none.diff"]
    assert engine.applied() == [("01-none", ["mod.py"])]
    said = interrupted_message(engine.applied(), "artifacts/autodebug")
    assert "01-none (mod.py)" in said
    assert "restored" not in said


def test_an_interrupt_with_nothing_applied_says_every_file_was_restored() -> None:
    said = interrupted_message([], "artifacts/autodebug")
    assert said == "auto-debug was interrupted; every file it tried a repair on was restored"


class _GuardAndRespellElsewhere:
    """Guards the None on line 1 of ``mod.py``; respells the name in ``other.py``."""

    error_class = "none"

    def __init__(self, name: str) -> None:
        self.name = name

    def classify(self, failure: object) -> None:
        return None

    def propose(self, diagnosis: Diagnosis, project: Project) -> list[Candidate]:
        if diagnosis.pattern == "name":
            text = (project.read("other.py") or "").replace("nmae", "len")
            return [Candidate("typo", "respell nmae", [FileEdit("other.py", text)], 0.9)]
        if diagnosis.line != 1:
            return []
        text = (project.read("mod.py") or "").replace("a = w", "a = 1 if w is None else w")
        return [Candidate("none-guard", "guard w", [FileEdit("mod.py", text)], 0.9)]

    def explain(self, diagnosis: Diagnosis, candidate: Candidate | None) -> str:
        return "x"


class _RunsOnTwoFiles:
    """test_one passes with the guard in ``mod.py``; test_two needs the respelt name in
    ``other.py`` *and* the guard; test_three never passes. ``error``: the error of a run with
    the name respelt and no guard."""

    def __init__(self, root: Path, error: str | None = None) -> None:
        self.root = root
        self.error = error
        self.base_args: list[str] = ["tests/test_a.py"]
        self.cwd = root
        self.scratch = root

    def run(self, selection: object = None, **_: object) -> RunResult:
        guarded = "w is None" in (self.root / "mod.py").read_text()
        respelt = "nmae" not in (self.root / "other.py").read_text()
        if self.error is not None and respelt and not guarded:  # the re-run after withdrawal
            return RunResult(error=self.error)
        outcomes = {
            "tests/test_a.py::test_one": "passed" if guarded else "failed",
            "tests/test_a.py::test_two": "passed" if guarded and respelt else "failed",
            "tests/test_a.py::test_three": "failed",
        }
        messages = {
            "tests/test_a.py::test_one": "TypeError: a",
            "tests/test_a.py::test_two": "TypeError: a" if respelt else "NameError: nmae",
            "tests/test_a.py::test_three": "TypeError: c",
        }
        failures = {t: messages[t] for t, outcome in outcomes.items() if outcome == "failed"}
        return RunResult(outcomes=outcomes, failures=failures)


@pytest.mark.parametrize("error", [None, "the re-run crashed"])
def test_a_repair_whose_tests_passed_only_with_a_withdrawn_guard_is_escalated(
    tmp_path: Path, error: str | None
) -> None:
    (tmp_path / "mod.py").write_text("a = w\nb = 1\nc = z\n")
    (tmp_path / "other.py").write_text("b = nmae\n")
    failed = _failing(
        ("one", "none", "none-operand", "TypeError", "a", "mod.py", 1),
        ("two", "name", "name-typo", "NameError", "nmae", "other.py", 1),
        ("three", "none", "none-operand", "TypeError", "c", "mod.py", 3),
    )
    project = Project(tmp_path, TestFiles(["tests/*"]))
    runner = _RunsOnTwoFiles(tmp_path, error)
    engine = Engine(
        project=project,
        patterns=[_GuardAndRespellElsewhere("none"), _GuardAndRespellElsewhere("name")],
        runner=runner,  # type: ignore[arg-type]
        workspace=Workspace(project, tmp_path / "journal.json"),
        settings=AutodebugSettings(localize=False),
        mode="apply",
        baseline=Baseline({t.nodeid: "failed" for t in failed}),
        write=lambda _path, _text: None,
        remove=lambda _path: None,
    )
    report = engine.run(failed)
    assert [f.outcome for f in report.failures] == ["escalated", "escalated", "escalated"]
    respelt = report.failures[1]
    assert respelt.attempts[-1].status == "rejected"
    assert respelt.escalation is not None
    assert "passed with the repair of 01-none in the tree" in respelt.escalation.reason
    assert (error or "and fail once") in respelt.escalation.reason
    # the respelling, unproven, is taken out of the tree too, and says so
    assert "it was taken out of the tree too" in respelt.escalation.reason
    assert respelt.repair is None
    assert (tmp_path / "other.py").read_text() == "b = nmae\n"
    assert (tmp_path / "mod.py").read_text() == "a = w\nb = 1\nc = z\n"


class _RespellsInTwoFiles(_GuardAndRespellElsewhere):
    """As :class:`_GuardAndRespellElsewhere`, and respells ``undefind`` in ``third.py``."""

    def propose(self, diagnosis: Diagnosis, project: Project) -> list[Candidate]:
        if diagnosis.path != "third.py":
            return super().propose(diagnosis, project)
        text = (project.read("third.py") or "").replace("undefind", "len")
        return [Candidate("typo", "respell undefind", [FileEdit("third.py", text)], 0.9)]


class _RunsOnThreeFiles(_RunsOnTwoFiles):
    """As :class:`_RunsOnTwoFiles`, and test_four needs both respellings (not the guard)."""

    def run(self, selection: object = None, **_: object) -> RunResult:
        result = super().run(selection)
        respelt = "nmae" not in (self.root / "other.py").read_text()
        third = "undefind" not in (self.root / "third.py").read_text()
        test = "tests/test_a.py::test_four"
        result.outcomes[test] = "passed" if respelt and third else "failed"
        if not (respelt and third):
            result.failures[test] = "NameError: nmae" if third else "NameError: undefind"
        return result


def test_an_unproven_repair_taken_out_makes_those_kept_after_it_re_run_too(
    tmp_path: Path,
) -> None:
    files = {"mod.py": "a = w\nb = 1\nc = z\n", "other.py": "b = nmae\n"}
    files["third.py"] = "c = undefind\n"
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    failed = _failing(
        ("one", "none", "none-x", "TypeError", "a", "mod.py", 1),
        ("two", "name", "name-x", "NameError", "nmae", "other.py", 1),
        ("four", "name", "name-x", "NameError", "undefind", "third.py", 1),
        ("three", "none", "none-x", "TypeError", "c", "mod.py", 3),
    )
    project = Project(tmp_path, TestFiles(["tests/*"]))
    diffs: set[str] = set()
    engine = Engine(
        project=project,
        patterns=[_RespellsInTwoFiles("none"), _RespellsInTwoFiles("name")],
        runner=_RunsOnThreeFiles(tmp_path),  # type: ignore[arg-type]
        workspace=Workspace(project, tmp_path / "journal.json"),
        settings=AutodebugSettings(localize=False),
        mode="apply",
        baseline=Baseline({t.nodeid: "failed" for t in failed}),
        write=lambda path, _text: diffs.add(path),
        remove=diffs.remove,
    )
    report = engine.run(failed)
    assert [f.outcome for f in report.failures] == ["escalated"] * 4
    # 02 failed its re-run without the guard and was taken out; then 03, re-run without 02
    last = report.failures[2].escalation
    assert last is not None
    assert "passed with the repair of 01-none, 02-name in the tree" in last.reason
    assert {name: (tmp_path / name).read_text() for name in files} == files
    assert diffs == set()


@pytest.mark.parametrize("seen_none", [False, True])
def test_a_collection_error_with_a_parameter_seen_none_looks_for_its_lost_guard(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seen_none: bool
) -> None:
    # No test ran, so nothing ranks suspects; a parameter None where the error was raised
    # is still the place a lost guard is looked for.
    from phasegate.autodebug import engine as engine_module

    (tmp_path / "mod.py").write_text("def f(x=None):\n    raise NotImplementedError\n")
    facts = {"none_parameters": [{"path": "mod.py", "line": 2, "name": "x"}]} if seen_none else {}
    diagnosis = Diagnosis(
        "other", "other", "other", "NotImplementedError", "", "mod.py", 2, facts=facts
    )
    seen: list[list[SuspiciousFunction]] = []

    def record(_d: object, _p: object, suspects: list[SuspiciousFunction]) -> list[Candidate]:
        seen.append(list(suspects))
        return []

    monkeypatch.setattr(engine_module, "lost_guard_candidates", record)
    project = Project(tmp_path, TestFiles(["tests/*"]))
    engine = Engine(
        project=project,
        patterns=[],
        runner=_same_runs(RunResult(), tmp_path),  # type: ignore[arg-type]
        workspace=Workspace(project, tmp_path / "journal.json"),
        settings=AutodebugSettings(),
        mode="suggest",
        baseline=Baseline({}, {"tests/test_a.py"}),
        write=lambda _path, _text: None,
        remove=lambda _path: None,
    )
    report = engine.run([FailedTest("tests/test_a.py", diagnosis)])
    assert report.failures[0].outcome == "escalated"
    assert seen == ([[]] if seen_none else [])

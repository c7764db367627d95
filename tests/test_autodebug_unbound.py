"""A candidate that would read a name nothing binds is never offered."""

from __future__ import annotations

from pathlib import Path

from phasegate.autodebug.diagnosis import Candidate, Diagnosis, FileEdit
from phasegate.autodebug.engine import Engine, FailedTest
from phasegate.autodebug.project import Project, TestFiles
from phasegate.autodebug.runner import RunResult
from phasegate.autodebug.settings import AutodebugSettings
from phasegate.autodebug.unbound import added_unbound, unbound_names
from phasegate.autodebug.validate import Baseline
from phasegate.autodebug.workspace import Workspace

MODULE = """\
import os


def permutations(items, r=None):
    size = len(items)
    return [x for x in items if x < r], size, os.sep


class Box:
    limit = 3

    def over(self, n):
        return n > limit
"""


def test_the_names_read_that_no_scope_binds_are_found_as_the_compiler_resolves_them() -> None:
    # `limit` is a class attribute: a method reading it bare fails, as Python says.
    assert unbound_names(MODULE) == {"limit"}
    assert unbound_names("print(__name__, __file__, len)\n") == set()


def test_a_star_import_or_a_file_that_does_not_compile_cannot_be_judged() -> None:
    assert unbound_names("from os.path import *\nprint(join)\n") is None
    assert unbound_names("def f(:\n") is None
    assert added_unbound("def f(:\n", "def f():\n    return g\n") == set()


def test_only_what_the_edit_adds_counts() -> None:
    guarded = MODULE.replace(
        "    size = len(items)\n", "    size = len(items)\n    if r is None:\n"
    )
    assert added_unbound(
        MODULE, guarded.replace("    if r is None:\n", "    if r is None:\n        r = n\n")
    ) == {"n"}
    assert (
        added_unbound(
            MODULE, guarded.replace("    if r is None:\n", "    if r is None:\n        r = size\n")
        )
        == set()
    )


class _TwoGuards:
    """A pattern proposing a guard whose body reads an unbound name, then a sound one."""

    name = "none"
    error_class = "none"

    def classify(self, failure: object) -> None:
        return None

    def propose(self, diagnosis: Diagnosis, project: Project) -> list[Candidate]:
        text = project.read("mod.py") or ""
        at = "    size = len(items)\n"
        unbound = text.replace(at, f"{at}    if r is None:\n        r = n\n")
        sound = text.replace(at, f"{at}    if r is None:\n        r = size\n")
        return [
            Candidate("none-guard", "r = n", [FileEdit("mod.py", unbound)], 0.9),
            Candidate("none-guard", "r = size", [FileEdit("mod.py", sound)], 0.8),
        ]

    def explain(self, diagnosis: Diagnosis, candidate: Candidate | None) -> str:
        return "TypeError"


class _Passing:
    def __init__(self, scratch: Path) -> None:
        self.base_args: list[str] = ["tests/test_mod.py"]
        self.cwd = scratch
        self.scratch = scratch
        self.selections: list[object] = []

    def run(self, selection: object = None, **_: object) -> RunResult:
        self.selections.append(selection)
        return RunResult(outcomes={"tests/test_mod.py::test_it": "passed"})


def test_a_candidate_reading_a_name_nothing_binds_is_never_tried(tmp_path: Path) -> None:
    (tmp_path / "mod.py").write_text(MODULE)
    project = Project(tmp_path, TestFiles(["tests/*"]))
    diagnosis = Diagnosis("none", "none", "operand", "TypeError", "'<' not supported", "mod.py", 6)
    runner = _Passing(tmp_path)
    engine = Engine(
        project=project,
        patterns=[_TwoGuards()],
        runner=runner,  # type: ignore[arg-type]
        workspace=Workspace(project, tmp_path / "journal.json"),
        settings=AutodebugSettings(localize=False),
        mode="apply",
        baseline=Baseline({"tests/test_mod.py::test_it": "failed"}),
        write=lambda _path, _text: None,
        remove=lambda _path: None,
    )
    report = engine.run([FailedTest("tests/test_mod.py::test_it", diagnosis)])
    (failure,) = report.failures
    assert [a.description for a in failure.attempts] == ["r = size"]
    assert failure.outcome == "repaired"
    assert "        r = size\n" in (tmp_path / "mod.py").read_text()

"""Phase 0: interfaces only (stubs), declared on a green state before a batch's reds."""

from __future__ import annotations

from phasegate.model.tdd import FileHashes
from phasegate.tdd.interfaces import interface_problems
from phasegate.tdd.rules.judgement import Judgement, listed
from phasegate.tdd.tree import changes

__all__ = ["interface_problems_since", "judge_phase0"]


def judge_phase0(j: Judgement) -> None:
    """Source changed by stubs only, tests untouched, everything still passes, no red yet."""
    green = j.state.green
    if green is None:
        j.violate(
            "phase0-no-green",
            "phase 0 declares interfaces on a green state, and there is none yet: record "
            "one with pytest --tdd=green",
        )
        return
    if j.facts.cycle is not None:
        j.cycles = [j.facts.cycle]
    _no_red_yet(j)
    j.tests_unchanged("phase0-changed-tests", "Phase 0 declares interfaces in source")
    _interfaces_only(j, green.files)
    j.must_still_pass(j.green_passed, "phase0-broke-tests")
    j.never_red()
    j.collection_errors("every test must be collected to prove nothing broke")
    if not j.violations:
        _record_phase0(j, green.files)


def _no_red_yet(j: Judgement) -> None:
    """Phase 0 comes before a batch's reds: no cycle may be red."""
    red = j.red_cycles()
    if red:
        j.violate(
            "phase0-after-red",
            f"cycle(s) {', '.join(c.id for c in red)} are red: phase 0 comes before a "
            "batch's red tests",
        )


def _record_phase0(j: Judgement, green_files: FileHashes) -> None:
    """The status code of a kept phase 0 (P0C) and the files it declared interfaces in."""
    j.status = ["P0C"]
    changed = changes(green_files.source, j.facts.files.source)
    j.notes.append(
        f"interfaces declared in {listed(c.path for c in changed) or 'no file'}; "
        "next: red tests that use them"
    )


def _interfaces_only(j: Judgement, green_files: FileHashes) -> None:
    problems = interface_problems_since(j, green_files)
    if problems:
        j.violate(
            "phase0-not-interface",
            f"phase 0 may add interfaces only (stubs: pass, ..., raise "
            f"NotImplementedError): {listed(problems)}",
            paths=sorted({problem.split(" line ", 1)[0] for problem in problems}),
        )


def interface_problems_since(j: Judgement, green_files: FileHashes) -> list[str]:
    """What the source changes since ``green_files`` do beyond declaring interfaces."""
    found: list[str] = []
    for change in changes(green_files.source, j.facts.files.source):
        if change.change == "removed":
            found.append(f"{change.path} was removed")
        else:
            found += _file_problems(j, green_files, change.path)
    return found


def _file_problems(j: Judgement, green_files: FileHashes, path: str) -> list[str]:
    """What a source file added or changed since green does beyond declaring interfaces."""
    after = j.workspace.now(path)
    if after is None:
        return []
    sha = green_files.source.get(path)
    before = j.workspace.read(path, sha) if sha else None
    return [f"{path} {problem}" for problem in interface_problems(before, after)]

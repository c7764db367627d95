"""Where the perf check's baseline comes from: the base commit, never the git-ignored folder.

A baseline the run itself could write would make the check unable to fail on a fresh CI
checkout (the first run records, and passes). So the baseline is the base's, from one of:

1. a **base run's artifact** (option ``baseline_artifact``): the run report (``report.json``)
   of a run at the base, downloaded from the base branch's CI run, say. It must name its
   commit, and with a base that commit must be the base or one of its ancestors;
2. a **committed baseline file** (option ``baseline``), read *at the base* with ``git show``:
   a perf baseline (``{"measures": {node id: seconds}}``) or a run report. Being committed at
   the base is what makes it the base's; the copy in the work tree, which the change may have
   edited, is not read;
3. **the base's perf tests, run now** (option ``run_base``, on by default): the project's tree
   at the base commit is written into a temporary folder (:mod:`phasegate.gates.tree_copy`)
   and ``pytest -m perf`` runs there, with the same interpreter, the copy's own code first on
   the import path (an editable install of the project would otherwise import the head's code),
   and phasegate recording the run. The head and the base are then measured on the same
   machine in the same job.

Fail closed: a run at the base that fails, crashes, hangs (it is stopped with every process it
started), writes no report or a report of another shape is a
:class:`~phasegate.gates.protocol.CheckError`, as is a git that fails.
"""

from __future__ import annotations

import json
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from phasegate.gates.git import git_bytes, git_text
from phasegate.gates.protocol import CheckError
from phasegate.gates.tree_copy import environment_for, write_tree
from phasegate.jsonvalues import is_number, value_at
from phasegate.model.run import Outcome, RunReport
from phasegate.processes import Finished, GroupTimeout, run_in_group
from phasegate.versioning import check_version

__all__ = [
    "PERF_MARKER",
    "BaseMeasures",
    "from_artifact",
    "from_committed_file",
    "measures_of_run",
    "read_benchmarks",
    "run_at_base",
]

#: The marker that puts a test's duration under the perf check.
PERF_MARKER = "perf"

#: What git says when the file is not in the commit.
_NOT_IN_COMMIT = ("does not exist in", "exists on disk, but not in")
#: The pytest exit statuses of a base run that recorded what it could: all passed, none chosen.
_BASE_RUN_OK = (0, 5)
_OUTPUT_CHARS = 1500


@dataclass(frozen=True)
class BaseMeasures:
    """The base's measures (node id -> seconds) and where they come from, in a phrase."""

    measures: dict[str, float]
    source: str


def measures_of_run(run: RunReport) -> dict[str, float]:
    """The call-phase seconds of every passing test marked ``perf`` in a run."""
    return {
        test.nodeid: test.phases["call"].duration_s
        for test in run.tests
        if PERF_MARKER in test.markers and test.outcome is Outcome.PASSED and "call" in test.phases
    }


def from_artifact(path: Path, shown: str, root: Path, base_sha: str | None) -> BaseMeasures:
    """The measures of a base run's report at ``path`` (``shown`` is how the option named it)."""
    try:
        data = json.loads(path.read_bytes())
    except (OSError, ValueError) as exc:
        raise CheckError(
            f"the perf baseline artifact {shown} cannot be read: {exc}",
            fix="download the base run's report.json there, or unset baseline_artifact",
        ) from exc
    run = _run_report(data, f"the perf baseline artifact {shown}")
    commit = _base_commit(run, shown, root, base_sha)
    return BaseMeasures(measures_of_run(run), f"the artifact {shown} (commit {commit[:12]})")


def _base_commit(run: RunReport, shown: str, root: Path, base_sha: str | None) -> str:
    """The commit the artifact's run was made at, once it is shown to be the base or one of
    its ancestors (a CheckError when the artifact names none, or another)."""
    commit = run.git.sha if run.git else None
    if commit is None:
        raise CheckError(
            f"the perf baseline artifact {shown} names no commit, so it cannot be shown to be "
            "the base's",
            fix="use the report.json of a run made in a git work tree at the base",
        )
    if base_sha is not None and commit != base_sha and not _is_ancestor(root, commit, base_sha):
        raise CheckError(
            f"the perf baseline artifact {shown} is of commit {commit[:12]}, which is neither "
            f"the base {base_sha[:12]} nor one of its ancestors",
            fix="use the report of a run at the base commit",
        )
    return commit


def from_committed_file(root: Path, base_sha: str, relpath: str) -> BaseMeasures | None:
    """The baseline file as committed at the base; ``None`` when the base has no such file."""
    spec = f"{base_sha}:./{relpath}"
    text = git_bytes(root, ["show", spec], none_when=_NOT_IN_COMMIT)
    if text is None:
        return None
    where = f"the perf baseline {relpath} at the base {base_sha[:12]}"
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise CheckError(f"{where} is not JSON: {exc}") from exc
    if isinstance(data, dict) and data.get("kind") == "run-report":
        measures = measures_of_run(_run_report(data, where))
    else:
        measures = _perf_baseline(data, where)
    return BaseMeasures(measures, f"{relpath} as committed at the base {base_sha[:12]}")


def run_at_base(
    root: Path, base_sha: str, *, timeout_s: float, benchmark_json: bool = False
) -> BaseMeasures:
    """Run the base's perf tests in a copy of the base commit and read their measures."""
    with tempfile.TemporaryDirectory(prefix="phasegate-perf-base-") as folder:
        copy = write_tree(root, base_sha, Path(folder) / "base")
        artifacts = Path(folder) / "artifacts"
        command = [
            sys.executable,
            "-m",
            "pytest",
            "-m",
            PERF_MARKER,
            "--gate=record",
            f"--phasegate-dir={artifacts}",
            "-p",
            "no:cacheprovider",
            "-q",
        ]
        bench = Path(folder) / "benchmark.json"
        if benchmark_json:
            command.append(f"--benchmark-json={bench}")
        shown = f"pytest -m {PERF_MARKER} at the base {base_sha[:12]}"
        finished = _run_base_tests(command, copy, base_sha, shown, timeout_s)
        measures = measures_of_run(_base_report(artifacts / "report.json", shown, finished))
        if benchmark_json and finished.returncode == 0:
            measures.update(read_benchmarks(bench, f"the benchmarks of {shown}"))
    return BaseMeasures(measures, f"the base {base_sha[:12]}'s perf tests, run now")


def _run_base_tests(
    command: list[str], copy: Path, base_sha: str, shown: str, timeout_s: float
) -> Finished:
    """The base's perf tests run in ``copy``; a CheckError unless they ran to an end that
    leaves a baseline (``shown`` names the run in messages)."""
    try:
        finished = run_in_group(command, cwd=copy, timeout_s=timeout_s, env=environment_for(copy))
    except GroupTimeout as exc:
        raise CheckError(
            f"the base {base_sha[:12]}'s perf tests did not finish within {timeout_s:g}s "
            "(stopped, with every process they started)",
            fix="raise timeout_s for the perf check, or commit a baseline file",
        ) from exc
    except OSError as exc:
        raise CheckError(f"the base's perf tests could not be started: {exc}") from exc
    if finished.returncode not in _BASE_RUN_OK:
        raise CheckError(
            f"{shown} exited with status {finished.returncode}, so the base has no "
            f"baseline to compare with: {_tail(finished)}",
            fix="run the base's perf tests to see why, or commit a baseline file",
        )
    return finished


def _base_report(report_path: Path, shown: str, finished: Finished) -> RunReport:
    """The complete run report the base's perf tests wrote."""
    try:
        data = json.loads(report_path.read_bytes())
    except (OSError, ValueError) as exc:
        raise CheckError(
            f"{shown} exited with status {finished.returncode} but left no readable run "
            f"report ({exc}): {_tail(finished)}"
        ) from exc
    run = _run_report(data, f"the report of {shown}")
    if run.incomplete:
        raise CheckError(f"{shown} was incomplete: {'; '.join(run.incomplete_reasons[:2])}")
    return run


def _tail(finished: Finished) -> str:
    """The end of what a run printed, for a message."""
    said = (finished.stdout + finished.stderr).decode("utf-8", errors="replace").strip()
    return said[-_OUTPUT_CHARS:] or "(no output)"


def read_benchmarks(path: Path, shown: str) -> dict[str, float]:
    """The medians of a pytest-benchmark ``--benchmark-json`` file, by node id."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise CheckError(
            f"cannot read pytest-benchmark results {shown}: {exc}",
            fix="run pytest with --benchmark-json pointing at that file, or unset benchmark_json",
        ) from exc
    try:
        return {entry["fullname"]: float(entry["stats"]["median"]) for entry in data["benchmarks"]}
    except (KeyError, TypeError, ValueError) as exc:
        raise CheckError(f"{shown} is not pytest-benchmark JSON output: missing {exc}") from exc


def _run_report(data: object, where: str) -> RunReport:
    check_version(where, data)
    if not isinstance(data, dict) or data.get("kind") != "run-report":
        raise CheckError(f"{where} is not a phasegate run report (no kind 'run-report')")
    try:
        return RunReport.model_validate(data)
    except ValidationError as exc:
        raise CheckError(f"{where} is not a valid run report: {exc.errors()[0]['msg']}") from exc


def _perf_baseline(data: object, where: str) -> dict[str, float]:
    measures = value_at(data, "measures")
    if not isinstance(measures, Mapping) or not all(
        isinstance(k, str) and _is_seconds(v) for k, v in measures.items()
    ):
        raise CheckError(
            f"{where} is neither a run report nor a perf baseline "
            '({"measures": {node id: seconds}})'
        )
    return {str(k): float(v) for k, v in measures.items()}


def _is_seconds(value: object) -> bool:
    """Whether ``value`` is a duration: a number (not a bool) that is not negative."""
    return is_number(value) and value >= 0


def _is_ancestor(root: Path, commit: str, base: str) -> bool:
    """Whether ``commit`` is an ancestor of ``base``: their merge base is ``commit`` itself."""
    answer = git_text(root, ["merge-base", commit, base], ok_codes=(0, 1))
    return answer == commit

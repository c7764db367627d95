"""The perf check compares with the base, never with a file the run itself wrote.

The base's measures come from a base run's artifact, a baseline file as committed at the base,
or the base's perf tests run now in a copy of the base commit; a base that cannot give them
(its perf tests crash, hang, leave no report; git fails) makes the check an error.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from phasegate.gates.checks.perf import PerfCheck, PerfOptions
from phasegate.gates.protocol import CheckContext, CheckError, Measurement
from phasegate.model.run import RunReport
from tests.conftest import git
from tests.gates.test_session_checks import run_report, session

MakeContext = Callable[..., CheckContext]

SLOW = ("t.py::test_speed", "passed", ["perf"], 0.40)


def measure(ctx: CheckContext, **options: Any) -> Measurement:
    return PerfCheck().measure(ctx, PerfOptions(**options))


def commit_all(root: Path, message: str = "base") -> str:
    if not (root / ".git").exists():
        git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-qm", message)
    return git(root, "rev-parse", "HEAD")


def report_document(run: RunReport, sha: str | None) -> str:
    data = json.loads(run.model_dump_json())
    data["git"] = None if sha is None else {"sha": sha, "branch": "main", "dirty": False}
    return json.dumps(data)


# -- no baseline: said, never passed --------------------------------------------------------


def test_without_a_base_or_an_artifact_the_check_says_so_and_writes_nothing(
    make_context: MakeContext, tmp_path: Path
) -> None:
    ctx = make_context(session=session(run_report(SLOW)))

    skipped = measure(ctx)

    assert skipped.skipped is not None
    assert "no perf baseline: there is no base to compare with" in skipped.skipped
    assert not (tmp_path / ".phasegate").exists()  # nothing recorded as a baseline
    with pytest.raises(CheckError, match="no perf baseline: there is no base"):
        measure(ctx, no_baseline="error")


def test_a_file_in_the_work_tree_is_not_a_baseline(
    make_context: MakeContext, tmp_path: Path
) -> None:
    # The old way: a baseline file nobody committed. It is not the base's, so it is not read.
    (tmp_path / "perf.json").write_text(json.dumps({"measures": {"t.py::test_speed": 10.0}}))

    skipped = measure(make_context(session=session(run_report(SLOW))), baseline="perf.json")

    assert skipped.skipped is not None


def test_nothing_marked_is_skipped_with_its_reason(make_context: MakeContext) -> None:
    plain = run_report(("t.py::test_x", "passed", [], 0.1))
    measurement = measure(make_context(session=session(plain)))
    assert measurement.skipped is not None
    assert "no test is marked @pytest.mark.perf" in measurement.skipped


# -- a base run's artifact --------------------------------------------------------------------


def test_an_artifact_of_the_base_is_compared_with(
    make_context: MakeContext, tmp_path: Path
) -> None:
    base = run_report(("t.py::test_speed", "passed", ["perf"], 0.10))
    (tmp_path / "base-report.json").write_text(report_document(base, "a" * 40))

    slow = measure(
        make_context(session=session(run_report(SLOW))), baseline_artifact="base-report.json"
    )

    assert (slow.metrics["regressions"], slow.metrics["compared"]) == (1, 1)
    assert slow.metrics["worst_ratio"] == 4.0
    assert "took 0.400s against a baseline of 0.100s" in slow.findings[0].message
    assert "the artifact base-report.json (commit aaaaaaaaaaaa)" in slow.summary
    jitter = run_report(("t.py::test_speed", "passed", ["perf"], 0.13))
    ok = measure(make_context(session=session(jitter)), baseline_artifact="base-report.json")
    assert ok.metrics["regressions"] == 0


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "cannot be read"),
        ("{not json", "cannot be read"),
        ('{"kind": "gate-verdict"}', "is not a phasegate run report"),
        ('{"kind": "run-report", "tests": 3}', "is not a valid run report"),
        ('{"kind": "run-report", "schema_version": "9.0"}', "newer than"),
    ],
)
def test_an_unreadable_artifact_is_an_error(
    make_context: MakeContext, tmp_path: Path, text: str, message: str
) -> None:
    (tmp_path / "base-report.json").write_text(text)
    with pytest.raises(Exception, match=message):
        measure(
            make_context(session=session(run_report(SLOW))), baseline_artifact="base-report.json"
        )


def test_an_artifact_without_a_commit_or_of_another_commit_is_refused(
    make_context: MakeContext, tmp_path: Path
) -> None:
    base_run = run_report(("t.py::test_speed", "passed", ["perf"], 0.10))
    (tmp_path / "a.txt").write_text("a\n")
    base = commit_all(tmp_path)
    (tmp_path / "a.txt").write_text("b\n")
    later = commit_all(tmp_path, "later")
    ctx = make_context(base=base, session=session(run_report(SLOW)))

    (tmp_path / "nocommit.json").write_text(report_document(base_run, None))
    with pytest.raises(CheckError, match="names no commit"):
        measure(ctx, baseline_artifact="nocommit.json")
    (tmp_path / "later.json").write_text(report_document(base_run, later))
    with pytest.raises(CheckError, match=r"neither the base .* nor one of its ancestors"):
        measure(ctx, baseline_artifact="later.json")
    (tmp_path / "base.json").write_text(report_document(base_run, base))
    assert measure(ctx, baseline_artifact="base.json").metrics["regressions"] == 1


def test_an_artifact_outside_the_project_is_refused(make_context: MakeContext) -> None:
    with pytest.raises(CheckError, match="outside the project root"):
        measure(make_context(session=session(run_report(SLOW))), baseline_artifact="../x.json")


# -- a baseline file committed at the base ------------------------------------------------


def test_the_committed_file_is_read_at_the_base_not_in_the_work_tree(
    make_context: MakeContext, tmp_path: Path
) -> None:
    (tmp_path / "perf.json").write_text(json.dumps({"measures": {"t.py::test_speed": 0.1}}))
    base = commit_all(tmp_path)
    # The change raises the baseline to hide its slowdown: the base's file still counts.
    (tmp_path / "perf.json").write_text(json.dumps({"measures": {"t.py::test_speed": 9.0}}))
    commit_all(tmp_path, "raise the baseline")

    slow = measure(make_context(base=base, session=session(run_report(SLOW))), baseline="perf.json")

    assert slow.metrics["regressions"] == 1
    assert f"perf.json as committed at the base {base[:12]}" in slow.summary


def test_a_committed_run_report_is_a_baseline_too(
    make_context: MakeContext, tmp_path: Path
) -> None:
    base_run = run_report(("t.py::test_speed", "passed", ["perf"], 0.39))
    (tmp_path / "perf.json").write_text(report_document(base_run, None))
    base = commit_all(tmp_path)

    same = measure(make_context(base=base, session=session(run_report(SLOW))), baseline="perf.json")

    assert (same.metrics["regressions"], same.metrics["compared"]) == (0, 1)


def test_a_committed_file_of_another_shape_is_an_error(
    make_context: MakeContext, tmp_path: Path
) -> None:
    (tmp_path / "perf.json").write_text(json.dumps({"measures": {"t.py::test_speed": "fast"}}))
    base = commit_all(tmp_path)
    with pytest.raises(CheckError, match="neither a run report nor a perf baseline"):
        measure(make_context(base=base, session=session(run_report(SLOW))), baseline="perf.json")


def test_without_the_file_at_the_base_and_without_run_base_the_check_cannot_run(
    make_context: MakeContext, tmp_path: Path
) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    base = commit_all(tmp_path)
    (tmp_path / "perf.json").write_text(json.dumps({"measures": {"t.py::test_speed": 9.0}}))
    ctx = make_context(base=base, session=session(run_report(SLOW)))
    with pytest.raises(CheckError, match=r"perf\.json is not committed at it, and run_base is off"):
        measure(ctx, baseline="perf.json", run_base=False)


def test_a_git_that_fails_is_an_error(
    make_context: MakeContext, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "perf.json").write_text(json.dumps({"measures": {"t.py::test_speed": 0.1}}))
    base = commit_all(tmp_path)
    ctx = make_context(base=base, session=session(run_report(SLOW)))
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "git").write_text("#!/bin/sh\necho 'fatal: bad object' >&2\nexit 128\n")
    (fake / "git").chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake}")
    with pytest.raises(CheckError, match=r"git show .* failed .*bad object"):
        measure(ctx, baseline="perf.json")


# -- the base's perf tests, run now in a copy of the base ---------------------------------

BASE_TEST = """
import time
import pytest

@pytest.mark.perf
def test_speed():
    time.sleep(0.01)
"""


def base_project(root: Path, test_text: str = BASE_TEST, conftest: str | None = None) -> str:
    (root / "pyproject.toml").write_text('[tool.pytest.ini_options]\nmarkers = ["perf: timed"]\n')
    (root / "test_speed.py").write_text(test_text)
    if conftest is not None:
        (root / "conftest.py").write_text(conftest)
    return commit_all(root)


def head_run(seconds: float) -> RunReport:
    return run_report(("test_speed.py::test_speed", "passed", ["perf"], seconds))


@pytest.mark.slow
def test_the_base_perf_tests_run_in_a_copy_and_a_slowdown_fails(
    make_context: MakeContext, tmp_path: Path
) -> None:
    base = base_project(tmp_path)
    (tmp_path / "test_speed.py").write_text(BASE_TEST.replace("0.01", "0.5"))  # the change

    slow = measure(make_context(base=base, session=session(head_run(0.5))))

    assert slow.metrics["regressions"] == 1, slow.summary
    assert f"the base {base[:12]}'s perf tests, run now" in slow.summary
    quick = measure(make_context(base=base, session=session(head_run(0.011))))
    assert quick.metrics["regressions"] == 0, quick.summary
    assert not (tmp_path / ".phasegate").exists()


@pytest.mark.slow
@pytest.mark.parametrize(
    ("test_text", "conftest", "message"),
    [
        (BASE_TEST.replace("time.sleep(0.01)", "raise RuntimeError('boom')"), None, "status 1"),
        (
            BASE_TEST,
            "import os\nprint('garbage !@#')\nos._exit(0)\n",
            "left no readable run report",
        ),
        (BASE_TEST, "import os\nos._exit(139)\n", "status 139"),
        (BASE_TEST, "raise SystemExit('conftest broke')\n", "exited with status"),
    ],
    ids=["the test fails", "garbage and no report", "crash", "broken conftest"],
)
def test_a_base_that_cannot_give_measures_is_an_error(
    make_context: MakeContext, tmp_path: Path, test_text: str, conftest: str | None, message: str
) -> None:
    base = base_project(tmp_path, test_text, conftest)
    with pytest.raises(CheckError, match=message):
        measure(make_context(base=base, session=session(head_run(0.5))))


@pytest.mark.slow
def test_a_base_that_hangs_is_stopped_and_an_error(
    make_context: MakeContext, tmp_path: Path
) -> None:
    base = base_project(tmp_path, BASE_TEST.replace("0.01", "600"))
    with pytest.raises(CheckError, match="did not finish within 5s"):
        measure(make_context(base=base, timeout_s=5.0, session=session(head_run(0.5))))


@pytest.mark.slow
def test_the_copy_imports_the_base_code_not_the_head(
    make_context: MakeContext, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The head's module would be found first through PYTHONPATH (as an editable install
    # would); the base's copy must import its own.
    (tmp_path / "slowmod.py").write_text("import time\n\ndef work():\n    time.sleep(0.01)\n")
    test = (
        "import pytest\nimport slowmod\n\n@pytest.mark.perf\ndef test_speed():\n"
        "    slowmod.work()\n"
    )
    base = base_project(tmp_path, test)
    (tmp_path / "slowmod.py").write_text("import time\n\ndef work():\n    time.sleep(0.6)\n")
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))

    slow = measure(make_context(base=base, session=session(head_run(0.6))))

    assert slow.metrics["regressions"] == 1, slow.summary


@pytest.mark.slow
def test_a_base_without_perf_tests_has_no_baseline(
    make_context: MakeContext, tmp_path: Path
) -> None:
    base = base_project(tmp_path, "def test_plain():\n    pass\n")
    ctx = make_context(base=base, session=session(head_run(0.5)))
    skipped = measure(ctx)
    assert skipped.skipped is not None
    assert "none of the 1 measures has a baseline" in skipped.skipped
    with pytest.raises(CheckError, match="none of the 1 measures has a baseline"):
        measure(ctx, no_baseline="error")


def test_pytest_benchmark_results_are_measures(make_context: MakeContext, tmp_path: Path) -> None:
    (tmp_path / "bench.json").write_text(
        json.dumps({"benchmarks": [{"fullname": "t.py::test_b", "stats": {"median": 0.02}}]})
    )
    base_run = run_report(("t.py::test_x", "passed", ["perf"], 0.1))
    base_doc = json.loads(report_document(base_run, "a" * 40))
    (tmp_path / "base.json").write_text(json.dumps(base_doc))
    plain = run_report(("t.py::test_x", "passed", [], 0.1))
    measurement = measure(
        make_context(session=session(plain)),
        benchmark_json="bench.json",
        baseline_artifact="base.json",
    )
    assert measurement.skipped is not None  # one measure, and the base has none of it
    assert "none of the 1 measures has a baseline" in measurement.skipped
    assert sys.executable  # the base runs with this interpreter


@pytest.mark.slow
def test_through_the_gate_a_slowdown_against_the_base_fails_on_a_fresh_checkout(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyprojecttoml(
        '[tool.pytest.ini_options]\nmarkers = ["perf: timed"]\n'
        '[tool.phasegate]\ngate_paths = ["ci"]\n'
    )
    pytester.mkdir("ci")
    (pytester.path / "ci" / "perf-only.toml").write_text('name = "perf-only"\n[checks.perf]\n')
    (pytester.path / "test_speed.py").write_text(BASE_TEST)
    base = commit_all(pytester.path)
    (pytester.path / "test_speed.py").write_text(BASE_TEST.replace("0.01", "0.3"))

    result = pytester.runpytest("--gate=perf-only", f"--base={base}", "-v")

    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "gate perf-only: INSUFFICIENT *",
            "*perf*failed*regressions is 1, fails when > 0*",
        ]
    )
    assert not (pytester.path / ".phasegate" / "perf").exists()

"""The composite action, run step by step on a passing and a failing sample project.

The runner stand-in (``tests/action/runner.py``) runs the ``shell: bash`` steps with a
simulated GitHub environment: a pull_request event payload, ``GITHUB_OUTPUT``,
``GITHUB_STEP_SUMMARY``, ``GITHUB_WORKSPACE``, and GitHub's REST API stood in for on the
loopback (the sticky comment). Steps that ``uses:`` other actions (upload-artifact,
upload-sarif, the cache) cannot run offline and are skipped; the test names them.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.action.runner import ActionRun, base_environment, run_action
from tests.conftest import REPO_ROOT, git
from tests.report.test_comment import FakeGitHub, github  # noqa: F401 - the fixture

ACTION = REPO_ROOT / "github-actions" / "action.yml"
GATE = 'name = "small"\n[checks.tests]\n[checks.lint]\n'
SKIPPED = [
    "Restore the refinement loop (actions/cache/restore)",
    "Upload the artifacts (actions/upload-artifact)",
    "Upload to code scanning (github/codeql-action/upload-sarif)",
    "Save the refinement loop (actions/cache/save)",
]

pytestmark = pytest.mark.slow


def sample(root: Path, *, failing: bool) -> Path:
    project = root / "workspace"
    (project / "ci").mkdir(parents=True)
    (project / "pyproject.toml").write_text(
        '[tool.ruff.lint]\nselect = ["E", "F"]\n\n[tool.phasegate]\ngate_paths = ["ci"]\n'
    )
    (project / "ci" / "small.toml").write_text(GATE)
    expected = 3 if failing else 2
    (project / "test_calc.py").write_text(f"def test_add():\n    assert 1 + 1 == {expected}\n")
    return project


@pytest.fixture
def environment(tmp_path: Path, github: tuple[FakeGitHub, str]) -> dict[str, str]:  # noqa: F811
    _fake, url = github
    event = tmp_path / "event.json"
    event.write_text(
        json.dumps(
            {
                "pull_request": {
                    "number": 7,
                    "head": {"sha": "c" * 40, "repo": {"full_name": "octo/app"}},
                }
            }
        )
    )
    env = base_environment()
    env["PATH"] = f"{Path(sys.executable).parent}:{env.get('PATH', '')}"
    env.update(
        {
            "GITHUB_EVENT_NAME": "pull_request",
            "GITHUB_EVENT_PATH": str(event),
            "GITHUB_REPOSITORY": "octo/app",
            "GITHUB_API_URL": url,
            "GITHUB_SERVER_URL": "https://github.example",
            "GITHUB_RUN_ID": "99",
        }
    )
    return env


def act(project: Path, environment: dict[str, str], **inputs: str) -> ActionRun:
    return run_action(
        ACTION,
        inputs={
            "gate": "small",
            "install": "--no-index pytest-phasegate",
            "pytest-args": "-p no:cacheprovider -q",
            "python": sys.executable,
            **inputs,
        },
        workspace=project,
        environment=environment,
    )


def test_a_passing_project(
    tmp_path: Path,
    environment: dict[str, str],
    github: tuple[FakeGitHub, str],  # noqa: F811
) -> None:
    fake, _url = github
    run = act(sample(tmp_path, failing=False), environment)
    assert run.failed is None, run.failed
    assert run.skipped == SKIPPED
    assert run.outputs["verdict"] == "sufficient"
    assert run.outputs["score"] == "1.0000"
    assert run.outputs["exit-status"] == "0"
    assert run.outputs["next-action"] == "proceed"
    assert run.outputs["report-path"].endswith("workspace/.phasegate")
    assert "### \u2705 phasegate gate `small`: **sufficient**" in run.summary
    assert "phasegate: the gate is sufficient" in run.steps[-1].stdout
    imported = run.step("Import the pull request's reviews")
    assert "pull request #7: 0 review(s) with an outcome, 0 newly recorded" in imported.stdout
    (comment,) = fake.comments
    assert comment["body"].startswith("<!-- phasegate:report -->")
    assert "[workflow run](https://github.example/octo/app/actions/runs/99)" in comment["body"]


def test_a_failing_project(
    tmp_path: Path,
    environment: dict[str, str],
    github: tuple[FakeGitHub, str],  # noqa: F811
) -> None:
    fake, _url = github
    run = act(sample(tmp_path, failing=True), environment)
    failed = run.failed
    assert failed is not None
    assert failed.name == "Fail when the gate is insufficient"
    assert failed.returncode == 1
    assert "::error title=phasegate::the gate is insufficient (score 0.5000)" in failed.stdout
    assert run.outputs["verdict"] == "insufficient"
    assert run.outputs["exit-status"] == "1"
    assert run.outputs["next-action"] == "route_to_debug"
    assert "#### Failing tests (1)" in run.summary
    assert "<code>test_calc.py::test_add</code>: AssertionError: assert (1 + 1) == 3" in run.summary
    publish = run.step("Publish the reports")
    assert "::error file=test_calc.py,line=2,title=phasegate tests%3A test-failed" in publish.stdout
    assert "insufficient" in fake.comments[0]["body"]
    # a second push updates the same comment instead of adding one
    act(sample(tmp_path / "again", failing=True), environment)
    assert len(fake.comments) == 1


def test_a_run_that_judged_nothing_fails_unless_the_gate_input_is_record(
    tmp_path: Path, environment: dict[str, str]
) -> None:
    """Review finding 17's rest: the last step passed a run with status 0 and no verdict."""
    # A `--gate=record` slipped into the pytest arguments: the gate asked for is not judged.
    run = act(sample(tmp_path, failing=False), environment, **{"pytest-args": "--gate=record"})
    failed = run.failed
    assert failed is not None
    assert failed.name == "Fail when the gate is insufficient"
    assert (run.outputs["exit-status"], run.outputs["verdict"]) == ("0", "none")
    assert "::error title=phasegate::no verdict was written: the gate small was not judged" in (
        failed.stdout
    )
    # Asked for by the workflow, a run that only records passes.
    recorded = act(sample(tmp_path / "record", failing=False), environment, gate="record")
    assert recorded.failed is None, recorded.failed
    assert recorded.outputs["verdict"] == "none"


def test_a_fork_gets_no_comment_and_says_why(
    tmp_path: Path,
    environment: dict[str, str],
    github: tuple[FakeGitHub, str],  # noqa: F811
) -> None:
    fake, _url = github
    event = Path(environment["GITHUB_EVENT_PATH"])
    payload = json.loads(event.read_text())
    payload["pull_request"]["head"]["repo"]["full_name"] = "someone/fork"
    event.write_text(json.dumps(payload))
    run = act(sample(tmp_path, failing=False), environment)
    assert run.failed is None
    assert "a pull request from a fork gets a read-only token" in (
        run.step("Comment on the pull request").stdout
    )
    assert fake.comments == []


#: A module of the change that approves HEAD when it is imported (as a ``-p`` plugin).
APPROVES_ON_IMPORT = """
import subprocess
import sys

subprocess.run(
    [sys.executable, "-m", "phasegate", "review", "record", "--subject", "pr",
     "--status", "approved", "--reviewer", "lead", "--commit", "HEAD"],
    check=True, capture_output=True,
)
"""


def test_a_review_written_before_phasegate_keeps_the_file_is_refused(
    tmp_path: Path, environment: dict[str, str]
) -> None:
    """Review s17d, 2: a ``-p`` plugin of the change's ``addopts`` is imported before
    phasegate keeps the reviews file, and its approval of HEAD was believed (sufficient). The
    action hands the file's digest over, taken before pytest starts."""
    project = sample(tmp_path, failing=False)
    (project / "ci" / "small.toml").write_text('name = "small"\n[checks.review]\n')
    settings = (project / "pyproject.toml").read_text()
    ini = '\n[tool.pytest.ini_options]\naddopts = "-p approve_on_import"\n'
    (project / "pyproject.toml").write_text(settings + ini)
    (project / "approve_on_import.py").write_text(APPROVES_ON_IMPORT)
    git(project, "init", "-q", "-b", "main")
    git(project, "add", "-A")
    git(project, "commit", "-qm", "feat: calc")
    run = act(project, environment)
    gate = run.step("Run the gate")
    assert run.outputs["exit-status"] == "4", gate.stdout
    assert "reviews.jsonl changed after it was handed over" in gate.stdout + gate.stderr
    failed = run.failed  # no verdict and no report: nothing to publish, the job fails
    assert failed is not None
    assert failed.name == "Publish the reports"
    assert run.outputs["verdict"] == ""


def test_a_change_adding_a_phasegate_package_does_not_run_as_the_judge(
    tmp_path: Path, environment: dict[str, str]
) -> None:
    """Review s17d, 7: the steps ran ``python -m phasegate`` in the checked-out change, which
    puts it first on ``sys.path``: its own ``phasegate/`` ran as ``review import-pr`` and
    ``report github`` (it could write ``verdict=sufficient``) and, under ``python -m pytest``,
    as the plugin. The action refuses such a working directory at its first step."""
    project = sample(tmp_path, failing=True)
    (project / "phasegate").mkdir()
    for name in ("__init__.py", "__main__.py"):
        (project / "phasegate" / name).write_text('print("HIJACKED")\n')
    run = act(project, environment)
    assert all("HIJACKED" not in step.stdout + step.stderr for step in run.steps), run.steps
    failed = run.failed
    assert failed is not None
    assert (failed.name, failed.returncode) == ("Install phasegate", 4)
    assert "which Python would import in place of the installed phasegate" in failed.stdout


def test_a_shard_judges_nothing_and_passes_with_failing_tests(
    tmp_path: Path, environment: dict[str, str]
) -> None:
    run = act(sample(tmp_path, failing=True), environment, shard="1/1")
    assert run.failed is None
    assert run.outputs["verdict"] == "none"
    assert run.step("Publish the reports").outputs["artifact-name"] == "phasegate-shard-1-of-1"
    report = json.loads(Path(run.outputs["report-path"], "report.json").read_text())
    assert report["shard"]["index"] == 1

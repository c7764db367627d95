"""The phase, review and task commands, run as a user runs them (in-process ``main``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from phasegate.cli import main
from tests.conftest import git

PYPROJECT = """\
[project]
name = "app"

[tool.phasegate]
gate_paths = ["gates"]
plugins = ["observer_plugin"]

[tool.phasegate.workflow]
members = ["ann", "bob"]
retry = { retry_delay_s = 0 }
"""

OBSERVER = """\
import json
from pathlib import Path
from phasegate.hookspecs import hookimpl

@hookimpl
def phasegate_on_event(event):
    with open(Path(".phasegate") / "observed.txt", "a") as handle:
        handle.write(event.name + "\\n")
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    (tmp_path / "observer_plugin.py").write_text(OBSERVER)
    (tmp_path / "gates").mkdir()
    (tmp_path / "gates" / "compiles.toml").write_text('name = "compiles"\n[checks.syntax]\n')
    (tmp_path / "workflows").mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("observer_plugin", None)
    return tmp_path


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_start_status_and_advance_through_golden_path(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "pyproject.toml").write_text(
        PYPROJECT.replace(
            "[tool.phasegate.workflow]", '[tool.phasegate.workflow]\npaths = ["workflows"]'
        )
    )
    (project / "workflows" / "golden-path.toml").write_text(
        'name = "golden-path"\nroles = ["architect", "engineer", "reviewer"]\n'
        'phases = ["design", "implement", "review"]\n'
        '[phase.implement]\nexit_gate = "compiles"\n'
        '[phase.review]\nreview = true\non_reject = "implement"\n'
    )
    code, out, _ = run(capsys, "phase", "start", "golden-path", "--id", "gp", "--by", "ann")
    assert code == 0
    assert "gp: golden-path instance RUNNING in design" in out
    assert "architect: ann" in out

    code, out, _ = run(capsys, "phase", "status", "gp", "--json")
    status = json.loads(out)
    assert status["instance"]["phase"] == "design"
    assert status["instance"]["roles"] == {
        "architect": ["ann"],
        "engineer": ["bob"],
        "reviewer": ["ann"],
    }

    assert run(capsys, "phase", "advance", "gp")[0] == 0
    (project / "src").mkdir()
    (project / "src" / "app.py").write_text("def broken(:\n")
    code, out, _ = run(capsys, "phase", "advance", "gp")
    assert code == 1
    assert "gp: exit gate compiles is insufficient" in out
    assert "halted in implement" in out
    assert "src/app.py" in out

    (project / "src" / "app.py").write_text("def fixed():\n    return 1\n")
    code, out, _ = run(capsys, "phase", "advance", "gp", "--json")
    assert code == 0
    moved = json.loads(out)
    assert (moved["from_phase"], moved["phase"], moved["gate"]["sufficient"]) == (
        "implement", "review", True,
    )  # fmt: skip

    code, out, _ = run(capsys, "phase", "advance", "gp")
    assert code == 1
    assert "needs a peer review" in out
    code, out, _ = run(
        capsys, "review", "record", "--instance", "gp", "--subject", "gp",
        "--status", "approved", "--reviewer", "bob", "--commit", "abc1234",
    )  # fmt: skip
    assert code == 0
    assert "approved by bob -> accepted" in out
    code, out, _ = run(capsys, "phase", "advance", "gp")
    assert (code, "COMPLETE" in out) == (0, True)

    observed = (project / ".phasegate" / "observed.txt").read_text().splitlines()
    assert "workflow.golden-path.gp.started" in observed
    assert "workflow.golden-path.gp.review.approved" in observed
    assert observed[-1] == "workflow.golden-path.gp.complete"
    events = (project / ".phasegate" / "events.jsonl").read_text().splitlines()
    logged = [json.loads(line)["name"] for line in events]
    assert logged == observed
    review = json.loads((project / ".phasegate" / "reviews.jsonl").read_text().splitlines()[-1])
    assert (review["reviewer"], review["subject"], review["commit"], review["outcome"]) == (
        "bob", "gp", "abc1234", "accepted",
    )  # fmt: skip
    assert review["recorded_at"]


def test_an_unknown_review_status_is_a_usage_error_naming_value_and_allowed(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(
        capsys, "review", "record", "--subject", "PR 4", "--status", "lgtm", "--reviewer", "bob"
    )
    assert code == 4
    assert "unknown review status 'lgtm'; allowed: approved, changes_requested, rejected" in err
    assert not (project / ".phasegate" / "reviews.jsonl").exists()


def _github_event(state: str) -> dict[str, object]:
    return {
        "action": "submitted",
        "review": {
            "state": state,
            "body": "Looks good",
            "commit_id": "0123456789abcdef0123456789abcdef01234567",
            "submitted_at": "2030-05-01T10:00:00Z",
            "user": {"login": "octocat"},
            "html_url": "https://github.com/o/r/pull/12#pullrequestreview-1",
        },
        "pull_request": {"number": 12},
    }


@pytest.mark.parametrize(
    ("state", "status", "outcome"),
    [("APPROVED", "approved", "accepted"), ("CHANGES_REQUESTED", "changes_requested", "rework")],
)
def test_github_reviews_are_imported_with_reviewer_pr_commit_and_time(
    project: Path, capsys: pytest.CaptureFixture[str], state: str, status: str, outcome: str
) -> None:
    event = project / "event.json"
    event.write_text(json.dumps(_github_event(state)))
    code, out, _ = run(capsys, "review", "import-github", str(event))
    assert code == 0
    assert f"PR #12 at 0123456789ab: {status} by octocat -> {outcome}" in out
    record = json.loads((project / ".phasegate" / "reviews.jsonl").read_text())
    assert record["source"] == "github"
    assert record["pull_request"] == 12
    assert record["commit"].startswith("0123456789abcdef")
    assert record["recorded_at"].startswith("2030-05-01T10:00:00")


def test_a_commented_github_review_is_skipped_and_nothing_is_written(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    event = project / "event.json"
    event.write_text(json.dumps(_github_event("COMMENTED")))
    code, out, _ = run(capsys, "review", "import-github", str(event))
    assert code == 0
    assert "skipped: a COMMENTED review carries no outcome" in out
    assert not (project / ".phasegate" / "reviews.jsonl").exists()


def test_a_payload_that_is_not_a_review_event_is_a_usage_error(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    event = project / "push.json"
    event.write_text(json.dumps({"ref": "refs/heads/main"}))
    code, _, err = run(capsys, "review", "import-github", str(event))
    assert code == 4
    assert "key review is missing; this is not a pull_request_review event payload" in err


def test_a_review_whose_commit_is_not_text_is_a_usage_error_naming_the_key(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    payload = _github_event("APPROVED")
    review = payload["review"]
    assert isinstance(review, dict)
    review["commit_id"] = 1234
    event = project / "event.json"
    event.write_text(json.dumps(payload))
    code, _, err = run(capsys, "review", "import-github", str(event))
    assert code == 4
    assert "key review.commit_id = 1234 is not text" in err
    assert not (project / ".phasegate" / "reviews.jsonl").exists()


def test_a_corrupt_instance_file_is_moved_aside_and_nothing_is_lost(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "phase", "start", "edrr", "--id", "keep")[0] == 0
    assert run(capsys, "phase", "start", "edrr", "--id", "torn")[0] == 0
    torn = project / ".phasegate" / "workflows" / "torn.json"
    torn.write_text('{"schema_version": "1.0", "id": "torn", "sta')
    code, _, err = run(capsys, "phase", "status", "torn")
    assert code == 4
    assert "torn.json could not be read (it is not valid JSON" in err
    assert "moved aside to torn.json.corrupt-" in err
    (aside,) = torn.parent.glob("torn.json.corrupt-*")
    assert aside.read_text() == '{"schema_version": "1.0", "id": "torn", "sta'
    assert not torn.exists()
    code, out, _ = run(capsys, "phase", "list")
    assert code == 0
    assert "keep" in out
    assert "torn" not in out  # it is aside now, kept for repair


def test_usage_errors_name_the_bad_value(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "phase", "start", "edrr", "--id", "bad id")
    assert (code, "instance id 'bad id' is not allowed" in err) == (4, True)
    code, _, err = run(capsys, "phase", "start", "kanban")
    assert code == 4
    assert "unknown workflow 'kanban'; known workflows: dptr, edrr, golden-path, sdlc" in err
    assert run(capsys, "phase", "start", "edrr", "--id", "w")[0] == 0
    code, _, err = run(capsys, "phase", "rewind", "w", "--to", "RETROSPECT", "--reason", "x")
    assert code == 4
    assert "a rewind goes to an earlier phase" in err
    code, _, err = run(capsys, "phase", "spawn", "w", "parser")
    assert (code, "subtask 'parser' is not NAME=FILE[,FILE...]" in err) == (4, True)
    code, _, err = run(capsys, "task", "add", "x", "--priority", "urgent")
    assert (code, "unknown priority 'urgent'" in err) == (4, True)


def test_the_task_commands_move_a_task_through_the_queue(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "task", "add", "low one", "--id", "l1", "--priority", "low")[0] == 0
    assert run(capsys, "task", "add", "hot one", "--id", "h1", "--priority", "critical")[0] == 0
    code, out, _ = run(capsys, "task", "claim", "--worker", "w1", "--json")
    assert code == 0
    assert json.loads(out)["task"]["id"] == "h1"
    assert run(capsys, "task", "review", "h1", "--by", "w1")[0] == 0
    code, out, _ = run(capsys, "task", "reject", "h1", "--feedback", "no tests", "--by", "sup")
    assert (code, "h1: rejected" in out) == (0, True)
    code, out, _ = run(capsys, "task", "show", "h1", "--json")
    shown = json.loads(out)
    assert shown["status"] == "rejected"
    assert shown["task"]["retries"] == 1
    assert [m["to_status"] for m in shown["history"]["transitions"]] == [
        "queue", "running", "review", "rejected",
    ]  # fmt: skip
    assert run(capsys, "task", "claim", "--worker", "w2")[0] == 0
    assert run(capsys, "task", "claim", "--worker", "w2")[0] == 0
    code, out, _ = run(capsys, "task", "claim", "--worker", "w2")
    assert (code, out.strip()) == (1, "no task is waiting")


def test_list_marks_stale_instances(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "phase", "start", "edrr", "--id", "old")[0] == 0
    assert run(capsys, "phase", "start", "edrr", "--id", "new")[0] == 0
    path = project / ".phasegate" / "workflows" / "old.json"
    data = json.loads(path.read_text())
    data["updated_at"] = "2020-01-01T00:00:00Z"
    path.write_text(json.dumps(data))
    code, out, _ = run(capsys, "phase", "list", "--stale", "--json")
    assert code == 0
    assert [(row["id"], row["stale"]) for row in json.loads(out)] == [("old", True)]
    code, out, _ = run(capsys, "phase", "status", "old")
    assert "STALE" in out


def test_task_claim_refuses_a_task_whose_dependencies_are_not_done(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "task", "add", "base", "--id", "A", "--priority", "LOW")[0] == 0
    code, out, _ = run(capsys, "task", "add", "top", "--id", "B", "--depends-on", "A")
    assert (code, "B: queue [MEDIUM] top, after A" in out) == (0, True)
    code, _, err = run(capsys, "task", "claim", "--worker", "wes", "--task", "B")
    assert code == 4
    assert (
        "task B cannot be claimed: it depends on A (queue/), which must be in completed/ first"
        in err
    )
    assert run(capsys, "task", "claim", "--worker", "wes")[0] == 0
    code, out, _ = run(capsys, "task", "claim", "--worker", "vic")
    assert code == 1
    assert "no task is ready" in out
    assert "B waits for A (running)" in out
    code, _, err = run(capsys, "task", "add", "x", "--depends-on", "Z")
    assert (code, "depends on Z, which is no task of the queue" in err) == (4, True)
    run(capsys, "task", "ask", "A", "which format?", "--by", "wes")
    code, out, _ = run(capsys, "task", "inbox", "supervisor")
    assert (code, "CLARIFICATION_REQUEST A from wes" in out, "which format?" in out) == (
        0,
        True,
        True,
    )


def test_phase_sweep_retries_then_fails_a_crashed_instance_with_events(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "pyproject.toml").write_text(
        PYPROJECT.replace(
            "[tool.phasegate.workflow]",
            "[tool.phasegate.workflow]\ncrash_timeout_min = 30\nmax_crash_retries = 1",
        )
    )
    assert run(capsys, "phase", "start", "edrr", "--id", "w", "--by", "ann")[0] == 0
    code, out, _ = run(capsys, "phase", "sweep")
    assert (code, "nothing idle past the crash timeout (30 min)" in out) == (0, True)

    def age(hours: int) -> None:
        path = project / ".phasegate" / "workflows" / "w.json"
        data = json.loads(path.read_text())
        data["updated_at"] = f"2020-01-01T{hours:02d}:00:00Z"
        path.write_text(json.dumps(data))

    age(1)
    code, out, _ = run(capsys, "phase", "sweep")
    assert (code, "w: crashed in EXPAND; retried (1 of 1)" in out) == (0, True)
    age(2)
    code, out, _ = run(capsys, "phase", "sweep", "--json")
    assert json.loads(out)["failed"] == ["w"]
    code, out, _ = run(capsys, "phase", "status", "w")
    assert "state:  FAILED" in out
    assert "no sign of life for" in out
    log = (project / ".phasegate" / "events.jsonl").read_text(encoding="utf-8")
    events = [json.loads(line)["name"] for line in log.splitlines()]
    crash_events = [
        name for name in events if name.split(".")[-1] in ("stale", "retried", "failed")
    ]
    assert crash_events == [
        "workflow.edrr.w.stale",
        "workflow.edrr.w.retried",
        "workflow.edrr.w.stale",
        "workflow.edrr.w.failed",
    ]


DESIGN_DOC = "# Login\n\n## Modules\n- codes: checks a code\n"
PLAN_DOC = '[[tasks]]\nid = "T1"\ntitle = "check codes"\nestimate_min = 30\nretries = 1\n'


def test_the_dptr_design_and_plan_loops_from_the_command_line(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "docs" / "design" / "login").mkdir(parents=True)
    (project / "docs" / "plans").mkdir(parents=True)
    (project / "docs" / "design" / "login" / "architecture.md").write_text(DESIGN_DOC)
    (project / "docs" / "design" / "login" / "codes.md").write_text("# codes: six digits\n")
    (project / "docs" / "plans" / "login_plan.toml").write_text(PLAN_DOC)
    assert run(capsys, "phase", "start", "dptr", "--id", "login")[0] == 0
    code, out, _ = run(capsys, "design", "submit", "login", "--by", "dan")
    assert (code, "architecture: submitted (drafts 1" in out) == (0, True)
    code, _, err = run(capsys, "design", "verdict", "login", "ACCEPT", "--by", "dan")
    assert (code, "dan wrote this draft of architecture" in err) == (4, True)
    assert run(capsys, "design", "verdict", "login", "ACCEPT", "--by", "cora")[0] == 0
    code, out, _ = run(capsys, "phase", "advance", "login")
    assert (code, "the design of codes is due from the designer" in out) == (1, True)
    run(capsys, "design", "submit", "login", "--by", "dan")
    code, out, _ = run(capsys, "design", "verdict", "login", "ACCEPT", "--by", "cora")
    assert "design loop done" in out
    assert run(capsys, "phase", "advance", "login")[0] == 0
    code, _, err = run(capsys, "plan", "say", "login", "PA", "--by", "cleo")
    assert (code, "it is the spec agent's turn" in err) == (4, True)
    run(capsys, "plan", "say", "login", "PC", "--by", "sam")
    code, out, _ = run(capsys, "plan", "say", "login", "PA", "--by", "cleo")
    assert "R0|cleo|PA|" in out
    code, out, _ = run(capsys, "phase", "advance", "login")
    assert (code, "login: PLAN -> TDD" in out) == (0, True)
    code, out, _ = run(capsys, "task", "list")
    assert "EXEC_login_T1" in out
    code, out, _ = run(capsys, "phase", "status", "login")
    assert "waiting: task EXEC_login_T1 is in queue/, not completed/" in out
    code, out, _ = run(capsys, "plan", "status", "login")
    assert "accepted: docs/plans/login_plan.toml" in out
    code, out, _ = run(capsys, "design", "status", "login")
    assert (code, out.count("|cora|ACCEPT|")) == (0, 2)  # status shows every turn
    code, out, _ = run(capsys, "design", "status", "login", "--json")
    assert [loop["session"] for loop in json.loads(out).values()] == ["DESIGN_login_DESIGN_1"]
    inst = json.loads((project / ".phasegate" / "workflows" / "login.json").read_text())
    assert inst["tasks"] == ["EXEC_login_T1"]
    assert [(g["gate"], g["sufficient"], g["attempt"]) for g in inst["gate_results"]] == [
        ("sdlc-3", True, 1)
    ]
    assert (project / ".phasegate" / inst["gate_results"][0]["verdict_path"]).is_file()


def test_context_from_start_and_output(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "pyproject.toml").write_text(
        PYPROJECT.replace(
            "[tool.phasegate.workflow]", '[tool.phasegate.workflow]\npaths = ["workflows"]'
        )
    )
    (project / "workflows" / "piped.toml").write_text(
        'name = "piped"\nphases = ["a", "b"]\n[phase.a]\ninputs = { feature = "string" }\n'
        'outputs = { size = "integer" }\n'
    )
    code, _, _ = run(capsys, "phase", "start", "piped", "--id", "p", "--context", "feature=login")
    assert code == 0
    code, out, _ = run(capsys, "phase", "advance", "p")
    assert (code, "a must produce size is missing" in out) == (1, True)
    code, out, _ = run(capsys, "phase", "output", "p", "size=3")
    assert (code, "context has size (in a)" in out) == (0, True)
    assert run(capsys, "phase", "advance", "p")[0] == 0


def test_a_plan_for_spawn_outside_the_project_is_refused(
    project: Path, capsys: pytest.CaptureFixture[str], tmp_path_factory: pytest.TempPathFactory
) -> None:
    elsewhere = tmp_path_factory.mktemp("elsewhere") / "plan.toml"
    elsewhere.write_text("retry_budget = 1\n[[tasks]]\nid = 'T1'\nestimate_min = 5\n")
    assert run(capsys, "phase", "start", "edrr", "--id", "w", "--by", "ann")[0] == 0
    for given in (str(elsewhere), f"../{elsewhere.parent.name}/plan.toml"):
        code, out, err = run(capsys, "phase", "spawn", "w", "--plan", given, "--by", "ann")
        assert (code, out) == (4, "")
        assert f"the plan {given!r} is outside the project root" in err


def test_an_instance_id_that_is_a_path_leaves_no_lock_file_behind(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = "../../../evil"
    for args in (["heartbeat", bad], ["output", bad, "k=1"], ["escalate", bad, "--reason", "x"]):
        code, _, err = run(capsys, "phase", *args, "--by", "ann")
        assert code == 4
        assert f"instance id {bad!r} is not allowed" in err
    assert [p.relative_to(project) for p in project.rglob("*evil*")] == []


def test_a_gate_named_as_a_path_cannot_overwrite_an_instance(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "phase", "start", "edrr", "--id", "w", "--by", "ann")[0] == 0
    instance = project / ".phasegate" / "workflows" / "w.json"
    before = instance.read_bytes()
    (project / "gates" / "sly.toml").write_text('name = "x/../../workflows/w"\n[checks.syntax]\n')
    assert run(capsys, "task", "add", "a", "--id", "A")[0] == 0
    assert run(capsys, "task", "claim", "--worker", "wes")[0] == 0
    assert run(capsys, "task", "review", "A", "--by", "wes")[0] == 0
    code, _, err = run(capsys, "task", "gate", "A", "--gate", "gates/sly.toml", "--by", "sue")
    assert (code, "key name = 'x/../../workflows/w' is not allowed" in err) == (4, True)
    assert instance.read_bytes() == before
    assert not (project / ".phasegate" / "tasks" / "gates").exists()


def test_phase_advance_judges_the_exit_gate_without_the_files_exclude_names(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "pyproject.toml").write_text(
        PYPROJECT.replace("[tool.phasegate]\n", '[tool.phasegate]\nexclude = ["src/generated/*"]\n')
        .replace("[tool.phasegate.workflow]", '[tool.phasegate.workflow]\npaths = ["workflows"]')
    )  # fmt: skip
    (project / "workflows" / "build.toml").write_text(
        'name = "build"\nroles = ["architect", "engineer", "reviewer"]\n'
        'phases = ["implement", "review"]\n[phase.implement]\nexit_gate = "compiles"\n'
    )
    (project / "src" / "generated").mkdir(parents=True)
    (project / "src" / "generated" / "parser.py").write_text("def generated(:\n")
    (project / "src" / "app.py").write_text("def broken(:\n")
    assert run(capsys, "phase", "start", "build", "--id", "b", "--by", "ann")[0] == 0

    code, out, _ = run(capsys, "phase", "advance", "b")
    assert code == 1
    assert "src/app.py" in out
    assert "src/generated" not in out  # as `pytest --gate` and `phasegate gate run` judge it

    (project / "src" / "app.py").write_text("def fixed():\n    return 1\n")
    code, out, _ = run(capsys, "phase", "advance", "b", "--json")
    assert code == 0, out
    assert json.loads(out)["gate"]["sufficient"] is True


def test_a_review_recorded_for_a_short_id_keeps_the_full_commit_id(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Review s17r: the review check matches full ids only, so ``--commit`` given as a short
    id (or ``HEAD``) is resolved by git to the commit it names when it names one."""
    git(project, "init", "-q")
    git(project, "add", ".")
    git(project, "commit", "-qm", "feat: app")
    head = git(project, "rev-parse", "HEAD")
    for given in (head[:7], "HEAD"):
        code, _, _ = run(
            capsys, "review", "record", "--subject", "PR 4", "--status", "approved",
            "--reviewer", "bob", "--commit", given,
        )  # fmt: skip
        assert code == 0
        review = json.loads((project / ".phasegate" / "reviews.jsonl").read_text().splitlines()[-1])
        assert review["commit"] == head

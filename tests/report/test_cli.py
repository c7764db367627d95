"""phasegate report markdown|annotations|github on an artifacts folder."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from phasegate.cli import main
from tests.report.conftest import sample_verdict


def test_markdown_for_a_comment_and_a_summary(
    artifacts: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["report", "markdown", "--dir", str(artifacts)]) == 0
    assert "phasegate gate `default`: **insufficient**" in capsys.readouterr().out
    out = tmp_path / "summary.md"
    assert (
        main(
            [
                "report",
                "markdown",
                "--dir",
                str(artifacts),
                "--target",
                "summary",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    assert "#### Checks" in out.read_text()


def test_annotations_print_workflow_commands(
    artifacts: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["report", "annotations", "--dir", str(artifacts), "--path-prefix", ""]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("::error file=tests/test_core.py,line=12,title=phasegate tests")


def test_github_publishes_summary_outputs_and_the_pull_request(
    artifacts: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    summary, outputs, event = tmp_path / "summary", tmp_path / "outputs", tmp_path / "event.json"
    summary.write_text("earlier step\n")
    event.write_text(json.dumps({"pull_request": {"number": 7, "head": {"sha": "c" * 40}}}))
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    monkeypatch.setenv("GITHUB_OUTPUT", str(outputs))
    monkeypatch.setenv("GITHUB_EVENT_PATH", str(event))
    monkeypatch.setenv("GITHUB_SERVER_URL", "https://github.example")
    monkeypatch.setenv("GITHUB_REPOSITORY", "octo/app")
    monkeypatch.setenv("GITHUB_RUN_ID", "42")
    assert main(["report", "github", "--dir", str(artifacts), "--path-prefix", ""]) == 0
    text = summary.read_text()
    assert text.startswith("earlier step\n<!-- phasegate:report -->")
    assert "[workflow run](https://github.example/octo/app/actions/runs/42)" in text
    values = dict(line.split("=", 1) for line in outputs.read_text().splitlines())
    assert values["verdict"] == "insufficient"
    assert values["score"] == "0.6100"
    assert Path(values["sarif-path"]).is_file()
    assert Path(values["comment-path"]).read_text().startswith("<!-- phasegate:report -->")
    assert json.loads((artifacts / "pr.json").read_text()) == {"number": 7, "head_sha": "c" * 40}
    assert "::error file=tests/test_core.py" in capsys.readouterr().out


def checked_out_with(
    artifacts: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[Path, str]:
    """A project of one commit with ``artifacts`` as its (untracked) artifacts folder, the
    working folder, as the action's publishing step sees it; and its HEAD."""
    import shutil

    from tests.conftest import git

    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text('[project]\nname = "app"\nversion = "1"\n')
    git(project, "init", "-q", "-b", "main")
    git(project, "add", "-A")
    git(project, "commit", "-qm", "feat: first")
    shutil.copytree(artifacts, project / ".phasegate")
    monkeypatch.chdir(project)
    monkeypatch.setenv("GITHUB_OUTPUT", str(tmp_path / "outputs"))
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    return project, git(project, "rev-parse", "HEAD")


def test_github_refuses_the_artifacts_of_another_commit(
    artifacts: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # A verdict committed with the change (or restored) judged another commit: published, a
    # run that ended before judging anything (os._exit(0) in a conftest) would pass on it.
    project, head = checked_out_with(artifacts, tmp_path, monkeypatch)
    assert main(["report", "github", "--path-prefix", ""]) == 4
    assert "judged commit aaaaaaaaaaaa, not the one checked out" in capsys.readouterr().err
    assert "verdict=" not in (tmp_path / "outputs").read_text()
    for name in ("gates/default.json", "report.json"):
        path = project / ".phasegate" / name
        path.write_text(path.read_text().replace("a" * 40, head))
    assert main(["report", "github", "--path-prefix", ""]) == 0


def test_github_refuses_a_verdict_that_names_no_commit_in_a_git_checkout(
    artifacts: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # A planted verdict with its commit taken out is not published in a git checkout.
    project, head = checked_out_with(artifacts, tmp_path, monkeypatch)
    verdict_path = project / ".phasegate" / "gates" / "default.json"
    verdict = json.loads(verdict_path.read_text())
    verdict["commit"] = None
    verdict_path.write_text(json.dumps(verdict))
    report = project / ".phasegate" / "report.json"
    report.write_text(report.read_text().replace("a" * 40, head))
    assert main(["report", "github", "--path-prefix", ""]) == 4
    assert "the verdict names no commit it judged" in capsys.readouterr().err
    assert "verdict=" not in (tmp_path / "outputs").read_text()


def test_github_refuses_a_sufficient_verdict_its_own_checks_contradict(
    artifacts: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Review s17r: a conftest.py replacing ``phasegate.gates.runner.verdict_of`` wrote
    ``sufficient`` beside a failed integrity check; pytest exited 0 (the test skipped). This
    step runs in another process, which the tests' code never ran in."""
    project, head = checked_out_with(artifacts, tmp_path, monkeypatch)
    for name in ("gates/default.json", "report.json"):
        path = project / ".phasegate" / name
        path.write_text(path.read_text().replace("a" * 40, head))
    verdict_path = project / ".phasegate" / "gates" / "default.json"
    verdict = json.loads(verdict_path.read_text())
    verdict.update(verdict="sufficient", score=1.0, reasons=[])
    verdict_path.write_text(json.dumps(verdict))
    assert main(["report", "github", "--path-prefix", ""]) == 4
    err = capsys.readouterr().err
    assert "says sufficient, but phasegate's rules make it insufficient (tests: " in err
    assert "verdict=" not in (tmp_path / "outputs").read_text()
    for check in verdict["checks"]:
        check["requirement"] = "optional"
    verdict_path.write_text(json.dumps(verdict))
    assert main(["report", "github", "--path-prefix", ""]) == 0


def test_github_publishes_a_run_without_a_verdict_of_this_commit(
    artifacts: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # `--gate=record` and a shard judge nothing: their run report (of this commit) is published
    # with verdict=none; e03d6d4 refused it in a git checkout ("the verdict names no commit").
    project, head = checked_out_with(artifacts, tmp_path, monkeypatch)
    for verdict in (project / ".phasegate" / "gates").glob("*.json"):
        verdict.unlink()
    report = project / ".phasegate" / "report.json"
    report.write_text(report.read_text().replace("a" * 40, "b" * 40))
    assert main(["report", "github", "--path-prefix", ""]) == 4  # another commit's run
    assert "judged commit bbbbbbbbbbbb, not the one checked out" in capsys.readouterr().err
    report.write_text(report.read_text().replace("b" * 40, head))
    assert main(["report", "github", "--path-prefix", ""]) == 0
    assert "verdict=none" in (tmp_path / "outputs").read_text()


def test_without_gate_the_verdict_of_the_latest_run_is_used(
    artifacts: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Two gates ran in this folder; report.json is the latest run's (run-1, judged by
    # default), and an older strict verdict of another run must not stand in for it.
    older = sample_verdict().model_copy(update={"gate": "strict", "run_id": "run-0"})
    (artifacts / "gates" / "strict.json").write_text(older.model_dump_json())
    assert main(["report", "markdown", "--dir", str(artifacts)]) == 0
    assert "phasegate gate `default`" in capsys.readouterr().out
    assert main(["report", "markdown", "--dir", str(artifacts), "--gate", "strict"]) == 0
    assert "phasegate gate `strict`" in capsys.readouterr().out
    # Without a report, the newest verdict.
    (artifacts / "report.json").unlink()
    newer = older.model_copy(update={"finished_at": older.finished_at + timedelta(hours=1)})
    (artifacts / "gates" / "strict.json").write_text(newer.model_dump_json())
    assert main(["report", "sarif", "--dir", str(artifacts)]) == 0
    assert main(["report", "markdown", "--dir", str(artifacts)]) == 0
    assert "phasegate gate `strict`" in capsys.readouterr().out


def test_a_verdict_older_than_the_report_is_not_taken_for_its_verdict(
    artifacts: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # The latest run only recorded its tests (or its verdict was not written): a verdict an
    # earlier run left must not be published as this run's.
    run = json.loads((artifacts / "report.json").read_text())
    finished = datetime.fromisoformat(run["finished_at"].replace("Z", "+00:00"))
    (artifacts / "gates" / "default.json").unlink()
    older = sample_verdict().model_copy(
        update={
            "gate": "strict",
            "verdict": "sufficient",
            "run_id": "run-0",
            "finished_at": finished - timedelta(hours=1),
        }
    )
    (artifacts / "gates" / "strict.json").write_text(older.model_dump_json())
    outputs = tmp_path / "outputs"
    monkeypatch.setenv("GITHUB_OUTPUT", str(outputs))
    assert main(["report", "github", "--dir", str(artifacts), "--path-prefix", ""]) == 0
    values = dict(line.split("=", 1) for line in outputs.read_text().splitlines())
    assert values["verdict"] == "none"
    assert main(["report", "markdown", "--dir", str(artifacts)]) == 0
    assert "phasegate gate `strict`" not in capsys.readouterr().out
    assert main(["report", "sarif", "--dir", str(artifacts)]) == 4
    assert "holds no gate verdict of its latest run" in capsys.readouterr().err
    # Asked for by name, it is shown; made after the report (a gate of documents), it is used.
    assert main(["report", "markdown", "--dir", str(artifacts), "--gate", "strict"]) == 0
    assert "phasegate gate `strict`" in capsys.readouterr().out
    later = older.model_copy(update={"finished_at": finished + timedelta(minutes=1)})
    (artifacts / "gates" / "strict.json").write_text(later.model_dump_json())
    assert main(["report", "markdown", "--dir", str(artifacts)]) == 0
    assert "phasegate gate `strict`" in capsys.readouterr().out


def test_a_corrupt_verdict_is_named(artifacts: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (artifacts / "gates" / "default.json").write_text('{"gate": 1}')
    assert main(["report", "sarif", "--dir", str(artifacts)]) == 4
    assert "default.json is not a valid gate-verdict file" in capsys.readouterr().err

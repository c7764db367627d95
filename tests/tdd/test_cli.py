"""``phasegate tdd``: status, rollback, review, accept, the session log and the kata."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from phasegate.cli import main
from tests.conftest import FIXTURES
from tests.tdd.flow import PEEK, POP, POP_CODE, PUSH, STACK, Flow, failed, passed


@pytest.fixture
def flow(tmp_path: Path) -> Flow:
    flow = Flow(tmp_path / "project")
    flow.full_cycle("pop")
    return flow


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(list(args))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_status_shows_the_open_cycles_and_the_next_step(
    flow: Flow, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _err = run(capsys, "tdd", "status", "--project", str(flow.root))
    assert status == 0
    lines = out.splitlines()
    assert lines[0].endswith(".phasegate/tdd/ledger.jsonl (3 entries)")
    assert lines[1:] == [
        "last green state: run run03 (GREEN), 3 tests passed",
        "open cycles (1; 0 closed):",
        "  pop: green, 1 test(s), round 1",
        f"      {POP}",
        "      next: refactor (pytest --tdd=refactor), review (phasegate tdd review pop "
        "--approved --reviewer NAME), or start the next red",
        "last run: run03 GREEN passed (GC)",
    ]


def test_status_as_json_and_rebuilt(flow: Flow, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _err = run(
        capsys, "tdd", "status", "--json", "--rebuild", "--project", str(flow.root)
    )
    assert status == 0
    state = json.loads(out)
    assert (state["kind"], state["cycles"]["pop"]["status"]) == ("tdd-state", "green")


def test_status_of_a_new_project_says_where_to_start(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _err = run(capsys, "tdd", "status", "--project", str(tmp_path))
    assert status == 0
    assert "last green state: none yet (start with: pytest --tdd=green)" in out


def test_review_and_its_usage_errors(flow: Flow, capsys: pytest.CaptureFixture[str]) -> None:
    project = ["--project", str(flow.root)]
    status, _out, err = run(
        capsys, "tdd", "review", "nope", "--approved", "--reviewer", "a", *project
    )
    assert status == 4
    assert "phasegate: error: no cycle named 'nope' in the ledger (cycles: pop)" in err
    with pytest.raises(SystemExit) as exited:
        main(["tdd", "review", "pop", "--reviewer", "ana", *project])
    assert exited.value.code == 4
    assert (
        "one of the arguments --approved --changes-requested is required" in capsys.readouterr().err
    )
    status, out, _err = run(
        capsys, "tdd", "review", "pop", "--changes-requested", "--reviewer", "ana", *project
    )
    assert (status, out) == (
        0,
        "phasegate tdd review: cycle pop changes_requested by ana; the cycle is green, round 2\n",
    )


def test_rollback_refused_changes_nothing_and_exits_1(
    flow: Flow, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _err = run(capsys, "tdd", "rollback", "--project", str(flow.root))
    assert status == 1
    assert out.splitlines() == [
        "phasegate: rollback refused: nothing to roll back: no refactor has failed since the "
        "last green state (the last run (run03, green) passed)",
        "phasegate: nothing was changed",
    ]


def test_rollback_dry_run_then_for_real(flow: Flow, capsys: pytest.CaptureFixture[str]) -> None:
    flow.write("src/stack.py", STACK + POP_CODE.replace("pop()", "pop(0)"))
    flow.run("refactor", passed(PUSH), passed(PEEK), failed(POP))
    project = ["--project", str(flow.root)]
    status, out, _err = run(capsys, "tdd", "rollback", "--dry-run", *project)
    assert (status, out.splitlines()[1:]) == (0, ["  restore src/stack.py"])
    assert "pop(0)" in (flow.root / "src/stack.py").read_text()
    status, out, _err = run(capsys, "tdd", "rollback", *project)
    assert status == 0
    assert "  restored src/stack.py" in out.splitlines()
    assert (flow.root / "src/stack.py").read_text() == STACK + POP_CODE


def test_accept_note_and_log(flow: Flow, capsys: pytest.CaptureFixture[str]) -> None:
    project = ["--project", str(flow.root)]
    status, out, _err = run(
        capsys,
        "tdd",
        "accept",
        "tests/test_stack.py::test_old",
        "--reason",
        "renamed",
        "--by",
        "ana",
        *project,
    )
    assert (status, out) == (
        0,
        "phasegate tdd accept: tests/test_stack.py::test_old (renamed; by ana)\n",
    )
    status, out, _err = run(
        capsys, "tdd", "note", "pop", "refactored it", "--actor", "de", "--status", "RIC", *project
    )
    assert status == 0
    assert "the ledger has no RIC for pop: the claim is marked unconfirmed" in out
    status, out, _err = run(capsys, "tdd", "log", "pop", *project)
    lines = out.splitlines()
    assert lines[-1].endswith("pop R1 de RIC (NOT in the ledger): refactored it")
    assert " pop R1 pytest GC: green: cycle pop green" in lines[1]
    status, out, _err = run(capsys, "tdd", "log", "pop", "--json", *project)
    assert [json.loads(line)["status"] for line in out.splitlines()] == ["RC", "GC", "RIC"]
    status, _out, err = run(
        capsys, "tdd", "note", "pop", "x", "--actor", "de", "--status", "OK", *project
    )
    assert status == 4
    assert "--status 'OK' is not a known status" in err


def test_the_kata_is_copied_whole_and_not_over_a_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "kata"
    status, out, _err = run(capsys, "tdd", "kata", "--into", str(target))
    assert status == 0
    assert f"copied to {target}; next: cd {target} && pytest --tdd=green" in out
    copied = sorted(p.relative_to(target).as_posix() for p in target.rglob("*") if p.is_file())
    original = sorted(
        p.relative_to(FIXTURES / "kata").as_posix()
        for p in (FIXTURES / "kata").rglob("*")
        if p.is_file()
    )
    assert copied == original
    status, _out, err = run(capsys, "tdd", "kata", "--into", str(target))
    assert status == 4
    assert "already exists" in err


def test_a_project_that_is_not_a_folder_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, _out, err = run(capsys, "tdd", "status", "--project", str(tmp_path / "missing"))
    assert status == 4
    assert "is not a folder" in err


def test_the_artifacts_folder_can_be_chosen(flow: Flow, capsys: pytest.CaptureFixture[str]) -> None:
    other = flow.root / "elsewhere"
    status, out, _err = run(
        capsys, "tdd", "status", "--project", str(flow.root), "--phasegate-dir", str(other)
    )
    assert status == 0
    assert "(0 entries)" in out.splitlines()[0]

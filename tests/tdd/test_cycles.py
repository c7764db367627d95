"""Reviews, accepted tests and the session log: what people and agents record about cycles."""

from __future__ import annotations

from pathlib import Path

import pytest

from phasegate.errors import UsageError
from tests.tdd.flow import POP, POP_TEST, TESTS, Flow, failed


@pytest.fixture
def flow(tmp_path: Path) -> Flow:
    flow = Flow(tmp_path)
    flow.full_cycle("pop")
    return flow


def test_changes_requested_keeps_the_cycle_open_for_another_round(flow: Flow) -> None:
    _entry, state = flow.project.review("pop", "changes_requested", "qa-agent", "rename pop")
    cycle = state.cycles["pop"]
    assert (cycle.status, cycle.round) == ("green", 2)
    _entry, state = flow.project.review("pop", "approved", "qa-agent")
    assert state.cycles["pop"].status == "closed"
    assert state.cycles["pop"].closed_by == "review by qa-agent"


@pytest.mark.parametrize(
    ("cycle", "reviewer", "message"),
    [
        ("nope", "ana", "no cycle named 'nope' in the ledger (cycles: pop)"),
        ("pop", "  ", "--reviewer must name who reviewed"),
    ],
)
def test_review_errors_name_the_problem(
    flow: Flow, cycle: str, reviewer: str, message: str
) -> None:
    with pytest.raises(UsageError, match=message.replace("(", r"\(").replace(")", r"\)")):
        flow.project.review(cycle, "approved", reviewer)


def test_a_red_cycle_cannot_be_reviewed(flow: Flow) -> None:
    flow.project.review("pop", "approved", "ana")
    flow.write("tests/test_stack.py", TESTS + POP_TEST + "\ndef test_more():\n    assert 0\n")
    flow.run("red", failed("tests/test_stack.py::test_more"), cycle="more")
    with pytest.raises(UsageError, match="cycle more is red: a cycle is reviewed once it is green"):
        flow.project.review("more", "approved", "ana")


def test_accept_needs_node_ids_a_reason_and_a_name(flow: Flow) -> None:
    with pytest.raises(UsageError, match="is not a test node id"):
        flow.project.accept(["tests/test_stack.py"], "why", "ana")
    with pytest.raises(UsageError, match="--reason must say why"):
        flow.project.accept([POP], " ", "ana")
    entry, state = flow.project.accept([POP], "renamed from test_take", "ana")
    assert state.accepted_tests == {POP: "renamed from test_take"}
    assert entry.by == "ana"


def test_every_judged_run_is_an_observation_in_its_cycles_session(flow: Flow) -> None:
    assert not flow.project.store.path("tdd/log.jsonl").exists()  # derived from the ledger
    observations = flow.project.session_log("pop")
    assert [(o.round, o.actor, o.status) for o in observations] == [
        (0, "pytest", "RC"),
        (1, "pytest", "GC"),
    ]
    assert observations[1].run_id == "run03"
    assert observations[1].content.startswith("green: cycle pop green")
    assert [o.status for o in flow.project.session_log("-")] == ["PASSED"]


def test_a_claimed_status_is_checked_against_the_ledger(flow: Flow) -> None:
    backed = flow.project.note("pop", "de-agent", "GC", "pop is implemented")
    assert (backed.confirmed, backed.round) == (True, 1)
    claimed = flow.project.note("pop", "de-agent", "RIC", "refactored", round_=2)
    assert (claimed.confirmed, claimed.round) == (False, 2)
    plain = flow.project.note("pop", "qa-agent", "note", "looks fine")
    assert plain.confirmed is None
    assert [o.actor for o in flow.project.session_log("pop")][-3:] == [
        "de-agent",
        "de-agent",
        "qa-agent",
    ]


def test_a_note_with_an_unknown_status_is_refused(flow: Flow) -> None:
    with pytest.raises(UsageError, match="--status 'DONE' is not a known status; allowed: RC, GC"):
        flow.project.note("pop", "de-agent", "DONE", "finished")


def test_a_review_is_logged_for_its_cycle(flow: Flow) -> None:
    flow.project.review("pop", "approved", "qa-agent", "clean")
    last = flow.project.session_log("pop")[-1]
    assert (last.actor, last.status, last.content) == ("qa-agent", "approved", "clean")

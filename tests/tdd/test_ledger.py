"""The ledger: append-only, corrupt lines kept aside, the state always rebuildable from it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from phasegate.errors import SchemaVersionError
from phasegate.model.tdd import LedgerLine, TddState
from phasegate.tdd.ledger import Ledger
from phasegate.tdd.state import derive, load_state
from tests.tdd.flow import POP, POP_CODE, POP_TEST, STACK, TESTS, Flow, failed, passed


@pytest.fixture
def walked(tmp_path: Path) -> Flow:
    """A ledger with a starting point, a red, a green and a review."""
    flow = Flow(tmp_path)
    flow.full_cycle("pop")
    flow.project.review("pop", "changes_requested", "ana", "name the helper")
    return flow


def ledger_lines(flow: Flow) -> list[str]:
    return flow.project.ledger.path.read_text(encoding="utf-8").splitlines()


def test_every_run_is_one_line_with_what_the_issue_asks_for(walked: Flow) -> None:
    lines = ledger_lines(walked)
    assert [json.loads(line)["kind"] for line in lines] == [
        "tdd-run",
        "tdd-run",
        "tdd-run",
        "tdd-review",
    ]
    red = json.loads(lines[1])
    assert red["run_id"] == "run02"
    assert (red["phase"], red["cycles"], red["status"]) == ("red", ["pop"], ["RC"])
    assert red["command"] == ["pytest", "--tdd=red"]
    assert len(red["content_hash"]) == 64
    assert set(red["files"]) == {"source", "tests"}
    assert red["files"]["source"].keys() == {"src/stack.py"}
    by_id = {test["nodeid"]: test for test in red["tests"]}
    assert by_id[POP] == {
        "nodeid": POP,
        "outcome": "failed",
        "failure_class": "assertion",
        "right_reason": True,
        "detail": "AssertionError: assert None == 2",
    }
    assert "time" in red
    assert "git" not in red  # null fields are left out, and read back as null


def test_the_cached_state_equals_a_rebuild_from_the_ledger(walked: Flow) -> None:
    cached = walked.project.state()
    rebuilt = walked.project.state(rebuild=True)
    assert cached.model_dump(exclude={"ledger"}) == rebuilt.model_dump(exclude={"ledger"})
    assert rebuilt.cycles["pop"].round == 2
    assert rebuilt.cycles["pop"].reviews[0].status == "changes_requested"


def test_the_state_survives_losing_its_cache(walked: Flow) -> None:
    before = walked.project.state().model_dump(exclude={"ledger"})
    walked.project.store.path("tdd/state.json").unlink()
    after = walked.project.state().model_dump(exclude={"ledger"})
    assert after == before


def test_appended_entries_are_read_without_rereading_the_ledger(
    walked: Flow, monkeypatch: pytest.MonkeyPatch
) -> None:
    walked.project.review("pop", "approved", "ana")
    walked.project.state()  # the cache covers the whole ledger
    walked.write("tests/test_stack.py", TESTS + POP_TEST + "\ndef test_more():\n    assert 0\n")

    def no_full_read(self: Ledger) -> None:
        raise AssertionError("the whole ledger was read again")

    monkeypatch.setattr(Ledger, "read_all", no_full_read)
    entry = walked.run("red", failed("tests/test_stack.py::test_more"), cycle="more")
    assert entry.verdict == "passed"
    assert load_state(walked.project.ledger).cycles["more"].status == "red"


def test_a_corrupt_line_is_set_aside_and_the_valid_entries_still_count(walked: Flow) -> None:
    path = walked.project.ledger.path
    lines = ledger_lines(walked)
    lines.insert(2, '{"kind": "tdd-run", "run_id": "half')
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    notices: list[str] = []
    walked.project.store._on_notice = notices.append  # type: ignore[method-assign]

    state = walked.project.state()

    assert state.cycles["pop"].status == "green"
    assert state.runs == 3
    (aside,) = path.parent.glob("ledger.jsonl.corrupt-*")
    kept = json.loads(aside.read_text(encoding="utf-8"))
    assert kept["line"] == 3
    assert kept["text"] == '{"kind": "tdd-run", "run_id": "half'
    assert len(ledger_lines(walked)) == 4
    assert "1 unreadable line(s) (line 3)" in notices[0]
    assert "4 valid entries kept" in notices[0]


def test_a_torn_last_line_is_set_aside_before_the_next_append(walked: Flow) -> None:
    walked.project.state()
    path = walked.project.ledger.path
    with open(path, "ab") as handle:
        handle.write(b'{"kind": "tdd-review", "cyc')  # a writer died mid-line
    walked.write(
        "src/stack.py", STACK.replace("_items", "_stack") + POP_CODE.replace("_items", "_stack")
    )
    from tests.tdd.flow import PEEK, PUSH

    entry = walked.run("refactor", passed(PUSH), passed(PEEK), passed(POP))
    assert entry.verdict == "passed"
    assert [json.loads(line)["run_id"] for line in ledger_lines(walked)[-1:]] == ["run04"]
    (aside,) = path.parent.glob("ledger.jsonl.corrupt-*")
    assert '"cyc' in aside.read_text(encoding="utf-8")
    assert walked.project.state(rebuild=True).cycles["pop"].status == "refactored"


def test_a_line_from_a_newer_major_schema_is_refused(walked: Flow) -> None:
    path = walked.project.ledger.path
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(json.dumps({"schema_version": "2.0", "kind": "tdd-run"}) + "\n")
    with pytest.raises(SchemaVersionError, match=r"schema version 2\.0"):
        walked.project.state()


def test_a_line_model_admits_every_kind(walked: Flow) -> None:
    kinds = {LedgerLine.model_validate_json(line).root.kind for line in ledger_lines(walked)}
    assert kinds == {"tdd-run", "tdd-review"}
    state = derive(LedgerLine.model_validate_json(line).root for line in ledger_lines(walked))
    assert isinstance(state, TddState)
    assert state.seen_red == [POP]


def test_a_file_edited_while_the_tests_ran_fails_the_green(tmp_path: Path) -> None:
    from phasegate.tdd.rules import RunFacts
    from tests.tdd.flow import PEEK, PUSH, START

    flow = Flow(tmp_path)
    files = flow.project.hash_tree()  # what the run saw when it started
    flow.write("src/stack.py", STACK + "# edited during the run\n")
    facts = RunFacts(
        run_id="r1",
        time=START,
        requested="green",
        command=["pytest"],
        files=files,
        tests={PUSH: passed(PUSH), PEEK: passed(PEEK)},
    )
    entry = flow.project.record_run(facts).entry
    assert [v.rule for v in entry.violations] == ["changed-during-run"]
    assert entry.violations[0].paths == ["src/stack.py"]
    assert flow.project.state().green is None  # nothing the tests did not see is kept

"""``phasegate tdd verify``: a forged, reordered or truncated ledger is caught.

The chain is checked on ledgers the engine wrote (:mod:`tests.tdd.flow`), then edited as a
forger would; the replay runs real ``pytest --tdd`` cycles in a git project and edits the
ledger with its chain recomputed, so that only running the red again can tell.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from phasegate.cli import main
from phasegate.gates.newcode import NewCode
from phasegate.gates.project import GateProject
from phasegate.gates.protocol import CheckContext, CheckError, NoOptions
from phasegate.model.gate import BaseInfo
from phasegate.store import Store
from phasegate.tdd.check import TddCheck
from phasegate.tdd.ledger import GENESIS
from phasegate.tdd.verify import chain_of
from tests.conftest import git
from tests.tdd.flow import Flow

LEDGER = ".phasegate/tdd/ledger.jsonl"


def lines_of(root: Path) -> list[bytes]:
    return (root / LEDGER).read_bytes().splitlines()


def rules(text: bytes) -> list[tuple[int, str]]:
    _entries, _unchained, problems = chain_of(text)
    return [(p.line, p.rule) for p in problems]


def rechain(lines: list[bytes]) -> bytes:
    """What a forger who knows the scheme writes: every digest recomputed."""
    out: list[bytes] = []
    previous: bytes | None = None
    for line in lines:
        data = json.loads(line)
        data["previous"] = GENESIS if previous is None else hashlib.sha256(previous).hexdigest()
        raw = json.dumps(data, separators=(",", ":")).encode()
        out.append(raw)
        previous = raw
    return b"\n".join(out) + b"\n"


# -- the chain --------------------------------------------------------------------------------


@pytest.fixture
def walked(tmp_path: Path) -> list[bytes]:
    Flow(tmp_path).full_cycle()
    return lines_of(tmp_path)


def test_a_ledger_the_engine_wrote_is_a_sound_chain(walked: list[bytes]) -> None:
    assert len(walked) == 3
    assert json.loads(walked[0])["previous"] == GENESIS
    assert rules(b"\n".join(walked) + b"\n") == []


def test_a_line_removed_in_the_middle_breaks_the_chain(walked: list[bytes]) -> None:
    assert rules(b"\n".join([walked[0], walked[2]])) == [(2, "tdd/ledger-chain-broken")]


def test_the_first_lines_removed_break_the_chain(walked: list[bytes]) -> None:
    text = b"\n".join(walked[1:])
    assert rules(text) == [(1, "tdd/ledger-chain-broken")]
    assert "names a line before it" in chain_of(text)[2][0].message


def test_lines_reordered_break_the_chain(walked: list[bytes]) -> None:
    assert rules(b"\n".join([walked[0], walked[2], walked[1]])) == [
        (2, "tdd/ledger-chain-broken"),
        (3, "tdd/ledger-chain-broken"),
    ]


def test_a_line_edited_breaks_the_chain_at_the_next_line(walked: list[bytes]) -> None:
    edited = walked[1].replace(b'"verdict":"passed"', b'"verdict":"failed"')
    assert edited != walked[1]
    assert rules(b"\n".join([walked[0], edited, walked[2]])) == [(3, "tdd/ledger-chain-broken")]


def test_a_chain_stripped_after_it_began_is_caught(walked: list[bytes]) -> None:
    data = json.loads(walked[2])
    del data["previous"]
    stripped = json.dumps(data).encode()
    assert rules(b"\n".join([walked[0], walked[1], stripped])) == [(3, "tdd/ledger-chain-broken")]


def test_an_old_ledger_reads_as_unchained_and_new_entries_chain_onto_it(tmp_path: Path) -> None:
    flow = Flow(tmp_path)
    flow.start()
    old = [json.loads(line) for line in lines_of(tmp_path)]
    for data in old:
        del data["previous"]
    legacy = "".join(json.dumps(data) + "\n" for data in old)
    (tmp_path / LEDGER).write_text(legacy)
    flow.judge("green")  # a phasegate with the chain appends to the old ledger

    entries, unchained, problems = chain_of((tmp_path / LEDGER).read_bytes())

    assert (len(entries), unchained, problems) == (2, 1, [])
    assert entries[1].entry.previous == hashlib.sha256(legacy.encode().rstrip(b"\n")).hexdigest()


# -- the replay, with real pytest --tdd runs in git ------------------------------------------

CALC = "def add(a, b):\n    return a + b\n"
TESTS = "from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n"
SUB_TEST = "\n\ndef test_sub():\n    from calc import sub\n    assert sub(3, 2) == 1\n"


@pytest.fixture
def cycle(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """A git project with a starting point, a red (sub is missing) and a green."""
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    pytester.makepyprojecttoml(
        '[tool.pytest.ini_options]\npythonpath = ["src"]\ntestpaths = ["tests"]\n'
    )
    (pytester.path / "src").mkdir()
    (pytester.path / "src" / "calc.py").write_text(CALC)
    (pytester.path / "tests").mkdir()
    (pytester.path / "tests" / "test_calc.py").write_text(TESTS)
    git(pytester.path, "init", "-q", "-b", "main")
    git(pytester.path, "add", ".")
    git(pytester.path, "commit", "-qm", "base")
    assert pytester.runpytest("--tdd=green").ret == pytest.ExitCode.OK
    (pytester.path / "tests" / "test_calc.py").write_text(TESTS + SUB_TEST)
    assert pytester.runpytest("--tdd=red").ret == pytest.ExitCode.OK
    (pytester.path / "src" / "calc.py").write_text(CALC + "\n\ndef sub(a, b):\n    return a - b\n")
    assert pytester.runpytest("--tdd=green").ret == pytest.ExitCode.OK
    return pytester


def verify(root: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(["tdd", "verify", "--project", str(root), "--timeout", "120"])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def forge(root: Path, edit: Any) -> None:
    lines = lines_of(root)
    red = json.loads(lines[1])
    edit(red)
    lines[1] = json.dumps(red).encode()
    (root / LEDGER).write_bytes(rechain(lines))


@pytest.mark.slow
def test_an_honest_cycle_verifies(
    cycle: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    red = json.loads(lines_of(cycle.path)[1])
    assert red["phase"] == "red"
    assert git(cycle.path, "cat-file", "-t", red["tree"]) == "tree"
    assert git(cycle.path, "rev-parse", f"refs/phasegate/tdd/{red['run_id']}") == red["tree"]

    code, out = verify(cycle.path, capsys)

    assert code == 0, out
    assert "3 entries (0 written before the chain), 1 red run(s) replayed, 0 problem(s)" in out


@pytest.mark.slow
def test_a_red_whose_reason_was_rewritten_is_caught_by_the_replay(
    cycle: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    def claim_an_assertion(red: dict[str, Any]) -> None:
        (test,) = [t for t in red["tests"] if t["nodeid"].endswith("test_sub")]
        test["failure_class"] = "assertion"

    forge(cycle.path, claim_an_assertion)

    code, out = verify(cycle.path, capsys)

    assert code == 1, out
    assert "[tdd/red-not-reproduced]" in out
    assert (
        "test_sub was recorded as assertion, but in the recorded tree it is missing-symbol" in out
    )


@pytest.mark.slow
def test_a_red_pointed_at_another_tree_is_caught(
    cycle: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    green_tree = json.loads(lines_of(cycle.path)[2])["tree"]

    def point_at_the_green(red: dict[str, Any]) -> None:
        red["tree"] = green_tree

    forge(cycle.path, point_at_the_green)

    code, out = verify(cycle.path, capsys)

    assert code == 1, out
    assert "[tdd/red-tree-mismatch]" in out
    assert "src/calc.py" in out
    assert "[tdd/red-not-reproduced]" in out  # in the green's tree test_sub passes


@pytest.mark.slow
def test_a_tree_the_repository_does_not_have_cannot_be_verified(
    cycle: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    forge(cycle.path, lambda red: red.update(tree="ab" * 20))

    code, out = verify(cycle.path, capsys)

    assert code == 3, out
    assert "could not verify" in out
    assert "refs/phasegate/tdd/*" in out


@pytest.mark.slow
def test_a_red_without_a_tree_in_git_is_not_replayable(
    cycle: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    forge(cycle.path, lambda red: red.pop("tree"))

    code, out = verify(cycle.path, capsys)

    assert code == 1, out
    assert "[tdd/red-not-replayable]" in out


def check_context(root: Path) -> CheckContext:
    base = git(root, "rev-parse", "HEAD")
    return CheckContext(
        project=GateProject(root),
        new_code=NewCode(BaseInfo(ref="main", sha=base, available=True), {}, frozenset()),
        store=Store(root / ".phasegate"),
        timeout_s=120.0,
        in_pull_request=False,
    )


@pytest.mark.slow
def test_the_tdd_check_reports_what_verify_finds_and_errs_when_it_cannot_run(
    cycle: pytest.Pytester,
) -> None:
    honest = TddCheck().measure(check_context(cycle.path), NoOptions())
    assert honest.new_code_metrics["unverified"] == 0, honest.findings
    assert "1 red run(s) replayed in their recorded trees" in honest.summary

    forge(cycle.path, lambda red: red["tests"][-1].update(failure_class="assertion"))
    forged = TddCheck().measure(check_context(cycle.path), NoOptions())
    assert forged.new_code_metrics["unverified"] == 1
    assert forged.findings[0].rule == "tdd/red-not-reproduced"

    forge(cycle.path, lambda red: red.update(tree="ab" * 20))
    with pytest.raises(CheckError, match="could not be verified"):
        TddCheck().measure(check_context(cycle.path), NoOptions())

"""The walk-through of docs/tdd.md, run as a new user would: every command, every verdict.

The console blocks of the "Walk-through" section are the test: each ``$ command`` runs (``cp``
and ``cd`` as a shell would, ``pytest`` in-process with pytester, ``phasegate`` through the
command line's ``main``), its exit status must be the one the comment states, and the lines
shown below it must appear in its output, in order (``...`` stands for anything).
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from phasegate.cli import main
from tests.conftest import REPO_ROOT

DOC = REPO_ROOT / "docs" / "tdd.md"
_EXIT = re.compile(r"^(?P<command>.*?)\s+# exit status (?P<status>\d+)$")


@dataclass
class Step:
    args: list[str]
    exit_status: int | None
    output: list[str] = field(default_factory=list)


def walk_through() -> list[Step]:
    section = DOC.read_text(encoding="utf-8").split("## Walk-through", 1)[1].split("\n## ", 1)[0]
    steps: list[Step] = []
    for block in re.findall(r"```console\n(.*?)```", section, flags=re.S):
        for line in block.splitlines():
            if line.startswith("$ "):
                match = _EXIT.match(line[2:])
                command = match.group("command") if match else line[2:]
                status = int(match.group("status")) if match else None
                steps.append(Step(shlex.split(command), status))
            elif line.strip() and line.strip() != "..." and steps:
                steps[-1].output.append(line)
    return steps


def pattern(line: str) -> str:
    escaped = re.sub(r"([\[\]?*])", r"[\1]", line)
    return escaped.replace("...", "*")


def test_the_walk_through_is_long_enough_to_mean_something() -> None:
    steps = walk_through()
    commands = [" ".join(step.args[:2]) for step in steps]
    assert commands.count("pytest --tdd=red") >= 4
    assert "phasegate tdd rollback" in " | ".join(" ".join(s.args) for s in steps)
    assert all(step.exit_status is not None for step in steps if step.args[0] not in ("cd", "cp"))


def test_the_walk_through_gives_the_verdicts_it_shows(
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Files change faster than byte-code caches notice: write none.
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    for number, step in enumerate(walk_through(), start=1):
        program, args = step.args[0], step.args[1:]
        where = f"step {number}: $ {shlex.join(step.args)}"
        if program == "cd":
            monkeypatch.chdir(args[0])
            continue
        if program == "cp":
            shutil.copyfile(args[0], args[1])
            continue
        if program == "pytest":
            result = pytester.runpytest(*args)
            status, output = int(result.ret), result.outlines + result.errlines
        else:
            assert program == "phasegate", where
            capsys.readouterr()
            status = main(args)
            captured = capsys.readouterr()
            output = captured.out.splitlines() + captured.err.splitlines()
        assert status == step.exit_status, f"{where}\n" + "\n".join(output)
        pytest.LineMatcher(output).fnmatch_lines([pattern(line) for line in step.output])
    ledger = Path(".phasegate/tdd/ledger.jsonl").read_text(encoding="utf-8").splitlines()
    entries = [json.loads(line) for line in ledger]
    assert [(e.get("phase", e["kind"]), e.get("verdict")) for e in entries] == [
        ("green", "passed"),  # the starting point
        ("phase0", "passed"),
        ("red", "passed"),
        ("green", "passed"),
        ("refactor", "passed"),
        ("tdd-review", None),
        ("red", "failed"),  # a red that passes
        ("red", "failed"),  # a red for the wrong reason
        ("red", "passed"),
        ("green", "failed"),  # a green that edits a test
        ("green", "failed"),  # a green that breaks another test
        ("green", "passed"),
        ("refactor", "failed"),  # a refactor that regresses...
        ("tdd-rollback", None),  # ...rolled back
        ("refactor", "passed"),
        ("refactor", "failed"),  # a test green without ever having been red (auto)
    ]

"""``phasegate tdd verify``: the ledger is the chain it claims to be, and its reds were real.

Two proofs, both from what is in the repository:

* **the chain**: each entry names the SHA-256 of the line before it (:mod:`phasegate.tdd.ledger`),
  the first one 64 zeros. A line removed (at the start or in the middle), edited or moved
  breaks the chain there. Entries written before the chain existed (no ``previous``) are read
  and counted as *unchained*; one after a chained entry is a break. Removing the *last* entries
  leaves a sound chain: against the base's ledger the ``integrity`` check catches that, and
  nothing in the repository can show entries that were never committed;
* **the replay**: each red run is run again. Its recorded tree (:mod:`phasegate.tdd.worktree`)
  is written into a temporary folder (:mod:`phasegate.gates.tree_copy`), the tree's test and
  source files must be those the run recorded (same SHA-256), and the tests that failed at the
  red run there with pytest: each must fail again with the failure class recorded for it
  (``missing-symbol``, ``assertion``...), classified by the same rules. A ledger line made up
  to claim a red that never happened has no such tree, or its tests do not fail so.

What is found is a list of :class:`Problem`. What stops the proof from running (git missing, a
tree the repository does not have, a replay that hangs or leaves no report) raises
:class:`VerifyError`: a verify that cannot run proves nothing, and the gate's ``tdd`` check
reports it as an error.
"""

from __future__ import annotations

import json
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

from pydantic import ValidationError

from phasegate.documents import RunDocument, TestRecordDocument
from phasegate.errors import PhasegateError
from phasegate.gates.protocol import CheckError
from phasegate.gates.tree_copy import environment_for, write_tree
from phasegate.model.tdd import LedgerLine, LedgerTest, RunEntry
from phasegate.processes import Finished, GroupTimeout, run_in_group
from phasegate.store import Store
from phasegate.tdd.classify import Classifier
from phasegate.tdd.config import TddConfig
from phasegate.tdd.ledger import GENESIS, LEDGER_FILE, Entry, line_digest
from phasegate.tdd.rules.judgement import listed
from phasegate.tdd.tree import TreeLayout, hash_tree, nodeid_path

__all__ = ["Problem", "VerifyError", "VerifyReport", "chain_of", "replay_red", "verify_ledger"]

_FAILING = ("failed", "error")
_OUTPUT_CHARS = 1200


class VerifyError(PhasegateError):
    """The ledger could not be verified (not: it was verified and found wrong)."""


@dataclass(frozen=True)
class Problem:
    """One thing the ledger claims that is not so."""

    line: int
    rule: str
    message: str
    run_id: str | None = None


@dataclass
class VerifyReport:
    """What was checked, and what was found."""

    entries: int = 0
    unchained: int = 0
    replayed: int = 0
    problems: list[Problem] = field(default_factory=list)


@dataclass(frozen=True)
class ChainedEntry:
    """A ledger entry with its 1-based line number."""

    line: int
    entry: Entry


def chain_of(text: bytes) -> tuple[list[ChainedEntry], int, list[Problem]]:
    """The entries of a ledger's bytes, the count of unchained ones, and the chain's breaks."""
    entries: list[ChainedEntry] = []
    problems: list[Problem] = []
    unchained = 0
    previous: bytes | None = None
    chained_yet = False
    for number, raw in enumerate(text.split(b"\n"), start=1):
        if not raw.strip():
            continue
        try:
            entry = LedgerLine.model_validate(json.loads(raw)).root
        except (ValueError, ValidationError) as exc:
            problems.append(Problem(number, "tdd/ledger-line-unreadable", f"unreadable: {exc}"))
            previous = raw
            continue
        unchained += entry.previous is None
        broken = _chain_break(entry, previous, chained_yet)
        if broken:
            run_id = entry.run_id if isinstance(entry, RunEntry) else None
            problems.append(Problem(number, "tdd/ledger-chain-broken", broken, run_id))
        chained_yet = chained_yet or entry.previous is not None
        entries.append(ChainedEntry(number, entry))
        previous = raw
    return entries, unchained, problems


def _chain_break(entry: Entry, previous: bytes | None, chained_yet: bool) -> str:
    """Why ``entry`` does not chain to the line before it (``previous``); "" when it does."""
    if entry.previous is None:
        if not chained_yet:
            return ""
        return (
            "the entry names no previous line, after entries that did: it was "
            "written by hand or its chain was stripped"
        )
    if entry.previous == line_digest(previous):
        return ""
    if previous is None:
        what = "the first line of the ledger, but it names a line before it"
    elif entry.previous == GENESIS:
        what = "chained as the first line, but lines come before it"
    else:
        what = "not what the line before it hashes to"
    return f"the entry's previous digest is {what}: a line was removed, edited or moved here"


def verify_ledger(
    root: Path,
    store: Store,
    config: TddConfig,
    *,
    timeout_s: float,
    replay_from: int = 0,
) -> VerifyReport:
    """Check the chain of the whole ledger and replay its reds from entry ``replay_from`` on."""
    path = store.path(LEDGER_FILE)
    try:
        text = path.read_bytes()
    except FileNotFoundError as exc:
        raise VerifyError(f"there is no TDD ledger at {path}") from exc
    except OSError as exc:
        raise VerifyError(f"cannot read the TDD ledger {path}: {exc}") from exc
    entries, unchained, problems = chain_of(text)
    report = VerifyReport(entries=len(entries), unchained=unchained, problems=problems)
    for chained in entries[replay_from:]:
        entry = chained.entry
        if not isinstance(entry, RunEntry) or entry.phase != "red":
            continue
        report.problems.extend(replay_red(root, config, chained.line, entry, timeout_s=timeout_s))
        report.replayed += 1
    return report


def replay_red(
    root: Path, config: TddConfig, line: int, entry: RunEntry, *, timeout_s: float
) -> list[Problem]:
    """Run a red's failing tests again in its recorded tree; what does not fail as recorded."""
    failing = [test for test in entry.tests if test.outcome in _FAILING]
    if entry.tree is None:
        return [
            Problem(
                line,
                "tdd/red-not-replayable",
                f"red run {entry.run_id} recorded no git tree, so it cannot be run again",
                entry.run_id,
            )
        ]
    if not failing:
        return []
    with tempfile.TemporaryDirectory(prefix="phasegate-tdd-verify-") as folder:
        copy = Path(folder) / "tree"
        _write_recorded_tree(root, entry.tree, entry.run_id, copy, timeout_s)
        problems = _files_differ(copy, config, line, entry)
        report = _run_tests(copy, [t.nodeid for t in failing], Path(folder), timeout_s, entry)
        problems += _not_failing_as_recorded(copy, config, line, entry, failing, report)
    return problems


def _not_failing_as_recorded(
    copy: Path,
    config: TddConfig,
    line: int,
    entry: RunEntry,
    failing: list[LedgerTest],
    report: RunDocument,
) -> list[Problem]:
    """A problem for each red test the replay's ``report`` does not show failing as recorded,
    classified by the same rules in the written-out tree ``copy``."""
    records = {record["nodeid"]: record for record in report.get("tests", [])}
    layout = TreeLayout.from_config(copy, config)
    classifier = Classifier(
        copy, config, lambda: sorted(hash_tree(layout).source), lambda n: nodeid_path(n)
    )
    problems: list[Problem] = []
    for test in failing:
        change = _not_reproduced(test, records.get(test.nodeid), classifier)
        if change:
            message = f"red run {entry.run_id}: {test.nodeid} {change}"
            problems.append(Problem(line, "tdd/red-not-reproduced", message, entry.run_id))
    return problems


def _write_recorded_tree(root: Path, tree: str, run_id: str, copy: Path, timeout_s: float) -> None:
    """Write a red run's git tree out to ``copy``, or say how to fetch the trees."""
    try:
        write_tree(root, tree, copy, timeout_s=timeout_s)
    except CheckError as exc:
        raise VerifyError(
            f"the tree {tree[:12]} of red run {run_id} cannot be written out: "
            f"{exc.reason} (fetch the refs that keep the trees: git fetch origin "
            "'refs/phasegate/tdd/*:refs/phasegate/tdd/*')"
        ) from exc


def _not_reproduced(
    test: LedgerTest, record: TestRecordDocument | None, classifier: Classifier
) -> str:
    """How a red test's replay differs from what the ledger recorded; "" when it does not."""
    if record is None:
        return "did not run in the recorded tree"
    judged = classifier.test(record)
    if record["outcome"] == test.outcome and judged.failure_class == test.failure_class:
        return ""
    now = judged.failure_class.value if judged.failure_class else record["outcome"]
    was = test.failure_class.value if test.failure_class else test.outcome
    return f"was recorded as {was}, but in the recorded tree it is {now}"


def _files_differ(copy: Path, config: TddConfig, line: int, entry: RunEntry) -> list[Problem]:
    found = hash_tree(TreeLayout.from_config(copy, config))
    recorded = {**entry.files.source, **entry.files.tests}
    now = {**found.source, **found.tests}
    differ = sorted(p for p in recorded.keys() | now.keys() if recorded.get(p) != now.get(p))
    if not differ:
        return []
    return [
        Problem(
            line,
            "tdd/red-tree-mismatch",
            f"red run {entry.run_id}: its tree {entry.tree and entry.tree[:12]} does not hold the "
            f"files the run recorded ({listed(differ)})",
            entry.run_id,
        )
    ]


def _run_tests(
    copy: Path, nodeids: Sequence[str], folder: Path, timeout_s: float, entry: RunEntry
) -> RunDocument:
    artifacts = folder / "artifacts"
    command = [
        sys.executable,
        "-m",
        "pytest",
        *nodeids,
        "--gate=record",
        f"--phasegate-dir={artifacts}",
        "-p",
        "no:cacheprovider",
        "-q",
    ]
    shown = f"the replay of red run {entry.run_id}"
    try:
        finished = run_in_group(command, cwd=copy, timeout_s=timeout_s, env=environment_for(copy))
    except GroupTimeout as exc:
        raise VerifyError(
            f"{shown} did not finish within {timeout_s:g}s (stopped, with every process it started)"
        ) from exc
    except OSError as exc:
        raise VerifyError(f"{shown} could not be started: {exc}") from exc
    return _replay_report(artifacts / "report.json", finished, shown)


def _replay_report(path: Path, finished: Finished, shown: str) -> RunDocument:
    """The run report the replay wrote at ``path``; a VerifyError, with the end of what the
    replay said, when there is none or it is not a run report."""
    said = (finished.stdout + finished.stderr).decode("utf-8", errors="replace").strip()
    try:
        data: object = json.loads(path.read_bytes())
    except (OSError, ValueError) as exc:
        raise VerifyError(
            f"{shown} exited with status {finished.returncode} and left no readable run "
            f"report ({exc}): {said[-_OUTPUT_CHARS:] or '(no output)'}"
        ) from exc
    if not isinstance(data, dict) or data.get("kind") != "run-report":
        raise VerifyError(f"{shown} left a report of an unknown shape")
    # The run report of the replay, written by this phasegate's own recorder.
    return cast(RunDocument, data)

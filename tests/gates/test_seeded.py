"""Every check on the sample project: the clean one passes the gate, each seed fails its check.

``fixtures/gates/clean`` is a small project that passes every built-in check. Each folder of
``fixtures/gates/seeds`` holds one problem for one check: its files are laid over a copy of the
clean project and committed on a branch, so the problem is new code against ``main``.
``seed.toml`` names the check and where its finding must point. A seed's ``at-base/`` folder,
if it has one, is laid over ``main`` first: what the base already held (the perf check compares
with the base).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from phasegate import tomlfile
from phasegate.gates.registry import BUILT_IN
from phasegate.model.review import ReviewRecord, ReviewStatus
from phasegate.store import Store
from tests.conftest import FIXTURES, git

CLEAN = FIXTURES / "gates" / "clean"
#: Checks of workflow documents and feature files, which a plain code project does not have.
WORKFLOW_DOCUMENT_CHECKS = {"request", "spec", "plan", "scenarios"}
SEEDS = FIXTURES / "gates" / "seeds"


def clean_repository(target: Path) -> Path:
    shutil.copytree(CLEAN, target)
    git(target, "init", "-q", "-b", "main")
    git(target, "add", ".")
    git(target, "commit", "-qm", "feat: count things")
    git(target, "checkout", "-qb", "change")
    return target


def record_review(root: Path, status: ReviewStatus) -> None:
    review = ReviewRecord(
        subject="change",
        commit=git(root, "rev-parse", "HEAD"),
        reviewer="Robin",
        status=status,
        recorded_at=datetime.now(timezone.utc),
        note="see the comments",
    )
    Store(root / ".phasegate").append_jsonl("reviews.jsonl", review)


def run_gate(root: Path, checks: dict[str, dict[str, Any]]) -> dict[str, Any]:
    lines = ['name = "under-test"']
    for check_id, spec in checks.items():
        lines.append(f"[checks.{check_id}]")
        for key, value in spec.items():
            lines.append(
                f"{key} = {json.dumps(value) if not isinstance(value, dict) else _inline(value)}"
            )
    (root / "gate.toml").write_text("\n".join(lines) + "\n")
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--gate=gate.toml",
            "--base=main",
            "-p",
            "no:cacheprovider",
        ],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    verdict_path = root / ".phasegate" / "gates" / "under-test.json"
    assert verdict_path.is_file(), completed.stdout + completed.stderr
    verdict: dict[str, Any] = json.loads(verdict_path.read_text())
    verdict["exit_status"] = completed.returncode
    verdict["output"] = completed.stdout
    return verdict


def _inline(table: dict[str, Any]) -> str:
    return "{ " + ", ".join(f"{k} = {json.dumps(v)}" for k, v in table.items()) + " }"


@pytest.mark.slow
def test_the_clean_sample_passes_every_check(tmp_path: Path) -> None:
    root = clean_repository(tmp_path / "tally")
    (root / "src" / "tally" / "extra.py").write_text(
        '"""Extra helpers."""\n\n\ndef home() -> str:\n    """The home folder, unexpanded."""\n'
        '    return "~"\n'
    )
    (root / "tests" / "test_extra.py").write_text(
        "from tally.extra import home\n\n\ndef test_home() -> None:\n    assert home() == '~'\n"
    )
    git(root, "add", ".")
    git(root, "commit", "-qm", "feat: a home folder helper")
    record_review(root, ReviewStatus.APPROVED)
    code_checks = [check for check in BUILT_IN if check not in WORKFLOW_DOCUMENT_CHECKS]
    checks: dict[str, dict[str, Any]] = {check_id: {} for check_id in code_checks}
    checks["perf"] = {"skip_allowed": True}  # no test is marked perf: nothing to measure
    checks["tdd"] = {"skip_allowed": True}  # no cycle was driven with --tdd: no ledger
    verdict = run_gate(root, checks)
    statuses = {check["id"]: check["status"] for check in verdict["checks"]}
    assert verdict["verdict"] == "sufficient", (statuses, verdict["reasons"], verdict["output"])
    assert statuses["perf"] == "skipped"
    assert statuses["tdd"] == "skipped"
    assert all(status == "passed" for cid, status in statuses.items() if cid not in ("perf", "tdd"))
    assert verdict["exit_status"] == 0


SEED_NAMES = sorted(path.name for path in SEEDS.iterdir() if (path / "seed.toml").is_file())


@pytest.mark.slow
@pytest.mark.parametrize("seed", SEED_NAMES)
def test_each_seeded_problem_fails_its_check_at_the_right_place(seed: str, tmp_path: Path) -> None:
    folder = SEEDS / seed
    meta = tomlfile.loads((folder / "seed.toml").read_text())
    root = clean_repository(tmp_path / "tally")
    if (folder / "at-base").is_dir():
        git(root, "checkout", "-q", "main")
        shutil.copytree(folder / "at-base", root, dirs_exist_ok=True)
        git(root, "add", ".")
        git(root, "commit", "-qm", f"test: what the base of the {seed} seed holds")
        git(root, "checkout", "-q", "change")
        git(root, "merge", "-q", "--ff-only", "main")
    shutil.copytree(
        folder, root, dirs_exist_ok=True, ignore=shutil.ignore_patterns("seed.toml", "at-base")
    )
    git(root, "add", ".")
    git(root, "commit", "-qm", meta.get("message", f"feat: seed a {seed} problem"))
    if "review" in meta:
        record_review(root, ReviewStatus(meta["review"]))
    spec: dict[str, Any] = {"required": True}
    if "options" in meta:
        spec["options"] = meta["options"]
    verdict = run_gate(root, {meta["check"]: spec})
    # A gate file of the project is judged by integrity too when there is a base (23aec6b).
    (result,) = [check for check in verdict["checks"] if check["id"] == meta["check"]]
    assert result["status"] == "failed", (result, verdict["output"])
    assert verdict["verdict"] == "insufficient"
    assert verdict["exit_status"] == 1
    matching = [
        finding
        for finding in result["findings"]
        if finding["rule"] == meta.get("rule", finding["rule"])
        and finding["path"] == meta.get("path")
        and finding["line"] == meta.get("line", finding["line"])
    ]
    assert matching, result["findings"]

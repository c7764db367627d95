"""Which steps of which feature files are bound: asked of pytest-bdd itself, in a subprocess.

Runs ``python -m pytest --collect-only -p phasegate.bdd.probe`` at the project root over the
given test paths (nothing runs: collection only) and reads the probe's JSON. See
:mod:`phasegate.bdd.probe` for why the lookup cannot be done statically. The engine side
imports neither pytest nor pytest-bdd.
"""

from __future__ import annotations

import json
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from phasegate.gates.helper_env import helper_environment
from phasegate.gates.protocol import CheckError
from phasegate.optional import is_available
from phasegate.processes import GroupTimeout, run_in_group

if TYPE_CHECKING:  # the probe imports pytest-bdd, which this module does not need
    from phasegate.bdd.probe import ProbeDocument, ProbeFeature

__all__ = ["Bindings", "FeatureReport", "ScenarioReport", "StepReport", "find_bindings"]


@dataclass(frozen=True)
class StepReport:
    """One step of a scenario and whether a step definition parses it."""

    line: int
    text: str
    bound: bool


@dataclass(frozen=True)
class ScenarioReport:
    """One scenario, the tests that bind it, and its steps."""

    name: str
    line: int
    tests: list[str]
    steps: list[StepReport]


@dataclass(frozen=True)
class FeatureReport:
    """One feature file: its scenarios, or why it could not be parsed."""

    path: Path
    error: str | None
    scenarios: list[ScenarioReport] = field(default_factory=list)


@dataclass(frozen=True)
class Bindings:
    """The probe's findings."""

    features: list[FeatureReport]
    collection_errors: list[str]


def find_bindings(
    root: Path, features: Sequence[Path], tests: Sequence[str], *, timeout_s: float
) -> Bindings:
    """Ask pytest-bdd, by collecting ``tests`` at ``root``, which steps of ``features`` bind."""
    if not is_available("pytest_bdd"):
        raise CheckError(
            "finding step bindings needs pytest-bdd, which is not installed",
            fix="pip install 'pytest-phasegate[bdd]'",
        )
    with tempfile.TemporaryDirectory(prefix="phasegate-bdd-") as folder:
        out = Path(folder) / "bindings.json"
        environment = {
            **helper_environment(),
            "PHASEGATE_BDD_PROBE_OUT": str(out),
            "PHASEGATE_BDD_PROBE_FEATURES": json.dumps([str(p) for p in features]),
        }
        _probe(root, tests, environment, timeout_s, out)
        # The probe's own document (phasegate.bdd.probe), written in a folder of this run's.
        data: ProbeDocument = json.loads(out.read_text(encoding="utf-8"))
    return Bindings(
        features=[_feature(entry) for entry in data["features"]],
        collection_errors=[
            _last_line(e["nodeid"], e["message"]) for e in data["collection_errors"]
        ],
    )


def _probe(
    root: Path, tests: Sequence[str], environment: dict[str, str], timeout_s: float, out: Path
) -> None:
    """Collect ``tests`` with the probe; a CheckError unless the probe wrote ``out``."""
    command = [
        sys.executable, "-m", "pytest", "--collect-only", "-q",
        "-p", "phasegate.bdd.probe", "-p", "no:cacheprovider", *tests,
    ]  # fmt: skip
    try:
        completed = run_in_group(command, cwd=root, env=environment, timeout_s=timeout_s)
    except GroupTimeout as exc:
        raise CheckError(
            f"collecting {' '.join(tests)} took longer than {timeout_s:g}s",
            fix="raise timeout_s for the check",
        ) from exc
    except OSError as exc:
        raise CheckError(f"pytest could not be started: {exc}") from exc
    if not out.is_file():
        printed = (completed.stdout + completed.stderr).decode("utf-8", errors="replace")
        tail = printed.strip().splitlines()[-15:]
        raise CheckError(
            f"pytest --collect-only {' '.join(tests)} exited with status "
            f"{completed.returncode} before the probe reported: " + " | ".join(tail),
            fix="run the same collection yourself and fix what it reports",
        )


def _feature(entry: ProbeFeature) -> FeatureReport:
    return FeatureReport(
        path=Path(entry["path"]),
        error=entry["error"],
        scenarios=[
            ScenarioReport(
                name=s["name"],
                line=s["line"],
                tests=list(s["tests"]),
                steps=[StepReport(st["line"], st["text"], st["bound"]) for st in s["steps"]],
            )
            for s in entry["scenarios"]
        ],
    )


def _last_line(nodeid: str, message: str) -> str:
    lines = message.strip().splitlines()
    return f"{nodeid}: {lines[-1] if lines else 'collection failed'}"

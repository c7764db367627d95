"""A pytest plugin that reports, without running anything, which feature steps are bound.

The ``scenarios`` gate check runs ``pytest --collect-only -p phasegate.bdd.probe`` in the
project. After collection, for every test pytest-bdd made from a scenario (rendered with each
of its examples), every step is looked up with pytest-bdd's own lookup
(``pytest_bdd.scenario.find_fixturedefs_for_step``: the step's type, the parser of every step
definition, string, ``parse``, ``cfparse`` or ``re``, and the fixture visibility rules of
conftest files and modules): exactly what pytest-bdd does when the scenario runs and raises
``StepDefinitionNotFoundError``. A static reading of the step modules could not follow
conftest scoping and custom parsers reliably, so the lookup is done in pytest itself.

Scenarios of the feature files that no test binds are reported too. The result is written as
JSON to the file named by ``PHASEGATE_BDD_PROBE_OUT``; the features are read from the paths in
``PHASEGATE_BDD_PROBE_FEATURES`` (a JSON list) with pytest-bdd's parser.
"""

from __future__ import annotations

import glob
import json
import os
from dataclasses import dataclass, field
from typing import TypedDict

import pytest
from pytest_bdd.feature import get_feature
from pytest_bdd.scenario import find_fixturedefs_for_step, scenario_wrapper_template_registry

__all__ = [
    "FEATURES_ENV",
    "OUT_ENV",
    "Probe",
    "ProbeDocument",
    "ProbeError",
    "ProbeFeature",
    "ProbeScenario",
    "ProbeStep",
]

OUT_ENV = "PHASEGATE_BDD_PROBE_OUT"
FEATURES_ENV = "PHASEGATE_BDD_PROBE_FEATURES"


@dataclass
class _Binding:
    """The tests pytest-bdd made from one scenario, and its steps no definition binds."""

    tests: list[str] = field(default_factory=list)
    #: Step line (as text, a JSON key) -> the step's keyword and text.
    unbound: dict[str, str] = field(default_factory=dict)


class ProbeStep(TypedDict):
    """One step of a scenario, and whether a step definition binds it."""

    line: int
    text: str
    bound: bool


class ProbeScenario(TypedDict):
    """One scenario, the tests pytest-bdd made from it, and its steps."""

    name: str
    line: int
    tests: list[str]
    steps: list[ProbeStep]


class ProbeFeature(TypedDict):
    """One feature file in the probe's JSON output."""

    path: str
    error: str | None
    scenarios: list[ProbeScenario]


class ProbeError(TypedDict):
    """A collector that failed."""

    nodeid: str
    message: str


class ProbeDocument(TypedDict):
    """What the probe writes to the file named by :data:`OUT_ENV`."""

    features: list[ProbeFeature]
    collection_errors: list[ProbeError]


def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.register(Probe(), "phasegate-bdd-probe")


class Probe:
    """Keeps what collection found; writes it when the session ends."""

    def __init__(self) -> None:
        self.bound: dict[str, _Binding] = {}
        self.errors: list[ProbeError] = []

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self.errors.append({"nodeid": report.nodeid, "message": str(report.longrepr)})

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        fixturemanager = session._fixturemanager
        for item in session.items:
            template = scenario_wrapper_template_registry.get(getattr(item, "obj", None))  # type: ignore[arg-type]
            if template is None:
                continue
            callspec = getattr(item, "callspec", None)
            example = callspec.params.get("_pytest_bdd_example", {}) if callspec else {}
            scenario = template.render(example)
            key = f"{os.path.abspath(template.feature.filename)}::{template.line_number}"
            entry = self.bound.setdefault(key, _Binding())
            entry.tests.append(item.nodeid)
            for step in scenario.steps:
                if not any(True for _ in find_fixturedefs_for_step(step, fixturemanager, item)):
                    entry.unbound[str(step.line_number)] = f"{step.keyword} {step.name}".strip()

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        out = os.environ.get(OUT_ENV)
        if not out:
            return
        paths = json.loads(os.environ.get(FEATURES_ENV, "[]"))
        features = [_describe(path, self.bound) for path in _feature_files(paths)]
        document: ProbeDocument = {"features": features, "collection_errors": self.errors}
        with open(out, "w", encoding="utf-8") as handle:
            json.dump(document, handle)


def _feature_files(paths: list[str]) -> list[str]:
    files: list[str] = []
    for path in paths:
        if os.path.isdir(path):
            files += sorted(glob.glob(os.path.join(path, "**", "*.feature"), recursive=True))
        else:
            files.append(path)
    return [os.path.abspath(f) for f in files]


def _describe(path: str, bound: dict[str, _Binding]) -> ProbeFeature:
    try:
        feature = get_feature(os.path.dirname(path), os.path.basename(path))
    except Exception as exc:  # noqa: BLE001 - any parse failure is reported, with its text
        return {"path": path, "error": f"{type(exc).__name__}: {exc}", "scenarios": []}
    scenarios: list[ProbeScenario] = []
    for template in feature.scenarios.values():
        entry = bound.get(f"{path}::{template.line_number}")
        steps: list[ProbeStep] = [
            {
                "line": step.line_number,
                "text": f"{step.keyword} {step.name}".strip(),
                "bound": entry is not None and str(step.line_number) not in entry.unbound,
            }
            for step in template.steps
        ]
        scenarios.append(
            {
                "name": template.name,
                "line": template.line_number,
                "tests": entry.tests if entry else [],
                "steps": steps,
            }
        )
    return {"path": path, "error": None, "scenarios": scenarios}

"""Gates 1 to 3 (request, spec, plan) and the scenarios check, on real documents."""

from __future__ import annotations

from pathlib import Path

import pytest

from phasegate.gates.checks.plan import PlanCheck, PlanOptions
from phasegate.gates.checks.request import RequestCheck, RequestOptions
from phasegate.gates.checks.scenarios import ScenariosCheck, ScenariosOptions
from phasegate.gates.checks.spec import SpecCheck, SpecOptions
from phasegate.gates.protocol import CheckError
from tests.gates.conftest import MakeContext, WriteFiles

REQUEST = """\
# Log in by e-mail

## Goal
Users log in with an e-mail address and a one-time code.

## Constraints
- codes expire after ten minutes

## Tech stack
Python 3.11, FastAPI.
"""

FEATURE = """\
Feature: Log in
  Scenario: A valid code logs the user in
    Given a user with a code
    When the user enters the code
    Then the user is logged in
"""

STEPS = """\
from pytest_bdd import given, parsers, scenarios, then, when

scenarios("../features/login.feature")

@given("a user with a code", target_fixture="user")
def _user():
    return {"code": 42}

@when(parsers.parse("the user enters the {what}"))
def _enter(user):
    user["in"] = True

{then}
"""

THEN = """\
@then("the user is logged in")
def _logged_in(user):
    assert user["in"]
"""


def test_a_complete_request_passes(make_context: MakeContext, write_files: WriteFiles) -> None:
    write_files({"docs/requirements/login_req.md": REQUEST})
    measured = RequestCheck().measure(make_context(), RequestOptions())
    assert measured.metrics == {"documents": 1, "missing": 0}


def test_a_request_without_constraints_names_the_missing_part(
    make_context: MakeContext, write_files: WriteFiles
) -> None:
    text = REQUEST.replace("## Constraints\n- codes expire after ten minutes\n", "")
    write_files({"docs/requirements/login_req.md": text})
    measured = RequestCheck().measure(make_context(), RequestOptions())
    assert measured.metrics["missing"] == 1
    (finding,) = measured.findings
    assert finding.rule == "request-constraints"
    assert finding.path == "docs/requirements/login_req.md"


def test_the_instance_picks_its_own_request(
    make_context: MakeContext, write_files: WriteFiles, tmp_path: Path
) -> None:
    write_files({"docs/requirements/login_req.md": REQUEST})
    ctx = make_context()
    ctx.instance = "signup"
    measured = RequestCheck().measure(ctx, RequestOptions())
    assert measured.metrics["documents"] == 0
    assert "docs/requirements/signup_req.md" in measured.summary


def test_a_plan_with_big_cyclic_unbudgeted_tasks_gets_each_problem_named(
    make_context: MakeContext, write_files: WriteFiles
) -> None:
    write_files(
        {
            "docs/plans/login_plan.toml": """
[[tasks]]
id = "T1"
estimate_min = 90
depends_on = ["T2"]
retries = 1

[[tasks]]
id = "T2"
estimate_min = 20
depends_on = ["T1", "T9"]
"""
        }
    )
    measured = PlanCheck().measure(make_context(), PlanOptions())
    rules = sorted(f.rule for f in measured.findings)
    assert rules == ["plan-cycle", "plan-dependency", "plan-estimate", "plan-retry-budget"]
    messages = " ".join(f.message for f in measured.findings)
    assert "T1 is estimated at 90 min" in messages
    assert "depends on 'T9'" in messages
    assert "T2 has no retry budget" in messages


def test_a_sound_plan_passes(make_context: MakeContext, write_files: WriteFiles) -> None:
    write_files(
        {
            "docs/plans/login_plan.toml": 'retry_budget = 2\n[[tasks]]\nid = "A"\n'
            'estimate_min = 30\n[[tasks]]\nid = "B"\nestimate_min = 45\ndepends_on = ["A"]\n'
        }
    )
    measured = PlanCheck().measure(make_context(), PlanOptions())
    assert (measured.metrics, measured.findings) == ({"documents": 1, "missing": 0}, [])


def test_a_malformed_plan_names_the_key(make_context: MakeContext, write_files: WriteFiles) -> None:
    write_files({"docs/plans/x_plan.toml": '[[tasks]]\nid = "A"\nestimate = 30\n'})
    measured = PlanCheck().measure(make_context(), PlanOptions())
    assert any("unknown key tasks.0.estimate" in f.message for f in measured.findings)


@pytest.mark.slow
def test_scenarios_check_finds_the_unbound_step_and_passes_once_it_is_bound(
    make_context: MakeContext, write_files: WriteFiles
) -> None:
    write_files(
        {
            "pyproject.toml": '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
            "features/login.feature": FEATURE,
            "tests/test_login.py": STEPS.replace("{then}", ""),
        }
    )
    check = ScenariosCheck()
    measured = check.measure(make_context(), ScenariosOptions())
    assert measured.metrics["unbound_steps"] == 1
    (finding,) = measured.findings
    assert (finding.path, finding.line) == ("features/login.feature", 5)
    assert 'step "Then the user is logged in"' in finding.message

    write_files({"tests/test_login.py": STEPS.replace("{then}", THEN)})
    measured = check.measure(make_context(), ScenariosOptions())
    assert measured.metrics == {
        "scenarios": 1, "steps": 3, "unbound_steps": 0, "unbound_scenarios": 0, "errors": 0,
    }  # fmt: skip


@pytest.mark.slow
def test_a_spec_needs_criteria_security_and_bound_scenarios(
    make_context: MakeContext, write_files: WriteFiles
) -> None:
    spec = (
        "# Login spec\n\n## Acceptance criteria\n- a valid code logs in\n\n"
        "## Test scenarios\nSee features/login.feature.\n\n## Security\nCodes are single use.\n"
    )
    write_files(
        {
            "pyproject.toml": '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
            "features/login.feature": FEATURE,
            "tests/test_login.py": STEPS.replace("{then}", THEN),
            "docs/specs/login_spec.md": spec,
        }
    )
    measured = SpecCheck().measure(make_context(), SpecOptions())
    assert measured.metrics == {"documents": 1, "missing": 0}
    write_files({"docs/specs/login_spec.md": spec.split("## Security")[0]})
    measured = SpecCheck().measure(make_context(), SpecOptions())
    assert [f.rule for f in measured.findings] == ["spec-security"]


def test_scenarios_check_without_feature_files_cannot_run(make_context: MakeContext) -> None:
    with pytest.raises(CheckError, match="no feature file found at features"):
        ScenariosCheck().measure(make_context(), ScenariosOptions())

"""The gate's score never says more than the verdict: formula, cut, and how it is shown."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from phasegate.gates.checks.integrity import IntegrityCheck
from phasegate.gates.definition import CheckSpec
from phasegate.gates.evaluation import MAX_FINDINGS, contradiction, judge, verdict_of
from phasegate.gates.protocol import Measurement
from phasegate.gates.score import gate_score, insufficient_ceiling, shown_score
from phasegate.model.gate import CheckResult, CheckStatus, Finding, GateVerdict
from phasegate.report.terminal import gate_lines

STATUSES = list(CheckStatus)


def result(
    check_id: str, status: CheckStatus, score: float, *, required: bool = True
) -> CheckResult:
    return CheckResult(
        id=check_id,
        status=status,
        score=score,
        requirement="required" if required else "optional",
        reasoning=f"{check_id} {status.value}",
        duration_s=0.0,
    )


def test_eleven_perfect_checks_beside_one_failing_do_not_score_near_one() -> None:
    results = [result(f"c{i}", CheckStatus.PASSED, 1.0) for i in range(11)]
    results.append(result("tests", CheckStatus.FAILED, 0.99))
    specs = {r.id: CheckSpec() for r in results}

    verdict, score, reasons = verdict_of(results, specs)

    assert verdict == "insufficient"
    assert reasons == ["tests: tests failed"]
    assert score == 0.84


def test_a_sufficient_verdict_keeps_its_mean_cut_not_rounded() -> None:
    results = [result("a", CheckStatus.PASSED, 0.99999), result("b", CheckStatus.PASSED, 1.0)]

    verdict, score, _ = verdict_of(results, {"a": CheckSpec(), "b": CheckSpec()})

    assert (verdict, score) == ("sufficient", 0.9999)


def test_an_error_counts_zero_whatever_score_it_carries() -> None:
    results = [result("a", CheckStatus.ERROR, 1.0), result("b", CheckStatus.PASSED, 0.5)]

    _, score, _ = verdict_of(results, {"a": CheckSpec(), "b": CheckSpec()}, pass_threshold=0.9)

    assert score == 0.25


def test_a_skip_counts_zero_unless_the_gate_allows_it() -> None:
    results = [result("a", CheckStatus.SKIPPED, 1.0), result("b", CheckStatus.PASSED, 0.6)]

    refused = verdict_of(results, {"a": CheckSpec(), "b": CheckSpec()})
    allowed = verdict_of(results, {"a": CheckSpec(skip_allowed=True), "b": CheckSpec()})

    assert refused[:2] == ("insufficient", 0.3)
    assert allowed[:2] == ("sufficient", 0.6)


def test_an_optional_integrity_check_failing_on_a_gate_change_still_counts() -> None:
    # The change made the check optional ([tool.phasegate.checks.integrity] required = false)
    # and skipped the failing test: integrity saw both, and the gate it wrote ignored it.
    loosened = Finding(rule="gate-loosened", severity="high", message="no longer required")
    skipped = Finding(rule="newly-skipped", severity="high", message="test_mean newly skipped")
    tests = result("tests", CheckStatus.PASSED, 1.0)
    specs = {"tests": CheckSpec(), "integrity": CheckSpec(required=False)}

    def integrity(*findings: Finding) -> CheckResult:
        judged = result("integrity", CheckStatus.FAILED, 0.5, required=False)
        return judged.model_copy(update={"findings": list(findings)})

    assert verdict_of([tests, integrity(skipped, loosened)], specs)[0] == "insufficient"
    # Not a change to the gate: an optional check stays optional.
    assert verdict_of([tests, integrity(skipped)], specs)[0] == "sufficient"
    other = result("lint", CheckStatus.FAILED, 0.5, required=False)
    other = other.model_copy(update={"findings": [loosened]})
    assert verdict_of([tests, other], {**specs, "lint": CheckSpec(required=False)})[0] == (
        "sufficient"
    )


def test_a_gate_change_is_kept_however_many_findings_come_before_it() -> None:
    """Review s17d, 8: the result keeps the first MAX_FINDINGS findings, ordered by path, and
    the gate change was read from those: 505 ``noqa`` lines in ``aaa.py`` pushed the
    ``gate-loosened`` finding of ``ci/gate.toml`` past the cut, and the verdict was sufficient."""
    noqa = [
        Finding(
            rule="noqa-without-reason", severity="medium", message="noqa", path="aaa.py", line=n
        )
        for n in range(1, MAX_FINDINGS + 6)
    ]
    loosened = Finding(
        rule="gate-loosened", severity="high", message="integrity optional", path="ci/gate.toml"
    )
    measured = Measurement(summary="tricks", metrics={"tricks": len(noqa) + 1})
    specs = {"tests": CheckSpec(), "integrity": CheckSpec(required=False)}
    tests = result("tests", CheckStatus.PASSED, 1.0)

    def integrity(*findings: Finding) -> CheckResult:
        measurement = measured.model_copy(update={"findings": list(findings)})
        spec = specs["integrity"]
        return judge(
            IntegrityCheck(), spec, measurement, requirement="optional", duration_s=0.0
        ).result

    judged = integrity(*noqa, loosened)
    assert (len(judged.findings), judged.findings_total) == (MAX_FINDINGS, MAX_FINDINGS + 6)
    assert judged.findings[0].rule == "gate-loosened"
    assert verdict_of([tests, judged], specs)[0] == "insufficient"
    # Without a change to the gate the optional check stays optional, findings by place.
    honest = integrity(*noqa)
    assert [f.line for f in honest.findings[:2]] == [1, 2]
    assert verdict_of([tests, honest], specs)[0] == "sufficient"


def test_a_required_check_skipped_against_the_gate_contradicts_a_sufficient_verdict() -> None:
    """Review s17d, 14: ``contradiction`` was a second, partial copy of ``verdict_of`` that let
    a required check skipped where the gate allows no skip pass: a ``verdict_of`` replaced in
    the tests' process and a mutation check with nothing to judge were published."""
    judged = judge(
        IntegrityCheck(),
        CheckSpec(),
        Measurement(summary="", skipped="nothing to judge"),
        requirement="required",
        duration_s=0.0,
    ).result
    tests = result("tests", CheckStatus.PASSED, 1.0)

    def written(skipped: CheckResult) -> GateVerdict:
        return GateVerdict(
            gate="g",
            source="builtin",
            verdict="sufficient",
            score=1.0,
            checks=[tests, skipped],
            started_at=datetime(2026, 11, 1, tzinfo=timezone.utc),
            finished_at=datetime(2026, 11, 1, tzinfo=timezone.utc),
            duration_s=1.0,
        )

    assert judged.skip_allowed is False
    why = contradiction(written(judged))
    assert why is not None
    assert "(integrity: skipped, but the gate requires it: nothing to judge)" in why
    allowed = judge(
        IntegrityCheck(),
        CheckSpec(skip_allowed=True),
        Measurement(summary="", skipped="nothing to judge"),
        requirement="required",
        duration_s=0.0,
    ).result
    assert contradiction(written(allowed)) is None


@pytest.mark.parametrize(
    ("threshold", "ceiling"),
    [(0.85, 0.84), (0.853, 0.85), (1.0, 0.99), (0.01, 0.0), (0.005, 0.0), (0.3, 0.29)],
)
def test_the_ceiling_is_the_largest_hundredth_below_the_threshold(
    threshold: float, ceiling: float
) -> None:
    assert insufficient_ceiling(threshold) == ceiling


@pytest.mark.parametrize("threshold", [0.0, -0.1, 1.5])
def test_a_threshold_that_no_score_could_stay_below_is_refused(threshold: float) -> None:
    with pytest.raises(ValueError, match=f"not {threshold}"):
        insufficient_ceiling(threshold)


@pytest.mark.parametrize(
    ("score", "shown"),
    [(0.999, "0.99"), (0.8499, "0.84"), (0.85, "0.85"), (1.0, "1.00"), (0.0, "0.00")],
)
def test_a_shown_score_is_cut_never_rounded_up(score: float, shown: str) -> None:
    assert shown_score(score) == shown


checks = st.lists(
    st.tuples(
        st.sampled_from(STATUSES),
        st.floats(min_value=0, max_value=1),
        st.booleans(),  # required
        st.booleans(),  # skip allowed
    ),
    min_size=1,
    max_size=14,
)


@given(checks, st.floats(min_value=0.001, max_value=1))
def test_an_insufficient_verdict_never_shows_a_score_at_or_above_the_threshold(
    drawn: list[tuple[CheckStatus, float, bool, bool]], threshold: float
) -> None:
    results = [
        result(f"c{i}", status, score, required=required)
        for i, (status, score, required, _) in enumerate(drawn)
    ]
    specs = {f"c{i}": CheckSpec(skip_allowed=allowed) for i, (*_, allowed) in enumerate(drawn)}

    verdict, score, _ = verdict_of(results, specs, pass_threshold=threshold)

    assert 0 <= score <= 1
    if verdict == "insufficient":
        assert score < threshold
        assert float(shown_score(score)) < threshold
    else:
        counted = [
            0.0 if r.status is CheckStatus.ERROR else r.score
            for r in results
            if r.requirement == "required" and r.status is not CheckStatus.SKIPPED
        ]
        assert score == gate_score(counted, sufficient=True)
        assert float(shown_score(score)) <= score


def test_the_terminal_headline_cuts_the_score() -> None:
    now = datetime(2026, 1, 1, tzinfo=timezone.utc)
    verdict = GateVerdict(
        gate="g",
        source="g.toml",
        verdict="sufficient",
        score=0.8499,
        started_at=now,
        finished_at=now,
        duration_s=1.0,
    )

    headline = gate_lines(verdict, None, verbosity=0)[0][0]

    assert headline.startswith("gate g: SUFFICIENT (score 0.84,")

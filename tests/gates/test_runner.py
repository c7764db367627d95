"""The runner and the evaluation: conditions, verdicts, fail-closed errors, cache, timeouts."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, ClassVar, Literal

import pluggy
import pytest

from phasegate.errors import UsageError
from phasegate.extensions import make_plugin_manager
from phasegate.gates.cache import CheckCache
from phasegate.gates.definition import CheckSpec, ConditionSpec, GateDefinition, GateSource
from phasegate.gates.protocol import CheckContext, CheckError, Measurement, MetricSpec, NoOptions
from phasegate.gates.registry import CheckRegistry
from phasegate.gates.runner import GateRunner, ProgressEvent
from phasegate.hookspecs import hookimpl
from phasegate.model.gate import CheckStatus, ToolInfo

from .samples import forge_kept, git

MakeContext = Callable[..., CheckContext]


class FakeCheck:
    """A check whose measurement the test decides."""

    id: ClassVar[str] = "fake"
    title: ClassVar[str] = "a fake check"
    kind: ClassVar[Literal["static", "session"]] = "static"
    options_model: ClassVar[type[NoOptions]] = NoOptions
    metrics: ClassVar[Sequence[MetricSpec]] = (
        MetricSpec("problems", "problems"),
        MetricSpec("rate", "a rate", "rate"),
    )
    default_conditions: ClassVar[Sequence[ConditionSpec]] = (
        ConditionSpec(metric="problems", op=">", value=0),
    )

    def __init__(self, measure: Callable[[], Measurement], inputs: list[Path] | None = None):
        self._measure = measure
        self._inputs = inputs
        self.calls = 0

    def tool_info(self) -> ToolInfo | None:
        return ToolInfo(name="fake", version="1.0")

    def cache_inputs(self, ctx: CheckContext, options: Any) -> Sequence[Path] | None:
        return self._inputs

    def measure(self, ctx: CheckContext, options: Any) -> Measurement:
        self.calls += 1
        return self._measure()


def measured(problems: int, rate: float | None = 0.9) -> Measurement:
    metrics = {"problems": problems, "rate": rate}
    return Measurement(summary=f"{problems} problems", metrics=metrics, new_code_metrics=metrics)


class OneCheckRegistry(CheckRegistry):
    def __init__(self, check: Any) -> None:
        super().__init__()
        self._check = check

    def get(self, check_id: str) -> Any:
        if check_id != "fake":
            return super().get(check_id)
        from phasegate.gates.registry import RegisteredCheck

        return RegisteredCheck(self._check, "test")


def run_gate(
    make_context: MakeContext,
    check: Any,
    spec: CheckSpec | None = None,
    *,
    cache: bool = False,
    events: list[ProgressEvent] | None = None,
    in_pull_request: bool = False,
) -> Any:
    context = make_context(in_pull_request=in_pull_request)
    gate = GateDefinition(name="g", checks={"fake": spec or CheckSpec()})
    runner = GateRunner(
        gate,
        GateSource("g", Path("g.toml"), "file"),
        OneCheckRegistry(check),
        context,
        cache=CheckCache(context.store, context.project) if cache else None,
        on_event=events.append if events is not None else None,
    )
    runner.start()
    return runner.finish(None)


def test_a_passing_check_makes_a_sufficient_verdict(make_context: MakeContext) -> None:
    verdict = run_gate(make_context, FakeCheck(lambda: measured(0)))
    assert verdict.verdict == "sufficient"
    assert verdict.checks[0].status is CheckStatus.PASSED
    assert verdict.reasons == []
    (condition,) = verdict.conditions
    assert (condition.metric, condition.actual, condition.status) == ("problems", 0, "passed")


def test_a_failed_condition_makes_it_insufficient_with_the_reason(
    make_context: MakeContext,
) -> None:
    verdict = run_gate(make_context, FakeCheck(lambda: measured(3)))
    assert verdict.verdict == "insufficient"
    assert verdict.checks[0].status is CheckStatus.FAILED
    assert verdict.reasons == ["fake: problems is 3, fails when > 0. 3 problems"]


def test_gate_conditions_replace_the_defaults(make_context: MakeContext) -> None:
    spec = CheckSpec(fail_when=[ConditionSpec(metric="rate", op="<", value=0.95, scope="new")])
    verdict = run_gate(make_context, FakeCheck(lambda: measured(3, rate=0.9)), spec)
    assert verdict.reasons == ["fake: rate on new code is 0.9, fails when < 0.95. 3 problems"]


def test_nothing_to_measure_does_not_fail(make_context: MakeContext) -> None:
    spec = CheckSpec(fail_when=[ConditionSpec(metric="rate", op="<", value=0.8)])
    verdict = run_gate(make_context, FakeCheck(lambda: measured(0, rate=None)), spec)
    assert verdict.verdict == "sufficient"
    assert "nothing to measure" in verdict.conditions[0].message


def test_an_unreported_metric_is_an_error_not_a_pass(make_context: MakeContext) -> None:
    check = FakeCheck(lambda: Measurement(summary="silent"))
    verdict = run_gate(make_context, check)
    assert verdict.verdict == "insufficient"
    assert verdict.checks[0].status is CheckStatus.ERROR
    assert "reported no problems" in verdict.checks[0].reasoning


def test_a_check_that_cannot_run_fails_the_gate_closed(make_context: MakeContext) -> None:
    def broken() -> Measurement:
        raise CheckError("tool X is missing", fix="pip install X")

    verdict = run_gate(make_context, FakeCheck(broken))
    result = verdict.checks[0]
    assert (result.status, result.fix, result.score) == (CheckStatus.ERROR, "pip install X", 0.0)
    assert verdict.reasons == ["fake: could not run: tool X is missing (fix: pip install X)"]


def test_a_crashing_check_fails_the_gate_closed(make_context: MakeContext) -> None:
    def crash() -> Measurement:
        raise ZeroDivisionError("oops")

    verdict = run_gate(make_context, FakeCheck(crash))
    assert verdict.verdict == "insufficient"
    assert "the check crashed: ZeroDivisionError: oops" in verdict.checks[0].reasoning


def test_an_optional_check_is_reported_but_does_not_decide(make_context: MakeContext) -> None:
    verdict = run_gate(make_context, FakeCheck(lambda: measured(2)), CheckSpec(required=False))
    assert verdict.verdict == "sufficient"
    assert verdict.checks[0].status is CheckStatus.FAILED
    assert verdict.checks[0].requirement == "optional"


def test_in_pull_request_checks_are_required_only_there(make_context: MakeContext) -> None:
    spec = CheckSpec(required="in-pull-request")
    outside = run_gate(make_context, FakeCheck(lambda: measured(2)), spec)
    inside = run_gate(make_context, FakeCheck(lambda: measured(2)), spec, in_pull_request=True)
    assert (outside.verdict, inside.verdict) == ("sufficient", "insufficient")


def test_skipped_needs_the_gates_permission(make_context: MakeContext) -> None:
    def skipped() -> Measurement:
        return Measurement(summary="-", skipped="nothing to compare with")

    refused = run_gate(make_context, FakeCheck(skipped))
    allowed = run_gate(make_context, FakeCheck(skipped), CheckSpec(skip_allowed=True))
    assert refused.verdict == "insufficient"
    assert refused.reasons == ["fake: skipped, but the gate requires it: nothing to compare with"]
    assert allowed.verdict == "sufficient"
    assert allowed.checks[0].status is CheckStatus.SKIPPED


def test_a_check_past_its_timeout_is_an_error(make_context: MakeContext) -> None:
    def slow() -> Measurement:
        time.sleep(2)
        return measured(0)

    verdict = run_gate(make_context, FakeCheck(slow), CheckSpec(timeout_s=0.2))
    assert verdict.checks[0].status is CheckStatus.ERROR
    assert "did not finish within 0.2s" in verdict.checks[0].reasoning


def test_a_check_past_its_timeout_is_known_to_still_run(make_context: MakeContext) -> None:
    release = threading.Event()

    def stuck() -> Measurement:
        release.wait(30)
        return measured(0)

    gate = GateDefinition(name="g", checks={"fake": CheckSpec(timeout_s=0.2)})
    source = GateSource("g", Path("g.toml"), "file")
    runner = GateRunner(gate, source, OneCheckRegistry(FakeCheck(stuck)), make_context())
    judgements = runner.run_static()
    assert judgements["fake"].result.status is CheckStatus.ERROR
    assert runner.every_check_ended() is False
    assert runner.every_check_ended(within_s=0.2) is False  # stuck still: the wait is bounded
    release.set()
    assert runner.every_check_ended(within_s=30) is True  # waited for until it returned


def test_unchanged_inputs_reuse_the_cached_measurement(
    make_context: MakeContext, tmp_path: Path
) -> None:
    source = tmp_path / "a.py"
    source.write_text("x = 1\n")
    check = FakeCheck(lambda: measured(1), inputs=[source])
    first = run_gate(make_context, check, cache=True)
    second = run_gate(make_context, check, cache=True)
    assert check.calls == 1
    assert (first.checks[0].cached, second.checks[0].cached) == (False, True)
    assert second.checks[0].status is CheckStatus.FAILED  # judged again, from the cache
    source.write_text("x = 2\n")
    third = run_gate(make_context, check, cache=True)
    assert check.calls == 2
    assert third.checks[0].cached is False


def _forge_clean(root: Path) -> None:
    """Edit the fake check's cache entry to say there is no problem."""
    entry = root / ".phasegate" / "cache" / "fake.json"
    data = json.loads(entry.read_text())
    for metrics in (data["measurement"]["metrics"], data["measurement"]["new_code_metrics"]):
        metrics["problems"] = 0
    entry.write_text(json.dumps(data, indent=2) + "\n")


def test_a_cache_entry_edited_in_place_is_measured_again_and_said(
    make_context: MakeContext, tmp_path: Path
) -> None:
    source = tmp_path / "a.py"
    source.write_text("x = 1\n")
    check = FakeCheck(lambda: measured(1), inputs=[source])
    run_gate(make_context, check, cache=True)
    _forge_clean(tmp_path)
    again = run_gate(make_context, check, cache=True)
    assert check.calls == 2
    (result,) = again.checks
    assert (result.cached, result.status) == (False, CheckStatus.FAILED)
    assert result.reasoning.endswith(
        "cache entry not used (.phasegate/cache/fake.json is not what phasegate wrote there), "
        "measured again; 1 problems"
    )
    assert run_gate(make_context, check, cache=True).checks[0].cached is True  # written anew


def test_a_cache_entry_git_tracks_is_not_believed(
    make_context: MakeContext, tmp_path: Path
) -> None:
    """Review finding 2: a forged entry committed with ``git add -f`` came with every clone."""
    git(tmp_path, "init", "-q")
    (tmp_path / ".gitignore").write_text(".phasegate/\n")
    source = tmp_path / "a.py"
    source.write_text("x = 1\n")
    check = FakeCheck(lambda: measured(1), inputs=[source])
    run_gate(make_context, check, cache=True)
    assert run_gate(make_context, check, cache=True).checks[0].cached is True  # ignored: kept
    _forge_clean(tmp_path)
    forged = (tmp_path / ".phasegate/cache/fake.json").read_text()
    forge_kept(tmp_path / ".phasegate", "cache/fake.json", forged)  # the digest forged too
    git(tmp_path, "add", "-f", ".phasegate/cache/fake.json")
    (result,) = run_gate(make_context, check, cache=True).checks
    assert check.calls == 2
    assert (result.cached, result.status) == (False, CheckStatus.FAILED)
    assert "(.phasegate/cache/fake.json is in git (tracked, or not ignored)" in result.reasoning


def test_progress_events_tell_start_and_finish(make_context: MakeContext) -> None:
    events: list[ProgressEvent] = []
    run_gate(make_context, FakeCheck(lambda: measured(0)), events=events)
    assert [(e.check, e.state, e.status) for e in events] == [
        ("fake", "started", None),
        ("fake", "finished", "passed"),
    ]


def test_a_condition_on_an_unknown_metric_names_file_and_key(make_context: MakeContext) -> None:
    spec = CheckSpec(fail_when=[ConditionSpec(metric="problemz", op=">", value=0)])
    with pytest.raises(UsageError, match=r"g\.toml: key checks\.fake\.fail_when\.0\.metric"):
        run_gate(make_context, FakeCheck(lambda: measured(0)), spec)


def test_options_the_check_does_not_take_are_refused(make_context: MakeContext) -> None:
    with pytest.raises(UsageError, match=r"unknown key checks\.fake\.options\.colour"):
        run_gate(make_context, FakeCheck(lambda: measured(0)), CheckSpec(options={"colour": 1}))


def test_an_unknown_check_lists_the_known_ones(make_context: MakeContext) -> None:
    context = make_context()
    gate = GateDefinition(name="g", checks={"lnt": CheckSpec()})
    with pytest.raises(UsageError, match=r"unknown check 'lnt'.*did you mean 'lint'"):
        GateRunner(gate, GateSource("g", Path("g.toml"), "file"), CheckRegistry(), context)


class ThirdPartyPlugin:
    """What a third-party package exposes under the phasegate entry-point group."""

    @hookimpl
    def phasegate_register_checks(self) -> list[Any]:
        return [FakeCheck(lambda: measured(0))]


def test_third_party_checks_register_through_the_hook() -> None:
    manager: pluggy.PluginManager = make_plugin_manager()
    manager.register(ThirdPartyPlugin(), name="third-party")
    registry = CheckRegistry(manager)
    assert "fake" in registry.ids()
    assert registry.get("fake").origin == "third-party"


def test_third_party_checks_cannot_take_a_built_in_id() -> None:
    class Clash(FakeCheck):
        id: ClassVar[str] = "lint"

    class Plugin:
        @hookimpl
        def phasegate_register_checks(self) -> list[Any]:
            return [Clash(lambda: measured(0))]

    manager = make_plugin_manager()
    manager.register(Plugin(), name="clash")
    with pytest.raises(UsageError, match="registers the check 'lint', but that id is taken"):
        CheckRegistry(manager)


class OtherCheck(FakeCheck):
    id: ClassVar[str] = "other"


class TwoCheckRegistry(CheckRegistry):
    def __init__(self, *checks: Any) -> None:
        super().__init__()
        self._checks = {check.id: check for check in checks}

    def get(self, check_id: str) -> Any:
        from phasegate.gates.registry import RegisteredCheck

        return RegisteredCheck(self._checks[check_id], "test")


def test_a_run_reads_each_input_once_and_the_next_run_reads_it_again(
    make_context: MakeContext, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from phasegate.gates import cache as cache_module

    source = tmp_path / "a.py"
    source.write_text("x = 1\n")
    read: list[Path] = []
    real = cache_module.content_digest
    monkeypatch.setattr(
        cache_module, "content_digest", lambda path: read.append(path) or real(path)
    )
    one = FakeCheck(lambda: measured(0), inputs=[source])
    other = OtherCheck(lambda: measured(0), inputs=[source])
    context = make_context()
    runner = GateRunner(
        GateDefinition(name="g", checks={"fake": CheckSpec(), "other": CheckSpec()}),
        GateSource("g", Path("g.toml"), "file"),
        TwoCheckRegistry(one, other),
        context,
        cache=CheckCache(context.store),
    )
    runner.start()
    runner.finish(None)
    assert read == [source]  # both checks' keys, one read
    source.write_text("x = 2\n")
    runner.start()
    verdict = runner.finish(None)
    assert read == [source, source]  # a new run reads it again, and sees the change
    assert (one.calls, other.calls) == (2, 2)
    assert not any(check.cached for check in verdict.checks)

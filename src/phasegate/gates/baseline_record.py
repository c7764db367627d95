"""Measure the gate's code checks once, over all code, for ``phasegate baseline record``.

Every finding counts here, whatever a baseline already holds and whatever the base: the file
written is the complete list of what the project accepts today. A check that cannot run
fails the recording (nothing is written): a baseline without it would be incomplete, and
its findings would then all count as new, or worse, be recorded as accepted later unseen.
"""

from __future__ import annotations

from dataclasses import dataclass

import pluggy

from phasegate.config import LoadedConfig
from phasegate.gates.baseline import BASELINE_CHECKS, build_baseline
from phasegate.gates.newcode import NewCode
from phasegate.gates.protocol import CheckContext, CheckError
from phasegate.gates.registry import CheckRegistry
from phasegate.gates.runner import plan_gate
from phasegate.gates.runner_factory import configured_gate, configured_project
from phasegate.model.baseline import Baseline
from phasegate.model.gate import BaseInfo, Finding
from phasegate.store import Store

__all__ = ["BaselineRecordError", "measure_baseline"]


@dataclass
class BaselineRecordError(Exception):
    """A check of the baseline could not run."""

    check: str
    error: CheckError

    def __str__(self) -> str:
        fix = f" Fix: {self.error.fix}" if self.error.fix else ""
        return (
            f"the {self.check} check could not run, so no baseline was written: {self.error}{fix}"
        )


def measure_baseline(
    loaded: LoadedConfig, store: Store, extensions: pluggy.PluginManager, gate_name: str
) -> Baseline:
    """The baseline of gate ``gate_name``'s code checks over all of the project's code.

    Raises :class:`~phasegate.errors.UsageError` when the gate has none of
    :data:`~phasegate.gates.baseline.BASELINE_CHECKS`, and :class:`BaselineRecordError` when
    one of them cannot run.
    """
    from phasegate.errors import UsageError

    settings = loaded.config
    gate, source = configured_gate(loaded, gate_name)
    plan = plan_gate(gate, source, CheckRegistry(extensions), in_pull_request=False)
    chosen = [check_id for check_id in plan if check_id in BASELINE_CHECKS]
    if not chosen:
        raise UsageError(
            f"the gate {gate.name} has none of the checks a baseline accepts findings of "
            f"({', '.join(BASELINE_CHECKS)}); choose another with --gate"
        )
    context = CheckContext(
        project=configured_project(loaded, store),
        new_code=NewCode(BaseInfo(note="a baseline is recorded over all code")),
        store=store,
        timeout_s=settings.check_timeout_s,
    )
    findings: dict[str, list[Finding]] = {}
    for check_id in chosen:
        planned = plan[check_id]
        try:
            planned.check.tool_info()
            measurement = planned.check.measure(context, planned.options)
        except CheckError as exc:
            raise BaselineRecordError(check_id, exc) from exc
        findings[check_id] = list(measurement.findings)
    return build_baseline(loaded.project_root, gate.name, findings)

"""Gate results kept per workflow instance and per task, never overwritten.

A gate writes its verdict to ``.phasegate/gates/<gate>.json``, which the next run of that gate
replaces. Each exit gate run for an instance is copied to
``.phasegate/workflows/<id>/gates/<NNN>-<gate>.json`` and each gate run for a task to
``<tasks>/gates/<task>/<NNN>-<gate>.json``, and listed as a :class:`GateRecord` in the
instance file or the task's history, so every verdict an instance or a task ever had stays.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from pydantic import ValidationError

from phasegate.model.gate import GateVerdict
from phasegate.model.workflow import GateRecord
from phasegate.store import Store
from phasegate.workflow.gating import GateOutcome

__all__ = ["keep_verdict"]


def keep_verdict(
    outcome: GateOutcome,
    store: Store,
    folder: str,
    *,
    number: int,
    attempt: int,
    at: datetime,
    phase: str | None = None,
    cycle: int | None = None,
) -> GateRecord:
    """Copy the verdict into ``folder`` (of ``store``) as run ``number``; its record.

    A gate that was not judged has no verdict of its own to keep (the file at its
    ``verdict_path`` is an older run's, if any): its record keeps only the reasons.
    """
    kept = ""
    score: float | None = None
    try:
        raw = Path(outcome.verdict_path).read_bytes() if outcome.judged else b""
    except OSError:
        raw = b""  # the gate was not judged: the record says so through its reasons
    if raw:
        relpath = f"{folder}/{number:03d}-{outcome.gate}.json"
        kept = str(store.write_bytes(relpath, raw).relative_to(store.root))
        try:
            score = GateVerdict.model_validate_json(raw).score
        except ValidationError:
            score = None
    return GateRecord(
        gate=outcome.gate,
        at=at,
        phase=phase,
        cycle=cycle,
        attempt=attempt,
        sufficient=outcome.sufficient,
        score=score,
        reasons=list(outcome.reasons),
        verdict_path=kept,
    )

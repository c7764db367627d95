"""The artifacts a report is rendered from, read from one artifacts folder.

A bundle is the gate's verdict, the run report it judged, the refinement loop and the review
records, each optional: a run recorded without a gate has no verdict, a first run has no loop.
A file that is present but unreadable is an error naming it (a report must not silently show
less than there is).
"""

from __future__ import annotations

import contextlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from phasegate.collector_pause import collections_paused
from phasegate.errors import UsageError
from phasegate.model.gate import GateVerdict
from phasegate.model.refine import RefinementState
from phasegate.model.review import REVIEWS_FILE, ReviewRecord
from phasegate.model.run import RunReport
from phasegate.store import REFINEMENT_FILE, RUN_REPORT_FILE, Store, first_error
from phasegate.versioning import check_version

__all__ = ["Bundle", "load_bundle", "read_artifact"]

M = TypeVar("M", bound=BaseModel)

_VERSION = re.compile(rb'\A\{\s*"schema_version"\s*:\s*"([^"]*)"')


@dataclass
class Bundle:
    """Everything a renderer may show; ``source`` is the folder it came from."""

    source: Path
    verdict: GateVerdict | None = None
    run: RunReport | None = None
    refinement: RefinementState | None = None
    reviews: list[ReviewRecord] = field(default_factory=list)


def read_artifact(path: Path, model: type[M]) -> M:
    """Read one artifact file, or raise a usage error naming the file and the problem.

    A file of a newer major schema is refused (:class:`SchemaVersionError`), read no further.
    """
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from exc
    header = _VERSION.match(raw[:200])
    if header is not None:
        check_version(path, {"schema_version": header.group(1).decode()})
    else:  # not JSON at all: the validation below says so
        with contextlib.suppress(ValueError, UnicodeDecodeError, RecursionError):
            check_version(path, json.loads(raw))
    try:
        with collections_paused():
            return model.model_validate_json(raw)
    except ValidationError as exc:
        raise UsageError(
            f"{path} is not a valid {getattr(model, 'KIND', model.__name__)} file: "
            f"{first_error(exc)}"
        ) from exc


def load_bundle(folder: Path, gate: str | None = None) -> Bundle:
    """Read the artifacts of ``folder`` (a ``.phasegate`` folder).

    ``gate`` picks the verdict (``gates/<gate>.json``); without it, the verdict of the latest
    run is used: the one that judged ``report.json``, else the most recent one made after it
    (a gate of documents, say), else none.
    """
    if not folder.is_dir():
        raise UsageError(f"{folder} is not a folder; give the artifacts folder (.phasegate)")
    bundle = Bundle(source=folder)
    if (folder / RUN_REPORT_FILE).is_file():
        bundle.run = read_artifact(folder / RUN_REPORT_FILE, RunReport)
    if gate is not None:
        bundle.verdict = read_artifact(_named_verdict(folder, gate), GateVerdict)
    else:
        bundle.verdict = _latest_verdict(folder, bundle.run)
    if bundle.verdict is None and bundle.run is None:
        raise UsageError(
            f"{folder} holds neither a run report ({RUN_REPORT_FILE}) nor a verdict "
            "(gates/*.json); run pytest --gate first, or point at the artifacts folder"
        )
    bundle.refinement = _refinement(folder, bundle.verdict)
    bundle.reviews = _reviews(folder / REVIEWS_FILE)
    return bundle


def _refinement(folder: Path, verdict: GateVerdict | None) -> RefinementState | None:
    """The refinement loop of the verdict's gate (of any gate when there is no verdict)."""
    if not (folder / REFINEMENT_FILE).is_file():
        return None
    state = read_artifact(folder / REFINEMENT_FILE, RefinementState)
    return state if verdict is None or state.gate == verdict.gate else None


def _named_verdict(folder: Path, gate: str) -> Path:
    path = folder / Store.verdict_file(gate)
    if not path.is_file():
        known = [p.stem for p in _verdict_files(folder)]
        raise UsageError(
            f"{path} does not exist; verdicts in {folder}: {', '.join(known) or 'none'}"
        )
    return path


def _latest_verdict(folder: Path, run: RunReport | None) -> GateVerdict | None:
    """The verdict of the latest run: the one that judged ``report.json``, else the newest.

    A folder keeps one verdict per gate ever run in it; the report is of the last run, so the
    verdict that read it is the one a reader of "the report" means. A verdict older than the
    report judged an earlier run (the latest only recorded its tests, or its verdict was not
    written): shown beside this report, or published as the action's verdict, it would pass
    off an old judgement as this run's, so there is none.
    """
    verdicts = [read_artifact(path, GateVerdict) for path in _verdict_files(folder)]
    if run is not None:
        for verdict in verdicts:
            if verdict.run_id == run.run_id:
                return verdict
        verdicts = [verdict for verdict in verdicts if verdict.finished_at >= run.finished_at]
    if not verdicts:
        return None
    return max(verdicts, key=lambda verdict: (verdict.finished_at, verdict.gate))


def _verdict_files(folder: Path) -> list[Path]:
    gates = folder / "gates"
    return sorted(gates.glob("*.json")) if gates.is_dir() else []


def _reviews(path: Path) -> list[ReviewRecord]:
    if not path.is_file():
        return []
    reviews: list[ReviewRecord] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            reviews.append(ReviewRecord.model_validate(json.loads(line)))
        except (ValueError, ValidationError) as exc:
            raise UsageError(f"{path} line {number} is not a review record: {exc}") from exc
    return reviews

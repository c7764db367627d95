"""coverage.py's per-file analysis, shared between the pytest process and a helper process.

After the tests, ``pytest --gate`` analyses every measured file with coverage.py (its parser
over the file's source finds the statements and branches; by hand this is ``coverage json``).
On a large package that is seconds of one core while the other idles, the static checks having
ended. So the pytest process hands part of it to the static checks' process, which is still
running (it ends only once the pytest process lets it go) and takes part once its own checks
have ended, on the core they leave free: the pytest process saves the data, names the measured
files in one order (largest first) and both take files from the two ends of that list, each
claiming a file before analysing it (a file created with ``O_EXCL`` in a folder of claims, so
that no file is analysed twice and none is left out): the pytest process from the front, the
helper from the back, until they meet. The helper writes its files' figures as JSON, and the
pytest process adds them to its own. Each
side asks coverage.py exactly what its reports ask (``coverage.report_core
.get_analysis_to_report``, one file at a time, with the project's coverage settings and the
same data), so the figures are those of ``coverage json``.

Fail closed: a helper that cannot take the request leaves every file to the pytest process;
a helper that took it and then crashed, outlived its time, wrote nothing, wrote what is not
this shape, or left out a file it claimed makes the measurement an error
(:class:`~phasegate.gates.coverage_run.MeasurementError`), so that the coverage check is an
``error``: never figures of part of the files. Nothing about a file is read from the helper
but its figures: its name is the one the pytest process sent.

Written here rather than taken from a library: coverage.py analyses in one process only.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Protocol, TypedDict, cast

from pydantic import BaseModel, ConfigDict, ValidationError

from phasegate.failures import relative_path
from phasegate.gates.coverage_run import (
    Analyses,
    CoverageFigures,
    FileFigures,
    MeasurementError,
    figures_of,
    file_analysis,
    open_data,
    prepared,
)
from phasegate.store import write_atomically

if TYPE_CHECKING:
    import coverage

__all__ = ["ShareHelper", "ShareRequest", "serve", "shared_figures"]


class ShareHelper(Protocol):
    """The process that takes part of the analysis (the static checks' process)."""

    def ask(self, request: str) -> bool:
        """Hand it the request (one line of JSON); False when it cannot take it."""
        ...

    def wait_until_ended(self) -> None:
        """Wait for it to end; raise (any exception) when it did not end in its time."""
        ...


class ShareRequest(TypedDict):
    """What the helper is asked: the data, the project, the files in order, where to claim
    and where to write."""

    root: str
    data_file: str
    files: list[str]
    claims: str
    out: str


class _Analysed(TypedDict):
    figures: FileFigures
    numbers: tuple[int, int, int, int]


#: One file's figures and numbers, or ``None`` for a file coverage.py does not report.
Analysed = _Analysed | None


class _StrictModel(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class _FiguresDocument(_StrictModel):
    executed_lines: list[int]
    missing_lines: list[int]
    excluded_lines: list[int]
    executed_branches: list[tuple[int, int]] | None = None
    missing_branches: list[tuple[int, int]] | None = None


class _AnalysedDocument(_StrictModel):
    figures: _FiguresDocument
    numbers: tuple[int, int, int, int]


class _HelperOutput(_StrictModel):
    """What the helper writes: each file it claimed, by its index, with its figures."""

    files: list[tuple[int, _AnalysedDocument | None]]


def claim(claims: Path, index: int) -> bool:
    """Claim file ``index`` for this process; False when the other process has it (or has
    finished every file and removed the claims)."""
    try:
        handle = os.open(claims / str(index), os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except (FileExistsError, FileNotFoundError):
        return False
    os.close(handle)
    return True


def largest_first(files: Iterable[str]) -> list[str]:
    """The measured files, largest first (the pytest process starts with them)."""

    def size(name: str) -> int:
        try:
            return os.stat(name).st_size
        except OSError:
            return 0

    return sorted(files, key=lambda name: (-size(name), name))


def shared_figures(
    cov: coverage.Coverage, module: ModuleType, root: Path, data_file: Path, helper: ShareHelper
) -> CoverageFigures:
    """The figures of ``cov`` (whose data is saved in ``data_file``), analysed here and by
    ``helper`` side by side."""
    with prepared(cov, module) as analyses:
        files = largest_first(cov.get_data().measured_files())
        with tempfile.TemporaryDirectory(prefix="phasegate-coverage-") as folder:
            claims = Path(folder) / "claims"
            claims.mkdir()
            out = Path(folder) / "figures.json"
            request: ShareRequest = {
                "root": str(root),
                "data_file": str(data_file),
                "files": files,
                "claims": str(claims),
                "out": str(out),
            }
            asked = helper.ask(json.dumps(request))
            mine = _analyse_from_front(cov, module, analyses, files, claims if asked else None)
            theirs = _helper_figures(helper, out, range(len(mine), len(files))) if asked else {}
    return _combined(cov, module, root, files, {**mine, **theirs})


def _analyse_from_front(
    cov: coverage.Coverage,
    module: ModuleType,
    analyses: Analyses,
    files: Sequence[str],
    claims: Path | None,
) -> dict[int, Analysed]:
    """Files from the front of the list, each claimed first (every one when no helper)."""
    analysed: dict[int, Analysed] = {}
    for index, name in enumerate(files):
        if claims is not None and not claim(claims, index):
            break
        analysed[index] = _analysed(cov, module, analyses, name)
    return analysed


def _analysed(
    cov: coverage.Coverage, module: ModuleType, analyses: Analyses, name: str
) -> Analysed:
    found = file_analysis(cov, module, analyses, name)
    if found is None:
        return None
    figures, numbers = found
    return {"figures": figures, "numbers": numbers}


def _helper_figures(helper: ShareHelper, out: Path, expected: range) -> dict[int, Analysed]:
    """The helper's figures, once it ended: exactly the files it claimed, or an error."""
    if not expected:
        return {}  # it claimed nothing; its results are not needed
    try:
        helper.wait_until_ended()
        raw = out.read_bytes()
    except Exception as exc:  # any way it failed: the figures are incomplete
        raise MeasurementError(
            f"the process analysing part of the measured files gave no figures: {exc}"
        ) from exc
    found = _vetted(raw)
    if found is None or set(found) != set(expected):
        raise MeasurementError(
            "the process analysing part of the measured files did not return the figures of "
            f"exactly the files it claimed (files {expected.start} to {expected.stop - 1})"
        )
    return found


def _vetted(raw: bytes) -> dict[int, Analysed] | None:
    """The helper's output in its known shape (pydantic, strict), or None."""
    try:
        files = _HelperOutput.model_validate_json(raw).files
    except ValidationError:
        return None
    found = {index: _as_analysed(document) for index, document in files}
    return found if len(found) == len(files) else None  # each file once


def _as_analysed(document: _AnalysedDocument | None) -> Analysed:
    if document is None:
        return None
    figures = cast("FileFigures", document.figures.model_dump(mode="json", exclude_none=True))
    return {"figures": figures, "numbers": document.numbers}


def _combined(
    cov: coverage.Coverage,
    module: ModuleType,
    root: Path,
    files: Sequence[str],
    analysed: dict[int, Analysed],
) -> CoverageFigures:
    """One figures document of every file's, ordered by name as coverage.py's reports are."""
    entries: list[tuple[str, FileFigures, Sequence[int]]] = []
    for index, name in enumerate(files):
        item = analysed[index]
        if item is not None:
            relpath = relative_path(Path(name).resolve(), root)
            entries.append((relpath, item["figures"], item["numbers"]))
    if not entries:
        raise MeasurementError("coverage.py measured no code: No data to report.")
    return figures_of(cov, module, sorted(entries, key=lambda entry: entry[0]))


def serve(line: str) -> None:
    """The helper's side: analyse files from the back of the request's list, each claimed
    first, until meeting the pytest process; write their figures to the request's ``out``.

    coverage.py is loaded (about 160 million instructions: its import, the settings, the data)
    only once the last file is claimed: when the pytest process was quicker to all of them,
    the share costs the helper nothing.
    """
    request: ShareRequest = json.loads(line)
    files, claims = request["files"], Path(request["claims"])
    if not files or not claim(claims, len(files) - 1):
        return  # the pytest process analysed every file; it reads nothing of ours
    from phasegate.optional import require

    module = require("coverage", what="the coverage check", package="coverage", extra="gate")
    analysed: list[tuple[int, Analysed]] = []
    index = len(files) - 1  # claimed above
    with (
        open_data(module, Path(request["root"]), Path(request["data_file"])) as cov,
        prepared(cov, module) as analyses,
    ):
        while True:
            analysed.append((index, _analysed(cov, module, analyses, files[index])))
            index -= 1
            if index < 0 or not claim(claims, index):
                break
    write_atomically(Path(request["out"]), json.dumps({"files": analysed}).encode("utf-8"))

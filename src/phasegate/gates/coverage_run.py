"""Measure coverage of a test run with coverage.py, across pytest-xdist workers too.

Each process that runs tests measures in memory (no data file is written by a worker); a
worker hands its data to the controller as bytes (``CoverageData.dumps``), the controller
merges them, saves the combined data to ``.phasegate/coverage/.coverage`` (what
``phasegate merge`` combines across CI shards) and writes coverage.py's JSON report, which the
coverage check reads. The project's own coverage configuration (``[tool.coverage]``,
``.coveragerc``) applies; when it names no ``source``, the project's packages are measured.
Branch coverage is always on.
"""

from __future__ import annotations

import contextlib
import json
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from phasegate.failures import relative_path
from phasegate.optional import require

__all__ = [
    "COVERAGE_DATA",
    "COVERAGE_JSON",
    "NOTES_KEY",
    "CoverageRun",
    "MeasurementError",
    "read_data_file",
]

#: The key under which the JSON report handed to the check carries coverage.py's warnings.
NOTES_KEY = "phasegate_notes"

#: Where the combined data and the JSON report go, inside the artifacts folder.
COVERAGE_DATA = "coverage/.coverage"
COVERAGE_JSON = "coverage/coverage.json"


class CoverageRun:
    """One process's measurement, started as early as possible."""

    def __init__(self, root: Path, packages: Sequence[Path]) -> None:
        module = require("coverage", what="the coverage check", package="coverage", extra="gate")
        self._coverage_module = module
        self.root = root
        probe = module.Coverage(data_file=None, config_file=_config_file(root))
        has_source = bool(probe.get_option("run:source") or probe.get_option("run:source_pkgs"))
        self._cov = module.Coverage(
            data_file=None,
            branch=True,
            config_file=_config_file(root),
            source=None if has_source else [str(path) for path in packages],
        )
        self._started = False
        self.notes: list[str] = []

    def start(self) -> None:
        """Start measuring this process.

        coverage.py warns (here and when data is read) about measured modules that were
        imported before it started: their import-time lines cannot count as run. Such a
        warning must not stop a test run, and a warnings filter of the project may turn it into
        an error: it is kept as a note for the coverage check instead.
        """
        with self._warnings_as_notes():
            self._cov.start()
        self._started = True

    def stop(self) -> None:
        """Stop measuring (safe to call twice)."""
        if self._started:
            self._cov.stop()
            self._started = False

    def dumps(self) -> bytes:
        """This process's data as bytes, for the controller."""
        self.stop()
        with self._warnings_as_notes():
            data: bytes = self._cov.get_data().dumps()
        return data

    def merge(self, payload: bytes) -> None:
        """Add a worker's data to this measurement."""
        other = self._coverage_module.CoverageData(no_disk=True)
        other.loads(payload)
        self._cov.get_data().update(other)

    def report(self, json_path: Path, *, data_path: Path | None = None) -> dict[str, Any]:
        """Write coverage.py's JSON report (and the data to ``data_path``); return the report.

        File names in the returned report are relative to the project root.
        """
        self.stop()
        with self._warnings_as_notes():
            if data_path is not None:
                data_path.parent.mkdir(parents=True, exist_ok=True)
                if data_path.exists():
                    data_path.unlink()  # a data file is a database: start anew, not merged
                saved = self._coverage_module.CoverageData(basename=str(data_path))
                saved.update(self._cov.get_data())
                saved.write()
            report = _json_report(self._cov, self._coverage_module, self.root, json_path)
        report[NOTES_KEY] = list(dict.fromkeys(self.notes))
        return report

    @contextlib.contextmanager
    def _warnings_as_notes(self) -> Iterator[None]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            yield
        self.notes.extend(str(warning.message) for warning in caught)


class MeasurementError(Exception):
    """Coverage was measured but nothing could be reported."""


def read_data_file(root: Path, data_file: Path | None, json_path: Path) -> dict[str, Any]:
    """The JSON report of an existing data file (merged shards; ``None``: the one the
    project's coverage configuration names, as pytest-cov writes it)."""
    module = require("coverage", what="the coverage check", package="coverage", extra="gate")
    if data_file is None:
        cov = module.Coverage(config_file=_config_file(root))
    else:
        cov = module.Coverage(data_file=str(data_file), config_file=_config_file(root))
    cov.load()
    return _json_report(cov, module, root, json_path)


def _json_report(cov: Any, module: Any, root: Path, json_path: Path) -> dict[str, Any]:
    json_path.parent.mkdir(parents=True, exist_ok=True)
    try:
        cov.json_report(outfile=str(json_path), ignore_errors=True)
    except module.exceptions.NoDataError as exc:
        raise MeasurementError(f"coverage.py measured no code: {exc}") from exc
    loaded: dict[str, Any] = json.loads(json_path.read_text(encoding="utf-8"))
    # coverage.py names files relative to the current folder; the checks want the root.
    loaded["files"] = {
        relative_path(Path(name).resolve(), root): entry
        for name, entry in loaded.get("files", {}).items()
    }
    return loaded


def _config_file(root: Path) -> str | bool:
    """The project's coverage configuration file, found from the root (not the cwd)."""
    markers = {
        ".coveragerc": "",
        "pyproject.toml": "[tool.coverage",
        "setup.cfg": "[coverage:",
        "tox.ini": "[coverage:",
    }
    for name, marker in markers.items():
        path = root / name
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        if marker in text:
            return str(path)
    return False

"""The fault-injection suite: a hostile environment, tried on purpose, must never yield a pass.

Each test tries one fault (a tool that crashes, a corrupt file, a race...) inside ``tried``,
which records the area, the fault and whether it held: the block ran to its end with every
assertion met. A fault that did not hold fails its test, and is recorded as ``fail-open``.
With ``PHASEGATE_RELIABILITY_OUT`` set, the records are appended to that file as JSON lines;
``benchmarks/reliability.py`` runs this suite that way and writes ``docs/reliability.md``.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path

import pytest

#: The environment variable naming the file the records go to.
LEDGER_ENV = "PHASEGATE_RELIABILITY_OUT"

Tried = Callable[[str, str], AbstractContextManager[None]]


def _record(area: str, fault: str, held: bool) -> None:
    out = os.environ.get(LEDGER_ENV)
    if not out:
        return
    line = json.dumps({"area": area, "fault": fault, "held": held}) + "\n"
    # One small O_APPEND write per record: pytest-xdist workers may append at once.
    descriptor = os.open(out, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(descriptor, line.encode("utf-8"))
    finally:
        os.close(descriptor)


@pytest.fixture
def tried() -> Tried:
    """``with tried(area, fault):`` the block asserts that the fault held."""

    @contextlib.contextmanager
    def attempt(area: str, fault: str) -> Iterator[None]:
        try:
            yield
        except BaseException:
            _record(area, fault, held=False)
            raise
        _record(area, fault, held=True)

    return attempt


@pytest.fixture
def fake_bin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder put first on PATH, for fake executables (git)."""
    folder = tmp_path / "fake-bin"
    folder.mkdir()
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ.get('PATH', '')}")
    return folder


@pytest.fixture
def fake_modules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder put first on the children's PYTHONPATH, for fake tools (``python -m ruff``)."""
    folder = tmp_path / "fake-modules"
    folder.mkdir()
    existing = os.environ.get("PYTHONPATH")
    monkeypatch.setenv("PYTHONPATH", f"{folder}{os.pathsep}{existing}" if existing else str(folder))
    return folder

"""The fault corpus: generated as committed, ten or more faults per class, one file each."""

from __future__ import annotations

import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

import pytest

from tests.conftest import REPO_ROOT

CORPUS = REPO_ROOT / "fixtures" / "faults"
CLASSES = ("syntax", "name", "attribute", "import", "type", "none")


def faults() -> list[Path]:
    return sorted(p for c in CLASSES for p in (CORPUS / c).iterdir() if p.is_dir())


def test_the_committed_corpus_is_what_the_generator_writes() -> None:
    completed = subprocess.run(
        [sys.executable, str(REPO_ROOT / "benchmarks" / "make_fault_corpus.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr


def test_every_class_has_at_least_ten_faults() -> None:
    counts = Counter(tomllib.loads((f / "FAULT.toml").read_text())["class"] for f in faults())
    assert set(counts) == set(CLASSES)
    assert min(counts.values()) >= 10


@pytest.mark.parametrize("fault", faults(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_each_fault_changes_one_source_file_of_its_base(fault: Path) -> None:
    meta = tomllib.loads((fault / "FAULT.toml").read_text())
    assert meta["class"] == fault.parent.name
    base = CORPUS / "_base" / meta["base"]
    changed = [
        str(path.relative_to(base))
        for path in base.rglob("*")
        if path.is_file()
        and "__pycache__" not in path.parts  # left by a run of the base project's tests
        and path.read_bytes() != (fault / path.relative_to(base)).read_bytes()
    ]
    assert changed == [meta["file"]]
    assert not meta["file"].startswith("tests/")


@pytest.mark.slow
@pytest.mark.parametrize("base", ["inventory", "textkit", "geometry", "ledger"])
def test_each_base_project_passes_its_tests(base: str) -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:phasegate"],
        cwd=CORPUS / "_base" / base,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},  # leave the fixture as committed
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode == 0, completed.stdout[-2000:]

"""``benchmarks/guard_bodies.py``: a deleted None guard, synthesized again without tests."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest

from tests.conftest import load_benchmark

HELPERS = """
def shout(text, suffix=None):
    if suffix is None:
        suffix = "!"
    return text.upper() + suffix


def whisper(text, suffix=None):
    if suffix is None:
        suffix = "!"
    return text.lower() + suffix


def odd(a, b=None):
    c = a + 1
    if b is None:
        b = len(str(a)) * 7 - 3
    return c + b
"""


@pytest.fixture(scope="module")
def guard_bodies() -> ModuleType:
    return load_benchmark("guard_bodies")


def _package(root: Path, name: str) -> Path:
    folder = root / name
    folder.mkdir()
    (folder / "__init__.py").write_text("")
    (folder / "helpers.py").write_text(HELPERS)
    return folder


def _outcomes(guard_bodies: ModuleType, folder: Path) -> dict[str, object]:
    project = guard_bodies.InstalledPackage(folder)
    found = list(guard_bodies.guards(folder.name, project))
    return {g.subject + str(g.line): guard_bodies.outcome(project, g) for g in found}


def test_a_guard_the_project_repeats_is_given_back_first(
    guard_bodies: ModuleType, tmp_path: Path
) -> None:
    outcomes = _outcomes(guard_bodies, _package(tmp_path, "fakepkg"))
    # Each `suffix` guard is given back, the same body at the same place, from the other.
    assert outcomes["suffix3"].rank == 1
    assert outcomes["suffix9"].rank == 1
    assert outcomes["suffix3"].why == "as the project guards it elsewhere"


def test_a_body_nothing_gives_is_not_found(guard_bodies: ModuleType, tmp_path: Path) -> None:
    outcomes = _outcomes(guard_bodies, _package(tmp_path, "fakepkg"))
    assert outcomes["b16"].rank is None
    assert outcomes["b16"].candidates > 0  # candidates were made, none of them the original


def test_the_tally_counts_each_half_and_lists_the_misses(
    guard_bodies: ModuleType, tmp_path: Path
) -> None:
    _package(tmp_path, "fakepkg")
    half = guard_bodies.half_of("fakepkg", guard_bodies.SEED)
    tally = guard_bodies.measure(tmp_path, guard_bodies.SEED, (half,), verbose=False)[half]
    assert (tally.guards, tally.first, tally.in_budget, tally.found) == (3, 2, 2, 2)
    assert tally.misses == ["fakepkg/helpers.py:16 `if b is None: b = len(str(a)) * 7 - 3`"]
    assert tally.by_source["not found"] == 1


def test_the_benchmarks_own_projects_are_left_out(guard_bodies: ModuleType, tmp_path: Path) -> None:
    _package(tmp_path, "click")
    tallies = guard_bodies.measure(tmp_path, guard_bodies.SEED, ("dev", "report"), verbose=False)
    assert [t.guards for t in tallies.values()] == [0, 0]

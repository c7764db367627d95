"""benchmarks/gate_timeline.py: the serial stretches of a run's timeline, or why it has none."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest

from tests.conftest import REPO_ROOT, load_benchmark

TIMELINE = [
    (0.0, "this script starts pytest"),
    (0.5, "pytest starts (pid 1)"),
    (0.7, "phasegate.gates.static_process starts (pid 2)"),
    (3.0, "tests end"),
    (3.5, "phasegate.gates.static_process exits, 1.00 s CPU of its own"),
    (4.0, "pytest exits, 2.00 s CPU of its own"),
    (4.25, "pytest reaped: 4.25 s wall, 3.50 s CPU with children"),
]


@pytest.fixture(scope="module")
def gate_timeline() -> ModuleType:
    return load_benchmark("gate_timeline")


def test_the_serial_stretches_are_measured_from_the_runs_moments(
    gate_timeline: ModuleType,
) -> None:
    assert gate_timeline.serial_stretches(TIMELINE) == {
        "before the static checks' process starts": 0.7,
        "after the static checks' process exits": 0.75,
        "tests end to pytest reaped": 1.25,
        "pytest's atexit to pytest reaped": 0.25,
    }


def test_a_run_without_the_static_process_says_so(
    gate_timeline: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    events = [event for event in TIMELINE if "static_process" not in event[1]]
    gate_timeline.print_stretches(events)
    assert capsys.readouterr().out == (
        "  no serial stretches: the static checks' process never started "
        "(every static check cached, or none planned)\n"
    )


def test_a_pep_517_hook_is_named_by_its_hook(gate_timeline: ModuleType) -> None:
    hook = ["/usr/bin/python3", "/venv/pyproject_hooks/_in_process/_in_process.py"]
    assert gate_timeline.process_name([*hook, "build_wheel", "/tmp/x"]) == "build hook build_wheel"
    collector_off = [hook[0], "-c", "import gc\ngc.disable()\n", *hook[1:], "build_sdist", "/tmp/x"]
    assert gate_timeline.process_name(collector_off) == "build hook build_sdist"
    assert gate_timeline.process_name(["python", "-m", "build", "--no-isolation"]) == "build"
    assert gate_timeline.process_name(["python", "script.py"]) == "script.py"


def test_this_checkout_runs_its_own_phasegate(gate_timeline: ModuleType) -> None:
    source: Path = gate_timeline.THIS_CHECKOUT_SRC
    assert source == REPO_ROOT / "src"
    assert (source / "phasegate" / "__init__.py").is_file()


STATIC_EVENTS = [
    (0.5, "phasegate.gates.static_process starts (pid 2)"),
    (0.75, "check syntax started"),
    (0.75, "check build started"),
    (1.0, "build starts (pid 3)"),
    (1.25, "build hook get_requires_for_build_sdist starts (pid 4)"),
    (1.75, "build hook build_wheel exits, 0.20 s CPU of its own"),
    (2.0, "build exits, 0.10 s CPU of its own"),
    (2.25, "check build finished"),
    (2.4, "waiting for the static process starts"),
    (2.5, "phasegate.gates.static_process exits, 1.00 s CPU of its own"),
    (2.5, "waiting for the static process ends"),
    (3.0, "session end ends (verdict written)"),
]


def test_the_static_sides_stretches_are_measured_from_the_runs_moments(
    gate_timeline: ModuleType,
) -> None:
    assert list(gate_timeline.static_side(STATIC_EVENTS).values()) == [
        0.25,
        0.25,
        1.0,
        0.25,
        0.5,  # to the first hook, `python -m build`'s start among it
        0.5,
        0.5,
        0.25,
        0.25,  # to the parent's having the judgements
        0.0,
        0.5,
    ]
    # The front end in the static process: no `python -m build`, the hooks alone.
    in_process = [event for event in STATIC_EVENTS if not event[1].startswith("build ")]
    in_process += [
        (1.0, "build hook get_requires_for_build_sdist starts (pid 4)"),
        (1.5, "build hook build_wheel exits, 0.20 s CPU of its own"),
    ]
    assert gate_timeline.static_side(sorted(in_process)) == {
        "the static process's start, to its first check": 0.25,
        "the build check's preparation, to its first hook": 0.25,
        "the build's hooks, the first's start to the wheel's exit": 0.5,
        "the build check's end after the wheel's hook": 0.75,
        "the build check's end, to the static process's exit": 0.25,
        "the build check's end, to the parent's having the judgements": 0.25,
        "the parent's noticing the static process's exit, once waiting": 0.0,
        "the session's end after the wait (verdict, round, summary)": 0.5,
    }
    # A run whose build was cached has no build process: those stretches are left out.
    cached = [event for event in STATIC_EVENTS if not event[1].startswith("build ")]
    assert gate_timeline.static_side(cached) == {
        "the static process's start, to its first check": 0.25,
        "the build check's end, to the static process's exit": 0.25,
        "the build check's end, to the parent's having the judgements": 0.25,
        "the parent's noticing the static process's exit, once waiting": 0.0,
        "the session's end after the wait (verdict, round, summary)": 0.5,
    }
    # The judgements read before the static process's exit (it removes its folders after):
    # the path goes from the build check's end to the parent's having them.
    before_exit = [(t, e) for t, e in STATIC_EVENTS if not e.startswith("waiting for")]
    before_exit += [(2.3, "waiting for the static process starts")]
    before_exit += [(2.35, "waiting for the static process ends")]
    read_early = gate_timeline.static_side(sorted(before_exit))
    key = "the build check's end, to the parent's having the judgements"
    assert round(read_early[key], 3) == 0.1
    # The static process ended before the parent waited: the noticing counts from the wait.
    early = [(t, e) for t, e in STATIC_EVENTS if not e.startswith("waiting")]
    early += [(2.75, "waiting for the static process starts")]
    early += [(2.8, "waiting for the static process ends")]
    noticing = gate_timeline.static_side(sorted(early))
    assert (
        round(noticing["the parent's noticing the static process's exit, once waiting"], 3) == 0.05
    )


def test_each_stretchs_median_is_over_the_runs_that_have_it(gate_timeline: ModuleType) -> None:
    runs = [{"`python -m build`": 1.0}, {"`python -m build`": 3.0}, {}]
    runs[2]["the static process's start, to its first check"] = 0.5
    assert gate_timeline.median_stretches(runs) == {
        "the static process's start, to its first check": 0.5,
        "`python -m build`": 2.0,
    }

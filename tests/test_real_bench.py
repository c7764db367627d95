"""The real-code benchmark's own parts: the whole-suite yardstick, seeds left out, requirements."""

from __future__ import annotations

import ast
import json
import os
import tarfile
from dataclasses import asdict, replace
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.conftest import load_benchmark
from tests.realprojects import require


@pytest.fixture(scope="module")
def real_bench() -> ModuleType:
    """``benchmarks/real_bench.py``, with ``sys.path`` as it was before it was loaded."""
    return load_benchmark("real_bench")


def result(module: ModuleType, project: str, **figures: float) -> Any:
    """A result of ``project`` with the given timings, the rest of no account here."""
    timings = {"wall_s": 10.0, "autodebug_s": 5.0, "reference_s": 2.0, **figures}
    return module.Result(
        fault=f"{project}:f{len(figures)}",
        project=project,
        error_class="none",
        operator="drop-none-guard",
        half="dev",
        outcome="correct",
        tests_modified=0,
        tree_changed_unkept=False,
        failures=1,
        candidates_tried=1,
        description="",
        **timings,
    )


def test_the_ratio_to_the_whole_suite_is_printed_cpu_first_with_its_verdict(
    real_bench: ModuleType,
) -> None:
    results = [
        result(real_bench, "a", wall_s=30.0, autodebug_s=12.0, autodebug_run_cpu_s=40.0),
        result(real_bench, "a", wall_s=10.0, autodebug_s=4.0, autodebug_run_cpu_s=10.0),
        result(real_bench, "b", wall_s=50.0, autodebug_s=20.0, autodebug_run_cpu_s=90.0),
    ]
    lines = real_bench.suite_lines(results, {"a": 20.0, "b": 10.0}, {"a": 20.0, "b": 30.0})
    assert lines == [
        "time per fault / one plain run of its project's whole suite, median of 3:",
        "  CPU of the whole pytest --autodebug run: 2.00 (target <= 2: met)",
        "  wall of the whole pytest --autodebug run: 1.50 (target <= 2: met)",
        "  wall of auto-debug's own time: 0.60",
        "  suites (wall, CPU): a 20.0s (20.0s CPU), b 10.0s (30.0s CPU)",
    ]


def test_a_ratio_over_two_is_missed(real_bench: ModuleType) -> None:
    results = [result(real_bench, "a", wall_s=41.0, autodebug_run_cpu_s=61.0)]
    lines = real_bench.suite_lines(results, {"a": 20.0}, {"a": 30.0})
    assert "  CPU of the whole pytest --autodebug run: 2.03 (target <= 2: MISSED)" in lines
    assert "  wall of the whole pytest --autodebug run: 2.05 (target <= 2: MISSED)" in lines


def test_faults_of_a_project_whose_suite_was_not_timed_are_left_out(
    real_bench: ModuleType,
) -> None:
    results = [result(real_bench, "a", wall_s=10.0), result(real_bench, "b", wall_s=500.0)]
    lines = real_bench.suite_lines(results, {"a": 10.0}, {})
    assert lines[0].endswith("median of 1:")
    assert "  wall of the whole pytest --autodebug run: 1.00 (target <= 2: met)" in lines
    assert not any(line.startswith("  CPU") for line in lines)  # no CPU was measured
    assert real_bench.suite_lines(results, {}, {}) == []


def test_a_fault_without_its_cpu_measured_is_left_out_of_the_cpu_figure(
    real_bench: ModuleType,
) -> None:
    results = [
        result(real_bench, "a", autodebug_run_cpu_s=0.0),
        result(real_bench, "a", autodebug_run_cpu_s=30.0),
    ]
    lines = real_bench.suite_lines(results, {"a": 10.0}, {"a": 10.0})
    assert "  CPU of the whole pytest --autodebug run: 3.00 (target <= 2: MISSED)" in lines


def test_each_projects_suite_is_timed_before_its_first_fault(real_bench: ModuleType) -> None:
    fault = real_bench.Fault
    chosen = [fault("a", None, []), fault("a", None, []), fault("b", None, [])]
    assert real_bench._first_of_project(chosen, "a") == 1
    assert real_bench._first_of_project(chosen, "b") == 3


def setup_of(real_bench: ModuleType, root: Path) -> Any:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "PHASEGATE_"))}
    env["PYTEST_ADDOPTS"] = "-p no:cacheprovider"
    return real_bench.Setup("tiny", root, root, env, [], {})


@pytest.mark.slow
def test_a_passing_suite_is_timed_in_a_copy_and_a_failing_one_is_no_yardstick(
    real_bench: ModuleType, tmp_path: Path
) -> None:
    project = tmp_path / "tiny"
    project.mkdir()
    (project / "test_tiny.py").write_text("def test_passes():\n    assert sum(range(3)) == 3\n")
    timed = real_bench.time_suite(setup_of(real_bench, project), tmp_path)
    assert timed is not None
    wall, cpu = timed
    assert wall > 0
    assert cpu > 0
    assert sorted(p.name for p in project.iterdir()) == ["test_tiny.py"]  # ran in a copy
    assert not (tmp_path / "suite").exists()  # the copy is gone
    (project / "test_tiny.py").write_text("def test_fails():\n    assert False\n")
    assert real_bench.time_suite(setup_of(real_bench, project), tmp_path) is None


@pytest.mark.slow
def test_a_run_that_grows_past_the_memory_cap_fails_with_memory_error(
    real_bench: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(real_bench, "MEMORY_LIMIT_BYTES", 1 * 2**30)
    (tmp_path / "test_grows.py").write_text(
        "import resource\n\n"
        "def test_cap_is_inherited():\n"
        "    assert resource.getrlimit(resource.RLIMIT_AS)[0] == 2**30\n\n"
        "def test_grows():\n"
        "    blocks = [bytearray(2**28) for _ in range(8)]\n"
        "    assert len(blocks) == 8\n"
    )
    project = setup_of(real_bench, tmp_path)
    status, _, said = project.run(tmp_path, ["--tb=line"], timeout=120)
    assert status == 1
    assert "1 failed, 1 passed" in said
    status, _, said = project.run(tmp_path, ["--tb=line", "-k", "inherited"], timeout=120)
    assert (status, "1 passed" in said) == (0, True)


def test_a_fresh_seed_leaves_out_every_seen_seeds_faults(real_bench: ModuleType) -> None:
    seen = real_bench.SEEN_SEEDS
    assert real_bench.seeds_before("toolz", "a-fresh-seed") == seen
    assert real_bench.seeds_before("toolz", seen[2]) == seen[:2]
    assert real_bench.seeds_before("toolz", seen[0]) == ()


def test_a_project_added_later_leaves_out_only_the_seeds_run_since(
    real_bench: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = ("s1", "s2", "s3")
    monkeypatch.setattr(real_bench, "SEEN_SEEDS", seen)
    monkeypatch.setattr(real_bench, "FIRST_SEED", {"late": "s2", "new": "s4"})
    assert real_bench.seeds_before("late", "s4") == ("s2", "s3")
    assert real_bench.seeds_before("late", "s3") == ("s2",)
    assert real_bench.seeds_before("late", "s2") == ()
    assert real_bench.seeds_before("new", "s4") == ()  # never run with a seen seed
    assert real_bench.seeds_before("old", "s4") == seen


def test_a_project_added_later_is_not_part_of_a_seen_seed_drawn_before_it(
    real_bench: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(real_bench, "SEEN_SEEDS", ("s1", "s2", "s3"))
    monkeypatch.setattr(real_bench, "FIRST_SEED", {"late": "s2", "new": "s4"})
    assert not real_bench.in_sample("late", "s1")
    assert real_bench.in_sample("late", "s2")
    assert real_bench.in_sample("late", "s3")
    assert real_bench.in_sample("late", "s4")
    # Not yet seen: no seen seed may draw from the pool of its first seed's report half.
    assert not real_bench.in_sample("new", "s1")
    assert not real_bench.in_sample("new", "s3")
    assert real_bench.in_sample("new", "s4")
    assert real_bench.in_sample("old", "s1")


def test_each_project_added_later_is_known_and_sits_out_the_seeds_before_its_first(
    real_bench: ModuleType,
) -> None:
    seen = real_bench.SEEN_SEEDS
    assert set(real_bench.FIRST_SEED) <= set(real_bench.realprojects.PROJECTS)
    for name, first in real_bench.FIRST_SEED.items():
        assert real_bench.in_sample(name, first), name
        assert real_bench.seeds_before(name, first) == (), name
        drawn_before = seen[: seen.index(first)] if first in seen else seen
        assert not any(real_bench.in_sample(name, seed) for seed in drawn_before), name


def _defines(tree: ast.Module, names: list[str]) -> bool:
    """Whether ``tree`` defines the class or function path ``names`` (``Class``, ``test``)."""
    body: list[ast.stmt] = tree.body
    for name in names:
        found = [n for n in body if isinstance(n, ast.ClassDef | ast.FunctionDef)]
        matches = [n for n in found if n.name == name]
        if not matches:
            return False
        body = matches[0].body
    return True


def test_each_test_a_suite_deselects_by_name_is_in_its_project(real_bench: ModuleType) -> None:
    deselected = [
        (name, option.removeprefix("--deselect="))
        for name, options in real_bench.EXTRA_OPTIONS.items()
        for option in options
        if option.startswith("--deselect=")
    ]
    assert {name for name, _ in deselected} >= {"mistune"}
    for name, nodeid in deselected:
        sdist = require(name)
        path, *names = nodeid.split("::")
        with tarfile.open(sdist, "r:gz") as archive:
            (member,) = [m for m in archive.getnames() if m.split("/", 1)[-1] == path]
            stream = archive.extractfile(member)
            assert stream is not None
            tree = ast.parse(stream.read())
        assert _defines(tree, names), f"{name}: {nodeid} is not in {member}"


def test_a_suites_requirement_missing_from_this_environment_is_named(
    real_bench: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = real_bench.realprojects.PROJECTS["marshmallow"]
    lacking = replace(project, test_requires=("pytest", "no-such-distribution-here"))
    monkeypatch.setitem(real_bench.realprojects.PROJECTS, "marshmallow", lacking)
    assert real_bench.missing_requirements(["marshmallow", "toolz"]) == [
        "no-such-distribution-here (for marshmallow)"
    ]


def test_runs_read_together_keep_the_suites_cpu_and_older_files_without_it(
    real_bench: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    newer = {
        "seed": "s",
        "half": "report",
        "suites": {"a": 10.0},
        "suites_cpu": {"a": 5.0},
        "results": [asdict(result(real_bench, "a", wall_s=15.0, autodebug_run_cpu_s=15.0))],
    }
    older = {
        "seed": "s",
        "half": "report",
        "suites": {"b": 20.0},
        "results": [asdict(result(real_bench, "b", wall_s=10.0, autodebug_run_cpu_s=60.0))],
    }
    older["results"][0]["fault"] = "b:other"
    paths = [tmp_path / "newer.json", tmp_path / "older.json"]
    for path, run in zip(paths, (newer, older), strict=True):
        path.write_text(json.dumps(run))
    assert real_bench.combined(paths) == 0
    printed = capsys.readouterr().out
    # the CPU ratio only where the suite's CPU is known (3.0); wall over both (1.5 and 0.5)
    assert "  CPU of the whole pytest --autodebug run: 3.00 (target <= 2: MISSED)" in printed
    assert "  wall of the whole pytest --autodebug run: 1.00 (target <= 2: met)" in printed
    assert "  suites (wall, CPU): a 10.0s (5.0s CPU), b 20.0s" in printed


class _FakeRun:
    """A project's ``run``: the plain run passes; the auto-debug run ends as ``ending`` says."""

    def __init__(self, ending: int | None) -> None:
        self.ending = ending

    def __call__(
        self, root: Path, args: list[str], *, timeout: float = 1800
    ) -> tuple[int | None, float, str]:
        if "--autodebug=apply" not in args:
            return 0, 0.5, "1 passed"
        if self.ending is None:
            return None, timeout, "timeout"
        return self.ending, 1.0, "1 failed"


@pytest.mark.parametrize(("ending", "outcome"), [(None, "timed-out"), (1, "not-triggered")])
def test_a_run_stopped_at_the_limit_is_timed_out_not_untriggered(
    real_bench: ModuleType, tmp_path: Path, ending: int | None, outcome: str
) -> None:
    pristine = tmp_path / "pristine"
    pristine.mkdir()
    (pristine / "lib.py").write_text("def f():\n    return 1\n")
    project = setup_of(real_bench, pristine)
    project.run = _FakeRun(ending)
    mutant = real_bench.Mutant(
        "lib.py:1", "none", "drop-return", "lib.py", 2, "def f():\n    pass\n", "", (1, 2)
    )
    fault = real_bench.Fault("tiny", mutant, ["test_lib.py::test_f"], "dev")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    # neither run wrote an auto-debug report: only the limit tells the two apart
    assert real_bench.run_fault(project, fault, scratch).outcome == outcome


def test_the_table_counts_timed_out_runs_apart_and_reads_results_from_before_them(
    real_bench: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    stopped = replace(result(real_bench, "a"), fault="a:stopped", outcome="timed-out")
    unseen = replace(result(real_bench, "a"), fault="a:unseen", outcome="not-triggered")
    real_bench.table([stopped, unseen], ["none"], {})
    printed = capsys.readouterr().out.splitlines()
    header = printed[0].split()
    row = dict(zip(header, printed[1].split(), strict=False))
    assert row["timed-out"] == "1"
    assert row["not-triggered"] == "1"
    assert "runs stopped at the 30-minute limit (timed-out): 1" in printed


SLEEPER = "import time\n\n\ndef test_sleeps():\n    time.sleep(60)\n"

#: Put on the run's ``PYTHONPATH``: the run ignores Ctrl-C from its interpreter's start, not
#: only once pytest (slow to start under load) has reached the test.
IGNORES_CTRL_C = "import signal\n\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\n"


@pytest.mark.slow
@pytest.mark.parametrize(
    ("ignores", "grace_s", "tail"),
    [
        # A run that ends on Ctrl-C is given the benchmark's own grace: it is "interrupted"
        # however long pytest takes to wind down on a busy machine (the wait ends when it does).
        (False, None, "interrupted"),
        # A run that ignores Ctrl-C never ends, so a short grace decides nothing but the wait.
        (True, 2, "killed"),
    ],
)
def test_a_run_at_the_limit_gets_ctrl_c_and_is_killed_only_if_it_will_not_end(
    real_bench: ModuleType,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    ignores: bool,
    grace_s: float | None,
    tail: str,
) -> None:
    (tmp_path / "test_sleeper.py").write_text(SLEEPER)
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    if ignores:
        (tmp_path / "site").mkdir()
        (tmp_path / "site" / "sitecustomize.py").write_text(IGNORES_CTRL_C)
        env["PYTHONPATH"] = os.pathsep.join(
            filter(None, [str(tmp_path / "site"), env.get("PYTHONPATH")])
        )
    if grace_s is not None:
        monkeypatch.setattr(real_bench, "INTERRUPT_GRACE_S", grace_s)
    project = real_bench.Setup("sleeper", tmp_path, tmp_path, env, [], {})
    status, _, said = project.run(tmp_path, ["-p", "no:cacheprovider"], timeout=5)
    assert (status, said) == (None, tail)


def _draws_project(real_bench: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """A project ``toolz`` set up under ``tmp_path``, two seen seeds, whose draws screen nothing.

    Screening is replaced by a fake that fails the test: a draw must come from the record.
    """
    monkeypatch.setattr(real_bench, "SEEN_SEEDS", ("s1", "s2"))
    monkeypatch.setattr(real_bench, "RECORDED_DRAWS", tmp_path / "real_draws.json")

    def no_screening(*_args: Any, **_kwargs: Any) -> list[Any]:
        raise AssertionError("screened although the draw was recorded")

    monkeypatch.setattr(real_bench, "faults", no_screening)
    pristine = tmp_path / "cache" / "toolz-1.0" / "pristine"
    pristine.mkdir(parents=True)
    return type("FakeSetup", (), {"name": "toolz", "pristine": pristine})()


def test_a_recorded_draw_spares_screening_the_seen_seeds_again(
    real_bench: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = _draws_project(real_bench, tmp_path, monkeypatch)
    key_1 = real_bench._draw_key(project, "none", 2, "s1", ())
    key_2 = real_bench._draw_key(project, "none", 2, "s2", ("s1",))
    draws = {
        real_bench.record_key(key_1): [["toolz/a.py", 3]],
        real_bench.record_key(key_2): [["toolz/b.py", 7], ["toolz/a.py", 9]],
    }
    real_bench.RECORDED_DRAWS.write_text(json.dumps({"about": "", "draws": draws}))
    seen = real_bench.seen_before(project, "none", 2, "s3")
    assert seen == {("toolz/a.py", 3), ("toolz/b.py", 7), ("toolz/a.py", 9)}
    assert real_bench.seen_before(project, "none", 2, "s2") == {("toolz/a.py", 3)}
    # Kept in the machine's cache too; recording again adds nothing new.
    cached = json.loads((project.pristine.parent.parent / "seen.json").read_text())
    assert cached[key_2][0] == ["toolz/b.py", 7]
    assert real_bench.record_draws({"toolz": project}, ["none"], 2, "s3") == 0
    assert real_bench.recorded_draws() == draws


def test_a_draw_recorded_under_other_sizes_is_drawn_again(
    real_bench: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = _draws_project(real_bench, tmp_path, monkeypatch)
    key = real_bench._draw_key(project, "none", 3, "s1", ())  # three per class, not two
    draws = {real_bench.record_key(key): [["toolz/a.py", 3]]}
    real_bench.RECORDED_DRAWS.write_text(json.dumps({"about": "", "draws": draws}))
    with pytest.raises(AssertionError, match="screened although"):
        real_bench.seen_before(project, "none", 2, "s2")


@pytest.mark.parametrize(
    "text",
    [
        "{not json",
        json.dumps({"draws": {"k": [["toolz/a.py", "3"]]}}),
        json.dumps({"draws": {"k": [["toolz/a.py"]]}}),
        json.dumps({"draws": [["toolz/a.py", 3]]}),
        json.dumps([]),
    ],
)
def test_a_damaged_record_of_draws_is_named_and_never_overwritten(
    real_bench: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str
) -> None:
    project = _draws_project(real_bench, tmp_path, monkeypatch)
    real_bench.RECORDED_DRAWS.write_text(text)
    with pytest.raises(SystemExit, match=r"real_draws\.json: .*restore it from git"):
        real_bench.record_draws({"toolz": project}, ["none"], 2, "s3")
    assert real_bench.RECORDED_DRAWS.read_text() == text


def test_one_process_at_a_time_sets_a_project_up(
    real_bench: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import fcntl

    monkeypatch.setattr(real_bench, "cache_root", lambda: tmp_path / "cache")
    lock = (
        tmp_path
        / "cache"
        / "toolz-{}.lock".format(real_bench.realprojects.PROJECTS["toolz"].version)
    )

    def while_setting_up(project: Any, folder: Path, log: Any) -> str:
        with open(lock) as other, pytest.raises(BlockingIOError):
            fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)  # another run would wait here
        return folder.name

    monkeypatch.setattr(real_bench, "_setup_locked", while_setting_up)
    assert real_bench.setup("toolz") == lock.stem
    with open(lock) as other:  # released once set up
        fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)


@pytest.mark.slow
def test_a_project_is_set_up_once_and_read_back_without_waiting_for_itself(
    real_bench: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A whole set-up of a tiny project (its suite run for coverage contexts, for real); its
    last step reads back what it wrote under the lock it holds, not by taking it again."""
    import threading

    def unpack(name: str, into: Path, *, commit: bool = True) -> Path:
        root = into / "tiny"
        (root / "toolz").mkdir(parents=True)
        (root / "toolz" / "__init__.py").write_text("def double(x):\n    return 2 * x\n")
        (root / "test_tiny.py").write_text(
            "from toolz import double\n\n\ndef test_double():\n    assert double(2) == 4\n"
        )
        return root

    monkeypatch.setattr(real_bench, "cache_root", lambda: tmp_path / "cache")
    monkeypatch.setattr(real_bench.realprojects, "unpack", unpack)
    done: list[Any] = []
    worker = threading.Thread(target=lambda: done.append(real_bench.setup("toolz")), daemon=True)
    worker.start()
    worker.join(timeout=300)
    assert not worker.is_alive(), "the set-up waits for a lock it holds itself"
    assert done[0].tests == ["test_tiny.py::test_double"]
    assert done[0].coverage == {"toolz/__init__.py": {2: [0]}}
    version = real_bench.realprojects.PROJECTS["toolz"].version
    written = json.loads((tmp_path / "cache" / f"toolz-{version}" / "setup.json").read_text())
    assert written["options"] == []  # toolz's suite runs without extra options


def test_a_set_up_made_with_other_suite_options_is_refused(
    real_bench: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "toolz-1.0"
    inside = folder / "unpacked" / "toolz"
    inside.mkdir(parents=True)
    data = {"pristine": str(inside), "source_root": "toolz", "deselect": [], "tests": ["t"]}
    setup_json = folder / "setup.json"
    setup_json.write_text(json.dumps({**data, "coverage": {}, "options": ["-k", "slow"]}))
    project = real_bench.realprojects.PROJECTS["toolz"]
    with pytest.raises(SystemExit, match=r"setup.json: set up with the suite options \['-k'"):
        real_bench._setup_locked(project, folder, print)
    monkeypatch.setitem(real_bench.EXTRA_OPTIONS, "toolz", ["-k", "slow"])
    assert real_bench._setup_locked(project, folder, print).tests == ["t"]


def test_a_screen_stopped_at_the_limit_is_screened_again(
    real_bench: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pristine = tmp_path / "cache" / "toolz-1.0" / "unpacked" / "toolz"
    pristine.mkdir(parents=True)
    project = type("FakeSetup", (), {"name": "toolz", "pristine": pristine})()
    mutants = [
        real_bench.Mutant(f"m{n}", "name", "op", "toolz/a.py", n, f"x = {n}\n", "", None)
        for n in range(3)
    ]
    cache_file = pristine.parent.parent / "screen.json"
    digests = [real_bench._digest(m) for m in mutants]
    cache_file.write_text(json.dumps({digests[0]: "timeout", digests[1]: "caught"}))
    screened: list[str] = []

    def screen(_project: Any, _work: Path, mutant: Any, _tests: list[str]) -> str:
        screened.append(mutant.id)
        return "caught"

    monkeypatch.setattr(real_bench, "_ordered", lambda *_args: mutants)
    monkeypatch.setattr(real_bench, "selection", lambda *_args: ["test_a.py::test_x"])
    monkeypatch.setattr(real_bench, "_screen", screen)
    found = real_bench.faults(project, "name", 2, lambda _line: None, seed="s")
    assert screened == ["m0", "m2"]  # the timed-out one again; the cached verdict is kept
    assert [f.mutant.id for f in found] == ["m0", "m1", "m2"]
    assert json.loads(cache_file.read_text())[digests[0]] == "caught"


def test_two_runs_screening_a_project_at_once_keep_each_others_verdicts(
    real_bench: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Run A is held inside its second screen while run B screens two other mutants to the
    end; A's writes then add to the cache B left, not to the copy A read at its start."""
    import threading

    pristine = tmp_path / "cache" / "toolz-1.0" / "unpacked" / "toolz"
    pristine.mkdir(parents=True)
    project = type("FakeSetup", (), {"name": "toolz", "pristine": pristine})()
    mutants = {
        run: [
            real_bench.Mutant(f"{run}{n}", run, "op", f"toolz/{run}.py", n, "x\n", "", None)
            for n in range(2)
        ]
        for run in ("a", "b")
    }
    in_a1, b_done = threading.Event(), threading.Event()

    def screen(_project: Any, _work: Path, mutant: Any, _tests: list[str]) -> str:
        if mutant.id == "a1":
            in_a1.set()
            assert b_done.wait(timeout=60), "run B never ended"
        return "caught"

    monkeypatch.setattr(real_bench, "_ordered", lambda _p, error_class, _s: mutants[error_class])
    monkeypatch.setattr(real_bench, "selection", lambda *_args: ["test_a.py::test_x"])
    monkeypatch.setattr(real_bench, "_screen", screen)
    run_a = threading.Thread(target=real_bench.faults, args=(project, "a", 1, lambda _: None))
    run_a.start()
    assert in_a1.wait(timeout=60), "run A never reached its second screen"
    real_bench.faults(project, "b", 1, lambda _line: None)
    b_done.set()
    run_a.join(timeout=60)
    cache = json.loads((pristine.parent.parent / "screen.json").read_text())
    assert set(cache) == {real_bench._digest(m) for m in mutants["a"] + mutants["b"]}


def test_a_draw_keeps_the_draws_another_run_added_meanwhile(
    real_bench: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = _draws_project(real_bench, tmp_path, monkeypatch)
    drawn_file = project.pristine.parent.parent / "seen.json"

    def drawn_while_another_run_adds_one(*_args: Any, **_kwargs: Any) -> list[Any]:
        drawn_file.write_text(json.dumps({"another run's key": [["toolz/c.py", 1]]}))
        return []

    monkeypatch.setattr(real_bench, "faults", drawn_while_another_run_adds_one)
    assert real_bench.seen_before(project, "none", 2, "s2") == frozenset()
    assert "another run's key" in json.loads(drawn_file.read_text())


@pytest.mark.parametrize(
    ("pristine", "source_root", "key"),
    [("/elsewhere/toolz", "toolz", "pristine"), (None, "../../..", "source_root")],
)
def test_a_set_up_cache_whose_paths_lead_out_of_its_folder_is_refused(
    real_bench: ModuleType, tmp_path: Path, pristine: str | None, source_root: str, key: str
) -> None:
    folder = tmp_path / "toolz-1.0"
    inside = folder / "unpacked" / "toolz"
    inside.mkdir(parents=True)
    setup_json = folder / "setup.json"
    data = {"pristine": pristine or str(inside), "source_root": source_root}
    setup_json.write_text(json.dumps({**data, "deselect": [], "tests": [], "coverage": {}}))
    project = real_bench.realprojects.PROJECTS["toolz"]
    with pytest.raises(ValueError, match=f"setup.json: {key} .* is outside"):
        real_bench._setup_locked(project, folder, print)
    setup_json.write_text(
        json.dumps({"pristine": str(inside), "source_root": "toolz", "deselect": [],
                    "tests": ["t"], "coverage": {}})
    )  # fmt: skip
    read = real_bench._setup_locked(project, folder, print)
    assert (read.pristine, read.source_root, read.tests) == (inside, inside / "toolz", ["t"])

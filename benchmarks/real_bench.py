"""Auto-debug on faults injected into real projects: a development half and a report half.

``python benchmarks/autodebug.py --real`` runs this. For every project of
``tests/realprojects.py`` (sdists frozen by version and sha256, cached offline):

1. **Set-up, once per project** (cached under ``~/.cache/phasegate/real-faults/``): the sdist
   is unpacked as a git repository, its suite is run once with one coverage context per test
   (``phasegate.plugin.contexts``, the ``ctrace`` core), and the tests that fail on the
   untouched project are deselected from then on (``--deselect`` in ``PYTEST_ADDOPTS``).
2. **Faults**: every mutant of every class (``real_faults.py``), in an order fixed by the seed
   (each operator's mutants shuffled, the operators taken in turn), is *screened*: the tests
   that run the mutated function (or module) are run with it, and it is kept only if one of
   them fails, and at most one fault per line. Screening stops at ``--per-class`` x 2 faults
   per project and class. The faults found are dealt alternately to the development half and
   the report half, in that order, so the split is fixed by the seed, not by any result.
3. **Runs**: each fault of the chosen half is injected into a fresh copy and
   ``pytest --autodebug=apply SELECTION`` is run, where the selection is the tests that run
   the mutated code (the tests that matter, not the whole suite, to keep a run affordable);
   a plain ``pytest SELECTION`` of the untouched copy is timed just before, as the yardstick.
   Unless ``--no-suites``, one plain run of the project's whole suite (in a fresh copy, CPU
   with children and wall) is timed just before the project's first fault, the yardstick of
   the issue's target (the median time per fault within 2x one run of the project's suite).
   Each result is filed as in the hand-written corpus's benchmark: ``correct`` (every source
   file has the original's syntax tree), ``plausible`` (kept; the fault's tests and the whole
   suite pass, but the code differs), ``wrong-kept``, ``escalated`` (the tree is then checked
   byte for byte), ``timed-out`` (the ``pytest --autodebug`` run was stopped at the
   30-minute limit of one run: Ctrl-C, and a kill a minute later if it has not ended; a
   killed run's tree is not counted as changed by auto-debug), ``not-triggered`` (it ended
   without a failure in its report).

Tune on ``--half dev``; report ``--half report``. The report half prints no per-fault
explanations unless ``--verbose``, so that tuning never reads them. ``--seed`` draws a fresh
sample: the mutants are ordered by the new seed, and every fault the seeds run before it
(``SEEN_SEEDS``, each drawn without the faults of those before it) dealt to either half is
skipped (by file and line, in its class), so that no fault of the fresh sample was seen before.
A project added later (``FIRST_SEED``) leaves out only the seeds run since it was added: the
earlier ones never ran on it, and it is not part of their samples (drawn now, they would draw
from the same pool as its first seed, whose report half may be the next headline).
The places each seen seed drew are recorded in ``real_draws.json`` (``--record-draws`` with
an unseen seed writes them), so that a machine without the screening cache screens only the
fresh seed's own mutants; a draw whose sdist, operators, seeds before it or sizes changed
misses the record and is drawn again.
"""

from __future__ import annotations

import ast
import contextlib
import fcntl
import hashlib
import importlib.metadata
import json
import os
import random
import resource
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO / "tests"))

from real_faults import CLASSES, Mutant, mutants  # noqa: E402

import realprojects  # noqa: E402

SEED = "phasegate-real-faults-1"
#: The seeds whose samples were run and read, in the order they were drawn. A seed's sample
#: leaves out every fault of the seeds before it in this list (all of them, for a seed not in
#: it), so the samples never share a fault.
SEEN_SEEDS = (
    SEED,
    "phasegate-real-faults-2",
    "phasegate-real-faults-3",
    "phasegate-real-faults-4",
    "phasegate-real-faults-5",
    "phasegate-real-faults-6",
    "phasegate-real-faults-7",
    "phasegate-real-faults-8",
    "phasegate-real-faults-9",
    "phasegate-real-faults-10",
    "phasegate-real-faults-11",
    "phasegate-real-faults-12",
    "phasegate-real-faults-13",
    "phasegate-real-faults-14",
    "phasegate-real-faults-15",
)
#: The seed each project added later was first run with. The seeds of ``SEEN_SEEDS`` drawn
#: before it never ran on that project, so none of its faults was seen and they leave none out.
#: A project not named here has been in every seed.
FIRST_SEED = {
    "click": "phasegate-real-faults-5",
    "marshmallow": "phasegate-real-faults-5",
    "boltons": "phasegate-real-faults-5",
    # Added for the none class: nine seeds had drawn most of the others' caught None guards.
    "parso": "phasegate-real-faults-10",
    "jinja2": "phasegate-real-faults-10",
    # Added for the none class again: thirteen seeds left a report half of three None faults.
    "webob": "phasegate-real-faults-14",
    "mistune": "phasegate-real-faults-14",
    "pycparser": "phasegate-real-faults-14",
}
OUTCOMES = ("correct", "plausible", "escalated", "wrong-kept", "timed-out", "not-triggered")
#: The limit of one pytest run of the benchmark, in seconds.
RUN_LIMIT_S = 1800
#: The address space one pytest run of the benchmark (and each process it starts) may take.
MEMORY_LIMIT_BYTES = 6 * 2**30
#: Seconds a run stopped at the limit has to end after its Ctrl-C before it is killed.
INTERRUPT_GRACE_S = 60
#: The most tests (after folding parametrized ones) a fault's selection names one by one.
MAX_SELECTED = 150
#: Mutants screened per project and class before giving up on finding more.
MAX_SCREENED = 40
#: The places the seen seeds drew, recorded (``record_draws``) so that a machine without the
#: screening cache leaves them out without screening every seen seed again.
RECORDED_DRAWS = HERE / "real_draws.json"
#: mistune's tests that assert on wall time (input twice as large may take at most 3.5 times as
#: long): on a busy machine they pass or fail by chance, and a mutant that makes the parser
#: slower makes them run for a minute, so a screen's verdict would depend on the load.
MISTUNE_TIMED_TESTS = {
    "test_inline_limits.py": (
        "test_unclosed_inline_html_recovers_without_rescanning_the_document",
        "test_links_inside_many_pending_images_do_not_rescan_image_openers",
        "test_unclosed_destinations_recover_in_linear_time",
    ),
    "test_misc.py::TestMiscCases": ("test_deeply_indented_list_does_not_scale_quadratically",),
    "test_security_edge_cases.py::TestEdgeCaseSecurity": (
        "test_blank_list_continuations_are_near_linear",
        "test_dense_emphasis_is_near_linear",
        "test_mixed_emphasis_delimiters_are_near_linear",
        "test_malformed_images_are_near_linear",
        "test_unclosed_link_destinations_are_near_linear",
    ),
    "test_security_formatting.py::TestFormattingSecurity": (
        "test_repeated_formatting_pairs_return_quickly",
        "test_repeated_unclosed_formatting_markers_are_near_linear",
    ),
    "test_security_inline.py::TestInlineParserSecurity": (
        "test_link_title_redos_payload_returns_quickly",
        "test_nested_bracket_link_input_does_not_recurse_forever",
        "test_failed_reference_after_nested_brackets_returns_quickly",
        "test_unmatched_bracket_input_returns_quickly",
        "test_deep_link_input_does_not_recurse_forever",
        "test_repeated_link_suffixes_are_near_linear",
        "test_repeated_unclosed_inline_spoilers_are_near_linear",
        "test_adjacent_ruby_tokens_do_not_recurse_forever",
    ),
    "test_security_math.py::TestMathSecurity": (
        "test_repeated_inline_math_openers_are_near_linear",
    ),
    "test_security_ref_links.py::TestRefLinkSecurity": (
        "test_many_reference_links_return_quickly",
    ),
}
#: Options some suites need to run at all here (a marker of a plugin that is not installed), or
#: to give the same verdict whatever the load.
EXTRA_OPTIONS = {
    "python-dateutil": ["-W", "ignore::pytest.PytestUnknownMarkWarning"],
    # Its two async test modules import trio, which phasegate's environment does not have.
    "jinja2": ["--ignore=tests/test_async.py", "--ignore=tests/test_async_filters.py"],
    "mistune": [
        f"--deselect=tests/{owner}::{name}"
        for owner, names in MISTUNE_TIMED_TESTS.items()
        for name in names
    ],
}
SETTINGS = "\n[tool.phasegate.autodebug]\ntimeout_s = 300\n"
#: Set-up logs reach a redirected output at once, not when the first fault is done.
log_now = partial(print, flush=True)


def cache_root() -> Path:
    configured = os.environ.get("PHASEGATE_REAL_FAULTS_CACHE")
    if configured:
        return Path(configured)
    return Path.home() / ".cache" / "phasegate" / "real-faults"


def _is_test(relpath: str) -> bool:
    parts = Path(relpath).parts
    name = parts[-1]
    return (
        "tests" in parts
        or "test" in parts
        or name.startswith("test_")
        or name.endswith("_test.py")
        or name == "conftest.py"
    )


def _hashes(root: Path) -> dict[str, str]:
    skipped = {".phasegate", "__pycache__", ".git", ".hypothesis", ".pytest_cache"}
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not skipped.intersection(p.relative_to(root).parts)
    }


# -- one project --------------------------------------------------------------------------------


@dataclass
class Setup:
    """A project ready for faults: its pristine copy, how to run it, what covers what."""

    name: str
    pristine: Path
    source_root: Path
    env: dict[str, str]
    tests: list[str]
    #: relpath -> line -> indexes into ``tests``
    coverage: dict[str, dict[int, list[int]]]

    def run(
        self, root: Path, args: Sequence[str], *, timeout: float = RUN_LIMIT_S
    ) -> tuple[int | None, float, str]:
        """``python -m pytest ARGS`` in ``root``: exit status, seconds, the output's last line;
        at the limit, None and ``interrupted`` (it ended on Ctrl-C) or ``killed``."""
        started = time.perf_counter()
        # A session of its own, as auto-debug's re-runs have: where the kernel shares CPU
        # between sessions (autogroups), a run in the benchmark's busy session would be
        # slowed by the benchmark's other work, and the re-runs would look faster.
        process = subprocess.Popen(
            [sys.executable, "-m", "pytest", "-q", *args],
            cwd=root,
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
            preexec_fn=_prepare_run,
        )
        try:
            stdout, stderr = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            tail = "killed" if _interrupt(process) else "interrupted"
            return None, time.perf_counter() - started, tail
        done = subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)
        lines = (done.stdout + done.stderr).strip().splitlines() or [""]
        status = done.returncode
        if status == 4 and any(line.startswith("ERROR: found no collectors") for line in lines):
            status = 2  # a module failed to import, so the tests named in it were not found
        return status, time.perf_counter() - started, lines[-1]

    def sources(self) -> list[str]:
        """The project's Python source files (not tests, docs or build scripts)."""
        found = []
        for path in sorted(self.source_root.rglob("*.py")):
            relpath = str(path.relative_to(self.pristine))
            if not _is_test(relpath):
                found.append(relpath)
        return found


def _env(project: realprojects.RealProject, deselect: Iterable[str]) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("PYTEST_", "PHASEGATE_", "COV_CORE"))
    }
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    if project.layout == "src":
        # Relative: the copy a run is in, not the pristine one; then what the caller set.
        env["PYTHONPATH"] = os.pathsep.join(filter(None, ["src", os.environ.get("PYTHONPATH")]))
    options = ["-p", "no:cacheprovider", *EXTRA_OPTIONS.get(project.name, [])]
    for nodeid in deselect:
        options += ["--deselect", nodeid]
    env["PYTEST_ADDOPTS"] = shlex.join(options)
    return env


def setup(name: str, log: Any = log_now) -> Setup:
    """Unpack ``name`` and map its coverage once; later calls read the cache.

    One process at a time sets a project up (a lock file beside its folder): two benchmark
    runs started together would otherwise unpack over each other and cache a broken map.
    """
    project = realprojects.PROJECTS[name]
    folder = cache_root() / f"{project.name}-{project.version}"
    folder.parent.mkdir(parents=True, exist_ok=True)
    with open(folder.parent / f"{folder.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return _setup_locked(project, folder, log)


def _setup_locked(project: realprojects.RealProject, folder: Path, log: Any) -> Setup:
    name = project.name
    done = folder / "setup.json"
    if done.is_file():
        data = json.loads(done.read_text())
        _refuse_other_options(done, data, name)
        pristine = _confined(done, "pristine", Path(data["pristine"]), folder)
        return Setup(
            name,
            pristine,
            _confined(done, "source_root", pristine / data["source_root"], pristine),
            _env(project, data["deselect"]),
            data["tests"],
            {f: {int(k): v for k, v in lines.items()} for f, lines in data["coverage"].items()},
        )
    log(f"setting up {name} {project.version} (once): unpacking and mapping coverage")
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    pristine = realprojects.unpack(name, folder / "unpacked", commit=False)
    pyproject = pristine / "pyproject.toml"
    old = pyproject.read_text() if pyproject.is_file() else ""
    pyproject.write_text(old + SETTINGS)
    realprojects._git(pristine, "init", "-q", "-b", "main")
    realprojects.git_commit(pristine, f"chore: import {project.name} {project.version}")
    package = project.packages[0]
    source_root = pristine / "src" if project.layout == "src" else pristine / package
    if not source_root.is_dir():
        source_root = pristine
    env = _env(project, [])
    data_file = folder / "contexts.coverage"
    record = folder / "record"
    env_contexts = {
        **env,
        "PHASEGATE_CONTEXTS_DATA": str(data_file),
        "PHASEGATE_CONTEXTS_SOURCE": str(pristine),
    }
    subprocess.run(
        [
            sys.executable, "-m", "pytest", "-q", "--tb=no", "-p", "phasegate.plugin.contexts",
            "--gate=record", f"--phasegate-dir={record}",
        ],
        cwd=pristine, env=env_contexts, capture_output=True, text=True, check=False,
    )  # fmt: skip
    report = json.loads((record / "report.json").read_text())
    failing = sorted(t["nodeid"] for t in report["tests"] if t["outcome"] in ("failed", "error"))
    from coverage import CoverageData

    tests: dict[str, int] = {}
    coverage: dict[str, dict[int, list[int]]] = {}
    with contextlib.closing(CoverageData(basename=str(data_file))) as coverage_data:
        coverage_data.read()
        for filename in coverage_data.measured_files():
            relpath = os.path.relpath(filename, pristine)
            if relpath.startswith("..") or _is_test(relpath):
                continue
            lines: dict[int, list[int]] = {}
            for line, contexts in coverage_data.contexts_by_lineno(filename).items():
                ids = sorted(tests.setdefault(c, len(tests)) for c in contexts if c)
                if ids:
                    lines[line] = ids
            coverage[relpath] = lines
    shutil.rmtree(record, ignore_errors=True)
    for leftover in folder.glob("contexts.coverage*"):
        leftover.unlink()
    if not tests:
        raise SystemExit(
            f"{name}: no test of its suite ran its code ({len(failing)} failed or errored); "
            f"the set-up is not cached: run it again once the suite runs here"
        )
    ordered = sorted(tests, key=tests.__getitem__)
    _write_atomically(  # a set-up killed while writing leaves none, not half of one
        done,
        json.dumps(
            {
                "pristine": str(pristine),
                "source_root": str(source_root.relative_to(pristine)),
                "deselect": failing,
                "tests": ordered,
                "coverage": coverage,
                "options": EXTRA_OPTIONS.get(name, []),
            }
        ),
    )
    log(f"  {len(ordered)} tests cover the code; {len(failing)} failing already, deselected")
    return _setup_locked(project, folder, log)  # read back from the cache, under the lock


def _refuse_other_options(done: Path, data: dict[str, Any], name: str) -> None:
    """Stop when the set-up in ``done`` was made with other suite options than ``EXTRA_OPTIONS``
    gives the project now: its map of which tests run which lines, and the screens' verdicts
    beside it, are of another suite (mistune's timed tests, deselected later, once made a
    screen's verdict depend on the load). A set-up from before the options were recorded is
    taken as it is."""
    made = data.get("options")
    wanted = EXTRA_OPTIONS.get(name, [])
    if made is not None and made != wanted:
        raise SystemExit(
            f"{done}: set up with the suite options {made}, but the benchmark now runs {name} "
            f"with {wanted}; delete {done.parent} to set it up and screen it again"
        )


# -- which tests a fault needs ----------------------------------------------------------------


def _confined(source: Path, key: str, path: Path, root: Path) -> Path:
    """``path``, read from ``source``'s ``key``, if it lies inside ``root``: the set-up cache is
    a file, and a path in it that leads elsewhere (edited, or copied from another machine) must
    not send the benchmark's writes there."""
    if not path.resolve().is_relative_to(root.resolve()):
        raise ValueError(f"{source}: {key} {str(path)!r} is outside {root}; delete {source}")
    return path


def _prepare_run() -> None:
    """In a run's process, before it starts: Ctrl-C's default disposition, which a benchmark
    started in the background by a shell without job control would otherwise pass on as
    ignored, so that :func:`_interrupt`'s Ctrl-C always reaches the run; and the memory cap.

    A fault can make a test grow without end (a python-dateutil None fault's test passed 18 GB
    on a 23 GB machine before its screen's time limit). Under :data:`MEMORY_LIMIT_BYTES` of
    address space, which the run's children (auto-debug's re-runs) inherit, such a test fails
    with ``MemoryError`` within seconds instead of taking the machine down."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT_BYTES, MEMORY_LIMIT_BYTES))


def _interrupt(process: subprocess.Popen[str]) -> bool:
    """Stop a run at the limit as a user would, with Ctrl-C (SIGINT to its session), so that
    auto-debug stops its re-runs and puts back the candidate it was trying; a run that has
    not ended :data:`INTERRUPT_GRACE_S` later is killed (True), and the tree it leaves is the
    benchmark's doing, not auto-debug's."""
    os.killpg(process.pid, signal.SIGINT)
    try:
        process.communicate(timeout=INTERRUPT_GRACE_S)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        return True
    return False


def _fold(nodeid: str) -> str:
    """A parametrized test's node id without its parameters (all of them run)."""
    return nodeid.split("[", 1)[0]


def selection(project: Setup, mutant: Mutant) -> list[str]:
    """The tests that run the mutated code, as pytest arguments."""
    covered = project.coverage.get(mutant.file, {})
    lines: set[int] = set()
    if mutant.scope is not None:
        lines.update(range(mutant.scope[0], mutant.scope[1] + 1))
    elif mutant.names:
        lines.update(_lines_using(project.pristine / mutant.file, set(mutant.names)))
    if not lines or not any(line in covered for line in lines):
        lines = set(covered)
    chosen = sorted({_fold(project.tests[i]) for line in lines for i in covered.get(line, [])})
    if len(chosen) > MAX_SELECTED:
        step = len(chosen) / MAX_SELECTED
        chosen = [chosen[int(i * step)] for i in range(MAX_SELECTED)]
    return chosen


def _lines_using(path: Path, names: set[str]) -> set[int]:
    """Every line of the functions that read one of ``names``."""
    tree = ast.parse(path.read_text())
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
            isinstance(n, ast.Name) and n.id in names for n in ast.walk(node)
        ):
            found.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
    return found


# -- screening and the split ------------------------------------------------------------------


@dataclass
class Fault:
    project: str
    mutant: Mutant
    tests: list[str]
    half: str = ""


def _digest(mutant: Mutant) -> str:
    return hashlib.sha256(f"{mutant.id}\0{mutant.text}".encode()).hexdigest()[:16]


def _ordered(project: Setup, error_class: str, seed: str) -> list[Mutant]:
    """Every mutant of the class, each operator's shuffled by the seed, operators in turn."""
    by_operator: dict[str, list[Mutant]] = {}
    for relpath in project.sources():
        text = (project.pristine / relpath).read_text(encoding="utf-8")
        for operator, found in mutants(relpath, text, error_class, seed).items():
            by_operator.setdefault(operator, []).extend(found)
    queues = []
    for operator in sorted(by_operator):
        queue = sorted(by_operator[operator], key=lambda m: m.id)
        random.Random(f"{seed}:{project.name}:{operator}").shuffle(queue)
        queues.append(queue)
    order: list[Mutant] = []
    while any(queues):
        for queue in queues:
            if queue:
                order.append(queue.pop(0))
    return order


def faults(
    project: Setup,
    error_class: str,
    per_class: int,
    log: Any = log_now,
    *,
    seed: str = SEED,
    exclude: frozenset[tuple[str, int]] = frozenset(),
) -> list[Fault]:
    """Screened faults of one class, dealt alternately to ``dev`` and ``report``.

    ``exclude`` holds the (file, line) places of faults not to use again: another seed's.
    """
    # A screen's verdict does not depend on the seed, so every seed shares the cache.
    cache_file = project.pristine.parent.parent / "screen.json"
    cache: dict[str, Any] = json.loads(cache_file.read_text()) if cache_file.is_file() else {}
    found: list[Fault] = []
    lines: set[tuple[str, int]] = set()
    screened = 0
    work: Path | None = None
    try:
        for mutant in _ordered(project, error_class, seed):
            if len(found) >= 2 * per_class or screened >= MAX_SCREENED:
                break
            if (mutant.file, mutant.line) in lines | exclude:
                continue
            tests = selection(project, mutant)
            if not tests:
                continue
            key = _digest(mutant)
            # A run stopped at the limit says more about the machine's load than the fault:
            # screened again, never kept as a verdict a draw may differ by.
            if cache.get(key, "timeout") == "timeout":
                if work is None:
                    work = Path(tempfile.mkdtemp(prefix="phasegate-screen-"))
                    shutil.copytree(project.pristine, work / "p", symlinks=True)
                cache = _add_to_shared(cache_file, key, _screen(project, work / "p", mutant, tests))
            screened += 1
            if cache[key] == "caught":
                lines.add((mutant.file, mutant.line))
                found.append(Fault(project.name, mutant, tests))
    finally:
        if work is not None:
            shutil.rmtree(work, ignore_errors=True)
    for index, fault in enumerate(found):
        fault.half = "dev" if index % 2 == 0 else "report"
    log(f"  {project.name} {error_class}: {len(found)} faults from {screened} mutants screened")
    return found


def _screen(project: Setup, work: Path, mutant: Mutant, tests: list[str]) -> str:
    target = work / mutant.file
    original = target.read_bytes()
    target.write_text(mutant.text, encoding="utf-8")
    try:
        status, _, _ = project.run(work, ["--tb=no", "-x", *tests], timeout=300)
    finally:
        target.write_bytes(original)
    if status is None:
        return "timeout"
    return "caught" if status in (1, 2) else "missed" if status == 0 else f"exit {status}"


# -- one run ------------------------------------------------------------------------------------


@dataclass
class Result:
    fault: str
    project: str
    error_class: str
    operator: str
    half: str
    outcome: str
    wall_s: float
    autodebug_s: float
    reference_s: float
    tests_modified: int
    tree_changed_unkept: bool
    failures: int
    candidates_tried: int
    description: str
    explanations: list[str] = field(default_factory=list)
    touched: list[str] = field(default_factory=list)
    #: CPU seconds of the whole ``pytest --autodebug`` run and of the plain reference run,
    #: every process they started included (0 where not measured).
    autodebug_run_cpu_s: float = 0.0
    reference_cpu_s: float = 0.0


def _children_cpu() -> float:
    """CPU seconds (user and system) of every child process waited for so far."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _same_sources(project: Setup, root: Path) -> bool:
    for relpath in project.sources():
        mine, theirs = root / relpath, project.pristine / relpath
        if not mine.is_file():
            return False
        try:
            if ast.dump(ast.parse(mine.read_text())) != ast.dump(ast.parse(theirs.read_text())):
                return False
        except SyntaxError:
            return False
    return True


def seen_before(
    project: Setup, error_class: str, per_class: int, seed: str
) -> frozenset[tuple[str, int]]:
    """The places (file, line) of the faults of the seeds drawn before ``seed``."""
    return frozenset(
        (file, int(line))
        for places in draws_before(project, error_class, per_class, seed).values()
        for file, line in places
    )


def draws_before(
    project: Setup, error_class: str, per_class: int, seed: str
) -> dict[str, list[list[Any]]]:
    """The places each seed drawn before ``seed`` drew, by the key that decides the draw.

    Drawing an earlier seed's sample means generating and ordering every mutant of the class
    again and screening it; the places drawn are kept on disk instead, next to the project's
    screening cache, keyed by what decides them (the sdist's sha256, the operators' source, the
    seed, the seeds before it and the sizes), so only a change of one of those draws them
    again. A draw recorded in ``RECORDED_DRAWS`` under the same key is taken from there, so a
    machine without the cache does not screen every seen seed again.
    """
    seen: frozenset[tuple[str, int]] = frozenset()
    drawn_file = project.pristine.parent.parent / "seen.json"
    drawn: dict[str, list[list[Any]]] = (
        json.loads(drawn_file.read_text()) if drawn_file.is_file() else {}
    )
    recorded = recorded_draws()
    found: dict[str, list[list[Any]]] = {}
    earlier_seeds = seeds_before(project.name, seed)
    for index, earlier in enumerate(earlier_seeds):
        key = _draw_key(project, error_class, per_class, earlier, earlier_seeds[:index])
        if key not in drawn:
            if record_key(key) in recorded:
                drawn[key] = recorded[record_key(key)]
            else:
                faults_drawn = faults(
                    project, error_class, per_class, lambda _line: None, seed=earlier, exclude=seen
                )
                drawn[key] = [[f.mutant.file, f.mutant.line] for f in faults_drawn]
            drawn = _add_to_shared(drawn_file, key, drawn[key])
        found[key] = drawn[key]
        seen |= {(file, int(line)) for file, line in drawn[key]}
    return found


def record_key(key: str) -> str:
    """``key`` as ``RECORDED_DRAWS`` stores it: short, and a change of any part misses it."""
    return hashlib.sha256(key.encode()).hexdigest()[:24]


def recorded_draws(path: Path | None = None) -> dict[str, list[list[Any]]]:
    """The draws recorded in ``path`` (``RECORDED_DRAWS``): record key -> [[file, line], ...]."""
    path = path or RECORDED_DRAWS
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise SystemExit(f"{path}: not readable as JSON ({error}); restore it from git") from None
    draws = data.get("draws") if isinstance(data, dict) else None
    if not isinstance(draws, dict) or not all(_is_places(v) for v in draws.values()):
        raise SystemExit(
            f"{path}: key 'draws' must map each record key to a list of [file, line] pairs; "
            "restore it from git"
        )
    return draws


def _is_places(value: Any) -> bool:
    return isinstance(value, list) and all(
        isinstance(p, list)
        and len(p) == 2
        and isinstance(p[0], str)
        and isinstance(p[1], int)
        and not isinstance(p[1], bool)
        for p in value
    )


def record_draws(
    setups: dict[str, Setup], classes: Sequence[str], per_class: int, seed: str
) -> int:
    """Add to ``RECORDED_DRAWS`` the draws of every seed drawn before ``seed``; how many new."""
    draws = recorded_draws()
    before = len(draws)
    for project in setups.values():
        for error_class in classes:
            for key, places in draws_before(project, error_class, per_class, seed).items():
                draws[record_key(key)] = places
    about = (
        "The places (file, line) each seen seed of the real-code benchmark drew, per project "
        "and class, keyed by real_bench.record_key of what decides the draw; written by "
        "python benchmarks/autodebug.py --real --record-draws --seed <an unseen seed>."
    )
    _write_atomically(RECORDED_DRAWS, draws_text(about, draws))
    return len(draws) - before


def draws_text(about: str, draws: dict[str, list[list[Any]]]) -> str:
    """The record as JSON with one draw per line, so that a new seed's draws read as added lines."""
    lines = [f"  {json.dumps(key)}: {json.dumps(places)}" for key, places in sorted(draws.items())]
    return '{\n"about": ' + json.dumps(about) + ',\n"draws": {\n' + ",\n".join(lines) + "\n}}\n"


def seeds_before(name: str, seed: str) -> tuple[str, ...]:
    """The seen seeds whose faults ``seed``'s sample of project ``name`` leaves out.

    Those of ``SEEN_SEEDS`` drawn before ``seed`` (all of them, for a seed not in it), less
    those drawn before the project was first run (``FIRST_SEED``).
    """
    earlier = SEEN_SEEDS[: SEEN_SEEDS.index(seed)] if seed in SEEN_SEEDS else SEEN_SEEDS
    first = FIRST_SEED.get(name)
    if first is None:
        return earlier
    if first not in SEEN_SEEDS:
        return ()
    return earlier[SEEN_SEEDS.index(first) :]


def in_sample(name: str, seed: str) -> bool:
    """Whether project ``name`` is part of ``seed``'s sample.

    A project added later (``FIRST_SEED``) is not part of a seen seed drawn before it was first
    run: that seed never ran on it, and drawing it now would draw from the pool of the project's
    first seed, whose report half may not be seen yet.
    """
    first = FIRST_SEED.get(name)
    if first is None or seed not in SEEN_SEEDS:
        return True
    return first in SEEN_SEEDS and SEEN_SEEDS.index(seed) >= SEEN_SEEDS.index(first)


def _draw_key(
    project: Setup, error_class: str, per_class: int, seed: str, before: Sequence[str]
) -> str:
    """What decides a seed's draw: the sdist, the operators, the seed, those before it, sizes."""
    operators = hashlib.sha256((HERE / "real_faults.py").read_bytes()).hexdigest()[:16]
    sdist = realprojects.PROJECTS[project.name].sha256[:16]
    return ":".join(
        [sdist, operators, error_class, str(per_class), str(MAX_SCREENED), seed, *before]
    )


def _add_to_shared(path: Path, key: str, value: Any) -> dict[str, Any]:
    """Add ``key`` to the JSON object in ``path``, a cache every benchmark run on this machine
    shares, and return the whole object: read again and written back under a lock beside it, so
    that what another run added since this one first read it stays. (Each run used to write its
    own copy back whole: two runs screening a project at once dropped each other's entries.)"""
    with open(path.with_name(f"{path.name}.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        shared: dict[str, Any] = json.loads(path.read_text()) if path.is_file() else {}
        shared[key] = value
        _write_atomically(path, json.dumps(shared))
    return shared


def _write_atomically(path: Path, text: str) -> None:
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.write_text(text)
    os.replace(temporary, path)


def run_fault(project: Setup, fault: Fault, scratch: Path) -> Result:
    mutant = fault.mutant
    root = scratch / "p"
    if root.exists():
        shutil.rmtree(root)
    shutil.copytree(project.pristine, root, symlinks=True)
    cpu = _children_cpu()
    _, reference, _ = project.run(root, ["--tb=no", *fault.tests])
    reference_cpu = _children_cpu() - cpu
    (root / mutant.file).write_text(mutant.text, encoding="utf-8")
    before = _hashes(root)
    cpu = _children_cpu()
    autodebug_status, wall, tail = project.run(root, ["--autodebug=apply", *fault.tests])
    autodebug_cpu = _children_cpu() - cpu
    report_path = root / ".phasegate" / "autodebug.json"
    report = json.loads(report_path.read_text()) if report_path.is_file() else {"failures": []}
    after = _hashes(root)
    touched = {p for p in set(before) | set(after) if before.get(p) != after.get(p)}
    repaired = [f for f in report["failures"] if f["outcome"] == "repaired"]
    if autodebug_status is None:  # stopped at the limit: any report is not the whole run's
        outcome = "timed-out"
    elif not report["failures"]:
        outcome = "not-triggered"
    elif not repaired:
        outcome = "escalated"
    elif _same_sources(project, root) and all(
        _is_test(path) or path in project.sources() or not path.endswith(".py") for path in touched
    ):
        outcome = "correct"
    else:
        status, _, _ = project.run(root, ["--tb=no", *fault.tests])
        whole = project.run(root, ["--tb=no"])[0] if status == 0 else None
        outcome = "plausible" if status == 0 and whole == 0 else "wrong-kept"
    return Result(
        fault=f"{fault.project}:{mutant.id}",
        project=fault.project,
        error_class=mutant.error_class,
        operator=mutant.operator,
        half=fault.half,
        outcome=outcome,
        wall_s=round(wall, 2),
        autodebug_s=round(float(report.get("duration_s") or 0.0), 2),
        reference_s=round(reference, 2),
        autodebug_run_cpu_s=round(autodebug_cpu, 2),
        reference_cpu_s=round(reference_cpu, 2),
        tests_modified=sum(1 for p in touched if _is_test(p)),
        tree_changed_unkept=not repaired and bool(touched) and tail != "killed",
        failures=len(report["failures"]),
        candidates_tried=int(report.get("counts", {}).get("candidates_tried", 0)),
        description=mutant.description,
        explanations=[f"{f['outcome']}: {f['explanation']}" for f in report["failures"]][:4],
        touched=sorted(touched),
    )


# -- the table -----------------------------------------------------------------------------------


def _row(name: str, results: list[Result]) -> str:
    counts = {o: sum(r.outcome == o for r in results) for o in OUTCOMES}
    share = f"{100 * counts['correct'] / len(results):.0f}%" if results else "-"
    ratios = [r.autodebug_s / r.reference_s for r in results if r.reference_s > 0]
    ratio = f"{statistics.median(ratios):.2f}" if ratios else "-"
    return (
        f"{name:<10} {len(results):>6} {counts['correct']:>8} {share:>5} {counts['plausible']:>9} "
        f"{counts['escalated']:>9} {counts['wrong-kept']:>10} {counts['timed-out']:>9} "
        f"{counts['not-triggered']:>13} "
        f"{sum(r.tests_modified for r in results):>9} {ratio:>12}"
    )


def table(
    results: list[Result],
    classes: Sequence[str],
    suites: dict[str, float],
    suites_cpu: dict[str, float] | None = None,
) -> None:
    print(
        f"{'class':<10} {'faults':>6} {'correct':>8} {'%':>5} {'plausible':>9} {'escalated':>9} "
        f"{'wrong-kept':>10} {'timed-out':>9} {'not-triggered':>13} {'tests mod':>9} "
        f"{'x selection':>12}"
    )
    for name in classes:
        print(_row(name, [r for r in results if r.error_class == name]))
    print(_row("all", results))
    easy = [r for r in results if r.error_class in ("syntax", "name", "attribute", "import")]
    hard = [r for r in results if r.error_class in ("type", "none")]
    targets = (("syntax/name/attribute/import", easy, 90), ("type/none", hard, 60))
    for label, group, target in targets:
        for name in sorted({r.error_class for r in group}, key=CLASSES.index):
            members = [r for r in group if r.error_class == name]
            share = 100 * sum(r.outcome == "correct" for r in members) / len(members)
            verdict = "met" if share >= target else "MISSED"
            print(f"  {name}: {share:.0f}% correct (target {target}% for {label}: {verdict})")
    print(f"wrong repairs kept: {sum(r.outcome == 'wrong-kept' for r in results)} (must be 0)")
    stopped = sum(r.outcome == "timed-out" for r in results)
    print(f"runs stopped at the {RUN_LIMIT_S // 60}-minute limit (timed-out): {stopped}")
    print(f"test files modified: {sum(r.tests_modified for r in results)} (must be 0)")
    changed = sum(r.tree_changed_unkept for r in results)
    print(f"trees changed although nothing was kept: {changed} (must be 0)")
    if results:
        own = statistics.median(r.autodebug_s for r in results)
        wall = statistics.median(r.wall_s for r in results)
        ratio = statistics.median(r.autodebug_s / r.reference_s for r in results if r.reference_s)
        print(
            f"median per fault: auto-debug's own time {own:.1f}s, the whole pytest --autodebug "
            f"run {wall:.1f}s; auto-debug's time / one plain run of the same tests: {ratio:.2f} "
            "(the target is against the whole suite)"
        )
        cpu = [r.autodebug_run_cpu_s / r.reference_cpu_s for r in results if r.reference_cpu_s]
        if cpu:
            print(
                "CPU, every process included: the whole pytest --autodebug run (the failing run "
                "itself, then auto-debug) / the plain run of the same tests, median: "
                f"{statistics.median(cpu):.2f} over {len(cpu)} faults"
            )
        for line in suite_lines(results, suites, suites_cpu or {}):
            print(line)


def _verdict(ratio: float) -> str:
    return f"{ratio:.2f} (target <= 2: {'met' if ratio <= 2 else 'MISSED'})"


def suite_lines(
    results: Sequence[Result], suites: dict[str, float], suites_cpu: dict[str, float]
) -> list[str]:
    """The time per fault against one plain run of its project's whole suite (target <= 2).

    CPU first (every process included, so a busy machine changes it least), then wall; the
    whole ``pytest --autodebug`` run (the failing run itself, then auto-debug) and auto-debug's
    own time. Faults of a project whose suite was not timed are left out, and so, from the CPU
    figure, faults whose CPU was not measured (0 in older result files).
    """
    timed = [r for r in results if suites.get(r.project)]
    if not timed:
        return []
    lines = [
        f"time per fault / one plain run of its project's whole suite, median of {len(timed)}:"
    ]
    lines += _cpu_line(timed, suites_cpu)
    wall = statistics.median(r.wall_s / suites[r.project] for r in timed)
    own = statistics.median(r.autodebug_s / suites[r.project] for r in timed)
    lines.append(f"  wall of the whole pytest --autodebug run: {_verdict(wall)}")
    lines.append(f"  wall of auto-debug's own time: {own:.2f}")
    figures = (_suite_figure(name, suites, suites_cpu) for name in sorted(suites))
    lines.append("  suites (wall, CPU): " + ", ".join(figures))
    return lines


def _cpu_line(timed: Sequence[Result], suites_cpu: dict[str, float]) -> list[str]:
    """The CPU ratio's line, if any fault and its project's suite had their CPU measured."""
    cpu = [
        r.autodebug_run_cpu_s / suites_cpu[r.project]
        for r in timed
        if r.autodebug_run_cpu_s and suites_cpu.get(r.project)
    ]
    if not cpu:
        return []
    return [f"  CPU of the whole pytest --autodebug run: {_verdict(statistics.median(cpu))}"]


def _suite_figure(name: str, suites: dict[str, float], suites_cpu: dict[str, float]) -> str:
    cpu = suites_cpu.get(name)
    return f"{name} {suites[name]:.1f}s" + (f" ({cpu:.1f}s CPU)" if cpu else "")


def time_suite(project: Setup, scratch: Path) -> tuple[float, float] | None:
    """One plain run of the project's whole suite in a fresh copy: wall and CPU seconds.

    ``None`` when the run did not pass (the tests failing on the untouched project are
    deselected, so it should): a failed or stopped run is no yardstick.
    """
    root = scratch / "suite"
    shutil.copytree(project.pristine, root, symlinks=True)
    cpu = _children_cpu()
    try:
        status, wall, tail = project.run(root, ["--tb=no"])
    finally:
        shutil.rmtree(root, ignore_errors=True)
    if status != 0:
        log_now(f"  {project.name}: the whole suite did not pass ({tail}); not used as a yardstick")
        return None
    return wall, _children_cpu() - cpu


def main(args: Any) -> int:
    classes = args.only or list(CLASSES)
    asked = args.projects or list(realprojects.PROJECTS)
    names = [name for name in asked if in_sample(name, args.seed)]
    for name in asked:
        if name not in names:
            print(
                f"{name}: first run with {FIRST_SEED[name]!r}, not part of {args.seed!r}'s sample"
            )
    refusal = _refusal(names)
    if refusal:
        print(refusal)
        return 2
    setups = {name: setup(name) for name in names}
    if args.record_draws:
        added = record_draws(setups, classes, args.per_class, args.seed)
        print(f"{RECORDED_DRAWS}: {added} draws added, of the seeds before {args.seed!r}")
        return 0
    chosen: list[Fault] = []
    for name in names:
        for error_class in classes:
            seen = seen_before(setups[name], error_class, args.per_class, args.seed)
            found = faults(setups[name], error_class, args.per_class, seed=args.seed, exclude=seen)
            chosen += [f for f in found if f.half == args.half]
    if args.limit:
        chosen = chosen[: args.limit]
    _print_sample(args, names, chosen)
    suites: dict[str, float] = {}
    suites_cpu: dict[str, float] = {}
    results: list[Result] = []
    shown = args.half == "dev" or args.verbose
    with tempfile.TemporaryDirectory(prefix="phasegate-real-bench-") as scratch:
        for number, fault in enumerate(chosen, start=1):
            if args.suites and number == _first_of_project(chosen, fault.project):
                # Side by side: the suite just before its project's faults, as the load was.
                _time_suite_into(setups[fault.project], Path(scratch), suites, suites_cpu)
            result = run_fault(setups[fault.project], fault, Path(scratch))
            results.append(result)
            if args.json:  # as it goes, so that a long run stopped early keeps what it measured
                _save(args, (suites, suites_cpu), results)
            line = (
                f"[{number:>3}/{len(chosen)}] {result.project:<16} {result.error_class:<9} "
                f"{result.outcome:<13} {result.autodebug_s:>6.1f}s/{result.reference_s:>5.1f}s"
            )
            if shown:
                line += f"  {fault.mutant.id}: {fault.mutant.description}"
                for explanation in result.explanations:
                    line += f"\n        {explanation[:220]}"
            print(line, flush=True)
    print()
    print(
        f"Python {sys.version.split()[0]}; {len(results)} faults, {args.half} half of seed "
        f"{args.seed!r}; "
        f"pytest --autodebug=apply on the tests that run each fault"
    )
    table(results, classes, suites, suites_cpu)
    if args.json:
        _save(args, (suites, suites_cpu), results)
    return 0


def _refusal(names: Sequence[str]) -> str | None:
    """Why the projects ``names`` cannot be run here, or ``None`` when they can."""
    missing = [n for n in names if realprojects.cached(realprojects.PROJECTS[n]) is None]
    if missing:
        return f"not cached: {', '.join(missing)}; run: python tests/realprojects.py fetch"
    lacking = missing_requirements(names)
    if lacking:
        return f"not installed: {', '.join(lacking)}; run: python -m pip install -e '.[dev]'"
    return None


def _print_sample(args: Any, names: Sequence[str], chosen: Sequence[Fault]) -> None:
    """How many faults, of which seed, and which seen seeds each project's sample leaves out."""
    earlier = SEEN_SEEDS[: SEEN_SEEDS.index(args.seed)] if args.seed in SEEN_SEEDS else SEEN_SEEDS
    named = ", ".join(repr(seed) for seed in earlier)
    fresh = f" (every fault of {named} left out)" if earlier else ""
    print(f"{len(chosen)} faults in the {args.half} half; seed {args.seed!r}{fresh}", flush=True)
    for name in sorted(FIRST_SEED.keys() & set(names)):
        kept = ", ".join(seeds_before(name, args.seed)) or "none"
        print(f"  {name} was first run with {FIRST_SEED[name]!r}: seeds left out for it: {kept}")


def _time_suite_into(
    project: Setup, scratch: Path, suites: dict[str, float], suites_cpu: dict[str, float]
) -> None:
    """Time the project's whole suite and file its wall and CPU, unless it did not pass."""
    timed = time_suite(project, scratch)
    if timed is not None:
        suites[project.name], suites_cpu[project.name] = timed


def missing_requirements(names: Iterable[str]) -> list[str]:
    """The distributions the suites of ``names`` import that this environment lacks.

    Without them a suite fails before any test, and every fault of the project would be filed
    against auto-debug.
    """
    wanted = {r: n for n in names for r in realprojects.PROJECTS[n].test_requires}
    return [f"{r} (for {wanted[r]})" for r in sorted(wanted) if not _installed(r)]


def _installed(distribution: str) -> bool:
    try:
        importlib.metadata.distribution(distribution)
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


def _first_of_project(chosen: Sequence[Fault], name: str) -> int:
    """The number (from 1) of the first of ``chosen`` in project ``name``."""
    return next(n for n, fault in enumerate(chosen, start=1) if fault.project == name)


def _save(
    args: Any, suites: tuple[dict[str, float], dict[str, float]], results: list[Result]
) -> None:
    data = {
        "seed": args.seed,
        "half": args.half,
        "suites": suites[0],
        "suites_cpu": suites[1],
        "results": [asdict(r) for r in results],
    }
    args.json.write_text(json.dumps(data, indent=1))


def combined(paths: Sequence[Path]) -> int:
    """The table of several runs' JSON files together (one sample run in parts, by project).

    Every file must be of the same seed and half, and no fault may be in two of them.
    """
    runs = [json.loads(path.read_text()) for path in paths]
    kinds = {(run["seed"], run["half"]) for run in runs}
    if len(kinds) != 1:
        print(f"the files are of different samples: {sorted(kinds)}")
        return 2
    results = [Result(**r) for run in runs for r in run["results"]]
    faults = [r.fault for r in results]
    if len(set(faults)) != len(faults):
        print("a fault is in two of the files")
        return 2
    suites = {name: s for run in runs for name, s in run["suites"].items()}
    suites_cpu = {name: s for run in runs for name, s in run.get("suites_cpu", {}).items()}
    ((seed, half),) = kinds
    print(f"Python {sys.version.split()[0]}; {len(results)} faults, {half} half of seed {seed!r}")
    print(f"(from {len(paths)} runs: {', '.join(str(p) for p in paths)})")
    table(results, list(CLASSES), suites, suites_cpu)
    return 0

"""The static checks in their own process: results come back, and a failed child fails closed."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from phasegate.gates.definition import load_gate
from phasegate.gates.protocol import CheckContext, CheckError
from phasegate.gates.registry import CheckRegistry
from phasegate.gates.runner import GateRunner
from phasegate.gates.static_process import StaticChecksProcess
from phasegate.gates.static_start import StartedChild
from phasegate.model.gate import CheckStatus
from tests.conftest import python_json

MakeContext = Callable[..., CheckContext]
WriteFiles = Callable[..., Path]

GATE = 'name = "two"\n[checks.syntax]\n[checks.lint]\n'


def project(write_files: WriteFiles, pyproject: str = "") -> Path:
    return write_files(
        {
            "pyproject.toml": pyproject + '\n[tool.ruff.lint]\nselect = ["F"]\n',
            "two.toml": GATE,
            "pkg/__init__.py": "import os\n",
        }
    )


def process_for(root: Path) -> StaticChecksProcess:
    return StaticChecksProcess(
        root=root, gate="two.toml", artifacts_dir=root / ".phasegate", base=None, timeout_s=120
    )


@pytest.mark.slow
def test_the_child_returns_a_judgement_per_static_check(
    write_files: WriteFiles, make_context: MakeContext
) -> None:
    root = project(write_files)
    gate, source = load_gate("two.toml", root)
    runner = GateRunner(gate, source, CheckRegistry(), make_context(root))
    process = process_for(root)
    runner.start(process)
    verdict = runner.finish(None)
    statuses = {check.id: check.status for check in verdict.checks}
    assert statuses == {"syntax": CheckStatus.PASSED, "lint": CheckStatus.FAILED}
    assert verdict.checks[1].findings[0].rule == "F401"
    runner.close()  # the run's end: the child has ended, its folder is gone
    assert process._process is not None
    assert process._process.returncode == 0
    assert process._folder is None


@pytest.mark.slow
def test_a_child_that_dies_gives_every_static_check_an_error(
    write_files: WriteFiles, make_context: MakeContext
) -> None:
    # A configuration the child refuses: it exits before writing any result.
    root = project(write_files, "[tool.phasegate]\nnot_a_key = 1\n")
    gate, source = load_gate("two.toml", root)
    runner = GateRunner(gate, source, CheckRegistry(), make_context(root))
    runner.start(process_for(root))
    verdict = runner.finish(None)
    assert verdict.verdict == "insufficient"
    assert [check.status for check in verdict.checks] == [CheckStatus.ERROR, CheckStatus.ERROR]
    assert "exited with status 1 without its results" in verdict.checks[0].reasoning
    assert "not_a_key" in verdict.checks[0].reasoning


def test_results_are_asked_for_before_the_child_started(write_files: WriteFiles) -> None:
    with pytest.raises(CheckError, match="never started"):
        process_for(project(write_files)).judgements()


def test_the_child_plans_no_session_check(
    write_files: WriteFiles, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # The parent plans the session checks: the child imports none of their modules.
    import sys

    from phasegate.gates import static_process

    root = project(write_files)
    (root / "two.toml").write_text(GATE + "[checks.mutation]\n[checks.integrity]\n")
    for name in ("mutation", "integrity"):
        monkeypatch.delitem(sys.modules, f"phasegate.gates.checks.{name}", raising=False)
    monkeypatch.setattr(static_process.signal, "signal", lambda *_args: None)  # not in pytest
    out = tmp_path / "judgements.json"
    assert (
        static_process.main(["--root", str(root), "--gate", "two.toml", "--out", str(out)]) is True
    )
    judged = static_process._JUDGEMENTS.validate_json(out.read_bytes())
    assert [entry.result.id for entry in judged] == ["syntax", "lint"]
    assert "phasegate.gates.checks.mutation" not in sys.modules
    assert "phasegate.gates.checks.integrity" not in sys.modules
    assert (root / ".phasegate").is_dir()  # the settings' artifacts folder, none given


def test_the_session_checks_known_without_importing_them_are_the_session_checks() -> None:
    from phasegate.gates.registry import BUILT_IN, SESSION_CHECKS, CheckRegistry

    registry = CheckRegistry()
    kinds = {check_id: registry.get(check_id).check.kind for check_id in BUILT_IN}
    assert {check_id for check_id, kind in kinds.items() if kind == "session"} == SESSION_CHECKS


@pytest.mark.slow
def test_pytest_starts_the_child_before_planning_and_stops_it_when_unused(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Started as soon as pytest has read --gate; stopped when the gate is wrong or has no
    # static check: no child outlives the run.
    started: list[StaticChecksProcess] = []
    adopt = StaticChecksProcess.adopt  # every start, early or by the runner, ends here

    def recording_adopt(self: StaticChecksProcess, child: StartedChild) -> None:
        started.append(self)
        adopt(self, child)

    def ended() -> bool:
        return all(p._process is not None and p._process.poll() is not None for p in started)

    monkeypatch.setattr(StaticChecksProcess, "adopt", recording_adopt)
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)  # this test may run in a worker
    pytester.makepyprojecttoml('[tool.ruff.lint]\nselect = ["F"]\n')
    pytester.makepyfile(test_a="def test_a():\n    pass\n")
    pytester.makefile(".toml", two=GATE, wrong="[checks.lint]\nrequird = false\n")
    pytester.makefile(".toml", session='name = "session"\n[checks.tests]\n')

    result = pytester.runpytest("--gate=two.toml", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*syntax*passed*", "*lint*passed*"])
    assert [p._gate for p in started] == ["two.toml"]  # once, early; the runner took it over
    assert ended()

    for gate, outcome in (("wrong.toml", pytest.ExitCode.USAGE_ERROR), ("session.toml", 0)):
        started.clear()
        result = pytester.runpytest(f"--gate={gate}", "-p", "no:cacheprovider")
        assert result.ret == outcome
        assert [p._gate for p in started] == [gate]
        assert ended()

    started.clear()
    pytester.runpytest("--gate=record", "-p", "no:cacheprovider").assert_outcomes(passed=1)
    assert started == []


@pytest.mark.parametrize(
    ("option", "shown"),
    [
        ("--help", "*--gate=NAME*"),
        ("--markers", "*@pytest.mark.skip*"),
        ("--fixtures", "*tmp_path*"),
        ("--fixtures-per-test", "*fixtures used by test_a*"),
        ("--collect-only", "*test_a*"),
    ],
)
def test_pytest_starts_no_child_for_a_run_that_only_shows_something(
    option: str, shown: str, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    started: list[StaticChecksProcess] = []
    adopt = StaticChecksProcess.adopt  # every start, early or by the runner, ends here

    def recording_adopt(self: StaticChecksProcess, child: StartedChild) -> None:
        started.append(self)
        adopt(self, child)

    monkeypatch.setattr(StaticChecksProcess, "adopt", recording_adopt)
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)  # this test may run in a worker
    pytester.makepyfile(test_a="def test_a(tmp_path):\n    pass\n")
    pytester.makefile(".toml", two=GATE)

    result = pytester.runpytest("--gate=two.toml", option, "-p", "no:cacheprovider")
    result.stdout.fnmatch_lines([shown])
    assert started == []
    assert not (pytester.path / ".phasegate").exists()  # no verdict of a run without tests


@pytest.mark.parametrize("failure", ["import", "interrupt"])
def test_a_child_started_early_is_stopped_when_what_would_stop_it_fails(
    failure: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # The child starts before the module that waits for it is imported: when that import
    # fails, or Ctrl-C comes meanwhile, nothing else would ever stop the child.
    import argparse
    import subprocess
    import sys
    import tempfile
    from types import SimpleNamespace

    from phasegate.gates import static_start
    from phasegate.plugin.gate import start_static_early
    from phasegate.processes import kill_group, start_in_group

    sleeper = [sys.executable, "-c", "import time; time.sleep(60)"]
    child = StartedChild(
        start_in_group(sleeper, cwd=tmp_path, stdin=subprocess.PIPE, stdout=None, stderr=None),
        tempfile.TemporaryDirectory(dir=tmp_path),
        0.0,
    )
    monkeypatch.setattr(static_start, "start_child", lambda **_kwargs: child)
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    if failure == "import":
        monkeypatch.setitem(sys.modules, "phasegate.gates.static_process", None)
        expected: type[BaseException] = ImportError
    else:

        def interrupted(*_args: object) -> None:
            raise KeyboardInterrupt

        monkeypatch.setattr(StaticChecksProcess, "adopt", interrupted)
        expected = KeyboardInterrupt
    cleanups: list[Callable[[], None]] = []
    early_config = SimpleNamespace(
        known_args_namespace=argparse.Namespace(gate="two.toml"),
        inipath=None,
        rootpath=tmp_path,
        stash=pytest.Stash(),
        add_cleanup=cleanups.append,
    )
    try:
        with pytest.raises(expected):
            start_static_early(early_config)  # type: ignore[arg-type]
        assert child.process.poll() is not None  # ended and reaped
        assert not Path(child.folder.name).exists()
        assert cleanups == []
    finally:
        kill_group(child.process)


_START_IMPORTS = """
import json, sys
import pytest
import phasegate.plugin, phasegate.plugin.gate
before = set(sys.modules)
import phasegate.gates.static_start
print(json.dumps({"before": sorted(before), "new": sorted(set(sys.modules) - before)}))
"""


@pytest.mark.slow
def test_starting_the_child_imports_nothing_that_reading_its_judgements_needs(
    tmp_path: Path,
) -> None:
    # pytest --gate starts the child first and imports pydantic and the gate's models after.
    imported = python_json(_START_IMPORTS, cwd=tmp_path)
    assert "phasegate.gates.static_process" not in imported["before"]
    assert "phasegate.gates.static_start" in imported["new"]
    heavy = ("pydantic", "phasegate.model", "phasegate.gates.protocol", "phasegate.gates.static_")
    too_soon = [name for name in imported["new"] if name.startswith(heavy)]
    assert too_soon == ["phasegate.gates.static_start"]


_COLLECTOR = """\
import contextlib, gc, json, runpy, sys
heavy_loaded = []  # for each collection: whether pydantic was loaded by then
gc.callbacks.append(lambda phase, _info: heavy_loaded.append("pydantic" in sys.modules))
sys.argv = ["static_process", "--help"]  # the child's own start, ending at its options
with contextlib.redirect_stdout(sys.stderr), contextlib.suppress(SystemExit):
    runpy.run_module("phasegate.gates.static_process", run_name="__main__")
child = {"enabled": gc.isenabled(), "after_pydantic": any(heavy_loaded)}
gc.enable()
import phasegate.gates.static_process  # as the parent imports it
print(json.dumps({"child": child, "parent": gc.isenabled()}))
"""


@pytest.mark.slow
def test_the_child_starts_without_the_collector_and_the_parent_keeps_it(tmp_path: Path) -> None:
    found = python_json(_COLLECTOR, cwd=tmp_path)
    # The child turned it off before it imported pydantic: no collection ran after that.
    assert found["child"] == {"enabled": False, "after_pydantic": False}
    assert found["parent"] is True


def test_a_process_adopts_one_child_only(tmp_path: Path) -> None:
    import subprocess
    import sys
    import tempfile

    process = process_for(tmp_path)
    stand_in = subprocess.Popen([sys.executable, "-c", ""], stdin=subprocess.PIPE)
    child = StartedChild(stand_in, tempfile.TemporaryDirectory(), 0.0)
    process.adopt(child)
    assert process.started
    with pytest.raises(RuntimeError, match="started already"):
        process.adopt(child)
    process.start()  # a no-op: it has its child
    assert process._process is stand_in
    process.terminate()
    assert stand_in.wait(timeout=30) is not None


@pytest.mark.slow
def test_the_child_exits_at_once_with_its_output_flushed_and_its_tools_killed(
    tmp_path: Path,
) -> None:
    # The tool shares the child's stdout: were it left running, the pipe would stay open and
    # the run below would wait for it until its timeout.
    import subprocess
    import sys

    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from phasegate.processes import start_in_group\n"
        "from phasegate.gates.static_process import exit_at_once\n"
        "sleep = [sys.executable, '-c', 'import time; time.sleep(60)']\n"
        "tool = start_in_group(sleep, cwd=Path.cwd(), stdout=None, stderr=None)\n"
        "sys.stdout.write('written before the exit')\n"
        "exit_at_once(3)\n"
        "print('never')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert (done.returncode, done.stdout) == (3, "written before the exit")


@pytest.mark.slow
def test_a_child_whose_check_is_stuck_for_good_still_exits(tmp_path: Path) -> None:
    import subprocess
    import sys

    # A check past its timeout, stuck in its thread: waiting for it would keep the child
    # from ending, and the parent would have to stop it.
    script = (
        "import threading, time\n"
        "from concurrent.futures import ThreadPoolExecutor\n"
        "from phasegate.gates.static_process import exit_child\n"
        "entered = threading.Event()\n"
        "def check():\n"
        "    entered.set()\n"
        "    time.sleep(600)\n"
        "pool = ThreadPoolExecutor(1)\n"
        "future = pool.submit(check)\n"
        "entered.wait()\n"
        "pool.shutdown(wait=False, cancel_futures=True)\n"
        "exit_child(future.done())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, capture_output=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert b"a check past its timeout still runs" in done.stderr


@pytest.mark.slow
def test_the_child_is_asked_for_coverage_only_while_it_runs(write_files: WriteFiles) -> None:
    root = project(write_files)
    process = process_for(root)
    assert process.ask('{"files": []}') is False  # not started
    process.start()
    process.wait_until_ended()  # no request: closing its input lets it end
    assert process.ask('{"files": []}') is False  # ended
    assert set(process.judgements()) == {"syntax", "lint"}


def child_running(code: str) -> Callable[..., object]:
    """A stand-in for the child's start: ``code`` runs with the judgements' path as argv[1]."""
    import sys

    from phasegate.processes import start_in_group

    def start(command: list[str], **options: object) -> object:
        out = command[command.index("--out") + 1]
        return start_in_group([sys.executable, "-c", code, out], **options)  # type: ignore[arg-type]

    return start


def written(process: StaticChecksProcess) -> StaticChecksProcess:
    """``process``, once its child has written its judgements."""
    import time

    for _ in range(600):
        if process._out.exists():
            return process
        time.sleep(0.05)
    raise AssertionError("the child wrote no judgements within 30s")


#: Writes no judgement, then waits on its input for a coverage request, as ``main`` does.
WRITES_THEN_WAITS = "import sys, pathlib; pathlib.Path(sys.argv[1]).write_text('[]'); input()"


@pytest.mark.slow
def test_tests_that_outlast_the_checks_limit_do_not_lose_the_judgements_written_in_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from phasegate.gates import static_process, static_start

    monkeypatch.setattr(static_process, "_MARGIN_S", 0.0)
    monkeypatch.setattr(static_start, "start_in_group", child_running(WRITES_THEN_WAITS))
    process = StaticChecksProcess(
        root=tmp_path, gate="two.toml", artifacts_dir=None, base=None, timeout_s=0.0
    )
    process.start()  # its limit has passed once it started: the tests run longer than that
    assert written(process).judgements() == {}
    process.end()  # let go, it reads the end of its input and ends within its grace
    assert process._process is not None
    assert process._process.returncode == 1  # input()'s EOFError: it ended, was not stopped


@pytest.mark.slow
def test_a_child_that_hangs_after_its_judgements_is_stopped_and_they_are_still_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from phasegate.gates import static_process, static_start

    hangs = WRITES_THEN_WAITS + "; import time; time.sleep(60)"
    monkeypatch.setattr(static_process, "_MARGIN_S", 0.0)
    monkeypatch.setattr(static_process, "_EXIT_GRACE_S", 0.2)
    monkeypatch.setattr(static_start, "start_in_group", child_running(hangs))
    process = StaticChecksProcess(
        root=tmp_path, gate="two.toml", artifacts_dir=None, base=None, timeout_s=0.0
    )
    process.start()
    assert written(process).ask('{"files": []}')
    with pytest.raises(CheckError, match="wrote its judgements but did not end"):
        process.wait_until_ended()
    assert process.judgements() == {}


@pytest.mark.slow
def test_a_stopped_child_never_has_its_results_read_from_the_project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json

    from phasegate.gates import static_process, static_start

    # The project (pytest's working folder) holds a judgements.json saying lint passed.
    monkeypatch.chdir(tmp_path)
    passed = {
        "id": "lint",
        "status": "passed",
        "score": 1.0,
        "reasoning": "clean",
        "duration_s": 0.1,
    }
    (tmp_path / "judgements.json").write_text(json.dumps([{"result": passed, "conditions": []}]))
    monkeypatch.setattr(static_process, "_MARGIN_S", 0.0)
    monkeypatch.setattr(
        static_start, "start_in_group", child_running("import time; time.sleep(30)")
    )
    process = StaticChecksProcess(
        root=tmp_path, gate="two.toml", artifacts_dir=None, base=None, timeout_s=0.0
    )
    process.start()  # writes nothing by its deadline: the first wait stops it
    with pytest.raises(CheckError, match="did not finish within"):
        process.wait_until_ended()
    with pytest.raises(CheckError, match="results were discarded"):
        process.judgements()


@pytest.mark.slow
def test_judgements_written_by_a_child_that_then_hangs_are_read_without_a_wait_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json
    import sys

    from phasegate.gates import static_process, static_start
    from phasegate.processes import start_in_group

    def judged(check: str, status: str) -> dict[str, object]:
        score = 1.0 if status == "passed" else 0.0
        result = {"id": check, "status": status, "score": score, "reasoning": "r", "duration_s": 0}
        return {"result": result, "conditions": []}

    written_then_stuck = (
        "import sys, time; from pathlib import Path; Path(sys.argv[1]).write_text(sys.argv[2]);"
        "sys.stdin.readline(); time.sleep(60); Path(sys.argv[1]).unlink()"
    )  # the unlink tells a child that was stopped from one waited for until it ended
    payload = json.dumps([judged("lint", "passed"), judged("security", "error")])

    def start(command: list[str], **options: object) -> object:
        out = command[command.index("--out") + 1]
        code = [sys.executable, "-c", written_then_stuck, out, payload]
        return start_in_group(code, **options)  # type: ignore[arg-type]

    monkeypatch.setattr(static_process, "_EXIT_GRACE_S", 0.2)
    monkeypatch.setattr(static_start, "start_in_group", start)
    # A limit far beyond the child's 60 s hang: the parent looks for the judgements file
    # rather than waiting to the checks' deadline, so the child is still stuck when stopped.
    process = StaticChecksProcess(
        root=tmp_path, gate="two.toml", artifacts_dir=None, base=None, timeout_s=600.0
    )
    process.start()
    found = process.judgements()  # no coverage share, no wait before: the gate's own call
    assert {check: j.result.status for check, j in found.items()} == {
        "lint": CheckStatus.PASSED,
        "security": CheckStatus.ERROR,
    }
    assert process._process is not None
    assert process._process.poll() is None  # read while the child still runs
    process.end()  # past its grace, it is stopped
    assert process._process.returncode is not None
    assert process._folder is None


#: Writes its judgements (none), says so, then runs on, and unlinks them before it ends: a
#: parent that waited for its end, or for its next look at the file, would find none.
SAYS_JUDGED_THEN_RUNS_ON = """\
import sys, time
from pathlib import Path
from phasegate.gates.static_process import _keep_output_for_the_parent, _say_judged
kept = _keep_output_for_the_parent()
print("a stray line, not for the parent", flush=True)
Path(sys.argv[1]).write_text("[]")
_say_judged(kept)
time.sleep(20)
Path(sys.argv[1]).unlink()
"""


@pytest.mark.slow
def test_the_parent_reads_the_judgements_when_the_child_says_they_are_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from phasegate.gates import static_process, static_start

    monkeypatch.setattr(static_process, "_POLL_S", 600.0)  # no look at the file before its end
    monkeypatch.setattr(static_process, "_EXIT_GRACE_S", 0.2)
    monkeypatch.setattr(static_start, "start_in_group", child_running(SAYS_JUDGED_THEN_RUNS_ON))
    process = StaticChecksProcess(
        root=tmp_path, gate="two.toml", artifacts_dir=None, base=None, timeout_s=600.0
    )
    process.start()
    assert process.judgements() == {}
    assert process._process is not None
    assert process._process.poll() is None  # read while the child runs on
    process.end()
    assert process._process.stdout is not None
    assert process._process.stdout.closed


#: A static check that never ends on its own, registered by the project (``plugins``).
SLOW_CHECK = """
import time

from phasegate.gates.protocol import Measurement, NoOptions
from phasegate.hookspecs import hookimpl


class SlowCheck:
    id = "slow"
    title = "a check that takes ten minutes"
    kind = "static"
    options_model = NoOptions
    metrics = ()
    default_conditions = ()

    def tool_info(self):
        return None

    def cache_inputs(self, ctx, options):
        return None

    def measure(self, ctx, options):
        time.sleep(600)
        return Measurement(summary="done")


@hookimpl
def phasegate_register_checks():
    return [SlowCheck()]
"""

#: A stand-in for ``pytest --gate``: it starts the child, says its id, and waits to be killed.
STARTS_THE_CHILD = """
import sys, time
from pathlib import Path
from phasegate.gates.static_start import start_child
child = start_child(root=Path.cwd(), gate="slow.toml", artifacts_dir=None, base=None)
print(child.process.pid, flush=True)
time.sleep(600)
"""


def _ended(pid: int) -> bool:
    """Whether the process ``pid`` is gone (or a zombie nobody reaps, as in some containers)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return True
    return stat.rsplit(")", 1)[1].split()[0] == "Z"


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_the_child_ends_when_its_parent_is_killed(write_files: WriteFiles) -> None:
    """A ``pytest --gate`` killed (SIGTERM) runs no cleanup: its child ran every check to its
    end for nobody. It now ends when its parent has."""
    import signal
    import subprocess
    import sys
    import time

    root = write_files(
        {
            "pyproject.toml": '[tool.phasegate]\nplugins = ["slowcheck"]\n',
            "slow.toml": 'name = "slow"\n[checks.slow]\n',
            "slowcheck.py": SLOW_CHECK,
        }
    )
    with subprocess.Popen(
        [sys.executable, "-c", STARTS_THE_CHILD], cwd=root, stdout=subprocess.PIPE, text=True
    ) as parent:
        assert parent.stdout is not None
        child = int(parent.stdout.readline())
        parent.send_signal(signal.SIGTERM)
        parent.wait(timeout=30)
    deadline = time.monotonic() + 60  # a bound on the wait, not a measure of it
    while not _ended(child) and time.monotonic() < deadline:
        time.sleep(0.1)
    ended = _ended(child)
    if not ended:
        os.killpg(child, signal.SIGKILL)  # the test's own mess: the child leads its group
    assert ended, "the static checks' process outlived the pytest that started it"

"""coverage.py's analysis shared with a helper process: the figures are coverage.py's own,
whoever analysed which file, and a helper that fails makes the measurement an error."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import coverage
import pytest

from phasegate.gates import static_process, static_start
from phasegate.gates.coverage_run import CoverageFigures, MeasurementError, open_data
from phasegate.gates.coverage_share import ShareRequest, serve, shared_figures
from phasegate.processes import start_in_group

from .test_coverage_figures import coverage_json

MODULE = """\
def sign_{n}(value):
    if value > 0:
        return 1
    if value < 0:
        return -1
    return 0


def unused_{n}(values):
    for value in values:
        if value:
            return value
    return None
"""

SCRIPT = "".join(f"from shapes.m{n} import sign_{n}\nsign_{n}({n})\n" for n in range(6))


def measure(root: Path) -> Path:
    """Six modules of different sizes run under branch coverage; the data file."""
    (root / "shapes").mkdir()
    (root / "shapes" / "__init__.py").write_text("")
    for n in range(6):
        (root / "shapes" / f"m{n}.py").write_text(MODULE.format(n=n) * (n + 1))
    (root / "run.py").write_text(SCRIPT)
    command = [sys.executable, "-m", "coverage", "run", "--branch", "--source=shapes", "run.py"]
    subprocess.run(command, cwd=root, check=True, capture_output=True)
    return root / ".coverage"


def assert_coverage_pys_own(figures: CoverageFigures, report: dict[str, object]) -> None:
    files = report["files"]
    assert isinstance(files, dict)
    assert list(figures["files"]) == sorted(files)
    keys = ["executed_lines", "missing_lines", "excluded_lines"]
    keys += ["executed_branches", "missing_branches"]
    for name, entry in files.items():
        assert {key: entry[key] for key in keys} == figures["files"][name]
    totals = report["totals"]
    assert isinstance(totals, dict)
    assert figures["totals"] == {key: totals[key] for key in figures["totals"]}
    assert set(figures["totals"]) == {
        "num_statements",
        "covered_lines",
        "num_branches",
        "covered_branches",
    }


class Helper:
    """A helper in this process: ``on_ask`` does what the helper does with the request."""

    def __init__(
        self, on_ask: Callable[[str], bool], on_wait: Callable[[], None] = lambda: None
    ) -> None:
        self.on_ask = on_ask
        self.on_wait = on_wait
        self.requests: list[ShareRequest] = []

    def ask(self, request: str) -> bool:
        self.requests.append(json.loads(request))
        return self.on_ask(request)

    def wait_until_ended(self) -> None:
        self.on_wait()


class ProcessHelper:
    """A helper in a process of its own, running ``code`` on the request line."""

    def __init__(self, root: Path, code: str, timeout_s: float = 60) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-c", code], cwd=root, stdin=subprocess.PIPE
        )
        self.timeout_s = timeout_s

    def ask(self, request: str) -> bool:
        assert self.process.stdin is not None
        self.process.stdin.write(request.encode() + b"\n")
        self.process.stdin.close()
        return True

    def wait_until_ended(self) -> None:
        try:
            self.process.wait(timeout=self.timeout_s)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            raise


SERVE = (
    "import sys\nfrom phasegate.gates.coverage_share import serve\nserve(sys.stdin.readline())\n"
)


def takes_all(request: str) -> bool:
    serve(request)  # before the pytest process claims anything: every file is the helper's
    return True


def shared(root: Path, data: Path, helper: object) -> CoverageFigures:
    with open_data(coverage, root, data) as cov:
        return shared_figures(cov, coverage, root, data, helper)  # type: ignore[arg-type]


@pytest.fixture
def measured(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    monkeypatch.chdir(tmp_path)  # coverage.py names files from the current folder
    return tmp_path, measure(tmp_path)


@pytest.mark.parametrize(
    "make_helper",
    [
        pytest.param(lambda root: Helper(takes_all), id="the helper analyses every file"),
        pytest.param(lambda root: Helper(lambda _r: True), id="the helper analyses none"),
        pytest.param(lambda root: Helper(lambda _r: False), id="the helper cannot take it"),
        pytest.param(lambda root: ProcessHelper(root, SERVE), id="a helper process"),
    ],
)
def test_the_figures_are_coverage_pys_whoever_analysed_which_file(
    measured: tuple[Path, Path], make_helper: Callable[[Path], object]
) -> None:
    root, data = measured
    helper = make_helper(root)
    figures = shared(root, data, helper)
    if isinstance(helper, ProcessHelper):
        helper.wait_until_ended()
    assert_coverage_pys_own(figures, coverage_json(root, data))
    assert len(figures["files"]) == 7


def test_the_pytest_process_takes_the_largest_files_first(measured: tuple[Path, Path]) -> None:
    root, data = measured
    helper = Helper(lambda _r: True)
    shared(root, data, helper)
    (request,) = helper.requests
    sizes = [Path(name).stat().st_size for name in request["files"]]
    assert sizes == sorted(sizes, reverse=True)
    assert Path(request["files"][0]).name == "m5.py"


def rewrite(text: str) -> Callable[[str], bool]:
    """A helper that claims every file and writes ``text`` as its figures."""

    def ask(request: str) -> bool:
        serve(request)
        Path(json.loads(request)["out"]).write_text(text)
        return True

    return ask


def drop_one(request: str) -> bool:
    serve(request)
    out = Path(json.loads(request)["out"])
    written = json.loads(out.read_text())
    out.write_text(json.dumps({"files": written["files"][1:]}))
    return True


def add_one(request: str) -> bool:
    serve(request)
    out = Path(json.loads(request)["out"])
    written = json.loads(out.read_text())
    out.write_text(json.dumps({"files": [*written["files"], [99, None]]}))
    return True


def bad_numbers(request: str) -> bool:
    serve(request)
    out = Path(json.loads(request)["out"])
    written = json.loads(out.read_text())
    index, analysed = next(item for item in written["files"] if item[1] is not None)
    analysed["numbers"] = [1, 2, "3", 4]
    out.write_text(json.dumps({"files": [[index, analysed]]}))
    return True


def claims_all_writes_nothing(request: str) -> bool:
    files = json.loads(request)["files"]
    for index in range(len(files)):
        (Path(json.loads(request)["claims"]) / str(index)).touch()
    return True


def crashed() -> None:
    raise RuntimeError("the helper exited with status 1")


@pytest.mark.parametrize(
    ("on_ask", "on_wait"),
    [
        pytest.param(claims_all_writes_nothing, lambda: None, id="claimed, wrote nothing"),
        pytest.param(takes_all, crashed, id="crashed"),
        pytest.param(rewrite(""), lambda: None, id="printed nothing"),
        pytest.param(rewrite("garbage{"), lambda: None, id="printed garbage"),
        pytest.param(rewrite("{}"), lambda: None, id="an unknown shape"),
        pytest.param(rewrite('{"files": [[0]]}'), lambda: None, id="a short entry"),
        pytest.param(drop_one, lambda: None, id="left out a file it claimed"),
        pytest.param(add_one, lambda: None, id="named a file it did not claim"),
        pytest.param(bad_numbers, lambda: None, id="counts that are not numbers"),
    ],
)
def test_a_helper_that_fails_makes_the_measurement_an_error(
    measured: tuple[Path, Path], on_ask: Callable[[str], bool], on_wait: Callable[[], None]
) -> None:
    root, data = measured
    with pytest.raises(MeasurementError, match="the process analysing part of the measured"):
        shared(root, data, Helper(on_ask, on_wait))


@pytest.mark.slow
@pytest.mark.parametrize(
    ("code", "timeout_s"),
    [
        pytest.param("import sys\nsys.stdin.readline()\nsys.exit(1)\n", 60, id="exits 1"),
        pytest.param("import time\ntime.sleep(60)\n", 1, id="hangs"),
        pytest.param(SERVE + "import os\nos._exit(0)\n", 60, id="prints, then ends"),
    ],
)
def test_a_helper_process_that_crashes_or_hangs_makes_the_measurement_an_error(
    measured: tuple[Path, Path], code: str, timeout_s: float
) -> None:
    root, data = measured
    helper = ProcessHelper(root, code, timeout_s)
    if "serve" in code:
        # It serves (and so finishes the figures) before the parent starts: all is well.
        figures = shared(root, data, helper)
        helper.wait_until_ended()
        assert_coverage_pys_own(figures, coverage_json(root, data))
        return
    with pytest.raises(MeasurementError):
        # A file at the back of the list the parent never claims: it must wait for the helper.
        shared(root, data, _ClaimingLast(helper))


class _ClaimingLast:
    """A helper process, with the last file claimed for it before the parent starts."""

    def __init__(self, helper: ProcessHelper) -> None:
        self.helper = helper

    def ask(self, request: str) -> bool:
        loaded = json.loads(request)
        (Path(loaded["claims"]) / str(len(loaded["files"]) - 1)).touch()
        return self.helper.ask(request)

    def wait_until_ended(self) -> None:
        self.helper.wait_until_ended()


#: The static checks' child as ``main`` runs it: judgements written, then one request served.
CHILD_SERVES = (
    "import sys\nfrom pathlib import Path\nfrom phasegate.gates.coverage_share import serve\n"
    "Path(sys.argv[1]).write_text('[]')\nserve(Path(input()).read_text())\n"
)


@pytest.mark.slow
def test_the_static_process_serves_a_share_asked_after_its_checks_limit_has_passed(
    measured: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    def start(command: list[str], **options: object) -> object:
        out = command[command.index("--out") + 1]
        return start_in_group([sys.executable, "-c", CHILD_SERVES, out], **options)  # type: ignore[arg-type]

    root, data = measured
    monkeypatch.setattr(static_process, "_MARGIN_S", 0.0)
    monkeypatch.setattr(static_start, "start_in_group", start)
    process = static_process.StaticChecksProcess(
        root=root, gate="g.toml", artifacts_dir=None, base=None, timeout_s=0.0
    )
    process.start()  # its limit has passed once it started; the tests end after that
    appeared(process._out)
    figures = shared(root, data, _ServedFirst(process))
    assert_coverage_pys_own(figures, coverage_json(root, data))
    assert process.judgements() == {}


def appeared(path: Path) -> None:
    for _ in range(600):
        if path.exists():
            return
        time.sleep(0.05)
    raise AssertionError(f"{path.name} was not written within 30s")


class _ServedFirst:
    """A helper process that serves the request before the parent claims any file."""

    def __init__(self, helper: static_process.StaticChecksProcess) -> None:
        self.helper = helper

    def ask(self, request: str) -> bool:
        asked = self.helper.ask(request)
        appeared(Path(json.loads(request)["out"]))
        return asked

    def wait_until_ended(self) -> None:
        self.helper.wait_until_ended()


SHARED_GATE = 'name = "shared"\n[checks.syntax]\n[checks.tests]\n[checks.coverage]\n'
ALONE_GATE = 'name = "alone"\n[checks.tests]\n[checks.coverage]\n'


@pytest.fixture
def without_outer_measurement() -> Iterator[None]:
    """Pause coverage.py's measurement of this suite (run under ``pytest --gate``): a gate run
    in this process would find coverage.py busy, measure nothing and share nothing."""
    outer = coverage.Coverage.current()
    if outer is not None:
        outer.stop()
    try:
        yield
    finally:
        if outer is not None:
            outer.start()


@pytest.fixture
def gated(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, without_outer_measurement: None
) -> pytest.Pytester:
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)  # this test may run in a worker
    pytester.makepyprojecttoml('[tool.phasegate]\ngate_paths = ["ci"]\n')
    pytester.mkdir("ci")
    (pytester.path / "ci" / "shared.toml").write_text(SHARED_GATE)
    (pytester.path / "ci" / "alone.toml").write_text(ALONE_GATE)
    pytester.mkpydir("calc")
    for n in range(4):
        (pytester.path / "calc" / f"m{n}.py").write_text(MODULE.format(n=n) * (n + 1))
    pytester.makepyfile(
        test_calc="from calc.m1 import sign_1\n\n\ndef test_sign():\n    assert sign_1(2) == 1\n"
    )
    return pytester


def coverage_check(pytester: pytest.Pytester, gate: str) -> dict[str, object]:
    verdict = json.loads((pytester.path / ".phasegate" / "gates" / f"{gate}.json").read_text())
    (found,) = [check for check in verdict["checks"] if check["id"] == "coverage"]
    assert isinstance(found, dict)
    return found


@pytest.mark.slow
def test_the_gate_shares_the_analysis_with_its_static_process_and_gets_the_same_figures(
    gated: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    from phasegate.gates.static_process import StaticChecksProcess

    asked: list[ShareRequest] = []
    ask = StaticChecksProcess.ask

    def recording_ask(self: StaticChecksProcess, request: str) -> bool:
        asked.append(json.loads(request))
        return ask(self, request)

    monkeypatch.setattr(StaticChecksProcess, "ask", recording_ask)
    gated.runpytest("--gate=alone", "-p", "no:cacheprovider")
    alone = coverage_check(gated, "alone")
    assert not asked  # no static check, no process to share with
    gated.runpytest("--gate=shared", "-p", "no:cacheprovider")
    shared_check = coverage_check(gated, "shared")
    assert len(asked) == 1
    assert len(asked[0]["files"]) == 5
    assert shared_check["status"] == alone["status"]
    assert shared_check["metrics"] == alone["metrics"]
    assert shared_check["findings"] == alone["findings"]


@pytest.mark.slow
def test_a_static_process_that_fails_its_share_makes_the_coverage_check_an_error(
    gated: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    from phasegate.gates.static_process import StaticChecksProcess

    def garbled_ask(self: StaticChecksProcess, request: str) -> bool:
        # The child has claimed the last file, then is handed what it cannot read.
        loaded = json.loads(request)
        (Path(loaded["claims"]) / str(len(loaded["files"]) - 1)).touch()
        process = self._process
        assert process is not None
        assert process.stdin is not None
        process.stdin.write(b"garbage\n")
        process.stdin.close()
        return True

    monkeypatch.setattr(StaticChecksProcess, "ask", garbled_ask)
    result = gated.runpytest("--gate=shared", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    found = coverage_check(gated, "shared")
    assert found["status"] == "error"
    assert "the process analysing part of the measured files" in str(found["reasoning"])


def test_a_helper_that_finds_every_file_claimed_loads_nothing_and_writes_nothing(
    tmp_path: Path,
) -> None:
    claims = tmp_path / "claims"
    claims.mkdir()
    (claims / "1").touch()  # the pytest process got to the last file first
    request: ShareRequest = {
        "root": str(tmp_path),
        "data_file": str(tmp_path / "no such data file"),  # opening it would fail
        "files": ["a.py", "b.py"],
        "claims": str(claims),
        "out": str(tmp_path / "out.json"),
    }
    serve(json.dumps(request))
    assert not (tmp_path / "out.json").exists()
    assert sorted(path.name for path in claims.iterdir()) == ["1"]


@pytest.mark.usefixtures("without_outer_measurement")
def test_a_gate_refused_as_a_usage_error_leaves_no_measurement_running(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Coverage starts before the gate's file is read; a file it refuses must not leave it on.
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)  # this test may run in a worker
    pytester.makepyfile(test_a="def test_a():\n    pass\n")
    pytester.makefile(".toml", wrong="[checks.lint]\nrequird = false\n")
    result = pytester.runpytest("--gate=wrong.toml", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert coverage.Coverage.current() is None

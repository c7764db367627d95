"""The build check: real PEP 517 builds of small projects, offline.

The sample projects carry their own build backend in the source tree (PEP 517's
``backend-path``): it needs nothing installed, so the builds run without the network, and
its settings (``tiny.json``) seed the faults: a failing sdist, a wheel whose version differs,
invalid metadata, an sdist missing a file the wheel needs.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from phasegate.gates.checks.build import BuildCheck, BuildOptions
from phasegate.gates.checks.build_measure import unmet_requirements
from phasegate.gates.protocol import CheckContext, CheckError

from .samples import PYPROJECT, git, tiny_project

MakeContext = Callable[..., CheckContext]
WriteFiles = Callable[..., Path]


def sample(write_files: WriteFiles, **settings: Any) -> Path:
    """A project the tiny backend builds, with ``settings`` in its tiny.json."""
    return write_files(tiny_project(**settings))


def test_clean_project_builds_without_isolation(
    write_files: WriteFiles, make_context: MakeContext
) -> None:
    root = sample(write_files)
    measurement = BuildCheck().measure(make_context(root), BuildOptions())
    assert measurement.metrics == {"problems": 0, "sdist_built": True, "wheel_built": True}
    assert measurement.findings == []
    assert "tiny-sample 1.0" in measurement.summary
    assert "not isolated: every build requirement is installed here" in measurement.summary
    # Nothing is written into the project: no dist/ folder, no file the backend wrote.
    assert not (root / "dist").exists()
    assert not (root / "touched-by-the-backend.txt").exists()


def test_the_builds_temporary_folders_are_removed_at_once_or_once_the_judgements_are_written(
    write_files: WriteFiles,
    make_context: MakeContext,
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import tempfile

    from phasegate.gates import scratch

    temp = tmp_path_factory.mktemp("temp")  # outside the project, which is copied
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    root = sample(write_files)
    BuildCheck().measure(make_context(root), BuildOptions())
    assert list(temp.iterdir()) == []  # the copy and the sdist's extraction folder
    scratch.defer_removal()  # as the static checks' process does
    try:
        BuildCheck().measure(make_context(root), BuildOptions())
        kept = sorted(path.name.rsplit("-", 1)[0] for path in temp.iterdir())
        assert kept == ["phasegate-build", "phasegate-sdist"]
    finally:
        scratch.remove_deferred()
    assert list(temp.iterdir()) == []


def test_git_project_builds_from_a_copy_with_its_history(
    tmp_path: Path, write_files: WriteFiles, make_context: MakeContext
) -> None:
    root = sample(write_files)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", ".")
    git(root, "commit", "-qm", "feat: tiny")
    (root / "src/tiny_sample/new.py").write_text('"""Not committed yet."""\n')
    measurement = BuildCheck().measure(make_context(root), BuildOptions(isolation="never"))
    assert measurement.metrics["problems"] == 0
    assert not (root / "touched-by-the-backend.txt").exists()
    status = subprocess.run(
        ["git", "status", "--porcelain"], cwd=root, capture_output=True, text=True, check=True
    )
    assert status.stdout.split() == ["??", "src/tiny_sample/new.py"]


def test_failing_sdist_is_a_problem_with_the_backends_words(
    write_files: WriteFiles, make_context: MakeContext
) -> None:
    root = sample(write_files, sdist_fails="the sdist cannot be made today")
    measurement = BuildCheck().measure(make_context(root), BuildOptions())
    assert measurement.metrics["sdist_built"] is False
    # The wheel alone is tried from the source tree, and it builds.
    assert measurement.metrics["wheel_built"] is True
    (finding,) = measurement.findings
    assert finding.rule == "build-failed"
    assert finding.path == "pyproject.toml"
    assert "building the sdist" in finding.message
    assert "the sdist cannot be made today" in finding.message


def test_wheel_that_needs_a_file_the_sdist_lacks(
    write_files: WriteFiles, make_context: MakeContext
) -> None:
    root = sample(write_files, data=["data.txt"], sdist_omits=["data.txt"])
    (root / "data.txt").write_text("needed to build the wheel\n")
    measurement = BuildCheck().measure(make_context(root), BuildOptions())
    rules = [finding.rule for finding in measurement.findings]
    assert rules == ["build-failed", "sdist-incomplete"]
    assert "building the wheel from the sdist" in measurement.findings[0].message
    assert measurement.metrics == {"problems": 2, "sdist_built": True, "wheel_built": True}


def test_versions_that_disagree(write_files: WriteFiles, make_context: MakeContext) -> None:
    root = sample(write_files, wheel_version="2.0")
    measurement = BuildCheck().measure(make_context(root), BuildOptions())
    (finding,) = measurement.findings
    assert finding.rule == "version-mismatch"
    assert "the sdist has version 1.0 but the wheel 2.0" in finding.message


def test_invalid_metadata_is_named(write_files: WriteFiles, make_context: MakeContext) -> None:
    root = sample(write_files, metadata_version="0.9")
    measurement = BuildCheck().measure(make_context(root), BuildOptions())
    assert {finding.rule for finding in measurement.findings} == {"metadata-invalid"}
    assert len(measurement.findings) == 2  # the sdist's and the wheel's
    assert all("0.9" in finding.message for finding in measurement.findings)


def test_never_isolated_with_a_missing_requirement_is_a_problem(
    write_files: WriteFiles, make_context: MakeContext
) -> None:
    root = sample(write_files)
    (root / "pyproject.toml").write_text(
        PYPROJECT.replace("requires = []", 'requires = ["phasegate-no-such-backend>=1"]')
    )
    measurement = BuildCheck().measure(make_context(root), BuildOptions(isolation="never"))
    assert measurement.metrics["sdist_built"] is False
    assert measurement.metrics["problems"] >= 1
    assert "phasegate-no-such-backend" in measurement.findings[0].message
    assert "isolation = 'never'" in measurement.summary


def test_auto_isolates_when_the_backend_asks_for_a_missing_package(
    write_files: WriteFiles, monkeypatch: pytest.MonkeyPatch, make_context: MakeContext
) -> None:
    # [build-system].requires is met, but the backend asks for more at build time. Without
    # a package index (PIP_NO_INDEX) the isolated build cannot install it either.
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    root = sample(write_files, dynamic_requires=["phasegate-no-such-dependency"])
    measurement = BuildCheck().measure(make_context(root), BuildOptions())
    assert "isolated: the backend needs packages not installed here" in measurement.summary
    assert measurement.metrics["sdist_built"] is False
    assert measurement.findings[0].rule == "build-failed"
    assert "phasegate-no-such-dependency" in measurement.findings[0].message


def test_project_without_build_configuration_is_a_finding(
    write_files: WriteFiles, make_context: MakeContext
) -> None:
    root = write_files({"pkg/__init__.py": ""})
    measurement = BuildCheck().measure(make_context(root), BuildOptions())
    (finding,) = measurement.findings
    assert finding.rule == "no-build-config"
    assert measurement.metrics == {"problems": 1, "sdist_built": False, "wheel_built": False}


def test_requirements_are_checked_against_this_environment() -> None:
    assert unmet_requirements(["packaging>=20", "pydantic"]) == []
    assert unmet_requirements(["packaging<1", "phasegate-no-such-backend"]) == [
        "packaging<1",
        "phasegate-no-such-backend",
    ]
    # A marker that does not apply here needs nothing.
    assert unmet_requirements(['phasegate-no-such-backend; python_version < "3"']) == []
    # Extras: pytest-phasegate[gate] needs the gate tools, which this environment has.
    assert unmet_requirements(["pytest-phasegate[gate]"]) == []


@pytest.mark.slow
def test_always_isolated_builds_in_a_fresh_environment(
    write_files: WriteFiles, make_context: MakeContext
) -> None:
    # No build requirement: the isolated environment needs nothing from the network.
    root = sample(write_files)
    measurement = BuildCheck().measure(make_context(root), BuildOptions(isolation="always"))
    assert measurement.metrics == {"problems": 0, "sdist_built": True, "wheel_built": True}
    assert "isolated (isolation = 'always')" in measurement.summary


def test_options_are_validated() -> None:
    with pytest.raises(ValidationError, match="isolation"):
        BuildOptions.model_validate({"isolation": "sometimes"})
    with pytest.raises(ValidationError, match="extra"):
        BuildOptions.model_validate({"outdir": "dist"})


def test_without_build_is_an_error_with_the_install_command(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "build" else real(name, *a)
    )
    with pytest.raises(CheckError) as caught:
        BuildCheck().tool_info()
    assert "build is not installed" in caught.value.reason
    assert caught.value.fix is not None
    assert "pip install 'pytest-phasegate[gate]'" in caught.value.fix


def test_the_requirements_are_looked_up_while_the_project_is_copied(
    write_files: WriteFiles, make_context: MakeContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Each waits for the other to have started: were they one after the other, the first
    # would give up, and the check would raise.
    from phasegate.gates.checks import build

    looking_up, copying = threading.Event(), threading.Event()
    real_isolation, real_copy = build._isolation, build.copy_project

    def both_started(mine: threading.Event, other: threading.Event) -> None:
        mine.set()
        if not other.wait(timeout=60):
            raise AssertionError("the requirements were not looked up beside the copy")

    def isolation(options: BuildOptions, requires: list[str]) -> tuple[bool, str]:
        both_started(looking_up, copying)
        return real_isolation(options, requires)

    def copy(*args: Any) -> Path:
        both_started(copying, looking_up)
        return real_copy(*args)

    monkeypatch.setattr(build, "_isolation", isolation)
    monkeypatch.setattr(build, "copy_project", copy)
    root = sample(write_files)
    measurement = BuildCheck().measure(make_context(root), BuildOptions())
    assert measurement.metrics == {"problems": 0, "sdist_built": True, "wheel_built": True}
    assert "not isolated: every build requirement is installed here" in measurement.summary


@pytest.mark.parametrize("failing", ["copy", "lookup"])
def test_a_copy_or_a_requirements_lookup_that_fails_is_the_checks_error(
    failing: str,
    write_files: WriteFiles,
    make_context: MakeContext,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from phasegate.gates.checks import build

    def fails(*_args: Any) -> Any:
        raise CheckError(f"the {failing} failed")

    monkeypatch.setattr(build, "copy_project" if failing == "copy" else "_isolation", fails)
    root = sample(write_files)
    with pytest.raises(CheckError, match=f"the {failing} failed"):
        BuildCheck().measure(make_context(root), BuildOptions())
    assert not (root / "touched-by-the-backend.txt").exists()


def test_a_bug_in_the_front_end_is_the_checks_error_not_the_projects_failed_build(
    write_files: WriteFiles, make_context: MakeContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A build that failed blames the project; phasegate's own bugs must not read as one.
    from phasegate.gates.checks import build_frontend

    def moved_api(*_args: Any) -> Any:
        raise AttributeError("'ProjectBuilder' object has no attribute 'build'")

    monkeypatch.setattr(build_frontend, "_built", moved_api)
    root = sample(write_files)
    with pytest.raises(AttributeError, match="no attribute 'build'"):
        BuildCheck().measure(make_context(root), BuildOptions(isolation="never"))


def test_a_bug_in_the_hooks_runner_is_the_checks_error_not_the_backends_failure(
    write_files: WriteFiles, make_context: MakeContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    # ``build`` wraps whatever the runner raises as the backend's failure: the runner says
    # its own failure as the check's error before that.
    from phasegate.gates.checks import build_frontend

    def wrong_call(*_args: Any, **_kwargs: Any) -> Any:
        raise TypeError("run_in_group() got an unexpected keyword argument 'env'")

    monkeypatch.setattr(build_frontend, "run_in_group", wrong_call)
    root = sample(write_files)
    with pytest.raises(CheckError, match="hook runner failed: TypeError: run_in_group") as caught:
        BuildCheck().measure(make_context(root), BuildOptions(isolation="never"))
    assert "bug in phasegate" in (caught.value.fix or "")


_SHOW_START = """\
import gc, json, sys
print(json.dumps({"collector": gc.isenabled(), "argv": sys.argv, "first": sys.path[0],
                  "name": __name__, "file": __file__}))
"""


def test_a_hook_runs_as_python_runs_its_script_with_the_collector_off(tmp_path: Path) -> None:
    (tmp_path / "hooks").mkdir()
    (tmp_path / "hooks" / "show.py").write_text(_SHOW_START)
    (tmp_path / "linked").symlink_to(tmp_path / "hooks")  # as a script found through a link
    from phasegate.gates.checks.build_frontend import collector_off

    hook = [sys.executable, str(tmp_path / "linked" / "show.py"), "build_wheel", "/a folder"]

    def started(command: list[str]) -> dict[str, Any]:
        done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, check=True)
        found: dict[str, Any] = json.loads(done.stdout)
        return found

    as_given, off = started(hook), started(collector_off(hook))
    assert as_given.pop("collector") is True
    assert off.pop("collector") is False
    assert off == as_given  # same arguments, first path entry, name and file
    assert as_given["first"] == str(tmp_path / "hooks")
    assert collector_off([sys.executable, "-m", "tool"]) == [sys.executable, "-m", "tool"]


def test_a_build_without_isolation_runs_its_front_end_in_this_process(
    write_files: WriteFiles, make_context: MakeContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Only the backend's hooks are processes: no `python -m build`.
    from phasegate.gates.checks import build

    def no_front_end(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError(f"python -m build was started: {args}")

    monkeypatch.setattr(build, "run_tool", no_front_end)
    root = sample(write_files, sdist_fails="the sdist cannot be made today")
    measurement = BuildCheck().measure(make_context(root), BuildOptions(isolation="never"))
    assert measurement.metrics == {"problems": 1, "sdist_built": False, "wheel_built": True}
    assert "the sdist cannot be made today" in measurement.findings[0].message


def test_without_tarfiles_data_filter_the_build_runs_python_m_build(
    write_files: WriteFiles, make_context: MakeContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    from phasegate.gates.checks import build, build_frontend

    started: list[list[str]] = []
    real_run_tool = build.run_tool

    def front_end(module: str, args: list[str], **kwargs: Any) -> Any:
        started.append([module, *args])
        return real_run_tool(module, args, **kwargs)

    monkeypatch.setattr(build_frontend, "IN_PROCESS", False)
    monkeypatch.setattr(build, "run_tool", front_end)
    root = sample(write_files)
    measurement = BuildCheck().measure(make_context(root), BuildOptions())
    assert measurement.metrics == {"problems": 0, "sdist_built": True, "wheel_built": True}
    ((module, *args),) = started
    assert module == "build"
    assert "--no-isolation" in args


def _sdist(path: Path, members: dict[str, bytes]) -> Path:
    import io
    import tarfile

    with tarfile.open(path, "w:gz") as archive:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return path


@pytest.mark.parametrize(
    ("members", "words"),
    [
        ({"a-1.0/PKG-INFO": b"x", "b-1.0/setup.py": b""}, "one top-level folder"),
        ({"a-1.0/setup.py": b""}, "with a PKG-INFO"),
        ({"a-1.0/PKG-INFO": b"x", "a-1.0/../../escaped.txt": b"out"}, "outside"),
    ],
    ids=["two top-level folders", "no PKG-INFO", "a member outside"],
)
def test_an_sdist_that_is_not_one_folder_with_its_metadata_is_not_extracted(
    members: dict[str, bytes], words: str, tmp_path: Path
) -> None:
    from phasegate.gates.checks.build_frontend import _extracted

    sdist = _sdist(tmp_path / "a-1.0.tar.gz", members)
    (tmp_path / "into").mkdir()
    with pytest.raises(Exception, match=words):
        _extracted(sdist, tmp_path / "into")
    assert not (tmp_path / "escaped.txt").exists()


def test_an_sdist_cut_short_is_a_failed_build_not_the_checks_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A backend that wrote half an sdist: gzip's EOFError is the build's failure.
    import os

    from phasegate.gates.checks import build_frontend

    whole = _sdist(tmp_path / "whole.tar.gz", {"a-1.0/PKG-INFO": os.urandom(20000)}).read_bytes()
    half = tmp_path / "a-1.0.tar.gz"
    half.write_bytes(whole[: len(whole) // 2])
    monkeypatch.setattr(build_frontend, "_built", lambda *_args: half)
    run = build_frontend.build_in_process(tmp_path, tmp_path / "out", timeout_s=60)
    assert run.returncode == 1
    assert "ERROR Compressed file ended before the end-of-stream marker" in run.stderr


def test_the_sdists_metadata_is_read_while_the_wheel_is_built(
    write_files: WriteFiles, make_context: MakeContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Each waits for the other to have started: one after the other, the first would give up.
    from phasegate.gates.checks import build_frontend, build_measure

    reading, building = threading.Event(), threading.Event()
    real_read, real_built = build_measure.SdistReading._read, build_frontend._built

    def both_started(mine: threading.Event, other: threading.Event) -> None:
        mine.set()
        if not other.wait(timeout=60):
            raise AssertionError("the sdist was not read beside the wheel's build")

    def read(sdist: Path) -> Any:
        both_started(reading, building)
        return real_read(sdist)

    def built(source: Path, distribution: str, out: Path, hooks: Any) -> Path:
        if distribution == "wheel":
            both_started(building, reading)
        return real_built(source, distribution, out, hooks)  # type: ignore[arg-type]

    monkeypatch.setattr(build_measure.SdistReading, "_read", staticmethod(read))
    monkeypatch.setattr(build_frontend, "_built", built)
    root = sample(write_files, metadata_version="0.9")
    measurement = BuildCheck().measure(make_context(root), BuildOptions())
    # The sdist's problems come first, as when it was read after the wheel.
    assert [f.message.split(":")[0] for f in measurement.findings] == [
        "tiny_sample-1.0.tar.gz",
        "tiny_sample-1.0-py3-none-any.whl",
    ]
    assert measurement.metrics == {"problems": 2, "sdist_built": True, "wheel_built": True}

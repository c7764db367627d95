"""A PEP 517 backend misbehaving every way: the build check must fail, never pass.

The project carries its backend in its source tree (``backend-path``): the tests' tiny backend
(:mod:`tests.gates.samples`) behind a wrapper that, for the hook named in ``fault.json``,
crashes, exits with a status, ends without answering, hangs with a grandchild holding its
output, says it wrote a file it did not write, writes two, or asks for build requirements that
are missing or not requirements at all. The front end is the real one, so these try the path a
real build takes.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from phasegate.model.gate import CheckStatus
from tests.faults.conftest import Tried
from tests.faults.kit import HANG, all_dead, judge, refused
from tests.gates.samples import tiny_project

FAILED, ERROR = CheckStatus.FAILED, CheckStatus.ERROR

#: A backend that is the tiny one, except for the hook ``fault.json`` names.
FAULTY_BACKEND = '''\
"""The tiny backend, misbehaving in the hook fault.json names."""
import json
import os
import shutil
import sys
from pathlib import Path

import tiny_backend

FAULT = json.loads(Path("fault.json").read_text())


def _hang():
    exec(FAULT["hang"])


def _faulty(name):
    real = getattr(tiny_backend, name)

    def hook(*args, **kwargs):
        if FAULT["hook"] != name:
            return real(*args, **kwargs)
        kind = FAULT["kind"]
        if kind == "crashes":
            raise RuntimeError(f"the backend crashed in {name}")
        if kind == "exits with status 3":
            print("half a build")
            sys.exit(3)
        if kind == "ends without answering":
            os._exit(0)
        if kind == "hangs":
            _hang()
        if kind == "prints garbage and names a file it did not write":
            print("}{ this is not what a backend prints \\u26a0")
            return "garbage-0.0.tar.gz" if name == "build_sdist" else "garbage-0.0-py3-none-any.whl"
        if kind == "says it wrote a file it did not write":
            named = real(*args, **kwargs)
            os.remove(os.path.join(args[0], named))
            return named
        if kind == "writes two":
            named = real(*args, **kwargs)
            first = os.path.join(args[0], named)
            shutil.copy(first, first.replace("1.0", "1.1"))
            return named
        if kind == "asks for a missing requirement":
            return ["phasegate-no-such-dependency"]
        if kind == "asks for a requirement that is not one":
            return ["not a requirement!!"]
        raise AssertionError(kind)

    return hook


get_requires_for_build_sdist = _faulty("get_requires_for_build_sdist")
get_requires_for_build_wheel = _faulty("get_requires_for_build_wheel")
build_sdist = _faulty("build_sdist")
build_wheel = _faulty("build_wheel")
'''

PYPROJECT = """\
[build-system]
requires = []
build-backend = "faulty_backend"
backend-path = ["_build"]
"""

#: (hook, fault) -> how the check ends and what its reasoning says. A build that fails is what
#: the check measures (``failed``, with the backend's last words); a build that reports success
#: without exactly one sdist and one wheel is an ``error``.
FAULTS: dict[tuple[str, str], tuple[CheckStatus, str]] = {
    ("build_sdist", "crashes"): (FAILED, "the backend crashed in build_sdist"),
    ("build_sdist", "exits with status 3"): (FAILED, "half a build"),
    ("build_sdist", "ends without answering"): (FAILED, "building the sdist"),
    ("build_sdist", "prints garbage and names a file it did not write"): (FAILED, "}{ this is"),
    ("build_sdist", "says it wrote a file it did not write"): (FAILED, "building the sdist"),
    ("build_sdist", "writes two"): (ERROR, "wrote 2 sdist(s) and 1 wheel(s)"),
    ("build_wheel", "crashes"): (FAILED, "the backend crashed in build_wheel"),
    ("build_wheel", "exits with status 3"): (FAILED, "half a build"),
    ("build_wheel", "ends without answering"): (FAILED, "building the wheel from the sdist"),
    ("build_wheel", "prints garbage and names a file it did not write"): (
        ERROR,
        "wrote 1 sdist(s) and 0 wheel(s)",
    ),
    ("build_wheel", "says it wrote a file it did not write"): (
        ERROR,
        "wrote 1 sdist(s) and 0 wheel(s)",
    ),
    ("build_wheel", "writes two"): (ERROR, "wrote 1 sdist(s) and 2 wheel(s)"),
    ("get_requires_for_build_sdist", "crashes"): (FAILED, "the backend crashed in get_requires"),
    ("get_requires_for_build_wheel", "ends without answering"): (
        FAILED,
        "building the wheel from the sdist",
    ),
    ("get_requires_for_build_wheel", "asks for a missing requirement"): (
        FAILED,
        "isolated: the backend needs packages not installed here",
    ),
    ("get_requires_for_build_sdist", "asks for a requirement that is not one"): (
        FAILED,
        "building the sdist",
    ),
}


def faulty_project(root: Path, hook: str, kind: str) -> Path:
    """A project the faulty backend builds, misbehaving in ``hook`` as ``kind`` says."""
    files = tiny_project(data=["_build/faulty_backend.py", "fault.json"])
    files["pyproject.toml"] = PYPROJECT
    files["_build/faulty_backend.py"] = FAULTY_BACKEND
    files["fault.json"] = json.dumps({"hook": hook, "kind": kind, "hang": HANG})
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def test_the_faulty_backend_builds_when_it_is_not_told_to_misbehave(
    tmp_path: Path, tried: Tried
) -> None:
    # Otherwise every fault below could be the wrapper's own failure.
    root = faulty_project(tmp_path, "no hook", "none")
    with tried("tools", "build backend: misbehaving nowhere (the control)"):
        verdict, result = judge(root, "build", timeout_s=60.0)
        assert result.status is CheckStatus.PASSED, result.reasoning
        assert verdict.verdict == "sufficient"


@pytest.mark.parametrize(("hook", "kind"), FAULTS, ids=[f"{h}-{k}" for h, k in FAULTS])
def test_a_misbehaving_backend_fails_the_build_never_passes(
    hook: str, kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tried: Tried
) -> None:
    # An isolated retry (a requirement missing here) must not reach a package index.
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    root = faulty_project(tmp_path, hook, kind)
    with tried("tools", f"build backend: the backend's {hook} {kind}"):
        verdict, result = judge(root, "build", timeout_s=120.0)
        status, words = FAULTS[hook, kind]
        assert verdict.verdict == "insufficient", verdict.reasons
        assert result.status is status, result.reasoning
        assert words in result.reasoning, result.reasoning


def test_a_hung_backend_is_stopped_with_everything_it_started(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tried: Tried
) -> None:
    pids = tmp_path / "pids.txt"
    monkeypatch.setenv("FAKE_PIDS", str(pids))
    root = faulty_project(tmp_path / "project", "build_sdist", "hangs")
    with tried(
        "tools", "build backend: the backend's build_sdist hangs, with a child holding its output"
    ):
        verdict, result = judge(root, "build", timeout_s=3.0)
        refused(verdict, result, "did not finish within 3s")
        started = [int(pid) for line in pids.read_text().splitlines() for pid in line.split()]
        assert started, "the backend never ran"
        assert all_dead(started), f"left running: {started}"

"""Every tool a check runs, replaced by a fake that misbehaves: the gate must fail closed.

A fake is a package put first on the children's PYTHONPATH, so ``python -m <tool>`` runs it.
Each one crashes, hangs (with a grandchild holding the pipes), exits with a status the tool
never uses, prints nothing, prints garbage, or prints a valid document of the wrong shape.

The build check runs ``python -m build`` only for an isolated build (``isolation = "always"``
here); otherwise its front end runs in-process and the backend's hooks are its tools: they
misbehave in ``test_build_backend.py``. The security check runs bandit's library in-process:
it misbehaves in ``test_bandit_library.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from phasegate.model.gate import CheckStatus
from tests.faults.conftest import Tried
from tests.faults.kit import HANG, all_dead, fake_module, judge, refused, small_project

#: check id -> the module the check runs with ``python -m``.
TOOLS = {
    "lint": "ruff",
    "types": "mypy",
    "complexity": "radon",
    "deps": "pip",
    "build": "build",
}

#: check id -> a document the tool could print, valid JSON (or text) of the wrong shape.
WRONG_SHAPES = {
    "lint": 'print(\'[{"code": "E1", "filename": 3, "message": "m", "location": {}}]\')',
    "types": 'print(\'{"file": "src/small/__init__.py", "line": 1, "message": "m"}\')',
    "complexity": 'print(\'{"src/small/__init__.py": "fine", "src/small/more.py": 1}\')',
    "deps": 'print("Everything is fine.")',
    "build": 'print("Successfully built small-1.0.tar.gz and small-1.0-py3-none-any.whl")',
}

#: check id -> the options that make the check run the tool (the build's front end runs
#: in-process unless the build is isolated).
OPTIONS: dict[str, dict[str, object]] = {"build": {"isolation": "always"}}

FAULTS = {
    "crashes": 'raise RuntimeError("the fake tool crashed")',
    "exits with status 3": 'import sys\nprint("half a report")\nsys.exit(3)',
    "prints nothing": "",
    "prints garbage": 'print("}{ this is not what the tool prints \\u26a0")',
    "prints {}": 'print("{}")',
}


def _pip_answers(check_id: str, folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The deps check asks pip itself only beside a legacy ``.egg-link`` install: add one.

    Otherwise it answers pip check's question in-process (see test_in_process_pip_check_*).
    """
    if check_id == "deps":
        folder.mkdir(exist_ok=True)
        (folder / "legacy.egg-link").write_text(f"{folder}\n.\n", encoding="utf-8")
        monkeypatch.syspath_prepend(str(folder))


@pytest.fixture(scope="module")
def committed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return small_project(tmp_path_factory.mktemp("small"))


def _copy(source: Path, into: Path) -> Path:
    import shutil

    shutil.copytree(source, into, symlinks=True)
    return into


@pytest.mark.parametrize("check_id", sorted(TOOLS))
@pytest.mark.parametrize("fault", [*FAULTS, "prints a valid document of the wrong shape"])
def test_a_misbehaving_tool_is_an_error_never_a_pass(
    check_id: str,
    fault: str,
    committed: Path,
    fake_modules: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    tried: Tried,
) -> None:
    module = TOOLS[check_id]
    script = WRONG_SHAPES[check_id] if fault not in FAULTS else FAULTS[fault]
    fake_module(fake_modules, module, script)
    _pip_answers(check_id, tmp_path / "legacy", monkeypatch)
    root = _copy(committed, tmp_path / "project")
    with tried("tools", f"{module} ({check_id}) {fault}"):
        verdict, result = judge(root, check_id, options=OPTIONS.get(check_id))
        if check_id == "build" and fault == "crashes":
            # A build that fails is what the build check measures: failed, not passed.
            assert verdict.verdict == "insufficient"
            assert result.status is CheckStatus.FAILED, result.reasoning
            assert "the fake tool crashed" in result.reasoning
        else:
            refused(verdict, result)


_RUFF_FINDING = {
    "code": "E501",
    "filename": "src/small/__init__.py",
    "message": "Line too long",
    "location": {"row": 1, "column": 1},
    "fix": None,
}


#: (check id, what is wrong, the document printed, what the reason names): a document of the
#: tool's shape, but one finding in it lacks what the check reads from it.
BAD_FINDINGS = [
    (
        "lint",
        "a row that is text",
        [{**_RUFF_FINDING, "location": {"row": "1"}}],
        "a finding's row",
    ),
    (
        "lint",
        "no location",
        [{k: v for k, v in _RUFF_FINDING.items() if k != "location"}],
        "a finding's location",
    ),
    (
        "lint",
        "a message that is a number",
        [{**_RUFF_FINDING, "message": 3}],
        "a finding's message",
    ),
]


@pytest.mark.parametrize(
    ("check_id", "fault", "document", "named"), BAD_FINDINGS, ids=[f[1] for f in BAD_FINDINGS]
)
def test_a_finding_the_check_cannot_read_is_an_error(
    check_id: str,
    fault: str,
    document: object,
    named: str,
    committed: Path,
    fake_modules: Path,
    tmp_path: Path,
    tried: Tried,
) -> None:
    module = TOOLS[check_id]
    fake_module(fake_modules, module, f"import json\nprint(json.dumps({document!r}))")
    root = _copy(committed, tmp_path / "project")
    with tried("tools", f"{module} ({check_id}) prints a finding with {fault}"):
        verdict, result = judge(root, check_id)
        refused(verdict, result, "unknown shape", named)


@pytest.mark.parametrize("check_id", sorted(TOOLS))
def test_a_hung_tool_is_stopped_with_everything_it_started(
    check_id: str,
    committed: Path,
    fake_modules: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    tried: Tried,
) -> None:
    module = TOOLS[check_id]
    fake_module(fake_modules, module, HANG)
    _pip_answers(check_id, tmp_path / "legacy", monkeypatch)
    pids = tmp_path / "pids.txt"
    monkeypatch.setenv("FAKE_PIDS", str(pids))
    root = _copy(committed, tmp_path / "project")
    with tried("tools", f"{module} ({check_id}) hangs, with a child holding its output"):
        verdict, result = judge(root, check_id, timeout_s=3.0, options=OPTIONS.get(check_id))
        refused(verdict, result, "did not finish within 3s")
        started = [int(pid) for line in pids.read_text().splitlines() for pid in line.split()]
        assert started, "the fake never ran"
        assert all_dead(started), f"left running: {started}"


@pytest.mark.skipif(
    sys.version_info < (3, 11),
    reason="before 3.11 pip reads metadata with pkg_resources: pip check runs as a process",
)
@pytest.mark.parametrize(
    ("fault", "metadata"),
    [
        ("a requirement that is not PEP 508", "Name: odd\nVersion: 1.0\nRequires-Dist: not ok!!\n"),
        (
            "a requirement with a broken marker",
            "Name: odd\nVersion: 1.0\nRequires-Dist: x ; os ==\n",
        ),
    ],
)
def test_in_process_pip_check_refuses_installed_metadata_it_cannot_read(
    fault: str,
    metadata: str,
    committed: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    tried: Tried,
) -> None:
    site = tmp_path / "site"
    (site / "odd-1.0.dist-info").mkdir(parents=True)
    (site / "odd-1.0.dist-info" / "METADATA").write_text(f"Metadata-Version: 2.1\n{metadata}")
    monkeypatch.syspath_prepend(str(site))
    root = _copy(committed, tmp_path / "project")
    with tried("tools", f"installed metadata (deps, in-process pip check): {fault}"):
        verdict, result = judge(root, "deps")
        refused(verdict, result, "odd 1.0", "not PEP 508")

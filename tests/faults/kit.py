"""What the fault tests share: a small project, fake tools, and a gate of one check."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

from phasegate.gates.definition import CheckSpec, GateDefinition, GateSource
from phasegate.gates.newcode import NewCode
from phasegate.gates.project import GateProject
from phasegate.gates.protocol import CheckContext, SessionData
from phasegate.gates.registry import CheckRegistry
from phasegate.gates.runner import GateRunner
from phasegate.model.gate import BaseInfo, CheckResult, CheckStatus, GateVerdict
from phasegate.model.run import RunReport
from phasegate.recording import PhaseReport, build_test_records, count
from phasegate.store import Store
from tests.gates.samples import git

__all__ = [
    "HANG",
    "a_run",
    "all_dead",
    "dead",
    "fake_executable",
    "fake_module",
    "judge",
    "refused",
    "small_project",
]

#: A fake that starts a grandchild holding its output pipes, records both ids, and sleeps.
HANG = """\
import os, subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
with open(os.environ["FAKE_PIDS"], "a") as out:
    out.write(f"{os.getpid()} {child.pid}\\n")
time.sleep(600)
"""


def small_project(root: Path, *, commit: bool = True) -> Path:
    """A project with a package of two modules and a declared dependency list, committed."""
    files = {
        "pyproject.toml": """\
            [project]
            name = "small"
            version = "1.0"
            dependencies = []
            """,
        "src/small/__init__.py": '''\
            """A small package."""


            def double(value: int) -> int:
                """Twice the value."""
                return value * 2
            ''',
        "src/small/more.py": '''\
            """More of it."""

            ANSWER = 42
            ''',
    }
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    if commit:
        git(root, "init", "-q", "-b", "main")
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", "feat: a small package")
    return root


def a_run(*tests: tuple[str, str, list[str]]) -> RunReport:
    """A run report of ``(node id, outcome of the call phase, markers)`` tests."""
    phases = [
        PhaseReport(nodeid, "call", outcome, 1.0, (nodeid.split("::")[0], 1, "t"), markers=marks)
        for nodeid, outcome, marks in tests
    ]
    records = build_test_records(phases)
    now = "2026-01-01T00:00:00Z"
    return RunReport.model_validate(
        {
            "run_id": "r",
            "started_at": now,
            "finished_at": now,
            "duration_s": 1,
            "environment": {
                "python": "3",
                "implementation": "cpython",
                "platform": "x",
                "pytest": "9",
                "phasegate": "0",
            },
            "invocation": {"args": [], "invocation_dir": "/", "rootdir": "/"},
            "exit_status": 0,
            "counts": count(records, collected=len(records)),
            "incomplete": False,
            "tests": records,
        }
    )


def fake_module(folder: Path, module: str, script: str) -> None:
    """``python -m <module>`` runs ``script`` when ``folder`` is first on PYTHONPATH."""
    package = folder / module
    package.mkdir(parents=True, exist_ok=True)
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "__main__.py").write_text(textwrap.dedent(script), encoding="utf-8")


def fake_executable(folder: Path, name: str, script: str) -> Path:
    """An executable ``name`` in ``folder`` that runs ``script`` with this Python."""
    import sys

    path = folder / name
    path.write_text(f"#!{sys.executable}\n{textwrap.dedent(script)}", encoding="utf-8")
    path.chmod(0o755)
    return path


def judge(
    root: Path,
    check_id: str,
    *,
    session: SessionData | None = None,
    timeout_s: float = 5.0,
    new_code: NewCode | None = None,
    options: dict[str, object] | None = None,
) -> tuple[GateVerdict, CheckResult]:
    """The verdict of a gate requiring only ``check_id`` on ``root``, and that check's result."""
    store = Store(root / ".phasegate")
    context = CheckContext(
        project=GateProject(root, excluded=(store.root,)),
        new_code=new_code or NewCode(BaseInfo(note="no base")),
        store=store,
        timeout_s=timeout_s,
        session=session,
    )
    spec = CheckSpec(timeout_s=timeout_s, options=options or {})
    gate = GateDefinition(name="faults", checks={check_id: spec})
    runner = GateRunner(
        gate,
        GateSource("faults", root / "faults.toml", "file"),
        CheckRegistry(),
        context,
        default_timeout_s=timeout_s,
    )
    runner.start()
    verdict = runner.finish(session)
    (result,) = verdict.checks
    return verdict, result


def refused(verdict: GateVerdict, result: CheckResult, *words: str) -> None:
    """Assert the gate failed closed: an error, naming each of ``words``, and insufficient."""
    assert verdict.verdict == "insufficient", verdict.reasons
    assert result.status is CheckStatus.ERROR, (result.status, result.reasoning)
    for word in words:
        assert word in result.reasoning, result.reasoning


def all_dead(pids: list[int], *, within_s: float = 30.0) -> bool:
    """Whether every process of ``pids`` has ended, waiting up to ``within_s`` for it.

    A killed process ends when the kernel next schedules it, which on a busy machine is not
    at once: the wait bounds that, it does not measure anything.
    """
    import time

    deadline = time.monotonic() + within_s
    while not all(dead(pid) for pid in pids):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def dead(pid: int) -> bool:
    """Whether the process ``pid`` has ended (gone, or a zombie nobody reaped yet)."""
    if not Path("/proc/self").exists():  # pragma: no cover - no /proc: ask the kernel
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        return False
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except FileNotFoundError:
        return True

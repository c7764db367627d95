"""The `phasegate` command: help, version, errors, and the demo a new user runs first."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from phasegate import __version__
from phasegate.cli import COMMANDS, main


def test_no_command_prints_help_and_exits_4(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 4
    assert "demo" in capsys.readouterr().out


def test_a_command_without_its_sub_command_prints_the_whole_help(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["gate"]) == 4
    listed = capsys.readouterr().out
    assert all(name in listed for name in COMMANDS)


@pytest.mark.parametrize("argv", [["--help"], ["-h", "gate"]], ids=["help", "help-before-command"])
def test_help_lists_every_command(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    # Help asked for before a sub-command is the whole command's help, too.
    with pytest.raises(SystemExit) as exited:
        main(argv)
    assert exited.value.code == 0
    listed = capsys.readouterr().out
    assert all(name in listed for name in COMMANDS)


def test_an_unknown_command_names_the_known_ones(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["bogus"])
    assert exited.value.code == 4
    message = capsys.readouterr().err
    assert "invalid choice: 'bogus'" in message
    # Python 3.12.8+ and 3.13.1+ print the choices without quotes: look for the bare names.
    assert all(name in message.split("choose from", 1)[1] for name in COMMANDS)


def test_a_command_imports_only_its_own_module(tmp_path: Path) -> None:
    # `phasegate gate ...` must not pay for importing the workflow, report and auto-debug
    # engines of the other sub-commands.
    code = (
        "import sys; from phasegate.cli import main\n"
        "try:\n    main(['gate', '--help'])\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in sys.modules if m.startswith('phasegate.cli.')))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=tmp_path
    )
    assert done.stdout.strip().splitlines()[-1] == "['phasegate.cli.gate']"


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out.strip() == f"phasegate {__version__}"


def test_demo_refuses_an_existing_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["demo", "--into", str(tmp_path)]) == 4
    assert "already exists" in capsys.readouterr().err


@pytest.mark.slow
def test_python_dash_m_demo_runs_the_gate_on_the_sample(tmp_path: Path) -> None:
    target = tmp_path / "sample"
    completed = subprocess.run(
        [sys.executable, "-m", "phasegate", "demo", "--into", str(target)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert f"sample project copied to {target}" in completed.stdout
    assert f"artifacts in {target / '.phasegate'}" in completed.stdout
    assert "verdict SUFFICIENT (gate default, score 1.00, 6 checks)" in completed.stdout
    report = json.loads((target / ".phasegate" / "report.json").read_text())
    assert report["counts"]["passed"] == report["counts"]["collected"] > 0

"""bandit's report made in-process: the same as ``python -m bandit -f json`` prints, or refused."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from phasegate.gates.checks.bandit_report import bandit_report
from phasegate.gates.protocol import CheckError

SOURCE = (
    "import pickle\n"
    "import subprocess\n"
    "\n"
    "\n"
    "def run(command: str, data: bytes) -> object:\n"
    "    subprocess.call(command, shell=True)\n"
    "    assert command\n"
    "    return pickle.loads(data)  # nosec B301\n"
)
SETTINGS = '[project]\nname = "sample"\nversion = "1.0"\n'


def _project(root: Path, settings: str) -> list[Path]:
    """A project whose package has a module with findings, one bandit cannot parse, one in
    an excluded folder and one under ``.github`` (bandit's default excluded ``.git``
    is a substring of its name unless the project has a ``.git`` folder)."""
    files = {
        "src/sample/runner.py": SOURCE,
        "src/sample/broken.py": "def f(:\n",
        "src/sample/vendored/copy.py": SOURCE,
        ".github/scripts/tool.py": SOURCE,
    }
    (root / "pyproject.toml").write_text(SETTINGS + settings)
    (root / ".git").mkdir()
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return sorted(root / name for name in files)


def _command_line(root: Path, files: list[Path], configured: bool) -> dict[str, object]:
    """What ``python -m bandit -f json -q`` prints, less what the in-process report leaves
    out (each result's code lines and the time stamp)."""
    config = ["-c", str(root / "pyproject.toml")] if configured else []
    run = subprocess.run(
        [sys.executable, "-m", "bandit", "-f", "json", "-q", *config, *map(str, files)],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    printed = json.loads(run.stdout)
    for result in printed["results"]:
        del result["code"]
    del printed["generated_at"]
    return dict(printed)


@pytest.mark.slow
@pytest.mark.parametrize(
    "settings",
    [
        "",
        '\n[tool.bandit]\nskips = ["B101"]\nexclude_dirs = ["src/sample/vendored"]\n',
        '\n[tool.bandit]\ntests = ["B602", "B301"]\n',
    ],
    ids=["no settings", "skips and excluded folders", "chosen tests"],
)
def test_the_report_is_the_one_the_command_line_prints(tmp_path: Path, settings: str) -> None:
    files = _project(tmp_path, settings)
    config = tmp_path / "pyproject.toml" if settings else None
    made = json.loads(json.dumps(bandit_report(tmp_path, files, config)))
    printed = _command_line(tmp_path, files, configured=bool(settings))
    assert made == printed
    assert made["results"], "the sample has findings"
    assert made["errors"], "the sample has a file bandit cannot parse"


def test_tests_both_chosen_and_skipped_are_refused(tmp_path: Path) -> None:
    files = _project(tmp_path, '\n[tool.bandit]\ntests = ["B602"]\nskips = ["B602"]\n')
    with pytest.raises(CheckError, match=r"bandit refused its profile.*B602"):
        bandit_report(tmp_path, files, tmp_path / "pyproject.toml")


def test_a_profile_with_no_known_test_is_refused(tmp_path: Path) -> None:
    files = _project(tmp_path, '\n[tool.bandit]\ntests = ["B999"]\n')
    with pytest.raises(CheckError, match="leaves no test to run"):
        bandit_report(tmp_path, files, tmp_path / "pyproject.toml")


def test_a_configuration_bandit_cannot_read_is_refused(tmp_path: Path) -> None:
    files = _project(tmp_path, "")
    (tmp_path / "pyproject.toml").write_text("[tool.bandit\n")
    with pytest.raises(CheckError, match="bandit refused its configuration"):
        bandit_report(tmp_path, files, tmp_path / "pyproject.toml")

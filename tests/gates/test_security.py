"""The security check: bandit on small projects that pass and that fail it."""

from __future__ import annotations

import dataclasses
import importlib.util
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from pydantic import ValidationError

from phasegate.gates.checks.security import SecurityCheck, SecurityOptions
from phasegate.gates.protocol import CheckContext, CheckError

from .samples import forge_kept, git

MakeContext = Callable[..., CheckContext]
WriteFiles = Callable[..., Path]

CLEAN = {
    "pyproject.toml": '[project]\nname = "sample"\nversion = "1.0"\n',
    "src/sample/__init__.py": (
        '"""Sample."""\n\n\ndef add(a: int, b: int) -> int:\n    return a + b\n'
    ),
}
SHELL = (
    '"""Runs things."""\n'
    "import subprocess\n"
    "\n"
    "\n"
    "def run(command: str) -> int:\n"
    "    return subprocess.call(command, shell=True)\n"
)


def test_clean_project_has_no_issues(write_files: WriteFiles, make_context: MakeContext) -> None:
    write_files(CLEAN)
    measurement = SecurityCheck().measure(make_context(), SecurityOptions())
    assert measurement.metrics == {
        "issues": 0,
        "high": 0,
        "medium": 0,
        "low": 0,
        "suppressed": 0,
        "ruff_ignored": 0,
    }
    assert measurement.new_code_metrics["issues"] == 0
    assert measurement.findings == []


def test_shell_true_is_a_high_issue_at_its_line(
    write_files: WriteFiles, make_context: MakeContext
) -> None:
    write_files({**CLEAN, "src/sample/runner.py": SHELL, "tests/test_x.py": "assert True\n"})
    measurement = SecurityCheck().measure(make_context(), SecurityOptions())
    by_rule = {finding.rule: finding for finding in measurement.findings}
    assert (by_rule["B602"].path, by_rule["B602"].line) == ("src/sample/runner.py", 6)
    assert by_rule["B602"].severity.value == "high"
    assert "shell=True" in by_rule["B602"].message
    # B404 (importing subprocess) is low severity: reported, but not an issue at "medium".
    assert by_rule["B404"].severity.value == "low"
    assert measurement.metrics["issues"] == 1
    assert measurement.metrics["low"] == 1
    # The test file's assert (B101) is not scanned: tests are not package source.
    assert "B101" not in by_rule
    assert "src/sample/runner.py:6 B602" in measurement.summary


def test_thresholds_decide_what_counts(write_files: WriteFiles, make_context: MakeContext) -> None:
    write_files({**CLEAN, "src/sample/runner.py": SHELL})
    low = SecurityCheck().measure(make_context(), SecurityOptions(severity="low"))
    assert low.metrics["issues"] == 2
    high = SecurityCheck().measure(make_context(), SecurityOptions(severity="high"))
    assert high.metrics["issues"] == 1


def test_projects_bandit_config_is_honoured(
    write_files: WriteFiles, make_context: MakeContext
) -> None:
    write_files(
        {
            **CLEAN,
            "pyproject.toml": CLEAN["pyproject.toml"] + '\n[tool.bandit]\nskips = ["B602"]\n',
            "src/sample/runner.py": SHELL,
        }
    )
    measurement = SecurityCheck().measure(make_context(), SecurityOptions())
    assert "B602" not in {finding.rule for finding in measurement.findings}
    assert measurement.metrics["issues"] == 0


EXCLUDE = '\n[tool.bandit]\nexclude_dirs = ["{}"]\n'


@pytest.mark.parametrize("pattern", ["vendored", "*/vendored/*", "*/src/sample/vendored/*"])
def test_a_folder_the_projects_bandit_config_excludes_is_left_out(
    write_files: WriteFiles, make_context: MakeContext, pattern: str
) -> None:
    write_files(
        {
            **CLEAN,
            "pyproject.toml": CLEAN["pyproject.toml"] + EXCLUDE.format(pattern),
            "src/sample/vendored/runner.py": SHELL,
        }
    )
    measurement = SecurityCheck().measure(make_context(), SecurityOptions())
    assert measurement.metrics["issues"] == 0


@pytest.mark.parametrize(
    ("folder", "pattern"),
    [("proj.git", "*/vendored/*"), ("CVS-export", "*/vendored/*"), ("latests", "tests")],
)
def test_files_bandit_drops_for_the_project_folders_name_are_not_a_pass(
    write_files: WriteFiles, make_context: MakeContext, tmp_path: Path, folder: str, pattern: str
) -> None:
    """bandit drops every file whose path holds one of its excluded names (``.git`` when the
    project's ``.git`` is no folder, ``CVS``) or of ``exclude_dirs``, the project folder's own
    name included: that the settings exclude something does not account for them, so the check
    cannot pass on a shell=True it never saw."""
    root = write_files(
        {
            **CLEAN,
            "pyproject.toml": CLEAN["pyproject.toml"] + EXCLUDE.format(pattern),
            "src/sample/runner.py": SHELL,
        },
        tmp_path / folder,
    )
    with pytest.raises(CheckError, match=r"exclude_dirs leaves out none of 2 .*src/sample/"):
        SecurityCheck().measure(make_context(root), SecurityOptions())


def test_what_bandit_drops_does_not_depend_on_the_folder_the_gate_runs_in(
    write_files: WriteFiles,
    make_context: MakeContext,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """bandit makes ``.git/*`` of the excluded name ``.git`` when *its working folder* has a
    ``.git`` folder; the gate may run elsewhere than in the project (a repository's checkout),
    and judges the project ``proj.git`` (its ``.git`` no folder) as it does from anywhere."""
    (tmp_path / "elsewhere" / ".git").mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "elsewhere")
    root = write_files(
        {
            **CLEAN,
            "pyproject.toml": CLEAN["pyproject.toml"] + EXCLUDE.format("*/vendored/*"),
            "src/sample/runner.py": SHELL,
        },
        tmp_path / "proj.git",
    )
    with pytest.raises(CheckError, match=r"exclude_dirs leaves out none of 2 .*src/sample/"):
        SecurityCheck().measure(make_context(root), SecurityOptions())


EVAL = '"""Evaluates."""\n\n\ndef run(text: str) -> object:\n    return eval(text)\n'


@pytest.mark.parametrize(
    ("ruff", "left_out"),
    [
        ('[tool.ruff.lint]\nignore = ["S307"]\n', 1),  # attrs: "eval FTW"
        ('[tool.ruff.lint.per-file-ignores]\n"src/sample/evaluate.py" = ["S307"]\n', 1),
        ('[tool.ruff.lint.per-file-ignores]\n"src/other.py" = ["S307"]\n', 0),
        ('[tool.ruff.lint]\nignore = ["S"]\n', 0),  # a whole family is not a policy on eval
    ],
)
def test_a_rule_the_projects_ruff_settings_ignore_is_left_out_and_counted(
    write_files: WriteFiles, make_context: MakeContext, ruff: str, left_out: int
) -> None:
    write_files(
        {
            **CLEAN,
            "pyproject.toml": CLEAN["pyproject.toml"] + "\n" + ruff,
            "src/sample/evaluate.py": EVAL,
        }
    )
    measurement = SecurityCheck().measure(make_context(), SecurityOptions())
    assert measurement.metrics["ruff_ignored"] == left_out
    assert measurement.metrics["issues"] == 1 - left_out
    assert ("B307" in {f.rule for f in measurement.findings}) == (not left_out)
    if left_out:
        assert (
            "1 finding(s) left out as [tool.ruff] in pyproject.toml ignores their rule (S307)"
            in (measurement.summary)
        )


def test_a_ruff_toml_is_read_before_pyproject(
    write_files: WriteFiles, make_context: MakeContext
) -> None:
    write_files(
        {**CLEAN, "ruff.toml": '[lint]\nextend-ignore = ["S307"]\n', "src/sample/e.py": EVAL}
    )
    measurement = SecurityCheck().measure(make_context(), SecurityOptions())
    assert measurement.metrics["ruff_ignored"] == 1
    assert "as ruff.toml ignores" in measurement.summary


def test_the_ruff_settings_read_are_those_ruff_reads(
    write_files: WriteFiles, make_context: MakeContext
) -> None:
    # ruff takes .ruff.toml over ruff.toml: an ignore in the file ruff does not read is no
    # policy of the project's, and must not silence bandit.
    write_files(
        {
            **CLEAN,
            ".ruff.toml": '[lint]\nselect = ["S"]\n',
            "ruff.toml": '[lint]\nextend-ignore = ["S307"]\n',
            "src/sample/e.py": EVAL,
        }
    )
    measurement = SecurityCheck().measure(make_context(), SecurityOptions())
    assert measurement.metrics["ruff_ignored"] == 0
    assert "B307" in {f.rule for f in measurement.findings}


def test_nosec_lines_are_counted_as_suppressed(
    write_files: WriteFiles, make_context: MakeContext
) -> None:
    write_files(
        {**CLEAN, "src/sample/runner.py": SHELL.replace("shell=True)", "shell=True)  # nosec")}
    )
    measurement = SecurityCheck().measure(make_context(), SecurityOptions())
    assert measurement.metrics["issues"] == 0
    assert measurement.metrics["suppressed"] == 1


def test_issue_on_an_unchanged_line_is_not_new(
    tmp_path: Path, write_files: WriteFiles, make_context: MakeContext
) -> None:
    write_files({**CLEAN, "src/sample/runner.py": SHELL})
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-qm", "base")
    git(tmp_path, "checkout", "-qb", "feature")
    (tmp_path / "src/sample/loader.py").write_text(
        '"""Loads."""\nimport pickle\n\n\ndef load(data: bytes) -> object:\n'
        "    return pickle.loads(data)\n"
    )
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-qm", "loader")
    measurement = SecurityCheck().measure(make_context(base="main"), SecurityOptions())
    assert measurement.metrics["issues"] == 2  # B602 (old) and B301 (new)
    assert measurement.new_code_metrics["issues"] == 1
    (new,) = [f for f in measurement.findings if f.new and f.severity.value != "low"]
    assert (new.rule, new.path, new.line) == ("B301", "src/sample/loader.py", 6)


def test_a_file_bandit_cannot_scan_is_an_error(
    write_files: WriteFiles, make_context: MakeContext
) -> None:
    write_files({**CLEAN, "src/sample/broken.py": "def f(:\n"})
    with pytest.raises(CheckError, match=r"could not scan 1 file.*src/sample/broken\.py"):
        SecurityCheck().measure(make_context(), SecurityOptions())


def test_options_are_validated() -> None:
    with pytest.raises(ValidationError, match="severity"):
        SecurityOptions.model_validate({"severity": "critical"})
    with pytest.raises(ValidationError, match="extra"):
        SecurityOptions.model_validate({"level": "high"})


def test_without_bandit_is_an_error_with_the_install_command(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "bandit" else real(name, *a)
    )
    with pytest.raises(CheckError) as caught:
        SecurityCheck().tool_info()
    assert "bandit is not installed" in caught.value.reason
    assert caught.value.fix is not None
    assert "pip install 'pytest-phasegate[gate]'" in caught.value.fix


PICKLE = (
    '"""Loads."""\nimport pickle\n\n\ndef load(data: bytes) -> object:\n'
    "    return pickle.loads(data)\n"
)
KEPT = ".phasegate/cache/security.files.json"


def _scanned_files(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """The source files each bandit run of the check is given, as names under src/sample."""
    from phasegate.gates.checks import security

    runs: list[list[str]] = []
    real = security.bandit_report

    def spy(root: Path, files: list[Path], config_file: Path | None) -> dict[str, object]:
        runs.append(sorted(path.name for path in files))
        return real(root, files, config_file)

    monkeypatch.setattr(security, "bandit_report", spy)
    return runs


def _seen(measurement: object) -> tuple[object, ...]:
    from phasegate.gates.protocol import Measurement

    assert isinstance(measurement, Measurement)
    found = sorted((f.rule, f.path, f.line, f.new) for f in measurement.findings)
    return (found, measurement.metrics, measurement.new_code_metrics, measurement.summary)


def test_a_change_rescans_only_the_files_it_touched(
    tmp_path: Path,
    write_files: WriteFiles,
    make_context: MakeContext,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    nosec = SHELL.replace("shell=True)", "shell=True)  # nosec")
    # The artifacts folder ignored, as the store makes it (.phasegate/.gitignore): an entry git
    # lists is not believed.
    write_files(
        {
            **CLEAN,
            ".gitignore": ".phasegate/\n",
            "src/sample/runner.py": nosec,
            "src/sample/loader.py": PICKLE,
        }
    )
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-qm", "base")
    runs = _scanned_files(monkeypatch)
    reusing = dataclasses.replace(make_context(base="main"), reuse_file_results=True)
    SecurityCheck().measure(reusing, SecurityOptions())
    assert runs == [["__init__.py", "loader.py", "runner.py"]]
    # A change to one file: bandit reads that file alone; the others' results are kept ones.
    (tmp_path / "src/sample/loader.py").write_text(
        PICKLE + "\n\ndef again(d: bytes) -> object:\n    return pickle.loads(d)\n"
    )
    reusing = dataclasses.replace(make_context(base="main"), reuse_file_results=True)
    after = SecurityCheck().measure(reusing, SecurityOptions())
    assert runs[1:] == [["loader.py"]]
    # ... and the check says what a whole run of bandit says, in both scopes.
    whole = SecurityCheck().measure(make_context(base="main"), SecurityOptions())
    assert runs[2:] == [["__init__.py", "loader.py", "runner.py"]]
    assert _seen(after) == _seen(whole)
    assert after.metrics["suppressed"] == 1  # the kept file's nosec line
    assert after.new_code_metrics["issues"] == 1  # the new pickle.loads line
    # Nothing changed: bandit reads nothing, the answer is the same.
    SecurityCheck().measure(reusing, SecurityOptions())
    assert runs[3:] == []
    # The kept results committed (review finding 2): not believed, every file scanned again.
    git(tmp_path, "add", "-f", KEPT)
    reusing = dataclasses.replace(make_context(base="main"), reuse_file_results=True)
    assert _seen(SecurityCheck().measure(reusing, SecurityOptions())) == _seen(after)
    assert runs[3:] == [["__init__.py", "loader.py", "runner.py"]]
    assert reusing.store.notices[-1] == (
        ".phasegate/cache/security.files.json is in git (tracked, or not ignored): not this "
        "machine's measurement; its files are checked again"
    )


def test_kept_results_are_recognized_before_they_are_used(
    tmp_path: Path,
    write_files: WriteFiles,
    make_context: MakeContext,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    write_files({**CLEAN, "src/sample/runner.py": SHELL, "src/sample/loader.py": PICKLE})
    reusing = dataclasses.replace(make_context(), reuse_file_results=True)
    first = SecurityCheck().measure(reusing, SecurityOptions())
    kept = tmp_path / KEPT
    data = json.loads(kept.read_text())
    # One entry of another shape (a result without its line), one with a negative count:
    # both files are scanned again; the third is reused.
    data["files"]["src/sample/runner.py"]["data"]["results"][0].pop("line_number")
    data["files"]["src/sample/loader.py"]["data"]["nosec"] = -1
    forge_kept(tmp_path / ".phasegate", "cache/security.files.json", json.dumps(data))
    runs = _scanned_files(monkeypatch)
    again = SecurityCheck().measure(reusing, SecurityOptions())
    assert runs == [["loader.py", "runner.py"]]
    assert _seen(again) == _seen(first)
    # A file that is not JSON at all is set aside; everything is scanned again.
    kept.write_text("{not json")
    assert _seen(SecurityCheck().measure(reusing, SecurityOptions())) == _seen(first)
    assert runs[1:] == [["__init__.py", "loader.py", "runner.py"]]
    assert list(kept.parent.glob("security.files.json.corrupt-*"))


def test_a_failed_scan_keeps_nothing_and_no_cache_keeps_nothing(
    tmp_path: Path, write_files: WriteFiles, make_context: MakeContext
) -> None:
    write_files({**CLEAN, "src/sample/broken.py": "def f(:\n"})
    reusing = dataclasses.replace(make_context(), reuse_file_results=True)
    with pytest.raises(CheckError, match="could not scan 1 file"):
        SecurityCheck().measure(reusing, SecurityOptions())
    assert not (tmp_path / KEPT).exists()
    (tmp_path / "src/sample/broken.py").unlink()
    SecurityCheck().measure(make_context(), SecurityOptions())  # the settings' cache is off
    assert not (tmp_path / KEPT).exists()

"""Third-party patterns through phasegate's hooks: discovered, asked first, validated alike."""

from __future__ import annotations

import importlib.metadata
import json
import types
from datetime import datetime, timezone
from pathlib import Path

import pytest

from phasegate.autodebug.patterns import BUILTIN_PATTERNS, load_patterns
from phasegate.cli import main
from phasegate.errors import UsageError
from phasegate.extensions import make_plugin_manager
from phasegate.model.autodebug import AutodebugCounts, AutodebugReport
from phasegate.store import Store

ZERO_PATTERN = '''
"""A third-party pattern: a divisor constant that is zero."""
from phasegate.autodebug.diagnosis import Candidate, Diagnosis, FileEdit
from phasegate.hookspecs import hookimpl


class DivisorPattern:
    name = "zero_pattern.divisor"
    error_class = "arithmetic"

    def classify(self, failure):
        if not isinstance(failure.exc, ZeroDivisionError):
            return None
        frame = failure.project_frame
        return Diagnosis(self.name, self.error_class, "zero-divisor", "ZeroDivisionError",
                         str(failure.exc), path=frame.path, line=frame.line)

    def propose(self, diagnosis, project):
        text = project.read_editable(diagnosis.path)
        if text is None or "DIVISOR = 0" not in text:
            return []
        fixed = text.replace("DIVISOR = 0", "DIVISOR = 1")
        return [Candidate("divisor", "set DIVISOR to 1", [FileEdit(diagnosis.path, fixed)], 1.0)]

    def explain(self, diagnosis, candidate):
        return "ZeroDivisionError: DIVISOR is 0" + ("; set it to 1" if candidate else "")


@hookimpl
def phasegate_autodebug_patterns():
    return [DivisorPattern()]
'''


@pytest.mark.slow
def test_a_pattern_listed_in_plugins_classifies_and_repairs(pytester: pytest.Pytester) -> None:
    pytester.makepyprojecttoml('[tool.phasegate]\nplugins = ["zero_pattern"]\n')
    pytester.makepyfile(
        zero_pattern=ZERO_PATTERN,
        ratio="DIVISOR = 0\n\n\ndef ratio(x):\n    return x / DIVISOR\n",
        test_ratio="from ratio import ratio\n\n\ndef test_ratio():\n    assert ratio(3) == 3\n",
    )
    pytester.syspathinsert()
    result = pytester.runpytest("--autodebug=apply", "-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(
        ["01-arithmetic repaired: ZeroDivisionError: DIVISOR is 0; set it to 1"]
    )
    report = json.loads((pytester.path / ".phasegate/autodebug.json").read_text())
    (failure,) = report["failures"]
    assert (failure["pattern"], failure["error_class"]) == ("zero_pattern.divisor", "arithmetic")
    assert (pytester.path / "ratio.py").read_text().startswith("DIVISOR = 1\n")


def test_a_pattern_from_an_entry_point_is_asked_before_the_built_in_ones(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # As pluggy's own tests do: a distribution whose entry point yields the plugin.
    plugin = types.ModuleType("fake_plugin")
    exec(ZERO_PATTERN, plugin.__dict__)  # noqa: S102 - the plugin's source, above

    class EntryPoint:
        name = "zero"
        group = "phasegate"
        value = "fake_plugin"

        def load(self) -> types.ModuleType:
            return plugin

    class Distribution:
        entry_points = (EntryPoint(),)
        metadata = {"name": "fake-dist"}  # noqa: RUF012 - read-only stand-in

    monkeypatch.setattr(importlib.metadata, "distributions", lambda: (Distribution(),))
    patterns = load_patterns(make_plugin_manager())
    assert [p.name for p in patterns][:2] == ["zero_pattern.divisor", "syntax"]
    assert patterns[1:] == list(BUILTIN_PATTERNS)


def test_what_is_not_a_pattern_is_refused_by_name() -> None:
    from phasegate.hookspecs import hookimpl

    class NotAPattern:
        @hookimpl
        def phasegate_autodebug_patterns(self) -> list[object]:
            return ["just a string"]

    manager = make_plugin_manager()
    manager.register(NotAPattern())
    with pytest.raises(UsageError, match="returned 'just a string', which is not an auto-debug"):
        load_patterns(manager)


def test_a_pattern_may_not_take_a_built_in_name() -> None:
    from phasegate.hookspecs import hookimpl

    class Clash:
        @hookimpl
        def phasegate_autodebug_patterns(self) -> list[object]:
            return [BUILTIN_PATTERNS[0]]

    manager = make_plugin_manager()
    manager.register(Clash())
    with pytest.raises(UsageError, match="two auto-debug patterns are named 'syntax'"):
        load_patterns(manager)


def test_cli_show_prints_the_last_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.phasegate]\n")
    assert main(["autodebug", "show", "--project", str(tmp_path)]) == 4
    assert "run `pytest --autodebug` first" in capsys.readouterr().err
    now = datetime.now(timezone.utc)
    report = AutodebugReport(
        mode="suggest", started_at=now, finished_at=now, duration_s=0, counts=AutodebugCounts()
    )
    Store(tmp_path / ".phasegate").write_model("autodebug.json", report)
    assert main(["autodebug", "show", "--project", str(tmp_path)]) == 0
    assert "autodebug (suggest): 0 failure(s)" in capsys.readouterr().out


def test_cli_restore_without_a_journal_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.phasegate]\n")
    assert main(["autodebug", "restore", "--project", str(tmp_path)]) == 0
    assert capsys.readouterr().out == "nothing to restore: no auto-debug run was interrupted\n"

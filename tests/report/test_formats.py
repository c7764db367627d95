"""The report format registry: a third party's format is a sub-command and part of the GitHub
bundle; a broken one is an error naming it, and cannot change the verdict."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

import pytest

from phasegate.cli import main
from phasegate.errors import UsageError
from phasegate.extensions import make_plugin_manager
from phasegate.hookspecs import hookimpl
from phasegate.report.bundle import Bundle, load_bundle
from phasegate.report.formats import FormatRegistry, ReportContext

PLUGIN = """
from phasegate.hookspecs import hookimpl


class Checklist:
    name = "checklist"
    description = "the checks as a plain checklist"
    reads = "verdict"
    bundle_file = "checklist.txt"
    step_output = "checklist-path"

    def render(self, bundle, context):
        return "".join(
            f"[{'x' if check.status == 'passed' else ' '}] {check.id}\\n"
            for check in bundle.verdict.checks
        )


class Broken:
    name = "broken"
    description = "a format with a bug"
    reads = "any"
    bundle_file = "broken.txt"
    step_output = None

    def render(self, bundle, context):
        return {MODE}


@hookimpl
def phasegate_report_formats():
    return [Checklist(), Broken()] if {BROKEN} else [Checklist()]
"""


def _project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, module: str, *, broken: str | None = None
) -> None:
    """A project whose ``[tool.phasegate] plugins`` names a module of report formats."""
    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text(
        f'[project]\nname = "app"\n\n[tool.phasegate]\nplugins = ["{module}"]\n'
    )
    source = PLUGIN.replace("{MODE}", broken or "''").replace("{BROKEN}", str(bool(broken)))
    (project / f"{module}.py").write_text(source)
    monkeypatch.syspath_prepend(str(project))
    monkeypatch.delitem(sys.modules, module, raising=False)
    monkeypatch.chdir(project)


def _outputs(path: Path) -> dict[str, str]:
    return dict(line.split("=", 1) for line in path.read_text().splitlines())


def test_a_third_party_format_is_a_sub_command(
    artifacts: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _project(tmp_path, monkeypatch, "checklist_formats_a")
    with pytest.raises(SystemExit) as exited:
        main(["report", "--help"])
    assert exited.value.code == 0
    listed = capsys.readouterr().out
    assert "checklist" in listed
    assert "the checks as a plain checklist" in listed
    assert main(["report", "checklist", "--dir", str(artifacts)]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "[ ] tests",
        "[ ] coverage",
        "[ ] lint",
        "[x] review",
    ]


def test_the_github_bundle_writes_a_third_party_format(
    artifacts: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _project(tmp_path, monkeypatch, "checklist_formats_b")
    outputs = tmp_path / "outputs"
    monkeypatch.setenv("GITHUB_OUTPUT", str(outputs))
    assert main(["report", "github", "--dir", str(artifacts), "--path-prefix", ""]) == 0
    values = _outputs(outputs)
    assert Path(values["checklist-path"]) == artifacts / "checklist.txt"
    assert (artifacts / "checklist.txt").read_text().startswith("[ ] tests\n")
    assert Path(values["sarif-path"]).is_file()
    assert "::error file=tests/test_core.py" in capsys.readouterr().out
    # --skip leaves a format out of the bundle.
    (artifacts / "checklist.txt").unlink()
    outputs.unlink()
    assert main(["report", "github", "--dir", str(artifacts), "--skip", "checklist"]) == 0
    assert "checklist-path" not in _outputs(outputs)
    assert not (artifacts / "checklist.txt").exists()


@pytest.mark.parametrize(
    ("module", "returned", "said"),
    [
        ("raising_formats", "1 / 0", "failed: ZeroDivisionError: division by zero"),
        ("bytes_formats", "b'bytes'", "returned bytes, not the report's text (str)"),
        ("none_formats", "None", "returned NoneType, not the report's text (str)"),
    ],
)
def test_a_broken_format_is_named_and_cannot_change_the_verdict(
    module: str,
    returned: str,
    said: str,
    artifacts: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _project(tmp_path, monkeypatch, module, broken=returned)
    outputs = tmp_path / "outputs"
    monkeypatch.setenv("GITHUB_OUTPUT", str(outputs))
    assert main(["report", "broken", "--dir", str(artifacts)]) == 4
    error = capsys.readouterr().err
    assert f"report format 'broken' (plugin '{module}') {said}" in error
    # In the bundle: the step fails, and the verdict it already set is the verdict file's.
    assert main(["report", "github", "--dir", str(artifacts), "--path-prefix", ""]) == 4
    assert f"report format 'broken' (plugin '{module}') {said}" in capsys.readouterr().err
    values = _outputs(outputs)
    assert values["verdict"] == "insufficient"
    assert values["score"] == "0.6100"
    assert not (artifacts / "broken.txt").exists()


class _Format:
    """A well-formed format; tests change one attribute at a time."""

    name = "plain"
    description = "plain text"
    reads: Literal["verdict", "run", "any"] = "any"
    bundle_file: str | None = "plain.txt"
    step_output: str | None = "plain-path"

    def render(self, bundle: Bundle, context: ReportContext) -> str:
        return f"{bundle.source.name}\n"


class _Plugin:
    def __init__(self, returned: object) -> None:
        self.returned = returned

    @hookimpl
    def phasegate_report_formats(self) -> object:
        if isinstance(self.returned, Exception):
            raise self.returned
        return self.returned


def _registry(returned: object) -> FormatRegistry:
    manager = make_plugin_manager()
    manager.register(_Plugin(returned), name="thirdparty")
    return FormatRegistry(manager)


def _changed(**attributes: object) -> _Format:
    report_format = _Format()
    for key, value in attributes.items():
        setattr(report_format, key, value)
    return report_format


def test_built_in_formats_come_first_and_a_plugin_s_follow() -> None:
    registry = _registry([_Format()])
    assert registry.names() == ["markdown", "sarif", "annotations", "plain"]
    assert [r.origin for r in registry.formats()] == [
        "built-in",
        "built-in",
        "built-in",
        "plugin 'thirdparty'",
    ]


@pytest.mark.parametrize(
    ("returned", "said"),
    [
        (RuntimeError("no luck"), "plugin 'thirdparty' failed in phasegate_report_formats: "),
        (_Format(), "returned _Format from phasegate_report_formats; return a list"),
        (["text"], "registered 'text', which is not a report format: it needs name, "),
        ([_changed(name="sarif")], "registers the report format 'sarif', but that name is taken"),
        ([_changed(name="github")], "registers the report format 'github', but that name is"),
        ([_changed(name="Bad Name")], "with name 'Bad Name': use lower-case letters"),
        ([_changed(reads="everything")], "with reads 'everything': use one of verdict, run, any"),
        ([_changed(bundle_file="report.json")], "with bundle_file 'report.json': use a plain"),
        ([_changed(bundle_file="gates")], "with bundle_file 'gates': use a plain file name"),
        ([_changed(bundle_file="../out.txt")], "with bundle_file '../out.txt': use a plain"),
        ([_changed(bundle_file="comment.md")], "writes 'comment.md', which another format"),
        ([_changed(step_output="verdict")], "with step_output 'verdict': use lower-case"),
        ([_changed(step_output="sarif-path")], "sets the output 'sarif-path', which another"),
        ([_changed(bundle_file=None)], "with step_output 'plain-path': use lower-case letters"),
    ],
)
def test_a_malformed_registration_is_refused_with_its_plugin_named(
    returned: object, said: str
) -> None:
    with pytest.raises(UsageError) as refused:
        _registry(returned)
    assert said in str(refused.value)
    assert "thirdparty" in str(refused.value)


def test_a_format_that_reads_a_verdict_is_refused_without_one(artifacts: Path) -> None:
    (artifacts / "gates" / "default.json").unlink()
    registry = _registry([_changed(reads="verdict")])
    bundle = load_bundle(artifacts)
    with pytest.raises(UsageError, match="holds no gate verdict of its latest run"):
        registry.render(registry.get("plain"), bundle, ReportContext())
    assert registry.render(registry.get("markdown"), bundle, ReportContext()).startswith(
        "<!-- phasegate:report -->"
    )


def test_an_unknown_format_lists_the_known_ones() -> None:
    with pytest.raises(UsageError, match="known formats: markdown, sarif, annotations"):
        _registry(None).get("html")


def test_the_built_in_formats_register_through_the_hook() -> None:
    manager = make_plugin_manager()
    FormatRegistry(manager)
    plugins: Sequence[str] = [
        impl.plugin_name for impl in manager.hook.phasegate_report_formats.get_hookimpls()
    ]
    assert plugins == ["phasegate.report.standard"]

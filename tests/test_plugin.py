"""The pytest plugin, end to end with pytester: recording, the report, bad input, xdist."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import jsonschema
import pytest

from phasegate import store as store_module
from phasegate.config import settings_cache
from phasegate.plugin.display import display_path
from tests.conftest import REPO_ROOT, read_report

SCHEMA = json.loads((REPO_ROOT / "docs/schema/run-report.schema.json").read_text())


def validate(report: dict[str, Any]) -> None:
    jsonschema.validate(report, SCHEMA, cls=jsonschema.Draft202012Validator)


def by_name(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {test["nodeid"].split("::")[-1]: test for test in report["tests"]}


def test_a_written_file_is_named_from_where_pytest_ran_or_by_its_absolute_path(
    pytester: pytest.Pytester,
) -> None:
    config = pytester.parseconfig()
    inside = pytester.path / ".phasegate" / "tdd" / "ledger.jsonl"
    assert display_path(inside, config) == str(Path(".phasegate", "tdd", "ledger.jsonl"))
    # Run from a subdirectory, every section names the artifacts by one rule: absolutely,
    # never as ``../.phasegate/...`` in one section and ``/abs/.phasegate/...`` in the next.
    below = pytester.mkdir("tests")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(below)
        from_below = pytester.parseconfig()
    assert from_below.invocation_params.dir == below
    assert display_path(inside, from_below) == str(inside)


def test_without_gate_the_plugin_does_nothing(sample_suite: pytest.Pytester) -> None:
    result = sample_suite.runpytest()
    result.assert_outcomes(passed=2, failed=1, errors=2, skipped=1, xfailed=1, xpassed=1)
    assert not (sample_suite.path / ".phasegate").exists()
    result.stdout.no_fnmatch_line("*= phasegate =*")


def test_without_gate_no_hook_of_phasegate_is_registered(pytester: pytest.Pytester) -> None:
    quiet = pytester.parseconfigure()
    assert quiet.pluginmanager.get_plugin("phasegate-annotator") is None
    assert quiet.pluginmanager.get_plugin("phasegate-recorder") is None
    active = pytester.parseconfigure("--gate=record")
    assert active.pluginmanager.get_plugin("phasegate-annotator") is not None
    assert active.pluginmanager.get_plugin("phasegate-recorder") is not None


def test_recording_only_imports_nothing_of_the_gate_engine(pytester: pytest.Pytester) -> None:
    # `--gate=record` judges no check, splits no shard and debugs nothing: it must not pay for
    # importing those engines, nor, once its settings are in the cache
    # (phasegate.config.settings_cache), for pydantic.
    pytester.makepyfile(
        test_engine="""
        import sys

        def test_engine_not_loaded():
            engines = ("phasegate.gates.runner", "phasegate.plugin.gate_session",
                       "phasegate.shards.spec", "phasegate.autodebug.runner",
                       "phasegate.autodebug.diagnosis")
            loaded = [m for m in engines if m in sys.modules]
            assert loaded == []
        """,
        test_cached="""
        import sys

        def test_pydantic_not_loaded():
            assert "pydantic" not in sys.modules
        """,
    )
    first = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "--gate=record", "test_engine.py"
    )
    first.assert_outcomes(passed=1)
    assert (pytester.path / ".phasegate" / settings_cache.CACHE_FILE).is_file()
    second = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "--gate=record", "test_cached.py"
    )
    second.assert_outcomes(passed=1)


def test_gate_writes_a_report_that_matches_the_schema(sample_suite: pytest.Pytester) -> None:
    result = sample_suite.runpytest("--gate=record")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "*= phasegate =*",
            "tests: 7 collected: 1 passed, 1 failed, 2 errors, 1 skipped, 1 xfailed, 1 xpassed",
            "report: .phasegate/report.json",
        ]
    )
    report = read_report(sample_suite)
    validate(report)
    assert report["kind"] == "run-report"
    assert report["counts"]["collected"] == 7
    assert report["incomplete"] is False
    assert report["exit_status"] == 1
    assert report["invocation"]["args"][0] == "--gate=record"
    assert report["environment"]["pytest"] == pytest.__version__


def test_the_records_are_built_only_for_a_feature_that_reads_them(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(test_a="import pytest\n\n@pytest.mark.slow\ndef test_one(): pass\n")
    pytester.makeini("[pytest]\nmarkers =\n    slow: a marker to record\n")
    pytester.makeconftest(
        """
import json, os
from phasegate.plugin import RECORDER_KEY

def pytest_sessionfinish(session):
    if os.environ.get("READ_RECORDS"):
        session.config.stash[RECORDER_KEY].outcome.document["tests"][0]["reason"] = "read"

def pytest_unconfigure(config):
    tests = config.stash[RECORDER_KEY].outcome.document["tests"]
    with open("kinds.json", "w") as file:
        json.dump([type(test).__name__ for test in tests.rows], file)
"""
    )
    written = []
    for read in ("", "1"):
        monkeypatch.setenv("READ_RECORDS", read)
        assert pytester.runpytest("--gate=record").ret == pytest.ExitCode.OK
        kinds = json.loads((pytester.path / "kinds.json").read_text())
        assert kinds == (["dict"] if read else ["PassedRow"])
        report = read_report(pytester)
        validate(report)
        written.append(report["tests"][0])
    unread, read_and_changed = written
    assert unread["markers"] == read_and_changed["markers"] == ["slow"]
    assert unread["reason"] is None
    assert read_and_changed["reason"] == "read"  # what a feature changes is what is written
    for test in written:
        del test["phases"], test["duration_s"], test["reason"]
    assert unread == read_and_changed


def test_an_observer_of_the_finished_report_gets_the_validated_model(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyprojecttoml('[tool.phasegate]\nplugins = ["observer"]\n')
    pytester.makepyfile(
        observer="""
import json
from phasegate.hookspecs import hookimpl

@hookimpl
def phasegate_report_ready(report):
    seen = {"type": type(report).__name__, "outcomes": [t.outcome.value for t in report.tests]}
    with open("seen.json", "w") as file:
        json.dump(seen, file)
""",
        test_a="def test_one(): pass\n\ndef test_two(): assert False\n",
    )
    pytester.syspathinsert()
    assert pytester.runpytest("--gate=record").ret == pytest.ExitCode.TESTS_FAILED
    seen = json.loads((pytester.path / "seen.json").read_text())
    assert seen == {"type": "RunReport", "outcomes": ["passed", "failed"]}
    assert read_report(pytester)["counts"]["failed"] == 1


def test_each_outcome_is_recorded_with_its_detail(sample_suite: pytest.Pytester) -> None:
    sample_suite.runpytest("--gate=record")
    tests = by_name(read_report(sample_suite))
    assert {name: t["outcome"] for name, t in tests.items()} == {
        "test_pass": "passed",
        "test_fail": "failed",
        "test_setup_error": "error",
        "test_teardown_error": "error",
        "test_skip": "skipped",
        "test_xfail": "xfailed",
        "test_xpass": "xpassed",
    }
    failure = tests["test_fail"]["failure"]
    assert failure["exc_type"] == "AssertionError"
    assert failure["path"] == "test_sample.py"
    assert failure["line"] == 18  # the assert line in the generated file
    assert "assert 3 == 4" in failure["traceback"]
    assert tests["test_fail"]["markers"] == ["slowish"]
    setup = tests["test_setup_error"]["failure"]
    assert (setup["phase"], setup["exc_type"], setup["message"]) == (
        "setup",
        "RuntimeError",
        "fixture exploded",
    )
    assert tests["test_teardown_error"]["failure"]["exc_type"] == "OSError"
    assert tests["test_skip"]["reason"] == "not on this platform"
    assert tests["test_xfail"]["reason"] == "known bug"
    assert tests["test_pass"]["location"] == {
        "path": "test_sample.py",
        "line": 12,
        "domain": "test_pass",
    }
    assert set(tests["test_pass"]["phases"]) == {"setup", "call", "teardown"}


def test_markers_of_classes_and_modules_are_inherited(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nmarkers =\n    mod\n    cls\n    own\n")
    pytester.makepyfile(
        """
        import pytest

        pytestmark = pytest.mark.mod

        @pytest.mark.cls
        class TestThing:
            @pytest.mark.own
            def test_marked(self):
                pass

            def test_plain(self):
                pass

        def test_module_level():
            pass
        """
    )
    pytester.runpytest("--gate=record", "--strict-markers")
    tests = by_name(read_report(pytester))
    assert tests["test_marked"]["markers"] == ["cls", "mod", "own"]
    assert tests["test_plain"]["markers"] == ["cls", "mod"]
    assert tests["test_module_level"]["markers"] == ["mod"]


def test_quiet_run_prints_one_line(sample_suite: pytest.Pytester) -> None:
    result = sample_suite.runpytest("--gate=record", "-q")
    result.stdout.fnmatch_lines(["phasegate: report .phasegate/report.json"])
    result.stdout.no_fnmatch_line("*= phasegate =*")


def test_collection_errors_are_recorded_and_make_the_run_incomplete(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_ok="def test_ok():\n    pass\n")
    pytester.makepyfile(test_broken="import not_a_module_anywhere\n")
    result = pytester.runpytest("--gate=record")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    report = read_report(pytester)
    validate(report)
    (error,) = report["collection_errors"]
    assert error["nodeid"] == "test_broken.py"
    assert error["failure"]["exc_type"] == "ModuleNotFoundError"
    assert error["failure"]["path"] == "test_broken.py"
    assert error["failure"]["line"] == 1
    assert report["incomplete"] is True
    assert "1 collection error(s): test_broken.py" in report["incomplete_reasons"]
    result.stdout.fnmatch_lines(["incomplete run:", "*collection error*"])


def test_stopping_early_marks_the_report_incomplete(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        "def test_a():\n    assert False\n\ndef test_b():\n    pass\n\ndef test_c():\n    pass\n"
    )
    pytester.runpytest("--gate=record", "-x")
    report = read_report(pytester)
    assert report["incomplete"] is True
    assert any("stopped early" in reason for reason in report["incomplete_reasons"])
    assert any("2 collected test(s) have no result" in r for r in report["incomplete_reasons"])


def test_deselected_tests_are_counted_apart(sample_suite: pytest.Pytester) -> None:
    sample_suite.runpytest("--gate=record", "-k", "pass or skip")
    counts = read_report(sample_suite)["counts"]
    assert counts["collected"] == 3  # test_pass, test_xpass and test_skip
    assert counts["deselected"] == 4
    assert read_report(sample_suite)["incomplete"] is False


def test_syntax_error_points_at_the_faulty_line(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_syntax="def test_x():\n    x = (1,\n    assert x\n")
    pytester.runpytest("--gate=record")
    (error,) = read_report(pytester)["collection_errors"]
    assert error["failure"]["exc_type"] == "SyntaxError"
    assert error["failure"]["path"] == "test_syntax.py"
    assert error["failure"]["line"] == 2


def test_unknown_config_key_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makepyprojecttoml('[tool.phasegate]\ngates = "x"\n')
    pytester.makepyfile("def test_a():\n    pass\n")
    result = pytester.runpytest("--gate=record")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*pyproject.toml: unknown key tool.phasegate.gates = 'x'*did you mean 'gate'?*"]
    )


def test_wrong_type_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makepyprojecttoml("[tool.phasegate]\nplugins = 3\n")
    pytester.makepyfile("def test_a():\n    pass\n")
    result = pytester.runpytest("--gate=record")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*key tool.phasegate.plugins = 3 is not allowed*"])


def test_corrupt_report_from_an_earlier_run_is_kept_aside(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_a():\n    pass\n")
    artifacts = pytester.path / ".phasegate"
    artifacts.mkdir()
    (artifacts / "report.json").write_text('{"schema_version": "1.0", "run_')
    result = pytester.runpytest("--gate=record")
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        ["warning: .phasegate/report.json could not be read: it is not valid JSON*kept as*"]
    )
    (aside,) = artifacts.glob("report.json.corrupt-*")
    assert aside.read_text() == '{"schema_version": "1.0", "run_'
    report = read_report(pytester)
    validate(report)
    assert report["warnings"][0].startswith(".phasegate/report.json could not be read")


def test_a_run_hashes_the_report_it_replaces_once_and_the_one_it_writes_once(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile("def test_a():\n    pass\n")
    assert pytester.runpytest_inprocess("--gate=record").ret == pytest.ExitCode.OK
    hashed: list[bytes] = []

    def sha256(data: bytes) -> hashlib._Hash:
        hashed.append(data)
        return hashlib.sha256(data)

    monkeypatch.setattr(store_module, "hashlib", SimpleNamespace(sha256=sha256))
    old = (pytester.path / ".phasegate" / "report.json").read_bytes()
    assert pytester.runpytest_inprocess("--gate=record").ret == pytest.ExitCode.OK
    new = (pytester.path / ".phasegate" / "report.json").read_bytes()
    # Vetted before the tests and again before it is replaced, hashed the first time only.
    assert hashed == [old, new]
    assert read_report(pytester)["warnings"] == []


def test_report_from_a_newer_phasegate_is_not_overwritten(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_a():\n    pass\n")
    artifacts = pytester.path / ".phasegate"
    artifacts.mkdir()
    newer = '{"schema_version": "2.0", "kind": "run-report"}'
    (artifacts / "report.json").write_text(newer)
    result = pytester.runpytest("--gate=record")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*schema version 2.0, newer than the 1.0*upgrade*"])
    assert (artifacts / "report.json").read_text() == newer


def test_unwritable_artifacts_folder_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_a():\n    pass\n")
    (pytester.path / "blocker").write_text("a file where a folder should be")
    result = pytester.runpytest("--gate=record", "--phasegate-dir", "blocker/out")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*cannot write artifacts to *blocker*--phasegate-dir*"])


def test_artifacts_dir_from_config_and_flag(pytester: pytest.Pytester) -> None:
    pytester.makepyprojecttoml('[tool.phasegate]\nartifacts_dir = "build/pg"\n')
    pytester.makepyfile("def test_a():\n    pass\n")
    pytester.runpytest("--gate=record")
    assert (pytester.path / "build/pg/report.json").is_file()
    pytester.runpytest("--gate=record", "--phasegate-dir=elsewhere")
    assert (pytester.path / "elsewhere/report.json").is_file()


def test_a_path_swallowed_as_the_gate_name_is_refused(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_here="def test_a():\n    pass\n")
    result = pytester.runpytest("--gate", "test_here.py")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*looks like a test path; write --gate=NAME*"])


def test_collect_only_writes_nothing(sample_suite: pytest.Pytester) -> None:
    result = sample_suite.runpytest("--gate=record", "--collect-only")
    assert result.ret == pytest.ExitCode.OK
    assert not (sample_suite.path / ".phasegate" / "report.json").exists()


def test_git_commit_is_recorded(pytester: pytest.Pytester) -> None:
    import subprocess

    pytester.makepyfile("def test_a():\n    pass\n")
    for command in (
        ["git", "init", "-q", "-b", "trunk"],
        ["git", "add", "."],
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-qm", "x"],
    ):
        subprocess.run(command, cwd=pytester.path, check=True)
    pytester.runpytest("--gate=record")
    git = read_report(pytester)["git"]
    assert git["branch"] == "trunk"
    assert len(git["sha"]) == 40
    assert git["dirty"] is False


@pytest.mark.slow
def test_xdist_report_matches_a_serial_run(sample_suite: pytest.Pytester) -> None:
    sample_suite.runpytest_subprocess("--gate=record", "-p", "no:cacheprovider")
    serial = read_report(sample_suite)
    result = sample_suite.runpytest_subprocess("--gate=record", "-n", "2", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    parallel = read_report(sample_suite)
    validate(parallel)
    assert parallel["counts"] == serial["counts"]
    assert parallel["incomplete"] is False
    assert parallel["invocation"]["workers"] == 2
    nodeids = [t["nodeid"] for t in parallel["tests"]]
    assert len(nodeids) == len(set(nodeids)) == 7
    assert {t["worker"] for t in parallel["tests"]} <= {"gw0", "gw1"}
    assert by_name(parallel)["test_fail"]["failure"]["line"] == 18
    assert by_name(parallel)["test_fail"]["markers"] == ["slowish"]


@pytest.mark.slow
def test_xdist_deselection_is_counted(sample_suite: pytest.Pytester) -> None:
    sample_suite.runpytest_subprocess(
        "--gate=record", "-n", "2", "-k", "pass", "-p", "no:cacheprovider"
    )
    counts = read_report(sample_suite)["counts"]
    assert (counts["collected"], counts["deselected"]) == (2, 5)

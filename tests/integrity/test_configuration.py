"""Configuration: each setting loosened so a problem stops counting is named; tightening passes."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest

from phasegate.model.review import ReviewRecord, ReviewStatus
from phasegate.store import Store
from tests.conftest import git

from .conftest import BASE_FILES, FIXED_CALC, TESTS, MakeChange

PYPROJECT = """\
[project]
name = "calc"
version = "0.1"

[tool.phasegate]
gate = "ci"
gate_paths = ["ci"]

[tool.coverage.run]
omit = ["src/calc/_version.py"]

[tool.coverage.report]
fail_under = 90
exclude_lines = ["if TYPE_CHECKING:"]

[tool.ruff.lint]
select = ["E", "F", "S"]
ignore = ["E501"]

[tool.mypy]
strict = true

[tool.bandit]
skips = ["B101"]

[tool.pytest.ini_options]
addopts = "-ra"
xfail_strict = true
"""

GATE = """\
name = "ci"

[checks.tests]

[checks.coverage]
fail_when = [{ metric = "line_rate", scope = "new", op = "<", value = 0.8 }]

[checks.security]
options = { severity = "medium" }
"""

BASELINE = {"schema_version": "1.0", "kind": "baseline", "entries": [{"count": 1}]}

FILES = {
    **BASE_FILES,
    "pyproject.toml": PYPROJECT,
    "ci/ci.toml": GATE,
    "phasegate-baseline.json": json.dumps(BASELINE),
}


def _pyproject(old: str, new: str) -> dict[str, str]:
    assert old in PYPROJECT
    return {"pyproject.toml": PYPROJECT.replace(old, new, 1)}


def _gate(old: str, new: str) -> dict[str, str]:
    assert old in GATE
    return {"ci/ci.toml": GATE.replace(old, new, 1)}


TRICKS = [
    (
        "coverage-omit",
        _pyproject('omit = ["src/calc/_version.py"]', 'omit = ["src/calc/_version.py", "src/*"]'),
        "pyproject.toml:10 coverage omit adds src/*: the omitted files' missing coverage no "
        "longer counts",
    ),
    (
        "coverage-exclude-lines",
        _pyproject(
            'exclude_lines = ["if TYPE_CHECKING:"]',
            'exclude_lines = ["if TYPE_CHECKING:", "def mean"]',
        ),
        "pyproject.toml:14 coverage report exclude_lines adds def mean",
    ),
    (
        "coverage-fail-under",
        _pyproject("fail_under = 90", "fail_under = 40"),
        "pyproject.toml:13 coverage fail_under lowered from 90 to 40: less coverage passes",
    ),
    (
        "ruff-ignore-security-rule",
        _pyproject('ignore = ["E501"]', 'ignore = ["E501", "S602"]'),
        "pyproject.toml:18 ruff ignore adds S602: the linter no longer reports them; S602 "
        "silence(s) rules the security check relies on",
    ),
    (
        "ruff-per-file-ignores",
        _pyproject(
            'ignore = ["E501"]', 'ignore = ["E501"]\nper-file-ignores = { "src/*" = ["F401"] }'
        ),
        "pyproject.toml:19 ruff per-file-ignores adds src/*:F401",
    ),
    (
        "ruff-select-shrunk",
        _pyproject('select = ["E", "F", "S"]', 'select = ["E", "F"]'),
        "pyproject.toml:17 ruff select drops S: the linter no longer checks them",
    ),
    (
        "mypy-ignore-errors-override",
        _pyproject(
            "strict = true\n",
            'strict = true\n\n[[tool.mypy.overrides]]\nmodule = "calc.*"\nignore_errors = true\n',
        ),
        "pyproject.toml:25 mypy ignore_errors = true added for calc.*: the type checker stops "
        "reporting errors",
    ),
    (
        "mypy-strict-off",
        _pyproject("strict = true\n", "strict = false\n"),
        "pyproject.toml:21 mypy strict turned off: the type checker checks less",
    ),
    (
        "bandit-skips",
        _pyproject('skips = ["B101"]', 'skips = ["B101", "B602"]'),
        "pyproject.toml:24 bandit skips adds B602: the security check no longer reports them",
    ),
    (
        "pytest-addopts-deselect",
        _pyproject('addopts = "-ra"', 'addopts = "-ra --deselect tests/test_calc.py::test_mean"'),
        "pyproject.toml:27 pytest addopts adds --deselect tests/test_calc.py::test_mean: tests "
        "or plugins are left out",
    ),
    (
        "pytest-addopts-plugin-loaded",
        _pyproject('addopts = "-ra"', 'addopts = "-ra -p calc.steady"'),
        "pyproject.toml:27 pytest addopts adds -p calc.steady: tests or plugins are left out, a "
        "plugin that can change outcomes is loaded",
    ),
    (
        "pytest-addopts-plugin-loaded-attached",
        _pyproject('addopts = "-ra"', 'addopts = "-ra -pcalc.steady"'),
        "pyproject.toml:27 pytest addopts adds -pcalc.steady",
    ),
    (
        "pytest-addopts-k",
        _pyproject('addopts = "-ra"', "addopts = \"-ra -k 'not mean'\""),
        "pyproject.toml:27 pytest addopts adds -k not mean",
    ),
    (
        "xfail-strict-off",
        _pyproject("xfail_strict = true", "xfail_strict = false"),
        "pyproject.toml:28 pytest xfail_strict turned off",
    ),
    (
        "gate-check-removed",
        _gate('[checks.security]\noptions = { severity = "medium" }\n', ""),
        "ci/ci.toml the security check removed from the gate: its problems no longer count",
    ),
    (
        "gate-condition-loosened",
        _gate("value = 0.8", "value = 0.2"),
        "ci/ci.toml:5 the coverage check's condition `line_rate < 0.8` on new code loosened to "
        "`line_rate < 0.2`: less fails",
    ),
    (
        "gate-severity-raised",
        _gate('severity = "medium"', 'severity = "critical"'),
        "ci/ci.toml:8 the security check's severity raised from medium to critical",
    ),
    (
        "gate-check-optional",
        _gate("[checks.tests]\n", "[checks.tests]\nrequired = false\n"),
        "ci/ci.toml:3 the tests check is no longer required (required = false)",
    ),
    (
        "override-required-false",
        _pyproject(
            'gate_paths = ["ci"]\n',
            'gate_paths = ["ci"]\n\n[tool.phasegate.checks.coverage]\nrequired = false\n',
        ),
        "pyproject.toml:9 [tool.phasegate.checks.coverage]: the coverage check is no longer "
        "required",
    ),
    (
        "override-default-condition-loosened",
        _pyproject(
            'gate_paths = ["ci"]\n',
            'gate_paths = ["ci"]\n\n[tool.phasegate.checks.integrity]\n'
            'fail_when = [{ metric = "tricks", op = ">", value = 5 }]\n',
        ),
        "pyproject.toml:9 [tool.phasegate.checks.integrity]: the integrity check's condition "
        "`tricks > 0` overall loosened to `tricks > 5`",
    ),
    (
        "mutation-sample-shrunk",
        _pyproject(
            'gate_paths = ["ci"]\n',
            'gate_paths = ["ci"]\n\n[tool.phasegate.checks.mutation]\n'
            "options = { budget = 1, seed = 7 }\n",
        ),
        "pyproject.toml:9 [tool.phasegate.checks.mutation]: the mutation check's budget 25 to 1, "
        "seed 0 to 7: fewer or other mutants are drawn",
    ),
    (
        "gate-switched",
        _pyproject('gate = "ci"', 'gate = "record"'),
        "pyproject.toml:6 [tool.phasegate] gate changed from 'ci' to 'record'",
    ),
    (
        "gate-paths-changed",
        _pyproject('gate_paths = ["ci"]', 'gate_paths = ["gates", "ci"]'),
        "pyproject.toml:7 [tool.phasegate] gate_paths changed from ['ci'] to ['gates', 'ci']: a "
        "gate's name may now ask for another gate file",
    ),
    (
        "pytest-collection-rule-narrowed",
        _pyproject('addopts = "-ra"', 'addopts = "-ra"\npython_functions = "test_t*"'),
        "pyproject.toml:28 pytest python_functions changed from 'test' to 'test_t*': tests may "
        "no longer be collected",
    ),
    (
        "ruff-reads-a-new-file",
        {"ruff.toml": "line-length = 100\n"},
        "ruff.toml ruff now reads its settings from ruff.toml, not pyproject.toml: the settings "
        "pyproject.toml holds for it are no longer read",
    ),
    (
        "ruff-configuration-below-the-root",
        {"src/calc/.ruff.toml": '[lint]\nignore = ["F401"]\n'},
        "src/calc/.ruff.toml a ruff configuration in src/calc/: ruff lints the files below it by "
        "these settings alone, not the root's",
    ),
    (
        "pytest-reads-a-new-file",
        {"pytest.ini": "[pytest]\n"},
        "pytest.ini pytest now reads its settings from pytest.ini, not pyproject.toml",
    ),
    (
        "pytest-reads-an-empty-pytest-toml",
        {"pytest.toml": ""},
        "pytest.toml pytest now reads its settings from pytest.toml, not pyproject.toml",
    ),
    (
        "pytest-reads-an-empty-hidden-pytest-toml-over-a-pytest-ini",
        {"pytest.ini": "[pytest]\naddopts = -ra\nxfail_strict = true\n", ".pytest.toml": ""},
        ".pytest.toml pytest now reads its settings from .pytest.toml, not pyproject.toml",
    ),
    (
        "phasegate-base",
        _pyproject('gate_paths = ["ci"]\n', 'gate_paths = ["ci"]\nbase = "HEAD"\n'),
        "pyproject.toml:8 [tool.phasegate] base set to 'HEAD': the change is judged against "
        "another commit",
    ),
    (
        "addopts-base",
        _pyproject('addopts = "-ra"', 'addopts = "-ra --base=HEAD"'),
        "pyproject.toml:27 pytest addopts adds --base HEAD: tests or plugins are left out, a "
        "plugin that can change outcomes is loaded, or the base the change is judged against is "
        "moved",
    ),
    (
        "phasegate-exclude",
        _pyproject('gate_paths = ["ci"]\n', 'gate_paths = ["ci"]\nexclude = ["src/calc/*"]\n'),
        "pyproject.toml:8 [tool.phasegate] exclude adds src/calc/*: every check leaves those "
        "files out",
    ),
    (
        "baseline-grown",
        {"phasegate-baseline.json": json.dumps({**BASELINE, "entries": [{"count": 3}]})},
        "phasegate-baseline.json the baseline accepts 2 more finding(s) than at the base (1 to "
        "3): a finding added to the baseline is hidden, not fixed",
    ),
]


@pytest.mark.parametrize(
    ("files", "expected"),
    [pytest.param(files, expected, id=case) for case, files, expected in TRICKS],
)
def test_each_loosened_setting_is_named(
    make_change: MakeChange, files: dict[str, str], expected: str
) -> None:
    sentences = make_change(FILES).write(files).sentences()
    assert len(sentences) == 1, sentences
    assert sentences[0].startswith(expected), sentences


def test_a_new_coveragerc_is_read_and_shadows_the_pyproject_tables(
    make_change: MakeChange,
) -> None:
    change = make_change(FILES).write({".coveragerc": "[report]\nexclude_also =\n    def mean\n"})
    assert change.sentences() == [
        ".coveragerc coverage now reads its settings from .coveragerc, not pyproject.toml: the "
        "settings pyproject.toml holds for it are no longer read",
        ".coveragerc:2 coverage report exclude_also adds def mean: the excluded lines' missing "
        "coverage no longer counts",
    ]


def test_a_new_gate_file_is_compared_with_the_built_in_gate_it_shadows(
    make_change: MakeChange,
) -> None:
    # The project's gate folders are searched first: `--gate=twelve-check` reads this file.
    shadow = 'name = "twelve-check"\n\n[checks.syntax]\n\n[checks.integrity]\n'
    sentences = make_change(FILES).write({"ci/twelve-check.toml": shadow}).sentences()
    assert (
        "ci/twelve-check.toml the tests check removed from the gate: its problems no longer "
        "count" in sentences
    )
    assert len(sentences) == 12, sentences  # 14 checks, 2 kept


def test_a_new_gate_file_is_compared_with_the_project_gate_it_shadows(
    make_change: MakeChange,
) -> None:
    change = make_change(FILES).write(
        {
            **_pyproject('gate_paths = ["ci"]', 'gate_paths = ["gates", "ci"]'),
            "gates/ci.toml": GATE.replace(
                '[checks.security]\noptions = { severity = "medium" }\n', ""
            ),
        }
    )
    assert change.sentences() == [
        "gates/ci.toml the security check removed from the gate: its problems no longer count",
        "pyproject.toml:7 [tool.phasegate] gate_paths changed from ['ci'] to ['gates', 'ci']: a "
        "gate's name may now ask for another gate file",
    ]


@pytest.mark.parametrize("folder", ["ci", "docs/examples"])
def test_a_new_gate_file_that_keeps_the_gate_it_shadows_or_shadows_none_is_honest(
    make_change: MakeChange, folder: str
) -> None:
    from phasegate.resources import bundled_path

    built_in = (bundled_path("gates") / "twelve-check.toml").read_text(encoding="utf-8")
    stricter = built_in.replace("value = 0.8 }", "value = 0.9 }")
    assert stricter != built_in
    change = make_change(FILES).write({f"{folder}/twelve-check.toml": stricter})
    assert change.sentences() == []
    if folder != "ci":  # outside gate_paths it shadows nothing, however loose
        change.write({f"{folder}/default.toml": 'name = "default"\n\n[checks.syntax]\n'})
        assert change.sentences() == []


def test_files_the_change_itself_excludes_are_still_judged(make_change: MakeChange) -> None:
    import dataclasses

    from phasegate.gates.checks.integrity import IntegrityCheck, IntegrityOptions

    excluding = 'gate_paths = ["ci"]\nexclude = ["pyproject.toml", "tests/*"]\n'
    change = make_change(FILES).write(
        {
            **_pyproject('gate_paths = ["ci"]\n', excluding),
            "tests/test_calc.py": TESTS.replace(
                "def test_mean", "@pytest.mark.skip\ndef test_mean"
            ),
        }
    )
    context = change.context()
    # The project's settings are the work tree's: they exclude what the change wants unseen.
    context.project = dataclasses.replace(
        context.project, exclude_patterns=("pyproject.toml", "tests/*")
    )
    found = IntegrityCheck().measure(context, IntegrityOptions()).findings
    assert sorted(f"{f.path} {f.rule}" for f in found) == [
        "pyproject.toml gate-loosened",
        "tests/test_calc.py newly-skipped",
    ]


HONEST = [
    pytest.param(
        _pyproject(
            'gate_paths = ["ci"]\n',
            'gate_paths = ["ci"]\n\n[tool.phasegate.checks.mutation]\n'
            "options = { budget = 40, per_line = 3, workers = 1 }\n",
        ),
        id="more-mutants-drawn",
    ),
    pytest.param({"src/calc/__init__.py": FIXED_CALC}, id="the-real-fix"),
    pytest.param(
        {
            **_pyproject('[tool.ruff.lint]\nselect = ["E", "F", "S"]\nignore = ["E501"]\n', ""),
            "ruff.toml": '[lint]\nselect = ["E", "F", "S"]\nignore = ["E501"]\n',
        },
        id="ruff-settings-moved-whole-to-ruff-toml",
    ),
    pytest.param(
        _pyproject(
            'addopts = "-ra"',
            'addopts = "-ra"\npython_files = ["test_*.py", "*_test.py", "check_*.py"]',
        ),
        id="more-test-files-collected",
    ),
    pytest.param(
        {
            **_pyproject("fail_under = 90", "fail_under = 95"),
            **_gate("value = 0.8", "value = 0.9"),
        },
        id="thresholds-raised",
    ),
    pytest.param(
        _pyproject('select = ["E", "F", "S"]', 'select = ["E", "F", "S", "B"]'),
        id="more-rules-selected",
    ),
    pytest.param(
        {
            **_pyproject('[tool.bandit]\nskips = ["B101"]\n', ""),
            ".bandit": "[bandit]\nskips = B101\n",
        },
        id="a-setting-moved-to-another-file",
    ),
    pytest.param(
        {"phasegate-baseline.json": json.dumps({**BASELINE, "entries": []})},
        id="baseline-shrunk",
    ),
    pytest.param(
        {
            "setup.cfg": "[mypy]\nwarn_unused_configs = True\n",
        },
        id="a-mypy-flag-added",
    ),
]


NESTED_RUFF = '[lint]\nselect = ["E", "F"]\nignore = ["E501"]\n'


def test_an_edit_to_a_nested_ruff_configuration_is_compared(make_change: MakeChange) -> None:
    base = {**FILES, "tests/data/proj/pyproject.toml": "[tool.ruff]\nline-length = 100\n"}
    base["src/calc/.ruff.toml"] = NESTED_RUFF
    tightened = make_change(base).write(
        {
            "src/calc/.ruff.toml": NESTED_RUFF.replace('"F"]', '"F", "B"]'),
            "tests/data/proj/pyproject.toml": "[tool.ruff]\nline-length = 88\n",
        }
    )
    assert tightened.sentences() == []
    loosened = tightened.commit().write(
        {"src/calc/.ruff.toml": NESTED_RUFF.replace('["E501"]', '["E501", "F401"]')}
    )
    assert [s.split(": ")[0] for s in loosened.sentences()] == [
        "src/calc/.ruff.toml:3 ruff ignore adds F401"
    ]


#: pytest 9's native table: not ``[tool.pytest.ini_options]``, still pytest's settings.
NATIVE = PYPROJECT.replace("[tool.pytest.ini_options]", "[tool.pytest]")


def test_an_empty_pytest_ini_over_pytest_9_s_native_table_is_caught(
    make_change: MakeChange,
) -> None:
    change = make_change({**FILES, "pyproject.toml": NATIVE}).write({"pytest.ini": ""})
    assert change.sentences() == [
        "pytest.ini pytest now reads its settings from pytest.ini, not pyproject.toml: the "
        "settings pyproject.toml holds for it are no longer read"
    ]


def test_pytest_settings_moved_whole_to_pytest_toml_pass(make_change: MakeChange) -> None:
    moved = PYPROJECT.replace(
        '[tool.pytest.ini_options]\naddopts = "-ra"\nxfail_strict = true\n', ""
    )
    assert moved != PYPROJECT
    change = make_change(FILES).write(
        {"pyproject.toml": moved, "pytest.toml": '[pytest]\naddopts = "-ra"\nxfail_strict = true\n'}
    )
    assert change.sentences() == []


@pytest.mark.parametrize("files", HONEST)
def test_tightening_and_moving_settings_pass(
    make_change: MakeChange, files: dict[str, str]
) -> None:
    assert make_change(FILES).write(files).sentences() == []


def _approve(change_root: object, status: ReviewStatus) -> None:
    from pathlib import Path

    root = Path(str(change_root))
    review = ReviewRecord(
        subject="change",
        commit=git(root, "rev-parse", "HEAD"),
        reviewer="Robin",
        status=status,
        recorded_at=datetime.now(timezone.utc),
    )
    store = Store(root / ".phasegate")
    store.ensure_writable()  # as a gate run does: its .gitignore keeps the reviews uncommitted
    store.append_jsonl("reviews.jsonl", review)


def test_strict_replacing_its_flags_loosens_nothing(make_change: MakeChange) -> None:
    flags = "[mypy]\ndisallow_untyped_defs = True\nwarn_return_any = True\n"
    change = make_change({**FILES, "setup.cfg": flags}).write({"setup.cfg": None})
    assert change.sentences() == []  # pyproject.toml keeps `strict = true`
    change.write(_pyproject("strict = true\n", ""))
    assert change.sentences() == [
        "pyproject.toml mypy strict removed: the type checker checks less",
        "setup.cfg mypy disallow_untyped_defs, warn_return_any removed: the type checker checks "
        "less",
    ]


def test_a_gate_change_is_allowed_by_an_approved_review_of_its_commit(
    make_change: MakeChange,
) -> None:
    change = make_change(FILES).write(_gate("value = 0.8", "value = 0.2")).commit()
    _approve(change.root, ReviewStatus.CHANGES_REQUESTED)
    assert len(change.sentences()) == 1
    _approve(change.root, ReviewStatus.APPROVED)
    measurement = change.measure()
    assert measurement.findings == []
    assert "1 change(s) to the gate allowed by Robin's approving review" in measurement.summary
    # The review allows gate changes only, and only when the policy says so.
    assert len(change.measure(approved_review_allows="nothing").findings) == 1
    change.write(_pyproject("fail_under = 90", "fail_under = 40")).commit()
    _approve(change.root, ReviewStatus.APPROVED)
    (sentence,) = change.sentences()
    assert "coverage fail_under lowered" in sentence
    assert change.sentences(approved_review_allows="configuration") == []


def test_a_baseline_that_is_not_one_is_an_error(make_change: MakeChange) -> None:
    from phasegate.gates.protocol import CheckError

    change = make_change(FILES).write({"phasegate-baseline.json": "[1, 2"})
    with pytest.raises(CheckError, match=r"phasegate-baseline\.json is not JSON"):
        change.measure()


def test_a_shadowing_gate_without_integrity_is_judged_by_it_all_the_same(
    make_change: MakeChange,
) -> None:
    from phasegate.config import load_config
    from phasegate.extensions import make_plugin_manager
    from phasegate.gates.runner_factory import make_runner

    change = make_change({k: v for k, v in FILES.items() if k != "phasegate-baseline.json"})
    # The change's own twelve-check keeps one check and leaves integrity out.
    change.write({"ci/twelve-check.toml": 'name = "twelve-check"\n\n[checks.syntax]\n'}).commit()
    loaded = load_config(change.root)
    runner = make_runner(
        loaded,
        Store(loaded.artifacts_path),
        make_plugin_manager([]),
        "twelve-check",
        base="main",
        environment={},
    )
    assert sorted(runner.gate.checks) == ["integrity", "syntax"]
    verdict = runner.finish(None)
    integrity = next(check for check in verdict.checks if check.id == "integrity")
    assert integrity.status == "failed"
    assert "ci/twelve-check.toml the tests check removed from the gate" in integrity.reasoning
    assert verdict.verdict == "insufficient"


@pytest.mark.parametrize(
    "exclude",
    [
        'extend-exclude = ["tests/data"]',
        'exclude = ["data"]',
        'extend-exclude = ["tests/*"]',
        'extend-exclude = ["./tests/data/"]',
    ],
)
def test_a_ruff_configuration_in_a_folder_ruff_excludes_is_not_read(
    make_change: MakeChange, exclude: str
) -> None:
    """Review s17r: a fixture project's pyproject.toml with its own ``[tool.ruff]``, in a
    folder the root's ruff settings exclude, was reported; ruff never lints below it."""
    root = PYPROJECT.replace("[tool.ruff.lint]", f"[tool.ruff]\n{exclude}\n\n[tool.ruff.lint]")
    fixture = '[project]\nname = "sample"\n\n[tool.ruff.lint]\nignore = ["F401"]\n'
    change = make_change({**FILES, "pyproject.toml": root}).write(
        {"tests/data/sample/pyproject.toml": fixture, "tests/data/sample/sample.py": "import os\n"}
    )
    assert change.sentences() == []


def test_a_ruff_configuration_beside_an_excluded_folder_is_still_read(
    make_change: MakeChange,
) -> None:
    root = PYPROJECT.replace(
        "[tool.ruff.lint]", '[tool.ruff]\nextend-exclude = ["tests/data"]\n\n[tool.ruff.lint]'
    )
    change = make_change({**FILES, "pyproject.toml": root}).write(
        {"tests/database/.ruff.toml": '[lint]\nignore = ["F401"]\n'}
    )
    assert [s.split(":")[0] for s in change.sentences()] == [
        "tests/database/.ruff.toml a ruff configuration in tests/database/"
    ]


@pytest.mark.parametrize(
    ("addopts", "expected"),
    [
        (
            'addopts = "-ra -o xfail_strict=false"',
            "pytest xfail_strict turned off",
        ),
        (
            "addopts = \"-ra --override-ini='python_functions=check_*'\"",
            "pytest python_functions changed from 'test' to 'check_*'",
        ),
        (
            'addopts = ["-ra", "-o", "testpaths=tests/other"]',
            "pytest testpaths drops tests",
        ),
    ],
)
def test_a_key_overridden_in_addopts_is_judged_as_the_key(
    make_change: MakeChange, addopts: str, expected: str
) -> None:
    """Review s17d, finding 5: ``-o``/``--override-ini`` in ``addopts`` changed a key the
    configuration rules compare without the key."""
    files = {
        "pyproject.toml": PYPROJECT.replace(
            'addopts = "-ra"', 'addopts = "-ra"\ntestpaths = ["tests"]'
        )
    }
    change = make_change({**FILES, **files}).write(
        {"pyproject.toml": files["pyproject.toml"].replace('addopts = "-ra"', addopts)}
    )
    sentences = change.sentences()
    assert len(sentences) == 1, sentences
    assert sentences[0].split(" ", 1)[1].startswith(expected), sentences


@pytest.mark.parametrize(
    "addopts",
    [
        'addopts = "-ra -o console_output_style=classic"',
        'addopts = "-ra -o xfail_strict=true --override-ini=python_functions=test"',
    ],
)
def test_an_override_that_loosens_nothing_is_not_reported(
    make_change: MakeChange, addopts: str
) -> None:
    change = make_change(FILES).write(
        {"pyproject.toml": PYPROJECT.replace('addopts = "-ra"', addopts)}
    )
    assert change.sentences() == []

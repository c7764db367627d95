"""Test evidence: each way a change hides a failing test is caught and named; real fixes pass."""

from __future__ import annotations

import sys
import textwrap

import pytest

from .conftest import CALC, FIXED_CALC, TESTS, MakeChange

#: A hook that takes the failing test out of the run.
DESELECTS = (
    "def pytest_collection_modifyitems(config, items):\n"
    "    items[:] = [item for item in items if item.name != 'test_mean']\n"
)

#: (case, the change's files, the one sentence expected). The base's test_mean fails.
ESCAPED = "keeps an assertion that never runs or whose failure is dropped"

TRICKS = [
    (
        "skip-mark",
        {"tests/test_calc.py": TESTS.replace("def test_mean", "@pytest.mark.skip\ndef test_mean")},
        "tests/test_calc.py:6 test_mean newly skipped (@pytest.mark.skip): a skipped failing "
        "test is not a fix",
    ),
    (
        "skipif-mark",
        {
            "tests/test_calc.py": TESTS.replace(
                "def test_mean", "@pytest.mark.skipif(True, reason='flaky')\ndef test_mean"
            )
        },
        "tests/test_calc.py:6 test_mean newly skipped (@pytest.mark.skipif)",
    ),
    (
        "xfail-mark",
        {"tests/test_calc.py": TESTS.replace("def test_mean", "@pytest.mark.xfail\ndef test_mean")},
        "tests/test_calc.py:6 test_mean newly marked as an expected failure "
        "(@pytest.mark.xfail, not strict)",
    ),
    (
        "skip-call",
        {
            "tests/test_calc.py": TESTS.replace(
                "def test_mean():\n", "def test_mean():\n    pytest.skip('later')\n"
            )
        },
        "tests/test_calc.py:7 test_mean newly skipped (pytest.skip())",
    ),
    (
        "importorskip",
        {
            "tests/test_calc.py": TESTS.replace(
                "from calc import", "numpy = pytest.importorskip('numpy')\nfrom calc import"
            )
        },
        "tests/test_calc.py:3 tests of this module newly skipped when an import fails "
        "(pytest.importorskip())",
    ),
    (
        "pytestmark",
        {
            "tests/test_calc.py": TESTS.replace(
                "from calc import", "pytestmark = pytest.mark.skip\nfrom calc import"
            )
        },
        "tests/test_calc.py:3 tests of this module newly skipped (pytestmark = pytest.mark.skip)",
    ),
    (
        "skip-in-fixture",
        {
            "tests/conftest.py": "import pytest\n\n\n@pytest.fixture(autouse=True)\n"
            "def later():\n    pytest.skip('later')\n"
        },
        "tests/conftest.py:6 tests of this module newly skipped (pytest.skip())",
    ),
    (
        "test-deleted",
        {
            "tests/test_calc.py": TESTS.replace(
                "def test_mean():\n    assert mean([1, 2, 3]) == 2\n", ""
            )
        },
        "tests/test_calc.py test_mean deleted (line 6 at the base) while the code it tests "
        "remains: a deleted test proves nothing",
    ),
    (
        "test-file-deleted",
        {"tests/test_calc.py": None},
        "tests/test_calc.py tests/test_calc.py deleted with 2 test(s) while the code they test "
        "remains: a deleted test proves nothing",
    ),
    (
        "renamed-edited-and-skipped",
        {
            "tests/test_calc.py": TESTS.replace(
                "def test_mean():\n    assert mean([1, 2, 3]) == 2",
                "@pytest.mark.skip\ndef test_average():\n    assert mean([1, 2, 3, 4]) == 2.5",
            )
        },
        "tests/test_calc.py:6 test_average newly skipped (@pytest.mark.skip)",
    ),
    (
        "renamed-out-of-collection",
        {"tests/test_calc.py": TESTS.replace("def test_mean", "def check_mean")},
        "tests/test_calc.py:6 test_mean is no longer collected: its code is now check_mean",
    ),
    (
        "file-renamed-out-of-collection",
        {"tests/test_calc.py": None, "tests/calc_checks.py": TESTS},
        "tests/calc_checks.py:6 2 test(s) (test_mean, test_total) are no longer collected: they "
        "moved to tests/calc_checks.py, a file pytest does not collect",
    ),
    (
        "dunder-test-false",
        {"tests/test_calc.py": TESTS + "\n\ntest_mean.__test__ = False\n"},
        "tests/test_calc.py:6 test_mean is no longer collected",
    ),
    (
        "assert-true",
        {"tests/test_calc.py": TESTS.replace("assert mean([1, 2, 3]) == 2", "assert True")},
        "tests/test_calc.py:7 test_mean asserts a constant: an assertion that cannot fail "
        "proves nothing",
    ),
    (
        "assertion-removed",
        {"tests/test_calc.py": TESTS.replace("assert mean([1, 2, 3]) == 2", "mean([1, 2, 3])")},
        "tests/test_calc.py:6 test_mean lost 1 of its 1 assertion(s)",
    ),
    (
        "assertion-swallowed",
        {
            "tests/test_calc.py": TESTS.replace(
                "    assert mean([1, 2, 3]) == 2\n",
                "    try:\n        assert mean([1, 2, 3]) == 2\n    except AssertionError:\n"
                "        pass\n",
            )
        },
        "tests/test_calc.py:8 test_mean catches its own AssertionError: the assertion cannot fail",
    ),
    (
        "early-return",
        {
            "tests/test_calc.py": TESTS.replace(
                "def test_mean():\n", "def test_mean():\n    return\n"
            )
        },
        "tests/test_calc.py:7 test_mean returns before its assertions: they never run",
    ),
    (
        "monkeypatched-subject",
        {
            "tests/test_calc.py": TESTS.replace(
                "def test_mean():\n",
                "def test_mean(monkeypatch):\n"
                "    monkeypatch.setattr('calc.mean', lambda values: 2)\n",
            )
            .replace("from calc import mean, total", "import calc\nfrom calc import total")
            .replace("assert mean(", "assert calc.mean(")
        },
        "tests/test_calc.py:8 test_mean monkeypatches mean, the function it tests",
    ),
    (
        "collection-hook",
        {
            "conftest.py": "def pytest_collection_modifyitems(config, items):\n"
            "    items[:] = [i for i in items if 'mean' not in i.name]\n"
        },
        "conftest.py:1 pytest_collection_modifyitems added in conftest.py: it can take tests "
        "out of the run",
    ),
    (
        "collect-ignore",
        {"tests/conftest.py": "collect_ignore = ['test_calc.py']\n"},
        "tests/conftest.py:1 collect_ignore added in conftest.py",
    ),
    (
        "or-true",
        {"tests/test_calc.py": TESTS.replace("== 2\n", "== 2 or True\n")},
        "tests/test_calc.py:7 test_mean asserts a constant: an assertion that cannot fail",
    ),
    (
        "assert-under-if-false",
        {
            "tests/test_calc.py": TESTS.replace(
                "    assert mean(", "    if False:\n        assert mean("
            )
        },
        f"tests/test_calc.py:8 test_mean {ESCAPED}",
    ),
    (
        "assert-in-the-else-of-if-true",
        {
            "tests/test_calc.py": TESTS.replace(
                "    assert mean(", "    if True:\n        pass\n    else:\n        assert mean("
            )
        },
        f"tests/test_calc.py:10 test_mean {ESCAPED}",
    ),
    (
        "assert-in-raises-assertion-error",
        {
            "tests/test_calc.py": TESTS.replace(
                "    assert mean(", "    with pytest.raises(AssertionError):\n        assert mean("
            )
        },
        f"tests/test_calc.py:8 test_mean {ESCAPED}",
    ),
    (
        "assert-in-suppress",
        {
            "tests/test_calc.py": TESTS.replace(
                "    assert mean(", "    with contextlib.suppress(Exception):\n        assert mean("
            ).replace("import pytest\n", "import contextlib\n\nimport pytest\n")
        },
        f"tests/test_calc.py:10 test_mean {ESCAPED}",
    ),
    (
        "assert-before-finally-return",
        {
            "tests/test_calc.py": TESTS.replace(
                "    assert mean([1, 2, 3]) == 2\n",
                "    try:\n        assert mean([1, 2, 3]) == 2\n    finally:\n        return\n",
            )
        },
        f"tests/test_calc.py:8 test_mean {ESCAPED}",
    ),
    (
        "outcome-hook-swallows-the-exception",
        {
            "tests/conftest.py": "import pytest\n\n\n@pytest.hookimpl(hookwrapper=True)\n"
            "def pytest_pyfunc_call(pyfuncitem):\n"
            "    outcome = yield\n    outcome.force_result(True)\n"
        },
        "tests/conftest.py:5 pytest_pyfunc_call added in conftest.py: it can change the outcome "
        "a test is reported with",
    ),
    (
        "outcome-hook-under-another-name",
        {
            "conftest.py": "import pytest\n\n\n"
            "@pytest.hookimpl(hookwrapper=True, specname='pytest_runtest_makereport')\n"
            "def steadier(item, call):\n"
            "    report = (yield).get_result()\n    report.outcome = 'passed'\n"
        },
        "conftest.py:5 pytest_runtest_makereport added in conftest.py: it can change the outcome",
    ),
    (
        "code-replaced-in-conftest",
        {
            "tests/conftest.py": "import calc\nfrom calc import stats as numbers\n\n"
            "calc.mean = lambda values: sum(values) / len(values)\n"
        },
        "tests/conftest.py:4 calc.mean replaced in conftest.py (added): every test runs the "
        "replacement, not the project's code",
    ),
    (
        "module-replaced-in-conftest",
        {
            "tests/conftest.py": "import sys\nimport types\n\n"
            "sys.modules['calc'] = types.SimpleNamespace(mean=lambda v: 2, total=sum)\n"
        },
        "tests/conftest.py:4 sys.modules['calc'] replaced in conftest.py (added): every test runs "
        "the replacement, not the project's code",
    ),
    # Review of the session diff, finding 8: replacements under a compound statement, or
    # through another spelling of sys.modules.
    (
        "module-replaced-under-an-if",
        {
            "tests/conftest.py": "import sys\nimport types\n\nif True:\n"
            "    sys.modules['calc'] = types.SimpleNamespace(mean=lambda v: 2, total=sum)\n"
        },
        "tests/conftest.py:5 sys.modules['calc'] replaced in conftest.py (added)",
    ),
    (
        "code-replaced-under-a-try",
        {
            "tests/conftest.py": "import calc\n\ntry:\n    calc.mean = lambda values: 2\n"
            "except AttributeError:\n    pass\n"
        },
        "tests/conftest.py:4 calc.mean replaced in conftest.py (added)",
    ),
    (
        "module-replaced-through-modules-imported-from-sys",
        {
            "tests/conftest.py": "import types\nfrom sys import modules\n\n"
            "modules['calc'] = types.SimpleNamespace(mean=lambda v: 2, total=sum)\n"
        },
        "tests/conftest.py:4 sys.modules['calc'] replaced in conftest.py (added)",
    ),
    (
        "module-replaced-through-sys-imported-as-another-name",
        {
            "tests/conftest.py": "import sys as s\nimport types\n\n"
            "s.modules['calc.stats'] = types.SimpleNamespace()\n"
        },
        "tests/conftest.py:4 sys.modules['calc.stats'] replaced in conftest.py (added)",
    ),
    (
        "package-copied-beside-the-tests",
        {"tests/calc/__init__.py": FIXED_CALC},
        "tests/calc/__init__.py a copy of calc added outside src/calc: tests that import calc "
        "from beside it run the copy, not the project's code",
    ),
    # Review s16r, finding 32: the failing test's input special-cased in the code.
    (
        "input-special-cased",
        {
            "src/calc/__init__.py": CALC.replace(
                "    return sum(values) / (len",
                "    if values == [1, 2, 3]:\n        return 2\n    return sum(values) / (len",
            )
        },
        "src/calc/__init__.py:6 compares with [1, 2, 3], the input of tests/test_calc.py:7, in a "
        "test calling mean: a result for a test's data is not a fix",
    ),
    (
        "plugins-loaded",
        {"tests/conftest.py": "pytest_plugins = ['tests.steady']\n"},
        "tests/conftest.py:1 pytest_plugins added in conftest.py: it can change the outcome",
    ),
    # Review s16r: an empty parameter set skips; a fixture can mark the test as a decorator.
    (
        "parametrized-with-no-values",
        {
            "tests/test_calc.py": TESTS.replace(
                "def test_mean():", "@pytest.mark.parametrize('case', [])\ndef test_mean(case):"
            )
        },
        "tests/test_calc.py:6 test_mean newly skipped (@pytest.mark.parametrize with no values)",
    ),
    (
        "fixture-applies-an-xfail-mark",
        {
            "tests/conftest.py": "import pytest\n\n\n@pytest.fixture(autouse=True)\n"
            "def _steady(request):\n    if request.node.name == 'test_mean':\n"
            "        request.applymarker(pytest.mark.xfail(run=False))\n"
        },
        "tests/conftest.py:7 tests of this module newly marked as an expected failure "
        "(@pytest.mark.xfail, not strict)",
    ),
    (
        "fixture-adds-an-xfail-mark-by-name",
        {
            "tests/conftest.py": "import pytest\n\n\n@pytest.fixture(autouse=True)\n"
            "def _steady(request):\n    request.node.add_marker('xfail')\n"
        },
        "tests/conftest.py:6 tests of this module newly marked as an expected failure "
        "(request.node.add_marker('xfail'), not strict)",
    ),
    (
        "fixture-adds-a-skip-mark-by-name",
        {
            "tests/conftest.py": "import pytest\n\n\n@pytest.fixture(autouse=True)\n"
            "def _steady(request):\n    request.applymarker('skipif')\n"
        },
        "tests/conftest.py:6 tests of this module newly skipped (request.applymarker('skipif'))",
    ),
    # Review s16r: a hook bound otherwise than by a top-level def, and pytest_configure.
    (
        "hook-imported",
        {
            "tests/steady.py": DESELECTS,
            "tests/conftest.py": "from steady import pytest_collection_modifyitems\n",
        },
        "tests/conftest.py:1 pytest_collection_modifyitems added in conftest.py: it can take "
        "tests out of the run",
    ),
    (
        "hooks-star-imported",
        {"tests/steady.py": DESELECTS, "tests/conftest.py": "from steady import *\n"},
        "tests/conftest.py:1 pytest_collection_modifyitems added in conftest.py: it can take "
        "tests out of the run",
    ),
    (
        "hooks-star-imported-relatively",
        {"tests/steady.py": DESELECTS, "tests/conftest.py": "from .steady import *\n"},
        "tests/conftest.py:1 pytest_collection_modifyitems added in conftest.py",
    ),
    (
        "hooks-star-imported-from-a-module-not-in-the-project",
        {"tests/conftest.py": "from steady_plugin import *\n"},
        "tests/conftest.py:1 from steady_plugin import * added in conftest.py",
    ),
    (
        "hook-assigned",
        {
            "tests/steady.py": DESELECTS.replace("pytest_collection_modifyitems", "deselect"),
            "tests/conftest.py": "import steady\n\n"
            "pytest_collection_modifyitems = steady.deselect\n",
        },
        "tests/conftest.py:3 pytest_collection_modifyitems added in conftest.py",
    ),
    (
        "hook-under-an-if",
        {
            "tests/conftest.py": "import sys\n\nif sys.platform:\n"
            + textwrap.indent(DESELECTS, "    ")
        },
        "tests/conftest.py:4 pytest_collection_modifyitems added in conftest.py",
    ),
    (
        "configure-deselects",
        {
            "tests/conftest.py": "def pytest_configure(config):\n"
            "    config.option.keyword = 'not mean'\n"
        },
        "tests/conftest.py:1 pytest_configure added in conftest.py",
    ),
    (
        "configure-registers-a-plugin",
        {
            "tests/conftest.py": "import steady\n\n\ndef pytest_configure(config):\n"
            "    config.pluginmanager.register(steady.Steady())\n"
        },
        "tests/conftest.py:4 pytest_configure added in conftest.py",
    ),
    # Review of the session diff, finding 2: hooks that still changed outcomes unreported.
    (
        "addoption-registers-a-plugin",
        {
            "tests/conftest.py": "import steady\n\n\ndef pytest_addoption(parser, pluginmanager):\n"
            "    pluginmanager.register(steady.Steady())\n"
        },
        "tests/conftest.py:4 pytest_addoption added in conftest.py",
    ),
    (
        "report-header-deselects",
        {
            "tests/conftest.py": "def pytest_report_header(config):\n"
            "    config.option.keyword = 'not mean'\n"
        },
        "tests/conftest.py:1 pytest_report_header added in conftest.py",
    ),
    (
        "configure-hands-config-to-a-helper",
        {
            "tests/conftest.py": "import steady\n\n\ndef pytest_configure(config):\n"
            "    steady.setup(config)\n"
        },
        "tests/conftest.py:4 pytest_configure added in conftest.py",
    ),
    (
        "hook-in-a-tuple-assignment",
        {
            "tests/conftest.py": "import steady\n\n"
            "pytest_collection_modifyitems, other = steady.deselect, 1\n"
        },
        "tests/conftest.py:3 pytest_collection_modifyitems added in conftest.py",
    ),
    (
        "hook-in-an-annotated-assignment",
        {
            "tests/conftest.py": "import steady\n\n"
            "pytest_collection_modifyitems: object = steady.deselect\n"
        },
        "tests/conftest.py:3 pytest_collection_modifyitems added in conftest.py",
    ),
    (
        "hook-as-a-for-target",
        {
            "tests/conftest.py": "import steady\n\n"
            "for pytest_collection_modifyitems in [steady.deselect]:\n    pass\n"
        },
        "tests/conftest.py:3 pytest_collection_modifyitems added in conftest.py",
    ),
    (
        "sessionstart-deselects",
        {
            "tests/conftest.py": "def pytest_sessionstart(session):\n"
            "    session.config.option.keyword = 'not mean'\n"
        },
        "tests/conftest.py:1 pytest_sessionstart added in conftest.py",
    ),
]


@pytest.mark.parametrize(
    ("files", "expected"),
    [pytest.param(files, expected, id=case) for case, files, expected in TRICKS],
)
def test_each_trick_is_caught_once_and_named(
    make_change: MakeChange, files: dict[str, str | None], expected: str
) -> None:
    change = make_change().write(files)
    sentences = change.sentences()
    assert len(sentences) == 1, sentences
    assert sentences[0].startswith(expected), sentences


@pytest.mark.skipif(sys.version_info < (3, 11), reason="except* is Python 3.11's")
def test_an_assertion_caught_by_except_star_is_caught(make_change: MakeChange) -> None:
    star = (
        "    try:\n        assert mean([1, 2, 3]) == 2\n    except* AssertionError:\n        pass\n"
    )
    change = make_change().write(
        {"tests/test_calc.py": TESTS.replace("    assert mean([1, 2, 3]) == 2\n", star)}
    )
    assert change.sentences() == [
        "tests/test_calc.py:8 test_mean catches its own AssertionError: the assertion cannot fail"
    ]


RAISES_BASE = (
    TESTS
    + """

def test_empty():
    with pytest.raises(ZeroDivisionError):
        mean([])


def test_close():
    assert mean([0.1, 0.2]) == pytest.approx(0.15, rel=1e-9)
"""
)


def test_a_broader_raises_is_caught(make_change: MakeChange) -> None:
    change = make_change({**_base(), "tests/test_calc.py": RAISES_BASE}).write(
        {
            "tests/test_calc.py": RAISES_BASE.replace(
                "raises(ZeroDivisionError)", "raises(Exception)"
            )
        }
    )
    assert change.sentences() == [
        "tests/test_calc.py:15 test_empty now expects any Exception: any error passes, not only "
        "the one the code should raise"
    ]


def test_a_wider_approx_is_caught(make_change: MakeChange) -> None:
    change = make_change({**_base(), "tests/test_calc.py": RAISES_BASE}).write(
        {"tests/test_calc.py": RAISES_BASE.replace("rel=1e-9", "rel=0.5")}
    )
    assert change.sentences() == [
        "tests/test_calc.py:20 test_close widened the pytest.approx tolerance (rel 1e-09 to "
        "0.5): a wrong result close enough passes"
    ]


def test_a_new_approx_wider_than_its_default_is_caught(make_change: MakeChange) -> None:
    """Review finding 7's rest: the exact ``== 2`` turned into ``pytest.approx(2, abs=1)``."""
    change = make_change().write(
        {"tests/test_calc.py": TESTS.replace("== 2\n", "== pytest.approx(2, abs=1)\n")}
    )
    assert change.sentences() == [
        "tests/test_calc.py:7 test_mean widened the pytest.approx tolerance (abs 1e-12 to 1): a "
        "wrong result close enough passes"
    ]


@pytest.mark.parametrize(
    ("exact", "approx"),
    [("2", "pytest.approx(2.0, abs=1)"), ("-2", "pytest.approx(-2, abs=1)")],
    ids=["int-to-float", "negative"],
)
def test_a_new_approx_of_the_same_value_spelled_otherwise_is_caught(
    make_change: MakeChange, exact: str, approx: str
) -> None:
    """Review of the session diff, finding 7: ``2`` and ``2.0`` are one value; ``-2`` a literal."""
    base = TESTS.replace("mean([1, 2, 3]) == 2", f"mean([1, 2, 3]) * {exact} / 2 == {exact}")
    assert base != TESTS
    change = make_change({**_base(), "tests/test_calc.py": base}).write(
        {"tests/test_calc.py": base.replace(f"== {exact}\n", f"== {approx}\n")}
    )
    assert [s.split(" (")[0] for s in change.sentences()] == [
        "tests/test_calc.py:7 test_mean widened the pytest.approx tolerance"
    ]


def test_a_new_approx_of_default_tolerance_of_a_float_spelling_is_no_trick(
    make_change: MakeChange,
) -> None:
    change = make_change().write(
        {"tests/test_calc.py": TESTS.replace("== 2\n", "== pytest.approx(2.0)\n")}
    )
    assert change.sentences() == []


def test_an_expression_compared_with_itself_is_caught(make_change: MakeChange) -> None:
    """Review finding 7's rest: the expected value replaced by the call under test."""
    change = make_change().write(
        {"tests/test_calc.py": TESTS.replace("== 2\n", "== mean([1, 2, 3])\n")}
    )
    assert change.sentences() == [
        "tests/test_calc.py:7 test_mean now compares an expression with itself "
        "(mean([1, 2, 3]) == mean([1, 2, 3])): it passes whatever the code returns"
    ]


def test_the_real_fix_weakens_nothing(make_change: MakeChange) -> None:
    change = make_change().write({"src/calc/__init__.py": FIXED_CALC}).commit()
    measurement = change.measure()
    assert measurement.findings == []
    assert measurement.metrics["tricks"] == 0
    assert "weakens none of the evidence" in measurement.summary


HONEST = [
    pytest.param(
        {
            "src/calc/__init__.py": FIXED_CALC,
            "tests/test_calc.py": TESTS.replace("def test_mean", "def test_average"),
        },
        id="test-renamed-to-a-collected-name",
    ),
    pytest.param(
        {
            "src/calc/__init__.py": FIXED_CALC,
            "tests/test_calc.py": TESTS.replace(
                "def test_mean():\n    assert mean([1, 2, 3]) == 2",
                "def test_mean_of_four():\n    assert mean([1, 2, 3, 4]) == 2.5",
            ),
        },
        id="test-renamed-and-edited",
    ),
    pytest.param(
        {
            "src/calc/__init__.py": FIXED_CALC,
            "tests/test_calc.py": TESTS.replace(
                "def test_mean():\n    assert mean([1, 2, 3]) == 2\n", ""
            ),
            "tests/test_mean.py": "from calc import mean\n\n\ndef test_mean_of_three():\n"
            "    assert mean([1, 2, 3]) == 2.0\n",
        },
        id="test-moved-to-another-file-and-edited",
    ),
    pytest.param(
        {
            "src/calc/__init__.py": CALC.replace(
                'def total(values):\n    """The sum."""\n    return sum(values)\n', ""
            ).replace("(len(values) - 1)", "len(values)"),
            "tests/test_calc.py": TESTS.replace(
                "from calc import mean, total", "from calc import mean"
            ).replace("def test_total():\n    assert total([1, 2]) == 3\n", ""),
        },
        id="test-deleted-with-its-code",
    ),
    pytest.param(
        {
            "src/calc/__init__.py": FIXED_CALC,
            "tests/test_calc.py": TESTS.replace(
                "def test_mean", "@pytest.mark.xfail(strict=True, reason='bug 7')\ndef test_never"
            )
            + "\n\ndef test_mean():\n    assert mean([2, 4]) == 3\n    assert mean([1]) == 1\n",
        },
        id="more-tests-and-assertions",
    ),
    pytest.param(
        {
            "src/calc/__init__.py": FIXED_CALC,
            "tests/test_extra.py": "import pytest\n\nnp = pytest.importorskip('numpy')\n\n\n"
            "def test_with_numpy():\n    assert np.mean([1, 3]) == 2\n",
        },
        id="a-new-module-skipping-on-a-missing-import",
    ),
    pytest.param(
        {
            "src/calc/__init__.py": FIXED_CALC,
            "tests/conftest.py": "import sys\n\nimport pytest\n\nimport calc\n\n"
            "sys.dont_write_bytecode = True\ncalc_version = calc.total\n\n\n"
            "def pytest_configure(config):\n"
            "    config.addinivalue_line('markers', 'slow: a slow test')\n\n\n"
            "def pytest_addoption(parser):\n"
            "    parser.addoption('--slow', action='store_true')\n\n\n"
            "def pytest_report_header(config):\n    return 'calc'\n\n\n"
            "@pytest.fixture\ndef values(monkeypatch):\n"
            "    monkeypatch.setattr(calc, 'total', sum)\n    return [1, 2, 3]\n",
        },
        id="a-conftest-with-a-marker-and-a-fixture",
    ),
    pytest.param(
        {
            "src/calc/__init__.py": FIXED_CALC,
            "tests/conftest.py": "import os\n\n\ndef pytest_sessionstart(session):\n"
            "    os.environ.setdefault('TZ', 'UTC')\n\n\n"
            "def pytest_generate_tests(metafunc):\n"
            "    if 'size' in metafunc.fixturenames:\n"
            "        metafunc.parametrize('size', [1, 2])\n",
        },
        id="a-conftest-setting-the-time-zone-and-parametrizing",
    ),
    pytest.param(
        {
            "src/calc/__init__.py": FIXED_CALC,
            "tests/fixtures.py": "import pytest\n\n\n@pytest.fixture\ndef values():\n"
            "    return [1, 2, 3]\n",
            "tests/conftest.py": "from fixtures import *\nfrom .fixtures import *\n",
        },
        id="a-conftest-star-importing-the-project-s-fixtures",
    ),
    pytest.param(
        {
            "src/calc/__init__.py": FIXED_CALC,
            "tests/test_calc.py": TESTS
            + "\n\ndef test_empty():\n    with pytest.raises(ZeroDivisionError):\n"
            "        assert mean([]) == 0\n\n\ndef test_one():\n    if True:\n"
            "        assert total([2]) == 2\n",
        },
        id="assertions-under-a-specific-raises-and-a-true-if",
    ),
    pytest.param(
        {
            "src/calc/__init__.py": FIXED_CALC,
            "src/calc/stats.py": '"""More statistics."""\n',
            "tests/test_stats.py": "def test_nothing_yet():\n    assert 1 + 1 == 2\n",
        },
        id="a-module-added-inside-the-package",
    ),
    pytest.param(
        {
            "src/calc/__init__.py": FIXED_CALC,
            "tests/test_calc.py": TESTS.replace(
                "== 2\n",
                "== pytest.approx(2)\n    assert mean([0.5]) == pytest.approx(0.5, rel=0.1)\n",
            )
            + "\n\ndef test_equal_to_itself():\n    assert mean([1, 3]) == mean([1, 3])\n",
        },
        id="approx-of-default-tolerance-or-of-a-new-value-and-a-new-test-of-determinism",
    ),
]


HONEST_HOOK = (
    "def pytest_collection_modifyitems(config, items):\n"
    "    items.sort(key=lambda item: item.name)\n"
)


def test_a_hook_bound_again_after_an_honest_def_of_the_base_is_caught(
    make_change: MakeChange,
) -> None:
    change = make_change({**_base(), "tests/conftest.py": HONEST_HOOK}).write(
        {
            "tests/conftest.py": HONEST_HOOK
            + "\n\nfrom steady import deselect as pytest_collection_modifyitems\n"
        }
    )
    assert [s.split(": ")[0] for s in change.sentences()] == [
        "tests/conftest.py:5 pytest_collection_modifyitems changed in conftest.py"
    ]


def test_a_package_named_like_the_project_s_inside_a_test_package_is_not_a_copy(
    make_change: MakeChange,
) -> None:
    change = make_change({**_base(), "tests/__init__.py": ""}).write(
        {"tests/calc/__init__.py": '"""Tests of calc."""\n', "tests/calc/test_more.py": ""}
    )
    assert change.sentences() == []


def test_a_copy_beside_the_tests_of_a_test_package_is_still_caught(make_change: MakeChange) -> None:
    change = make_change({**_base(), "tests/__init__.py": ""}).write(
        {"tests/__init__.py": None, "tests/calc/__init__.py": FIXED_CALC}
    )
    assert [s.split(":")[0] for s in change.sentences()] == [
        "tests/calc/__init__.py a copy of calc added outside src/calc"
    ]


def test_other_modules_put_in_sys_modules_are_not_replacements(make_change: MakeChange) -> None:
    conftest = (
        "import types\nfrom sys import modules\n\nif True:\n"
        "    modules['fake_network'] = types.SimpleNamespace()\n"
    )
    assert make_change().write({"tests/conftest.py": conftest}).sentences() == []


def test_a_fixture_adding_a_mark_of_another_name_is_not_a_trick(make_change: MakeChange) -> None:
    conftest = (
        "import pytest\n\n\n@pytest.fixture(autouse=True)\n"
        "def _slow(request):\n    request.node.add_marker('slow')\n"
    )
    assert make_change().write({"tests/conftest.py": conftest}).sentences() == []


def test_honest_hooks_that_hand_on_no_run_state_are_not_tricks(make_change: MakeChange) -> None:
    conftest = (
        "def _add_options(parser):\n    parser.addoption('--slow', action='store_true')\n\n\n"
        "def pytest_addoption(parser):\n    _add_options(parser)\n    for option in ['a']:\n"
        "        parser.addini(option, 'an option')\n\n\n"
        "def pytest_report_header(config):\n    return f'root: {config.rootpath}'\n"
    )
    assert make_change().write({"tests/conftest.py": conftest}).sentences() == []


@pytest.mark.parametrize("files", HONEST)
def test_honest_changes_are_not_tricks(make_change: MakeChange, files: dict[str, str]) -> None:
    assert make_change().write(files).sentences() == []


def _base() -> dict[str, str]:
    from .conftest import BASE_FILES

    return dict(BASE_FILES)


CLASS_TESTS = TESTS.replace(
    "def test_mean():\n    assert", "class TestMean:\n    def test_mean(self):\n        assert"
)


def test_a_skip_mark_on_a_test_class_of_the_base_is_caught(make_change: MakeChange) -> None:
    change = make_change({**_base(), "tests/test_calc.py": CLASS_TESTS})
    change.write(
        {
            "tests/test_calc.py": CLASS_TESTS.replace(
                "class TestMean", "@pytest.mark.skip\nclass TestMean"
            )
        }
    )
    assert change.sentences() == [
        "tests/test_calc.py:6 tests of this module newly skipped (@pytest.mark.skip on class "
        "TestMean): a skipped failing test is not a fix"
    ]


def test_a_skip_mark_on_a_new_test_class_hides_nothing_of_the_base(
    make_change: MakeChange,
) -> None:
    change = make_change({**_base(), "tests/test_calc.py": CLASS_TESTS})
    new_class = (
        "\n\n@pytest.mark.skipif(True, reason='needs a GPU')\nclass TestGpu:\n"
        "    def test_mean(self):\n        assert mean([1.0]) == 1.0\n"
    )
    change.write(
        {"tests/test_calc.py": CLASS_TESTS + new_class, "src/calc/__init__.py": FIXED_CALC}
    )
    assert change.sentences() == []


@pytest.mark.parametrize(
    ("mark", "expected"),
    [
        (
            "@pytest.mark.xfail(reason='bug 7')",
            "tests/test_calc.py:6 test_mean newly marked as an expected failure "
            "(@pytest.mark.xfail, not strict)",
        ),
        ("@pytest.mark.skip(reason='later')", "tests/test_calc.py:6 test_mean newly skipped"),
    ],
)
def test_a_mark_written_as_a_call_is_one_trick(
    make_change: MakeChange, mark: str, expected: str
) -> None:
    change = make_change().write(
        {"tests/test_calc.py": TESTS.replace("def test_mean", f"{mark}\ndef test_mean")}
    )
    sentences = change.sentences()
    assert len(sentences) == 1, sentences
    assert sentences[0].startswith(expected), sentences


@pytest.mark.parametrize(
    "marked",
    [
        CLASS_TESTS.replace("class TestMean", "@pytest.mark.skip(reason='later')\nclass TestMean"),
        TESTS.replace(
            "from calc import", "pytestmark = pytest.mark.skip(reason='x')\nfrom calc import"
        ),
    ],
    ids=["class-mark", "pytestmark"],
)
def test_a_module_or_class_mark_written_as_a_call_is_one_trick(
    make_change: MakeChange, marked: str
) -> None:
    base = CLASS_TESTS if "class TestMean" in marked else TESTS
    change = make_change({**_base(), "tests/test_calc.py": base}).write(
        {"tests/test_calc.py": marked}
    )
    sentences = change.sentences()
    assert len(sentences) == 1, sentences
    assert "tests of this module newly skipped" in sentences[0], sentences


def test_a_strict_xfail_mark_on_a_test_of_the_base_is_no_trick(make_change: MakeChange) -> None:
    change = make_change().write(
        {
            "tests/test_calc.py": TESTS.replace(
                "def test_mean", "@pytest.mark.xfail(strict=True, reason='bug 7')\ndef test_mean"
            )
        }
    )
    assert change.sentences() == []


FIXTURES = "import pytest\n\n\n@pytest.fixture\ndef numbers():\n    return [1, 2, 3]\n"


@pytest.mark.parametrize(
    ("module", "conftest"),
    [
        ("tests/helpers.py", "from helpers import *\n"),
        ("tests/helpers.py", "from .helpers import *\n"),
        ("src/testsupport.py", "from testsupport import *\n"),
    ],
)
def test_a_hook_added_to_a_star_imported_module_alone_is_caught(
    make_change: MakeChange, module: str, conftest: str
) -> None:
    """Review s17r: conftest.py's star import was read only when conftest.py itself changed;
    a change editing only the module it imports added hooks unread."""
    base = {**_base(), module: FIXTURES, "tests/conftest.py": conftest}
    change = make_change(base).write({module: FIXTURES + "\n\n" + DESELECTS})
    assert [s.split(": ")[0] for s in change.sentences()] == [
        "tests/conftest.py:1 pytest_collection_modifyitems added in conftest.py"
    ]


def test_a_fixture_added_to_a_star_imported_module_is_not_a_trick(make_change: MakeChange) -> None:
    base = {**_base(), "tests/helpers.py": FIXTURES, "tests/conftest.py": "from helpers import *\n"}
    more = FIXTURES + "\n\n@pytest.fixture\ndef more():\n    return [4]\n"
    assert make_change(base).write({"tests/helpers.py": more}).sentences() == []


ADDOPTION_REGISTERS = (
    "class Steady:\n    def pytest_collection_modifyitems(self, config, items):\n"
    "        items[:] = [item for item in items if item.name != 'test_mean']\n\n\n"
    "def pytest_addoption(parser, pluginmanager):\n    pluginmanager.register(Steady())\n"
)


@pytest.mark.parametrize(
    ("conftest", "expected"),
    [
        pytest.param(
            "from steady import pytest_addoption\n",
            "tests/conftest.py:1 pytest_addoption added in conftest.py",
            id="imported-by-name",
        ),
        pytest.param(
            "import steady\n\npytest_addoption = steady.pytest_addoption\n",
            "tests/conftest.py:3 pytest_addoption added in conftest.py",
            id="assigned",
        ),
    ],
)
def test_a_harmless_hook_bound_from_elsewhere_is_caught(
    make_change: MakeChange, conftest: str, expected: str
) -> None:
    """Review s17r: ``pytest_addoption`` is read where it is defined (it may register a plugin
    through its ``pluginmanager``); bound from another module, its body was not read at all."""
    change = make_change().write(
        {"tests/steady.py": ADDOPTION_REGISTERS, "tests/conftest.py": conftest}
    )
    assert [s.split(": ")[0] for s in change.sentences()] == [expected]


@pytest.mark.parametrize(
    "conftest",
    [
        pytest.param(
            "def pytest_configure(config):\n    if config.option.verbose > 1 and not config.args:\n"
            "        print(f'verbose {config.option.verbose}')\n",
            id="configure-reads-options",
        ),
        pytest.param(
            "def _numbers(metafunc):\n    if 'numbers' in metafunc.fixturenames:\n"
            "        metafunc.parametrize('numbers', [[1, 2], [3, 4]])\n\n\n"
            "def pytest_generate_tests(metafunc):\n    _numbers(metafunc)\n",
            id="generate-tests-hands-metafunc-to-a-helper-of-the-module",
        ),
    ],
)
def test_hooks_that_only_read_the_run_are_not_tricks(
    make_change: MakeChange, conftest: str
) -> None:
    """Review s17r: false positives of the conftest-hook rules on honest projects."""
    assert make_change().write({"tests/conftest.py": conftest}).sentences() == []


@pytest.mark.parametrize(
    "conftest",
    [
        pytest.param(
            "def _numbers(metafunc):\n    metafunc.config.option.keyword = 'not mean'\n\n\n"
            "def pytest_generate_tests(metafunc):\n    _numbers(metafunc)\n",
            id="helper-of-the-module-deselects",
        ),
        pytest.param(
            "import steady\n\n\ndef _numbers(metafunc):\n    steady.go(metafunc)\n\n\n"
            "def pytest_generate_tests(metafunc):\n    _numbers(metafunc)\n",
            id="helper-hands-it-on-to-another-module",
        ),
        pytest.param(
            "def pytest_configure(config):\n    options = config.option\n"
            "    options.keyword = 'not mean'\n",
            id="options-aliased",
        ),
        pytest.param(
            "def pytest_configure(config):\n"
            "    config.option.deselect.append('tests/test_calc.py::test_mean')\n",
            id="options-list-appended",
        ),
        pytest.param(
            "def pytest_configure(config):\n    setattr(config.option, 'keyword', 'not mean')\n",
            id="options-setattr",
        ),
    ],
)
def test_hooks_that_change_the_run_through_a_helper_or_alias_are_caught(
    make_change: MakeChange, conftest: str
) -> None:
    sentences = make_change().write({"tests/conftest.py": conftest}).sentences()
    assert len(sentences) == 1, sentences
    assert "added in conftest.py: it can take tests out of the run" in sentences[0]


def test_an_option_object_passed_on_through_or_is_still_caught(make_change: MakeChange) -> None:
    conftest = (
        "def pytest_configure(config):\n    options = config.option or None\n"
        "    options.keyword = 'not mean'\n"
    )
    sentences = make_change().write({"tests/conftest.py": conftest}).sentences()
    assert [s.split(": ")[0] for s in sentences] == [
        "tests/conftest.py:1 pytest_configure added in conftest.py"
    ]


@pytest.mark.parametrize(
    ("settings", "copy"),
    [
        pytest.param(
            {
                "pyproject.toml": '[project]\nname = "calc"\nversion = "0.1"\n\n'
                '[tool.pytest.ini_options]\npythonpath = ["tests", "src"]\n'
            },
            "tests/calc/__init__.py",
            id="pyproject-tests",
        ),
        pytest.param(
            {
                "pytest.ini": "[pytest]\npythonpath = ./tests/support src\n",
                "tests/support/__init__.py": "",
            },
            "tests/support/calc/__init__.py",
            id="pytest-ini-nested",
        ),
        pytest.param(
            {"setup.cfg": "[tool:pytest]\npythonpath = tests\n"},
            "tests/calc.py",
            id="setup-cfg-module",
        ),
    ],
)
def test_a_copy_in_a_folder_pytest_s_pythonpath_names_is_caught_in_a_test_package(
    make_change: MakeChange, settings: dict[str, str], copy: str
) -> None:
    """Review s17r: beside ``tests/__init__.py`` a ``tests/calc/`` copy is ``tests.calc`` to
    pytest's rootdir insertion, but ``pythonpath = ["tests"]`` puts ``tests/`` itself first on
    ``sys.path``, and ``import calc`` finds the copy."""
    change = make_change({**_base(), **settings, "tests/__init__.py": ""}).write({copy: FIXED_CALC})
    assert [s.split(":")[0] for s in change.sentences()] == [
        f"{copy} a copy of calc added outside src/calc"
    ]


@pytest.mark.parametrize(
    "reads",
    [
        "inspect.getsource(calc.mean)",
        "getsourcelines(calc.mean)[0]",
    ],
)
def test_a_test_reading_the_code_s_source_is_caught(make_change: MakeChange, reads: str) -> None:
    """Review s17r: a test asserting on the code's text fails for every mutant, so the mutation
    check counted each one killed while the code's result went unchecked."""
    test = (
        "import inspect\nfrom inspect import getsourcelines\n\nimport calc\n\n\n"
        f"def test_mean_source():\n    assert 'len(values)' in str({reads})\n"
    )
    sentences = make_change().write({"tests/test_source.py": test}).sentences()
    assert [s.split(": ")[0] for s in sentences] == [
        "tests/test_source.py:8 test_mean_source reads the code's source text (inspect.getsource)"
    ]


def test_a_test_reading_the_source_of_code_it_builds_is_not_a_trick(
    make_change: MakeChange,
) -> None:
    """attrs' tests read the ``__init__`` attrs generates for a class the test defines."""
    test = (
        "import inspect\n\n\ndef test_generated():\n    class D:\n        pass\n\n"
        "    built = type('E', (), {})\n"
        "    assert inspect.getsource(D) and inspect.getsourcelines(built)\n"
    )
    assert make_change().write({"tests/test_generated.py": test}).sentences() == []

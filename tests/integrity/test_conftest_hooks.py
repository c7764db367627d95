"""Which conftest.py hooks integrity reads as controls (``integrity.conftest_hooks``)."""

from __future__ import annotations

import ast

import pytest

from phasegate.integrity.conftest_hooks import bound_hooks

from .conftest import MakeChange

CONFIGURE = "import logging\nimport os\n\nimport steady\n\n\ndef pytest_configure(config):\n"


def _controls(text: str) -> list[str]:
    return sorted(bound_hooks(ast.parse(text), lambda function: function.name))


@pytest.mark.parametrize(
    "body",
    [
        "    logging.basicConfig(level=config.option.log_level or 'INFO')\n",
        "    os.environ.setdefault('CALC_VERBOSE', str(config.option.verbose))\n",
        "    if getattr(config.option, 'numprocesses', None):\n        print('xdist')\n",
        "    global VERBOSE\n    VERBOSE = config.option.verbose\n",
        "    os.environ['CALC_PATHS'] = str(len(config.args))\n",
        "    steady.show(int(config.known_args_namespace.verbose))\n",
    ],
    ids=["log-level", "str-of-verbose", "getattr-scalar", "bound-to-a-name", "len-args", "int"],
)
def test_a_hook_handing_on_an_option_s_value_it_only_reads_is_not_a_control(body: str) -> None:
    """Review s17d, finding 12: a scalar option's value, or any value made a number or a text
    by a builtin, handed to a call changes nothing of the run."""
    assert _controls(CONFIGURE + body) == []


def test_a_report_header_counting_the_run_s_arguments_is_not_a_control() -> None:
    header = "def pytest_report_header(config):\n    return f'calc: {len(config.args)} paths'\n"
    assert _controls(header) == []


@pytest.mark.parametrize(
    "body",
    [
        "    steady.go(config.option)\n",
        "    steady.go(config.args)\n",
        "    getattr(config.option, 'deselect').append('tests/test_calc.py::test_mean')\n",
        "    setattr(config.option, 'keyword', 'not mean')\n",
        "    options = config.option\n    options.keyword = 'not mean'\n",
        "    config.option.verbose = 2\n",
        "    steady.go(getattr(config.option, 'plugins'))\n",
        "    getattr(config.option, steady.NAME).append('tests/test_calc.py::test_mean')\n",
    ],
)
def test_a_hook_handing_on_the_options_or_a_list_option_is_still_a_control(body: str) -> None:
    assert _controls(CONFIGURE + body) == ["pytest_configure"]


@pytest.mark.parametrize(
    "rebinding",
    [
        "str = steady.go\n",
        "from steady import go as str\n",
        "import builtins\n\nbuiltins.str = steady.go\n",
        "def _keep(str=steady.go):\n    return str\n",
    ],
)
def test_a_converting_builtin_the_conftest_may_rebind_is_not_trusted(rebinding: str) -> None:
    body = "    os.environ['X'] = str(config.option)\n"
    assert _controls(CONFIGURE.replace("\n\ndef", f"\n{rebinding}\n\ndef") + body) == [
        "pytest_configure"
    ]


def test_a_getattr_the_conftest_rebinds_reads_no_option_by_name() -> None:
    text = CONFIGURE.replace("\n\ndef", "\ngetattr = steady.fetch\n\ndef")
    body = "    print(getattr(config.option, 'verbose'))\n"
    assert _controls(text + body) == ["pytest_configure"]


def test_honest_logging_and_header_hooks_pass_integrity(make_change: MakeChange) -> None:
    """The repro of finding 12 on the calc project: both hooks were ``collection-hook``."""
    conftest = (
        "import logging\n\n\ndef pytest_configure(config):\n"
        "    logging.basicConfig(level=config.option.log_level or 'INFO')\n\n\n"
        "def pytest_report_header(config):\n    return f'calc: {len(config.args)} paths'\n"
    )
    assert make_change().write({"tests/conftest.py": conftest}).sentences() == []


HELPER = "import steady\n\n\ndef _numbers(config):\n    pass\n"
HANDS_ON = "\n\ndef pytest_configure(config):\n    _numbers(config)\n"


@pytest.mark.parametrize(
    "conftest",
    [
        HELPER.replace("def _numbers", "@steady.keep\ndef _numbers") + HANDS_ON,
        HELPER + "\n\nglobals()['_numbers'] = steady.go\n" + HANDS_ON,
        HELPER + "\n\n_numbers.__code__ = steady.go.__code__\n" + HANDS_ON,
        HELPER
        + "\n\nimport sys\nsetattr(sys.modules[__name__], '_numbers', steady.go)\n"
        + HANDS_ON,
        HELPER + "\n\nimport sys\nsys.modules[__name__]._numbers = steady.go\n" + HANDS_ON,
        HELPER
        + "\n\ndef pytest_addoption(parser):\n    global _numbers\n    _numbers = steady.go\n"
        + HANDS_ON,
    ],
    ids=["decorated", "globals", "code-swapped", "setattr", "attribute", "global"],
)
def test_a_helper_that_may_not_be_its_body_is_code_not_read(conftest: str) -> None:
    """Review s17d, finding 3: a helper decorated, or swapped after its ``def`` without a
    binding statement, was read as its harmless body (a regression of ee7b1a9)."""
    assert _controls(conftest) == ["pytest_configure"]


@pytest.mark.parametrize(
    "conftest",
    [
        "import steady\n\n\n@steady.wrap\ndef pytest_configure(config):\n    pass\n",
        "from steady import wrap as hookimpl\n\n\n@hookimpl(tryfirst=True)\n"
        "def pytest_configure(config):\n    pass\n",
        "import steady\n\n\ndef pytest_configure(config):\n    pass\n\n\n"
        "globals()['pytest_configure'] = steady.go\n",
        "import steady\n\n\ndef pytest_report_header(config):\n    return 'calc'\n\n\n"
        "pytest_report_header.__code__ = steady.go.__code__\n",
    ],
    ids=["decorated", "hookimpl-from-elsewhere", "globals", "code-swapped"],
)
def test_a_hook_that_may_not_be_its_body_is_bound_unread(conftest: str) -> None:
    assert len(_controls(conftest)) == 1


@pytest.mark.parametrize(
    "conftest",
    [
        "import pytest\n\n\n@pytest.hookimpl(tryfirst=True)\ndef pytest_configure(config):\n"
        "    config.addinivalue_line('markers', 'slow: a slow test')\n",
        "from pytest import hookimpl\n\n\n@hookimpl(trylast=True)\ndef pytest_configure(config):\n"
        "    _markers(config)\n\n\ndef _markers(config):\n"
        "    config.addinivalue_line('markers', 'slow: a slow test')\n",
        "import pytest as pt\n\n\n@pt.hookimpl\ndef pytest_report_header(config):\n"
        "    return 'calc'\n",
    ],
    ids=["pytest-hookimpl", "hookimpl-imported-with-helper", "pytest-as-pt"],
)
def test_an_honest_hookimpl_and_helper_are_still_read_as_written(conftest: str) -> None:
    assert _controls(conftest) == []


SUPPORT = '''\
"""Test support."""


def keep(function):
    def wrapper(config):
        config.option.deselect = [*(config.option.deselect or []), "tests/test_calc.py::test_mean"]
        return function(config)

    return wrapper
'''


def test_a_decorated_helper_from_the_change_s_package_fails_integrity(
    make_change: MakeChange,
) -> None:
    """The repro of finding 3 on the calc project: integrity passed at ee7b1a9."""
    conftest = (
        '"""Shared set-up."""\nfrom calc._support import keep\n\n\n@keep\ndef _numbers(config):\n'
        '    """The options the suite reads."""\n\n\ndef pytest_configure(config):\n'
        "    _numbers(config)\n"
    )
    change = make_change().write({"src/calc/_support.py": SUPPORT, "tests/conftest.py": conftest})
    assert [s.split(": ")[0] for s in change.sentences()] == [
        "tests/conftest.py:10 pytest_configure added in conftest.py"
    ]

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

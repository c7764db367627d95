"""Failure classes, right and wrong reasons, and the missing-name analysis behind them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from phasegate.model.tdd import FailureClass
from phasegate.tdd.classify import Classifier
from phasegate.tdd.config import TddConfig
from phasegate.tdd.symbols import MissingSymbol, SourceIndex, judge_missing, parse_missing

TEST_FILE = "tests/test_stack.py"


@pytest.mark.parametrize(
    ("exc_type", "message", "expected"),
    [
        (
            "ModuleNotFoundError",
            "No module named 'stack.queue'",
            MissingSymbol("module", "stack.queue"),
        ),
        (
            "ImportError",
            "cannot import name 'pop_all' from 'stack' (/x/src/stack.py)",
            MissingSymbol("import", "pop_all", "stack"),
        ),
        (
            "AttributeError",
            "module 'stack' has no attribute 'EmptyStackError'",
            MissingSymbol("module-attribute", "EmptyStackError", "stack"),
        ),
        (
            "AttributeError",
            "'Stack' object has no attribute 'pop'",
            MissingSymbol("attribute", "pop", "Stack"),
        ),
        (
            "AttributeError",
            "type object 'Stack' has no attribute 'empty'",
            MissingSymbol("attribute", "empty", "Stack"),
        ),
        ("NameError", "name 'Queue' is not defined", MissingSymbol("name", "Queue")),
        ("AttributeError", "can't set attribute", None),
        ("ValueError", "name 'x' is not defined", None),
    ],
)
def test_the_missing_name_is_read_exactly(
    exc_type: str, message: str, expected: MissingSymbol | None
) -> None:
    assert parse_missing(exc_type, message) == expected


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "src" / "shop").mkdir(parents=True)
    (tmp_path / "src" / "shop" / "__init__.py").write_text("from shop.cart import Cart\n")
    (tmp_path / "src" / "shop" / "cart.py").write_text(
        "LIMIT = 3\n\nclass Cart:\n    size = 0\n\n    def __init__(self):\n"
        "        self.items = []\n\n    def add(self, item):\n        self.items.append(item)\n"
    )
    (tmp_path / "tests").mkdir()
    (tmp_path / TEST_FILE).write_text(
        "import shop.cart\nfrom shop.cart import Cart\n\n"
        "def test_total():\n    assert Cart().total() == 0\n\n"
        "def test_discount():\n    assert shop.cart.discount(Cart()) == 0\n\n"
        "def test_typo():\n    Crat()\n"
    )
    return tmp_path


def index(project: Path) -> SourceIndex:
    return SourceIndex.build(project, ["src/shop/__init__.py", "src/shop/cart.py"])


def test_the_source_index_knows_modules_classes_and_attributes(project: Path) -> None:
    built = index(project)
    assert built.modules == {"shop": "src/shop/__init__.py", "shop.cart": "src/shop/cart.py"}
    assert built.module_names["shop.cart"] == {"LIMIT", "Cart"}
    assert built.class_attributes["Cart"] == {"size", "__init__", "add", "items"}
    assert built.top_packages == {"shop"}


@pytest.mark.parametrize(
    ("symbol", "why"),
    [
        (MissingSymbol("attribute", "total", "Cart"), None),
        (MissingSymbol("module-attribute", "discount", "shop.cart"), None),
        (
            MissingSymbol("attribute", "add", "Cart"),
            "Cart.add is defined already (src/shop/cart.py)",
        ),
        (
            MissingSymbol("attribute", "total", "NoneType"),
            "'NoneType' is not a class of the project",
        ),
        (
            MissingSymbol("module", "requests"),
            "module 'requests' is not part of the project's source (its packages: shop)",
        ),
        (MissingSymbol("module", "shop.cart"), "module 'shop.cart' exists already"),
        (MissingSymbol("name", "Cart"), "'Cart' is defined in src/shop/cart.py already"),
        (
            MissingSymbol("attribute", "weight", "Cart"),
            "the test file does not use the name 'weight'",
        ),
    ],
)
def test_a_missing_symbol_must_be_unwritten_and_used_by_the_test(
    project: Path, symbol: MissingSymbol, why: str | None
) -> None:
    referenced = {"shop", "cart", "Cart", "total", "discount", "requests", "NoneType", "add"}
    verdict = judge_missing(symbol, index(project), referenced)
    if why is None:
        assert verdict is None
    else:
        assert verdict is not None
        assert verdict.startswith(why)


def classifier(project: Path, config: TddConfig | None = None) -> Classifier:
    return Classifier(
        project,
        config or TddConfig(),
        lambda: ["src/shop/__init__.py", "src/shop/cart.py"],
        lambda nodeid: nodeid.split("::", 1)[0],
    )


def record(outcome: str, exc_type: str = "", message: str = "", **failure: Any) -> dict[str, Any]:
    data: dict[str, Any] = {"nodeid": f"{TEST_FILE}::test_total", "outcome": outcome}
    if exc_type:
        data["failure"] = {
            "phase": failure.pop("phase", "call"),
            "exc_type": exc_type,
            "message": message,
            "path": failure.pop("path", TEST_FILE),
            "line": failure.pop("line", 5),
            "traceback": failure.pop("traceback", ""),
        }
    data.update(failure)
    return data


@pytest.mark.parametrize(
    ("test", "failure_class", "right"),
    [
        (record("passed"), None, None),
        (record("failed", "AssertionError", "assert 1 == 0"), FailureClass.ASSERTION, True),
        (
            record("failed", "Failed", "DID NOT RAISE <class 'IndexError'>"),
            FailureClass.ASSERTION,
            True,
        ),
        (record("failed", "NotImplementedError", ""), FailureClass.NOT_IMPLEMENTED, True),
        (
            record("failed", "AttributeError", "'Cart' object has no attribute 'total'"),
            FailureClass.MISSING_SYMBOL,
            True,
        ),
        (
            record(
                "failed",
                "AttributeError",
                "'Cart' object has no attribute 'total'",
                path="src/shop/cart.py",
            ),
            FailureClass.EXCEPTION,
            False,
        ),
        (
            record("failed", "NameError", "name 'Crat' is not defined"),
            FailureClass.MISSING_SYMBOL,
            True,
        ),
        (record("failed", "ZeroDivisionError", "division by zero"), FailureClass.EXCEPTION, False),
        (record("failed", "SyntaxError", "invalid syntax"), FailureClass.SYNTAX_ERROR, False),
        (record("error", "RuntimeError", "boom", phase="setup"), FailureClass.FIXTURE_ERROR, False),
        (record("error", "OSError", "gone", phase="teardown"), FailureClass.TEARDOWN_ERROR, False),
        (record("skipped", reason="later"), FailureClass.SKIPPED, False),
        (record("xfailed", reason="known"), FailureClass.XFAILED, False),
        (record("failed", "XPASS(strict)", "[XPASS(strict)] known"), FailureClass.XPASSED, False),
    ],
)
def test_each_failure_gets_its_class_and_reason(
    project: Path, test: dict[str, Any], failure_class: FailureClass | None, right: bool | None
) -> None:
    judged = classifier(project).test(test)
    assert (judged.failure_class, judged.right_reason) == (failure_class, right)


def test_the_detail_says_why_a_missing_name_does_not_count(project: Path) -> None:
    judged = classifier(project).test(
        record("failed", "AttributeError", "'Cart' object has no attribute 'add'")
    )
    assert judged.detail == (
        "AttributeError at tests/test_stack.py:5: 'Cart' object has no attribute 'add' "
        "(Cart.add is defined already (src/shop/cart.py))"
    )


def test_a_missing_fixture_is_named(project: Path) -> None:
    judged = classifier(project).test(
        record(
            "error",
            "_pytest.fixtures.FixtureLookupError",
            "('full', <FixtureRequest>)",
            phase="setup",
            traceback="E       fixture 'full' not found\n>       available fixtures: ...",
        )
    )
    assert (
        judged.detail
        == "_pytest.fixtures.FixtureLookupError at tests/test_stack.py:5: fixture 'full' not found"
    )


def test_frames_outside_the_project_are_not_shown(project: Path) -> None:
    judged = classifier(project).test(
        record("failed", "Failed", "DID NOT RAISE", path="/usr/lib/python3/_pytest/outcomes.py")
    )
    assert judged.detail == "Failed: DID NOT RAISE"


def test_right_reasons_are_configurable(project: Path) -> None:
    strict = classifier(project, TddConfig(right_reasons=["assertion"]))
    assert strict.test(record("failed", "NotImplementedError", "")).right_reason is False
    custom = classifier(project, TddConfig(right_reasons=["assertion", "shop.Pending"]))
    assert custom.test(record("failed", "shop.Pending", "later")).right_reason is True
    no_names = classifier(project, TddConfig(missing_symbol_errors=["ImportError"]))
    judged = no_names.test(
        record("failed", "AttributeError", "'Cart' object has no attribute 'total'")
    )
    assert judged.failure_class == FailureClass.EXCEPTION


def test_a_collection_error_is_classed(project: Path) -> None:
    error = {
        "nodeid": TEST_FILE,
        "failure": {
            "phase": "collect",
            "exc_type": "SyntaxError",
            "message": "invalid syntax",
            "path": TEST_FILE,
            "line": 3,
        },
    }
    classed = classifier(project).collection_error(error)
    assert classed.failure_class == FailureClass.SYNTAX_ERROR
    assert classed.detail == "SyntaxError at tests/test_stack.py:3: invalid syntax"

"""[tool.phasegate.tdd]: defaults, and errors that name the key, the value and what is allowed."""

from __future__ import annotations

from pathlib import Path

import pytest

from phasegate.config import load_config
from phasegate.errors import ConfigError
from phasegate.tdd.config import TddConfig


def load(tmp_path: Path, body: str) -> TddConfig:
    (tmp_path / "pyproject.toml").write_text(f"[tool.phasegate.tdd]\n{body}\n", encoding="utf-8")
    return load_config(tmp_path).config.tdd


def test_defaults(tmp_path: Path) -> None:
    config = load(tmp_path, "")
    assert config == TddConfig()
    assert config.right_reasons == ["assertion", "not-implemented", "missing-symbol"]
    assert (config.batch_size, config.require_review) == (3, True)


def test_values_are_read(tmp_path: Path) -> None:
    config = load(
        tmp_path,
        'require_review = false\nbatch_size = 1\nright_reasons = ["assertion", "app.Pending"]',
    )
    assert config.require_review is False
    assert config.right_reasons == ["assertion", "app.Pending"]


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (
            "batch_size = 4",
            "key tool.phasegate.tdd.batch_size = 4 is not allowed: "
            "Input should be less than or equal to 3",
        ),
        (
            'right_reasons = ["asertion"]',
            "'asertion' is not a failure class that may count as a right reason "
            "(did you mean 'assertion'?)",
        ),
        (
            'right_reasons = ["fixture-error"]',
            "allowed: assertion, not-implemented, missing-symbol, exception",
        ),
        (
            'right_reasons = ["not a name"]',
            "'not a name' is neither a failure class nor an exception type name",
        ),
        (
            'complexity_must_not_rise = ["median"]',
            "key tool.phasegate.tdd.complexity_must_not_rise.0 = 'median' is not allowed",
        ),
        ('test_globs = [""]', "patterns must not be empty"),
        (
            "tests = 1",
            "unknown key tool.phasegate.tdd.tests = 1; allowed keys in [tool.phasegate.tdd]",
        ),
    ],
)
def test_bad_values_name_the_key_and_what_is_allowed(
    tmp_path: Path, body: str, expected: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        load(tmp_path, body)
    assert str(tmp_path / "pyproject.toml") in str(caught.value)
    assert expected in str(caught.value)

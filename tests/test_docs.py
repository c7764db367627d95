"""The docs stay true to the code: every config key documented, the README's set-up intact."""

from __future__ import annotations

import re
from collections.abc import Iterator

from pydantic import BaseModel

from phasegate.config import PhasegateConfig
from tests.conftest import REPO_ROOT

CONFIGURATION = (REPO_ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")


def config_keys(model: type[BaseModel], prefix: str = "") -> Iterator[str]:
    for name, field in model.model_fields.items():
        annotation = field.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            yield from config_keys(annotation, f"{prefix}{name}.")
        else:
            yield f"{prefix}{name}"


def test_every_config_key_is_documented_in_a_table_row() -> None:
    rows = set(re.findall(r"^\| `([^`]+)` \|", CONFIGURATION, flags=re.MULTILINE))
    missing = [key for key in config_keys(PhasegateConfig) if key.split(".")[-1] not in rows]
    assert missing == []


def test_documented_defaults_match_the_model() -> None:
    defaults = PhasegateConfig().model_dump()
    for key in ("artifacts_dir", "gate", "max_traceback_chars"):
        row = re.search(rf"^\| `{key}` \|[^|]*\| `([^`]*)` \|", CONFIGURATION, re.MULTILINE)
        assert row is not None, key
        assert row.group(1).strip('"') == str(defaults[key])


def test_readme_setup_is_exactly_two_commands() -> None:
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Set-up", 1)[1]
    block = re.search(r"```sh\n(.*?)```", section, re.S)
    assert block is not None
    commands = [line for line in block.group(1).splitlines() if line.strip()]
    assert len(commands) == 2
    assert "phasegate demo" in commands[0]
    assert "pytest --gate=twelve-check" in commands[1]

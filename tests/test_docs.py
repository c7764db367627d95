"""The docs stay true to the code: every config key documented, the README's set-up intact,
every file and name the architecture page points to there."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

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


ARCHITECTURE = (REPO_ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
PACKAGE = REPO_ROOT / "src" / "phasegate"


def _named_in_architecture() -> list[str]:
    return sorted(set(re.findall(r"`([^`\s]+)`", ARCHITECTURE)))


def _file_named(path: str) -> Path | None:
    """A file or folder the page names: in the package, in one of its packages (the page
    writes `patterns/base.py` under `autodebug/`), or in the repository."""
    places = [PACKAGE, *sorted(p for p in PACKAGE.iterdir() if p.is_dir()), REPO_ROOT]
    return next((place / path for place in places if (place / path).exists()), None)


def _defines(source: str, name: str) -> bool:
    return bool(re.search(rf"^\s*(?:def|class) {name}\b|^\s*{name}\s*[:=]", source, re.M))


def _sources() -> dict[Path, str]:
    return {path: path.read_text(encoding="utf-8") for path in PACKAGE.rglob("*.py")}


def test_every_file_and_folder_the_architecture_names_exists() -> None:
    missing = []
    for named in _named_in_architecture():
        path, _, inner = named.partition("::")
        if not re.fullmatch(r"[\w/.-]+\.(?:py|toml|md)|[\w/]+/", path) or path.startswith("."):
            continue
        found = _file_named(path)
        if found is None or (inner and not _defines(found.read_text(encoding="utf-8"), inner)):
            missing.append(named)
    assert missing == []


def test_every_module_attribute_and_constant_the_architecture_names_is_defined() -> None:
    sources = _sources()
    missing = []
    for named in _named_in_architecture():
        dotted = re.fullmatch(r"([\w/]+)\.(?!(?:py|toml|md|json)$)([A-Za-z_]\w*)", named)
        module = PACKAGE / f"{dotted[1]}.py" if dotted else None
        if dotted and module is not None and module.is_file():  # module.name
            defined = _defines(module.read_text(encoding="utf-8"), dotted[2])
        elif dotted and dotted[1][0].isupper():  # Class.method
            owners = [s for s in sources.values() if re.search(rf"^class {dotted[1]}\b", s, re.M)]
            defined = any(_defines(source, dotted[2]) for source in owners)
        elif re.fullmatch(r"[A-Z][A-Z_]+", named):  # a constant
            defined = any(_defines(source, named) for source in sources.values())
        else:
            continue
        if not defined:
            missing.append(named)
    assert missing == []

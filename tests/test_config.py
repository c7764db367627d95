"""[tool.phasegate]: defaults, overrides, and errors that name the file, key and value."""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import pytest

import phasegate.config
from phasegate.config import LoadedConfig, PhasegateConfig, find_project_root, load_config
from phasegate.errors import ConfigError
from tests.conftest import REPO_ROOT


def write_pyproject(folder: Path, body: str) -> Path:
    path = folder / "pyproject.toml"
    path.write_text(body, encoding="utf-8")
    return path


def test_no_pyproject_means_defaults(tmp_path: Path) -> None:
    loaded = load_config(tmp_path)
    assert loaded.config == PhasegateConfig()
    assert loaded.source is None
    assert loaded.artifacts_path == (tmp_path / ".phasegate").resolve()


def test_values_are_read(tmp_path: Path) -> None:
    write_pyproject(tmp_path, '[tool.phasegate]\nartifacts_dir = "out/pg"\ngate = "strict"\n')
    loaded = load_config(tmp_path)
    assert loaded.config.gate == "strict"
    assert loaded.artifacts_path == (tmp_path / "out" / "pg").resolve()


def test_unknown_key_names_file_key_value_and_the_allowed_keys(tmp_path: Path) -> None:
    path = write_pyproject(tmp_path, '[tool.phasegate]\nartifact_dir = "x"\n')
    with pytest.raises(ConfigError) as caught:
        load_config(tmp_path)
    message = str(caught.value)
    assert str(path) in message
    assert "unknown key tool.phasegate.artifact_dir = 'x'" in message
    assert (
        "allowed keys in [tool.phasegate]: artifacts_dir, autodebug, base, baseline, cache,"
        in message
    )
    assert "did you mean 'artifacts_dir'?" in message


def test_wrong_type_names_the_value_and_what_is_allowed(tmp_path: Path) -> None:
    write_pyproject(tmp_path, "[tool.phasegate]\nmax_traceback_chars = 10\n")
    with pytest.raises(ConfigError) as caught:
        load_config(tmp_path)
    message = str(caught.value)
    assert "key tool.phasegate.max_traceback_chars = 10 is not allowed" in message
    assert "greater than or equal to 200" in message


def test_every_problem_gets_its_own_line(tmp_path: Path) -> None:
    write_pyproject(tmp_path, '[tool.phasegate]\ngate = 3\nplugins = "one"\n')
    with pytest.raises(ConfigError) as caught:
        load_config(tmp_path)
    assert len(str(caught.value).splitlines()) == 2


def test_invalid_toml_names_the_file(tmp_path: Path) -> None:
    path = write_pyproject(tmp_path, "[tool.phasegate\n")
    with pytest.raises(ConfigError, match=f"{path}: not valid TOML"):
        load_config(tmp_path)


def test_table_of_the_wrong_kind(tmp_path: Path) -> None:
    write_pyproject(tmp_path, '[tool]\nphasegate = "on"\n')
    with pytest.raises(ConfigError, match=r"tool\.phasegate must be a table, not str"):
        load_config(tmp_path)


def test_a_tool_key_that_is_not_a_table_is_a_config_error(tmp_path: Path) -> None:
    write_pyproject(tmp_path, "tool = 1\n")
    with pytest.raises(ConfigError, match=r"tool\.phasegate must be a table, not int"):
        load_config(tmp_path)


def test_flags_override_the_file_and_are_checked_too(tmp_path: Path) -> None:
    write_pyproject(tmp_path, '[tool.phasegate]\ngate = "strict"\n')
    loaded = load_config(tmp_path).with_overrides({"gate": ("--gate", "fast")})
    assert loaded.config.gate == "fast"
    expected = r"--phasegate-dir \(key tool\.phasegate\.artifacts_dir\)"
    with pytest.raises(ConfigError, match=expected):
        load_config(tmp_path).with_overrides({"artifacts_dir": ("--phasegate-dir", "")})


def test_project_root_is_the_nearest_pyproject(tmp_path: Path) -> None:
    write_pyproject(tmp_path, "")
    nested = tmp_path / "a" / "b"
    nested.mkdir(parents=True)
    assert find_project_root(nested) == tmp_path.resolve()


def second_config_paths(source: str) -> list[tuple[int, str]]:
    """Each import in ``source`` that takes a setting from elsewhere than phasegate.config."""
    public = set(phasegate.config.__all__)
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module:
            names = {alias.name for alias in node.names}
            if node.module.startswith("phasegate.config.") and names & public:
                found.append((node.lineno, f"from {node.module} import {', '.join(sorted(names))}"))
            elif node.module == "phasegate" and names & {"loaded_config", "config_cache"}:
                found.append((node.lineno, f"from phasegate import {', '.join(sorted(names))}"))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in ("phasegate.loaded_config", "phasegate.config_cache") or (
                    alias.name.startswith("phasegate.config.")
                    and alias.name != "phasegate.config.settings_cache"
                ):
                    found.append((node.lineno, f"import {alias.name}"))
    return found


def test_the_settings_have_one_import_path() -> None:
    package = REPO_ROOT / "src" / "phasegate" / "config"
    places = [
        f"{path.relative_to(REPO_ROOT)}:{line}: {statement}"
        for folder in ("src", "tests", "benchmarks")
        for path in sorted((REPO_ROOT / folder).rglob("*.py"))
        if package not in path.parents
        for line, statement in second_config_paths(path.read_text(encoding="utf-8"))
    ]
    assert places == [], (
        "import load_config, LoadedConfig and the settings models from phasegate.config, "
        "its one import path: " + "; ".join(places)
    )
    for old in ("phasegate.loaded_config", "phasegate.config_cache"):
        assert importlib.util.find_spec(old) is None, f"{old} is back: a second import path"


def test_a_second_import_path_is_found() -> None:
    source = (
        "from phasegate.config.loading import load_config\n"
        "from phasegate.config import load_config, settings_cache\n"
        "import phasegate.config.models\n"
        "from phasegate import loaded_config\n"
    )
    assert second_config_paths(source) == [
        (1, "from phasegate.config.loading import load_config"),
        (3, "import phasegate.config.models"),
        (4, "from phasegate import loaded_config"),
    ]


def test_a_setting_is_read_as_the_type_it_was_validated_to(tmp_path: Path) -> None:
    write_pyproject(tmp_path, '[tool.phasegate]\nmax_traceback_chars = 300\nplugins = ["acme"]\n')
    loaded = load_config(tmp_path)
    assert loaded.value_of("max_traceback_chars", int) == 300
    assert loaded.value_of("plugins", list) == ["acme"]


def test_a_setting_of_another_type_than_asked_is_a_config_error_naming_it(
    tmp_path: Path,
) -> None:
    loaded = LoadedConfig({"max_traceback_chars": "many"}, tmp_path, None)
    with pytest.raises(
        ConfigError, match=r"tool\.phasegate\.max_traceback_chars is 'many', not of type int"
    ):
        loaded.value_of("max_traceback_chars", int)

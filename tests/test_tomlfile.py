"""Reading tables out of a parsed TOML document, and the readers of pyproject.toml that narrow
what they read instead of trusting its shape."""

from __future__ import annotations

from pathlib import Path

import pytest

from phasegate.autodebug.project import Project, TestFiles
from phasegate.tomlfile import loads, read_table, table_in

DOCUMENT = loads(
    """
[tool.radon]
exclude = "build/*"

[tool.pytest]
ini_options = 3
"""
)


def test_the_table_at_the_keys_is_found() -> None:
    assert table_in(DOCUMENT, "tool", "radon") == {"exclude": "build/*"}
    assert table_in(DOCUMENT) == DOCUMENT


@pytest.mark.parametrize(
    "keys",
    [
        ("project",),
        ("tool", "bandit"),
        ("tool", "radon", "exclude"),
        ("tool", "pytest", "ini_options"),
    ],
)
def test_a_missing_key_or_a_value_that_is_not_a_table_is_an_empty_table(
    keys: tuple[str, ...],
) -> None:
    assert table_in(DOCUMENT, *keys) == {}


def test_read_table_reads_the_file_the_same_way(tmp_path: Path) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_text('[tool.radon]\nexclude = "build/*"\n', encoding="utf-8")
    assert read_table(path, "tool", "radon") == {"exclude": "build/*"}
    assert read_table(path, "tool", "radon", "exclude") == {}
    assert read_table(tmp_path / "missing.toml", "tool") == {}


@pytest.mark.parametrize(
    "text",
    [
        'project = 1\ndependency-groups = "dev"\n',
        '[project]\ndependencies = "attrs"\noptional-dependencies = ["x"]\n',
        "[tool]\npoetry = 2\n",
    ],
)
def test_autodebug_reads_declared_dependencies_of_any_shape_without_crashing(
    text: str, tmp_path: Path
) -> None:
    (tmp_path / "pyproject.toml").write_text(text, encoding="utf-8")
    assert Project(tmp_path, TestFiles(["tests/*"])).declared_dependencies == set()


def test_autodebug_reads_every_group_of_declared_dependencies(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        """
[project]
dependencies = ["Attrs>=22"]
optional-dependencies = {fast = ["ujson"], bad = 3}

[dependency-groups]
dev = ["pytest", {include-group = "lint"}]

[tool.poetry.dependencies]
python = "^3.10"
Requests = "*"
""",
        encoding="utf-8",
    )
    names = Project(tmp_path, TestFiles(["tests/*"])).declared_dependencies
    assert names == {"attrs", "ujson", "pytest", "requests"}

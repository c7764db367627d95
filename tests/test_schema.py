"""The exported JSON Schemas in docs/schema/ are current, and `phasegate schema` writes them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from phasegate.cli import main
from phasegate.model import ARTIFACTS
from phasegate.schema import schema_documents
from tests.conftest import REPO_ROOT

COMMITTED = REPO_ROOT / "docs" / "schema"


def test_committed_schemas_are_current() -> None:
    documents = schema_documents()
    stale = [
        name
        for name, text in documents.items()
        if not (COMMITTED / name).is_file() or (COMMITTED / name).read_text() != text
    ]
    assert stale == [], f"run: phasegate schema --out docs/schema  (stale: {stale})"
    extra = {p.name for p in COMMITTED.glob("*.schema.json")} - set(documents)
    assert extra == set(), f"schemas of artifacts that no longer exist: {extra}"


def test_every_artifact_has_a_schema_with_its_version() -> None:
    documents = schema_documents()
    assert set(documents) == {f"{kind}.schema.json" for kind in ARTIFACTS}
    assert all('"phasegate artifact schema version 1.0"' in text for text in documents.values())


def test_schema_command_writes_the_files(tmp_path: Path, capsys: object) -> None:
    assert main(["schema", "--out", str(tmp_path / "out")]) == 0
    written = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert written == sorted(schema_documents())


def test_every_name_of_the_model_package_loads_on_first_use() -> None:
    import phasegate.model as model

    for name in model.__all__:
        assert getattr(model, name) is not None, name
    assert set(model.ARTIFACTS) == {artifact.KIND for artifact in model.ARTIFACTS.values()}
    with pytest.raises(AttributeError, match="has no attribute 'Nothing'"):
        _ = model.Nothing  # type: ignore[attr-defined]


def test_the_tdd_models_do_not_build_the_run_models() -> None:
    # A `pytest --tdd` run reads the run report as plain data: loading the TDD models (and the
    # engine) must not build the run report's pydantic models on the way.
    code = (
        "import sys, phasegate.model.tdd, phasegate.tdd.cycles, phasegate.tdd.rules; "
        "print('phasegate.model.run' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"

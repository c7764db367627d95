"""Helpers for check tests: a project folder and the context a check receives."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from phasegate.gates.newcode import NewCode, resolve_new_code
from phasegate.gates.project import GateProject
from phasegate.gates.protocol import CheckContext, SessionData
from phasegate.store import Store

MakeContext = Callable[..., CheckContext]


@pytest.fixture
def make_context(tmp_path: Path) -> MakeContext:
    """Build a CheckContext for a project folder (default: tmp_path)."""

    def build(
        root: Path | None = None,
        *,
        base: str | None = None,
        new_code: NewCode | None = None,
        session: SessionData | None = None,
        timeout_s: float = 300.0,
        in_pull_request: bool = False,
    ) -> CheckContext:
        folder = root or tmp_path
        store = Store(folder / ".phasegate")
        project = GateProject(folder, excluded=(store.root,))
        return CheckContext(
            project=project,
            new_code=new_code or resolve_new_code(folder, base, {}),
            store=store,
            timeout_s=timeout_s,
            in_pull_request=in_pull_request,
            session=session,
        )

    return build


WriteFiles = Callable[..., Path]


@pytest.fixture
def write_files(tmp_path: Path) -> WriteFiles:
    """Write ``{relative path: text}`` under a folder (default: tmp_path); return the folder."""

    def write(files: dict[str, str], root: Path | None = None) -> Path:
        folder = root or tmp_path
        for name, text in files.items():
            path = folder / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        return folder

    return write

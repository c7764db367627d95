"""Sample projects and git histories for the tests of the checks."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from phasegate.gates import git as git_module

__all__ = ["BACKEND", "PYPROJECT", "forge_kept", "git", "git_commands_run", "tiny_project"]


def git(root: Path, *args: str) -> str:
    """Run git in ``root`` with a throwaway identity; what it printed, stripped."""
    completed = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", *args],
        cwd=root,
        check=True,
        capture_output=True,
        text=True,
    )
    return completed.stdout.strip()


def forge_kept(artifacts: Path, relpath: str, text: str) -> None:
    """Write ``relpath`` of the artifacts folder with the digest phasegate keeps beside what it
    wrote, as a forger who knows the store would: what is then refused is the content."""
    import hashlib

    (artifacts / relpath).write_text(text, encoding="utf-8")
    digest = hashlib.sha256(text.encode()).hexdigest()
    (artifacts / "cache" / "written" / f"{relpath.replace('/', '__')}.sha256").write_text(digest)


def git_commands_run(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """Every git command phasegate runs from now on, recorded (and run)."""
    asked: list[list[str]] = []
    real = git_module._run_git

    def recording(root: Path, args: list[str], *rest: object) -> object:
        asked.append(args)
        return real(root, args, *rest)  # type: ignore[arg-type]

    monkeypatch.setattr(git_module, "_run_git", recording)
    return asked


BACKEND = '''\
"""A tiny PEP 517 backend for phasegate's tests: settings come from tiny.json."""
import hashlib
import io
import json
import tarfile
import zipfile
from base64 import urlsafe_b64encode
from pathlib import Path


def _settings():
    return json.loads(Path("tiny.json").read_text())


def _metadata(settings, version):
    return (
        f"Metadata-Version: {settings.get('metadata_version', '2.1')}\\n"
        f"Name: {settings['name']}\\nVersion: {version}\\n\\n"
    )


def _files(settings):
    skip = set(settings.get("sdist_omits", []))
    names = ["pyproject.toml", "tiny.json", "_build/tiny_backend.py"]
    names += sorted(p.as_posix() for p in Path("src").rglob("*") if p.is_file())
    names += [n for n in settings.get("data", [])]
    return [name for name in names if name not in skip]


def get_requires_for_build_sdist(config_settings=None):
    return _settings().get("dynamic_requires", [])


def get_requires_for_build_wheel(config_settings=None):
    return _settings().get("dynamic_requires", [])


def build_sdist(sdist_directory, config_settings=None):
    settings = _settings()
    if "sdist_fails" in settings:
        raise RuntimeError(settings["sdist_fails"])
    Path("touched-by-the-backend.txt").write_text("the backend writes into its source tree")
    base = f"{settings['name'].replace('-', '_')}-{settings['version']}"
    path = Path(sdist_directory) / f"{base}.tar.gz"
    with tarfile.open(path, "w:gz") as archive:
        for name in _files(settings):
            archive.add(name, arcname=f"{base}/{name}")
        data = _metadata(settings, settings["version"]).encode()
        info = tarfile.TarInfo(f"{base}/PKG-INFO")
        info.size = len(data)
        archive.addfile(info, io.BytesIO(data))
    return path.name


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    settings = _settings()
    for needed in settings.get("data", []):
        Path(needed).read_text()  # fails when the sdist left it out
    version = settings.get("wheel_version", settings["version"])
    dist = f"{settings['name'].replace('-', '_')}-{version}"
    path = Path(wheel_directory) / f"{dist}-py3-none-any.whl"
    records = []
    with zipfile.ZipFile(path, "w") as wheel:
        def add(name, data):
            wheel.writestr(name, data)
            digest = urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            records.append(f"{name},sha256={digest},{len(data)}")
        for file in sorted(Path("src").rglob("*.py")):
            add(file.relative_to("src").as_posix(), file.read_bytes())
        add(f"{dist}.dist-info/METADATA", _metadata(settings, version).encode())
        add(
            f"{dist}.dist-info/WHEEL",
            b"Wheel-Version: 1.0\\nGenerator: tiny\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n",
        )
        records.append(f"{dist}.dist-info/RECORD,,")
        wheel.writestr(f"{dist}.dist-info/RECORD", "\\n".join(records))
    return path.name
'''

PYPROJECT = """\
[build-system]
requires = []
build-backend = "tiny_backend"
backend-path = ["_build"]
"""


def tiny_project(**settings: Any) -> dict[str, str]:
    """The files of a project the tiny backend builds, with ``settings`` in its tiny.json."""
    return {
        "pyproject.toml": PYPROJECT,
        "_build/tiny_backend.py": BACKEND,
        "tiny.json": json.dumps({"name": "tiny-sample", "version": "1.0", **settings}),
        "src/tiny_sample/__init__.py": '"""Tiny."""\n',
    }

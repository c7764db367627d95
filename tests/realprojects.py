"""Real open-source projects for end-to-end tests and benchmarks, fetched once and kept offline.

Each project is a source distribution on PyPI, frozen by version and sha256. ``fetch`` downloads
it once into a cache folder (``PHASEGATE_REAL_PROJECTS_CACHE``, else
``~/.cache/phasegate/real-projects``) and checks its digest; after that nothing touches the
network. ``unpack`` extracts a copy into a folder of the caller's and makes it a git repository
with one commit, because several checks read git.

Tests never fetch (no network at test time): a test that needs a project calls ``require``,
which skips with the command that fetches it when the cache does not hold it. The README's test
command fetches them first (``python tests/realprojects.py fetch``), so CI always runs them.

    python tests/realprojects.py fetch [NAME ...]   # download what is missing, check digests
    python tests/realprojects.py list               # what is known and what is cached
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["PROJECTS", "RealProject", "cache_dir", "fetch", "git_commit", "require", "unpack"]

#: The package index's JSON API, which names each file's download address.
INDEX_JSON = "https://pypi.org/pypi/{name}/json"

#: A fixed identity for the commits made in unpacked projects.
GIT_IDENTITY = ("-c", "user.name=Sam", "-c", "user.email=sam@example.invalid")


@dataclass(frozen=True)
class RealProject:
    """One frozen source distribution and what its test suite needs."""

    name: str
    version: str
    filename: str
    sha256: str
    #: ``flat`` (package beside the tests) or ``src`` (package under ``src/``).
    layout: str
    #: The import package(s) the distribution provides.
    packages: tuple[str, ...]
    #: Distributions its test suite imports beyond pytest (installed by the ``dev`` extra).
    test_requires: tuple[str, ...] = ()
    notes: str = ""
    tags: frozenset[str] = field(default_factory=frozenset)


PROJECTS: dict[str, RealProject] = {
    project.name: project
    for project in (
        RealProject(
            name="more-itertools",
            version="11.2.1",
            filename="more_itertools-11.2.1.tar.gz",
            sha256="cbf08fd0af284dc69718b9b76a8e6203df624d70209ea511e4219d350c856f63",
            layout="flat",
            packages=("more_itertools",),
            notes="flat layout; unittest-style suite (TestCase, subTest); typed stubs (.pyi)",
            tags=frozenset({"flat", "unittest"}),
        ),
        RealProject(
            name="python-dateutil",
            version="4.0.0",
            filename="python_dateutil-4.0.0.tar.gz",
            sha256="d7295ff14fdc0f92f662100bfb6c551d160ca090f2939f1ec5b9794265c03f06",
            layout="src",
            packages=("dateutil",),
            test_requires=("freezegun", "hypothesis"),
            notes="src layout; tests use freezegun",
            tags=frozenset({"src", "freezegun"}),
        ),
        RealProject(
            name="attrs",
            version="26.1.0",
            filename="attrs-26.1.0.tar.gz",
            sha256="d03ceb89cb322a8fd706d4fb91940737b6642aa36998fe130a9bc96c985eff32",
            layout="src",
            packages=("attr", "attrs"),
            test_requires=("hypothesis",),
            notes="src layout, two packages; coverage patch = subprocess in its config",
            tags=frozenset({"src"}),
        ),
        RealProject(
            name="cachetools",
            version="8.0.0",
            filename="cachetools-8.0.0.tar.gz",
            sha256="5ed01bd676800d51f0025605e4fd8ad0891550513e7b0a4c3da478463764e5c3",
            layout="src",
            packages=("cachetools",),
            notes="src layout; classes with dunder protocols, decorators; unittest-style suite",
            tags=frozenset({"src", "unittest"}),
        ),
        RealProject(
            name="toolz",
            version="1.2.0",
            filename="toolz-1.2.0.tar.gz",
            sha256="9667a038e9d6ecba37995e26cb2f59ec6420b6ad8dd9677de59db9b956b08490",
            layout="flat",
            packages=("toolz", "tlz"),
            notes="flat layout; the tests live inside the package (toolz/tests/)",
            tags=frozenset({"flat"}),
        ),
        RealProject(
            name="inflection",
            version="0.5.1",
            filename="inflection-0.5.1.tar.gz",
            sha256="1a29730d366e996aaacffb2f1f1cb9593dc38e2ddd30c91250c6dde09ea9b417",
            layout="flat",
            packages=("inflection",),
            notes="flat layout; one package module and one test module beside it",
            tags=frozenset({"flat"}),
        ),
        RealProject(
            name="click",
            version="8.5.1",
            filename="click-8.5.1.tar.gz",
            sha256="9bbfada76703fd1d784b83eea012e3e8c6a001a876543ef104fa56aaaeb072b4",
            layout="src",
            packages=("click",),
            notes="src layout; many None guards on options and defaults; warnings are errors",
            tags=frozenset({"src"}),
        ),
        RealProject(
            name="marshmallow",
            version="4.4.0",
            filename="marshmallow-4.4.0.tar.gz",
            sha256="9e6ffa8511012ca89732324c1c253efd7b4d35632dcbdf80aa793fe01804af3e",
            layout="src",
            packages=("marshmallow",),
            test_requires=("simplejson",),
            notes="src layout; None guards on fields' defaults and options; tests use simplejson",
            tags=frozenset({"src"}),
        ),
        RealProject(
            name="boltons",
            version="26.2.0",
            filename="boltons-26.2.0.tar.gz",
            sha256="d39cfd15c1a1c3bd4d705c82252fa9edb8e4f5e8cc039f8e39afac7b1b47e92c",
            layout="flat",
            packages=("boltons",),
            notes="flat layout; many small utility modules, each with its own test module",
            tags=frozenset({"flat"}),
        ),
        RealProject(
            name="parso",
            version="0.8.7",
            filename="parso-0.8.7.tar.gz",
            sha256="eaaac4c9fdd5e9e8852dc778d2d7405897ec510f2a298071453e5e3a07914bb1",
            layout="flat",
            packages=("parso",),
            notes="flat layout; a parser with many None guards; pytest.ini, doctests, test/",
            tags=frozenset({"flat"}),
        ),
        RealProject(
            name="jinja2",
            version="3.1.6",
            filename="jinja2-3.1.6.tar.gz",
            sha256="0137fb05990d35f1275a587e9aee6d56da821fc83491a0fb838183be43f66d6d",
            layout="src",
            packages=("jinja2",),
            test_requires=("MarkupSafe",),
            notes="src layout; many None guards; two async test modules need trio (left out)",
            tags=frozenset({"src"}),
        ),
        RealProject(
            name="webob",
            version="1.8.11",
            filename="webob-1.8.11.tar.gz",
            sha256="aa8c27231070b135c025e567a9cd7eda03f4df71352ffaac740cb6a75f0f81a5",
            layout="src",
            packages=("webob",),
            notes="src layout; None guards on headers, defaults and caches; wsgiref on loopback",
            tags=frozenset({"src"}),
        ),
        RealProject(
            name="mistune",
            version="3.4.0",
            filename="mistune-3.4.0.tar.gz",
            sha256="2eaf7952af928ca8d33b779762effc1da517b62c6ad85ec8ca957e3b07b9782a",
            layout="src",
            packages=("mistune",),
            notes="src layout; a Markdown parser, None guards on regex matches and defaults",
            tags=frozenset({"src"}),
        ),
        RealProject(
            name="pycparser",
            version="3.12",
            filename="pycparser-3.12.tar.gz",
            sha256="f03387877eab82ce01bbdfd0ba7252ee55a90b1c708d5129e2ce915475cf1db6",
            layout="flat",
            packages=("pycparser",),
            notes="flat layout; a C parser, unittest-style suite with subTest",
            tags=frozenset({"flat", "unittest"}),
        ),
    )
}


def cache_dir() -> Path:
    """Where fetched source distributions are kept."""
    configured = os.environ.get("PHASEGATE_REAL_PROJECTS_CACHE")
    if configured:
        return Path(configured)
    return Path.home() / ".cache" / "phasegate" / "real-projects"


def cached(project: RealProject) -> Path | None:
    """The cached sdist when it is present and its digest is right, else ``None``."""
    path = cache_dir() / project.filename
    if path.is_file() and _sha256(path) == project.sha256:
        return path
    return None


def fetch(project: RealProject, *, timeout_s: float = 60.0) -> Path:
    """The project's sdist in the cache, downloaded first if it is missing (network)."""
    found = cached(project)
    if found is not None:
        return found
    url = _download_url(project, timeout_s)
    target = cache_dir() / project.filename
    target.parent.mkdir(parents=True, exist_ok=True)
    with urllib.request.urlopen(url, timeout=timeout_s) as response:  # noqa: S310 (https only)
        data = response.read()
    digest = hashlib.sha256(data).hexdigest()
    if digest != project.sha256:
        raise RuntimeError(
            f"{project.filename} from {url} has sha256 {digest}, expected {project.sha256}"
        )
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=".part-")
    with os.fdopen(handle, "wb") as stream:
        stream.write(data)
    os.replace(temporary, target)
    return target


def require(name: str) -> Path:
    """The cached sdist of ``name`` for a test; skips the test when it was not fetched."""
    import pytest

    project = PROJECTS[name]
    found = cached(project)
    if found is None:
        pytest.skip(
            f"{project.name} {project.version} is not cached in {cache_dir()}; "
            f"fetch it once with: python tests/realprojects.py fetch {project.name}"
        )
    return found


def unpack(name: str, into: Path, *, commit: bool = True) -> Path:
    """Extract ``name``'s cached sdist under ``into``; return the project folder.

    With ``commit``, the folder becomes a git repository with everything in one commit.
    """
    project = PROJECTS[name]
    sdist = cached(project)
    if sdist is None:
        raise FileNotFoundError(
            f"{project.filename} is not cached; run: python tests/realprojects.py fetch {name}"
        )
    into.mkdir(parents=True, exist_ok=True)
    with tarfile.open(sdist, "r:gz") as archive:
        top = {member.name.split("/", 1)[0] for member in archive.getmembers()}
        if len(top) != 1:
            raise RuntimeError(f"{project.filename} has {len(top)} top-level folders: {top}")
        archive.extractall(into, filter="data")
    root = into / top.pop()
    if commit:
        _git(root, "init", "-q", "-b", "main")
        git_commit(root, f"chore: import {project.name} {project.version}")
    return root


def git_commit(root: Path, message: str) -> str:
    """Stage everything in ``root`` and commit it; return the new commit id."""
    _git(root, "add", "-A")
    _git(root, *GIT_IDENTITY, "commit", "-q", "--no-verify", "-m", message)
    return _git(root, "rev-parse", "HEAD")


def _git(root: Path, *args: str) -> str:
    completed = subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True)
    return completed.stdout.strip()


def _download_url(project: RealProject, timeout_s: float) -> str:
    index = INDEX_JSON.format(name=project.name)
    with urllib.request.urlopen(index, timeout=timeout_s) as response:  # noqa: S310 (https only)
        document = json.load(response)
    for entry in document.get("releases", {}).get(project.version, []):
        if entry.get("filename") == project.filename:
            return urllib.parse.urljoin(index, entry["url"])
    raise RuntimeError(f"{index} lists no file {project.filename} for {project.version}")


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    commands = parser.add_subparsers(dest="command", required=True)
    fetch_parser = commands.add_parser("fetch", help="download what is not cached yet")
    fetch_parser.add_argument("names", nargs="*", help="projects to fetch (default: all)")
    commands.add_parser("list", help="the known projects and whether each is cached")
    arguments = parser.parse_args(argv)
    if arguments.command == "list":
        for project in PROJECTS.values():
            state = "cached" if cached(project) else "not cached"
            print(f"{project.name} {project.version} ({project.layout}): {state}")
        return 0
    names = arguments.names or list(PROJECTS)
    unknown = sorted(set(names) - set(PROJECTS))
    if unknown:
        parser.error(f"unknown project(s) {', '.join(unknown)}; known: {', '.join(PROJECTS)}")
    for name in names:
        path = fetch(PROJECTS[name])
        print(f"{name} {PROJECTS[name].version}: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

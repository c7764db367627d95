"""breaking: the public API of each package against the base, with griffe.

The base is the run's base (``--base`` or the pull request's base: the merge base with HEAD),
else the latest tag reachable from HEAD (``git describe --tags --abbrev=0``), else there is
nothing to compare with and the check is skipped, saying so (gates allow that with
``skip_allowed``).

Each package (``src/`` layout or not, several packages each on their own) is loaded twice
with griffe, statically: from the work tree, and from the base's tree, which ``git archive``
writes into a temporary folder. ``griffe.load_git`` is not used on purpose: it adds a
temporary branch and worktree to the project's repository, which a gate must not write to
(and two gates running at once would collide on the branch name). A package that did not
exist at the base cannot break anything. ``griffe.find_breaking_changes`` decides what
breaks: removed public objects, removed or reordered parameters, new required parameters,
changed defaults, changed kinds, removed base classes...
"""

from __future__ import annotations

import io
import os
import tarfile
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Literal

from phasegate.gates.api import load_packages, package_name
from phasegate.gates.definition import ConditionSpec
from phasegate.gates.findings import score_from_count
from phasegate.gates.git import git_bytes, git_text
from phasegate.gates.protocol import CheckContext, CheckError, Measurement, MetricSpec, NoOptions
from phasegate.gates.tools import require_tool
from phasegate.model.gate import Finding, Severity, ToolInfo

if TYPE_CHECKING:
    import griffe

__all__ = ["BreakingCheck"]

NO_BASE = "no base ref or tag to compare the public API with"

#: How ``git describe`` says there is no tag (no commits yet, or none tagged).
_NO_TAG = ("no names found", "no tags can describe", "needed a single revision")
#: How ``git cat-file -e <rev>:<path>`` says the path did not exist at that revision.
_NO_PATH = ("does not exist in", "exists on disk, but not in")


@dataclass(frozen=True)
class _Base:
    sha: str
    name: str
    origin: str


class BreakingCheck:
    """Breaking changes of the public API since the base; by default any one fails the check."""

    id: ClassVar[str] = "breaking"
    title: ClassVar[str] = "public API vs base"
    kind: ClassVar[Literal["static", "session"]] = "static"
    options_model: ClassVar[type[NoOptions]] = NoOptions
    metrics: ClassVar[Sequence[MetricSpec]] = (
        MetricSpec("breaking_changes", "breaking changes of the public API since the base"),
    )
    default_conditions: ClassVar[Sequence[ConditionSpec]] = (
        ConditionSpec(metric="breaking_changes", scope="overall", op=">", value=0),
    )

    def tool_info(self) -> ToolInfo | None:
        """griffe and its version; a CheckError with the install command when it is missing."""
        return require_tool("griffe", "griffe")

    def cache_inputs(self, ctx: CheckContext, options: NoOptions) -> Sequence[Path] | None:
        """The package source when the base is the run's base, else None.

        The run's base commit is part of the cache key (through the new-code digest); a base
        found by ``git describe`` is not, so that result is not cached.
        """
        return ctx.project.source_files if ctx.new_code.base.available else None

    def measure(self, ctx: CheckContext, options: NoOptions) -> Measurement:
        """Load each package from the work tree and from the base; compare with griffe."""
        shown = ctx.project.git_toplevel
        if shown is None:
            return _skipped(f"not a git work tree: {NO_BASE}")
        toplevel = shown.resolve()
        base = _find_base(ctx)
        if base is None:
            return _skipped(NO_BASE)
        ctx.project.trees.require(ctx.project.source_files, what="the public API")
        findings, compared = _compare(ctx, base, toplevel)
        count = len(findings)
        return Measurement(
            summary=_summary(findings, compared, base),
            score=score_from_count(count, scale=1),
            metrics={"breaking_changes": count},
            # Every breaking change is measured against the base: all of it is new.
            new_code_metrics={"breaking_changes": count},
            findings=findings,
        )


def _compare(ctx: CheckContext, base: _Base, toplevel: Path) -> tuple[list[Finding], list[str]]:
    """The breaking changes of the packages that existed at the base, and their names."""
    findings: list[Finding] = []
    with tempfile.TemporaryDirectory(prefix="phasegate-breaking-") as folder:
        old_tree = Path(folder)
        pairs: list[tuple[Path, Path]] = []  # (at the base, in the work tree)
        for package in ctx.project.package_dirs:
            inside = Path(os.path.relpath(package.resolve(), toplevel))
            if _export(toplevel, base, inside, old_tree, ctx.timeout_s):
                pairs.append((old_tree / inside, package))
            # else: new since the base, nothing of it can break
        olds = load_packages([old for old, _new in pairs])
        news = load_packages([new for _old, new in pairs])
        for old_module, new_module in zip(olds, news, strict=True):
            findings.extend(_findings(ctx, old_module, new_module, old_tree, toplevel))
    return findings, [package_name(new) for _old, new in pairs]


def _skipped(reason: str) -> Measurement:
    return Measurement(
        summary=reason,
        skipped=reason,
        metrics={"breaking_changes": None},
        new_code_metrics={"breaking_changes": None},
    )


def _find_base(ctx: CheckContext) -> _Base | None:
    base = ctx.new_code.base
    if base.available and base.sha:
        return _Base(base.sha, base.ref or base.sha[:12], "the run's base")
    return _latest_tag(ctx.project.root, ctx.timeout_s)


def _latest_tag(root: Path, timeout_s: float) -> _Base | None:
    """The latest tag reachable from HEAD, as a base; ``None`` when there is none."""
    tag = git_text(
        root, ["describe", "--tags", "--abbrev=0"], timeout_s=timeout_s, none_when=_NO_TAG
    )
    if tag is None:
        return None
    if not tag.strip() or "\n" in tag:
        raise CheckError(f"git describe answered {tag!r:.100}, which is not a tag name")
    sha = git_text(root, ["rev-parse", "--verify", f"{tag}^{{commit}}"], timeout_s=timeout_s)
    if not sha:
        raise CheckError(f"git rev-parse named no commit for the tag {tag!r}")
    return _Base(sha, tag, "the latest tag")


def _export(toplevel: Path, base: _Base, inside: Path, into: Path, timeout_s: float) -> bool:
    """Write the base's version of ``inside`` under ``into``; False if it did not exist.

    ``inside`` is relative to the top of the repository, where git runs.
    """
    spec = f"{base.sha}:{inside.as_posix()}"
    found = git_bytes(toplevel, ["cat-file", "-e", spec], timeout_s=timeout_s, none_when=_NO_PATH)
    if found is None:
        return False
    archive = git_bytes(
        toplevel,
        ["archive", "--format=tar", base.sha, "--", inside.as_posix()],
        timeout_s=timeout_s,
        fix="check that the base commit is fetched (actions/checkout with fetch-depth: 0)",
    )
    if not _unpack(archive, into):
        raise CheckError(
            f"git archive exported no file of {inside.as_posix()} at {base.name} "
            f"({base.sha[:12]}), which exists there"
        )
    return True


def _unpack(archive: bytes, into: Path) -> int:
    """Write the regular files of a tar archive under ``into``, and nothing else; how many.

    Only files are needed to read an API; links and paths that leave ``into`` are skipped,
    which also keeps this safe on Pythons without tarfile's extraction filters. An archive
    that cannot be read is a :class:`CheckError`.
    """
    root = into.resolve()
    written = 0
    try:
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            for member in tar.getmembers():
                target = (root / member.name).resolve()
                content = tar.extractfile(member) if member.isfile() else None
                if content is None or root not in target.parents:
                    continue
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(content.read())
                written += 1
    except tarfile.TarError as exc:
        raise CheckError(f"git archive printed something that is not a tar archive: {exc}") from exc
    return written


def _findings(
    ctx: CheckContext, old: griffe.Module, new: griffe.Module, old_tree: Path, toplevel: Path
) -> list[Finding]:
    import griffe

    return [
        _finding(ctx, breakage, old_tree, toplevel)
        for breakage in griffe.find_breaking_changes(old, new)
    ]


def _finding(
    ctx: CheckContext, breakage: griffe.Breakage, old_tree: Path, toplevel: Path
) -> Finding:
    """A breaking change as a finding, placed in the work tree (a removed object at its file)."""
    import griffe

    path, line = _where(breakage.obj)
    removed = breakage.kind is griffe.BreakageKind.OBJECT_REMOVED
    if path is not None and old_tree in path.parents:
        path = toplevel / path.relative_to(old_tree)
    explanation = breakage.explain(griffe.ExplanationStyle("markdown")).removeprefix("- ")
    details = f" ({breakage.details})" if breakage.details else ""
    where = f" (it was at line {line} at the base)" if removed and line else ""
    return Finding(
        rule=breakage.kind.name.lower().replace("_", "-"),
        severity=Severity.HIGH,
        message=f"{_module_of(breakage.obj)}: {explanation}{details}{where}",
        path=ctx.project.relative(path) if path is not None else None,
        # A removed object has no line any more in the work tree.
        line=None if removed else line,
        new=True,
    )


def _where(obj: griffe.Object | griffe.Alias) -> tuple[Path | None, int | None]:
    import griffe

    if isinstance(obj, griffe.Alias):
        parent = obj.parent
        file = parent.filepath if parent is not None else None
        line = obj.alias_lineno
    else:
        file, line = obj.filepath, obj.lineno
    return (file if isinstance(file, Path) else None), line


def _module_of(obj: griffe.Object | griffe.Alias) -> str:
    import griffe

    holder = obj.parent if isinstance(obj, griffe.Alias) else obj
    module = holder.module if holder is not None else None
    return module.path if module is not None else obj.path


def _summary(findings: list[Finding], compared: list[str], base: _Base) -> str:
    against = f"{base.name} ({base.origin}, {base.sha[:12]})"
    if not compared:
        return f"no package existed at {against}: nothing to break"
    if not findings:
        return f"the public API of {', '.join(compared)} is compatible with {against}"
    first = findings[0]
    place = f" at {first.path}:{first.line}" if first.line else f" in {first.path}"
    return (
        f"{len(findings)} breaking change(s) of the public API since {against}; first"
        f"{place}: {first.message}"
    )

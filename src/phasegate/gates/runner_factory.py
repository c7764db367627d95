"""Make the gate runner for a project outside pytest (``phasegate merge``) and inside it.

(Not the ``build`` check, which is :mod:`phasegate.gates.checks.build`.)

The pytest plugin adds its ``--base`` option and progress events; ``phasegate merge`` calls
this directly with the merged run.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping

import pluggy

from phasegate.config import LoadedConfig
from phasegate.environment import INSTANCE_ENV
from phasegate.gates.baseline import baseline_path, load_baseline
from phasegate.gates.cache import CheckCache
from phasegate.gates.definition import (
    CheckOverride,
    CheckSpec,
    GateDefinition,
    GateSource,
    load_gate,
)
from phasegate.gates.newcode import resolve_new_code
from phasegate.gates.project import GateProject
from phasegate.gates.protocol import CheckContext
from phasegate.gates.registry import CheckRegistry
from phasegate.gates.runner import GateRunner, ProgressEvent
from phasegate.model.gate import BaseInfo
from phasegate.store import Store

__all__ = [
    "configured_gate",
    "configured_project",
    "in_pull_request",
    "judged_by_integrity",
    "make_runner",
]

#: The check that reads the change to the gate itself.
INTEGRITY = "integrity"


def in_pull_request(environment: Mapping[str, str]) -> bool:
    """Whether this run belongs to a GitHub pull request."""
    return environment.get("GITHUB_EVENT_NAME", "") in ("pull_request", "pull_request_target")


def configured_project(loaded: LoadedConfig, store: Store) -> GateProject:
    """The project a gate checks, as the settings scope it: the packages, the ``exclude``
    patterns, and never the artifacts folder."""
    settings = loaded.config
    return GateProject(
        loaded.project_root,
        packages_setting=settings.packages,
        excluded=(store.root,),
        exclude_patterns=settings.exclude,
    )


def make_runner(
    loaded: LoadedConfig,
    store: Store,
    extensions: pluggy.PluginManager,
    name: str,
    *,
    base: str | None,
    environment: Mapping[str, str],
    on_event: Callable[[ProgressEvent], None] | None = None,
    leave_out: Collection[str] = (),
) -> GateRunner:
    """The runner of gate ``name`` for the project, its settings and this environment.

    ``leave_out``: checks of the gate not to plan nor run (the static checks' process leaves out
    the session checks, and imports none of their modules).
    """
    settings = loaded.config
    root = loaded.project_root
    gate, source = configured_gate(loaded, name, leave_out=leave_out)
    project = configured_project(loaded, store)
    new_code = resolve_new_code(root, base or settings.base, environment, project=project)
    if INTEGRITY not in leave_out:
        gate = judged_by_integrity(gate, source, new_code.base, settings.checks)
    context = CheckContext(
        project=project,
        new_code=new_code,
        store=store,
        timeout_s=settings.check_timeout_s,
        in_pull_request=in_pull_request(environment),
        # Set by `phasegate phase advance` for the checks that read the instance's documents.
        instance=environment.get(INSTANCE_ENV) or None,
        reuse_file_results=settings.cache,
    )
    return GateRunner(
        gate,
        source,
        CheckRegistry(extensions),
        context,
        cache=CheckCache(store, project) if settings.cache else None,
        on_event=on_event,
        default_timeout_s=settings.check_timeout_s,
        baseline=load_baseline(baseline_path(root, settings.baseline)),
        baseline_name=settings.baseline,
        pass_threshold=settings.refine.threshold,
    )


def judged_by_integrity(
    gate: GateDefinition,
    source: GateSource,
    base: BaseInfo,
    overrides: Mapping[str, CheckOverride],
) -> GateDefinition:
    """The gate, with the ``integrity`` check added (reported only) where a project's own gate
    file leaves it out and the run has a base.

    A change can write the gate that judges it: a file of the name the run asks for in
    ``gate_paths`` that keeps only ``syntax`` shadows the built-in gate, and without
    ``integrity`` nothing would read the change to the gate. Added, it reports the change as
    any other; it decides only on a change to the gate itself (``gate-loosened``,
    ``baseline-grown``), as it does when a gate makes it optional. A built-in gate is not a
    file of the change, and without a base the check has nothing to judge.
    """
    if INTEGRITY in gate.checks or source.origin == "built-in" or not base.available:
        return gate
    given = overrides.get(INTEGRITY)
    options = dict(given.options or {}) if given is not None else {}
    spec = CheckSpec(required=False, skip_allowed=True, options=options)
    return gate.model_copy(update={"checks": {**gate.checks, INTEGRITY: spec}})


def configured_gate(
    loaded: LoadedConfig, name: str, *, leave_out: Collection[str] = ()
) -> tuple[GateDefinition, GateSource]:
    """The gate ``name`` as the settings shape it: found in the project's ``gate_paths`` or
    bundled, with ``[tool.phasegate.checks]`` overrides (errors name the file they came from),
    less the checks ``leave_out`` names."""
    settings = loaded.config
    gate, source = load_gate(
        name,
        loaded.project_root,
        gate_paths=settings.gate_paths,
        overrides=settings.checks,
        overrides_file=loaded.source,
    )
    if leave_out:
        kept = {check: spec for check, spec in gate.checks.items() if check not in leave_out}
        gate = gate.model_copy(update={"checks": kept})
    return gate, source

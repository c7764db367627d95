"""The gate engine: gate definitions, the check protocol, the checks, the runner and its cache.

Nothing here imports pytest; ``phasegate.plugin.gate`` (with
``phasegate.plugin.gate_session``) and ``phasegate.cli.gate`` are the front ends. This
package's ``__init__`` holds one name and imports nothing, so that reading a gate definition
does not import every check, and ``pytest --gate=record`` imports no model at all.

A gate run goes: :mod:`~phasegate.gates.runner_factory` makes a
:class:`~phasegate.gates.runner.GateRunner` for the project and its settings; the runner plans
the checks the gate definition names, starts the static ones at once (inside pytest, in the
child process of :mod:`~phasegate.gates.static_process`) and the session ones on the finished
run, and :mod:`~phasegate.gates.evaluation` turns what they measured into the
:class:`~phasegate.model.gate.GateVerdict`.

One module, one job:

========================  ===================================================================
``protocol``              what a check is, what it is given (``CheckContext``), what it returns
``registry``              which checks exist: the built-in ones and those plugins register
``checks/``               the built-in checks, one module each (``checks/build`` is the
                          PEP 517 build check; the ``tdd`` check is :mod:`phasegate.tdd.check`,
                          beside the ledger and the rules it judges)
``definition``            gate definitions: the TOML files, the bundled ones and the project's
``runner_factory``        the runner of a gate for a project, its settings and environment
``runner``                plan the checks, start the static ones, finish with the session's
``static_process``        the static checks of a pytest run, in a process of their own
``evaluation``            conditions to passed/failed, checks to results, results to a verdict
``score``                 the gate's score, and how it is shown
``cache``                 a check's measurement reused while nothing it depends on changed
``progress``              progress events that ``phasegate gate run`` tails from a file
``project``               the project under check: root, Python files, packages, pyproject
``newcode``               the lines changed against the base ref ("new code")
``findings``              what every check's findings share: where, whether new, how many
``baseline``              findings accepted once (``phasegate-baseline.json``)
``baseline_record``       the code checks measured once for ``phasegate baseline record``
``parsed``                one parse of each Python file, shared by the checks that read trees
``tools``                 the tools behind the checks: found, timed out, answered, parsed
``helper_env``            the environment of phasegate's own helper processes
``ruff_policy``           the rules a project tells ruff to ignore
``git``                   the repository's history (commit, breaking, build)
``tree_copy``             a commit's tree written out into a folder, to run something at it
``snapshot``              a copy of the project in a temporary folder
``api``                   a package's public API, read with griffe (docs, breaking)
``consistency``           ``pip check``'s rules, in-process (deps)
``installed``             the installed distributions, as files a cache key can hash
``coverage_run``          coverage.py around a test run, across pytest-xdist workers
``perf_baseline``         where the perf check's baseline comes from: the base commit
``mutants``               mutants of the changed lines (mutation)
``mutation_copy``         the temporary copy of the project the mutants live in (mutation)
``mutation_runs``         the tests run against each mutant, and what they did (mutation)
``documents``             Markdown documents split into sections (request, spec)
``bindings``              which feature-file steps are bound, asked of pytest-bdd (scenarios)
``pull_request_reviews``  a pull request's reviews into ``reviews.jsonl`` (review)
========================  ===================================================================

What a change does to the evidence (tests removed, suppressions added, settings loosened) is
judged by :mod:`phasegate.integrity`, whose front end is the ``integrity`` check.
"""

__all__ = ["RECORD_ONLY"]

#: The gate name that records the run and evaluates no gate (``--gate=record``).
RECORD_ONLY = "record"

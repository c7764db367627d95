"""The TDD engine: the cycle ledger and the red/green/refactor rules, without pytest.

A cycle is proved step by step. Each ``pytest --tdd=PHASE`` run is judged by the rules
(:mod:`~phasegate.tdd.rules`) against the state derived from the ledger
(:mod:`~phasegate.tdd.state`), and the verdict is appended to the ledger
(:mod:`~phasegate.tdd.ledger`). The pytest plugin (``phasegate.plugin.tdd``) and the
command line (``phasegate.cli.tdd``) are thin front ends over :mod:`~phasegate.tdd.cycles`.

One module, one job:

==================  ==========================================================================
``config``          ``[tool.phasegate.tdd]``
``tree``            which files are tests and which are source, and their content hashes
``snapshot``        content-addressed copies of files at each green state (for rollback)
``ledger``          the append-only ``ledger.jsonl``
``state``           the cycle state, derived from the ledger (and cached)
``classify``        the failure class of a test, and whether it is a right-reason red
``symbols``         names the project's source defines and a test references
``assertions``      how many assertions a test has
``interfaces``      whether a source change is interfaces only (phase 0)
``complexity``      cyclomatic complexity with radon
``rules``           the RED, GREEN, REFACTOR and phase 0 rules, and the inference of ``auto``
``rollback``        restoring the last green state after a refactor regression
``session_log``     the observation log of those who drive cycles with agents
``cycles``          the operations both front ends call
``check``           the ``tdd`` check of the quality gate
==================  ==========================================================================

This ``__init__`` stays empty so that importing one part does not import the rest.
"""

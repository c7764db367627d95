"""Test suites split across CI jobs ("shards") and merged back into one judged run.

A shard is ``pytest --gate=NAME --shard=K/N``: it runs every N-th test of the suite and records
which part it was (:mod:`phasegate.shards.spec`); ``phasegate merge`` proves the shards add up
to the whole suite, merges their reports and coverage data, and judges the gate once
(:mod:`phasegate.shards.merge`).

This ``__init__`` holds only the environment variable's name, so that a run that is not a shard
imports nothing else of the package.
"""

__all__ = ["SHARD_ENV"]

#: The environment variable that makes a run a shard (``K/N``), like ``--shard``.
SHARD_ENV = "PHASEGATE_SHARD"

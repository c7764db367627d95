"""Which shard a run is (``--shard=K/N`` or ``PHASEGATE_SHARD=K/N``) and which tests it runs.

The split is round-robin over the suite's node ids in sorted order: test ``i`` (from 0) goes
to shard ``i % N + 1``. Every shard collects the same suite, so every shard computes the same
split without talking to the others, sizes differ by at most one test, and pytest-randomly or
any other reordering does not change who runs what.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass

from phasegate.errors import UsageError
from phasegate.shards import SHARD_ENV

__all__ = ["SHARD_ENV", "ShardSpec", "SuiteInfo", "parse_shard", "split"]


_FORM = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")


@dataclass(frozen=True)
class ShardSpec:
    """Shard ``index`` of ``total`` (both from 1)."""

    index: int
    total: int

    def __str__(self) -> str:
        return f"{self.index}/{self.total}"


@dataclass(frozen=True)
class SuiteInfo:
    """The whole suite as one shard saw it, before the split."""

    size: int
    digest: str


def parse_shard(value: str, source: str) -> ShardSpec:
    """``K/N`` with ``1 <= K <= N``; ``source`` names where the value came from."""
    match = _FORM.match(value)
    if match is None:
        raise UsageError(f"{source} = {value!r} is not a shard: write K/N, e.g. 2/4")
    index, total = int(match.group(1)), int(match.group(2))
    if total < 1 or not 1 <= index <= total:
        raise UsageError(
            f"{source} = {value!r}: the shard number K must be from 1 to the number of "
            f"shards N ({total})"
        )
    return ShardSpec(index, total)


def split(nodeids: Sequence[str], spec: ShardSpec) -> tuple[set[str], SuiteInfo]:
    """The node ids this shard runs, and the suite's size and digest."""
    ordered = sorted(set(nodeids))
    digest = hashlib.sha256("\n".join(ordered).encode("utf-8")).hexdigest()
    mine = {nodeid for i, nodeid in enumerate(ordered) if i % spec.total == spec.index - 1}
    return mine, SuiteInfo(len(ordered), digest)

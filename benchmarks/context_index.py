"""Query latency of auto-debug's context index on a large project (issue #5: p95 < 200 ms).

Generates ``--documents`` definitions (10,000 by default) with names, parameters and
docstrings drawn from a programming vocabulary, builds each index (TF-IDF with scikit-learn,
and the keyword fallback), and times ``--queries`` look-ups of the kind auto-debug makes:
a name as written (exact, misspelt, or unknown) with the code around it as context. Prints
the build time and the p50 / p95 / max query latency of each.

    python benchmarks/context_index.py [--documents 10000] [--queries 500] [--seed 5]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from phasegate.autodebug.context_index import Definition, KeywordIndex, TfidfIndex

VOCABULARY = (
    "user account order item price total parse load save read write config path file "
    "cache index query token text name value count list map key record event handler "
    "request response client server session stream buffer queue task job worker "
    "schedule report format render template field schema model table row column"
)
WORDS = VOCABULARY.split()


def _name(rng: random.Random) -> str:
    parts = rng.sample(WORDS, rng.randint(1, 3))
    if rng.random() < 0.2:
        return "".join(p.capitalize() for p in parts)
    return "_".join(parts)


def generate(count: int, rng: random.Random) -> list[Definition]:
    definitions = []
    for number in range(count):
        module = f"app.{rng.choice(WORDS)}.{rng.choice(WORDS)}{number % 50}"
        params = tuple(rng.sample(WORDS, rng.randint(0, 3)))
        doc = " ".join(rng.sample(WORDS, 6)).capitalize() + "."
        kind = rng.choice(("function", "function", "class", "variable"))
        definitions.append(
            Definition(module, f"{_name(rng)}{number}", kind, f"{module}.py", 1, doc, params)
        )
    return definitions


def _typo(name: str, rng: random.Random) -> str:
    if len(name) < 4:
        return name
    i = rng.randrange(len(name) - 1)
    return name[:i] + name[i + 1] + name[i] + name[i + 2 :]


def queries(definitions: list[Definition], count: int, rng: random.Random) -> list[tuple[str, str]]:
    found = []
    for _ in range(count):
        target = rng.choice(definitions)
        roll = rng.random()
        name = target.name if roll < 0.4 else _typo(target.name, rng) if roll < 0.8 else _name(rng)
        context = " ".join(rng.sample(WORDS, 12))
        found.append((name, context))
    return found


def measure(index: KeywordIndex | TfidfIndex, asked: list[tuple[str, str]]) -> list[float]:
    index.query("warm_up")  # the TF-IDF index fits on first use; that is build time
    times = []
    for name, context in asked:
        started = time.perf_counter()
        index.query(name, context, k=10)
        times.append((time.perf_counter() - started) * 1000)
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=500)
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    definitions = generate(args.documents, rng)
    asked = queries(definitions, args.queries, rng)
    print(f"{args.documents} definitions, {args.queries} queries (k=10)")
    print(f"{'index':<8} {'build s':>8} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8}")
    for index_type in (TfidfIndex, KeywordIndex):
        started = time.perf_counter()
        index = index_type(definitions)
        times = measure(index, asked)  # includes fitting on the warm-up query
        build = time.perf_counter() - started - sum(times) / 1000
        p95 = statistics.quantiles(times, n=100)[94]
        print(
            f"{index.backend:<8} {build:>8.2f} {statistics.median(times):>8.2f} "
            f"{p95:>8.2f} {max(times):>8.2f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""An index of the project's own definitions, to answer "where is the ``X`` this file needs?".

Each top-level function, class and variable of the project's source files is one document:
its name split into words, its module, its parameters and the first line of its docstring.
Two implementations answer the same queries:

* :class:`TfidfIndex` (scikit-learn, the ``autodebug`` extra): TF-IDF over those words plus
  character n-grams of the name, so a misspelt or partial name still finds its definition;
* :class:`KeywordIndex`: the same words in an inverted index with IDF weights, used when
  scikit-learn is not installed (names are then found by their words, not their letters).

``benchmarks/context_index.py`` measures query latency on 10,000 definitions.
:class:`RecordingIndex` wraps either one and keeps what each query cost and found (the
context-analysis figures of the run's task metrics).
"""

from __future__ import annotations

import ast
import math
import re
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from phasegate import optional

__all__ = [
    "ContextIndex",
    "Definition",
    "KeywordIndex",
    "RecordingIndex",
    "TfidfIndex",
    "build_index",
    "extract_definitions",
    "split_identifier",
]

_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def split_identifier(name: str) -> list[str]:
    """``parse_HTTPHeader2`` -> ``['parse', 'http', 'header', '2']``."""
    words: list[str] = []
    for part in name.split("_"):
        words.extend(match.group(0).lower() for match in _CAMEL.finditer(part))
    return words


def _words(text: str) -> list[str]:
    words: list[str] = []
    for token in _WORD.findall(text):
        words.extend(split_identifier(token))
    return words


@dataclass(frozen=True)
class Definition:
    """One top-level definition of the project."""

    module: str
    name: str
    kind: Literal["function", "class", "variable"]
    path: str
    line: int
    doc: str = ""
    params: tuple[str, ...] = ()

    @property
    def qualified(self) -> str:
        """``package.module.name``."""
        return f"{self.module}.{self.name}"

    def words(self) -> list[str]:
        """The words of this document (the name's words count twice)."""
        name = split_identifier(self.name)
        return [
            *name,
            *name,
            *_words(self.module),
            *_words(" ".join(self.params)),
            *_words(self.doc),
        ]


def extract_definitions(text: str, *, module: str, path: str) -> list[Definition]:
    """The top-level definitions of one module's source (imports excluded)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return []
    return [found for node in tree.body for found in _defined_by(node, module, path)]


def _defined_by(node: ast.stmt, module: str, path: str) -> list[Definition]:
    """What one top-level statement defines: a function, a class, or the names it assigns."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        params = tuple(arg.arg for arg in [*node.args.posonlyargs, *node.args.args])
        return [
            Definition(module, node.name, "function", path, node.lineno, _summary(node), params)
        ]
    if isinstance(node, ast.ClassDef):
        return [Definition(module, node.name, "class", path, node.lineno, _summary(node))]
    if isinstance(node, (ast.Assign, ast.AnnAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return [
            Definition(module, target.id, "variable", path, node.lineno)
            for target in targets
            if isinstance(target, ast.Name)
        ]
    return []


def _summary(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> str:
    """The first line of a definition's docstring."""
    return (ast.get_docstring(node) or "").strip().split("\n")[0]


class ContextIndex(Protocol):
    """What both implementations answer."""

    backend: str

    def __len__(self) -> int: ...

    def exact(self, name: str) -> list[Definition]:
        """The definitions named exactly ``name``."""
        ...

    def query(self, name: str, context: str = "", k: int = 10) -> list[tuple[Definition, float]]:
        """The ``k`` definitions most like ``name`` (and the code around it), best first."""
        ...


class _Exact:
    def __init__(self, definitions: Sequence[Definition]) -> None:
        self.definitions = list(definitions)
        self._by_name: dict[str, list[Definition]] = defaultdict(list)
        for definition in self.definitions:
            self._by_name[definition.name].append(definition)

    def __len__(self) -> int:
        return len(self.definitions)

    def exact(self, name: str) -> list[Definition]:
        return list(self._by_name.get(name, ()))


class KeywordIndex(_Exact):
    """An inverted index of words with IDF weights: no dependency beyond the standard library."""

    backend = "keyword"

    def __init__(self, definitions: Sequence[Definition]) -> None:
        super().__init__(definitions)
        self._postings: dict[str, list[tuple[int, int]]] = defaultdict(list)
        lengths: list[float] = []
        for number, definition in enumerate(self.definitions):
            counts = Counter([*definition.words(), definition.name.lower()])
            for word, count in counts.items():
                self._postings[word].append((number, count))
            lengths.append(math.sqrt(sum(c * c for c in counts.values())) or 1.0)
        total = len(self.definitions)
        self._idf = {
            word: math.log((total + 1) / (len(posting) + 1)) + 1.0
            for word, posting in self._postings.items()
        }
        self._lengths = lengths

    def query(self, name: str, context: str = "", k: int = 10) -> list[tuple[Definition, float]]:
        scores: dict[int, float] = defaultdict(float)
        for word, weight in _query_weights(name, context).items():
            idf = self._idf.get(word)
            if idf is None:
                continue
            for number, count in self._postings[word]:
                scores[number] += weight * idf * idf * count
        ranked = sorted(
            ((score / self._lengths[number], number) for number, score in scores.items()),
            key=lambda item: (-item[0], item[1]),
        )
        top = ranked[:k]
        best = top[0][0] if top else 1.0
        return [(self.definitions[number], score / best) for score, number in top]


class TfidfIndex(_Exact):
    """TF-IDF over definition words and the character n-grams of names (scikit-learn)."""

    backend = "tfidf"

    #: How much the spelling of the name counts against the words around it.
    NAME_WEIGHT = 0.7

    def __init__(self, definitions: Sequence[Definition]) -> None:
        super().__init__(definitions)
        # Fail now, not at the first query, when scikit-learn is missing.
        optional.require(
            "sklearn",
            what="the TF-IDF context index of auto-debug",
            package="scikit-learn",
            extra="autodebug",
        )
        import sklearn.feature_extraction.text

        self._text = sklearn.feature_extraction.text
        #: scipy's sparse matrix; ``Any`` as scipy and scikit-learn ship no types (pyproject).
        self._matrix: Any = None
        self._fitted = False

    def _fit(self) -> None:
        """Fit the vectorizers on first use: exact lookups never need them."""
        self._fitted = True
        if not self.definitions:
            return
        import numpy as np
        from scipy.sparse import hstack
        from sklearn.preprocessing import normalize

        self._normalize = normalize
        self._hstack = hstack
        self._names = self._text.TfidfVectorizer(
            analyzer="char_wb", ngram_range=(2, 4), lowercase=True, dtype=np.float64
        )
        self._words = self._text.TfidfVectorizer(
            analyzer=_identity, lowercase=False, dtype=np.float64
        )
        names = self._names.fit_transform([d.name for d in self.definitions])
        words = self._words.fit_transform([d.words() for d in self.definitions])
        self._matrix = self._combine(names, words).T.tocsr()

    # Sparse matrices in and out: ``Any``, as scipy ships no types.
    def _combine(self, names: Any, words: Any) -> Any:
        weight = self.NAME_WEIGHT
        return self._normalize(self._hstack([names * weight, words * (1 - weight)]).tocsr())

    def query(self, name: str, context: str = "", k: int = 10) -> list[tuple[Definition, float]]:
        if not self._fitted:
            self._fit()
        if self._matrix is None:
            return []
        import numpy as np

        names = self._names.transform([name])
        words = self._words.transform([[*split_identifier(name), *_words(context)]])
        scores = (self._combine(names, words) @ self._matrix).toarray().ravel()
        k = min(k, len(scores))
        top = np.argpartition(-scores, k - 1)[:k]
        order = sorted(top.tolist(), key=lambda i: (-scores[i], i))
        return [(self.definitions[i], float(scores[i])) for i in order if scores[i] > 0]


def _query_weights(name: str, context: str) -> dict[str, float]:
    """How much each word of a keyword query counts: the name's words four times as much as
    the words of the code around it."""
    weights: dict[str, float] = defaultdict(float)
    for word in [*split_identifier(name), name.lower()]:
        weights[word] += 2.0
    for word in _words(context):
        weights[word] += 0.5
    return weights


def _identity(words: list[str]) -> list[str]:
    return words


class RecordingIndex:
    """An index that records each query: its latency and the relevance of its best answer."""

    def __init__(self, inner: ContextIndex) -> None:
        self.inner = inner
        self.backend = inner.backend
        self.latencies_ms: list[float] = []
        self.relevance: list[float] = []

    def __len__(self) -> int:
        return len(self.inner)

    def exact(self, name: str) -> list[Definition]:
        """The definitions named exactly ``name`` (a lookup, not counted as a query)."""
        return self.inner.exact(name)

    def query(self, name: str, context: str = "", k: int = 10) -> list[tuple[Definition, float]]:
        """The inner index's answer, timed; the best score is kept as its relevance."""
        started = time.perf_counter()
        found = self.inner.query(name, context, k)
        self.latencies_ms.append(round((time.perf_counter() - started) * 1000, 3))
        self.relevance.append(round(found[0][1], 4) if found else 0.0)
        return found


def build_index(
    definitions: Sequence[Definition], *, backend: str = "auto"
) -> KeywordIndex | TfidfIndex:
    """The index ``backend`` names: ``tfidf``, ``keyword``, or ``auto`` (tfidf if possible)."""
    if backend == "keyword" or (backend == "auto" and not optional.is_available("sklearn")):
        return KeywordIndex(definitions)
    return TfidfIndex(definitions)

"""Exact disagreement between measures over every binary vector (Jones et al., SIGIR 2015).

For a depth k and a total of R relevant documents, every binary relevance
vector of length k except all-zeros (2**k - 1 of them, untied) is scored
exactly by each measure.  For every pair of measures we count the ordered
pairs (A, B) of distinct vectors on which sign(m1(A) - m1(B)) and
sign(m2(A) - m2(B)) differ; a tie (sign 0) is its own sign, so "m1 prefers
A, m2 scores them equal" is a disagreement.

Each measure's 2**k - 1 exact values are sorted into dense integer ranks
(:func:`tieaware.model.exactcmp.dense_ranks`: exact for rationals, structural
equality plus rigorous intervals for the log2 discount), and the counting is
done with NumPy on the rank arrays.

:func:`float_verdicts` redoes the comparisons the way the paper did: float64
values, equal when ``|a - b| <= 2**-53`` (or ``< 2**-53``), and lists every
pair of vectors on which that verdict differs from the exact one.

>>> result = disagreement(["P", "AP"], k=3, R=3)
>>> result.vectors[:3], result.pairs
(('001', '010', '011'), 42)
>>> result.count("P", "AP")      # P ties 001/010/100 and 011/101/110; AP orders them
12
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Optional, Union

import numpy as np

from tieaware import fast
from tieaware.model.errors import bad
from tieaware.model.exact import rational
from tieaware.model.exactcmp import dense_ranks
from tieaware.fast.err import err
from tieaware.fast.rbp import rbp
from tieaware.model.params import flag

__all__ = [
    "MEASURES",
    "MeasureSpec",
    "parse_measures",
    "binary_vectors",
    "Disagreement",
    "disagreement",
    "FloatDifference",
    "float_verdicts",
    "EPSILON",
    "DEFAULT_MEASURES",
    "FEATURES",
    "IMPLEMENTATIONS",
    "MAX_K",
]

#: The largest vector length: counting keeps a (2**k)**2 sign matrix per measure in memory.
MAX_K = 12

#: The paper's float equality tolerance.
EPSILON = 2.0**-53

#: The measures `tieaware disagree` uses by default: those shared with the paper's Table 2, plus ERR.
DEFAULT_MEASURES = "P AP DCG nDCG RR ERR RBP(p=0.5) RBP(p=0.85) RBP(p=0.95)"

Vector = tuple[int, ...]
Scorer = Callable[[Vector, int, int, bool], Any]
Naive = Callable[[Vector, int, int], float]

#: Float implementations: tieaware.fast's float mode, or plain textbook loops.
IMPLEMENTATIONS = ("fast", "naive")


@dataclass(frozen=True)
class MeasureSpec:
    """A measure of a binary vector at depth k with R relevant documents in total."""

    name: str
    score: Scorer = field(repr=False, compare=False)
    #: A textbook float64 loop, as a paper's script would compute the measure.
    naive: Naive = field(repr=False, compare=False)

    def __call__(self, vector: Vector, k: int, R: int, exact: bool = True) -> Any:
        return self.score(list(vector), k, R, exact)


# -- textbook float64 loops: how a script without tieaware would score a binary vector --------
# Beware: float results depend on the order of operations; these are one plausible choice
# (docs/disagreement.md says which AP loop reproduces the paper's tables and why).


def _naive_ap(v: Vector, k: int, R: int) -> float:
    hits, total = 0, 0.0
    for i, x in enumerate(v[:k], start=1):
        if x:
            hits += 1
            total += hits * (1.0 / i)
    return total / R


def _naive_rr(v: Vector, k: int, R: int) -> float:
    return next((1.0 / i for i, x in enumerate(v[:k], start=1) if x), 0.0)


def _naive_dcg(v: Vector, k: int, R: int) -> float:
    return sum(x / math.log2(i + 1) for i, x in enumerate(v[:k], start=1))


def _naive_ndcg(v: Vector, k: int, R: int) -> float:
    return _naive_dcg(v, k, R) / _naive_dcg((1,) * min(R, k), k, R)


def _naive_err(v: Vector, k: int, R: int) -> float:
    total, survive = 0.0, 1.0
    for i, x in enumerate(v[:k], start=1):
        stop = (2.0**x - 1) / 2.0  # g_max = 1
        total += survive * stop / i
        survive *= 1 - stop
    return total


def _naive_rbp(p: float) -> Naive:
    return lambda v, k, R: (1 - p) * sum(x * p ** (i - 1) for i, x in enumerate(v[:k], start=1))


#: name -> (tieaware scorer (labels, k, R, exact), textbook float64 loop (labels, k, R)).
#: Extends tieaware.model.names with ERR (and RBP(p=...), parsed separately).
MEASURES: dict[str, tuple[Scorer, Naive]] = {
    "P": (lambda v, k, R, x: fast.precision(v, k, exact=x), lambda v, k, R: sum(v[:k]) / k),
    "R": (lambda v, k, R, x: fast.recall(v, k, R, exact=x), lambda v, k, R: sum(v[:k]) / R),
    "F1": (lambda v, k, R, x: fast.f1(v, k, R, exact=x), lambda v, k, R: 2 * sum(v[:k]) / (k + R)),
    "AP": (lambda v, k, R, x: fast.average_precision(v, k, R, exact=x), _naive_ap),
    "RR": (lambda v, k, R, x: fast.reciprocal_rank(v, k, exact=x), _naive_rr),
    "DCG": (lambda v, k, R, x: fast.dcg(v, k, exact=x), _naive_dcg),
    "nDCG": (lambda v, k, R, x: fast.ndcg(v, k, [1] * R, exact=x), _naive_ndcg),
    "ERR": (lambda v, k, R, x: err(v, k, max_label=1, exact=x), _naive_err),
}
_ALIASES = {"MAP": "AP", "MRR": "RR", "NDCG": "nDCG", "Recall": "R", "Prec": "P"}
_FORM = re.compile(r"^(?P<name>[A-Za-z][A-Za-z0-9]*)(?:\((?P<params>[^()]*)\))?$")


def _rbp_spec(text: str, params: str) -> MeasureSpec:
    key, eq, raw = params.partition("=")
    if key.strip() != "p" or not eq:
        raise bad("measure", text, "must be written RBP(p=VALUE), e.g. RBP(p=0.85)")
    p = rational(raw.strip(), f"p in {text!r}")
    if not 0 < p < 1:
        raise bad("measure", text, "needs 0 < p < 1")
    shown = raw.strip()
    return MeasureSpec(f"RBP(p={shown})", lambda v, k, R, x: rbp(v, p, k, exact=x), _naive_rbp(float(p)))


def parse_measures(text: Union[str, Sequence[str]]) -> list[MeasureSpec]:
    """Parse ``'AP DCG RBP(p=0.5)'`` (or a list of names) into measure specs.

    Names: P, R, F1, AP, RR, DCG, nDCG, ERR, RBP(p=...); aliases MAP, MRR, NDCG.
    The depth k is global, so ``@k`` is not accepted.

    >>> [m.name for m in parse_measures("AP MRR RBP(p=0.85)")]
    ['AP', 'RR', 'RBP(p=0.85)']
    """
    if not isinstance(text, (str, list, tuple)):
        raise bad("measures", text, "must be a string such as 'AP DCG RBP(p=0.5)' or a list of names")
    parts = re.findall(r"[^\s,()]+(?:\([^()]*\))?", text) if isinstance(text, str) else list(text)
    if not parts:
        raise bad("measures", text, "names no measure")
    out = []
    for part in parts:
        m = _FORM.match(part.strip()) if isinstance(part, str) else None
        if not m:
            raise bad("measure", part, "is not of the form NAME or RBP(p=VALUE) (the depth is set by k, so no @k)")
        name = _ALIASES.get(m.group("name"), m.group("name"))
        if name == "RBP":
            out.append(_rbp_spec(part, m.group("params") or ""))
        elif name in MEASURES and m.group("params") is None:
            out.append(MeasureSpec(name, *MEASURES[name]))
        else:
            raise bad("measure", part, f"is not a known measure; known: {', '.join([*MEASURES, 'RBP(p=...)'])}")
    names = [s.name for s in out]
    if len(set(names)) != len(names):
        raise bad("measures", text, "names a measure twice")
    return out


def binary_vectors(k: int, include_zero: bool = False) -> list[Vector]:
    """Every binary vector of length k, in increasing binary order (rank 1 first); all-zeros only on request.

    >>> binary_vectors(2)
    [(0, 1), (1, 0), (1, 1)]
    """
    return [tuple((v >> (k - 1 - i)) & 1 for i in range(k)) for v in range(0 if include_zero else 1, 2**k)]


def _check_k_R(k: object, R: object) -> tuple[int, int]:
    # The sign matrices hold (2**k)**2 bytes each: 16 MB at k = 12, 4 GB at k = 16.
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_K:
        raise bad("k", k, f"must be an int from 1 to {MAX_K} (2**k - 1 vectors, (2**k)**2 pairs)")
    if isinstance(R, bool) or not isinstance(R, int) or R < k:
        raise bad("R", R, f"must be an int >= k ({k}), so that every vector is possible")
    return k, R


def _signs(ranks: np.ndarray) -> np.ndarray:
    """sign(x_A - x_B) for every ordered pair, as an int8 matrix."""
    return np.sign(ranks[:, None] - ranks[None, :]).astype(np.int8)


def _features(vectors: Sequence[Vector], k: int) -> dict[str, np.ndarray]:
    """Paper Table 4: +1 where A has more relevant documents / the earlier first relevant / first irrelevant."""
    hits = np.array([sum(v) for v in vectors])
    first_rel = np.array([v.index(1) if 1 in v else k for v in vectors])
    first_irrel = np.array([v.index(0) if 0 in v else k for v in vectors])
    return {
        "recall": _signs(hits),
        "first-rel": _signs(-first_rel),
        "first-irrel": _signs(-first_irrel),
    }


FEATURES = ("recall", "first-rel", "first-irrel")


@dataclass
class Disagreement:
    """Exact disagreement counts over every ordered pair of distinct binary vectors."""

    k: int
    R: int
    measures: tuple[str, ...]
    vectors: tuple[str, ...]
    #: Exact values per measure, in vector order.
    values: dict[str, list]
    #: Dense exact ranks per measure (0 = lowest value); empty for float verdicts (epsilon-equality is not transitive).
    ranks: dict[str, np.ndarray]
    #: counts[i][j]: ordered pairs on which measures i and j disagree.
    counts: np.ndarray
    #: features[(m1, m2)][feature]: disagreeing ordered pairs where m1 strictly prefers the vector with the feature.
    features: dict[tuple[str, str], dict[str, int]]

    @property
    def pairs(self) -> int:
        """Ordered pairs of distinct vectors: N(N - 1)."""
        n = len(self.vectors)
        return n * (n - 1)

    def _index(self, name: str) -> int:
        if name not in self.measures:
            raise bad("measure", name, f"is not in this result; it has {list(self.measures)}")
        return self.measures.index(name)

    def count(self, m1: str, m2: str) -> int:
        """Ordered pairs of vectors on which m1 and m2 disagree."""
        return int(self.counts[self._index(m1), self._index(m2)])

    def percent(self, m1: str, m2: str) -> Fraction:
        """count / pairs · 100, exactly; TieawareError when there is no pair (k = 1 without all-zeros)."""
        if not self.pairs:
            raise bad("k", self.k, "gives one vector and no pair, so no percentage; use k >= 2 or include the all-zero vector")
        return Fraction(100 * self.count(m1, m2), self.pairs)

    def feature_percent(self, m1: str, m2: str, feature: str) -> Fraction:
        """Among pairs where m1 and m2 disagree, the share (%) in which m1 strictly prefers the *feature* vector."""
        total = self.count(m1, m2)
        if feature not in FEATURES:
            raise bad("feature", feature, f"must be one of {FEATURES}")
        return Fraction(100 * self.features[(m1, m2)][feature], total) if total else Fraction(0)


def _exact_values(specs: Sequence[MeasureSpec], vectors: Sequence[Vector], k: int, R: int, progress: bool) -> dict[str, list]:
    from tqdm import tqdm

    out = {}
    for spec in tqdm(specs, desc="exact values", disable=None if progress else True, leave=False):
        out[spec.name] = [spec(v, k, R) for v in vectors]
    return out


def disagreement(
    measures: Any, k: int = 10, R: Optional[int] = None, *, include_zero: bool = False, progress: bool = False
) -> Disagreement:
    """Count exact pairwise disagreements of *measures* over all 2**k - 1 binary vectors.

    *measures* is a string such as ``'AP DCG RBP(p=0.5)'`` or a list of names.
    R (default k) is the total number of relevant documents (recall, AP, nDCG).
    *include_zero* adds the all-zero vector (2**k vectors): every measure
    scores it 0, below every other vector, so the counts stay the same and
    only the number of pairs grows; the paper's percentages use that larger
    number.  Raises :class:`tieaware.model.exactcmp.Undecided` if two values cannot
    be ordered.
    """
    specs = parse_measures(measures)
    k, R = _check_k_R(k, k if R is None else R)
    vectors = binary_vectors(k, flag(include_zero, "include_zero"))
    values = _exact_values(specs, vectors, k, R, progress)
    ranks = {name: np.array(dense_ranks(vs), dtype=np.int64) for name, vs in values.items()}
    signs = {name: _signs(r) for name, r in ranks.items()}
    feats = _features(vectors, k)
    names = tuple(s.name for s in specs)
    counts, features = _tally(names, signs, feats)
    return Disagreement(k, R, names, tuple("".join(map(str, v)) for v in vectors), values, ranks, counts, features)


def _tally(names: Sequence[str], signs: dict[str, np.ndarray], feats: dict[str, np.ndarray]) -> tuple[np.ndarray, dict]:
    """Disagreeing ordered pairs per pair of measures, and per feature the pairs where the first measure prefers it."""
    counts = np.zeros((len(names), len(names)), dtype=np.int64)
    features: dict[tuple[str, str], dict[str, int]] = {}
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            differ = signs[a] != signs[b]
            counts[i, j] = int(differ.sum())
            features[(a, b)] = {f: int((differ & (signs[a] == feats[f]) & (feats[f] != 0)).sum()) for f in FEATURES}
    return counts, features


@dataclass(frozen=True)
class FloatDifference:
    """A pair of vectors on which the paper's float64 + epsilon verdict differs from the exact one."""

    measure: str
    a: str
    b: str
    #: sign(m(a) - m(b)), exactly.
    exact: int
    #: The same sign from float64 values, 0 when |difference| <= 2**-53.
    float: int
    #: The float64 difference m(a) - m(b).
    difference: float


def float_verdicts(
    result: Disagreement, *, epsilon: float = EPSILON, inclusive: bool = True, implementation: str = "fast"
) -> tuple[list[FloatDifference], Disagreement]:
    """Redo *result* in float64 with the paper's epsilon: the pairs whose verdict differs, and the float counts.

    The second value is a :class:`Disagreement` whose counts and features
    come from the float verdicts (its ``values`` are the floats).

    Two floats are "equal" when ``|a - b| <= epsilon`` (*inclusive*) or
    ``|a - b| < epsilon``.  *implementation* is ``"fast"`` (tieaware.fast
    with ``exact=False``) or ``"naive"`` (textbook float64 loops).  Pairs are
    listed once, with a before b in vector order.

    >>> differences, floats = float_verdicts(disagreement("P AP", k=3, R=3))
    >>> differences, floats.counts.tolist()
    ([], [[0, 12], [12, 0]])

    Beware: 2**-53 is one ulp for values in [0.5, 1), so there the two
    conventions differ exactly on values one rounding step apart.
    """
    if implementation not in IMPLEMENTATIONS:
        raise bad("implementation", implementation, f"must be one of {IMPLEMENTATIONS}")
    flag(inclusive, "inclusive")
    if isinstance(epsilon, bool) or not isinstance(epsilon, (int, float)) or not epsilon >= 0:
        raise bad("epsilon", epsilon, "must be a float >= 0")
    specs = parse_measures(list(result.measures))
    vectors = [tuple(int(c) for c in v) for v in result.vectors]
    k, R = result.k, result.R
    floats = {
        s.name: np.array([s(v, k, R, False) if implementation == "fast" else s.naive(v, k, R) for v in vectors], dtype=np.float64)
        for s in specs
    }
    signs = {}
    differences = []
    upper = np.triu(np.ones((len(vectors),) * 2, dtype=bool), 1)
    for name, xs in floats.items():
        delta = xs[:, None] - xs[None, :]
        equal = np.abs(delta) <= epsilon if inclusive else np.abs(delta) < epsilon
        s = np.where(equal, 0, np.sign(delta)).astype(np.int8)
        signs[name] = s
        exact = _signs(result.ranks[name])
        for i, j in zip(*np.nonzero((s != exact) & upper)):
            differences.append(
                FloatDifference(name, result.vectors[i], result.vectors[j], int(exact[i, j]), int(s[i, j]), float(delta[i, j]))
            )
    counts, features = _tally(result.measures, signs, _features(vectors, k))
    values = {name: xs.tolist() for name, xs in floats.items()}
    return differences, Disagreement(k, R, result.measures, result.vectors, values, {}, counts, features)

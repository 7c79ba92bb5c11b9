"""Certified test vectors for tie-aware measures, and a loader to run them against your code.

The package ships one Wycheproof-style JSON file per measure family
(``precision``, ``recall``, ``f1``, ``average_precision``,
``reciprocal_rank``, ``ndcg``, ``rbo``, ``correlation``), validated against ``schema.json``.  Every
expected value was computed by enumeration (the reference layer) and
cross-checked against the closed forms (the fast layer).

Run them in your own test suite in a few lines::

    import pytest
    from tieaware import vectors

    @pytest.mark.parametrize("case", vectors.pytest_cases("average_precision", flags_excluded={"EmptyRanking"}))
    def test_my_ap(case):
        assert case.close(my_ap(case.scores, case.labels, num_rel=case.num_rel))

>>> case = next(c for c in iter_cases("precision", measure="P@1") if c.ranking == [[0, 1]])
>>> case.scores, case.labels, case.flags, case.exact
([1, 1], [0, 1], ('Tied', 'AllTied', 'TieAtCutoff'), Fraction(1, 2))
>>> case.close(0.5), case.close(1.0)
(True, False)
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any, Optional, Union

from tieaware.model.errors import bad
from tieaware.model.exact import Exact

__all__ = ["FAMILIES", "Vector", "RBOVector", "CorrVector", "load", "iter_cases", "pytest_cases", "schema"]

#: The shipped families, one JSON file each.
FAMILIES = ("precision", "recall", "f1", "average_precision", "reciprocal_rank", "ndcg", "rbo", "correlation", "conventions")


class _Certified:
    """What every test has: an id, an exact expected value, and a comparison."""

    family: str
    tc_id: int
    expected: Optional[str]

    @property
    def id(self) -> str:
        """A short test id: ``precision-17``."""
        return f"{self.family}-{self.tc_id}"

    @property
    def exact(self) -> Exact:
        """The expected value as a Fraction, or as a sympy expression when irrational."""
        if self.expected is None:
            raise bad("expected", self.expected, f"is absent: test {self.id} is an invalid input")
        if "/" in self.expected and all(p.strip().lstrip("-").isdigit() for p in self.expected.split("/")):
            return Fraction(self.expected)
        import sympy  # an irrational value, written by sympy

        return sympy.sympify(self.expected)

    def close(self, got: Any, rel_tol: float = 1e-9, abs_tol: float = 0.0) -> bool:
        """Is *got* the expected value: exactly (int, Fraction, sympy) or within tolerance (float)?"""
        from tieaware.check.compare import approximate, as_number, exact_equal, is_exact_number

        value = as_number(got, "got")
        if is_exact_number(value):
            return exact_equal(value, self.exact)
        if value != value:
            return False
        want = approximate(self.exact)
        return abs(Fraction(value) - want) <= max(Fraction(rel_tol) * abs(want), Fraction(abs_tol))


@dataclass(frozen=True)
class Vector(_Certified):
    """One test of a ranked-list measure: inputs, the certified value and its flags."""

    family: str
    tc_id: int
    comment: str
    flags: tuple[str, ...]
    #: ir_measures-style name: "P@2", "AP", "nDCG(dcg='exp-log2')@2", ...
    measure: str
    #: The input in tieaware's form: labels in rank order, tie groups as lists.
    ranking: list
    #: Parallel scores and labels (equal scores tie), in the order to hand them over.
    scores: list
    labels: list
    #: Judged relevant documents, retrieved or not (None: the relevant labels given).
    num_rel: Optional[int]
    #: Every judged label for nDCG's ideal ranking (None: the labels given).
    ideal: Optional[list]
    #: "p/q" or a sympy expression; None for invalid inputs.
    expected: Optional[str]
    expected_decimal: Optional[str]
    expected_float: Optional[float]
    #: "valid", or "invalid" for inputs a careful implementation refuses.
    result: str


@dataclass(frozen=True)
class RBOVector(_Certified):
    """One RBO test: two rankings (a tie group is a list of items), p, variant and bound."""

    family: str
    tc_id: int
    comment: str
    flags: tuple[str, ...]
    #: "RBO(p=0.9, variant=a, bound=ext)"
    measure: str
    S: list
    L: list
    #: Exact, as a decimal string: "0.9".
    p: str
    variant: str
    bound: str
    expected: Optional[str]
    expected_decimal: Optional[str]
    expected_float: Optional[float]
    result: str


@dataclass(frozen=True)
class CorrVector(_Certified):
    """One rank-correlation test: two rankings of the same items (a tie group is a list), a coefficient, a statistic."""

    family: str
    tc_id: int
    comment: str
    flags: tuple[str, ...]
    #: "Tau(variant=a)", "TauAP(stat=mean)", ...
    measure: str
    #: x is τ_AP's reference ranking.
    x: list
    y: list
    #: "tau" or "tauap"
    coefficient: str
    #: "a", "b" (the variants), or "mean", "min", "max", "var" over every tie-breaking of both
    statistic: str
    expected: Optional[str]
    expected_decimal: Optional[str]
    expected_float: Optional[float]
    result: str


def _resource(name: str) -> str:
    from importlib.resources import files

    return (files("tieaware.vectors") / name).read_text(encoding="utf-8")


@lru_cache(maxsize=None)
def _document(family: str) -> str:
    if family not in FAMILIES:
        raise bad("family", family, f"is not one of {list(FAMILIES)}")
    return _resource(f"{family}.json")


def load(family: str) -> dict[str, Any]:
    """The whole JSON document of *family*, parsed (a fresh copy each call)."""
    return json.loads(_document(family))


def schema() -> dict[str, Any]:
    """The JSON Schema every vector file conforms to."""
    return json.loads(_resource("schema.json"))


def iter_cases(
    family: str,
    *,
    result: Optional[str] = "valid",
    measure: Optional[str] = None,
    flags: Iterable[str] = (),
    flags_excluded: Iterable[str] = (),
) -> Iterator[Union[Vector, RBOVector, CorrVector]]:
    """The tests of *family*: only valid ones by default (``result=None`` for all).

    *measure* keeps one measure's tests; *flags* keeps tests carrying all of
    them; *flags_excluded* drops tests carrying any of them.  A measure, flag
    or result the family does not have is refused (a typo would otherwise
    select no test, and a test suite would silently run none).

    >>> iter_cases("precision", measure="P@3")
    Traceback (most recent call last):
    tieaware.model.errors.TieawareError: measure must be one of the family's measures ['P(rel=2)@2', 'P@1', 'P@2', 'P@4'], got 'P@3'
    """
    measures, known_flags = _vocabulary(family)
    if result is not None and result not in RESULTS:
        raise bad("result", result, f"must be one of {list(RESULTS)} or None (every test)")
    if measure is not None and measure not in measures:
        raise bad("measure", measure, f"must be one of the family's measures {sorted(measures)}")
    wanted, unwanted = _flags(flags, "flags", known_flags), _flags(flags_excluded, "flags_excluded", known_flags)
    return _selected(family, result, measure, wanted, unwanted)


def _selected(family: str, result: Optional[str], measure: Optional[str], wanted: set, unwanted: set) -> Iterator[Union[Vector, RBOVector, CorrVector]]:
    for group in load(family)["testGroups"]:
        for t in group["tests"]:
            if result is not None and t["result"] != result:
                continue
            if measure is not None and t["measure"] != measure:
                continue
            if not wanted <= set(t["flags"]) or unwanted & set(t["flags"]):
                continue
            if "S" in t:
                yield _rbo_vector(family, t)
                continue
            if "coefficient" in t:
                yield _corr_vector(family, t)
                continue
            yield Vector(
                family=family,
                tc_id=t["tcId"],
                comment=t["comment"],
                flags=tuple(t["flags"]),
                measure=t["measure"],
                ranking=t["ranking"],
                scores=t["scores"],
                labels=t["labels"],
                num_rel=t["numRel"],
                ideal=t["ideal"],
                expected=t["expected"],
                expected_decimal=t["expectedDecimal"],
                expected_float=t["expectedFloat"],
                result=t["result"],
            )


#: The verdicts a test can carry (Wycheproof's).
RESULTS = ("valid", "invalid", "acceptable")


@lru_cache(maxsize=None)
def _vocabulary(family: str) -> tuple[frozenset, frozenset]:
    """The measures and the flags the tests of *family* use."""
    tests = [t for group in load(family)["testGroups"] for t in group["tests"]]
    return frozenset(t["measure"] for t in tests), frozenset(f for t in tests for f in t["flags"])


def _flags(given: Iterable[str], argument: str, known: frozenset) -> set:
    if isinstance(given, str):  # flags="Tied" would otherwise be the set of its letters
        raise bad(argument, given, "must be a collection of flags, e.g. {'Tied'}")
    chosen = set(given)
    unknown = sorted(chosen - known, key=str)
    if unknown:
        raise bad(argument, given, f"names flags the family does not use ({', '.join(map(repr, unknown))}); its flags are {sorted(known)}")
    return chosen


def _rbo_vector(family: str, t: dict[str, Any]) -> RBOVector:
    return RBOVector(
        family=family,
        tc_id=t["tcId"],
        comment=t["comment"],
        flags=tuple(t["flags"]),
        measure=t["measure"],
        S=t["S"],
        L=t["L"],
        p=t["p"],
        variant=t["variant"],
        bound=t["bound"],
        expected=t["expected"],
        expected_decimal=t["expectedDecimal"],
        expected_float=t["expectedFloat"],
        result=t["result"],
    )


def _corr_vector(family: str, t: dict[str, Any]) -> CorrVector:
    return CorrVector(
        family=family,
        tc_id=t["tcId"],
        comment=t["comment"],
        flags=tuple(t["flags"]),
        measure=t["measure"],
        x=t["x"],
        y=t["y"],
        coefficient=t["coefficient"],
        statistic=t["statistic"],
        expected=t["expected"],
        expected_decimal=t["expectedDecimal"],
        expected_float=t["expectedFloat"],
        result=t["result"],
    )


def pytest_cases(family: str, **filters: Any) -> list:
    """``pytest.param(vector, id=...)`` for each test, for ``@pytest.mark.parametrize``; filters as in :func:`iter_cases`."""
    try:
        import pytest
    except ModuleNotFoundError:
        raise ModuleNotFoundError(
            "tieaware.vectors.pytest_cases needs pytest, which is not installed: pip install 'tieaware[testing]' "
            "(iter_cases works without it)",
            name="pytest",
        ) from None

    return [pytest.param(v, id=v.id) for v in iter_cases(family, **filters)]

"""What a proof is here: a :class:`Theorem`, the :class:`Result` of checking it, and the registry.

A theorem is a Python function that *derives* an expectation from the
per-ordering definition with sympy, then calls fast's own kernels on sympy
symbols and demands that the difference simplifies to exactly 0.  Its
kernels are keyword parameters defaulting to fast's real ones, so a test can
hand it a wrong kernel and watch it fail (tests/test_proof_checker.py).

Every theorem states its *scope*:

- ``general``: proved for symbolic sizes, counts, positions and cutoffs;
- ``bounded(...)``: checked for every case up to the stated bound, with the
  remaining quantities symbolic.  A bounded result is evidence, not proof,
  beyond its bound.  It says *why* the bound is needed (the ``why``
  argument of :func:`theorem`, and its row in docs/proofs.md, which
  tests/test_proofs.py holds to the registered scope).

>>> from tieaware.proofs import THEOREMS
>>> r = THEOREMS["exchangeability"]()
>>> r.proved, r.scope
(True, 'general')
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Optional

import sympy

__all__ = [
    "GENERAL",
    "bounded",
    "Result",
    "Theorem",
    "ProofFailure",
    "THEOREMS",
    "theorem",
    "prove_all",
    "same",
    "decided",
    "Tex",
    "is_zero",
]

GENERAL = "general"


def bounded(bound: str) -> str:
    """The scope label of a result checked up to *bound*.

    >>> bounded("n<=6")
    'bounded(n<=6)'
    """
    return f"bounded({bound})"


class Tex(sympy.Symbol):
    r"""A symbol that prints as the given LaTeX, verbatim: for names like E[P@k] in statements.

    >>> print(sympy.latex(Tex(r"\mathbb{E}[P@k]") / 2))
    \frac{\mathbb{E}[P@k]}{2}
    """

    def _latex(self, printer: Any) -> str:
        return self.name


class ProofFailure(AssertionError):
    """A derivation and fast's kernel disagree (or sympy cannot show they agree)."""


@dataclass(frozen=True)
class Result:
    """The outcome of checking one theorem."""

    name: str
    statement: str
    latex: str
    scope: str
    proved: bool
    seconds: float
    detail: str = ""
    why: str = ""
    cpu: float = 0.0  # CPU seconds of the process that checked it

    @property
    def general(self) -> bool:
        """True for a result proved for symbolic sizes, False for a bounded one."""
        return self.scope == GENERAL


@dataclass(frozen=True)
class Theorem:
    """A named statement with its scope and the function that proves it.

    Call it (optionally with replacement kernels) to get a :class:`Result`.
    *formula* builds the statement as a sympy relation, for :attr:`latex`;
    *why* says, for a bounded scope, why sympy cannot do the general case
    and what the bound covers.
    """

    name: str
    statement: str
    scope: str
    check: Callable[..., Optional[str]]
    formula: Callable[[], Any] = field(repr=False)
    why: str = ""

    @property
    def latex(self) -> str:
        """The statement in LaTeX, rendered by sympy from fast's kernel on symbols."""
        return sympy.latex(self.formula())

    def __call__(self, **kernels: Any) -> Result:
        began, cpu = time.perf_counter(), time.process_time()
        try:
            detail = self.check(**kernels) or ""
            proved = True
        except ProofFailure as exc:
            detail, proved = str(exc), False
        except Exception as exc:  # a wrong kernel may not even run on symbols: that is a rejection too
            detail, proved = f"{type(exc).__name__}: {exc}", False
        latex = self.latex
        return Result(self.name, self.statement, latex, self.scope, proved, time.perf_counter() - began, detail, self.why, time.process_time() - cpu)


#: Every theorem and lemma, by name, in the order they are registered (lemmas first).
THEOREMS: dict[str, Theorem] = {}


def theorem(
    name: str, statement: str, scope: str, formula: Callable[[], Any], why: str = ""
) -> Callable[[Callable[..., Any]], Theorem]:
    """Register the decorated check function as a :class:`Theorem` called *name*.

    *why*: for a bounded *scope*, why the bound is needed (printed by ``tieaware prove``).
    """

    def register(check: Callable[..., Any]) -> Theorem:
        if name in THEOREMS:
            raise ValueError(f"theorem {name!r} is registered twice")
        if scope != GENERAL and not scope.startswith("bounded("):
            raise ValueError(f"theorem {name!r}: scope {scope!r} is neither GENERAL nor bounded(...)")
        t = Theorem(name, statement, scope, check, formula, why)
        THEOREMS[name] = t
        return t

    return register


def prove_all(progress: bool = False, names: Optional[list[str]] = None, jobs: int = 1) -> list[Result]:
    """Check the theorems *names* (default: all), in registration order; *progress* shows a tqdm bar on stderr.

    With *jobs* > 1 they are checked by that many forked worker processes
    (where the platform forks; serially otherwise), and the results come back
    in the same order.

    >>> all(r.proved for r in prove_all())  # doctest: +SKIP
    True
    """
    import multiprocessing

    from tqdm import tqdm

    names = list(THEOREMS) if names is None else list(names)
    bar = tqdm(total=len(names), desc="proving", disable=not progress, leave=False)
    if jobs > 1 and len(names) > 1 and "fork" in multiprocessing.get_all_start_methods():
        # fork: the workers share the registry as it is now (theorems added at run time included).
        with multiprocessing.get_context("fork").Pool(min(jobs, len(names))) as pool:
            done = {}
            for name, result in pool.imap_unordered(_check, names):
                done[name] = result
                bar.update()
        results = [done[n] for n in names]
    else:
        results = []
        for n in names:
            results.append(THEOREMS[n]())
            bar.update()
    bar.close()
    return results


def _check(name: str) -> tuple[str, Result]:
    return name, THEOREMS[name]()


def is_zero(expr: Any) -> bool:
    """Whether sympy shows *expr* is 0: cheap canonical forms first, simplify() last."""
    # Cheap canonical forms first; simplify() only when they do not settle it.
    expr = sympy.sympify(expr)
    if expr == 0:
        return True
    # (expand() is avoided: it multiplies out nested rational expressions and explodes.)
    for step in (lambda e: sympy.cancel(sympy.together(e)), lambda e: sympy.cancel(sympy.combsimp(e)), sympy.simplify):
        expr = step(expr)
        if expr == 0:
            return True
    return False


def same(derived: Any, claimed: Any, what: str, *, polynomial: bool = False) -> None:
    """Demand derived − claimed == 0 symbolically, else raise ProofFailure naming *what*.

    With *polynomial*, both sides must be polynomials over one denominator
    each (as DCG's Σ c·G·D(j) and AP's are): they are cross-multiplied and
    expanded, which is much faster than rational simplification.

    >>> n = sympy.Symbol("n", positive=True)
    >>> same((n**2 - 1) / (n - 1), n + 1, "a factorisation")
    >>> same(n, n + 1, "an off-by-one")
    Traceback (most recent call last):
    ...
    tieaware.proofs.theorem.ProofFailure: an off-by-one: derived n, but fast gives n + 1 (difference -1)
    """
    derived, claimed = sympy.sympify(derived), sympy.sympify(claimed)
    if polynomial:
        (n1, d1), (n2, d2) = sympy.fraction(derived), sympy.fraction(claimed)
        if sympy.expand(d1 - d2) == 0 and sympy.expand(n1 - n2) == 0:  # same numerator, same denominator
            return
        if sympy.expand(n1 * d2 - n2 * d1) == 0:
            return
    elif is_zero(derived - claimed):
        return
    raise ProofFailure(f"{what}: derived {derived}, but fast gives {claimed} (difference {sympy.simplify(derived - claimed)})")


def decided(expr: Any, what: str) -> Any:
    """*expr* with no Min/Max/Piecewise left, i.e. a case the assumptions settle.

    >>> u = sympy.Symbol("u", positive=True)
    >>> decided(sympy.Min(u + 1, u), "slots")
    u
    """
    expr = sympy.sympify(expr)
    if expr.has(sympy.Min, sympy.Max, sympy.Piecewise):
        raise ProofFailure(f"{what}: the case assumptions do not decide {expr}")
    return expr

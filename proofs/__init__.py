"""Symbolic proofs that fast's closed forms equal the expectations they claim.

Each theorem derives, with sympy, the expectation under random tie-breaking
of a measure's per-ordering definition, for symbolic group sizes, relevant
counts, starts, cutoffs and positions, and shows that it equals what fast's
own kernels return on those symbols.  Where sympy cannot do the general
case, the theorem is checked for every case up to a stated bound and says
so in its scope.  ``tieaware prove`` runs them all; docs/proofs.md lists them.
"""

from tieaware.proofs.theorem import GENERAL, THEOREMS, ProofFailure, Result, Theorem, bounded, prove_all

# Importing the modules registers their theorems, lemmas first.
from tieaware.proofs import lemmas, arithmetic, precision, average_precision, reciprocal_rank, dcg, rbo, rbo_scan, success, bpref, variance, extremes, correlation, conventions  # noqa: E402,F401  isort:skip
from tieaware.proofs import trec_eval_families  # noqa: E402,F401  isort:skip
from tieaware.proofs import prefs  # noqa: E402,F401  isort:skip
from tieaware.proofs import sampled  # noqa: E402,F401  isort:skip
from tieaware.proofs.rbp import RBP_GROUP  # noqa: E402  isort:skip
from tieaware.proofs.err import ERR_GROUP, ERR_SUBSET_MEAN  # noqa: E402  isort:skip

for _t in (RBP_GROUP, ERR_SUBSET_MEAN, ERR_GROUP):
    THEOREMS[_t.name] = _t

__all__ = ["Theorem", "Result", "ProofFailure", "THEOREMS", "GENERAL", "bounded", "prove_all"]

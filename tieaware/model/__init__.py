"""The model: what a tied ranking is, exact numbers, gains, measure names and parameter checks.

The lowest room: it imports nothing else of tieaware, and every other room
(the layers fast and reference included) builds on it.

- :mod:`~tieaware.model.errors`: :class:`~tieaware.model.errors.TieawareError`, the one error class.
- :mod:`~tieaware.model.ranking`: the input form of a tied ranking, ``from_scores``.
- :mod:`~tieaware.model.exact`: exact numbers (Fraction, sympy), printing them as floats or decimals.
- :mod:`~tieaware.model.exactcmp`: deciding the order of exact irrational values.
- :mod:`~tieaware.model.logsum`: DCG and nDCG values as rational vectors over log(2)/log(b), summed without sympy.
- :mod:`~tieaware.model.gains`: DCG's gains and discounts, exactly.
- :mod:`~tieaware.model.names`: measure names in ir_measures syntax (``nDCG@10``, ``P(rel=2)@5``).
- :mod:`~tieaware.model.params`: checks of cutoffs, thresholds, probabilities and flags.
- :mod:`~tieaware.model.rbo_input`: RBO's rankings of items with tie groups.
- :mod:`~tieaware.model.corr_input`: two rankings of the same items, for Kendall's τ and τ_AP.
- :mod:`~tieaware.model.structures`: every tie structure of n documents.
"""

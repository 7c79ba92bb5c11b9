"""Whole runs: every query of a run evaluated, spread, compared.

The engines here gather tie-group summaries (start, size, relevant count,
gain sum) from the readers of :mod:`tieaware.io` and evaluate
:mod:`tieaware.fast`'s kernels on them; they write no closed form of their
own, so what ``tieaware prove`` checks is what prints users' numbers.

- :mod:`~tieaware.runs.evaluate`: ``evaluate`` (also ``tieaware.evaluate``) and ``compute``.
- :mod:`~tieaware.runs.engine`: every query at once in numpy (float), and exact per query.
- :mod:`~tieaware.runs.spread_engine`: worst, best and variance for every query at once.
- :mod:`~tieaware.runs.comparison`: spread of a run's mean, and run A against run B.
- :mod:`~tieaware.runs.significance`: paired tests, and their p-values' bounds over tie-breakings.
- :mod:`~tieaware.runs.leaderboard`: ``compare_systems`` (also ``tieaware.compare_systems``): tests, leaderboards.
- :mod:`~tieaware.runs.compat`: ir_measures' calling convention (``calc_aggregate``, ``iter_calc``).
"""

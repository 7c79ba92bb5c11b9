"""Support for testing tie-aware code: hypothesis strategies and the trec_eval program.

Users import the strategies from :mod:`tieaware.strategies`, the public face
of this room.

- :mod:`~tieaware.testing.rankings`: strategies for tied rankings of labels, qrels and runs.
- :mod:`~tieaware.testing.rbo`: strategies for RBO rankings of items.
- :mod:`~tieaware.testing.corr`: strategies for pairs of rankings of the same items (τ, τ_AP).
- :mod:`~tieaware.testing.trec_eval_binary`: locating and running a built trec_eval.
"""

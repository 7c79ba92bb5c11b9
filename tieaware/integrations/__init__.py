"""tieaware inside other tools: a stateful metric, sentence-transformers' IR evaluator, MTEB's retrieval scores.

- :class:`tieaware.integrations.stateful.TieAwareMetric`: torchmetrics-style
  ``update`` / ``compute`` / ``reset`` over batches of score rows, with or
  without torch;
- :class:`tieaware.integrations.sentence_transformers.InformationRetrievalEvaluator`:
  sentence-transformers' evaluator of the same name, same arguments and keys,
  tie-aware values and each key's worst and best;
- :func:`tieaware.integrations.mteb.retrieval_scores`: MTEB's retrieval score
  dict, tie-aware; :func:`tieaware.integrations.mteb.install` makes MTEB's
  own runs score that way.

Each imports only :mod:`tieaware.metrics` (numpy); none imports torch,
sentence-transformers or MTEB when tieaware is imported (MTEB's own nAUC
code is imported when :func:`~tieaware.integrations.mteb.retrieval_scores`
runs, if installed).
"""

__all__ = ["stateful", "sentence_transformers", "mteb"]

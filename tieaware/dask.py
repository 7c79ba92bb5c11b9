"""``tieaware.dask``: tie-aware evaluation on a Dask cluster (``pip install 'tieaware[dask]'``).

The public face of :mod:`tieaware.runs.dask_engine`; dask itself is imported
only when :func:`evaluate` runs.  See docs/scale.md::

    import tieaware.dask
    ev = tieaware.dask.evaluate("qrels/*.parquet", "run/*.parquet", "nDCG@10 AP")   # a local cluster
    ev.mean["nDCG@10"], ev.to_pandas()

:func:`evaluate_partition` is the per-partition function, for Spark's
``applyInPandas`` or any engine that hands over whole queries as pandas
DataFrames.
"""

from tieaware.runs.dask_engine import COLUMNS, evaluate, evaluate_partition, qrels_index

__all__ = ["evaluate", "evaluate_partition", "qrels_index", "COLUMNS"]

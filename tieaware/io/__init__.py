"""Input and output: reading runs and qrels, writing trec_eval's layout and exact numbers.

Imports only :mod:`tieaware.model`.

- :mod:`~tieaware.io.text`: opening files (plain, gz, bz2, stdin) and the TREC number syntax.
- :mod:`~tieaware.io.trec`: TREC run and qrels files as dicts of exact values.
- :mod:`~tieaware.io.columns`: the same files as numpy columns, joined and tie-grouped per query.
- :mod:`~tieaware.io.inputs`: pytrec_eval dicts, ir_measures namedtuples, DataFrames.
- :mod:`~tieaware.io.trec_format`: trec_eval's output layout and measure families.
- :mod:`~tieaware.io.exact_print`: exact values printed to any number of digits.
- :mod:`~tieaware.io.systems`: results tables (systems × measures) for ``tieaware corr --systems``.
"""

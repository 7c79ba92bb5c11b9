"""Applications that study measures themselves rather than evaluate runs.

- :mod:`~tieaware.analysis.disagreement`: exact disagreement between measures over all rankings.
"""

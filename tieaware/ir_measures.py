"""``tieaware.ir_measures``: ir_measures and PyTerrier report tie-aware values (``pip install ir_measures``).

Importing it installs tieaware's provider first in ir_measures' default
pipeline: from then on ``ir_measures.calc_aggregate``, ``iter_calc``,
``calc``, ``evaluator`` and PyTerrier's ``pt.Experiment`` compute every
measure tieaware computes as the expectation over the orderings of tied
documents, the others through ir_measures' own providers::

    import ir_measures, tieaware.ir_measures
    ir_measures.calc_aggregate([ir_measures.RR@10, ir_measures.P@1], qrels, run)   # tie-aware
    tieaware.ir_measures.uninstall()                                               # ir_measures' own again

``P``, ``AP``, ``nDCG`` ... here are measure objects of ir_measures' kind,
named ``ta.P`` ...: tie-aware whether the provider is installed or not, to sit
beside ir_measures' own in one call (``[ir_measures.P@5, ta.P@5]`` after
``uninstall()``).  The public face of :mod:`tieaware.runs.ir_measures_provider`;
docs/integrations.md has the details.
"""

from tieaware.runs.ir_measures_provider import (
    MEASURES,
    PROVIDER,
    TieAwareMeasure,
    install,
    is_installed,
    tieaware_measure,
    uninstall,
)

AP = MEASURES["AP"]
Bpref = MEASURES["Bpref"]
ERR = MEASURES["ERR"]
infAP = MEASURES["infAP"]
IPrec = MEASURES["IPrec"]
Judged = MEASURES["Judged"]
nDCG = MEASURES["nDCG"]
NumQ = MEASURES["NumQ"]
NumRel = MEASURES["NumRel"]
NumRet = MEASURES["NumRet"]
P = MEASURES["P"]
R = MEASURES["R"]
RBP = MEASURES["RBP"]
Rprec = MEASURES["Rprec"]
RR = MEASURES["RR"]
SetAP = MEASURES["SetAP"]
SetF = MEASURES["SetF"]
SetP = MEASURES["SetP"]
SetR = MEASURES["SetR"]
Success = MEASURES["Success"]

__all__ = [
    "install", "uninstall", "is_installed", "tieaware_measure", "PROVIDER", "MEASURES", "TieAwareMeasure",
    *sorted(MEASURES),
]  # fmt: skip

install()

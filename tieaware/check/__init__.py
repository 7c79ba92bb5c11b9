"""Check other people's code and formulas against the exact reference."""
from tieaware.check.formula import FormulaCounterexample, FormulaResult, formula

__all__ = ["formula", "FormulaResult", "FormulaCounterexample"]

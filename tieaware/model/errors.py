"""The one exception type tieaware raises for bad input.

It subclasses ValueError, so ``except ValueError`` keeps working, and its
message always names the offending argument and shows the offending value.
"""

from __future__ import annotations

__all__ = ["TieawareError", "bad", "shown"]


class TieawareError(ValueError):
    """Bad input to a tieaware function, command or file reader.

    >>> from tieaware import TieawareError
    >>> issubclass(TieawareError, ValueError)
    True
    """


#: Longest value shown in a message; a longer repr keeps its start and end.
MAX_SHOWN = 300


def bad(argument: str, value: object, problem: str) -> TieawareError:
    """Build the error for *argument* holding *value*; the caller raises it.

    >>> str(bad("k", 0, "must be an int >= 1"))
    'k must be an int >= 1, got 0'
    >>> str(bad("k", 10**5000, "must be small"))
    'k must be small, got an int of 5001 digits'
    """
    return TieawareError(f"{argument} {problem}, got {shown(value)}")


def shown(value: object) -> str:
    """``repr(value)`` for a message: ints too long to print are described, long reprs cut.

    >>> shown(list(range(1000)))[-39:]
    '997, 998, 999] (4890 characters in all)'
    """
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**4000:
        # repr() refuses ints of more than 4,300 digits (sys.get_int_max_str_digits).
        n = abs(value)
        digits = int(n.bit_length() * 0.30102999566398120) + 1  # log10(2): may be one too many
        digits -= n < 10 ** (digits - 1)
        return f"an int of {digits} digits"
    text = repr(value)
    if "\n" in text:  # a numpy array's repr spans lines: one line in a message
        text = " ".join(text.split())
    if len(text) <= MAX_SHOWN:
        return text
    return f"{text[: MAX_SHOWN - 60]} ... {text[-20:]} ({len(text)} characters in all)"

"""One module per ``tieaware`` subcommand; see :mod:`tieaware.cli`."""

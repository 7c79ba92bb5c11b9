"""``python -m tieaware`` is the ``tieaware`` command."""

import sys

from tieaware.cli import main

if __name__ == "__main__":
    sys.exit(main())

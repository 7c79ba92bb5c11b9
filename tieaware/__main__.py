import sys

from tieaware.cli import main

sys.exit(main())

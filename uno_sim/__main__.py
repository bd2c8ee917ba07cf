"""`python -m uno_sim`: the `uno-sim` command line."""

import sys

from .cli import main

sys.exit(main())

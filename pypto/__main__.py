"""``python -m pypto``: the command line (see :mod:`pypto.cli`)."""

import sys

from .cli import main

sys.exit(main())

"""Entry point: `python -m inferd`."""

import sys

from inferd.app import main

sys.exit(main())

"""Entry point: `python -m plugin_host`."""

import sys

from plugin_host.app import main

sys.exit(main())

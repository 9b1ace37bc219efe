"""Entry point: `python -m plugin_host.runner` (started by the host's supervisor, one process per plugin)."""

import sys

from plugin_host.runner.main import main

sys.exit(main())

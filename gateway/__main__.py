"""`python -m gateway` runs the HTTP gateway until SIGINT/SIGTERM."""

import sys

from gateway.app import main

sys.exit(main())

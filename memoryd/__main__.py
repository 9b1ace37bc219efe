"""`python -m memoryd`: run the memory service."""

import sys

from memoryd.app import main

sys.exit(main())

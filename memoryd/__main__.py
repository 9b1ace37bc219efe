"""`python -m memoryd`: run the memory service."""

import os
import sys

# memoryd's vector math is small; multi-threaded BLAS workers spin on the other core after each product and
# slowed a consolidation step 10x and BufferTurn tail latency 8x in measurements. Set before numpy loads.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from memoryd.app import main

sys.exit(main())

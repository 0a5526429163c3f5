"""``python -m warpscope.emulator.timing``: build the timing model ahead of time now (``aot``)."""

import sys

from warpscope.emulator.timing import aot

sys.exit(aot.main(sys.argv[1:]))

"""The SIMT emulator: numba.cuda-style Python kernels run warp by warp, with the counters
Nsight Compute reports (docs/emulator.md).

    from warpscope.emulator import cuda

    @cuda.jit
    def add(a, b, c):
        i = cuda.grid(1)
        if i < c.size:
            c[i] = a[i] + b[i]

    add[4, 256](a, b, c)
"""

from warpscope.emulator import random as _random
from warpscope.emulator.api import cuda
from warpscope.emulator.errors import EmulatorError, KernelFault, UnsupportedError
from warpscope.emulator.kernel import SETTINGS, Launch, Settings, current_settings, recording, using

cuda.random = _random  # numba-cuda's ``cuda.random`` module, as ``numba.cuda.random``

__all__ = [
    "SETTINGS",
    "EmulatorError",
    "KernelFault",
    "Launch",
    "Settings",
    "UnsupportedError",
    "cuda",
    "current_settings",
    "recording",
    "using",
]

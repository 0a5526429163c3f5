"""What each callable a kernel may name does, warp-wide, one module per family.

Importing this package fills the registry (``registry.BUILDERS``); the compiler asks it
through ``call``, ``is_known`` and ``dim3_component``. Anything not registered is
rejected with the kernel's line.
"""

from warpscope.emulator.intrinsics import (  # noqa: F401  (each family registers itself)
    allocation,
    atomics,
    bits,
    elementwise,
    half,
    libdevice,
    python_builtins,
    sync,
    warp,
)
from warpscope.emulator.intrinsics.indexing import dim3_component
from warpscope.emulator.intrinsics.registry import call, is_known

__all__ = ["call", "dim3_component", "is_known"]

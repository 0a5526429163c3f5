"""Which pipe an operation's instruction runs on (the timing model's instruction classes)."""

from __future__ import annotations

from typing import Any

import numpy as np

from warpscope.emulator.instructions import Op, arithmetic_op

#: the pipe class of a load or store, by the kind of memory it reads or writes
LOAD_OP = {"global": Op.LDG, "shared": Op.LDS, "local": Op.LDL, "const": Op.ALU}
STORE_OP = {"global": Op.STG, "shared": Op.STS, "local": Op.STL}


def memory_op(ops: dict[str, Op], array: Any, index: tuple[Any, ...], inst: Any = None) -> Op:
    """A local array indexed the same on every lane is timed as registers: nvcc keeps such
    arrays in registers once the loops that index them are unrolled, so a store is a
    register write (no instruction: the array's slot takes the value's readiness, loads
    in flight stay in flight) and a load a register move. Only where the index names values
    set once (``inst.register_index``): one a data-dependent loop moves (``b -= 1``) is an
    address, and whether it holds one value for every lane of a chunk depends on the chunk."""
    if array.kind == "local" and (inst is None or inst.register_index) and not any(np.ndim(i) for i in index):
        return Op.DEF if ops is STORE_OP else Op.ALU
    return ops[array.kind]


def arith_op(value: Any, divide: bool) -> Op:
    op = arithmetic_op(value)
    return Op.FDIV if divide and op is Op.FMA else op

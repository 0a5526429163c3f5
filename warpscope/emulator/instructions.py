"""Static instructions of a compiled kernel: what the timing model needs to know of each.

The compiler gives every place that executes a warp instruction an ``Inst``: its source
line, how many instructions it stands for, the pipe class, the value slots it reads and
the one it writes. Slots are instruction results (temporaries) and variables; a variable's
slot is written by a zero-cost ``DEF`` when a name is assigned, so the timing model can
follow a value from the load that produced it to the instruction that consumes it, across
statements and loop iterations, as a register scoreboard does.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

import numpy as np


class Op(IntEnum):
    """Pipe classes, after the SASS instruction they stand for."""

    ALU = 0  # integer, logic, compare, select, moves (IADD3, LOP3, ISETP, SEL, MOV)
    FMA = 1  # fp32 add, multiply, fused multiply-add (FADD, FMUL, FFMA)
    FP64 = 2  # fp64 arithmetic (DADD, DMUL, DFMA)
    XU = 3  # transcendental functions: MUFU.* plus the refinement nvcc emits around it
    LDG = 4  # global load
    STG = 5  # global store
    ATOMG = 6  # global atomic
    LDS = 7  # shared load
    STS = 8  # shared store
    ATOMS = 9  # shared atomic
    LDL = 10  # local load
    STL = 11  # local store
    SHFL = 12  # warp shuffle
    BAR = 13  # block barrier (BAR.SYNC)
    BRA = 14  # branch (loop test, if)
    DEF = 15  # no instruction: a variable takes a value's readiness
    FDIV = 16  # fp32 division: reciprocal (MUFU.RCP) plus refinement
    CVT = 17  # conversions between integer and floating point, or float widths (I2F, F2I, F2F)


@dataclass(eq=False)
class Inst:
    """One instruction site. ``op`` None: decided from the result's dtype when it runs."""

    id: int
    line: int
    n: int
    op: Op | None
    srcs: tuple[int, ...]
    dst: int
    #: a load or store here may find a local array in registers (``compiler.ops.memory_op``):
    #: its index names only values set once (see ``compiler.core.register_names``)
    register_index: bool = True

    def __reduce__(self) -> tuple[type[Inst], tuple[Any, ...]]:
        """Pickled as its fields, rebuilt by its constructor (a compile cache entry holds dozens:
        2.5x faster to load than setting its attributes from a dictionary each)."""
        return Inst, (self.id, self.line, self.n, self.op, self.srcs, self.dst, self.register_index)


@dataclass
class InstTable:
    """Every instruction site and value slot of one kernel (device functions inlined)."""

    insts: list[Inst] = field(default_factory=list)
    slots: int = 0
    variables: dict[tuple[int, str], int] = field(default_factory=dict)

    def new_slot(self) -> int:
        self.slots += 1
        return self.slots - 1

    def variable(self, scope: int, name: str) -> int:
        key = (scope, name)
        slot = self.variables.get(key)
        if slot is None:
            slot = self.variables[key] = self.new_slot()
        return slot

    def inst(
        self,
        line: int,
        op: Op | None,
        srcs: frozenset[int] | tuple[int, ...] = (),
        n: int = 1,
        dst: int | None = None,
    ) -> Inst:
        """A new instruction site; it writes a fresh temporary unless ``dst`` names a slot."""
        inst = Inst(
            len(self.insts), line, n, op, tuple(sorted(srcs)), self.new_slot() if dst is None else dst
        )
        self.insts.append(inst)
        return inst


def arithmetic_op(value: Any) -> Op:
    """The pipe of an arithmetic result: fp32 on FMA, fp64 on the FP64 pipe, the rest ALU."""
    dtype = getattr(value, "dtype", None)
    if dtype is None:
        return Op.FMA if isinstance(value, float) else Op.ALU
    return _PIPE_OF.get(dtype, Op.ALU)  # a dict: dtype comparisons cost more (once per operation)


_PIPE_OF = {np.dtype(np.float32): Op.FMA, np.dtype(np.float16): Op.FMA, np.dtype(np.float64): Op.FP64}

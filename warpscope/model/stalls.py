"""Stall reasons: Nsight Compute's names, and the nvprof metrics that mean the same thing.

nvprof's other ``stall_*`` metrics merge several ncu reasons (``exec_dependency`` =
short_scoreboard + wait, ...) and keep their own name.
"""

from __future__ import annotations

#: nvprof stall metric -> Nsight Compute reason, where the meaning is the same
NVPROF_STALLS = {
    "stall_inst_fetch": "no_instruction",
    "stall_memory_dependency": "long_scoreboard",
    "stall_texture": "tex_throttle",
    "stall_not_selected": "not_selected",
    "stall_sleeping": "sleeping",
    "stall_constant_memory_dependency": "imc_miss",
}

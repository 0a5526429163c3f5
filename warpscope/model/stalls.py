"""Warp states and stall reasons: Nsight Compute's names, and the nvprof metrics that mean the
same thing.

nvprof's other ``stall_*`` metrics merge several ncu reasons (``exec_dependency`` =
short_scoreboard + wait, ...) and keep their own name.
"""

from __future__ import annotations

#: the warp scheduler states the emulator models, in Nsight Compute's names
#: (``smsp__average_warps_issue_stalled_<state>``) and its order of precedence: ``selected``
#: (issuing), ``not_selected`` (eligible), then the stall reasons. The emulator's state codes
#: and the timeline's legend follow this order.
WARP_STATES = (
    "selected",
    "not_selected",
    "wait",
    "long_scoreboard",
    "short_scoreboard",
    "barrier",
    "math_pipe_throttle",
    "mio_throttle",
    "lg_throttle",
    "branch_resolving",
    "no_instruction",
    "drain",
)

#: nvprof stall metric -> Nsight Compute reason, where the meaning is the same
NVPROF_STALLS = {
    "stall_inst_fetch": "no_instruction",
    "stall_memory_dependency": "long_scoreboard",
    "stall_texture": "tex_throttle",
    "stall_not_selected": "not_selected",
    "stall_sleeping": "sleeping",
    "stall_constant_memory_dependency": "imc_miss",
}

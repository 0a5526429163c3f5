"""Device side: what numba-cuda gives for the new corpus files (c79-c81 whole, c82 case by case)."""

import json
import sys
import traceback
import types
from pathlib import Path

import numpy as np

np.row_stack = getattr(np, "row_stack", np.vstack)
import harness  # noqa: E402
import numba  # noqa: E402
from numba import cuda  # noqa: E402

out = Path(sys.argv[1])
arrays, status = {}, {}
here = Path(__file__).parent
for stem in (
    "c79_enccs_ufuncs_gpu",
    "c80_ug_ufunc_examples",
    "c81_ug_memory_kernels",
    "c83_issue39_recursion_raise",
    "c84_issue39_array_sums",
):
    for run in (1, 2):
        try:
            got = harness.run_numba(here / f"{stem}.py")
            for k, v in got.items():
                arrays[f"run{run}/{stem}/{k}"] = v
            status[f"run{run}/{stem}"] = "ok"
        except Exception as e:
            status[f"run{run}/{stem}"] = f"{type(e).__name__}: {str(e)[:1500]}"
            traceback.print_exc()
path = here / "c82_issue39_more_forms.py"
module = types.ModuleType("c82")
module.__file__ = str(path)
sys.modules["c82"] = module
exec(compile(harness.numba_source(path), str(path), "exec"), module.__dict__)
for run in (1, 2):
    for name in sorted(n for n in vars(module) if n.startswith("case_")):
        try:
            got = harness._arrays(getattr(module, name)())
            for k, v in got.items():
                arrays[f"run{run}/c82_issue39_more_forms/{k}"] = v
            status[f"run{run}/c82/{name}"] = "ok"
        except Exception as e:
            status[f"run{run}/c82/{name}"] = f"{type(e).__name__}: {str(e)[:1500]}"
            traceback.print_exc()
np.savez_compressed(out / "h100_new.npz", **arrays)
(out / "h100_new.json").write_text(json.dumps(status, indent=1, sort_keys=True))
print(json.dumps(status, indent=1))
print("numba", numba.__version__)
try:
    import numba_cuda

    print("numba-cuda", numba_cuda.__version__)
except Exception as e:
    print("numba_cuda version?", e)
print("numpy", np.__version__, cuda.get_current_device().name)

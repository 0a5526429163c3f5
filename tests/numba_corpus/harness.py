"""Run the numba compatibility corpus under warpscope's emulator or under numba-cuda.

Each ``c*.py`` file beside this one is written for warpscope the way a numba user writes for
numba: ``from warpscope.emulator import cuda`` is the only line a numba user changes (and
``warpscope.emulator.random`` stands for ``numba.cuda.random``). ``main()`` launches the
kernels and returns the arrays to compare.

On a machine with a GPU and numba-cuda, ``python tests/numba_corpus/harness.py --numba OUT``
runs every file under numba-cuda (the imports switched back) and writes ``OUT.npz`` (each
file's arrays as ``file/name``) and ``OUT.json`` (which files numba ran, and why not);
``tests/data/numba_corpus/`` holds what the H100 gave.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import traceback
import types
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).parent
#: what a numba user writes where the corpus imports warpscope
NUMBA_IMPORTS = (
    ("from warpscope.emulator.random import", "from numba.cuda.random import"),
    ("from warpscope.emulator import cuda", "from numba import cuda"),
)


def corpus_files() -> list[Path]:
    return sorted(HERE.glob("c[0-9][0-9]_*.py"))


def numba_source(path: Path) -> str:
    """The file as a numba user has it: warpscope's imports switched to numba's."""
    text = path.read_text()
    for ours, theirs in NUMBA_IMPORTS:
        text = text.replace(ours, theirs)
    return text


def run_warpscope(path: Path) -> dict[str, np.ndarray]:
    """Import the file as it is (the emulator reads kernels' source) and call its main(), with
    numba's own names that reach the GPU (``numba.vectorize(target='cuda')``...) the emulator's
    as ``warpscope emulate`` has them."""
    from warpscope.emulator.runner import numba_cuda_is_the_emulator

    with numba_cuda_is_the_emulator():
        return _run_warpscope(path)


def _run_warpscope(path: Path) -> dict[str, np.ndarray]:
    name = f"_corpus_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
        return _arrays(module.main())
    finally:
        sys.modules.pop(name, None)


def run_numba(path: Path) -> dict[str, np.ndarray]:
    module = types.ModuleType(f"_corpus_numba_{path.stem}")
    module.__file__ = str(path)
    sys.modules[module.__name__] = module
    exec(compile(numba_source(path), str(path), "exec"), module.__dict__)
    return _arrays(module.main())


def _arrays(result: dict[str, Any]) -> dict[str, np.ndarray]:
    return {k: np.asarray(v.copy_to_host() if hasattr(v, "copy_to_host") else v) for k, v in result.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--numba", metavar="OUT", required=True, help="write OUT.npz and OUT.json")
    args = parser.parse_args()
    arrays: dict[str, np.ndarray] = {}
    status: dict[str, str] = {}
    for path in corpus_files():
        try:
            for key, value in run_numba(path).items():
                arrays[f"{path.stem}/{key}"] = value
            status[path.stem] = "ok"
        except Exception as e:
            status[path.stem] = f"{type(e).__name__}: {str(e)[:2000]}"
            traceback.print_exc()
        print(path.stem, status[path.stem][:200], flush=True)
    np.savez_compressed(f"{args.numba}.npz", **arrays)
    Path(f"{args.numba}.json").write_text(json.dumps(status, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()

"""Fingerprints of everything the emulator produces, to show a speed change changed nothing.

For the seed workload (at the H100's sizes, or ``--scale``) and every file of
``tests/numba_corpus``, with the timing model off and on: a hash of the output arrays and,
per launch, of its per-line counters, its timing fields (not the host's wall time), its
hazards and barrier warnings, and of what the file wrote to stderr. Two trees compared:

    python tools/emulator_fingerprint.py write before.json        # in the old tree
    python tools/emulator_fingerprint.py write after.json         # in the new one
    python tools/emulator_fingerprint.py compare before.json after.json

``compare`` lists the runs that differ (exit 1 if any). Run ``write`` from the tree being
measured (its ``warpscope`` first on ``sys.path``); it takes about 25 s.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import hashlib
import io
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent


def _digest(obj: Any) -> str:
    return hashlib.sha1(repr(_plain(obj)).encode()).hexdigest()[:16]


def _plain(obj: Any) -> Any:
    """``obj`` with every array as a hash of its bytes (``repr`` elides long arrays) and every
    object as its fields."""
    if isinstance(obj, np.ndarray):
        return (obj.dtype.str, obj.shape, hashlib.sha1(np.ascontiguousarray(obj).tobytes()).hexdigest())
    if isinstance(obj, dict):
        return {k: _plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_plain(v) for v in obj]
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return (type(obj).__name__, {f.name: _plain(getattr(obj, f.name)) for f in dataclasses.fields(obj)})
    if hasattr(obj, "__dict__") and not isinstance(obj, type):
        return (type(obj).__name__, {k: _plain(v) for k, v in sorted(vars(obj).items())})
    return obj


def _launch(launch: Any) -> str:
    fields: dict[str, Any] = {
        "kernel": launch.kernel,
        "sites": sorted((line, dataclasses.asdict(s)) for line, s in launch.counters.sites.items()),
        "warp_instructions": launch.counters.warp_instructions,
        "hazards": launch.hazards,
        "barrier_warnings": launch.barrier_warnings,
    }
    if launch.timing is not None:  # every field but the host's wall time
        fields["timing"] = {k: v for k, v in sorted(vars(launch.timing).items()) if k != "wall_s"}
    return _digest(fields)


def _arrays(out: Any) -> str:
    if not isinstance(out, dict):
        return _digest(out)
    return _digest(sorted(out.items()))


def write(path: Path, scale: int) -> None:
    sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "numba_corpus")]
    import harness  # type: ignore[import-not-found]

    from warpscope.emulator.kernel import SETTINGS, recording
    from warpscope.emulator.workloads import seed

    runs: dict[str, list[str]] = {}
    for timing in (False, True):
        SETTINGS.timing = timing
        with recording() as launches:
            out = seed.main(scale)
        runs[f"seed/{timing}"] = [_arrays(out), *(_launch(l) for l in launches)]
        for file in harness.corpus_files():
            stderr = io.StringIO()
            try:
                with recording() as launches, contextlib.redirect_stderr(stderr):
                    out = harness.run_warpscope(file)
                runs[f"{file.stem}/{timing}"] = [
                    _arrays(out),
                    *(_launch(l) for l in launches),
                    _digest(stderr.getvalue()),
                ]
            except Exception as e:  # a file that fails is fingerprinted by its failure
                runs[f"{file.stem}/{timing}"] = ["error", type(e).__name__, str(e)[:200]]
    path.write_text(json.dumps(runs, indent=0))
    print(f"{path}: {len(runs)} runs")


def compare(before: Path, after: Path) -> int:
    a, b = json.loads(before.read_text()), json.loads(after.read_text())
    differ = sorted(k for k in a.keys() | b.keys() if a.get(k) != b.get(k))
    print(f"{len(a)} runs compared; differ: {differ}")
    return 1 if differ else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    w = sub.add_parser("write", help="fingerprint this tree's emulator")
    w.add_argument("out", type=Path)
    w.add_argument("--scale", type=int, default=1, help="the seed workload's scale (1: the H100's sizes)")
    c = sub.add_parser("compare", help="compare two fingerprint files")
    c.add_argument("before", type=Path)
    c.add_argument("after", type=Path)
    args = parser.parse_args()
    if args.command == "write":
        write(args.out, args.scale)
    else:
        sys.exit(compare(args.before, args.after))


if __name__ == "__main__":
    main()

"""Emulated workloads kept between runs.

``warpscope demo`` emulates the seed workload (23 launches at the sizes profiled on the
H100): most of a minute and more on a small machine, for a result that depends only on
warpscope's code, the settings and the scale. So the result is saved in the user's cache
under a key made of exactly those, and a later demo loads it in a fraction of a second;
any change to warpscope's code makes a new key. The folder is ``cachedir.cache_dir()``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
from pathlib import Path

from warpscope.emulator.cachedir import cache_dir
from warpscope.emulator.errors import EmulatorError
from warpscope.emulator.kernel import Settings
from warpscope.emulator.runner import Progress, emulate_workload
from warpscope.model.profile import Profile

_PACKAGE = Path(__file__).resolve().parent.parent  # warpscope/


def cached_workload(
    name: str,
    settings: Settings | None = None,
    scale: int = 1,
    progress: Progress | None = None,
    *,
    in_process: bool = True,
) -> Profile:
    """``emulate_workload(name, settings, scale)``, from the cache when this code ran it before.

    ``in_process=False`` emulates in a child process: a UI thread beside it then never waits
    for the interpreter lock the emulator holds (a keystroke took over a second that way)."""
    settings = settings or Settings()
    path = cache_dir() / f"{name}-x{scale}-{key(name, settings, scale)}.parquet"
    if path.is_file():
        try:
            profile = Profile.load(path)
        except (OSError, ValueError):
            path.unlink(missing_ok=True)  # damaged: emulate again
        else:
            if progress is not None:
                progress(profile.launches.height, profile.launches.height, "from the cache")
            return profile
    if not in_process:
        return _in_child(path, name, settings, scale, progress)
    profile = emulate_workload(name, settings, scale, progress)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        profile.save(path)  # atomic: a demo quit half-way leaves no half file
    except OSError:
        pass  # a read-only home: no cache, the same result
    return profile


def _in_child(path: Path, name: str, settings: Settings, scale: int, progress: Progress | None) -> Profile:
    """Emulate in a child interpreter that saves the profile to ``path`` (a temporary file
    when the cache cannot be written) and reports progress as JSON lines; its error is
    raised here. A plain subprocess, not multiprocessing: under Textual, sys.stderr has no
    file descriptor, and multiprocessing's start passes it on and fails."""
    import json
    import subprocess
    import sys
    import tempfile

    with tempfile.TemporaryDirectory(prefix="warpscope-") as scratch:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            target = path
        except OSError:
            target = Path(scratch) / path.name
        command = [
            sys.executable,
            "-c",
            "from warpscope.emulator.cache import child_main; child_main()",
            str(target),
            name,
            str(scale),
            json.dumps(dataclasses.asdict(settings)),
        ]
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join([str(_PACKAGE.parent), os.environ.get("PYTHONPATH", "")]),
        }
        with open(Path(scratch) / "stderr", "w+") as errors:
            child = subprocess.Popen(
                command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=errors, text=True, env=env
            )
            assert child.stdout is not None
            for line in child.stdout:
                message = json.loads(line)
                if message[0] == "progress" and progress is not None:
                    progress(*message[1:])
                elif message[0] == "error":
                    child.wait()
                    raise EmulatorError(message[1])
            if child.wait() != 0:
                errors.seek(0)
                last = (errors.read().strip().splitlines() or ["no message"])[-1]
                raise EmulatorError(f"the emulator process stopped (exit code {child.returncode}): {last}")
        return Profile.load(target)


def child_main() -> None:
    """The child of ``_in_child``: argv = path, workload, scale, settings as JSON."""
    import json
    import sys

    path, name, scale, settings = sys.argv[1:5]
    channel = sys.stdout  # the parent's pipe: the emulated program's own prints go to stderr

    def say(*message: object) -> None:
        channel.write(json.dumps(message) + "\n")
        channel.flush()

    try:
        profile = emulate_workload(
            name, Settings(**json.loads(settings)), int(scale), lambda *p: say("progress", *p)
        )
        profile.save(path)
    except Exception as e:  # said in the parent, in one line
        say("error", f"{type(e).__name__}: {e}")


def key(name: str, settings: Settings, scale: int) -> str:
    """What the result depends on: every source file of warpscope, the settings, the scale."""
    digest = hashlib.sha256(f"{name}|{scale}|{settings!r}".encode())
    for source in sorted(_PACKAGE.rglob("*.py")):
        digest.update(str(source.relative_to(_PACKAGE)).encode())
        digest.update(source.read_bytes())
    return digest.hexdigest()[:16]

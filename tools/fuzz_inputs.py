"""Fuzz the importers, the report and the diff with mutated real exports.

Every supported format is represented by real samples (sample_traces/h100, plus
../shared/public_samples when present), each cut to its first lines so one import takes
milliseconds. Each input is a sample with one to three mutations (byte flips, truncation
at a line or a byte, shuffled / duplicated / missing columns, wrong units, a huge field,
NUL bytes, mixed line endings, non-UTF-8 bytes, BOMs, CSV quote abuse, lines dropped,
repeated or swapped, absurd numbers). Each runs in a worker process with a time box and a
memory cap, through ``importers.import_file``, then the markdown and JSON reports and a
diff against the unmutated sample. The only acceptable outcomes:

  - a Profile that every report and the diff can render, or
  - an ``InputError`` whose message is one line and is not an importer bug
    ("could not be imported ... please report" means an unforeseen exception was caught).

Anything else -- an exception, a hang, a worker killed for memory -- is written to the
crash folder with its mutation, to become a regression test.

    python tools/fuzz_inputs.py [--per-format 10000] [--jobs 2] [--seed 1] [--crashes fuzz-crashes]
"""

from __future__ import annotations

import argparse
import csv
import functools
import gzip
import io
import multiprocessing
import os
import random
import re
import resource
import signal
import struct
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SHARED = ROOT.parent / "shared" / "public_samples"
BASE_LINES = 160  # a sample is cut to this many lines (one import: milliseconds)
TIME_BOX_S = 20  # per input, import + reports + diff
MEMORY_CAP = 2 << 30  # peak resident bytes a worker may reach (checked after each input)


# -- the samples ------------------------------------------------------------------------
def samples() -> dict[str, list[tuple[str, bytes]]]:
    """format -> [(sample name, bytes)], every supported format with its real samples."""
    import warpscope
    from warpscope.errors import InputError

    h100 = ROOT / "sample_traces" / "h100"
    files = sorted(
        p
        for p in h100.rglob("*")
        if p.is_file() and "cnn_step" not in p.parts and "calibration" not in p.parts
    )
    files += sorted(p for p in (ROOT / "sample_traces" / "public").rglob("*") if p.is_file())
    shipped = {p.name for p in files}
    if SHARED.is_dir():  # the public exports the repository may not ship
        files += sorted(
            p for d in SHARED.iterdir() if d.is_dir() for p in d.iterdir() if p.name not in shipped
        )
    out: dict[str, list[tuple[str, bytes]]] = {}
    for path in files:
        if path.suffix in (".md", ".cu"):
            continue
        try:
            fmt = warpscope.load(path).sources["format"][0]
        except InputError:
            if path.suffix == ".txt":
                continue  # notes and logs beside the exports (versions, ncu --help)
            fmt = "not-a-profile"  # the error-only capture: fuzzing it must stay an error
        raw = path.read_bytes()
        if raw[:2] == b"\x1f\x8b":
            raw = gzip.decompress(raw)
        out.setdefault(fmt, []).append((path.name, _cut(raw)))
    with tempfile.TemporaryDirectory() as tmp:  # a saved profile is an input too
        saved = Path(tmp) / "saved.parquet"
        warpscope.load(ROOT / "sample_traces" / "h100" / "seed_sass_counters_raw.csv").save(saved)
        out["warpscope-profile"] = [("seed_sass_counters.parquet", saved.read_bytes())]
    return out


def _cut(data: bytes) -> bytes:
    if data.startswith(b"NVR\x00"):
        return _cut_report(data)
    lines = data.splitlines(keepends=True)
    return b"".join(lines[:BASE_LINES])


REPORT_LAUNCHES = 2  # a report is cut after the block of its second launch


def _report_blocks(data: bytes) -> list[tuple[int, int]]:
    """(start, end) of each length-prefixed piece of a report: the file header, then per block
    its header and payload as one piece."""
    from warpscope.importers.ncurep import messages

    (size,) = struct.unpack_from("<I", data, 4)
    pieces, pos = [(4, 8 + size)], 8 + size
    while pos + 4 <= len(data):
        (size,) = struct.unpack_from("<I", data, pos)
        header = messages.BlockHeader.FromString(data[pos + 4 : pos + 4 + size])
        end = pos + 4 + size + header.PayloadSize
        pieces.append((pos, end))
        pos = end
    return pieces


def _cut_report(data: bytes) -> bytes:
    from warpscope.importers.ncurep import messages

    launches, end = 0, len(data)
    for start, stop in _report_blocks(data)[1:]:
        (size,) = struct.unpack_from("<I", data, start)
        launches += messages.BlockHeader.FromString(data[start + 4 : start + 4 + size]).NumResults
        if launches >= REPORT_LAUNCHES:
            end = stop
            break
    return data[:end]


# -- mutations --------------------------------------------------------------------------
Mutation = Callable[[bytes, random.Random], bytes]


def flip_bytes(data: bytes, rng: random.Random) -> bytes:
    buf = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        if buf:
            buf[rng.randrange(len(buf))] ^= 1 << rng.randrange(8)
    return bytes(buf)


def truncate_at_line(data: bytes, rng: random.Random) -> bytes:
    lines = data.splitlines(keepends=True)
    return b"".join(lines[: rng.randint(0, len(lines))])


def truncate_at_byte(data: bytes, rng: random.Random) -> bytes:
    return data[: rng.randint(0, len(data))]


def _rows(data: bytes) -> list[list[str]] | None:
    text = data.decode("utf-8", "replace")
    try:
        rows = list(csv.reader(io.StringIO(text)))
    except csv.Error:
        return None
    return rows if rows and max(len(r) for r in rows) > 1 else None


def _write(rows: list[list[str]]) -> bytes:
    sink = io.StringIO()
    csv.writer(sink, quoting=csv.QUOTE_ALL, lineterminator="\n").writerows(rows)
    return sink.getvalue().encode()


def shuffle_columns(data: bytes, rng: random.Random) -> bytes:
    rows = _rows(data)
    if rows is None:
        return flip_bytes(data, rng)
    width = max(len(r) for r in rows)
    order = list(range(width))
    rng.shuffle(order)
    return _write([[r[i] if i < len(r) else "" for i in order] for r in rows])


def duplicate_column(data: bytes, rng: random.Random) -> bytes:
    rows = _rows(data)
    if rows is None:
        return flip_bytes(data, rng)
    col = rng.randrange(max(len(r) for r in rows))
    return _write([r[: col + 1] + r[col : col + 1] + r[col + 1 :] for r in rows])


def drop_column(data: bytes, rng: random.Random) -> bytes:
    rows = _rows(data)
    if rows is None:
        return flip_bytes(data, rng)
    col = rng.randrange(max(len(r) for r in rows))
    return _write([r[:col] + r[col + 1 :] for r in rows])


_UNITS = [
    b"nsecond",
    b"usecond",
    b"msecond",
    b"second",
    b"byte",
    b"Kbyte",
    b"Mbyte",
    b"Gbyte",
    b"%",
    b"cycle",
    b"Ghz",
    b"hz",
    b"inst",
    b"sector",
    b"request",
    b"warp",
    b"block",
    b"register/thread",
    b"byte/second",
    b"Tbyte/s",
    b"furlong",
    b"",
    b"%%",
    b"1/0",
]


def wrong_units(data: bytes, rng: random.Random) -> bytes:
    out = data
    for unit in rng.sample(_UNITS[:-4], 4):
        out = out.replace(b'"' + unit + b'"', b'"' + rng.choice(_UNITS) + b'"')
    return out


def huge_field(data: bytes, rng: random.Random) -> bytes:
    at = rng.randrange(len(data) + 1)
    blob = rng.choice([b"A", b"[bold]", b"\x1b[31m", b",", b'"']) * rng.choice([1 << 16, 1 << 20, 3 << 20])
    return data[:at] + blob + data[at:]


def nul_bytes(data: bytes, rng: random.Random) -> bytes:
    buf = bytearray(data)
    for _ in range(rng.randint(1, 16)):
        buf.insert(rng.randrange(len(buf) + 1), 0)
    return bytes(buf)


def line_endings(data: bytes, rng: random.Random) -> bytes:
    parts = data.split(b"\n")
    return b"".join(p + rng.choice([b"\n", b"\r\n", b"\r", b"\n\n"]) for p in parts[:-1]) + parts[-1]


def non_utf8(data: bytes, rng: random.Random) -> bytes:
    buf = bytearray(data)
    for _ in range(rng.randint(1, 6)):
        buf[rng.randrange(len(buf) + 1) : 0] = rng.choice(
            [b"\xff", b"\xfe\xff", b"\xc3(", b"\xe9", b"\xed\xa0\x80", b"\xf4\x90\x80\x80"]
        )
    return bytes(buf)


def bom(data: bytes, rng: random.Random) -> bytes:
    choice = rng.randrange(4)
    if choice == 0:
        return b"\xef\xbb\xbf" + data
    if choice == 1:
        return b"\xef\xbb\xbf\xef\xbb\xbf" + data
    text = data.decode("utf-8", "replace")
    return text.encode("utf-16") if choice == 2 else b"\xff\xfe" + data


def quote_abuse(data: bytes, rng: random.Random) -> bytes:
    buf = bytearray(data)
    for _ in range(rng.randint(1, 6)):
        buf[rng.randrange(len(buf) + 1) : 0] = rng.choice([b'"', b'""', b'"""', b'","', b'\\"', b'"\n"'])
    return bytes(buf)


def shuffle_lines(data: bytes, rng: random.Random) -> bytes:
    lines = data.splitlines(keepends=True)
    if len(lines) < 2:
        return data + data
    op = rng.randrange(3)
    i = rng.randrange(len(lines))
    if op == 0:
        del lines[i]
    elif op == 1:
        lines.insert(i, lines[rng.randrange(len(lines))])
    else:
        j = rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    return b"".join(lines)


_NUMBER = re.compile(rb"(?<![\w.])\d[\d,]*(\.\d+)?(?![\w.])")


def absurd_numbers(data: bytes, rng: random.Random) -> bytes:
    matches = list(_NUMBER.finditer(data))
    if not matches:
        return data
    out = bytearray(data)
    for m in sorted(rng.sample(matches, min(len(matches), rng.randint(1, 12))), key=lambda m: -m.start()):
        out[m.start() : m.end()] = rng.choice(
            [
                b"1e308",
                b"-1e308",
                b"inf",
                b"nan",
                b"-0",
                b"1,2,3",
                b"99999999999999999999999",
                b"0x1F",
                b"-5",
                b"1e-320",
                b"n/a",
            ]
        )
    return bytes(out)


def _pieces(data: bytes) -> list[tuple[int, int]]:
    """A report's pieces, or [] when ``data`` is not one (or an earlier mutation broke it)."""
    if not data.startswith(b"NVR\x00"):
        return []
    try:
        return _report_blocks(data)
    except Exception:  # a broken report is for the importer to judge, not the mutator
        return []


def bad_length(data: bytes, rng: random.Random) -> bytes:
    """A report's length prefix (of a message or of a block's payload) set to a wrong value."""
    pieces = _pieces(data)
    if not pieces:
        return flip_bytes(data, rng)
    start = rng.choice(pieces)[0]
    value = rng.choice([0, 1, rng.randrange(1 << 16), 0x7FFFFFFF, 0xFFFFFFFF, len(data)])
    return data[:start] + struct.pack("<I", value) + data[start + 4 :]


def reorder_blocks(data: bytes, rng: random.Random) -> bytes:
    """A report's blocks dropped, repeated or swapped (whole, so each still parses)."""
    pieces = _pieces(data)
    if not pieces:
        return shuffle_lines(data, rng)
    head, *blocks = [data[a:b] for a, b in pieces]
    if not blocks:
        return data
    i, j = rng.randrange(len(blocks)), rng.randrange(len(blocks))
    op = rng.randrange(3)
    if op == 0:
        del blocks[i]
    elif op == 1:
        blocks.insert(i, blocks[j])
    else:
        blocks[i], blocks[j] = blocks[j], blocks[i]
    return data[:4] + head + b"".join(blocks)


MUTATIONS: dict[str, Mutation] = {
    f.__name__: f
    for f in (
        flip_bytes,
        truncate_at_line,
        truncate_at_byte,
        shuffle_columns,
        duplicate_column,
        drop_column,
        wrong_units,
        huge_field,
        nul_bytes,
        line_endings,
        non_utf8,
        bom,
        quote_abuse,
        shuffle_lines,
        absurd_numbers,
        bad_length,
        reorder_blocks,
    )
}


def mutate(data: bytes, seed: int) -> tuple[bytes, list[str]]:
    """``data`` with one to three mutations chosen by ``seed``; returns the names applied."""
    rng = random.Random(seed)
    names = rng.sample(sorted(MUTATIONS), rng.choice([1, 1, 1, 2, 3]))
    for name in names:
        data = MUTATIONS[name](data, rng)
    return data, names


# -- one input ------------------------------------------------------------------------------
@dataclass
class Outcome:
    kind: str  # profile | input_error | bug
    detail: str = ""


def run_one(data: bytes, base: bytes | None, suffix: str = ".csv") -> Outcome:
    """Import ``data``; on a Profile render both reports and the diff against ``base``."""
    from warpscope.analysis import analyze
    from warpscope.errors import InputError
    from warpscope.importers import import_file
    from warpscope.report import diff as diff_mod
    from warpscope.report import diff_report, json_report, markdown

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"fuzz{suffix}"
        path.write_bytes(data)
        try:
            profile = import_file(path)
        except InputError as e:
            text = str(e)
            if "please report" in text:
                return Outcome("bug", f"internal error: {text}")
            if "\n" in text or "\r" in text:
                return Outcome("bug", f"error message of several lines: {text[:300]!r}")
            return Outcome("input_error", text)
        profile.raw_cells().collect()  # lazy: read it, as a notebook would
        analysed = analyze(profile)
        markdown.render(analysed)
        json_report.render(analysed)
        if base is not None:
            result = diff_mod.diff(
                _analysed(base, suffix), analysed, [diff_mod.Threshold.parse("duration_ns>+5%")]
            )
            diff_report.render_markdown(result)
            diff_report.render_json(result)
    return Outcome("profile", f"{profile.launches.height} launches")


@functools.lru_cache(maxsize=64)
def _analysed(base: bytes, suffix: str):  # type: ignore[no-untyped-def]
    """The unmutated sample, imported and analysed once per worker (the diff's other side)."""
    from warpscope.analysis import analyze
    from warpscope.importers import import_file

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"base{suffix}"
        path.write_bytes(base)
        return analyze(import_file(path))


def _timeout(signum: int, frame: object) -> None:
    raise TimeoutError(f"over {TIME_BOX_S} s")


def _job(args: tuple[str, str, bytes, int]) -> tuple[str, str, int, list[str], Outcome, float]:
    fmt, name, base, seed = args
    data, names = mutate(base, seed)
    signal.signal(signal.SIGALRM, _timeout)
    signal.alarm(TIME_BOX_S)
    peak_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    started = time.perf_counter()
    try:
        outcome = run_one(data, base)
    except MemoryError:
        outcome = Outcome("bug", "MemoryError (over the worker's memory cap)")
    except TimeoutError as e:
        outcome = Outcome("bug", f"hang: {e}")
    except BaseException as e:
        import traceback

        outcome = Outcome("bug", "".join(traceback.format_exception(e))[-2000:])
    finally:
        signal.alarm(0)
    # an address-space limit would make Polars abort the worker; the peak resident size says
    # the same thing after the fact (ru_maxrss only grows: the input that raised it past the cap
    # is the one to blame, and workers are replaced every 200 inputs)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    if peak > MEMORY_CAP and peak > peak_before and outcome.kind != "bug":
        outcome = Outcome("bug", f"peak memory {peak >> 20} MiB over the {MEMORY_CAP >> 20} MiB cap")
    return fmt, name, seed, names, outcome, time.perf_counter() - started


def _save(folder: Path, corpus: dict, fmt: str, name: str, seed: int, names: list[str], detail: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    stem = f"{fmt}-{name}-{seed}"
    (folder / f"{stem}.input").write_bytes(mutate(dict(corpus[fmt])[name], seed)[0])
    (folder / f"{stem}.txt").write_text(f"{fmt} {name} seed {seed} {names}\n{detail}\n")


def _kind_of(detail: str) -> str:
    """A bug's last line with paths and numbers blanked, to count bugs of one kind together."""
    line = detail.strip().splitlines()[-1]
    line = re.sub(r"/\S*?(fuzz|base)\.csv", "FILE", line)
    return re.sub(r"\d+", "#", line)[:170]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-format", type=int, default=10_000)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--crashes", type=Path, default=ROOT / "fuzz-crashes")
    parser.add_argument("--formats", nargs="*", help="only these formats (default: all)")
    args = parser.parse_args()
    corpus = samples()
    if args.formats:
        corpus = {f: corpus[f] for f in args.formats}
    work = []
    for fmt, items in corpus.items():
        for i in range(args.per_format):
            name, base = items[i % len(items)]
            work.append((fmt, name, base, args.seed * 1_000_003 + len(work)))
    print(
        f"{len(corpus)} formats, {args.per_format} inputs each ({len(work)} in all), {args.jobs} workers, "
        f"time box {TIME_BOX_S} s, peak memory cap {MEMORY_CAP >> 30} GiB",
        flush=True,
    )
    tally: dict[str, Counter] = {fmt: Counter() for fmt in corpus}
    bugs = []
    started = time.perf_counter()
    slowest = 0.0
    # spawned, not forked: a fork taken while a Polars thread holds a lock deadlocks the child
    with multiprocessing.get_context("spawn").Pool(args.jobs, maxtasksperchild=200) as pool:
        for done, (fmt, name, seed, names, outcome, seconds) in enumerate(
            pool.imap_unordered(_job, work, chunksize=8), 1
        ):
            tally[fmt][outcome.kind] += 1
            slowest = max(slowest, seconds)
            if outcome.kind == "bug":  # written at once: a long run may be stopped
                bugs.append((fmt, name, seed, names, outcome.detail))
                _save(args.crashes, corpus, fmt, name, seed, names, outcome.detail)
            if done % 5000 == 0:
                print(
                    f"  {done}/{len(work)} in {time.perf_counter() - started:.0f} s, {len(bugs)} bugs; "
                    + ", ".join(f"{f} {sum(c.values())}" for f, c in sorted(tally.items())),
                    flush=True,
                )
    print(f"\n{'format':40} {'inputs':>7} {'profile':>8} {'error':>7} {'bugs':>5}")
    for fmt, counts in sorted(tally.items()):
        print(
            f"{fmt:40} {sum(counts.values()):7} {counts['profile']:8} {counts['input_error']:7} {counts['bug']:5}"
        )
    print(
        f"\n{len(work)} inputs in {time.perf_counter() - started:.0f} s; slowest input {slowest:.1f} s; "
        f"{len(bugs)} bugs"
    )
    if bugs:
        seen = Counter(_kind_of(d) for *_, d in bugs)
        for line, count in seen.most_common(20):
            print(f"{count:6}  {line}")
        sys.exit(1)


if __name__ == "__main__":
    main()

"""Per-instance metric values (one per program counter, for the source counters), decoded in
bulk.

A launch of a library kernel has thousands of instructions and some seventy counters for
each: a million list elements in a 60-launch report, which the protobuf runtime turns into
Python objects at about a microsecond each. The elements of such a list share one shape on
the wire, so ``decode`` reads them all at once with NumPy:

    0x0a L1 | 0x28 varint          (CorrelationId: a Uint64Value, the program counter)
    0x12 L2 | 0x28 varint          (ElementValue: a Uint64Value)
            | 0x19 8-byte double   (          or a DoubleValue)
            | 0x15 4-byte float    (          or a FloatValue)

Any list that departs from that shape (a string id, a longer length, a field more) is
decoded element by element with the runtime instead (``decode_slowly``); the two agree,
which tests/test_ncurep.py checks on every list of the sample reports.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from warpscope.importers.ncurep import messages

_ID, _VALUE = 0x0A, 0x12  # the element's fields 1 and 2, length-delimited
_U64, _F64, _F32 = 0x28, 0x19, 0x15  # MetricValue's Uint64Value, DoubleValue, FloatValue
Pairs = tuple[np.ndarray, np.ndarray]  # (ids as uint64, values as float64)


def decode(elements: Sequence[bytes]) -> Pairs | None:
    """(ids, values) of a list of serialized elements; None when a value is not a number
    (text ids or values: not program counters)."""
    return _decode_fast(elements) or decode_slowly(elements)


def decode_slowly(elements: Sequence[bytes]) -> Pairs | None:
    ids, values = [], []
    for raw in elements:
        element = messages.parse(messages.MetricListElement, raw, "a per-instance value")
        key, value = element.CorrelationId, element.ElementValue
        if not key.HasField("Uint64Value"):
            return None
        for kind in ("Uint64Value", "DoubleValue", "FloatValue", "Uint32Value"):
            if value.HasField(kind):
                values.append(float(getattr(value, kind)))
                break
        else:
            return None
        ids.append(key.Uint64Value)
    return np.array(ids, dtype=np.uint64), np.array(values, dtype=np.float64)


def _decode_fast(elements: Sequence[bytes]) -> Pairs | None:
    n = len(elements)
    if n == 0:
        return None
    lengths = np.fromiter(map(len, elements), dtype=np.int64, count=n)
    buf = np.frombuffer(b"".join(elements), dtype=np.uint8)
    start = np.zeros(n, dtype=np.int64)
    np.cumsum(lengths[:-1], out=start[1:])
    if (lengths < 7).any() or (buf[start] != _ID).any():
        return None
    l1 = buf[start + 1].astype(np.int64)
    if (l1 >= 0x80).any() or (l1 < 2).any() or (buf[start + 2] != _U64).any():
        return None
    second = start + 2 + l1
    if (second + 3 > start + lengths).any() or (buf[second] != _VALUE).any():
        return None
    l2 = buf[second + 1].astype(np.int64)
    if (l2 >= 0x80).any() or (lengths != 4 + l1 + l2).any():
        return None
    ids = _varints(buf, start + 3, l1 - 1)
    tag = buf[second + 2]
    body, size = second + 3, l2 - 1
    values = np.empty(n, dtype=np.float64)
    done = np.zeros(n, dtype=bool)
    for kind, width in ((_F64, 8), (_F32, 4)):
        pick = (tag == kind) & (size == width)
        if pick.any():
            raw = buf[body[pick][:, None] + np.arange(width)]
            values[pick] = raw.copy().view("<f8" if width == 8 else "<f4").ravel()
            done |= pick
    pick = tag == _U64
    if pick.any():
        varints = _varints(buf, body[pick], size[pick])
        if varints is None:
            return None
        values[pick] = varints.astype(np.float64)
        done |= pick
    if ids is None or not done.all():
        return None
    return ids, values


def _varints(buf: np.ndarray, start: np.ndarray, size: np.ndarray) -> np.ndarray | None:
    """Little-endian base-128 integers of ``size`` bytes at ``start``; None if malformed.
    Byte position by byte position (at most ten), so no (n, 10) temporaries."""
    if (size < 1).any() or (size > 10).any():
        return None
    out = np.zeros(len(start), dtype=np.uint64)
    last = len(buf) - 1
    for k in range(int(size.max())):
        live = size > k
        byte = buf[np.minimum(start + k, last)]
        # every byte but the last says "more follows"
        if (((byte & 0x80) != 0) != (size > k + 1))[live].any():
            return None
        out |= np.where(live, (byte & 0x7F).astype(np.uint64) << np.uint64(7 * k), np.uint64(0))
    return out
